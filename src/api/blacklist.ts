// The admin API for the ASN blacklist (the console uses it too):
//   GET    /v1/admin/blacklist?q=&page=&limit=   search by ASN or provider
//   POST   /v1/admin/blacklist                   add a custom entry
//   PUT    /v1/admin/blacklist/:asn              {"enabled": bool, "note"?}
//   DELETE /v1/admin/blacklist/:asn              remove a custom entry
// Callers without admin rights get 404, as if the API did not exist (the
// routes are registered admin-only; http/dispatch.ts).
import { invalidParameter } from '../errors.js';
import type { EndpointTable } from '../http/endpoint-table.js';
import { addCustomEntry, listBlacklist, removeCustomEntry, setEnabled } from '../quality/blacklist-store.js';
import type { ListedAsn } from '../quality/classifier.js';
import type { BlacklistChanges } from '../store/blacklist-changes.js';
import { objectBody, pageParams, queryParams } from './validate.js';

function asnParam(value: string): number {
  const m = /^(?:AS)?([0-9]{1,10})$/i.exec(value);
  const asn = m ? Number(m[1]) : NaN;
  if (!(asn >= 1 && asn <= 0xffffffff)) throw invalidParameter('asn', 'must be an ASN such as 16509 or AS16509');
  return asn;
}

const ADMIN = { admin: true };

/** `listed`: the ASNs the serving database's ASN feeds list (built-in entries from medium). */
export function registerBlacklistEndpoints(table: EndpointTable, stored: BlacklistChanges, listed: () => ReadonlyMap<number, ListedAsn>): void {
  table.add('GET', '/v1/admin/blacklist', (req) => {
    const q = queryParams(req.query, ['q', 'page', 'limit']);
    const { page, limit } = pageParams(q);
    const term = (q.get('q') ?? '').trim().toLowerCase();
    const asnTerm = /^(?:as)?([0-9]+)$/.exec(term)?.[1];
    const all = listBlacklist(stored, listed()).filter(
      (e) => term === '' || (asnTerm !== undefined ? String(e.asn).startsWith(asnTerm) : e.provider.toLowerCase().includes(term)),
    );
    const data = all.slice((page - 1) * limit, page * limit);
    return { status: 200, body: { data, pagination: { page, limit, total: all.length, pages: Math.ceil(all.length / limit) } } };
  }, ADMIN);
  table.add('POST', '/v1/admin/blacklist', async (req) => {
    const body = objectBody(req.body, ['asn', 'provider', 'category', 'level', 'note']);
    return { status: 201, body: await addCustomEntry(stored, body as never, listed()) };
  }, ADMIN);
  table.add('PUT', '/v1/admin/blacklist/:asn', async (req) => {
    const asn = asnParam(req.params.asn);
    const body = objectBody(req.body, ['enabled', 'note']);
    if (typeof body.enabled !== 'boolean') throw invalidParameter('enabled', 'must be true or false');
    if (body.note !== undefined && (typeof body.note !== 'string' || body.note.length > 500)) throw invalidParameter('note', 'must be a string of at most 500 characters');
    return { status: 200, body: await setEnabled(stored, asn, body.enabled, body.note as string | undefined, listed()) };
  }, ADMIN);
  table.add('DELETE', '/v1/admin/blacklist/:asn', async (req) => {
    await removeCustomEntry(stored, asnParam(req.params.asn), listed());
    return { status: 204 };
  }, ADMIN);
}

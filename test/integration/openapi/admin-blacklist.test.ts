// /v1/admin/blacklist against docs/openapi.yaml: search, add, disable and
// remove an entry with their 400 / 404, and 404 for every method to an
// account that is not an admin.
//
// One server for the file. The blacklist is the server's, shared by every
// account: the admin test edits only an entry it adds itself (AS64500, a
// documentation ASN) and a built-in one it leaves enabled; the other test's
// non-admin account must change nothing.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { callOn, type CallOptions, expectReply } from '../../helpers/openapi.js';
import { newAccount } from '../../helpers/refresh.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let srv: TestServer;
const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

beforeAll(async () => {
  srv = await startServer();
});

afterAll(async () => {
  await srv?.close();
});

it('/v1/admin/blacklist: search, add, disable, remove, and their 400 / 404', async () => {
  const list = await on('GET', '/v1/admin/blacklist?q=amazon&page=1&limit=2');
  expectReply(list, '/v1/admin/blacklist', 'GET', 200);
  expect(list.json.data).toHaveLength(2);
  expect(list.json.pagination.total).toBeGreaterThanOrEqual(2);
  const byAsn = await on('GET', '/v1/admin/blacklist?q=AS15169');
  expectReply(byAsn, '/v1/admin/blacklist', 'GET', 200);
  expect(byAsn.json.data[0]).toMatchObject({ asn: 15169, built_in: true, enabled: true, note: null, updated_at: null });
  expectReply(await on('GET', '/v1/admin/blacklist?limit=500'), '/v1/admin/blacklist', 'GET', 400, { code: 'invalid_parameter', field: 'limit' });

  const entry = { asn: 64500, provider: 'Example Hosting', category: 'hosting', note: 'seen in logs' };
  const added = await on('POST', '/v1/admin/blacklist', { json: entry });
  expectReply(added, '/v1/admin/blacklist', 'POST', 201);
  expect(added.json).toEqual({ ...entry, level: 'low', built_in: false, enabled: true, source: null, updated_at: added.json.updated_at });
  for (const [json, field] of [[entry, 'asn'], [{ ...entry, asn: 15169 }, 'asn'], [{ ...entry, asn: 64501, category: 'isp' }, 'category'], [{ ...entry, asn: 64501, admin: true }, 'admin']] as const) {
    expectReply(await on('POST', '/v1/admin/blacklist', { json }), '/v1/admin/blacklist', 'POST', 400, { code: 'invalid_parameter', field });
  }

  const disabled = await on('PUT', '/v1/admin/blacklist/AS64500', { json: { enabled: false, note: 'paused' } });
  expectReply(disabled, '/v1/admin/blacklist/{asn}', 'PUT', 200);
  expect(disabled.json).toMatchObject({ asn: 64500, enabled: false, note: 'paused' });
  const builtIn = await on('PUT', '/v1/admin/blacklist/13335', { json: { enabled: true } });
  expectReply(builtIn, '/v1/admin/blacklist/{asn}', 'PUT', 200);
  expect(builtIn.json).toMatchObject({ asn: 13335, built_in: true, enabled: true });
  expectReply(await on('PUT', '/v1/admin/blacklist/64999', { json: { enabled: false } }), '/v1/admin/blacklist/{asn}', 'PUT', 404, { code: 'not_found', field: null });
  expectReply(await on('PUT', '/v1/admin/blacklist/abc', { json: { enabled: false } }), '/v1/admin/blacklist/{asn}', 'PUT', 400, { code: 'invalid_parameter', field: 'asn' });
  expectReply(await on('PUT', '/v1/admin/blacklist/64500', { json: {} }), '/v1/admin/blacklist/{asn}', 'PUT', 400, { code: 'invalid_parameter', field: 'enabled' });

  expectReply(await on('DELETE', '/v1/admin/blacklist/64500'), '/v1/admin/blacklist/{asn}', 'DELETE', 204);
  expectReply(await on('DELETE', '/v1/admin/blacklist/64500'), '/v1/admin/blacklist/{asn}', 'DELETE', 404, { code: 'not_found', field: null });
  expectReply(await on('DELETE', '/v1/admin/blacklist/13335'), '/v1/admin/blacklist/{asn}', 'DELETE', 400, { code: 'invalid_parameter', field: 'asn' });
});

it('/v1/admin/blacklist: 404 for every method to an account that is not an admin', async () => {
  const other = await newAccount(srv, 'not an admin');
  const cases: [string, string, string, unknown][] = [
    ['GET', '/v1/admin/blacklist?limit=500', '/v1/admin/blacklist', undefined],
    ['POST', '/v1/admin/blacklist', '/v1/admin/blacklist', { asn: 64502, provider: 'x', category: 'hosting' }],
    ['PUT', '/v1/admin/blacklist/15169', '/v1/admin/blacklist/{asn}', { enabled: false }],
    ['DELETE', '/v1/admin/blacklist/15169', '/v1/admin/blacklist/{asn}', undefined],
  ];
  for (const [method, urlPath, template, json] of cases) {
    expectReply(await on(method, urlPath, { key: other.api_key, json }), template, method, 404, { code: 'not_found', field: null });
  }
});

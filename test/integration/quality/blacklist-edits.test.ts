// The admin blacklist API on the real server with two threads: an edit made
// through one thread's port is applied by the other thread's classifier
// within one second (contract §6); custom entries come and go; built-in
// entries can be disabled but not removed; only admin accounts see the API
// (others get 404); search and paging; validation 400s that name the field.
//
// AS15169 (Google, 8.8.8.8) is a built-in entry at level low. AS27989
// (BANCOLOMBIA S.A, 2.59.193.1) is on no list and its name holds no keyword
// and no carrier word, so only a custom entry can intercept it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IpDatabase } from '../../../src/ipdb/database.js';
import { Classifier } from '../../../src/quality/classifier.js';
import { builtInEntries } from '../../../src/quality/blacklist-store.js';
import { ensureCachedDatabase } from '../../helpers/ipdb-cache.js';
import { builtInLists } from '../../../src/quality/lists.js';
import type { Response } from '../../helpers/client.js';
import { runCliJson } from '../../helpers/cli.js';
import { api, NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const GOOGLE = { asn: 15169, ip: '8.8.8.8' };
const OTHER_GOOGLE = { asn: 396982, ip: '5.154.244.1' };
const BANCOLOMBIA = { asn: 27989, ip: '2.59.193.1' };
const builtIn = builtInLists().blacklist;

let server: TestServer;
let userKey: string;

beforeAll(async () => {
  server = await startServer({ threads: 2, env: NO_RATE_LIMIT });
  expect(server.ports).toHaveLength(2);
  userKey = (await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'Not An Admin'], server.dataDir)).api_key;
});

afterAll(async () => {
  await server?.close();
});

const admin = (method: string, path: string, body?: unknown, thread = 0) => api(server, method, `/v1/admin/blacklist${path}`, body, { thread });

interface Check {
  asn: number;
  category: string;
  signals: { asn_blacklist: boolean };
  intercept: { low: boolean; medium: boolean; high: boolean };
  intercepted: boolean;
}

async function checkOn(thread: number, ip: string): Promise<Check> {
  const r = await api(server, 'GET', `/v1/ip/check?ip=${ip}&level=low`, undefined, { thread });
  expect(r.status, r.body).toBe(200);
  return r.json as Check;
}

/**
 * Asks thread 1 until `done` holds; returns the answer and how long after
 * `since` the first request that saw it was sent. Gives up after 3 s (the
 * caller's expectation then fails on the last answer).
 */
async function seenOnThread1(ip: string, done: (c: Check) => boolean, since: number): Promise<{ check: Check; afterMs: number }> {
  for (;;) {
    const sent = performance.now();
    const check = await checkOn(1, ip);
    if (done(check) || sent - since > 3000) return { check, afterMs: sent - since };
    await new Promise((r) => setTimeout(r, 20));
  }
}

function expect400(r: Response, field: string): void {
  expect(r.status, r.body).toBe(400);
  expect(r.json).toEqual({ error: expect.any(String), code: 'invalid_parameter', field });
  expect(r.json.error).toContain(field);
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('disabling and re-enabling a built-in entry', () => {
  it('starts intercepted at low on both threads', async () => {
    for (const thread of [0, 1]) {
      const c = await checkOn(thread, GOOGLE.ip);
      expect(c).toMatchObject({ asn: GOOGLE.asn, category: 'datacenter', signals: { asn_blacklist: true }, intercepted: true });
    }
  });

  it('disabled on thread 0: thread 1 passes 8.8.8.8 at low within 1 s', async () => {
    const r = await admin('PUT', `/${GOOGLE.asn}`, { enabled: false, note: 'Googlebot must reach the pages' });
    const since = performance.now();
    expect(r.status, r.body).toBe(200);
    expect(r.json).toEqual({
      asn: GOOGLE.asn,
      provider: 'Google LLC',
      category: 'cloud',
      level: 'low',
      built_in: true,
      enabled: false,
      source: builtIn.find((e) => e.asn === GOOGLE.asn)!.source,
      note: 'Googlebot must reach the pages',
      updated_at: expect.stringMatching(ISO),
    });
    const { check, afterMs } = await seenOnThread1(GOOGLE.ip, (c) => !c.signals.asn_blacklist, since);
    expect(check).toMatchObject({
      asn: GOOGLE.asn,
      category: 'other',
      signals: { asn_blacklist: false },
      intercept: { low: false, medium: false, high: false },
      intercepted: false,
    });
    expect(afterMs).toBeLessThanOrEqual(1000);
  });

  it('only that ASN: another Google ASN is still intercepted', async () => {
    expect(await checkOn(1, OTHER_GOOGLE.ip)).toMatchObject({ asn: OTHER_GOOGLE.asn, signals: { asn_blacklist: true }, intercepted: true });
  });

  it('the list shows the entry disabled, with its note', async () => {
    const r = await admin('GET', `?q=${GOOGLE.asn}`);
    expect(r.status, r.body).toBe(200);
    expect(r.json.data).toEqual([expect.objectContaining({ asn: GOOGLE.asn, enabled: false, built_in: true, note: 'Googlebot must reach the pages' })]);
  });

  it('re-enabled on thread 0: thread 1 intercepts 8.8.8.8 at low again within 1 s, the note kept', async () => {
    const r = await admin('PUT', `/AS${GOOGLE.asn}`, { enabled: true });
    const since = performance.now();
    expect(r.status, r.body).toBe(200);
    expect(r.json).toMatchObject({ asn: GOOGLE.asn, built_in: true, enabled: true, note: 'Googlebot must reach the pages' });
    const { check, afterMs } = await seenOnThread1(GOOGLE.ip, (c) => c.signals.asn_blacklist, since);
    expect(check).toMatchObject({
      category: 'datacenter',
      signals: { asn_blacklist: true },
      intercept: { low: true, medium: true, high: true },
      intercepted: true,
    });
    expect(afterMs).toBeLessThanOrEqual(1000);
  });

  it('a built-in entry cannot be deleted: 400 naming asn, and it stays', async () => {
    expect400(await admin('DELETE', `/${GOOGLE.asn}`), 'asn');
    expect((await checkOn(1, GOOGLE.ip)).signals.asn_blacklist).toBe(true);
  });
});

describe('a custom entry', () => {
  it('AS27989 is not intercepted before', async () => {
    expect(builtIn.some((e) => e.asn === BANCOLOMBIA.asn)).toBe(false);
    for (const thread of [0, 1]) {
      expect(await checkOn(thread, BANCOLOMBIA.ip)).toMatchObject({
        asn: BANCOLOMBIA.asn,
        category: 'other',
        signals: { asn_blacklist: false },
        intercept: { low: false, medium: false, high: false },
      });
    }
  });

  it('added on thread 0: thread 1 intercepts it at low within 1 s', async () => {
    const r = await admin('POST', '', { asn: BANCOLOMBIA.asn, provider: 'Example bulk sender', category: 'hosting', note: 'seen scraping' });
    const since = performance.now();
    expect(r.status, r.body).toBe(201);
    expect(r.json).toEqual({
      asn: BANCOLOMBIA.asn,
      provider: 'Example bulk sender',
      category: 'hosting',
      level: 'low',
      built_in: false,
      enabled: true,
      source: null,
      note: 'seen scraping',
      updated_at: expect.stringMatching(ISO),
    });
    const { check, afterMs } = await seenOnThread1(BANCOLOMBIA.ip, (c) => c.signals.asn_blacklist, since);
    expect(check).toMatchObject({
      category: 'datacenter',
      signals: { asn_blacklist: true },
      intercept: { low: true, medium: true, high: true },
      intercepted: true,
    });
    expect(afterMs).toBeLessThanOrEqual(1000);
  });

  it('adding it twice → 400 naming asn', async () => {
    expect400(await admin('POST', '', { asn: BANCOLOMBIA.asn, provider: 'Again', category: 'hosting' }), 'asn');
  });

  it('appears in the list and in a search by name', async () => {
    const r = await admin('GET', '?q=bulk%20SENDER');
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.map((e: { asn: number }) => e.asn)).toEqual([BANCOLOMBIA.asn]);
  });

  it('removed on thread 0: thread 1 passes it again within 1 s', async () => {
    const r = await admin('DELETE', `/${BANCOLOMBIA.asn}`);
    const since = performance.now();
    expect(r.status, r.body).toBe(204);
    expect(r.body).toBe('');
    const { check, afterMs } = await seenOnThread1(BANCOLOMBIA.ip, (c) => !c.signals.asn_blacklist, since);
    expect(check).toMatchObject({ category: 'other', signals: { asn_blacklist: false }, intercepted: false });
    expect(afterMs).toBeLessThanOrEqual(1000);
    expect((await admin('GET', `?q=${BANCOLOMBIA.asn}`)).json.data).toEqual([]);
  });

  it('removing it again → 404 not_found', async () => {
    const r = await admin('DELETE', `/${BANCOLOMBIA.asn}`);
    expect(r.status, r.body).toBe(404);
    expect(r.json).toMatchObject({ code: 'not_found', field: null });
  });
});

describe('search and paging', () => {
  // The built-in entries: the curated list and the ASNs the database's hosting
  // and VPN lists name (read from the same database file the server serves).
  const db = IpDatabase.open(ensureCachedDatabase());
  const listed = new Classifier(db, builtInLists(), []).listed;
  const sorted = [...builtInEntries(listed)].sort((a, b) => a.asn - b.asn);
  db.close();

  it.each([String(GOOGLE.asn), `AS${GOOGLE.asn}`, `as${GOOGLE.asn}`])('by ASN (q=%s)', async (q) => {
    const r = await admin('GET', `?q=${q}`);
    expect(r.status, r.body).toBe(200);
    const expected = sorted.filter((e) => String(e.asn).startsWith(String(GOOGLE.asn)));
    expect(r.json.data.map((e: { asn: number }) => e.asn)).toEqual(expected.map((e) => e.asn));
    expect(r.json.data[0]).toMatchObject({ asn: GOOGLE.asn, provider: 'Google LLC', built_in: true, enabled: true });
  });

  it.each(['google', 'GOOGLE'])('by name, case-insensitive (q=%s)', async (q) => {
    const r = await admin('GET', `?q=${q}&limit=100`);
    expect(r.status, r.body).toBe(200);
    const expected = sorted.filter((e) => e.provider.toLowerCase().includes('google')).map((e) => e.asn);
    expect(expected.length).toBeGreaterThanOrEqual(3);
    expect(r.json.data.map((e: { asn: number }) => e.asn)).toEqual(expected);
    expect(r.json.pagination).toEqual({ page: 1, limit: 100, total: expected.length, pages: 1 });
  });

  it('pages through every entry in ASN order', async () => {
    const r = await admin('GET', '?page=2&limit=5');
    expect(r.status, r.body).toBe(200);
    expect(r.json.data.map((e: { asn: number }) => e.asn)).toEqual(sorted.slice(5, 10).map((e) => e.asn));
    expect(r.json.pagination).toEqual({ page: 2, limit: 5, total: sorted.length, pages: Math.ceil(sorted.length / 5) });
  });

  it('a search that matches nothing → an empty page', async () => {
    const r = await admin('GET', '?q=no-such-provider-anywhere');
    expect(r.json).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, pages: 0 } });
  });

  it('an unknown query parameter → 400 naming it', async () => {
    const r = await admin('GET', '?query=google');
    expect(r.status, r.body).toBe(400);
    expect(r.json).toMatchObject({ code: 'invalid_parameter', field: 'query' });
  });
});

describe('validation', () => {
  const long = (n: number) => 'x'.repeat(n);

  it.each<[string, string, unknown]>([
    ['no asn', 'asn', { provider: 'P', category: 'hosting' }],
    ['asn as a string', 'asn', { asn: '64500', provider: 'P', category: 'hosting' }],
    ['asn 0', 'asn', { asn: 0, provider: 'P', category: 'hosting' }],
    ['asn 2^32', 'asn', { asn: 2 ** 32, provider: 'P', category: 'hosting' }],
    ['asn 1.5', 'asn', { asn: 1.5, provider: 'P', category: 'hosting' }],
    ['a built-in asn', 'asn', { asn: GOOGLE.asn, provider: 'P', category: 'hosting' }],
    ['no provider', 'provider', { asn: 64500, category: 'hosting' }],
    ['blank provider', 'provider', { asn: 64500, provider: '   ', category: 'hosting' }],
    ['provider of 201 characters', 'provider', { asn: 64500, provider: long(201), category: 'hosting' }],
    ['unknown category', 'category', { asn: 64500, provider: 'P', category: 'evil' }],
    ['unknown level', 'level', { asn: 64500, provider: 'P', category: 'hosting', level: 'extreme' }],
    ['note of 501 characters', 'note', { asn: 64500, provider: 'P', category: 'hosting', note: long(501) }],
    ['note not a string', 'note', { asn: 64500, provider: 'P', category: 'hosting', note: 7 }],
    ['an unknown field', 'enabled', { asn: 64500, provider: 'P', category: 'hosting', enabled: true }],
  ])('POST with %s → 400 naming %s', async (_name, field, body) => {
    expect400(await admin('POST', '', body), field);
  });

  it('nothing was added by the refused POSTs', async () => {
    expect((await admin('GET', '?q=64500')).json.data).toEqual([]);
  });

  it.each<[string, string, string, unknown]>([
    ['a non-numeric ASN', 'asn', '/abc', { enabled: false }],
    ['ASN 0', 'asn', '/0', { enabled: false }],
    ['ASN 2^32', 'asn', '/4294967296', { enabled: false }],
    ['no enabled', 'enabled', `/${GOOGLE.asn}`, {}],
    ['enabled as a string', 'enabled', `/${GOOGLE.asn}`, { enabled: 'false' }],
    ['a note that is not a string', 'note', `/${GOOGLE.asn}`, { enabled: true, note: 5 }],
    ['a note of 501 characters', 'note', `/${GOOGLE.asn}`, { enabled: true, note: long(501) }],
    ['an unknown field', 'provider', `/${GOOGLE.asn}`, { enabled: true, provider: 'X' }],
  ])('PUT with %s → 400 naming %s', async (_name, field, path, body) => {
    expect400(await admin('PUT', path, body), field);
  });

  it('PUT for an ASN on no list → 404 not_found', async () => {
    const r = await admin('PUT', '/64501', { enabled: false });
    expect(r.status, r.body).toBe(404);
    expect(r.json).toMatchObject({ code: 'not_found', field: null });
  });

  it('DELETE with a non-numeric ASN → 400 naming asn', async () => {
    expect400(await admin('DELETE', '/AS-1'), 'asn');
  });

  it.each([
    ['page=0', 'page'],
    ['page=x', 'page'],
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=-5', 'limit'],
  ])('GET ?%s → 400 naming %s', async (query, field) => {
    expect400(await admin('GET', `?${query}`), field);
  });

  it('Google is still enabled after all the refused edits', async () => {
    expect((await admin('GET', `?q=${GOOGLE.asn}`)).json.data[0]).toMatchObject({ asn: GOOGLE.asn, enabled: true });
  });
});

describe('an account without the admin flag', () => {
  it.each<[string, string, unknown]>([
    ['GET', '', undefined],
    ['GET', '?q=google', undefined],
    ['POST', '', { asn: 64502, provider: 'P', category: 'hosting' }],
    ['PUT', `/${GOOGLE.asn}`, { enabled: false }],
    ['DELETE', `/${GOOGLE.asn}`, undefined],
    ['DELETE', '/64502', undefined],
  ])('%s /v1/admin/blacklist%s → 404 not_found, as for a path that does not exist', async (method, path, body) => {
    const bare = `/v1/admin/blacklist${path.split('?')[0]}`;
    // What any account gets for an endpoint that does not exist.
    const nowhere = await api(server, method, '/v1/admin/nowhere', body, { key: userKey });
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toEqual({ error: `not found: no endpoint ${method} /v1/admin/nowhere`, code: 'not_found', field: null });
    for (const thread of [0, 1]) {
      const r = await api(server, method, `/v1/admin/blacklist${path}`, body, { thread, key: userKey });
      expect(r.status, r.body).toBe(404);
      expect(r.json).toEqual({ error: `not found: no endpoint ${method} ${bare}`, code: 'not_found', field: null });
    }
  });

  it('changed nothing', async () => {
    expect((await checkOn(1, GOOGLE.ip)).signals.asn_blacklist).toBe(true);
    expect((await admin('GET', '?q=64502')).json.data).toEqual([]);
  });

  it('can still use the IP check', async () => {
    const r = await api(server, 'GET', `/v1/ip/check?ip=${GOOGLE.ip}`, undefined, { key: userKey });
    expect(r.status, r.body).toBe(200);
  });
});

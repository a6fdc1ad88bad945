// One account can neither see nor touch another's data, on any endpoint:
// another account's route ids are 404 on GET, PUT and DELETE (the very answer
// an id that never existed gets, so ids cannot be probed), its routes never
// appear in a list or a total, its click statistics are nowhere to be read,
// its account record cannot be read or renamed, its rate limit and refresh
// allowance are its own, and the admin endpoints are 404 to accounts without
// the admin flag. Three accounts: A (the bootstrap admin), B and C (plain),
// on a two-thread server, each request alternating threads.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { limits, request, type Response } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let turn = 0;
const keys = { A: '', B: '', C: '' };
const ids = { A: 0, B: 0, C: 0 };
/** B's routes, as B saw them when it created them. */
let bRoutes: { id: number; code: string; name: string; page_a: string; updated_at: string }[] = [];
let aRoute: { id: number; code: string };

function api(who: keyof typeof keys, method: string, path: string, json?: unknown): Promise<Response> {
  const port = server.ports[turn++ % server.ports.length];
  return request({ port, ca: server.ca, method, path, key: keys[who], json });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const routeBody = (n: string) => ({ name: `route ${n}`, page_a: `https://a.example.com/${n}`, page_b: `https://b.example.com/${n}`, intercept_level: 'off' });

beforeAll(async () => {
  server = await startServer({ threads: 2 });
  keys.A = server.apiKey;
  ids.A = server.accountId;
  for (const who of ['B', 'C'] as const) {
    const made = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', `account ${who}`], server.dataDir);
    keys[who] = made.api_key;
    ids[who] = made.account_id;
  }
  for (const n of ['b1', 'b2', 'b3']) {
    const r = await api('B', 'POST', '/v1/routes', routeBody(n));
    expect(r.status, r.body).toBe(201);
    bRoutes.push(r.json);
  }
  const r = await api('A', 'POST', '/v1/routes', routeBody('a1'));
  expect(r.status, r.body).toBe(201);
  aRoute = r.json;
  // Clicks on B's first route, so that there are statistics to hide.
  for (let i = 0; i < 4; i++) expect((await api('C', 'GET', `/r/${bRoutes[0].code}`)).status).toBe(302);
  for (let wait = 0; wait < 20; wait++) {
    if ((await api('B', 'GET', `/v1/routes/${bRoutes[0].id}`)).json.stats.clicks.total === 4) break;
    await sleep(250);
  }
});
afterAll(async () => {
  await server?.close();
});

describe('another account\'s routes', () => {
  it.each(['A', 'C'] as const)('are 404 to %s on GET, PUT and DELETE, exactly like an id that never existed', async (who) => {
    const never = bRoutes[2].id + 1000;
    for (const route of bRoutes) {
      for (const [method, body] of [['GET', undefined], ['PUT', { name: 'stolen' }], ['DELETE', undefined]] as const) {
        const theirs = await api(who, method, `/v1/routes/${route.id}`, body);
        const missing = await api(who, method, `/v1/routes/${never}`, body);
        expect(theirs.status, `${who} ${method} ${route.id}: ${theirs.body}`).toBe(404);
        expect(theirs.json).toEqual({ error: `not found: route ${route.id} does not exist`, code: 'not_found', field: 'id' });
        expect(missing.json).toEqual({ ...theirs.json, error: `not found: route ${never} does not exist` });
        expect(theirs.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(theirs.json))));
        // The rest of the answer is the same too (no hint in a header).
        expect(Object.keys(theirs.headers).sort()).toEqual(Object.keys(missing.headers).sort());
      }
      // A PUT with an invalid body is refused for the body, whoever owns the id.
      const invalid = await api(who, 'PUT', `/v1/routes/${route.id}`, { split_ratio: 2 });
      expect(invalid.status).toBe(400);
      expect(invalid.json.field).toBe('split_ratio');
    }
  });

  it('were left untouched: B still sees them unchanged, not renamed, not deleted', async () => {
    for (const route of bRoutes) {
      const r = await api('B', 'GET', `/v1/routes/${route.id}`);
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: route.id, code: route.code, name: route.name, page_a: route.page_a, updated_at: route.updated_at });
    }
    expect((await api('C', 'GET', `/r/${bRoutes[1].code}`)).status).toBe(302);
  });

  it('never appear in another account\'s list, on any page, nor in its total', async () => {
    const bIds = new Set(bRoutes.map((r) => r.id));
    for (const who of ['A', 'C'] as const) {
      for (const query of ['', '?limit=1', '?limit=1&page=2', '?limit=100', '?page=2']) {
        const r = await api(who, 'GET', `/v1/routes${query}`);
        expect(r.status).toBe(200);
        for (const route of r.json.data) expect(bIds.has(route.id), `${who} ${query} lists ${route.id}`).toBe(false);
        expect(r.json.pagination.total).toBe(who === 'A' ? 1 : 0);
      }
    }
    const mine = await api('B', 'GET', '/v1/routes?limit=100');
    expect(mine.json.pagination.total).toBe(3);
    expect(mine.json.data.map((r: { id: number }) => r.id).sort()).toEqual([...bIds].sort());
    expect(mine.json.data.some((r: { id: number }) => r.id === aRoute.id)).toBe(false);
  });

  it('keep their statistics to themselves', async () => {
    const own = await api('B', 'GET', `/v1/routes/${bRoutes[0].id}`);
    expect(own.json.stats.clicks.total).toBe(4);
    // A's own route has none of B's clicks; B's stats are 404 to A and C.
    const a = await api('A', 'GET', `/v1/routes/${aRoute.id}`);
    expect(a.json.stats.clicks.total).toBe(0);
    for (const who of ['A', 'C'] as const) {
      const r = await api(who, 'GET', `/v1/routes/${bRoutes[0].id}`);
      expect(r.status).toBe(404);
      expect(r.body).not.toMatch(/stats|clicks/);
    }
  });
});

describe('the account resource', () => {
  it('is always the key\'s own account; a rename changes only that one', async () => {
    for (const who of ['A', 'B', 'C'] as const) {
      const r = await api(who, 'GET', '/v1/account');
      expect(r.json.id).toBe(ids[who]);
    }
    // There is no way to name another account: no id in the path, id is read-only.
    const byId = await api('C', 'GET', `/v1/account/${ids.B}`);
    expect(byId.status).toBe(404);
    const withId = await api('C', 'PUT', '/v1/account', { id: ids.B, name: 'hijacked' });
    expect(withId.status).toBe(400);
    expect(withId.json).toMatchObject({ code: 'invalid_parameter', field: 'id' });
    const renamed = await api('C', 'PUT', '/v1/account', { name: 'C renamed' });
    expect(renamed.json).toMatchObject({ id: ids.C, name: 'C renamed' });
    expect((await api('B', 'GET', '/v1/account')).json).toMatchObject({ id: ids.B, name: 'account B', routes_created: 3 });
    expect((await api('A', 'GET', '/v1/account')).json).toMatchObject({ id: ids.A, name: 'default', routes_created: 1 });
  });
});

describe('the admin endpoints', () => {
  it.each<[string, string, unknown]>([
    ['GET', '/v1/admin/blacklist', undefined],
    ['GET', '/v1/admin/blacklist?q=amazon', undefined],
    ['POST', '/v1/admin/blacklist', { asn: 64999, provider: 'Mine', category: 'hosting' }],
    ['PUT', '/v1/admin/blacklist/16509', { enabled: false }],
    ['DELETE', '/v1/admin/blacklist/16509', undefined],
    // Not a 405 listing the methods that exist, nor a 400 for the body.
    ['PATCH', '/v1/admin/blacklist', undefined],
    ['DELETE', '/v1/admin/blacklist', undefined],
    ['GET', '/v1/admin/blacklist/16509', undefined],
    ['POST', '/v1/admin/blacklist', [1, 2]],
    ['PUT', '/v1/admin/blacklist/not-an-asn', { enabled: 'maybe' }],
    ['GET', '/v1/admin', undefined],
    // Doubled slashes once reached the admin endpoints' 405 and 400 (issue 14).
    ['DELETE', '/v1//admin/blacklist', undefined],
    ['PATCH', '/v1//admin//blacklist', undefined],
    ['POST', '/v1//admin/blacklist', [1, 2]],
    ['PUT', '/v1/admin//blacklist/16509', { enabled: 'maybe' }],
    ['GET', '/v1//admin/blacklist/', undefined],
  ])('%s %s is 404 to B and C, as for a path that does not exist', async (method, path, body) => {
    for (const who of ['B', 'C'] as const) {
      const r = await api(who, method, path, body);
      expect(r.status, r.body).toBe(404);
      expect(r.json).toEqual({ error: `not found: no endpoint ${method} ${path.split('?')[0]}`, code: 'not_found', field: null });
    }
  });

  it('changed nothing, and answer the admin', async () => {
    const custom = await api('A', 'GET', '/v1/admin/blacklist?q=64999');
    expect(custom.status).toBe(200);
    expect(custom.json.data).toEqual([]);
    const amazon = await api('A', 'GET', '/v1/admin/blacklist?q=16509');
    expect(amazon.json.data[0]).toMatchObject({ asn: 16509, enabled: true });
  });
});

describe('per-account allowances', () => {
  it('the database refresh trigger: A\'s hourly allowance is not B\'s', async () => {
    const first = await api('A', 'POST', '/v1/ip/update');
    expect(first.status, first.body).toBe(202);
    const again = await api('A', 'POST', '/v1/ip/update');
    expect(again.status).toBe(429);
    expect(again.json.code).toBe('refresh_too_soon');
    const other = await api('B', 'POST', '/v1/ip/update');
    expect(other.status, other.body).toBe(202);
  });

  it('the rate limit: B using up its minute leaves A and C alone', async () => {
    let r = await api('B', 'GET', '/v1/account');
    for (let left = limits(r).remaining; left > 0; left--) r = await api('B', 'GET', '/v1/account');
    const over = await api('B', 'GET', '/v1/account');
    expect(over.status).toBe(429);
    expect(over.json.code).toBe('rate_limited');
    for (const who of ['A', 'C'] as const) {
      const ok = await api(who, 'GET', '/v1/account');
      expect(ok.status).toBe(200);
      expect(limits(ok).remaining).toBeGreaterThan(0);
    }
  });
});

// /v1/routes and the redirect, /r/{code}, against docs/openapi.yaml: the
// real server's replies (status, declared headers, body) validate against
// the document, and errors carry the documented code and field.
//
// One server for the file: no rate limit in the way, and X-Forwarded-For
// believed from loopback, so a test chooses its visitor's address. Each test
// works on routes it creates itself; a test that reads or uses up what
// belongs to a whole account (the list, the quota, another account's view)
// creates its accounts too.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { callOn, type CallOptions, expectOperation, expectReply } from '../../helpers/openapi.js';
import { newAccount } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, TRUST_LOOPBACK, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const PAGE_A = 'https://a.example.com/landing';
const PAGE_B = 'https://b.example.com/landing?src=sg#top';
// Classified by the test database (src/quality/lists/golden.json): Google,
// a blacklisted ASN; AT&T, a listed carrier.
const DATACENTER = '8.8.8.8';
const CARRIER = '12.0.0.1';

let srv: TestServer;
const on = (method: string, urlPath: string, options: CallOptions = {}) => callOn(srv, method, urlPath, options);

beforeAll(async () => {
  srv = await startServer({ env: { ...NO_RATE_LIMIT, ...TRUST_LOOPBACK } });
});

afterAll(async () => {
  await srv?.close();
});

it('POST /v1/routes: 201 with Location; 400 naming the field; 413', async () => {
  const created = await on('POST', '/v1/routes', { json: { name: '  Spring promo ', page_a: PAGE_A, page_b: PAGE_B } });
  expectReply(created, '/v1/routes', 'POST', 201);
  expect(created.headers.location).toBe(`/v1/routes/${created.json.id}`);
  expect(created.json).toMatchObject({ name: 'Spring promo', split_ratio: 0.5, default_group: 'a', intercept_level: 'medium', status: 'active' });

  const valid = { name: 'x', page_a: PAGE_A, page_b: PAGE_B };
  const cases: [unknown, string][] = [
    [{ page_a: PAGE_A, page_b: PAGE_B }, 'name'],
    [{ ...valid, name: 'x'.repeat(201) }, 'name'],
    [{ ...valid, page_a: 'javascript:alert(1)' }, 'page_a'],
    [{ ...valid, page_b: '/relative' }, 'page_b'],
    [{ ...valid, page_a: 'https://user:pass@example.com/' }, 'page_a'],
    [{ ...valid, page_a: `https://example.com/${'x'.repeat(2048)}` }, 'page_a'],
    [{ ...valid, split_ratio: 1.5 }, 'split_ratio'],
    [{ ...valid, default_group: 'c' }, 'default_group'],
    [{ ...valid, intercept_level: 'max' }, 'intercept_level'],
    [{ ...valid, code: 'abcdefgh' }, 'code'],
    [{ ...valid, colour: 'red' }, 'colour'],
    [['x'], 'body'],
  ];
  for (const [json, field] of cases) {
    expectReply(await on('POST', '/v1/routes', { json }), '/v1/routes', 'POST', 400, { code: 'invalid_parameter', field });
  }
  const form = await on('POST', '/v1/routes', { headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify(valid) });
  expectReply(form, '/v1/routes', 'POST', 400, { code: 'invalid_parameter', field: 'Content-Type' });
  const broken = await on('POST', '/v1/routes', { headers: { 'Content-Type': 'application/json' }, body: '{"name":' });
  expectReply(broken, '/v1/routes', 'POST', 400, { code: 'invalid_json' });
  const big = await on('POST', '/v1/routes', { json: { ...valid, name: 'x'.repeat(70_000) } });
  expectReply(big, '/v1/routes', 'POST', 413, { code: 'payload_too_large', field: null });
});

it('POST /v1/routes: 403 quota_exceeded once the lifetime quota is used, even after a delete', async () => {
  const { api_key: key } = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'quota of one', '--quota', '1'], srv.dataDir);
  const first = await on('POST', '/v1/routes', { key, json: { name: 'only one', page_a: PAGE_A, page_b: PAGE_B } });
  expectReply(first, '/v1/routes', 'POST', 201);
  expectReply(await on('DELETE', `/v1/routes/${first.json.id}`, { key }), '/v1/routes/{id}', 'DELETE', 204);
  const second = await on('POST', '/v1/routes', { key, json: { name: 'a second', page_a: PAGE_A, page_b: PAGE_B } });
  expectReply(second, '/v1/routes', 'POST', 403, { code: 'quota_exceeded', field: null });
});

it('GET /v1/routes: 200 newest first with pagination; 400 naming the parameter', async () => {
  const { api_key: key } = await newAccount(srv, 'two routes');
  for (const name of ['Spring promo', 'newer']) {
    expectReply(await on('POST', '/v1/routes', { key, json: { name, page_a: PAGE_A, page_b: PAGE_B } }), '/v1/routes', 'POST', 201);
  }
  const list = await on('GET', '/v1/routes?page=1&limit=20', { key });
  expectReply(list, '/v1/routes', 'GET', 200);
  expect(list.json.data.map((r: { name: string }) => r.name).slice(0, 2)).toEqual(['newer', 'Spring promo']);
  expect(list.json.pagination).toEqual({ page: 1, limit: 20, total: 2, pages: 1 });

  const past = await on('GET', '/v1/routes?page=9&limit=1', { key });
  expectReply(past, '/v1/routes', 'GET', 200);
  expect(past.json).toEqual({ data: [], pagination: { page: 9, limit: 1, total: 2, pages: 2 } });

  for (const [query, field] of [['limit=0', 'limit'], ['limit=101', 'limit'], ['page=0', 'page'], ['page=x', 'page'], ['sort=name', 'sort']]) {
    expectReply(await on('GET', `/v1/routes?${query}`, { key }), '/v1/routes', 'GET', 400, { code: 'invalid_parameter', field });
  }
});

it('GET, PUT and DELETE /v1/routes/{id}: 200, 204, and 400 / 404 (another account\'s route too)', async () => {
  const other = await newAccount(srv, 'another account');
  const { json: route } = await on('POST', '/v1/routes', { json: { name: 'to change', page_a: PAGE_A, page_b: PAGE_B } });
  const path = `/v1/routes/${route.id}`;

  const detail = await on('GET', path);
  expectReply(detail, '/v1/routes/{id}', 'GET', 200);
  expect(detail.json.stats.clicks.total).toBe(0);

  const updated = await on('PUT', path, { json: { split_ratio: 0.25, intercept_level: 'high' } });
  expectReply(updated, '/v1/routes/{id}', 'PUT', 200);
  expect(updated.json).toMatchObject({ name: 'to change', split_ratio: 0.25, intercept_level: 'high', code: route.code });
  // If-Match: the version read before the update is stale now (412); the update's own ETag is current.
  expectReply(await on('PUT', path, { json: { name: 'stale' }, headers: { 'If-Match': detail.headers.etag as string } }), '/v1/routes/{id}', 'PUT', 412, { code: 'precondition_failed', field: 'If-Match' });
  expectReply(await on('PUT', path, { json: { name: 'current' }, headers: { 'If-Match': updated.headers.etag as string } }), '/v1/routes/{id}', 'PUT', 200);
  expectReply(await on('PUT', path, { json: { name: 'x' }, headers: { 'If-Match': 'no quotes' } }), '/v1/routes/{id}', 'PUT', 400, { code: 'invalid_parameter', field: 'If-Match' });

  for (const [json, field] of [[{}, 'body'], [{ id: 5 }, 'id'], [{ short_url: 'x' }, 'short_url'], [{ name: '' }, 'name'], [{ page_b: 'data:text/html,hi' }, 'page_b']] as const) {
    expectReply(await on('PUT', path, { json }), '/v1/routes/{id}', 'PUT', 400, { code: 'invalid_parameter', field });
  }
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const json = method === 'PUT' ? { name: 'x' } : undefined;
    expectReply(await on(method, '/v1/routes/abc', { json }), '/v1/routes/{id}', method, 400, { code: 'invalid_parameter', field: 'id' });
    expectReply(await on(method, '/v1/routes/999999', { json }), '/v1/routes/{id}', method, 404, { code: 'not_found', field: 'id' });
    expectReply(await on(method, path, { json, key: other.api_key }), '/v1/routes/{id}', method, 404, { code: 'not_found', field: 'id' });
  }

  expectReply(await on('DELETE', path), '/v1/routes/{id}', 'DELETE', 204);
  expectReply(await on('GET', path), '/v1/routes/{id}', 'GET', 404, { code: 'not_found', field: 'id' });
  expectReply(await on('DELETE', path), '/v1/routes/{id}', 'DELETE', 404, { code: 'not_found', field: 'id' });
});

it('GET|HEAD /r/{code}: 302 split or intercepted, 404 for an unknown code; GET visits show in the stats', async () => {
  const { json: route } = await on('POST', '/v1/routes', {
    json: { name: 'redirect', page_a: PAGE_A, page_b: PAGE_B, split_ratio: 1, default_group: 'b', intercept_level: 'medium' },
  });
  const visit = (method: string, code: string, headers: Record<string, string>, query = '') =>
    request({ port: srv.ports[0], ca: srv.ca, method, path: `/r/${code}${query}`, headers });

  // A real visitor: page A (split_ratio 1), with the link's query, and a new visitor cookie.
  const real = await visit('GET', route.code, { 'X-Forwarded-For': CARRIER }, '?utm=x');
  expect(real.status).toBe(302);
  expectOperation(real, '/r/{code}', 'GET');
  expect(real.headers.location).toBe(`${PAGE_A}?utm=x`);
  const cookie = String(real.headers['set-cookie']).split(';')[0];

  // The same visitor again: no new cookie.
  const returning = await visit('GET', route.code, { 'X-Forwarded-For': CARRIER, Cookie: cookie });
  expect(returning.status).toBe(302);
  expectOperation(returning, '/r/{code}', 'GET');
  expect(returning.headers['set-cookie']).toBeUndefined();

  // A data-center address: intercepted, the default group's page, the query before the fragment, no cookie.
  const intercepted = await visit('GET', route.code, { 'X-Forwarded-For': DATACENTER }, '?utm=x');
  expect(intercepted.status).toBe(302);
  expectOperation(intercepted, '/r/{code}', 'GET');
  expect(intercepted.headers.location).toBe('https://b.example.com/landing?src=sg&utm=x#top');
  expect(intercepted.headers['set-cookie']).toBeUndefined();

  // HEAD: the same answer without a body, and no click.
  const head = await visit('HEAD', route.code, { 'X-Forwarded-For': CARRIER, Cookie: cookie });
  expect(head.status).toBe(302);
  expectOperation(head, '/r/{code}', 'HEAD');

  for (const method of ['GET', 'HEAD']) {
    const unknown = await visit(method, 'zzzzzzzz', {});
    expect(unknown.status).toBe(404);
    expectOperation(unknown, '/r/{code}', method);
    expect(unknown.headers['content-type']).toBe('text/html; charset=utf-8');
  }

  const { value: detail } = await waitUntil(() => on('GET', `/v1/routes/${route.id}`), (r) => r.json.stats.clicks.total >= 3, 5000);
  expectReply(detail, '/v1/routes/{id}', 'GET', 200);
  expect(detail.json.stats).toMatchObject({
    clicks: { total: 3 },
    groups: { a: 2, b: 0 },
    intercepted: 1,
    rule_hits: { asn_blacklist: 1, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0, range_feed: 0, crawler: 0 },
  });

  await on('DELETE', `/v1/routes/${route.id}`);
  const gone = await visit('GET', route.code, {});
  expect(gone.status).toBe(404);
  expectOperation(gone, '/r/{code}', 'GET');
});

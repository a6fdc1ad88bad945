// POST /v1/routes → 201 with Location: /v1/routes/<id> and exactly the
// contract's route object: defaults filled in, a random 8-character code of
// [0-9A-Za-z], short_url = SPLITGUARD_SHORT_BASE + /r/<code>, timestamps in
// ISO form, the name trimmed; a second route gets a new id and another code.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, NO_RATE_LIMIT, PAGE_A, PAGE_B } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const SHORT_BASE = 'https://go.example.test';
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_SHORT_BASE: SHORT_BASE } });
});
afterAll(async () => {
  await server?.close();
});

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

it('creates a route with defaults and answers 201 with Location and the route object', async () => {
  const before = Date.now();
  const r = await api(server, 'POST', '/v1/routes', { name: '  Spring promo  ', page_a: PAGE_A, page_b: PAGE_B });
  expect(r.status).toBe(201);
  expect(r.headers['content-type']).toBe('application/json; charset=utf-8');
  const route = r.json;
  expect(Object.keys(route).sort()).toEqual(
    ['id', 'name', 'page_a', 'page_b', 'split_ratio', 'variants', 'append_click_id', 'default_group', 'intercept_level', 'code', 'short_url', 'status', 'created_at', 'updated_at'].sort(),
  );
  expect(r.headers.location).toBe(`/v1/routes/${route.id}`);
  expect(Number.isInteger(route.id)).toBe(true);
  expect(route).toMatchObject({
    name: 'Spring promo',
    page_a: PAGE_A,
    page_b: PAGE_B,
    split_ratio: 0.5,
    default_group: 'a',
    intercept_level: 'medium',
    status: 'active',
  });
  expect(route.code).toMatch(/^[0-9A-Za-z]{8}$/);
  expect(route.short_url).toBe(`${SHORT_BASE}/r/${route.code}`);
  expect(route.created_at).toMatch(ISO);
  expect(route.updated_at).toBe(route.created_at);
  expect(Date.parse(route.created_at)).toBeGreaterThanOrEqual(before - 1000);
  expect(Date.parse(route.created_at)).toBeLessThanOrEqual(Date.now() + 1000);

  // The detail returns the same object (plus stats and the experiment).
  const got = await api(server, 'GET', `/v1/routes/${route.id}`);
  expect(got.status).toBe(200);
  const { stats, experiment, ...rest } = got.json;
  expect(experiment).toBeDefined();
  expect(stats).toBeDefined();
  expect(rest).toEqual(route);
});

it('keeps every optional field sent, and a second route gets another id and code', async () => {
  const r = await api(server, 'POST', '/v1/routes', {
    name: 'Explicit',
    page_a: 'http://a.example.com/x?y=1#top',
    page_b: 'https://b.example.com:8443/',
    split_ratio: 0.25,
    default_group: 'b',
    intercept_level: 'high',
  });
  expect(r.status).toBe(201);
  expect(r.json).toMatchObject({
    name: 'Explicit',
    page_a: 'http://a.example.com/x?y=1#top',
    page_b: 'https://b.example.com:8443/',
    split_ratio: 0.25,
    default_group: 'b',
    intercept_level: 'high',
  });
  const other = await api(server, 'POST', '/v1/routes', { name: 'Another', page_a: PAGE_A, page_b: PAGE_B, split_ratio: 0, intercept_level: 'off' });
  expect(other.status).toBe(201);
  expect(other.json).toMatchObject({ split_ratio: 0, intercept_level: 'off' });
  expect(other.json.id).toBeGreaterThan(r.json.id);
  expect(other.json.code).not.toBe(r.json.code);
  expect(other.json.code).toMatch(/^[0-9A-Za-z]{8}$/);
});

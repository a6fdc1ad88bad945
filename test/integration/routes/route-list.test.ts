// GET /v1/routes: the account's routes newest first in the envelope
// {data, pagination{page, limit, total, pages}}; page/limit paging with the
// defaults 1 and 20; limit outside 1..100 or not an integer → 400 naming
// limit, page 0 → 400 naming page; a page past the end has empty data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createRoute, NO_RATE_LIMIT, type RouteBody } from '../../helpers/routes.js';
import { runCliJson } from '../../helpers/cli.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
const created: RouteBody[] = [];
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
  for (let i = 0; i < 23; i++) created.push(await createRoute(server, { name: `route ${i}` }));
  // Another account's routes never show up in this account's list.
  const other = await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'other'], server.dataDir);
  await createRoute(server, { name: 'not yours' }, { key: other.api_key });
});
afterAll(async () => {
  await server?.close();
});

const newestFirst = () => [...created].reverse();

it('lists with the defaults page 1, limit 20, newest first', async () => {
  const r = await api(server, 'GET', '/v1/routes');
  expect(r.status).toBe(200);
  expect(Object.keys(r.json).sort()).toEqual(['data', 'pagination']);
  expect(r.json.pagination).toEqual({ page: 1, limit: 20, total: 23, pages: 2 });
  expect(r.json.data).toEqual(newestFirst().slice(0, 20));
});

it('pages through with page and limit', async () => {
  const seen: number[] = [];
  for (let page = 1; page <= 5; page++) {
    const r = await api(server, 'GET', `/v1/routes?page=${page}&limit=5`);
    expect(r.status).toBe(200);
    expect(r.json.pagination).toEqual({ page, limit: 5, total: 23, pages: 5 });
    seen.push(...r.json.data.map((x: RouteBody) => x.id));
  }
  expect(seen).toEqual(newestFirst().map((x) => x.id));

  const one = await api(server, 'GET', '/v1/routes?limit=1&page=23');
  expect(one.json.data).toEqual([created[0]]);
  const all = await api(server, 'GET', '/v1/routes?limit=100');
  expect(all.json.pagination).toEqual({ page: 1, limit: 100, total: 23, pages: 1 });
  expect(all.json.data).toHaveLength(23);
});

it('answers a page past the end with empty data', async () => {
  const r = await api(server, 'GET', '/v1/routes?page=3&limit=20');
  expect(r.status).toBe(200);
  expect(r.json).toEqual({ data: [], pagination: { page: 3, limit: 20, total: 23, pages: 2 } });
  // However far: the contract bounds page below only (before, past 1,000,000 was 400).
  for (const page of ['1000', '1000001', String(Number.MAX_SAFE_INTEGER)]) {
    const far = await api(server, 'GET', `/v1/routes?page=${page}&limit=100`);
    expect(far.status, page).toBe(200);
    expect(far.json.data).toEqual([]);
    expect(far.json.pagination.page).toBe(Number(page));
  }
});

describe('refused parameters', () => {
  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=x', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=2.5', 'limit'],
    ['limit=', 'limit'],
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=x', 'page'],
    ['page=9007199254740992', 'page'],
    ['page=1&limit=0', 'limit'],
  ])('%s → 400 naming %s', async (query, field) => {
    const r = await api(server, 'GET', `/v1/routes?${query}`);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.field).toBe(field);
  });
});

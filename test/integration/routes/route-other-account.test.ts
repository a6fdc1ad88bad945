// Another account's route is 404 (never 403) on GET, PUT and DELETE, and is
// left untouched; an id that is not a positive integer is 400 naming id.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { api, createRoute, NO_RATE_LIMIT, type RouteBody } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let otherKey: string;
let mine: RouteBody;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
  otherKey = (await runCliJson<{ api_key: string }>(['account', 'create', '--name', 'other'], server.dataDir)).api_key;
  mine = await createRoute(server, { name: 'mine' });
});
afterAll(async () => {
  await server?.close();
});

it('answers 404 not_found to another account on GET, PUT and DELETE', async () => {
  const key = otherKey;
  const get = await api(server, 'GET', `/v1/routes/${mine.id}`, undefined, { key });
  const put = await api(server, 'PUT', `/v1/routes/${mine.id}`, { name: 'stolen' }, { key });
  const del = await api(server, 'DELETE', `/v1/routes/${mine.id}`, undefined, { key });
  for (const r of [get, put, del]) {
    expect(r.status).toBe(404);
    expect(r.json.code).toBe('not_found');
  }
  // The same answer as for an id that does not exist at all.
  const missing = await api(server, 'GET', `/v1/routes/${mine.id + 1000}`, undefined, { key });
  expect(missing.status).toBe(404);
  expect(missing.json).toEqual({ ...get.json, error: missing.json.error });

  const still = await api(server, 'GET', `/v1/routes/${mine.id}`);
  expect(still.status).toBe(200);
  expect(still.json.name).toBe('mine');
  const list = await api(server, 'GET', '/v1/routes', undefined, { key });
  expect(list.json.pagination.total).toBe(0);
});

describe('ids that are not positive integers', () => {
  it.each(['abc', '0', '-1', '1.5', '1e3', '01'])('/v1/routes/%s → 400 naming id', async (id) => {
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['DELETE', undefined]] as const) {
      const r = await api(server, method, `/v1/routes/${id}`, body);
      expect(r.status, `${method} ${id}`).toBe(400);
      expect(r.json.code).toBe('invalid_parameter');
      expect(r.json.field).toBe('id');
    }
  });
});

// An integer longer than any id (15 digits) names no route: 404, as any id
// without a route is (contract §4: ids are integers); before, 400.
it.each(['1234567890123456', '99999999999999999999'])('/v1/routes/%s → 404 naming id', async (id) => {
  for (const [method, body] of [['GET', undefined], ['PUT', { name: 'x' }], ['DELETE', undefined]] as const) {
    const r = await api(server, method, `/v1/routes/${id}`, body);
    expect(r.status, `${method} ${id}`).toBe(404);
    expect(r.json).toMatchObject({ code: 'not_found', field: 'id' });
  }
});

// An account's quota counts routes created over its lifetime: with
// `account create --quota 2`, the third create is 403 quota_exceeded, and
// deleting a route does not give the quota back. Past the quota, a body
// with a wrong field is still 400 naming it (the fields are checked before
// the endpoint's own refusals: docs/api.md, order of checks).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { api, NO_RATE_LIMIT, PAGE_A, PAGE_B } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
  const created = await runCliJson<{ api_key: string; quota: number }>(['account', 'create', '--name', 'x', '--quota', '2'], server.dataDir);
  expect(created.quota).toBe(2);
  key = created.api_key;
});
afterAll(async () => {
  await server?.close();
});

const body = { name: 'quota', page_a: PAGE_A, page_b: PAGE_B };

it('refuses the third create with 403 quota_exceeded, also after a deletion', async () => {
  const first = await api(server, 'POST', '/v1/routes', body, { key });
  const second = await api(server, 'POST', '/v1/routes', body, { key });
  expect(first.status).toBe(201);
  expect(second.status).toBe(201);

  const third = await api(server, 'POST', '/v1/routes', body, { key });
  expect(third.status).toBe(403);
  expect(third.json.code).toBe('quota_exceeded');
  expect(third.json.field).toBeNull();
  expect(typeof third.json.error).toBe('string');

  const del = await api(server, 'DELETE', `/v1/routes/${first.json.id}`, undefined, { key });
  expect(del.status).toBe(204);
  const afterDelete = await api(server, 'POST', '/v1/routes', body, { key });
  expect(afterDelete.status).toBe(403);
  expect(afterDelete.json.code).toBe('quota_exceeded');

  // A default_group past the two variants is checked with the other fields, before the quota.
  const wrong = await api(server, 'POST', '/v1/routes', { ...body, default_group: 'c' }, { key });
  expect(wrong.status).toBe(400);
  expect(wrong.json).toMatchObject({ code: 'invalid_parameter', field: 'default_group' });

  const list = await api(server, 'GET', '/v1/routes', undefined, { key });
  expect(list.json.pagination.total).toBe(1);
  const account = await api(server, 'GET', '/v1/account', undefined, { key });
  expect(account.json).toMatchObject({ quota: 2, routes_created: 2, quota_remaining: 0 });

  // Another account's quota is its own.
  const other = await api(server, 'POST', '/v1/routes', body);
  expect(other.status).toBe(201);
});

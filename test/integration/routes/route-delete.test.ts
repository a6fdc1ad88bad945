// DELETE /v1/routes/<id> → 204 with an empty body; afterwards the route is
// 404 on GET, PUT and DELETE, gone from the list, and its short link /r/<code>
// answers 404. Other routes keep working.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, createRoute, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let client: RedirectClient;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
  client = new RedirectClient(server);
});
afterAll(async () => {
  client?.close();
  await server?.close();
});

it('deletes with 204 and an empty body; then the route and its short link are 404', async () => {
  const route = await createRoute(server, { intercept_level: 'off' });
  const kept = await createRoute(server, { intercept_level: 'off' });
  expect((await client.visit(route.code)).status).toBe(302);

  const del = await api(server, 'DELETE', `/v1/routes/${route.id}`);
  expect(del.status).toBe(204);
  expect(del.body).toBe('');

  const get = await api(server, 'GET', `/v1/routes/${route.id}`);
  expect(get.status).toBe(404);
  expect(get.json.code).toBe('not_found');
  const put = await api(server, 'PUT', `/v1/routes/${route.id}`, { name: 'back' });
  expect(put.status).toBe(404);
  expect(put.json.code).toBe('not_found');
  const again = await api(server, 'DELETE', `/v1/routes/${route.id}`);
  expect(again.status).toBe(404);
  expect(again.json.code).toBe('not_found');

  const list = await api(server, 'GET', '/v1/routes');
  expect(list.json.data.map((r: { id: number }) => r.id)).toEqual([kept.id]);
  expect(list.json.pagination.total).toBe(1);

  const visit = await client.visit(route.code);
  expect(visit.status).toBe(404);
  expect(visit.headers['content-type']).toMatch(/^text\/html/);
  expect(visit.location).toBeUndefined();

  expect((await client.visit(kept.code)).status).toBe(302);
});

// DELETE /v1/routes/<id> → 204 with an empty body; afterwards the route is
// 404 on GET, PUT and DELETE, gone from the list, and its short link /r/<code>
// answers 404. Other routes keep working.
import { expect, it } from 'vitest';
import { api, createRoute, NO_RATE_LIMIT, useRedirectServer } from '../../helpers/routes.js';

const sg = useRedirectServer({ env: NO_RATE_LIMIT });

it('deletes with 204 and an empty body; then the route and its short link are 404', async () => {
  const route = await createRoute(sg.server, { intercept_level: 'off' });
  const kept = await createRoute(sg.server, { intercept_level: 'off' });
  expect((await sg.client.visit(route.code)).status).toBe(302);

  const del = await api(sg.server, 'DELETE', `/v1/routes/${route.id}`);
  expect(del.status).toBe(204);
  expect(del.body).toBe('');

  const get = await api(sg.server, 'GET', `/v1/routes/${route.id}`);
  expect(get.status).toBe(404);
  expect(get.json.code).toBe('not_found');
  const put = await api(sg.server, 'PUT', `/v1/routes/${route.id}`, { name: 'back' });
  expect(put.status).toBe(404);
  expect(put.json.code).toBe('not_found');
  const again = await api(sg.server, 'DELETE', `/v1/routes/${route.id}`);
  expect(again.status).toBe(404);
  expect(again.json.code).toBe('not_found');

  const list = await api(sg.server, 'GET', '/v1/routes');
  expect(list.json.data.map((r: { id: number }) => r.id)).toEqual([kept.id]);
  expect(list.json.pagination.total).toBe(1);

  const visit = await sg.client.visit(route.code);
  expect(visit.status).toBe(404);
  expect(visit.headers['content-type']).toMatch(/^text\/html/);
  expect(visit.location).toBeUndefined();

  expect((await sg.client.visit(kept.code)).status).toBe(302);
});

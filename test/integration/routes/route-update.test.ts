// PUT /v1/routes/<id> changes only the fields sent and returns the whole
// route with a new updated_at (created_at, code and id unchanged); an empty
// object, a read-only field, an unknown field or an invalid value is 400
// naming it, and a refused update changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createRoute, NO_RATE_LIMIT, type RouteBody } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
let route: RouteBody;
beforeAll(async () => {
  server = await startServer({ env: NO_RATE_LIMIT });
  route = await createRoute(server, { name: 'Original', split_ratio: 0.3, default_group: 'a', intercept_level: 'medium' });
});
afterAll(async () => {
  await server?.close();
});

const current = async (): Promise<RouteBody> => {
  const r = await api(server, 'GET', `/v1/routes/${route.id}`);
  expect(r.status).toBe(200);
  const { stats: _stats, experiment: _experiment, ...rest } = r.json;
  return rest as RouteBody;
};

it('changes only the fields sent and moves updated_at', async () => {
  await new Promise((r) => setTimeout(r, 5)); // so that updated_at can differ from created_at
  const r = await api(server, 'PUT', `/v1/routes/${route.id}`, { split_ratio: 0.6 });
  expect(r.status).toBe(200);
  const { updated_at, ...rest } = r.json;
  const { updated_at: old, ...before } = route;
  // The two-variant view and the variants list are one setting (contract §10).
  expect(rest).toEqual({
    ...before,
    split_ratio: 0.6,
    variants: [{ key: 'a', url: route.page_a, weight: 0.6 }, { key: 'b', url: route.page_b, weight: 0.4 }],
  });
  expect(Date.parse(updated_at)).toBeGreaterThan(Date.parse(old));
  expect(r.json.created_at).toBe(route.created_at);
  expect(await current()).toEqual(r.json);

  const two = await api(server, 'PUT', `/v1/routes/${route.id}`, {
    name: '  Renamed ',
    page_b: 'https://b.example.com/new?x=1',
    default_group: 'b',
    intercept_level: 'off',
  });
  expect(two.status).toBe(200);
  expect(two.json).toMatchObject({
    id: route.id,
    code: route.code,
    short_url: route.short_url,
    name: 'Renamed',
    page_a: route.page_a,
    page_b: 'https://b.example.com/new?x=1',
    split_ratio: 0.6,
    default_group: 'b',
    intercept_level: 'off',
    status: 'active',
    created_at: route.created_at,
  });
  expect(Date.parse(two.json.updated_at)).toBeGreaterThanOrEqual(Date.parse(updated_at));
  route = two.json;
});

describe('refused updates', () => {
  it.each<[string, unknown, string]>([
    ['an empty object', {}, 'body'],
    ['read-only id', { id: 99 }, 'id'],
    ['read-only code', { code: 'AAAAAAAA' }, 'code'],
    ['read-only short_url', { short_url: 'https://x/r/AAAAAAAA' }, 'short_url'],
    ['read-only status', { status: 'paused' }, 'status'],
    ['read-only created_at', { created_at: '2020-01-01T00:00:00.000Z' }, 'created_at'],
    ['read-only updated_at', { updated_at: '2020-01-01T00:00:00.000Z' }, 'updated_at'],
    ['read-only next to a valid field', { name: 'ok', code: 'AAAAAAAA' }, 'code'],
    ['an unknown field', { split: 0.5 }, 'split'],
    ['name empty', { name: ' ' }, 'name'],
    ['page_a javascript:', { page_a: 'javascript:alert(1)' }, 'page_a'],
    ['page_b with credentials', { page_b: 'https://u:p@example.com/' }, 'page_b'],
    ['split_ratio 1.5', { split_ratio: 1.5 }, 'split_ratio'],
    ['split_ratio a string', { split_ratio: '1' }, 'split_ratio'],
    ['default_group "c"', { default_group: 'c' }, 'default_group'],
    ['intercept_level "max"', { intercept_level: 'max' }, 'intercept_level'],
    ['a valid field next to an invalid one', { name: 'changed', split_ratio: -1 }, 'split_ratio'],
    ['an array', [{ name: 'x' }], 'body'],
  ])('%s → 400 naming %s', async (_label, body, field) => {
    const r = await api(server, 'PUT', `/v1/routes/${route.id}`, body);
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('invalid_parameter');
    expect(r.json.field).toBe(field);
  });

  it('left the route as it was', async () => {
    expect(await current()).toEqual(route);
  });
});

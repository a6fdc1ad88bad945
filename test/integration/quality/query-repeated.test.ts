// A query parameter given twice is 400 naming it, on every endpoint that
// reads the query string; before, the first value was used silently.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it.each([
  ['/v1/ip/check?ip=8.8.8.8&ip=1.1.1.1', 'ip'],
  ['/v1/ip/check?ip=8.8.8.8&level=low&level=high', 'level'],
  ['/v1/routes?page=1&page=2', 'page'],
  ['/v1/routes?limit=5&limit=50', 'limit'],
  ['/v1/admin/blacklist?q=amazon&q=google', 'q'],
])('GET %s is 400 naming %s', async (p, field) => {
  const res = await api(server, 'GET', p);
  expect(res.status).toBe(400);
  expect(res.json).toEqual({ error: `${field} is given more than once`, code: 'invalid_parameter', field });
});

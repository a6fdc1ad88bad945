// /healthz exists for everyone: another method than GET or HEAD is 405
// naming the two (it was 404 "no such path: /healthz", for a path that is
// there). /metrics, hidden from most callers, keeps the catch-all's 404.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('%s /healthz is 405 with Allow: GET, HEAD', async (method) => {
  const r = await call(server.ports[0], server.ca, method, '/healthz');
  expect(r.status).toBe(405);
  expect(r.headers.allow).toBe('GET, HEAD');
  expect(r.json).toEqual({ error: 'method not allowed: /healthz allows GET, HEAD', code: 'method_not_allowed', field: null });
  expect((await call(server.ports[0], server.ca, 'GET', '/healthz')).status).toBe(200);
});

it('POST /metrics stays 404, as for a path that is not there', async () => {
  const r = await call(server.ports[0], server.ca, 'POST', '/metrics');
  expect(r.status).toBe(404);
  expect(r.json).toMatchObject({ code: 'not_found' });
});

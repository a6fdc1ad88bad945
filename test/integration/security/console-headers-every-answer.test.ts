// Every answer under /console carries the console's security headers (CSP,
// nosniff, frame and referrer policy), whatever the method: HEAD answered 404
// while GET answered 200, and any other method got the server's plain 404
// JSON without them. Pages and files answer GET and HEAD; other methods 405.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it.each([
  ['GET', '/console', 200],
  ['HEAD', '/console', 200],
  ['GET', '/console/app.js', 200],
  ['HEAD', '/console/app.js', 200],
  ['GET', '/console/no-such-file.js', 404],
  ['POST', '/console', 405],
  ['PUT', '/console/app.js', 405],
  ['DELETE', '/console/routes', 405],
])('%s %s → %i with the security headers', async (method, path, status) => {
  const res = await request({ port: server.ports[0], ca: server.ca, method, path });
  expect(res.status).toBe(status);
  expect(res.headers['content-security-policy']).toMatch(/default-src/);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
  if (status === 405) expect(res.headers.allow).toBe('GET, HEAD');
  if (method === 'HEAD') expect(res.body).toBe('');
});

it('leaves the console API to its own handler', async () => {
  const res = await request({ port: server.ports[0], ca: server.ca, method: 'GET', path: '/console/api/session' });
  expect(res.status).toBe(401);
  expect(res.headers['content-type']).toMatch(/application\/json/);
});

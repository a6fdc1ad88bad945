// Every answer but the redirect's 302 carries `X-Content-Type-Options:
// nosniff`, exactly once: the API's JSON (a tenant's own text inside it), its
// errors and 404s, /healthz, /metrics, the console's pages and API, and
// an answer refused for its framing before any handler ran. Before, only the
// console's answers carried it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { header, rawRequest } from '../../helpers/raw-http.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

it.each([
  ['GET', '/v1/routes', 200, true],
  ['GET', '/v1/routes', 401, false],
  ['GET', '/v1/ip/check?ip=8.8.8.8', 200, true],
  ['GET', '/v1/ip/check?ip=not-an-address', 400, true],
  ['GET', '/v1/no-such-endpoint', 404, true],
  ['GET', '/no-such-path', 404, false],
  ['GET', '/healthz', 200, false],
  ['GET', '/metrics', 200, false],
  ['GET', '/console', 200, false],
  ['GET', '/console/api/session', 401, false],
])('%s %s → %i carries nosniff once', async (method, path, status, withKey) => {
  const res = await request({ port: server.ports[0], ca: server.ca, method, path, key: withKey ? server.apiKey : undefined });
  expect(res.status).toBe(status);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
});

it('carries nosniff on an answer refused for its framing', async () => {
  const answer = await rawRequest(`POST /v1/ip/check HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.apiKey}\r\nContent-Length: 2\r\nContent-Length: \r\n\r\n{}`, { port: server.ports[0], ca: server.ca, timeoutMs: 5000 });
  expect(answer.status, answer.raw).toBe(400);
  expect(header(answer, 'x-content-type-options')).toBe('nosniff');
});

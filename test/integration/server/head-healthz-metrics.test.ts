// HEAD /healthz and HEAD /metrics answer as GET does: the same status and
// headers, no body (Content-Length: 0 and Connection: close, as every HEAD
// answer: endHead in src/http/respond.ts), and /metrics keeps its access
// rule (SPLITGUARD_METRICS_FROM, default loopback, judged on the client
// behind a trusted proxy). Before, HEAD was 404 on both while GET answered,
// and a load balancer that checks with HEAD took a healthy node out.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { header, rawRequest } from '../../helpers/raw-http.js';
import { TRUST_LOOPBACK } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: TRUST_LOOPBACK });
});
afterAll(() => server?.close());

const ask = (method: 'GET' | 'HEAD', path: string, forwarded?: string) =>
  rawRequest(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${forwarded ? `X-Forwarded-For: ${forwarded}\r\n` : ''}\r\n`, {
    port: server.ports[0],
    ca: server.ca,
  });

it.each<[string, string, string | undefined, number]>([
  ['/healthz', '/healthz', undefined, 200],
  ['/metrics from loopback', '/metrics', undefined, 200],
  ['/metrics for a visitor forwarded by the trusted proxy', '/metrics', '203.0.113.5', 404],
])('HEAD %s answers GET\'s status and headers without a body', async (_label, path, forwarded, status) => {
  const get = await ask('GET', path, forwarded);
  const head = await ask('HEAD', path, forwarded);
  expect(get.status, get.raw.slice(0, 300)).toBe(status);
  expect(head.status, head.raw.slice(0, 300)).toBe(status);
  for (const name of ['Content-Type', 'Cache-Control', 'Strict-Transport-Security']) expect(header(head, name), name).toBe(header(get, name));
  expect(header(head, 'Content-Length')).toBe('0');
  expect(header(head, 'Connection')).toBe('close');
  expect(head.raw.slice(head.raw.indexOf('\r\n\r\n') + 4)).toBe('');
});

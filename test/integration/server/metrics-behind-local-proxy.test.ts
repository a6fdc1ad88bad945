// /metrics is for SPLITGUARD_METRICS_FROM (default loopback) only. Behind a
// reverse proxy on the same host (nginx on :443 forwarding to 127.0.0.1:8443,
// SPLITGUARD_TRUST_PROXY=127.0.0.1), every visitor's request arrives from
// loopback with the visitor in X-Forwarded-For: the server knows the client
// is 203.0.113.5 (the redirect and the limits read it so) and must not
// answer it /metrics, as it would not answer it directly.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rawRequest } from '../../helpers/raw-http.js';
import { TRUST_LOOPBACK } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: TRUST_LOOPBACK });
});
afterAll(() => server?.close());

const get = (path: string, forwarded?: string) =>
  rawRequest(`GET ${path} HTTP/1.1\r\nHost: links.example.com\r\n${forwarded ? `X-Forwarded-For: ${forwarded}\r\n` : ''}\r\n`, { port: server.ports[0], ca: server.ca });

it('answers /metrics to the local scraper', async () => {
  expect((await get('/metrics')).status).toBe(200);
});

it('does not answer /metrics to a visitor forwarded by the trusted local proxy', async () => {
  const answer = await get('/metrics', '203.0.113.5');
  expect(answer.status, answer.body.slice(0, 200)).toBe(404);
});

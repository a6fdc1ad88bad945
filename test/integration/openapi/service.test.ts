// What the server answers around the endpoints, against docs/openapi.yaml:
// /healthz and /metrics (GET and HEAD), an unknown /v1 path, a call without a key, the
// account's rate limit and the failed-authentication limit (each 429 with the
// headers the document declares, and none it does not), and a log that
// never holds an API key.
//
// One server for the file, with the contract's rate limit of 60 a minute.
// The limits are state, so each test that meets one has its own: the rate
// limit test its own account, and every test that fails authentication its
// own loopback address to connect from (failures count per address).
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Response } from '../../helpers/client.js';
import { callOn, type CallOptions, errorBody, expectMatches, expectOperation, expectReply } from '../../helpers/openapi.js';
import { newAccount } from '../../helpers/refresh.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
const call = (method: string, urlPath: string, options: CallOptions = {}) => callOn(server, method, urlPath, options);

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

it('GET /healthz: 200', async () => {
  const reply = await call('GET', '/healthz', { key: null });
  expect(reply.status).toBe(200);
  expectOperation(reply, '/healthz', 'GET');
});

it('HEAD /healthz: 200 without a body', async () => {
  const reply = await call('HEAD', '/healthz', { key: null });
  expect(reply.status).toBe(200);
  expectOperation(reply, '/healthz', 'HEAD');
});

it('GET /metrics from loopback: 200 text', async () => {
  const reply = await call('GET', '/metrics', { key: null });
  expect(reply.status).toBe(200);
  expectOperation(reply, '/metrics', 'GET');
  expect(reply.body).toContain('splitguard_api_responses_total');
});

it('HEAD /metrics from loopback: 200 without a body', async () => {
  const reply = await call('HEAD', '/metrics', { key: null });
  expect(reply.status).toBe(200);
  expectOperation(reply, '/metrics', 'HEAD');
});

it('an unknown /v1 path: 404 as components/responses/NotFound', async () => {
  const reply = await call('GET', '/v1/no-such-thing');
  expect(reply.status).toBe(404);
  expectMatches(reply, '/components/responses/NotFound');
});

it('the routes, IP and blacklist endpoints: 401 without a key', async () => {
  const cases: [string, string, string][] = [
    ['GET', '/v1/routes', '/v1/routes'],
    ['POST', '/v1/routes', '/v1/routes'],
    ['DELETE', '/v1/routes/1', '/v1/routes/{id}'],
    ['GET', '/v1/ip/check?ip=8.8.8.8', '/v1/ip/check'],
    ['POST', '/v1/ip/update', '/v1/ip/update'],
    ['GET', '/v1/ip/database', '/v1/ip/database'],
    ['GET', '/v1/admin/blacklist', '/v1/admin/blacklist'],
  ];
  for (const [method, urlPath, template] of cases) {
    expectReply(await call(method, urlPath, { key: null, localAddress: '127.0.0.31' }), template, method, 401, { code: 'unauthorized', field: 'Authorization' });
  }
});

it('the account limit: 429 with RateLimit-* and Retry-After', async () => {
  const { api_key: key } = await newAccount(server, 'rate limited');
  let reply: Response | undefined;
  for (let i = 0; i < 80; i++) {
    reply = await call('GET', '/v1/account', { key });
    if (reply.status === 429) break;
    expect(reply.status).toBe(200);
  }
  expect(reply!.status).toBe(429);
  expectOperation(reply!, '/v1/account', 'GET');
  expect(reply!.headers['ratelimit-remaining']).toBe('0');
  expect(reply!.headers['ratelimit-limit']).toBe('60');
  expect(errorBody(reply!).code).toBe('rate_limited');
});

it('the failed-authentication limit: 429 with Retry-After and the RateLimit-* of that limit', async () => {
  let reply: Response | undefined;
  for (let i = 0; i < 40; i++) {
    reply = await call('GET', '/v1/account', { key: `sg_wrong${i}`, localAddress: '127.0.0.32' });
    if (reply.status === 429) break;
    expect(reply.status).toBe(401);
  }
  expect(reply!.status).toBe(429);
  expectOperation(reply!, '/v1/account', 'GET');
  expect([reply!.headers['ratelimit-limit'], reply!.headers['ratelimit-remaining']]).toEqual(['30', '0']);
  expect(errorBody(reply!).code).toBe('rate_limited');
});

it('logs no API key', async () => {
  // A call that authenticates with the key and one that fails with another.
  const wrongKey = 'sg_logged-nowhere-either';
  expect((await call('GET', '/v1/account')).status).toBe(200);
  expect((await call('GET', '/v1/account', { key: wrongKey, localAddress: '127.0.0.33' })).status).toBe(401);
  expect(server.logs().length).toBeGreaterThan(0);
  expect(JSON.stringify(server.logs())).not.toContain(server.apiKey);
  expect(server.output()).not.toContain(wrongKey);
});

// Failed authentications are limited per exact client address: 30 bad keys
// in a minute are answered 401, the 31st and later 429 rate_limited with
// Retry-After. Both carry the RateLimit-* headers of that limit (contract §3:
// every /v1 answer carries them; before, neither did). Failures never stop a valid key, from that address or any
// other (keys are 256-bit random; the limit is about load, and callers behind
// one NAT must not lock each other out). Addresses never share a count:
// before, 31 bad keys from one address could lock out another address that
// landed in the same hashed slot of a 16,384-slot table.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, limits, request } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.close();
});

const AUTH_FAILURE_LIMIT = 30;
const from = (localAddress: string, key: string) => request({ port: server.ports[0], ca: server.ca, path: '/v1/account', key, localAddress });

it('answers 429 to bad keys after 30 failures from one address, and still serves a valid key there', async () => {
  const port = server.ports[0];
  for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
    const r = await call(port, server.ca, 'GET', '/v1/account', `sg_wrong${i}`);
    expect(r.status, `bad key ${i + 1}`).toBe(401);
    expect(r.json).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
    const l = limits(r);
    expect([l.limit, l.remaining]).toEqual([AUTH_FAILURE_LIMIT, AUTH_FAILURE_LIMIT - i - 1]);
    expect(l.reset).toBeGreaterThanOrEqual(1);
    expect(l.reset).toBeLessThanOrEqual(60);
  }

  const blocked = await call(port, server.ca, 'GET', '/v1/account', 'sg_wrong_again');
  expect(blocked.status).toBe(429);
  expect(blocked.json).toMatchObject({ code: 'rate_limited', field: null });
  expect(limits(blocked).retryAfter).toBeGreaterThanOrEqual(1);
  expect(limits(blocked).retryAfter).toBeLessThanOrEqual(60);
  expect(limits(blocked)).toMatchObject({ limit: AUTH_FAILURE_LIMIT, remaining: 0, reset: limits(blocked).retryAfter });

  const valid = await call(port, server.ca, 'GET', '/v1/account', server.apiKey);
  expect(valid.status).toBe(200);
  expect(valid.json.id).toBe(server.accountId);
});

it('keeps every other address at its own count', async () => {
  // 300 other addresses with one bad key each: each is a first failure.
  for (let i = 0; i < 300; i++) {
    const r = await from(`127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`, `sg_wrong_${i}`);
    expect(r.status, `address ${i}`).toBe(401);
  }
  const elsewhere = await from('127.0.9.9', server.apiKey);
  expect(elsewhere.status).toBe(200);
});

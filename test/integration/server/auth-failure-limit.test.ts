// Failed authentications are limited per client address: 30 bad keys in a
// minute are answered 401, the 31st is 429 rate_limited, and from then on
// even a valid key from that address gets 429 (the gate comes before the
// key is looked at) until the window passes. Another address is unaffected.
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

it('answers 429 after 30 failed authentications from one address, even for a valid key', async () => {
  const port = server.ports[0];
  for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) {
    const r = await call(port, server.ca, 'GET', '/v1/account', `sg_wrong${i}`);
    expect(r.status, `bad key ${i + 1}`).toBe(401);
    expect(r.json).toMatchObject({ code: 'unauthorized', field: 'Authorization' });
  }

  const blocked = await call(port, server.ca, 'GET', '/v1/account', 'sg_wrong_again');
  expect(blocked.status).toBe(429);
  expect(blocked.json).toMatchObject({ code: 'rate_limited', field: null });
  expect(limits(blocked).retryAfter).toBeGreaterThanOrEqual(1);
  expect(limits(blocked).retryAfter).toBeLessThanOrEqual(60);

  const valid = await call(port, server.ca, 'GET', '/v1/account', server.apiKey);
  expect(valid.status).toBe(429);
  expect(valid.json).toMatchObject({ code: 'rate_limited', field: null });
  expect(limits(valid).retryAfter).toBeGreaterThanOrEqual(1);

  // The limit is per address: the same valid key from another loopback address works.
  const elsewhere = await request({ port, ca: server.ca, path: '/v1/account', key: server.apiKey, localAddress: '127.0.0.2' });
  expect(elsewhere.status).toBe(200);
  expect(elsewhere.json.id).toBe(server.accountId);
});

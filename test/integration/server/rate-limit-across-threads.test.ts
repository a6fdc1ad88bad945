// The per-account limit (default 60 per rolling minute) is shared by every
// server thread: 60 requests alternating between two threads' ports all
// succeed with RateLimit-Remaining counting down 59..0; the 61st, on either
// thread, is 429 rate_limited with Retry-After >= 1; another account is not
// affected.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { call, limits } from '../../helpers/client.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  // SPLITGUARD_RATE_LIMIT_PER_MIN deliberately unset: the default applies.
  server = await startServer({ threads: 2, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: undefined } });
});
afterAll(async () => {
  await server?.close();
});

it('counts requests on both threads against one limit of 60 per minute', async () => {
  const other = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'other'], server.dataDir);

  for (let i = 0; i < 60; i++) {
    const port = server.ports[i % 2];
    const r = await call(port, server.ca, 'GET', '/v1/account', server.apiKey);
    expect(r.status, `request ${i + 1} on thread ${i % 2}`).toBe(200);
    const l = limits(r);
    expect(l.limit).toBe(60);
    expect(l.remaining, `request ${i + 1}`).toBe(59 - i);
    expect(l.reset).toBeGreaterThanOrEqual(1);
    expect(l.reset).toBeLessThanOrEqual(60);
  }

  for (const port of server.ports) {
    const r = await call(port, server.ca, 'GET', '/v1/account', server.apiKey);
    expect(r.status).toBe(429);
    expect(r.json).toMatchObject({ code: 'rate_limited', field: null });
    const l = limits(r);
    expect(l.limit).toBe(60);
    expect(l.remaining).toBe(0);
    expect(Number.isInteger(l.retryAfter)).toBe(true);
    expect(l.retryAfter).toBeGreaterThanOrEqual(1);
    expect(l.retryAfter).toBeLessThanOrEqual(60);
  }

  // A refused request is not counted, and other accounts have their own budget.
  const second = await call(server.ports[1], server.ca, 'GET', '/v1/account', other.api_key);
  expect(second.status).toBe(200);
  expect(second.json.id).toBe(other.account_id);
  expect(limits(second)).toMatchObject({ limit: 60, remaining: 59 });
  const again = await call(server.ports[0], server.ca, 'GET', '/v1/account', other.api_key);
  expect(again.status).toBe(200);
  expect(limits(again).remaining).toBe(58);
});

// The console's calls to /v1 handlers (/console/api/v1/...) and its own
// changes are limited per account, apart from its API keys: ten times the
// API's limit per rolling minute (a route's page polls its detail every
// second), then 429 rate_limited with Retry-After. The budgets are apart: an
// integration that used its keys' minute leaves the console working. Before,
// neither was counted: a script holding a session cookie had no limit at
// all, and made and revoked keys at 92 a second, each record kept for good.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { consoleSession } from '../../helpers/console-session.js';
import { startServer, type TestServer } from '../../helpers/server.js';

const API_LIMIT = 6;
let server: TestServer;
beforeAll(async () => {
  server = await startServer({ threads: 2, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: String(API_LIMIT) } });
});
afterAll(() => server?.close());

it("limits the console's /v1 calls and changes per account, apart from the account's keys", async () => {
  const acct = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'console-limit'], server.dataDir);
  await runCliJson(['user', 'create', '--email', 'cl@x.y', '--password', 'longenough1', '--account', String(acct.account_id)], server.dataDir);
  const session = await consoleSession(server, 'cl@x.y', 'longenough1');
  const viaKey = () => request({ port: server.ports[0], ca: server.ca, path: '/v1/account', key: acct.api_key });

  // The keys' minute used up: the console goes on.
  const keys = [];
  for (let i = 0; i <= API_LIMIT; i++) keys.push((await viaKey()).status);
  expect(keys).toEqual([...Array(API_LIMIT).fill(200), 429]);
  const consoleCalls = await Promise.all(Array.from({ length: 10 * API_LIMIT }, () => session.call('GET', '/v1/account')));
  expect(consoleCalls.map((r) => r.status)).toEqual(Array(10 * API_LIMIT).fill(200));

  const over = await session.call('GET', '/v1/account');
  expect(over.status).toBe(429);
  expect(over.json).toMatchObject({ code: 'rate_limited' });
  expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
  // The console's own changes share its budget; its own reads do not count.
  expect((await session.call('POST', '/keys', { name: 'one more' })).status).toBe(429);
  expect((await session.call('GET', '/keys')).status).toBe(200);
});

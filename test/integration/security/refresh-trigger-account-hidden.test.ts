// GET /v1/ip/database names who triggered the last refresh. An account's
// trigger shows its id to that account and to admins only: another tenant
// reads `api (another account)`, and learns no other account's id. (The
// refresh's source is a closed port: a failed refresh records its trigger
// as well, and fails at once.)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { newAccount, refreshFinished, triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { closedPortLocation } from '../../helpers/sources.js';

let server: TestServer;
beforeAll(async () => {
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: await closedPortLocation() } });
});
afterAll(() => server?.close());

const lastTrigger = async (key: string) => {
  const r = await call(server.ports[0], server.ca, 'GET', '/v1/ip/database', key);
  expect(r.status, r.body).toBe(200);
  return (r.json as { last_refresh: { trigger: string } | null }).last_refresh?.trigger;
};

it("shows an account's refresh trigger to that account and admins, and hides its id from other tenants", async () => {
  const asker = await newAccount(server, 'asker');
  const stranger = await newAccount(server, 'stranger');
  const started = await triggerRefresh(server, asker.api_key);
  expect(started.status, started.body).toBe(202);
  expect((await refreshFinished(server, null)).last_refresh?.outcome).toBe('failed');

  expect(await lastTrigger(asker.api_key)).toBe(`api (account ${asker.account_id})`);
  // The bootstrap key is an admin's.
  expect(await lastTrigger(server.apiKey)).toBe(`api (account ${asker.account_id})`);
  expect(await lastTrigger(stranger.api_key)).toBe('api (another account)');
}, 60_000);

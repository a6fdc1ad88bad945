// A refresh source with user:password in its URL (a private mirror behind
// basic authentication): the source's name (GET /v1/ip/database `source`,
// `last_refresh.source`, `nodes[].source`, and the built database's own
// `source`) does not carry the password to every account's key, nor to the
// log. Before, it did, in all of them.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { newAccount, refreshFinished, databaseStatus, triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

const PASSWORD = 'mirrorPassw0rdSecret';
let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  const location = sources
    .location('valid')
    .split('|')
    .map((u) => u.replace('http://', `http://mirror:${PASSWORD}@`))
    .join('|');
  server = await startServer({ env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: location } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it("never shows a source URL's password to another account, nor logs it", async () => {
  const stranger = await newAccount(server, 'another tenant');
  const before = await databaseStatus(server);
  const r = await triggerRefresh(server, stranger.api_key);
  expect(r.status, r.body).toBe(202);
  await refreshFinished(server, before.last_refresh?.finished_at ?? null, 90_000);
  const seen = await call(server.ports[0], server.ca, 'GET', '/v1/ip/database', stranger.api_key);
  expect(seen.status).toBe(200);
  expect(seen.body).not.toContain(PASSWORD);
  expect(server.output()).not.toContain(PASSWORD);
}, 120_000);

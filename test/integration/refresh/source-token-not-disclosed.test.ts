// A refresh source configured with a secret in its URL's query (a private
// mirror's access token) is not shown to API clients, whom every account's
// key can read GET /v1/ip/database, nor written to the log. Before, the
// source's name left the query out but a failed download's error message, of
// the ASN data's source and of a feed alike, repeated the whole URL.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { newAccount, refreshFinished, databaseStatus, triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

const TOKEN = 'mirrorToken0123456789secret';
let sources: SourceServer;
let server: TestServer;
let location: string;
beforeAll(async () => {
  sources = await startSourceServer();
  location = sources
    .location('status500')
    .split('|')
    .map((u) => `${u}?access_token=${TOKEN}`)
    .join('|');
  server = await startServer({
    env: {
      ...NO_RATE_LIMIT,
      SPLITGUARD_IPDB_SOURCES: location,
      // A feed fetched from the same kind of private mirror.
      SPLITGUARD_FEEDS: 'tor',
      SPLITGUARD_FEED_SOURCES: `tor=${sources.base}/status500/asn-ipv4.csv?access_token=${TOKEN}`,
    },
  });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('never shows a source URL\'s query token to another account, nor logs it', async () => {
  const stranger = await newAccount(server, 'another tenant');
  const before = await databaseStatus(server);
  const r = await triggerRefresh(server, stranger.api_key);
  expect(r.status, r.body).toBe(202);
  const after = await refreshFinished(server, before.last_refresh?.finished_at ?? null);
  expect(after.last_refresh?.outcome).toBe('failed');
  expect(after.last_refresh?.nodes[0].error).toMatch(/HTTP 500/);
  expect(after.feeds.find((f) => f.name === 'tor')?.last_error).toMatch(/HTTP 500/);
  const seen = await call(server.ports[0], server.ca, 'GET', '/v1/ip/database', stranger.api_key);
  expect(seen.status).toBe(200);
  const status = seen.json as typeof after;
  expect(status.last_refresh?.nodes[0].error).not.toContain(TOKEN);
  expect(status.feeds.find((f) => f.name === 'tor')?.last_error).not.toContain(TOKEN);
  expect(seen.body).not.toContain(TOKEN);
  expect(server.output()).not.toContain(TOKEN);
});

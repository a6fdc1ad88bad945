// Two accounts trigger a refresh at the same moment on different threads:
// exactly one answer says "started" and the other "running" with the same
// start time, and one refresh runs (the slot is claimed atomically in shared
// memory before the main thread hears of it).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { newAccount, NO_RATE_LIMIT, refreshFinished, triggerRefresh } from '../../helpers/refresh.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
let server: TestServer;
beforeAll(async () => {
  sources = await startSourceServer();
  server = await startServer({ threads: 2, env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.node('valid') } });
});
afterAll(async () => {
  await server?.close();
  await sources?.close();
});

it('one of two simultaneous triggers starts the refresh, the other joins it', async () => {
  const other = await newAccount(server, 'second');
  const [a, b] = await Promise.all([triggerRefresh(server, server.apiKey, 0), triggerRefresh(server, other.api_key, 1)]);
  expect([a.status, b.status]).toEqual([202, 202]);
  expect([a.json.status, b.json.status].sort()).toEqual(['running', 'started']);
  expect(a.json.started_at).toBe(b.json.started_at);

  await refreshFinished(server, null);
  expect(server.logs().filter((l) => l.event === 'ipdb_refresh_started')).toHaveLength(1);
}, 120_000);

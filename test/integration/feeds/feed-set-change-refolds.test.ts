// A data directory whose database folds in other feeds than SPLITGUARD_FEEDS
// asks for (the test database holds every feed; this server enables only
// Tor) is rebuilt at start without fetching anything: the disabled feeds stop
// matching and the enabled one keeps its snapshot, on every thread.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { check, databaseStatus } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let server: TestServer;
const TOR_EXIT = '171.25.193.25'; // in the shipped Tor exit snapshot
const AWS = '3.5.140.1'; // in the shipped AWS snapshot (3.5.140.0/22)

beforeAll(async () => {
  server = await startServer({ threads: 2, env: { ...NO_RATE_LIMIT, SPLITGUARD_FEEDS: 'tor' } });
});
afterAll(async () => {
  await server?.close();
});

const refoldFinished = () => server.logs().find((l) => l.event === 'ipdb_refresh_finished' && l.scope === 'refold');

it('rebuilds the database with the configured feeds only, fetching none', async () => {
  await waitUntil(async () => refoldFinished(), (l) => l !== undefined, 60_000);
  expect(refoldFinished()).toMatchObject({ outcome: 'updated', feeds: [] });
  expect(server.logs().find((l) => l.event === 'ipdb_refresh_started' && l.scope === 'refold')).toMatchObject({ trigger: 'configured feeds changed' });
  for (let thread = 0; thread < 2; thread++) {
    await waitUntil(() => databaseStatus(server, thread), (s) => s.feeds.length === 1 && s.feeds[0].ranges !== null, 10_000);
    expect((await check(server, TOR_EXIT, thread)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
    expect((await check(server, AWS, thread)).signals.range_feed).toBeNull();
  }
});

it('does not rebuild again when the next start finds the feeds it asks for', async () => {
  await server.stop();
  const again = await startServer({ dataDir: server.dataDir, env: { ...NO_RATE_LIMIT, SPLITGUARD_FEEDS: 'tor' } });
  try {
    await new Promise((r) => setTimeout(r, 1000));
    expect(again.logs().filter((l) => l.event === 'ipdb_refresh_started')).toEqual([]);
    expect((await check(again, AWS)).signals.range_feed).toBeNull();
  } finally {
    await again.close();
  }
});

// The refresh schedule lives in the data directory, so a restart keeps it:
// the next due time is the same after a graceful restart, and a refresh that
// fell due while the server was down runs as soon as it is back. After a
// scheduled refresh the next one is scheduled and runs by itself.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { databaseStatus, sourceName } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';
import { type SourceServer, startSourceServer } from '../../helpers/sources.js';

let sources: SourceServer;
const dirs: string[] = [];
const servers: TestServer[] = [];
beforeAll(async () => {
  sources = await startSourceServer();
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await sources?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function start(dataDir: string, hours?: string): Promise<TestServer> {
  const env = { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: sources.location('valid'), SPLITGUARD_IPDB_REFRESH_HOURS: hours };
  const server = await startServer({ dataDir, env });
  servers.push(server);
  return server;
}

it('keeps the next due time across a graceful restart', async () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  const t0 = Date.now();
  const first = await start(dataDir);
  const due = (await databaseStatus(first)).next_refresh_at!;
  // 24 hours plus up to one hour of jitter.
  expect(Date.parse(due) - t0).toBeGreaterThanOrEqual(24 * 3_600_000 - 60_000);
  expect(Date.parse(due) - t0).toBeLessThanOrEqual(25 * 3_600_000 + 60_000);
  expect(await first.stop()).toBe(0);

  const second = await start(dataDir);
  expect((await databaseStatus(second)).next_refresh_at).toBe(due);
  expect(await second.stop()).toBe(0);
});

it('runs a refresh that fell due while the server was down, then the next one by itself', async () => {
  const dataDir = tempDataDir();
  dirs.push(dataDir);
  // Due 7.2 s after the first start (plus up to 10% jitter): time to start
  // and stop before it. Once back, every 3.6 s.
  const first = await start(dataDir, '0.002');
  const status = await databaseStatus(first);
  const due = Date.parse(status.next_refresh_at!);
  expect(status.last_refresh).toBeNull();
  expect(await first.stop()).toBe(0);
  // Stopped before it was due: the first server refreshed nothing.
  expect(first.logs().filter((l) => l.event === 'ipdb_refresh_started')).toEqual([]);
  expect(Date.now()).toBeLessThan(due);

  await new Promise((r) => setTimeout(r, due - Date.now() + 300));
  const restarted = Date.now();
  const second = await start(dataDir, '0.001');
  const listening = Date.now();
  const { value: after } = await waitUntil(() => databaseStatus(second), (s) => s.last_refresh !== null && !s.refresh_running, 20_000, 100);
  expect(after.last_refresh).toMatchObject({ trigger: 'schedule', outcome: 'updated', source: sourceName(sources.location('valid')) });
  expect(Date.parse(after.last_refresh!.started_at)).toBeGreaterThanOrEqual(restarted);
  // Due at once, not a full interval after the restart.
  expect(Date.parse(after.last_refresh!.started_at) - listening).toBeLessThan(2000);
  expect(after.version).toBe(after.last_refresh!.version);
  const next = Date.parse(after.next_refresh_at!);
  expect(next).toBeGreaterThan(Date.parse(after.last_refresh!.finished_at));

  // The next scheduled refresh runs by itself (the source is unchanged: 304).
  const { value: later } = await waitUntil(
    () => databaseStatus(second),
    (s) => s.last_refresh!.started_at !== after.last_refresh!.started_at && !s.refresh_running,
    20_000,
    100,
  );
  expect(later.last_refresh).toMatchObject({ trigger: 'schedule', outcome: 'unchanged' });
  expect(Date.parse(later.last_refresh!.started_at)).toBeGreaterThanOrEqual(next);
  expect(sources.requests.map((r) => r.status)).toEqual([200, 200, 304, 304]);
}, 120_000);

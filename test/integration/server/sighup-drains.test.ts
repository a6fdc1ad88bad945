// SIGHUP stops the server as SIGTERM does: the drain runs, the clicks
// counted since the last flush are written, and the process exits 0. Before,
// SIGHUP (a closed terminal or ssh session, a supervisor, log rotation) ended
// the process by the signal's default action, and up to a second of counted
// clicks was lost.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { createRoute, inParallel, NO_RATE_LIMIT, RedirectClient, routeStats } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const N = 100;
const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('drains on SIGHUP, keeping the clicks made right before it', async () => {
  const first = await startServer({ threads: 2, dataDir, env: NO_RATE_LIMIT });
  servers.push(first);
  const route = await createRoute(first, { split_ratio: 0.5, intercept_level: 'off' });
  const client = new RedirectClient(first);
  try {
    const statuses = await inParallel(Array.from({ length: N }, (_, i) => i), 16, async (i) => (await client.visit(route.code, { thread: i % 2 })).status);
    expect(statuses.every((s) => s === 302)).toBe(true);
  } finally {
    client.close();
  }
  expect(await first.stop('SIGHUP'), first.output()).toBe(0);
  expect(first.logs().find((l) => l.event === 'signal')).toMatchObject({ signal: 'SIGHUP' });
  expect(first.logs().find((l) => l.event === 'stopped')).toMatchObject({ cleanThreads: 2 });

  const second = await startServer({ threads: 1, dataDir, env: NO_RATE_LIMIT });
  servers.push(second);
  expect((await routeStats(second, route.id)).clicks.total).toBe(N);
});

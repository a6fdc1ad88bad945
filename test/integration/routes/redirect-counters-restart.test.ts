// Click counters survive a graceful restart: clicks made just before SIGTERM
// (the last of them inside the 1 s flush interval, so only the shutdown
// flush can write them) are kept, and a server started again on the same
// data directory shows all of them.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { createRoute, inParallel, NO_RATE_LIMIT, RedirectClient, routeStats } from '../../helpers/routes.js';
import { startServer, tempDataDir, type TestServer } from '../../helpers/server.js';

const N = 300;
const dataDir = tempDataDir();
const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('keeps clicks made right before SIGTERM', async () => {
  const first = await startServer({ threads: 2, dataDir, env: NO_RATE_LIMIT });
  servers.push(first);
  const route = await createRoute(first, { split_ratio: 0.5, intercept_level: 'off' });
  const client = new RedirectClient(first);
  let a = 0;
  try {
    const pages = await inParallel(Array.from({ length: N }, (_, i) => i), 32, async (i) => (await client.visit(route.code, { thread: i % 2 })).location);
    a = pages.filter((p) => p === route.page_a).length;
  } finally {
    client.close();
  }
  expect(await first.stop('SIGTERM')).toBe(0);
  expect(first.logs().some((l) => l.event === 'stopped')).toBe(true);

  const second = await startServer({ threads: 1, dataDir, env: NO_RATE_LIMIT });
  servers.push(second);
  const stats = await routeStats(second, route.id);
  expect(stats.clicks.total).toBe(N);
  expect(stats.groups).toEqual({ a, b: N - a });
});

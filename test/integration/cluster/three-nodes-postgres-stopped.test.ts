// Three nodes behind a real nginx (which they trust for X-Forwarded-For),
// under redirect load through nginx while PostgreSQL is stopped for 8 s:
// not one redirect fails, API writes answer 503 meanwhile, and once
// PostgreSQL is back every click served is counted exactly once.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { redirectLoad } from '../../helpers/redirect-load.js';
import { api, createRoute, NO_RATE_LIMIT, routeStats, waitUntil } from '../../helpers/routes.js';

const AWAY_MS = 8_000;
const cluster = useCluster({ nodes: 3, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('PostgreSQL stopped for 8 s under load: 0 failed redirects, every click counted once it is back', async () => {
  const route = await createRoute(cluster.lb, { intercept_level: 'off' });
  // Live on every node before the load starts.
  for (let i = 0; i < 3; i++) {
    await waitUntil(() => api(cluster.node(i), 'GET', `/v1/routes/${route.id}`), (r) => r.status === 200, 1000, 10);
  }
  const load = redirectLoad(cluster.lb, route.code, 4);
  await new Promise((r) => setTimeout(r, 2000));
  cluster.pg.stop();
  const stoppedAt = Date.now();
  await waitUntil(() => api(cluster.lb, 'POST', '/v1/routes', { name: 'x', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/' }), (r) => r.status === 503, 5000, 100)
    .then(({ value }) => expect(value.json.code).toBe('storage_unavailable'));
  await new Promise((r) => setTimeout(r, Math.max(0, AWAY_MS - (Date.now() - stoppedAt))));
  cluster.pg.start();
  await new Promise((r) => setTimeout(r, 2000));
  const counts = await load.stop();

  expect(counts.failed).toBe(0);
  expect(Object.keys(counts.statuses)).toEqual(['302']);
  const served = counts.statuses[302];
  expect(served).toBeGreaterThan(100);
  const stats = await waitUntil(() => routeStats(cluster.lb, route.id).catch(() => null), (s) => s?.clicks.total === served, 20_000, 250);
  expect(stats.value!.groups.a + stats.value!.groups.b).toBe(served);
  await new Promise((r) => setTimeout(r, 2500));
  expect((await routeStats(cluster.lb, route.id)).clicks.total).toBe(served);
  // Every node took a share (nginx spread the load): each one's thread flushed clicks.
  const writers = await cluster.pg.query<{ node: string }>("SELECT node FROM click_flushes WHERE node NOT LIKE '%/visits' ORDER BY node");
  expect(writers.map((w) => w.node)).toEqual(['node-0/1', 'node-1/1', 'node-2/1']);
}, 120_000);

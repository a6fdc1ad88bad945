// Cluster mode: a node stopped (SIGTERM) while PostgreSQL is away keeps the
// clicks it served meanwhile, the route's and the experiment's per-variant
// ones: its last flush fails, what waits in memory goes to its local LMDB
// (click_spill, visit_spill), and its next start adds it once PostgreSQL is
// back. Before, it waited only in memory, and the stop lost it.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { createRoute, experimentClicks, NO_RATE_LIMIT, RedirectClient, routeStats, waitUntil } from '../../helpers/routes.js';

const BEFORE = 5;
const WHILE_AWAY = 20;
const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('adds the clicks and per-variant visits a node served while PostgreSQL was away after it was stopped and started again', async () => {
  const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
  const client = new RedirectClient(cluster.node(0));
  try {
    await waitUntil(() => client.visit(route.code, { method: 'HEAD' }), (v) => v.status === 302, 1000, 10);
    for (let n = 0; n < BEFORE; n++) expect((await client.visit(route.code)).status).toBe(302);
    await waitUntil(() => routeStats(cluster.node(0), route.id), (s) => s.clicks.total === BEFORE, 3000, 100);
    await waitUntil(() => experimentClicks(cluster.node(0), route.id), (n) => n === BEFORE, 3000, 100);

    cluster.pg.stop();
    for (let n = 0; n < WHILE_AWAY; n++) expect((await client.visit(route.code)).status).toBe(302);
  } finally {
    client.close();
  }
  const stopped = cluster.nodes[0];
  expect(await stopped.stop()).toBe(0);
  expect(stopped.logs().find((l) => l.event === 'clicks_kept_for_next_start')).toMatchObject({ level: 'warn', routeDays: 1 });
  expect(stopped.logs().find((l) => l.event === 'visits_kept_for_next_start')).toMatchObject({ level: 'warn', clicks: WHILE_AWAY });

  cluster.pg.start();
  await cluster.restart(0);
  await waitUntil(() => routeStats(cluster.node(0), route.id).catch(() => null), (s) => s?.clicks.total === BEFORE + WHILE_AWAY, 15_000, 200);
  const [row] = await cluster.pg.query<{ clicks: number }>('SELECT sum(clicks)::int AS clicks FROM route_days WHERE route_id = $1', [route.id]);
  expect(row.clicks).toBe(BEFORE + WHILE_AWAY);
  await waitUntil(() => experimentClicks(cluster.node(0), route.id), (n) => n === BEFORE + WHILE_AWAY, 10_000, 200);
}, 90_000);

// Cluster mode: a node stopped (SIGTERM) while PostgreSQL answers but its
// click and visit writes are stalled (their rows locked: a backlog behind a
// flood looks the same) keeps what it served: everything gathered goes to
// the local spill before the last flush waits on PostgreSQL, and the next
// start adds it. Before, the last flush outlasted the thread's 15 s and the
// thread was ended with the batches in memory, never kept.
import { expect, it } from 'vitest';
import pg from 'pg';
import { useCluster } from '../../helpers/cluster.js';
import { createRoute, experimentClicks, NO_RATE_LIMIT, RedirectClient, routeStats, waitUntil } from '../../helpers/routes.js';

const BEFORE = 5;
const WHILE_STALLED = 20;
const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('keeps the clicks and visits of a stop whose last flush cannot reach their rows, and adds them at the next start', async () => {
  const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
  const client = new RedirectClient(cluster.node(0));
  // A transaction of its own holds the tables the flushes write until it ends.
  const locker = new pg.Client({ connectionString: cluster.pg.url });
  await locker.connect();
  try {
    await waitUntil(() => client.visit(route.code, { method: 'HEAD' }), (v) => v.status === 302, 1000, 10);
    for (let n = 0; n < BEFORE; n++) expect((await client.visit(route.code)).status).toBe(302);
    await waitUntil(() => routeStats(cluster.node(0), route.id), (s) => s.clicks.total === BEFORE, 3000, 100);
    await waitUntil(() => experimentClicks(cluster.node(0), route.id), (n) => n === BEFORE, 3000, 100);

    await locker.query('BEGIN');
    await locker.query('LOCK TABLE route_days, variant_days, sketches IN EXCLUSIVE MODE');
    for (let n = 0; n < WHILE_STALLED; n++) expect((await client.visit(route.code)).status).toBe(302);
    client.close();
    // Let a timer flush start and stall behind the lock, as a backlog's would.
    await new Promise((r) => setTimeout(r, 1500));

    const stopped = cluster.nodes[0];
    expect(await stopped.stop()).toBe(0);
    // The thread closed itself (its busy connections cut), not ended by the 15 s bound.
    expect(stopped.logs().find((l) => l.event === 'stopped')).toMatchObject({ cleanThreads: 1 });
    expect(stopped.logs().find((l) => l.event === 'clicks_kept_for_next_start')).toMatchObject({ level: 'warn', routeDays: 1 });
    expect(stopped.logs().find((l) => l.event === 'visits_kept_for_next_start')).toMatchObject({ level: 'warn', clicks: WHILE_STALLED });
  } finally {
    client.close();
    await locker.query('ROLLBACK').catch(() => {});
    await locker.end();
  }

  await cluster.restart(0);
  await waitUntil(() => routeStats(cluster.node(0), route.id).catch(() => null), (s) => s?.clicks.total === BEFORE + WHILE_STALLED, 15_000, 200);
  await waitUntil(() => experimentClicks(cluster.node(0), route.id), (n) => n === BEFORE + WHILE_STALLED, 10_000, 200);
}, 90_000);

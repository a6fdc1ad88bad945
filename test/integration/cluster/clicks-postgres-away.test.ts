// Cluster mode, two nodes: clicks are counted in PostgreSQL (each node
// flushes once a second), and clicks served while PostgreSQL is stopped are
// kept and added once it is back: the stats read through either node show
// every visit exactly once, and stay so.
import { expect, it } from 'vitest';
import { useCluster, useNodeClients } from '../../helpers/cluster.js';
import { createRoute, NO_RATE_LIMIT, routeStats, waitUntil } from '../../helpers/routes.js';

const BEFORE = 30;
const WHILE_AWAY = 40;
const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
const clients = useNodeClients(cluster);

async function visit(times: number): Promise<void> {
  for (let n = 0; n < times; n++) {
    for (const c of clients) expect((await c.visit(routeCode)).status).toBe(302);
  }
}

let routeCode = '';

it.skipIf(cluster.skip)('counts every click once, those served while PostgreSQL was stopped included', async () => {
  const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
  routeCode = route.code;
  await waitUntil(() => clients[1].visit(route.code, { method: 'HEAD' }), (v) => v.status === 302, 1000, 10);

  await visit(BEFORE);
  const first = await waitUntil(() => routeStats(cluster.node(1), route.id), (s) => s.clicks.total === 2 * BEFORE, 3000, 100);
  expect(first.value.groups.a + first.value.groups.b).toBe(2 * BEFORE);

  cluster.pg.stop();
  await visit(WHILE_AWAY);
  // Several flushes fail meanwhile.
  await new Promise((r) => setTimeout(r, 2500));
  cluster.pg.start();

  const total = 2 * (BEFORE + WHILE_AWAY);
  await waitUntil(() => routeStats(cluster.node(0), route.id).catch(() => null), (s) => s?.clicks.total === total, 15_000, 200);
  // A few more flush rounds: nothing is added twice.
  await new Promise((r) => setTimeout(r, 2500));
  for (const i of [0, 1]) {
    const s = await routeStats(cluster.node(i), route.id);
    expect(s.clicks.total).toBe(total);
    expect(s.groups.a + s.groups.b).toBe(total);
  }
  const [row] = await cluster.pg.query<{ clicks: number }>('SELECT sum(clicks)::int AS clicks FROM route_days WHERE route_id = $1', [route.id]);
  expect(row.clicks).toBe(total);
});

// Cluster mode, two nodes: the experiment's per-variant clicks (and visitors)
// served while PostgreSQL is stopped reach it once it is back, as the route's
// click counters do (clicks-postgres-away.test.ts). Before, the first failed
// visit flush left every later flush of that thread failing with the same
// error: the experiment figures stopped for good, until a restart.
import { expect, it } from 'vitest';
import { useCluster, useNodeClients } from '../../helpers/cluster.js';
import { createRoute, experimentClicks, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const BEFORE = 20;
const WHILE_AWAY = 30;
const AFTER = 10;
const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
const clients = useNodeClients(cluster);

it.skipIf(cluster.skip)('counts the visits served while PostgreSQL was stopped, and those after', async () => {
  const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
  await waitUntil(() => clients[1].visit(route.code, { method: 'HEAD' }), (v) => v.status === 302, 1000, 10);
  const visit = async (times: number) => {
    for (let n = 0; n < times; n++) for (const c of clients) expect((await c.visit(route.code)).status).toBe(302);
  };

  await visit(BEFORE);
  await waitUntil(() => experimentClicks(cluster.node(0), route.id), (n) => n === 2 * BEFORE, 3000, 100);

  cluster.pg.stop();
  await visit(WHILE_AWAY);
  // Several flushes fail meanwhile.
  await new Promise((r) => setTimeout(r, 2500));
  cluster.pg.start();

  await visit(AFTER);
  const total = 2 * (BEFORE + WHILE_AWAY + AFTER);
  const { value } = await waitUntil(() => experimentClicks(cluster.node(0), route.id).catch(() => -1), (n) => n === total, 15_000, 200);
  expect(value).toBe(total);
});

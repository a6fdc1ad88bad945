// A node killed with SIGKILL under redirect load loses at most one flush
// interval of its clicks (contract §9, docs/cluster.md "clicks exactly
// once"): the clicks PostgreSQL holds for the route afterwards are every
// redirect the clients received, less at most what the node served in one
// flush interval (FLUSH_MS, with half of it again for the flush itself),
// and never more than it served.
import { expect, it } from 'vitest';
import { FLUSH_MS } from '../../../src/redirect/clicks.js';
import { useCluster } from '../../helpers/cluster.js';
import { sleep } from '../../helpers/connections.js';
import { createRoute, NO_RATE_LIMIT, RedirectClient, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

const CLIENTS = 8;
const LOAD_MS = 3000;

it.skipIf(cluster.skip)('loses at most one flush interval of clicks when killed under load', async () => {
  const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
  const clients = Array.from({ length: CLIENTS }, () => new RedirectClient(cluster.node(1)));
  await waitUntil(() => clients[0].visit(route.code), (v) => v.status === 302, 2000, 10);
  let served = 1;
  let running = true;
  const started = performance.now();
  const load = clients.map(async (c) => {
    while (running) {
      const v = await c.visit(route.code).catch(() => null);
      if (v === null) return;
      if (v.status === 302) served++;
    }
  });
  await sleep(LOAD_MS);
  const elapsed = performance.now() - started;
  await cluster.nodes[1].stop('SIGKILL');
  running = false;
  await Promise.all(load);
  for (const c of clients) c.close();

  const rows = await cluster.pg.query<{ clicks: number }>('SELECT clicks::int AS clicks FROM route_days WHERE route_id = $1', [route.id]);
  const stored = rows.reduce((s, r) => s + r.clicks, 0);
  const perFlush = (served / elapsed) * FLUSH_MS * 1.5;
  expect(served).toBeGreaterThan(100);
  expect(stored, `served ${served}, stored ${stored}, one flush interval ≈ ${Math.round(perFlush)}`).toBeGreaterThanOrEqual(served - perFlush);
  // Answers in flight when the node died may be counted without reaching the clients.
  expect(stored).toBeLessThanOrEqual(served + CLIENTS);
}, 60_000);

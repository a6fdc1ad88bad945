// Cluster mode: a node's start deletes the per-day sketches of days older
// than SPLITGUARD_SKETCH_DAYS (90 by default) from PostgreSQL, every route's,
// rows of route ids without a routes row too (a batch resent after its
// route's deletion): 150 of them, more than a step's 100 routes, one with 1,200
// old rows, more than a statement's 1,000. The recent days and the lifetime
// rows (day 0) stay. Before, the rows stayed for good.
import { expect, it } from 'vitest';
import { dayOf } from '../../../src/days.js';
import { useCluster } from '../../helpers/cluster.js';
import { visitorsSketch } from '../../helpers/experiments-store.js';
import { api, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT });
const DAYS = 120;
const KEPT = 90;
/** Route ids no route has. */
const ORPHANS = Array.from({ length: 150 }, (_, i) => 900_000 + i);

it.skipIf(cluster.skip)('deletes the per-day sketches past retention from PostgreSQL at a node\'s start', async () => {
  const created = await api(cluster.node(0), 'POST', '/v1/routes', {
    name: 'old', variants: ['a', 'b'].map((k) => ({ url: `https://${k}.example.com/`, weight: 1 })), intercept_level: 'off',
  });
  expect(created.status).toBe(201);
  const id = created.json.id as number;
  // The start's own prune is over (it found nothing) before the rows go in.
  await waitUntil(() => cluster.nodes[0].logs().find((l) => l.event === 'sketches_pruned'), (l) => l !== undefined, 15_000);
  const today = dayOf(Date.now());
  const registers = Buffer.from(visitorsSketch(0, 5).serialize());
  const insert = (route: number, from: number) => cluster.pg.query(
    `INSERT INTO sketches (route_id, day, variant, registers)
     SELECT $1, d, v, $2 FROM (SELECT 0 AS d UNION ALL SELECT generate_series($3::int, $4::int)) days, generate_series(0, 1) AS v`,
    [route, registers, from, today - 1],
  );
  for (const route of [id, ...ORPHANS.slice(1)]) await insert(route, today - DAYS);
  await insert(ORPHANS[0], today - KEPT - 600);
  const rows = async (route: number) =>
    (await cluster.pg.query<{ lifetime: number; kept: number; old: number }>(
      `SELECT count(*) FILTER (WHERE day = 0)::int AS lifetime, count(*) FILTER (WHERE day >= $2)::int AS kept,
              count(*) FILTER (WHERE day BETWEEN 1 AND $2 - 1)::int AS old FROM sketches WHERE route_id = $1`,
      [route, today - KEPT],
    ))[0];
  expect(await rows(id)).toEqual({ lifetime: 2, kept: 2 * KEPT, old: 2 * (DAYS - KEPT) });

  const node = await cluster.restart(0);
  const { value: pruned } = await waitUntil(() => node.logs().find((l) => l.event === 'sketches_pruned'), (l) => l !== undefined, 15_000);
  expect(pruned).toMatchObject({ removed: 2 * 150 * (DAYS - KEPT) + 2 * 600 });
  for (const route of [id, ...ORPHANS]) expect(await rows(route)).toEqual({ lifetime: 2, kept: 2 * KEPT, old: 0 });
}, 120_000);

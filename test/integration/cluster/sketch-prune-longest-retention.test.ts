// Cluster mode: nodes given different SPLITGUARD_SKETCH_DAYS (here 90 and
// 28) prune PostgreSQL's per-day sketches by the longest retention a live
// node publishes in `nodes`, so the node set to 28 deletes nothing the
// other still reads. Rows of days 40 and 100 days old: after both nodes
// have pruned, the day 40 days old is still there and the one 100 days old
// is gone. Before, the node set to 28 deleted both.
import { expect, it } from 'vitest';
import { dayOf } from '../../../src/days.js';
import { useCluster } from '../../helpers/cluster.js';
import { visitorsSketch } from '../../helpers/experiments-store.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import type { TestServer } from '../../helpers/server.js';

const DAYS = ['90', '28'];
const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT, nodeEnv: (i) => ({ SPLITGUARD_SKETCH_DAYS: DAYS[i] }) });
/** A route id no route has: the prune takes every route's rows. */
const ROUTE = 900_001;

const pruned = (node: TestServer) => waitUntil(() => node.logs().find((l) => l.event === 'sketches_pruned'), (l) => l !== undefined, 15_000);

it.skipIf(cluster.skip)('a node with a shorter retention deletes no day a live node with a longer one keeps', async () => {
  // Both starts' prunes are over (they found nothing) before the rows go in.
  await Promise.all(cluster.nodes.map(pruned));
  const today = dayOf(Date.now());
  const registers = Buffer.from(visitorsSketch(0, 5).serialize());
  await cluster.pg.query(
    'INSERT INTO sketches (route_id, day, variant, registers) SELECT $1, d, 0, $2 FROM unnest($3::int[]) AS d',
    [ROUTE, registers, [0, today - 100, today - 40]],
  );
  // The node set to 28 prunes while the one set to 90 is live, then the one set to 90.
  await pruned(await cluster.restart(1));
  await pruned(await cluster.restart(0));
  const days = (await cluster.pg.query<{ day: number }>('SELECT day FROM sketches WHERE route_id = $1 ORDER BY day', [ROUTE])).map((r) => r.day);
  expect(days).toEqual([0, today - 40]);
}, 120_000);

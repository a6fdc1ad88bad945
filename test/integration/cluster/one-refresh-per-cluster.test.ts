// Cluster mode, two nodes: one refresh per cluster. A trigger through the
// node that is not the refresh leader spends the account's allowance
// cluster-wide (the same account through the other node is then 429), is
// handed to the leader, which downloads and builds once and publishes the
// file; both nodes then serve the same new database (same checksum) well
// within 30 s, the follower having downloaded it from PostgreSQL.
import { expect, it } from 'vitest';
import { useRefreshingCluster } from '../../helpers/cluster.js';
import { databaseStatus, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const { cluster, sources } = useRefreshingCluster();

it.skipIf(cluster.skip)('a trigger through any node builds once on the leader, and every node swaps to the published file', async () => {
  const [a, b] = cluster.nodes.map((n) => ({ ...n, apiKey: cluster.apiKey }));
  await waitUntil(async () => cluster.nodes[0].logs().some((l) => l.event === 'refresh_leader'), (v) => v, 5000);
  const before = await databaseStatus(a);
  expect((await databaseStatus(b)).checksum).toBe(before.checksum);

  const started = Date.now();
  const trigger = await triggerRefresh(b, cluster.apiKey);
  expect(trigger.status, trigger.body).toBe(202);
  // The allowance is the cluster's: the same account through the other node is refused.
  const again = await triggerRefresh(a, cluster.apiKey);
  expect(again.status).toBe(429);
  expect(again.json.code).toBe('refresh_too_soon');

  const onA = await waitUntil(() => databaseStatus(a), (s) => s.checksum !== before.checksum && !s.refresh_running, 60_000, 200);
  const onB = await waitUntil(() => databaseStatus(b), (s) => s.checksum === onA.value.checksum, 30_000, 200);
  expect(Date.now() - started).toBeLessThan(60_000);
  expect(onB.value.version).toBe(onA.value.version);

  const builds = cluster.nodes.flatMap((n) => n.logs().filter((l) => l.event === 'ipdb_refresh_started'));
  expect(builds).toHaveLength(1);
  expect(cluster.nodes[1].logs().filter((l) => l.event === 'ipdb_refresh_started')).toHaveLength(0);
  expect(cluster.nodes[1].logs().some((l) => l.event === 'ipdb_published_installed')).toBe(true);
  expect(sources().requests.map((r) => r.status)).toEqual([200, 200]);
  const files = await cluster.pg.query<{ n: number }>('SELECT count(*)::int AS n FROM ipdb_files');
  expect(files).toEqual([{ n: 1 }]);
}, 120_000);

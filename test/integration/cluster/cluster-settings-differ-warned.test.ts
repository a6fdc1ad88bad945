// Cluster mode: each node publishes SPLITGUARD_SKETCH_DAYS and
// SPLITGUARD_CONVERSION_QUOTA with its heartbeat and warns of every live
// node publishing another value, once per node, setting and value
// (cluster_settings_differ), and still serves. Nodes 0 and 1 share a quota
// of 100, node 2 has 200: node 2 warns of nodes 0 and 1, each of them of
// node 2 alone, and nobody of the sketch days they share, however many
// heartbeats later. Before, nothing was logged. `splitguard cluster status`
// shows each node's settings and names the one on which they differ
// (before: neither).
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { useCluster } from '../../helpers/cluster.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const QUOTAS = [100, 100, 200];
const cluster = useCluster({ nodes: 3, nginx: false, env: NO_RATE_LIMIT, nodeEnv: (i) => ({ SPLITGUARD_CONVERSION_QUOTA: String(QUOTAS[i]) }) });

const warnings = (i: number) => cluster.nodes[i].logs().filter((l) => l.event === 'cluster_settings_differ');
const lastSeen = async () => new Map((await cluster.pg.query<{ name: string; ms: number }>(
  'SELECT name, (extract(epoch FROM last_seen) * 1000)::float8 AS ms FROM nodes',
)).map((r) => [r.name, r.ms]));
/** Resolves once every node has written its heartbeat after each of `since`'s. */
const beatsAfter = (since: Map<string, number>) =>
  waitUntil(lastSeen, (now) => [...since].every(([name, ms]) => (now.get(name) ?? 0) > ms), 15_000);

it.skipIf(cluster.skip)('each node warns once of every live node with another conversion quota, and of no other', async () => {
  const expected = (i: number, other: number) => ({
    level: 'warn', setting: 'SPLITGUARD_CONVERSION_QUOTA', value: QUOTAS[i], node: `node-${i}`, otherNode: `node-${other}`, otherValue: QUOTAS[other],
    remedy: 'give every node the same SPLITGUARD_CONVERSION_QUOTA',
  });
  const want = [[2], [2], [0, 1]];
  await waitUntil(() => want.every((others, i) => warnings(i).length >= others.length), (done) => done, 15_000);
  // Two more heartbeats of every node once all three were live: their comparisons have run and warned of nothing new.
  const { value: all } = await beatsAfter(await lastSeen());
  await beatsAfter(all);
  for (const [i, others] of want.entries()) {
    const got = warnings(i);
    expect(got).toHaveLength(others.length);
    for (const [k, other] of others.entries()) expect(got[k]).toMatchObject(expected(i, other));
  }

  const status = await runCliJson<{ nodes: { name: string; settings: unknown }[]; settings_differ: string[] }>(
    ['cluster', 'status'], cluster.nodes[0].dataDir, { SPLITGUARD_DATABASE_URL: cluster.pg.url, SPLITGUARD_REDIS_URL: cluster.redis.url },
  );
  expect(status.nodes.map((n) => [n.name, n.settings])).toEqual(
    QUOTAS.map((quota, i) => [`node-${i}`, { sketch_days: 90, conversion_quota: quota }]),
  );
  expect(status.settings_differ).toEqual(['SPLITGUARD_CONVERSION_QUOTA']);
}, 120_000);

// `splitguard cluster status` shows the IP database each node serves
// (contract §9: "database version served"): its version as the node's
// /healthz reports it, the SHA-256 of its file, and whether that is the
// file the refresh leader published. Before, a node's version was null
// until a refresh published a file, and then the publication's number ("1"),
// so the data's version appeared nowhere.
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { request } from '../../helpers/client.js';
import { useRefreshingCluster } from '../../helpers/cluster.js';
import { databaseStatus, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

interface Status {
  database: { version: number; sha256: string } | null;
  nodes: { name: string; database: { version: string | null; sha256: string | null; current: boolean } }[];
}

const { cluster } = useRefreshingCluster();

const status = () => runCliJson<Status>(['cluster', 'status'], cluster.nodes[0].dataDir, { SPLITGUARD_DATABASE_URL: cluster.pg.url, SPLITGUARD_REDIS_URL: cluster.redis.url });
const healthVersion = async (i: number) => (await request({ port: cluster.nodes[i].ports[0], ca: cluster.nodes[i].ca, path: '/healthz' })).json.database.version as string;

it.skipIf(cluster.skip)('each node shows the version its /healthz reports, before and after a published refresh', async () => {
  const first = await healthVersion(0);
  expect(first).toMatch(/\d/);
  const before = await waitUntil(status, (s) => s.nodes.length === 2 && s.nodes.every((n) => n.database.version !== null), 15_000, 300);
  expect(before.value.database).toBeNull();
  for (const [i, n] of before.value.nodes.entries()) {
    expect(n.database.version).toBe(await healthVersion(i));
    expect(n.database.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(n.database.current).toBe(false);
  }

  await waitUntil(async () => cluster.nodes[0].logs().some((l) => l.event === 'refresh_leader'), (v) => v, 5000);
  const old = (await databaseStatus({ ...cluster.nodes[0], apiKey: cluster.apiKey })).checksum;
  expect((await triggerRefresh({ ...cluster.nodes[0], apiKey: cluster.apiKey }, cluster.apiKey)).status).toBe(202);
  await waitUntil(() => Promise.all([0, 1].map((i) => databaseStatus({ ...cluster.nodes[i], apiKey: cluster.apiKey }))), (s) => s.every((d) => d.checksum !== old && !d.refresh_running), 60_000, 200);
  const after = await waitUntil(status, (s) => s.nodes.every((n) => n.database.current), 15_000, 300);
  const published = after.value.database!;
  expect(typeof published.version).toBe('number');
  for (const [i, n] of after.value.nodes.entries()) {
    expect(n.database.version).toBe(await healthVersion(i));
    expect(n.database.sha256).toBe(published.sha256);
  }
}, 120_000);

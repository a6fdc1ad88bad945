// Cluster mode, starting while PostgreSQL is unreachable: a node that has a
// replica starts from it (degraded: redirects and key checks from the
// replica, writes 503, /readyz 503) and becomes ready by itself once
// PostgreSQL is back; a new node (empty data directory) cannot start and
// says why in one line.
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { call } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { api, createRoute, NO_RATE_LIMIT, RedirectClient, waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir } from '../../helpers/server.js';

const emptyDir = tempDataDir();
afterAll(() => {
  rmSync(emptyDir, { recursive: true, force: true });
});
const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('a node with a replica starts degraded and recovers; a new node refuses to start', async () => {
  const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
  await waitUntil(() => api(cluster.node(1), 'GET', `/v1/routes/${route.id}`), (r) => r.status === 200, 1000, 10);
  expect(await cluster.nodes[1].stop()).toBe(0);
  cluster.pg.stop();

  const node = await cluster.restart(1);
  expect(node.logs().some((l) => l.event === 'cluster_start_degraded')).toBe(true);
  const client = new RedirectClient(cluster.node(1));
  try {
    expect((await client.visit(route.code)).status).toBe(302);
  } finally {
    client.close();
  }
  expect((await api(cluster.node(1), 'GET', '/v1/account')).status).toBe(200);
  const refused = await api(cluster.node(1), 'DELETE', `/v1/routes/${route.id}`);
  expect(refused.status).toBe(503);
  expect(refused.json.code).toBe('storage_unavailable');
  expect((await call(node.ports[0], node.ca, 'GET', '/readyz')).status).toBe(503);

  const fresh = await runCli(['serve'], emptyDir, { ...cluster.env(1), PORT: '0', HOST: '127.0.0.1', SPLITGUARD_THREADS: '1', SPLITGUARD_NODE_NAME: 'new' });
  expect(fresh.code).toBe(1);
  expect(fresh.stderr).toMatch(/^splitguard: the cluster storage is unreachable; try again shortly: a new node needs PostgreSQL to start \(.*ECONNREFUSED/);
  expect(fresh.stderr.trim().split('\n')).toHaveLength(1);

  cluster.pg.start();
  await waitUntil(() => call(node.ports[0], node.ca, 'GET', '/readyz'), (r) => r.status === 200, 10_000, 100);
  expect((await api(cluster.node(1), 'DELETE', `/v1/routes/${route.id}`)).status).toBe(204);
});

// Cluster import into a cluster that already has
// accounts (a node was started first, as happens when the order of
// docs/cluster.md is missed, or a second single node is merged in). The
// import must not hand one tenant's keys, console logins or routes to
// another tenant that has the same account id: it refuses, exit 1 naming the
// clash, and imports nothing. Before, it exited 0 and the single node's key
// answered as the cluster's tenant, reading its private route.
import { expect, it } from 'vitest';
import { runCli, runCliJson } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { api, createRoute, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';
import { startServer, tempDataDir } from '../../helpers/server.js';

const stores = useClusterStores();

it.skipIf(stores.skip)('never attaches an imported key to another tenant\'s account', async () => {
  const env = { ...stores.env(), SPLITGUARD_NODE_NAME: 'n1' };
  const node = stores.track(await startServer({ dataDir: tempDataDir(), env: { ...NO_RATE_LIMIT, ...env } }));
  const clusterTenant = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'cluster-tenant'], node.dataDir, env);
  const secretRoute = await createRoute({ ports: node.ports, ca: node.ca, apiKey: clusterTenant.api_key }, { name: 'cluster-tenant-private', page_a: 'https://private.example.com/a' });

  const single = stores.track(await startServer({ env: NO_RATE_LIMIT }));
  const singleTenant = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'single-tenant'], single.dataDir);
  expect(singleTenant.account_id).toBe(clusterTenant.account_id);
  const theirRoute = await createRoute({ ports: single.ports, ca: single.ca, apiKey: singleTenant.api_key }, { name: 'single-tenant-route', intercept_level: 'off' });
  expect(await single.stop()).toBe(0);

  const imported = await runCli(['cluster', 'import', '--data-dir', single.dataDir], node.dataDir, env);
  expect(imported.code, imported.stdout).toBe(1);
  expect(imported.stderr).toMatch(/cluster import: the cluster already holds account \d+ \("[^"]+", made [^)]+\), another than this directory's \("[^"]+", made [^)]+\); nothing was imported/);
  // Nothing came in: the single node's key is unknown to the cluster, and the cluster tenant's route is untouched.
  const onNode = { ports: node.ports, ca: node.ca, apiKey: singleTenant.api_key };
  expect((await api(onNode, 'GET', '/v1/account')).status).toBe(401);
  expect((await api(node, 'GET', `/v1/routes/${secretRoute.id}`, undefined, { key: clusterTenant.api_key })).status).toBe(200);
  expect(theirRoute.code).toBeTruthy();
});

// docs/cluster.md "Back to one node": stop all nodes but one, unset the
// cluster variables and restart it on its LMDB replica. The single node then
// gives new route and account ids after every id the cluster gave; a new
// route never takes an existing route's id (nor an old short link its
// pages). Before, the replica's id counters stayed at 0: the first new route
// took id 1, an old link went to the new route's pages, and the next account
// overwrote the admin's.
import { expect, it } from 'vitest';
import { runCliJson } from '../../helpers/cli.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { api, createRoute, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';
import { startServer, tempDataDir } from '../../helpers/server.js';

const stores = useClusterStores();
const dir = tempDataDir();

it.skipIf(stores.skip)('keeps every route and account the cluster made when going back to one node', async () => {
  const env = { ...stores.env(), SPLITGUARD_NODE_NAME: 'n1' };
  const node = stores.track(await startServer({ dataDir: dir, env: { ...NO_RATE_LIMIT, ...env } }));
  const clusterRoutes = [];
  for (let i = 0; i < 3; i++) clusterRoutes.push(await createRoute(node, { intercept_level: 'off', name: `cluster-${i}`, page_a: `https://old${i}.example.com/a`, page_b: `https://old${i}.example.com/b` }));
  const other = await runCliJson<{ account_id: number; api_key: string }>(['account', 'create', '--name', 'made-in-cluster'], dir, env);
  const key = node.apiKey;
  expect(await node.stop()).toBe(0);

  // Back to one node: the same data directory, without the cluster variables.
  const single = stores.track(await startServer({ dataDir: dir, env: NO_RATE_LIMIT }));
  const onSingle = { ports: single.ports, ca: single.ca, apiKey: key };
  const fresh = await createRoute(onSingle, { intercept_level: 'off', name: 'after', page_a: 'https://new.example.com/a', page_b: 'https://new.example.com/b' });
  expect.soft(clusterRoutes.map((r) => r.id)).not.toContain(fresh.id);
  // Every route the cluster made is still there, under its own code.
  for (const r of clusterRoutes) {
    const got = await api(onSingle, 'GET', `/v1/routes/${r.id}`);
    expect.soft(got.status).toBe(200);
    expect.soft(got.json.name).toBe(r.name);
    expect.soft(got.json.code).toBe(r.code);
  }
  const client = new RedirectClient(onSingle);
  try {
    // The cluster route's short link still goes to its own pages.
    expect.soft((await client.visit(clusterRoutes[0].code)).location).toMatch(/^https:\/\/old0\.example\.com\//);
  } finally {
    client.close();
  }
  const acct = await runCliJson<{ account_id: number }>(['account', 'create', '--name', 'after'], dir);
  expect.soft([1, other.account_id]).not.toContain(acct.account_id);
  // The account made in the cluster keeps its name and its key.
  const mine = await api(onSingle, 'GET', '/v1/account', undefined, { key: other.api_key });
  expect.soft(mine.status).toBe(200);
  expect.soft(mine.json.name).toBe('made-in-cluster');
});

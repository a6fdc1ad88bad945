// In cluster mode GET /v1/account reads the conversions an account stores
// from PostgreSQL (its account_conversions row: no node's replica holds the
// count), so two nodes show the same figure after conversions stored
// through each, and it is the row's. Before, neither field existed.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { clickIdRoute, mintClickIds } from '../../helpers/conversion-quota.js';
import { expectReply } from '../../helpers/openapi.js';
import { api, NO_RATE_LIMIT, RedirectClient, waitUntil } from '../../helpers/routes.js';

const QUOTA = 40;
const cluster = useCluster({ nodes: 2, nginx: false, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: String(QUOTA) } });

it.skipIf(cluster.skip)('two nodes show the same count after conversions through each', async () => {
  const client = new RedirectClient(cluster.node(0));
  let ids: string[];
  let route: { id: number; code: string };
  try {
    route = await clickIdRoute(cluster.node(0));
    ids = await mintClickIds(client, route.code, 3);
  } finally {
    client.close();
  }
  // Node 1 knows the route once its replica has it.
  await waitUntil(() => api(cluster.node(1), 'GET', `/v1/routes/${route.id}`), (r) => r.status === 200, 5000);
  for (const id of ids) expect((await api(cluster.node(0), 'POST', '/v1/conversions', { click_id: id })).status).toBe(202);
  const onOne = await api(cluster.node(1), 'POST', '/v1/conversions', { conversions: ids.map((id) => ({ click_id: id, goal: 'signup' })) });
  expect((onOne.json.results as { duplicate: boolean }[]).map((x) => x.duplicate)).toEqual([false, false, false]);
  expect((await api(cluster.node(1), 'POST', '/v1/conversions', { click_id: ids[0] })).json.duplicate).toBe(true);

  const [row] = (await cluster.pg.query('SELECT stored::int AS n FROM account_conversions WHERE account_id = $1', [cluster.nodes[0].accountId])) as { n: number }[];
  expect(row.n).toBe(6);
  for (const i of [0, 1]) {
    const r = await api(cluster.node(i), 'GET', '/v1/account');
    expectReply(r, '/v1/account', 'GET', 200);
    expect(r.json, `node ${i}`).toMatchObject({ conversions_stored: 6, conversion_quota: QUOTA });
  }
});

// The conversion quota in cluster mode (SPLITGUARD_CONVERSION_QUOTA, here
// 30): singles and batches for two routes of one account racing on two
// nodes of one PostgreSQL store exactly 30 (the account's row of
// account_conversions is locked, read and written in each commit's
// transaction), every other one is 403 quota_exceeded; deleting a route
// subtracts its conversions in the deletion's transaction, and the account
// stores new ones again.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { clickIdRoute, interleavedBatches, mintClickIds } from '../../helpers/conversion-quota.js';
import { api, inParallel, NO_RATE_LIMIT, RedirectClient } from '../../helpers/routes.js';

const QUOTA = 30;
const cluster = useCluster({ nodes: 2, nginx: false, env: { ...NO_RATE_LIMIT, SPLITGUARD_CONVERSION_QUOTA: String(QUOTA) } });

it.skipIf(cluster.skip)('two nodes racing store no more than the quota; a route deletion gives its conversions back', async () => {
  const client = new RedirectClient(cluster.node(0));
  const routes: { id: number; code: string }[] = [];
  const pairs: { click_id: string; goal: string }[] = [];
  let later: string[];
  try {
    for (const name of ['one', 'two', 'three']) {
      const route = await clickIdRoute(cluster.node(0), name);
      routes.push(route);
      const ids = await mintClickIds(client, route.code, 2);
      if (name === 'three') later = ids;
      else for (const id of ids) for (let g = 0; g < 20; g++) pairs.push({ click_id: id, goal: `g${g}` });
    }
  } finally {
    client.close();
  }
  // The first route holds one at least (a deletion must give something back).
  expect((await api(cluster.node(0), 'POST', '/v1/conversions', pairs.shift())).status).toBe(202);
  // 79 more distinct new conversions: every 4th request a batch of 5, alternating between the nodes.
  const requests = interleavedBatches(pairs, 4, 5);
  const answers = await inParallel(requests, requests.length, (body, i) => api(cluster.node(i % 2), 'POST', '/v1/conversions', body));
  let stored = 0;
  for (const a of answers) {
    const items = a.status === 200 && Array.isArray(a.json?.results) ? (a.json.results as Record<string, unknown>[]) : [a.status === 202 ? { duplicate: false } : a.json];
    for (const item of items) {
      if (item.duplicate === false) stored++;
      else expect(item, JSON.stringify(a.json)).toMatchObject({ code: 'quota_exceeded' });
    }
  }
  expect(stored).toBe(QUOTA - 1);
  const held = async () => ({
    rows: (await cluster.pg.query('SELECT count(*)::int AS n FROM conversions'))[0].n,
    counted: (await cluster.pg.query('SELECT stored::int AS n FROM account_conversions WHERE account_id = $1', [cluster.nodes[0].accountId]))[0]?.n,
  });
  expect(await held()).toEqual({ rows: QUOTA, counted: QUOTA });

  // The first route's conversions go with it, in the deletion's transaction.
  const [first] = (await cluster.pg.query('SELECT count(*)::int AS n FROM conversions WHERE route_id = $1', [routes[0].id])) as { n: number }[];
  expect((await api(cluster.node(1), 'DELETE', `/v1/routes/${routes[0].id}`)).status).toBe(204);
  expect(await held()).toEqual({ rows: QUOTA - first.n, counted: QUOTA - first.n });
  // The third route takes exactly the places freed: of first.n + 3 new ones, 3 are refused.
  const fresh = later!.flatMap((id) => Array.from({ length: 20 }, (_, g) => ({ click_id: id, goal: `g${g}` }))).slice(0, first.n + 3);
  const r = await api(cluster.node(1), 'POST', '/v1/conversions', { conversions: fresh });
  const results = r.json.results as Record<string, unknown>[];
  expect(results.filter((x) => x.duplicate === false)).toHaveLength(first.n);
  expect(results.filter((x) => x.code === 'quota_exceeded')).toHaveLength(3);
  expect(await held()).toEqual({ rows: QUOTA, counted: QUOTA });
});

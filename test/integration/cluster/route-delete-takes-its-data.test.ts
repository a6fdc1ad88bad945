// Cluster mode: DELETE /v1/routes/<id> takes the route's data out of
// PostgreSQL with it: its day counters, clicks per variant, sketches,
// conversions and conversion days (route_days, variant_days, sketches,
// conversions, conversion_days). Before, every row stayed for good.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, RedirectClient, visitorId, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT });
const TABLES = ['route_days', 'variant_days', 'sketches', 'conversions', 'conversion_days'];

it.skipIf(cluster.skip)("removes a deleted route's rows from every per-route table", async () => {
  const node = cluster.node(0);
  const created = await api(node, 'POST', '/v1/routes', {
    name: 'gone', variants: ['a', 'b'].map((k) => ({ url: `https://${k}.example.com/`, weight: 1 })), append_click_id: true, intercept_level: 'off',
  });
  expect(created.status).toBe(201);
  const route = created.json as { id: number; code: string };
  const client = new RedirectClient(node);
  let clickId = '';
  try {
    for (let i = 0; i < 20; i++) clickId = /sg_cid=([A-Za-z0-9_-]+)/.exec((await client.visit(route.code, { visitor: visitorId() })).location!)![1];
  } finally {
    client.close();
  }
  expect((await api(node, 'POST', '/v1/conversions', { click_id: clickId })).status).toBe(202);
  const rows = async () => Object.fromEntries(await Promise.all(TABLES.map(async (t) => [t, (await cluster.pg.query(`SELECT count(*)::int AS n FROM ${t} WHERE route_id = $1`, [route.id]))[0].n])));
  await waitUntil(rows, (r) => TABLES.every((t) => r[t] > 0), 10_000, 200);

  expect((await api(node, 'DELETE', `/v1/routes/${route.id}`)).status).toBe(204);
  expect(await rows()).toEqual(Object.fromEntries(TABLES.map((t) => [t, 0])));
});

// Cluster mode: a route deleted while conversions for it wait for their
// commit takes them along: no conversion row stays under the deleted route in
// PostgreSQL, and each conversion is answered 202 (committed first, then
// removed with the route's rows) or 404 naming click_id. The conversion's
// transaction locks the route's row, so a deletion commits either before it
// (route_gone) or after it (and removes what it stored).
import { expect, it } from 'vitest';
import { request } from '../../helpers/client.js';
import { useCluster } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, RedirectClient, visitorId } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('stores nothing under a route deleted while its conversions wait for their commit', async () => {
  const node = cluster.node(0);
  const post = (clickId: string) => request({ port: node.ports[0], ca: node.ca, method: 'POST', path: '/v1/conversions', json: { click_id: clickId, goal: 'buy' }, headers: { Authorization: `Bearer ${node.apiKey}` } });
  for (let round = 0; round < 5; round++) {
    const created = await api(node, 'POST', '/v1/routes', { name: `race ${round}`, page_a: 'https://a.example/', page_b: 'https://b.example/', append_click_id: true, intercept_level: 'off' });
    const route = created.json as { id: number; code: string };
    const client = new RedirectClient(node);
    const clickIds: string[] = [];
    try {
      for (let i = 0; i < 40; i++) clickIds.push(/sg_cid=([A-Za-z0-9_-]+)/.exec((await client.visit(route.code, { visitor: visitorId() })).location!)![1]);
    } finally {
      client.close();
    }
    const conversions = clickIds.map((cid, i) => new Promise((r) => setTimeout(r, i % 10)).then(() => post(cid)));
    const deletion = new Promise((r) => setTimeout(r, 4)).then(() => api(node, 'DELETE', `/v1/routes/${route.id}`));
    const [deleted, ...answers] = await Promise.all([deletion, ...conversions]);
    expect(deleted.status).toBe(204);
    for (const a of answers) expect([202, 404], a.body).toContain(a.status);
    const left = await cluster.pg.query('SELECT (SELECT count(*) FROM conversions WHERE route_id = $1)::int + (SELECT count(*) FROM conversion_days WHERE route_id = $1)::int AS n', [route.id]);
    expect(left[0].n, `round ${round}: ${answers.map((a) => a.status).join(' ')}`).toBe(0);
  }
});

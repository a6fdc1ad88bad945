// The bound on a route's conversion goals (20) in cluster mode: new goals
// for one route racing on two nodes of one PostgreSQL count exactly 20 (the
// nodes take turns on the route's row), the rest are 400 naming goal, and
// both nodes report the same 20 goals. A conversion naming no goal (the
// default one, not among the 20) is still counted.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { api, inParallel, NO_RATE_LIMIT, RedirectClient, visitorId, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });

it.skipIf(cluster.skip)('new goals racing on two nodes: exactly 20 counted, the others refused naming goal', async () => {
  const created = await api(cluster.node(0), 'POST', '/v1/routes', {
    name: 'goals', variants: ['a', 'b'].map((k) => ({ url: `https://${k}.example.com/`, weight: 1 })), append_click_id: true, intercept_level: 'off',
  });
  expect(created.status).toBe(201);
  const route = created.json as { id: number; code: string };
  const client = new RedirectClient(cluster.node(1));
  try {
    const { value: visit } = await waitUntil(() => client.visit(route.code, { visitor: visitorId() }), (v) => v.status === 302, 2000, 20);
    const id = /sg_cid=([A-Za-z0-9_-]+)/.exec(visit.location!)![1];
    const answers = await inParallel(Array.from({ length: 50 }, (_, i) => i), 50, (i) =>
      api(cluster.node(i % 2), 'POST', '/v1/conversions', { click_id: id, goal: `race-${i}` }));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 202).length, JSON.stringify(statuses)).toBe(20);
    for (const a of answers.filter((x) => x.status !== 202)) expect(a.json).toMatchObject({ code: 'invalid_parameter', field: 'goal' });
    // The default goal is not among the 20 (contract §10: a conversion naming no goal is 202).
    const plain = await api(cluster.node(1), 'POST', '/v1/conversions', { click_id: id });
    expect(plain.status, plain.body).toBe(202);
    for (const node of [0, 1]) {
      const detail = await api(cluster.node(node), 'GET', `/v1/routes/${route.id}`);
      expect((detail.json.experiment.lifetime.goals as string[]).filter((g) => g !== 'conversion'), `node ${node}`).toHaveLength(20);
    }
  } finally {
    client.close();
  }
});

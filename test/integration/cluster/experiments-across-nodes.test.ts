// Experiments in cluster mode, two nodes on one PostgreSQL: a route with
// variants and click ids created on node A is split on node B; every
// visitor's click on either node is counted in PostgreSQL (clicks per
// variant added, unique-visitor sketches merged register by register across
// the nodes, so a visitor seen on both nodes counts once); a click id issued
// by node B converts on node A (one secret for the cluster), the same
// conversion again through B is a duplicate, and both nodes report the same
// experiment.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { api, NO_RATE_LIMIT, RedirectClient, visitorId, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
const clients: RedirectClient[] = [];
beforeAll(() => {
  if (cluster.skip) return;
  clients.push(new RedirectClient(cluster.node(0)), new RedirectClient(cluster.node(1)));
});
afterAll(() => {
  for (const c of clients) c.close();
});

const VISITORS = 200;
const url = (k: string) => `https://${k}.example.com/`;

it.skipIf(cluster.skip)('splits, counts and converts a route across both nodes, visitors seen on both counted once', async () => {
  const created = await api(cluster.node(0), 'POST', '/v1/routes', {
    name: 'cluster experiment', variants: ['a', 'b', 'c'].map((k) => ({ url: url(k), weight: 1 })), append_click_id: true, intercept_level: 'off',
  });
  expect(created.status).toBe(201);
  const route = created.json as { id: number; code: string };
  // Node B has it within the replication bound (a 404 counts nothing); the 302 that shows it is a visit like the others.
  const { value: first } = await waitUntil(() => clients[1].visit(route.code, { visitor: visitorId() }), (v) => v.status === 302, 2000, 20);
  const clicks = [0, 0, 0];
  const visitors = [0, 0, 0];
  const firstVariant = 'abc'.indexOf(new URL(first.location!).hostname[0]);
  clicks[firstVariant]++;
  visitors[firstVariant]++;
  const tokens: string[] = [];
  for (let i = 0; i < VISITORS; i++) {
    const visitor = visitorId();
    // Every visitor on node B, every second one on node A as well: the same variant on both.
    const seen = new Set<string>();
    for (const node of i % 2 === 0 ? [1, 0] : [1]) {
      const v = await clients[node].visit(route.code, { visitor });
      const m = /^https:\/\/([abc])\.example\.com\/\?sg_cid=([A-Za-z0-9_-]+)$/.exec(v.location ?? '');
      expect(m, v.location).not.toBeNull();
      seen.add(m![1]);
      clicks['abc'.indexOf(m![1])]++;
      if (node === 1 && i % 10 === 0) tokens.push(m![2]);
    }
    expect(seen.size, 'sticky across nodes').toBe(1);
    visitors['abc'.indexOf([...seen][0])]++;
  }
  // Issued by node B, converted on node A; again through B: a duplicate.
  for (const click_id of tokens) {
    const first = await api(cluster.node(0), 'POST', '/v1/conversions', { click_id });
    expect(first.status, first.body).toBe(202);
    const again = await api(cluster.node(1), 'POST', '/v1/conversions', { click_id });
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ route_id: route.id, duplicate: true });
  }

  const total = clicks.reduce((s, n) => s + n, 0);
  const report = async (node: number) => (await api(cluster.node(node), 'GET', `/v1/routes/${route.id}`)).json.experiment;
  const { value: a } = await waitUntil(() => report(0), (e) => e.variants.reduce((s: number, v: { clicks: number }) => s + v.clicks, 0) === total, 10_000, 200);
  const b = await report(1);
  expect(b.variants).toEqual(a.variants);
  a.variants.forEach((v: { clicks: number; visitors: number; conversions: Record<string, { count: number }> }, k: number) => {
    expect(v.clicks).toBe(clicks[k]);
    expect(Math.abs(v.visitors - visitors[k])).toBeLessThanOrEqual(Math.max(2, visitors[k] * 0.02));
  });
  const converted = a.variants.reduce((s: number, v: { conversions: Record<string, { count: number }> }) => s + (v.conversions.conversion?.count ?? 0), 0);
  expect(converted).toBe(tokens.length);
  // PostgreSQL holds them (the source of truth), not a node's memory.
  expect(await cluster.pg.query('SELECT count(*)::int AS n FROM conversions WHERE route_id = $1', [route.id])).toEqual([{ n: tokens.length }]);
});

// Cluster mode, PostgreSQL stopped: a route's detail is a read, and reads
// answer from the node's replica (contract §9). The route comes from the
// replica and its figures, which only PostgreSQL holds, as the node last
// read them, on whichever thread of the node asks, with `stats_as_of`
// saying when they were read. A route whose figures the node never read is
// still 503 storage_unavailable. Before, every detail was 503 for the whole
// outage. Once PostgreSQL is back the figures are live again (no
// `stats_as_of`).
import { expect, it } from 'vitest';
import { useCluster, useNodeClients } from '../../helpers/cluster.js';
import { api, createRoute, NO_RATE_LIMIT, visitorId, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, threads: 2, nginx: false, env: NO_RATE_LIMIT });
const clients = useNodeClients(cluster);

it.skipIf(cluster.skip)('answers a detail read before the outage from any thread of the node, with stats_as_of', async () => {
  const node = cluster.node(0);
  const read = await createRoute(node, { intercept_level: 'off' });
  const unread = await createRoute(node, { intercept_level: 'off' });
  for (let i = 0; i < 5; i++) expect((await clients[0].visit(read.code, { visitor: visitorId() })).status).toBe(302);
  // Read on thread 0 once the visits are counted.
  const live = await waitUntil(() => api(node, 'GET', `/v1/routes/${read.id}`, undefined, { thread: 0 }), (r) => r.json.stats.clicks.total === 5, 10_000, 100);
  expect(live.value.json.stats_as_of).toBeUndefined();
  const readAt = Date.now();

  cluster.pg.stop();
  await waitUntil(() => api(node, 'POST', '/v1/routes', { name: 'probe', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/' }), (r) => r.status === 503, 5000, 100);

  for (const thread of [0, 1]) {
    const r = await api(node, 'GET', `/v1/routes/${read.id}`, undefined, { thread });
    expect(r.status, `thread ${thread}: ${r.body}`).toBe(200);
    expect(r.json).toMatchObject({ id: read.id, code: read.code, stats: live.value.json.stats, experiment: live.value.json.experiment });
    const asOf = Date.parse(r.json.stats_as_of);
    expect(asOf).toBeLessThanOrEqual(readAt);
    expect(readAt - asOf).toBeLessThan(10_000);
  }
  const never = await api(node, 'GET', `/v1/routes/${unread.id}`);
  expect(never.status).toBe(503);
  expect(never.json.code).toBe('storage_unavailable');
  // The list, from the replica, as before.
  expect((await api(node, 'GET', '/v1/routes')).json.pagination.total).toBe(2);

  cluster.pg.start();
  const back = await waitUntil(() => api(node, 'GET', `/v1/routes/${unread.id}`, undefined, { thread: 1 }), (r) => r.status === 200, 15_000, 200);
  expect(back.value.json.stats_as_of).toBeUndefined();
  expect(back.value.json.stats.clicks.total).toBe(0);
}, 120_000);

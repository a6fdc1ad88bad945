// Cluster mode, two nodes on one PostgreSQL (each with its own data
// directory, so its own LMDB replica): a route created through node A
// redirects on node B within a second, the writer reads its own write at
// once, and a route deleted through A answers 404 on B within a second.
// Node B has served (and cached) the route before the deletion.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { api, createRoute, NO_RATE_LIMIT, PAGE_A, PAGE_B, RedirectClient, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 2, nginx: false, env: NO_RATE_LIMIT });
let onA: RedirectClient;
let onB: RedirectClient;
beforeAll(() => {
  if (cluster.skip) return;
  onA = new RedirectClient(cluster.node(0));
  onB = new RedirectClient(cluster.node(1));
});
afterAll(() => {
  onA?.close();
  onB?.close();
});

it.skipIf(cluster.skip)('a route created on node A redirects on node B within 1 s, and is gone there within 1 s of its deletion', async () => {
  for (let round = 0; round < 5; round++) {
    const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
    // PostgreSQL holds it (the source of truth), not only A's replica.
    expect(await cluster.pg.query('SELECT id::int FROM routes WHERE code = $1', [route.code])).toEqual([{ id: route.id }]);
    // Read-your-writes on the writer: no wait at all.
    expect((await onA.visit(route.code)).status).toBe(302);
    expect((await api(cluster.node(0), 'GET', `/v1/routes/${route.id}`)).status).toBe(200);

    const seen = await waitUntil(() => onB.visit(route.code), (v) => v.status === 302, 1000, 10);
    expect([PAGE_A, PAGE_B]).toContain(seen.value.location);
    expect(seen.ms).toBeLessThan(1000);
    expect((await api(cluster.node(1), 'GET', `/v1/routes/${route.id}`)).json).toMatchObject({ id: route.id, code: route.code });

    expect((await api(cluster.node(0), 'DELETE', `/v1/routes/${route.id}`)).status).toBe(204);
    expect((await onA.visit(route.code)).status).toBe(404);
    const gone = await waitUntil(() => onB.visit(route.code), (v) => v.status === 404, 1000, 10);
    expect(gone.ms).toBeLessThan(1000);
    expect((await api(cluster.node(1), 'GET', `/v1/routes/${route.id}`)).status).toBe(404);
  }
});

// Cluster mode, PostgreSQL stopped (contract §9 "degraded, not down"):
// every node keeps answering redirects, key checks and IP checks from its
// replica; API writes answer 503 storage_unavailable with Retry-After at
// once (no hang); /readyz says 503 with the reason while /healthz stays 200.
// PostgreSQL started again, the nodes recover by themselves: ready again,
// writes accepted, and replication between them works again.
import { expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { useCluster, useNodeClients } from '../../helpers/cluster.js';
import { consoleSession } from '../../helpers/console-session.js';
import { api, createRoute, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { readBootstrap } from '../../helpers/server.js';

// Sessions idle out after 12 s, so one is touched (rewritten) every 3 s: also while PostgreSQL is away.
const cluster = useCluster({ nodes: 2, nginx: false, env: { ...NO_RATE_LIMIT, SPLITGUARD_SESSION_IDLE_MINUTES: '0.2' } });
const clients = useNodeClients(cluster);

const readyz = (i: number) => call(cluster.nodes[i].ports[0], cluster.nodes[i].ca, 'GET', '/readyz');

it.skipIf(cluster.skip)('serves from the replicas while PostgreSQL is stopped, refuses writes with 503, and recovers by itself', async () => {
  const route = await createRoute(cluster.node(0), { intercept_level: 'off' });
  await waitUntil(() => clients[1].visit(route.code), (v) => v.status === 302, 1000, 10);
  for (const i of [0, 1]) expect((await readyz(i)).json).toMatchObject({ ready: true, database: 'connected' });

  const boot = readBootstrap(cluster.nodes[0].dataDir);
  const session = await consoleSession(cluster.nodes[0], boot.admin_email, boot.admin_password);
  const signedInAt = Date.now();

  cluster.pg.stop();

  // Both nodes notice (the listener's connection ends).
  for (const i of [0, 1]) {
    const r = await waitUntil(() => readyz(i), (v) => v.status === 503, 5000);
    expect(r.value.json).toMatchObject({ ready: false, database: 'unreachable' });
    expect(typeof r.value.json.reason).toBe('string');
    expect((await call(cluster.nodes[i].ports[0], cluster.nodes[i].ca, 'GET', '/healthz')).status).toBe(200);
    const metrics = (await call(cluster.nodes[i].ports[0], cluster.nodes[i].ca, 'GET', '/metrics')).body;
    expect(metrics).toContain(`splitguard_cluster_database_connected{node="node-${i}"} 0`);
    expect(metrics).toContain(`splitguard_cluster_ready{node="node-${i}"} 0`);
    // The logs say which node lost it.
    expect(cluster.nodes[i].logs().some((l) => l.event === 'cluster_database_lost' && l.node === `node-${i}`)).toBe(true);
  }
  for (const i of [0, 1]) {
    for (let n = 0; n < 20; n++) expect((await clients[i].visit(route.code)).status).toBe(302);
    // The account from the replica; the conversions it stores are PostgreSQL's count alone: null meanwhile.
    const account = await api(cluster.node(i), 'GET', '/v1/account');
    expect(account.status).toBe(200);
    expect(account.json).toMatchObject({ id: cluster.nodes[i].accountId, conversions_stored: null });
    expect((await api(cluster.node(i), 'GET', '/v1/ip/check?ip=8.8.8.8')).status).toBe(200);
    expect((await api(cluster.node(i), 'GET', '/v1/routes')).json.pagination.total).toBe(1);

    const started = performance.now();
    const refused = await api(cluster.node(i), 'POST', '/v1/routes', { name: 'while away', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(refused.status).toBe(503);
    expect(refused.json).toMatchObject({ code: 'storage_unavailable', field: null });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const put = await api(cluster.node(i), 'PUT', `/v1/routes/${route.id}`, { name: 'renamed' });
    expect(put.status).toBe(503);
    expect((await api(cluster.node(i), 'DELETE', `/v1/routes/${route.id}`)).status).toBe(503);
  }

  // The console reads from the replica too, though the session's touch cannot be written; its
  // changes are refused like the API's.
  await new Promise((r) => setTimeout(r, Math.max(0, 3500 - (Date.now() - signedInAt))));
  expect((await session.call('GET', '/keys')).status).toBe(200);
  const keyRefused = await session.call('POST', '/keys', { name: 'while away' });
  expect(keyRefused.status).toBe(503);
  expect(keyRefused.json.code).toBe('storage_unavailable');

  cluster.pg.start();

  for (const i of [0, 1]) await waitUntil(() => readyz(i), (v) => v.status === 200, 10_000, 100);
  expect((await call(cluster.nodes[0].ports[0], cluster.nodes[0].ca, 'GET', '/metrics')).body).toContain('splitguard_cluster_database_connected{node="node-0"} 1');
  const after = await createRoute(cluster.node(1), { intercept_level: 'off' });
  const seen = await waitUntil(() => clients[0].visit(after.code), (v) => v.status === 302, 1000, 10);
  expect(seen.ms).toBeLessThan(1000);
  // The refused writes left no trace.
  expect((await api(cluster.node(0), 'GET', `/v1/routes/${route.id}`)).json.name).toBe('test route');
  expect((await api(cluster.node(0), 'GET', '/v1/routes')).json.pagination.total).toBe(2);
});

// What a cluster node answers, against docs/openapi.yaml: /readyz (GET and
// HEAD) while ready and, with PostgreSQL stopped, not ready; a write refused
// 503 storage_unavailable; a route's detail from the figures the node last
// read (stats_as_of), and 503 for one it never read.
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';
import { callOn, errorBody, expectOperation, expectReply } from '../../helpers/openapi.js';
import { createRoute, NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';

const cluster = useCluster({ nodes: 1, nginx: false, env: NO_RATE_LIMIT });
const node = () => ({ ...cluster.nodes[0], apiKey: cluster.apiKey });
const call = (method: string, urlPath: string, json?: unknown) => callOn(node(), method, urlPath, json === undefined ? {} : { json });

it.skipIf(cluster.skip)('/readyz, the 503 of a write and the detail while PostgreSQL is away', async () => {
  const ready = await callOn(node(), 'GET', '/readyz', { key: null });
  expect(ready.status).toBe(200);
  expectOperation(ready, '/readyz', 'GET');
  const head = await callOn(node(), 'HEAD', '/readyz', { key: null });
  expect(head.status).toBe(200);
  expectOperation(head, '/readyz', 'HEAD');

  const read = await createRoute(cluster.node(0), { intercept_level: 'off' });
  const unread = await createRoute(cluster.node(0), { intercept_level: 'off' });
  expect((await call('GET', `/v1/routes/${read.id}`)).status).toBe(200);

  cluster.pg.stop();
  const notReady = await waitUntil(() => callOn(node(), 'GET', '/readyz', { key: null }), (r) => r.status === 503, 5000, 100);
  expectOperation(notReady.value, '/readyz', 'GET');

  const refused = await call('POST', '/v1/routes', { name: 'away', page_a: 'https://a.example.com/', page_b: 'https://b.example.com/' });
  expectReply(refused, '/v1/routes', 'POST', 503, { code: 'storage_unavailable', field: null });
  expect(errorBody(refused).error).toContain('unreachable');

  const stale = await call('GET', `/v1/routes/${read.id}`);
  expect(stale.status).toBe(200);
  expect(typeof stale.json.stats_as_of).toBe('string');
  expectOperation(stale, '/v1/routes/{id}', 'GET');
  expectReply(await call('GET', `/v1/routes/${unread.id}`), '/v1/routes/{id}', 'GET', 503, { code: 'storage_unavailable', field: null });
  cluster.pg.start();
}, 60_000);

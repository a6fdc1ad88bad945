// Redis going away and coming back, under two nodes that share it:
//   - killed (SIGKILL): the API is still served, each node holding the
//     account to its share of the limit (60 / 2 live nodes = 30, what it
//     already let through this minute included), with RateLimit-Limit 30;
//     a bad key's 401 reports the node's share of the failure limit (15);
//     /metrics shows splitguard_redis_connected 0 and the local decisions
//     in splitguard_limit_fallbacks_total; the log says redis_unavailable
//     once;
//   - started again (empty, same port), without restarting either node:
//     both reconnect by themselves, the log says redis_connected, and the
//     limit is the cluster's again: 60 of 70 racing requests over both nodes
//     (alone, the nodes would have allowed 0 + 29).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tally } from '../../helpers/attack.js';
import { call, limits } from '../../helpers/client.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { nodeMetric, untilMetric } from '../../helpers/cluster-nodes.js';
import type { TestRedis } from '../../helpers/redis.js';
import type { TestServer } from '../../helpers/server.js';

let cluster: TestCluster;
let redis: TestRedis;
let nodes: TestServer[] = [];
beforeAll(async () => {
  cluster = await startCluster({ nodes: 2, nginx: false, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: undefined, SPLITGUARD_REDIS_TIMEOUT_MS: '2000' } });
  redis = cluster.redis;
  nodes = cluster.nodes;
});
afterAll(async () => {
  await cluster?.close();
});

const get = (node: TestServer) => call(node.ports[0], node.ca, 'GET', '/v1/account', node.apiKey);
const events = (node: TestServer, event: string) => node.logs().filter((l) => l.event === event);

it('serves the API with local shares while Redis is down, and goes back to cluster-wide limits when it returns', async () => {
  // Each node has seen the other through a heartbeat.
  await untilMetric(nodes, 'splitguard_redis_nodes', (v) => v === 2);
  const [a, b] = nodes;
  expect(limits(await get(a))).toMatchObject({ limit: 60, remaining: 59 });
  expect(limits(await get(b))).toMatchObject({ limit: 60, remaining: 58 });

  await redis.stop();
  await untilMetric(nodes, 'splitguard_redis_connected', (v) => v === 0);
  const alone = await Promise.all(Array.from({ length: 40 }, () => get(a)));
  // 30 for this node, one of which it let through before Redis went away.
  expect(tally(alone.map((r) => r.status))).toEqual({ 200: 29, 429: 11 });
  for (const r of alone) expect(limits(r).limit).toBe(30);
  expect(await nodeMetric(a, 'splitguard_limit_fallbacks_total')).toBeGreaterThanOrEqual(40);
  expect(await nodeMetric(a, 'splitguard_redis_connected')).toBe(0);
  expect(events(a, 'redis_unavailable')).toHaveLength(1);
  // A bad key's 401 reports the failure limit this node applies alone: its share, 30 / 2.
  const refused = await call(a.ports[0], a.ca, 'GET', '/v1/account', 'sg_not_a_key');
  expect(refused.status).toBe(401);
  expect(limits(refused)).toMatchObject({ limit: 15, remaining: 14 });

  await redis.start();
  await untilMetric(nodes, 'splitguard_redis_connected', (v) => v === 1);
  const fallbacksBefore = await Promise.all(nodes.map((n) => nodeMetric(n, 'splitguard_limit_fallbacks_total')));
  const together = await Promise.all(Array.from({ length: 70 }, (_, i) => get(nodes[i % 2])));
  expect(tally(together.map((r) => r.status))).toEqual({ 200: 60, 429: 10 });
  for (const r of together) expect(limits(r).limit).toBe(60);
  expect(await Promise.all(nodes.map((n) => nodeMetric(n, 'splitguard_limit_fallbacks_total')))).toEqual(fallbacksBefore);
  for (const node of nodes) expect(events(node, 'redis_connected')).toHaveLength(2);
});

// A Redis that accepts connections but does not answer (CLIENT PAUSE) costs
// an API request at most SPLITGUARD_REDIS_TIMEOUT_MS of waiting (200 ms here,
// not the default 50, so that a busy test machine does not time out the
// calls before the pause): requests during a 4 s pause are answered well before it ends,
// decided by the node alone (splitguard_limit_fallbacks_total counts them);
// after the pause the node asks Redis again by itself.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call } from '../../helpers/client.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { nodeMetric, untilMetric } from '../../helpers/cluster-nodes.js';
import type { TestRedis } from '../../helpers/redis.js';
import type { TestServer } from '../../helpers/server.js';

const PAUSE_MS = 4000;
let cluster: TestCluster;
let redis: TestRedis;
let node: TestServer;
let admin: Redis;
beforeAll(async () => {
  cluster = await startCluster({ nodes: 1, nginx: false, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: undefined, SPLITGUARD_REDIS_TIMEOUT_MS: '200' } });
  redis = cluster.redis;
  [node] = cluster.nodes;
  admin = new Redis(redis.url, { lazyConnect: true });
  await admin.connect();
});
afterAll(async () => {
  admin?.disconnect();
  await cluster?.close();
});

const timed = async () => {
  const started = performance.now();
  const r = await call(node.ports[0], node.ca, 'GET', '/v1/account', node.apiKey);
  return { status: r.status, ms: performance.now() - started };
};

it('answers API requests during a Redis stall without waiting for it, and uses Redis again afterwards', async () => {
  await untilMetric([node], 'splitguard_redis_connected', (v) => v === 1);
  expect((await timed()).status).toBe(200);
  expect(await nodeMetric(node, 'splitguard_limit_fallbacks_total')).toBe(0);

  const pausedAt = performance.now();
  await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
  const during = [];
  for (let i = 0; i < 5; i++) during.push(await timed());
  const elapsed = performance.now() - pausedAt;
  // All five answered while Redis was still paused.
  expect(elapsed).toBeLessThan(PAUSE_MS - 1000);
  for (const r of during) {
    expect(r.status).toBe(200);
    // 200 ms of waiting at most, plus a TLS connection on a busy machine.
    expect(r.ms).toBeLessThan(1000);
  }
  expect(await nodeMetric(node, 'splitguard_limit_fallbacks_total')).toBe(5);
  expect(await nodeMetric(node, 'splitguard_redis_connected')).toBe(0);
  expect(node.logs().filter((l) => l.event === 'redis_unavailable')).toHaveLength(1);

  // The pause ends; a heartbeat or a request finds Redis answering again.
  await untilMetric([node], 'splitguard_redis_connected', (v) => v === 1, 15_000);
  await new Promise((r) => setTimeout(r, 1100));
  expect((await timed()).status).toBe(200);
  expect(await nodeMetric(node, 'splitguard_limit_fallbacks_total')).toBe(5);
});

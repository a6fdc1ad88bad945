// Three nodes' limits (three Redis connections, three sets of local tables)
// racing on one account and one address: Redis decides each hit in one
// script, so exactly the limit gets through whatever the interleaving, each
// admitted request sees its own count, and no node decides alone.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Limits, localTables } from '../../../src/limits/limits.js';
import { RedisLink } from '../../../src/limits/redis-link.js';
import { redisLimits } from '../../../src/limits/redis-limits.js';
import { Metrics } from '../../../src/metrics.js';
import type { WorkerInput } from '../../../src/server.worker.js';
import { limitsMetric, tables, untilConnected } from '../../helpers/limits.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';

const NODES = 3;
let redis: TestRedis;
const links: RedisLink[] = [];
const nodes: Limits[] = [];
const metrics = new Metrics(Metrics.allocate(NODES), 0);
beforeAll(async () => {
  redis = await startRedis();
  for (let n = 0; n < NODES; n++) {
    // A generous timeout: this test is about counting, the timeout has its own.
    const link = new RedisLink({ url: redis.url, timeoutMs: 2000, metrics, reportsNodes: false, member: `node-${n}:test` });
    links.push(link);
    nodes.push(redisLimits(link, localTables(tables() as WorkerInput['shared'])));
  }
  await Promise.all(links.map((l) => untilConnected(l)));
});
afterAll(async () => {
  await Promise.all(links.map((l) => l.close()));
  await redis?.close();
});

it('admits exactly 60 of 300 racing requests of one account across three nodes', async () => {
  const now = Date.now();
  const verdicts = await Promise.all(Array.from({ length: 300 }, (_, i) => nodes[i % NODES].accounts.hit(42, 60, now + (i % 7))));
  const admitted = verdicts.filter((v) => v.allowed);
  expect(admitted).toHaveLength(60);
  expect(admitted.map((v) => v.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  for (const v of verdicts) expect(v.limit).toBe(60);
  expect(verdicts.filter((v) => !v.allowed).every((v) => v.remaining === 0 && v.resetSeconds >= 1 && v.resetSeconds <= 60)).toBe(true);
  expect(limitsMetric(metrics, 'splitguard_limit_fallbacks_total')).toBe(0);
});

it('counts exactly 30 of 200 racing failures of one address across three nodes', async () => {
  const address = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 7]);
  const now = Date.now();
  const verdicts = await Promise.all(Array.from({ length: 200 }, (_, i) => nodes[i % NODES].authFailures.hit(address, 30, now)));
  expect(verdicts.filter((v) => v.allowed)).toHaveLength(30);
  expect(verdicts.filter((v) => v.allowed).map((v) => v.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  expect(await nodes[1].authFailures.count(address, now)).toBe(30);
  expect(limitsMetric(metrics, 'splitguard_limit_fallbacks_total')).toBe(0);
});

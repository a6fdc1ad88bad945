// The Redis limits answer exactly as the single node's tables do: the same
// rolling windows bucket for bucket, the same counts, Reset and Retry-After,
// through a random walk of hits, counts and releases over several minutes of
// clock (the clock is the caller's, as in production). The walk runs against
// a real redis-server and, side by side, against the local tables; no
// decision is made locally on the Redis side (its fallback counter stays 0).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FailureLimiter } from '../../../src/http/failure-limiter.js';
import { SharedRateLimiter } from '../../../src/http/rate-limit.js';
import { localTables } from '../../../src/limits/limits.js';
import { RedisLink } from '../../../src/limits/redis-link.js';
import { redisLimits } from '../../../src/limits/redis-limits.js';
import { Metrics } from '../../../src/metrics.js';
import type { WorkerInput } from '../../../src/server.worker.js';
import { startRedis, type TestRedis } from '../../helpers/redis.js';
import { limitsMetric, tables, untilConnected } from '../../helpers/limits.js';

let redis: TestRedis;
let link: RedisLink;
const metrics = new Metrics(Metrics.allocate(1), 0);
beforeAll(async () => {
  redis = await startRedis();
  link = new RedisLink({ url: redis.url, timeoutMs: 2000, metrics, reportsNodes: true, member: 'node-0:test' });
  await untilConnected(link);
});
afterAll(async () => {
  await link?.close();
  await redis?.close();
});

/** A deterministic pseudo-random sequence (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

it('counts an account the same in Redis as in the shared table', async () => {
  const cluster = redisLimits(link, localTables(tables() as WorkerInput['shared']));
  const reference = new SharedRateLimiter(SharedRateLimiter.allocate(16));
  const next = random(17);
  let now = Date.UTC(2026, 10, 23, 12, 0, 0, 0);
  for (let step = 0; step < 1500; step++) {
    // Mostly bursts within a second, sometimes a pause of up to 20 s.
    now += next() < 0.9 ? Math.floor(next() * 400) : Math.floor(next() * 20_000);
    const account = 1 + Math.floor(next() * 3);
    const limit = [5, 20, 60][account - 1];
    const expected = reference.hit(account, limit, now);
    const got = await cluster.accounts.hit(account, limit, now);
    expect(got, `step ${step}, account ${account}, t=${now}`).toEqual(expected);
  }
  expect(limitsMetric(metrics, 'splitguard_limit_fallbacks_total')).toBe(0);
});

it('counts, reports and releases failures the same in Redis as in the shared table', async () => {
  const cluster = redisLimits(link, localTables(tables() as WorkerInput['shared']));
  const reference = new FailureLimiter(FailureLimiter.allocate(16));
  const next = random(29);
  const keys = [1, 2, 3].map((k) => Uint8Array.from({ length: 16 }, (_, i) => (i === 15 ? k : 0x20 + i)));
  let now = Date.UTC(2026, 10, 23, 12, 0, 0, 0);
  const counted: { key: number; at: number }[] = [];
  for (let step = 0; step < 1500; step++) {
    now += next() < 0.9 ? Math.floor(next() * 1500) : Math.floor(next() * 30_000);
    const k = Math.floor(next() * keys.length);
    const op = next();
    if (op < 0.6) {
      const limit = [3, 10, 30][k];
      const expected = reference.hit(keys[k], limit, now);
      expect(await cluster.loginAddresses.hit(keys[k], limit, now), `hit, step ${step}`).toEqual(expected);
      if (expected.allowed) counted.push({ key: k, at: now });
    } else if (op < 0.8) {
      expect(await cluster.loginAddresses.count(keys[k], now), `count, step ${step}`).toBe(reference.count(keys[k], now));
    } else if (counted.length > 0) {
      // Take back a failure counted earlier (possibly already out of the window).
      const { key, at } = counted.splice(Math.floor(next() * counted.length), 1)[0];
      reference.release(keys[key], at, now);
      await cluster.loginAddresses.release(keys[key], at, now);
      expect(await cluster.loginAddresses.count(keys[key], now), `release, step ${step}`).toBe(reference.count(keys[key], now));
    }
  }
  expect(limitsMetric(metrics, 'splitguard_limit_fallbacks_total')).toBe(0);
});

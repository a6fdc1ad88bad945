// Cluster mode: a node whose Redis would evict keys at its maxmemory says so
// at its start (redis_evicts_limits, with the remedy): an evicted key lifts
// its limit, and under volatile-ttl a flood of failed authentications from
// many addresses evicted the accounts' rate keys first. A Redis without a
// maxmemory, or with noeviction, draws no warning.
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { useCluster } from '../../helpers/cluster.js';

const cluster = useCluster({ nodes: 1, nginx: false });

it.skipIf(cluster.skip)('warns of an evicting Redis at the start, and only then', async () => {
  const warned = () => cluster.nodes[0].logs().find((l) => l.event === 'redis_evicts_limits');
  const connected = () => cluster.nodes[0].logs().some((l) => l.event === 'redis_connected');
  const settle = async () => {
    for (let i = 0; i < 100 && !connected(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(connected()).toBe(true);
    // The check's two CONFIG round trips follow the connection.
    await new Promise((r) => setTimeout(r, 300));
  };
  await settle();
  expect(warned()).toBeUndefined();

  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const admin = new Redis(cluster.redis.url);
  try {
    await admin.config('SET', 'maxmemory', '64mb');
    await admin.config('SET', 'maxmemory-policy', 'volatile-ttl');
    await cluster.nodes[0].stop();
    await cluster.restart(0);
    await settle();
    expect(warned()).toMatchObject({ level: 'warn', policy: 'volatile-ttl', maxmemory: 64 * 1024 * 1024 });

    await admin.config('SET', 'maxmemory-policy', 'noeviction');
    await cluster.nodes[0].stop();
    await cluster.restart(0);
    await settle();
    expect(warned()).toBeUndefined();
  } finally {
    admin.disconnect();
  }
}, 60_000);

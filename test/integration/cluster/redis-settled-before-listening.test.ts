// A cluster node's threads listen only once their Redis connection has
// settled (connected and the live nodes counted, or failed, or 3 s passed):
// before, a node took requests at once and decided them alone with the whole
// limit (it knew of no other node yet), which Redis never learned, so each
// node of a rolling restart let up to a limit more through. Here Redis is
// reached through a loopback proxy that holds every connection's traffic for
// 1.5 s: every thread says Redis is connected before the node says it
// listens, and its first API request is decided in Redis, not by the node
// alone. (The decisions' timeout is 2 s, as in the other Redis tests, so
// that a busy machine does not fall back for being slow.)
import net from 'node:net';
import { expect, it } from 'vitest';
import { limits, request } from '../../helpers/client.js';
import { useClusterStores } from '../../helpers/cluster.js';
import { nodeMetric } from '../../helpers/cluster-nodes.js';
import { waitUntil } from '../../helpers/routes.js';
import { startServer, tempDataDir } from '../../helpers/server.js';

const HOLD_MS = 1500;
const stores = useClusterStores();

/** A TCP proxy to `port` that starts relaying each connection HOLD_MS after accepting it. */
async function holdingProxy(port: number): Promise<net.Server> {
  const proxy = net.createServer((client) => {
    client.pause();
    client.on('error', () => client.destroy());
    const timer = setTimeout(() => {
      const upstream = net.connect(port, '127.0.0.1');
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    }, HOLD_MS);
    client.on('close', () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return proxy;
}

it.skipIf(stores.skip)('decides the first request in Redis when Redis answers late', async () => {
  const env = stores.env();
  const proxy = await holdingProxy(Number(new URL(env.SPLITGUARD_REDIS_URL!).port));
  try {
    const redisUrl = `redis://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
    const node = stores.track(await startServer({
      dataDir: tempDataDir(),
      env: { ...env, SPLITGUARD_REDIS_URL: redisUrl, SPLITGUARD_NODE_NAME: 'late', SPLITGUARD_RATE_LIMIT_PER_MIN: '4', SPLITGUARD_REDIS_TIMEOUT_MS: '2000' },
    }));
    // Log lines carry the time they were made, on whichever thread: the
    // threads' lines reach stdout through the main thread, in no set order.
    const at = (event: string) => node.logs().filter((l) => l.event === event).map((l) => Date.parse(l.ts as string));
    const { value: connected } = await waitUntil(() => at('redis_connected'), (t) => t.length === node.ports.length, 5000);
    const [listening] = at('listening');
    for (const t of connected) expect(t).toBeLessThanOrEqual(listening!);
    const first = await request({ port: node.ports[0], ca: node.ca, path: '/v1/account', key: node.apiKey });
    expect(first.status).toBe(200);
    expect(limits(first)).toMatchObject({ limit: 4, remaining: 3 });
    expect(await nodeMetric(node, 'splitguard_limit_fallbacks_total')).toBe(0);
    expect(await nodeMetric(node, 'splitguard_redis_connected')).toBe(1);
  } finally {
    proxy.close();
  }
});

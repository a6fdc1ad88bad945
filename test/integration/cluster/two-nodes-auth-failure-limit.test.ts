// Failed API authentications are counted per client address across the
// cluster: 100 bad keys at once from one address, spread over two nodes
// sharing one Redis, get exactly 30 answers 401 and 70 answers 429 with
// Retry-After; a valid key from that address is still served on both nodes,
// and another address has its own count.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { tally } from '../../helpers/attack.js';
import { request } from '../../helpers/client.js';
import { startCluster, type TestCluster } from '../../helpers/cluster.js';
import { nodeMetric } from '../../helpers/cluster-nodes.js';
import type { TestServer } from '../../helpers/server.js';

let cluster: TestCluster;
let nodes: TestServer[] = [];
beforeAll(async () => {
  cluster = await startCluster({ nodes: 2, nginx: false, env: { SPLITGUARD_RATE_LIMIT_PER_MIN: undefined, SPLITGUARD_REDIS_TIMEOUT_MS: '2000' } });
  nodes = cluster.nodes;
});
afterAll(async () => {
  await cluster?.close();
});

const from = (node: TestServer, key: string, localAddress: string) => request({ port: node.ports[0], ca: node.ca, path: '/v1/ip/database', key, localAddress });

it('answers 30 failed authentications from one address across two nodes, then 429', async () => {
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => from(nodes[i % 2], `sk_live_racer${i}`, '127.0.8.1')));
  expect(tally(answers.map((a) => a.status))).toEqual({ 401: 30, 429: 70 });
  for (const a of answers.filter((x) => x.status === 429)) {
    expect(a.json).toMatchObject({ code: 'rate_limited', field: null });
    expect(Number(a.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(a.headers['retry-after'])).toBeLessThanOrEqual(60);
  }
  for (const node of nodes) {
    expect((await from(node, node.apiKey, '127.0.8.1')).status).toBe(200);
    expect((await from(node, 'sk_live_other', '127.0.8.2')).status).toBe(401);
    expect(await nodeMetric(node, 'splitguard_limit_fallbacks_total')).toBe(0);
  }
});

// Several splitguard servers sharing one test Redis for their limits: each
// its own process and data directory (this branch has no shared database),
// so each bootstraps its own account; the first account has id 1 on every
// node, which is all the limits key on. /metrics read back as numbers.
import { call } from './client.js';
import { metricValue } from './limits.js';
import type { TestRedis } from './redis.js';
import { type StartOptions, startServer, type TestServer } from './server.js';

export async function startNodes(redis: TestRedis, count: number, options: StartOptions = {}): Promise<TestServer[]> {
  const env = { SPLITGUARD_REDIS_URL: redis.url, SPLITGUARD_RATE_LIMIT_PER_MIN: undefined, ...options.env };
  const nodes = await Promise.all(Array.from({ length: count }, () => startServer({ ...options, env })));
  if (new Set(nodes.map((n) => n.accountId)).size !== 1) throw new Error(`the nodes' first accounts differ: ${nodes.map((n) => n.accountId)}`);
  return nodes;
}

/** One unlabelled metric of a node, read from its /metrics. */
export async function nodeMetric(node: TestServer, name: string, thread = 0): Promise<number> {
  const r = await call(node.ports[thread], node.ca, 'GET', '/metrics');
  if (r.status !== 200) throw new Error(`/metrics answered ${r.status}`);
  return metricValue(r.body, name);
}

/** Resolves once `check` holds for the metric on every node, or throws after `timeoutMs`. */
export async function untilMetric(nodes: TestServer[], name: string, check: (v: number) => boolean, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const values = await Promise.all(nodes.map((n) => nodeMetric(n, name)));
    if (values.every(check)) return;
    if (Date.now() > until) throw new Error(`${name} is still ${values.join(', ')} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

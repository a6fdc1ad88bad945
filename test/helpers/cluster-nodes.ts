// /metrics of a cluster node read back as numbers (the cluster itself:
// startCluster in cluster.ts).
import { call } from './client.js';
import { metricValue } from './limits.js';
import type { TestServer } from './server.js';

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

// Several splitguard nodes of one cluster for the tests of the cluster-wide
// limits: a private PostgreSQL (started here, stopped when the last node is
// closed) and the caller's Redis; node-0 starts first and bootstraps the
// cluster's account, whose key every node is given. /metrics read back as
// numbers.
import { call } from './client.js';
import { metricValue } from './limits.js';
import { startPostgres } from './postgres.js';
import type { TestRedis } from './redis.js';
import { type Env, type StartOptions, startServer, type TestServer } from './server.js';

export interface Nodes extends Array<TestServer> {
  /** The environment of cluster mode (for the CLI). */
  env: Env;
}

export async function startNodes(redis: TestRedis, count: number, options: StartOptions = {}): Promise<Nodes> {
  const pg = await startPostgres();
  const env: Env = { SPLITGUARD_DATABASE_URL: pg.url, SPLITGUARD_REDIS_URL: redis.url, SPLITGUARD_RATE_LIMIT_PER_MIN: undefined, ...options.env };
  const start = (i: number) => startServer({ ...options, env: { ...env, SPLITGUARD_NODE_NAME: `node-${i}` } });
  let first: TestServer;
  let rest: TestServer[];
  try {
    first = await start(0);
    rest = await Promise.all(Array.from({ length: count - 1 }, (_, i) => start(i + 1)));
  } catch (err) {
    pg.close();
    throw err;
  }
  // PostgreSQL goes once every node is closed.
  let open = count;
  const nodes = [first, ...rest].map((n): TestServer => ({
    ...n,
    apiKey: first.apiKey,
    accountId: first.accountId,
    async close() {
      await n.close();
      if (--open === 0) pg.close();
    },
  }));
  return Object.assign(nodes, { env });
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

// Helpers for tests of the limits against a real Redis: the process-shared
// tables a server thread would get, a link waiting until it is connected,
// and reading a counter back from /metrics' text.
import { FailureLimiter } from '../../src/http/failure-limiter.js';
import { SharedRateLimiter } from '../../src/http/rate-limit.js';
import type { RedisLink } from '../../src/limits/redis-link.js';
import type { Metrics } from '../../src/metrics.js';

/** Fresh limiter tables, as allocateSharedMemory() makes them (smaller). */
export function tables() {
  return {
    accounts: SharedRateLimiter.allocate(64),
    authFailures: FailureLimiter.allocate(16),
    loginAddresses: FailureLimiter.allocate(16),
    loginEmailAtAddress: FailureLimiter.allocate(16),
    loginEmails: FailureLimiter.allocate(16),
    signIns: FailureLimiter.allocate(16),
  };
}

/** Resolves once `link` would ask Redis (its connection is ready). */
export async function untilConnected(link: RedisLink, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!link.usable(Date.now())) {
    if (Date.now() > until) throw new Error('the Redis link did not connect');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The value of an unlabelled metric in Prometheus text. */
export function metricValue(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!m) throw new Error(`no ${name} in the metrics`);
  return Number(m[1]);
}

export function limitsMetric(metrics: Metrics, name: string): number {
  return metricValue(metrics.render(), name);
}

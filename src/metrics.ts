// Counters shared by every thread for /metrics. One SharedArrayBuffer holds a
// Float64Array region per thread; a thread only ever writes its own region
// (plain increments, no atomics), and /metrics sums the regions. Aligned
// 8-byte stores do not tear on the platforms we run on, so a reader sees each
// counter either before or after an increment.
//
// Every counter is declared here, once, with its labels; code increments it
// by its index. A gauge declared here lives in the same regions: exactly one
// thread sets it (the others leave their slot at 0), so the sum is its value.
// A stamp is a time (ms) each thread sets in its own slot; it is never
// rendered as it is (a sum of times means nothing), only read through
// oldest(), for a gauge the caller derives from it.

interface CounterDef {
  name: string;
  help: string;
  labels?: Record<string, string>;
  kind: 'counter' | 'gauge' | 'stamp';
}

const defs: CounterDef[] = [];
const byKey = new Map<string, number>();

function counter(name: string, help: string, labels?: Record<string, string>, kind: CounterDef['kind'] = 'counter'): number {
  const key = `${name}${JSON.stringify(labels ?? {})}`;
  let i = byKey.get(key);
  if (i === undefined) {
    i = defs.length;
    defs.push({ name, help, labels, kind });
    byKey.set(key, i);
  }
  return i;
}

const SHED_HELP = 'Connections closed by the connection guard, by rule';

const API_STATUSES = [200, 201, 202, 204, 400, 401, 403, 404, 405, 412, 413, 429, 500] as const;
/** Every series, by name: indexes into the shared counters (Metrics.inc). */
export const Metric = {
  apiResponses: Object.fromEntries(
    API_STATUSES.map((s) => [s, counter('splitguard_api_responses_total', 'API responses by HTTP status', { status: String(s) })]),
  ) as Record<number, number>,
  apiResponsesOther: counter('splitguard_api_responses_total', 'API responses by HTTP status', { status: 'other' }),
  authFailures: counter('splitguard_auth_failures_total', 'Requests refused for a missing or invalid API key'),
  redirects: counter('splitguard_redirects_total', 'Redirects served'),
  interceptAsn: counter('splitguard_intercepts_total', 'Visitors intercepted, by deciding rule', { rule: 'asn_blacklist' }),
  interceptKeyword: counter('splitguard_intercepts_total', 'Visitors intercepted, by deciding rule', { rule: 'org_keyword' }),
  interceptVpn: counter('splitguard_intercepts_total', 'Visitors intercepted, by deciding rule', { rule: 'vpn_proxy' }),
  interceptFeed: counter('splitguard_intercepts_total', 'Visitors intercepted, by deciding rule', { rule: 'range_feed' }),
  interceptCrawler: counter('splitguard_intercepts_total', 'Visitors intercepted, by deciding rule', { rule: 'crawler' }),
  checkFailed: counter('splitguard_check_failed_total', 'IP checks that failed and let the visitor through'),
  refreshUpdated: counter('splitguard_ipdb_refresh_total', 'Database refreshes by outcome', { outcome: 'updated' }),
  refreshUnchanged: counter('splitguard_ipdb_refresh_total', 'Database refreshes by outcome', { outcome: 'unchanged' }),
  refreshFailed: counter('splitguard_ipdb_refresh_total', 'Database refreshes by outcome', { outcome: 'failed' }),
  swaps: counter('splitguard_ipdb_swaps_total', 'Databases swapped in without a restart'),
  // The connection guard runs in the main thread, which counts these in its own region.
  shedPerAddress: counter('splitguard_connections_shed_total', SHED_HELP, { reason: 'per_address' }),
  shedGlobal: counter('splitguard_connections_shed_total', SHED_HELP, { reason: 'global' }),
  shedNotReading: counter('splitguard_connections_shed_total', SHED_HELP, { reason: 'not_reading' }),
  // Cluster-wide limits (limits/redis-link.ts); all 0 without SPLITGUARD_REDIS_URL.
  redisConnected: counter('splitguard_redis_connected', 'Server threads whose connection to Redis (SPLITGUARD_REDIS_URL) is up and answering; below the thread count, limits are decided per node', undefined, 'gauge'),
  redisNodes: counter('splitguard_redis_nodes', 'Live nodes at the last heartbeat through Redis: a node\'s share of a limit while Redis is away is the limit divided by this', undefined, 'gauge'),
  limitFallbacks: counter('splitguard_limit_fallbacks_total', 'Limit decisions made by this node alone because Redis was unreachable, resting after a failure, or slower than SPLITGUARD_REDIS_TIMEOUT_MS'),
  connections: counter('splitguard_connections', 'Client connections the server holds, as the connection guard last counted them', undefined, 'gauge'),
  // Each server thread's last successful click flush (0 in the main thread's region, which counts no clicks).
  clicksFlushedAt: counter('clicks_flushed_at', '', undefined, 'stamp'),
};

const COUNTERS = defs.length;

export class Metrics {
  readonly #all: Float64Array;
  readonly #mine: Float64Array;
  readonly #threads: number;

  static allocate(threads: number): SharedArrayBuffer {
    return new SharedArrayBuffer(8 * COUNTERS * threads);
  }

  constructor(buffer: SharedArrayBuffer, thread: number) {
    this.#all = new Float64Array(buffer);
    this.#threads = this.#all.length / COUNTERS;
    this.#mine = this.#all.subarray(thread * COUNTERS, (thread + 1) * COUNTERS);
  }

  inc(index: number, by = 1): void {
    this.#mine[index] += by;
  }

  /** Sets a gauge; only one thread may set a given gauge. */
  set(index: number, value: number): void {
    this.#mine[index] = value;
  }

  /** A counter or gauge summed over every thread (the main thread's view of the threads' gauges). */
  total(index: number): number {
    let sum = 0;
    for (let t = 0; t < this.#threads; t++) sum += this.#all[t * COUNTERS + index];
    return sum;
  }

  /** The earliest of the threads' stamps at `index`, ignoring slots never set (0); null when none is set. */
  oldest(index: number): number | null {
    let min: number | null = null;
    for (let t = 0; t < this.#threads; t++) {
      const v = this.#all[t * COUNTERS + index];
      if (v !== 0 && (min === null || v < min)) min = v;
    }
    return min;
  }

  apiStatus(status: number): void {
    this.#mine[Metric.apiResponses[status] ?? Metric.apiResponsesOther]++;
  }

  /** Prometheus text exposition of the summed counters and gauges plus gauges supplied by the caller. */
  render(gauges: { name: string; help: string; value: number; labels?: Record<string, string> }[] = []): string {
    const sums = new Float64Array(COUNTERS);
    for (let t = 0; t < this.#threads; t++) for (let i = 0; i < COUNTERS; i++) sums[i] += this.#all[t * COUNTERS + i];
    const lines: string[] = [];
    const seen = new Set<string>();
    const labelText = (l?: Record<string, string>) =>
      l && Object.keys(l).length ? `{${Object.entries(l).map(([k, v]) => `${k}="${v}"`).join(',')}}` : '';
    // Samples of one metric must be contiguous: group by name in first-seen order.
    for (const d of defs) {
      if (d.kind === 'stamp' || seen.has(d.name)) continue;
      seen.add(d.name);
      lines.push(`# HELP ${d.name} ${d.help}`, `# TYPE ${d.name} ${d.kind}`);
      defs.forEach((e, i) => {
        if (e.name === d.name) lines.push(`${e.name}${labelText(e.labels)} ${sums[i]}`);
      });
    }
    for (const g of gauges) {
      if (!seen.has(g.name)) {
        seen.add(g.name);
        lines.push(`# HELP ${g.name} ${g.help}`, `# TYPE ${g.name} gauge`);
      }
      lines.push(`${g.name}${labelText(g.labels)} ${g.value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

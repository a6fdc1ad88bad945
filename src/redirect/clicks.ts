// Click statistics without storage on the redirect path: each thread adds to
// in-memory counters per (route, UTC day), and a timer writes them to LMDB
// once a second in one transaction, adding to what is stored (a
// read-modify-write inside the write transaction, so threads and processes
// flushing at once never lose each other's counts). Shutdown flushes too.
import type { DayStats, Stores } from '../store/db.js';

export const FLUSH_MS = 1000;
export const DAY_MS = 86_400_000;

interface Pending {
  routeId: number;
  day: number;
  c: DayStats;
}

const zero = (): DayStats => ({
  clicks: 0, a: 0, b: 0, intercepted: 0, asn_blacklist: 0, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0,
  range_feed: 0, crawler: 0,
});

/** A stored day with every counter: fields a day written by an earlier version lacks are 0. */
const complete = (stored: DayStats | undefined): DayStats => ({ ...zero(), ...stored });

export class ClickRecorder {
  readonly #stores: Stores;
  #pending = new Map<number, Pending>();
  #flushing: Promise<void> = Promise.resolve();
  /** Wall time of the last successful flush (for the flush-lag metric). */
  lastFlushAt = Date.now();

  constructor(stores: Stores) {
    this.#stores = stores;
  }

  /** Counters of a route for today; the caller increments fields. Hot path: one Map lookup. */
  counters(routeId: number, now: number): DayStats {
    const day = Math.floor(now / DAY_MS);
    const key = routeId * 65536 + day;
    let p = this.#pending.get(key);
    if (p === undefined) {
      p = { routeId, day, c: zero() };
      this.#pending.set(key, p);
    }
    return p.c;
  }

  get pendingRoutes(): number {
    return this.#pending.size;
  }

  /** Writes everything pending; concurrent calls queue behind each other. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(() => this.#write());
    return this.#flushing;
  }

  async #write(): Promise<void> {
    if (this.#pending.size === 0) {
      this.lastFlushAt = Date.now();
      return;
    }
    const batch = this.#pending;
    this.#pending = new Map();
    const stats = this.#stores.stats;
    try {
      await this.#stores.root.transaction(() => {
        for (const p of batch.values()) {
          const key: [number, number] = [p.routeId, p.day];
          const stored = complete(stats.get(key));
          for (const f in p.c) stored[f as keyof DayStats] += p.c[f as keyof DayStats];
          stats.put(key, stored);
        }
      });
      this.lastFlushAt = Date.now();
    } catch (err) {
      // Keep the counts: merge them back for the next attempt.
      for (const [key, p] of batch) {
        const now = this.#pending.get(key);
        if (now) for (const f in p.c) now.c[f as keyof DayStats] += p.c[f as keyof DayStats];
        else this.#pending.set(key, p);
      }
      throw err;
    }
  }
}

/** The last `days` UTC days of a route's counters, oldest first, zero-filled. */
export function readWindow(stores: Stores, routeId: number, today: number, days = 7): { day: number; stats: DayStats }[] {
  const out: { day: number; stats: DayStats }[] = [];
  for (let d = today - days + 1; d <= today; d++) out.push({ day: d, stats: complete(stores.stats.get([routeId, d])) });
  return out;
}

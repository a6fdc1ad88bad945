// Click statistics: per route and UTC day, the counters of contract §4
// (redirect/clicks.ts gathers them in memory and adds them here once a
// second). Read from the source of truth: the local store on a single node,
// PostgreSQL in cluster mode.
import type { Backend, DayCounts } from './backend.js';
import type { DayStats } from './db.js';

export const DAY_MS = 86_400_000;

export const zeroDay = (): DayStats => ({
  clicks: 0, a: 0, b: 0, intercepted: 0, asn_blacklist: 0, org_keyword: 0, vpn_proxy: 0, carrier_whitelist: 0, check_failed: 0,
  range_feed: 0, crawler: 0,
});

/** A stored day with every counter: fields a day written by an earlier version lacks are 0. */
export const completeDay = (stored: Partial<DayStats> | undefined): DayStats => ({ ...zeroDay(), ...stored });

/** Adds `from`'s counters into `into`. */
export function addDay(into: DayStats, from: DayStats): void {
  for (const f in from) into[f as keyof DayStats] += from[f as keyof DayStats];
}

export class Stats {
  readonly #backend: Backend;

  constructor(backend: Backend) {
    this.#backend = backend;
  }

  add(days: readonly DayCounts[]): Promise<void> {
    return days.length === 0 ? Promise.resolve() : this.#backend.addClicks(days);
  }

  /** The last `days` UTC days of a route's counters up to `today`, oldest first, zero-filled. */
  async window(routeId: number, today: number, days = 7): Promise<{ day: number; stats: DayStats }[]> {
    const stored = await this.#backend.readDays(routeId, today - days + 1, today);
    const out: { day: number; stats: DayStats }[] = [];
    for (let d = today - days + 1; d <= today; d++) out.push({ day: d, stats: completeDay(stored.get(d)) });
    return out;
  }
}

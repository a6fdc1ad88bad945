// Click statistics without storage on the redirect path: each thread adds to
// in-memory counters per (route, UTC day), and a timer hands them to the
// statistics store (store/stats-store.ts) once a second as a batch, which
// it sends to the back end exactly once (retried as it is after a failure,
// kept, spilled past a bound, while the back end is away). Shutdown flushes too.
import { dayOf, routeDayKey } from '../days.js';
import type { DayCounts } from '../store/backend.js';
import type { DayStats } from '../store/db.js';
import { type Stats, zeroDay } from '../store/stats-store.js';

export const FLUSH_MS = 1000;

export class ClickRecorder {
  readonly #stats: Stats;
  #pending = new Map<number, DayCounts>();
  #flushing: Promise<void> = Promise.resolve();
  /** Wall time of the last successful flush (for the flush-lag metric). */
  lastFlushAt = Date.now();

  constructor(stats: Stats) {
    this.#stats = stats;
  }

  /** Counters of a route for today; the caller increments fields. Hot path: one Map lookup. */
  counters(routeId: number, now: number): DayStats {
    const day = dayOf(now);
    const key = routeDayKey(routeId, day);
    let p = this.#pending.get(key);
    if (p === undefined) {
      p = { routeId, day, counts: zeroDay() };
      this.#pending.set(key, p);
    }
    return p.counts;
  }

  /** Writes everything pending; concurrent calls queue behind each other. */
  flush(): Promise<void> {
    // After a failed flush (its caller has the error) the next one runs all the same.
    this.#flushing = this.#flushing.catch(() => {}).then(() => this.#write());
    return this.#flushing;
  }

  /** Hands the counters gathered so far to the statistics store as its next batch (a stop's, before it keeps its queue). */
  handOver(): void {
    const batch = this.#pending;
    this.#pending = new Map();
    this.#stats.enqueue([...batch.values()]);
  }

  async #write(): Promise<void> {
    this.handOver();
    await this.#stats.drain();
    this.lastFlushAt = Date.now();
  }
}

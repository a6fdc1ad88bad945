// Click statistics without storage on the redirect path: each thread adds to
// in-memory counters per (route, UTC day), and a timer hands them to the
// statistics store (store/stats-store.ts) once a second, which adds them to
// what is stored. Shutdown flushes too. A failed flush keeps its counts for
// the next one.
import type { DayCounts } from '../store/backend.js';
import type { DayStats } from '../store/db.js';
import { addDay, DAY_MS, type Stats, zeroDay } from '../store/stats-store.js';

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
    const day = Math.floor(now / DAY_MS);
    const key = routeId * 65536 + day;
    let p = this.#pending.get(key);
    if (p === undefined) {
      p = { routeId, day, c: zeroDay() };
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
    const batch = this.#pending;
    this.#pending = new Map();
    try {
      await this.#stats.add([...batch.values()]);
      this.lastFlushAt = Date.now();
    } catch (err) {
      // Keep the counts: merge them back for the next attempt.
      for (const [key, p] of batch) {
        const now = this.#pending.get(key);
        if (now) addDay(now.c, p.c);
        else this.#pending.set(key, p);
      }
      throw err;
    }
  }
}

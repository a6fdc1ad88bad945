// Per-variant clicks and unique visitors without storage on the redirect
// path: each thread counts non-intercepted visits per (route, UTC day,
// variant) and adds the visitor's hash to a HyperLogLog sketch in memory; the
// click flush (redirect/clicks.ts timer, once a second) hands them to the
// store, which adds the clicks and merges the sketches.
//
// Lifetimes: a thread's sketch of (route, day, variant) lives as long as it
// keeps receiving visitors. A flush writes the registers that grew since the
// previous flush and keeps the sketch (merging is idempotent, so the store
// may be sent registers it holds); a route with no visit since the previous
// flush is dropped. A sketch takes a few bytes per register it has seen, up
// to 32 KiB (hll.ts VisitorSketch), per variant of the routes visited in the
// last second or two, per thread.
import { routeDayKey } from '../days.js';
import { VisitorSketch } from './hll.js';
import type { Experiments, VisitCounts } from '../store/experiments-store.js';

interface Pending {
  routeId: number;
  day: number;
  clicks: number[];
  sketches: (VisitorSketch | null)[];
  /** Visited since the last flush. */
  touched: boolean;
}

export class VisitRecorder {
  readonly #experiments: Experiments;
  readonly #pending = new Map<number, Pending>();
  #flushing: Promise<void> = Promise.resolve();
  /** A batch taken and not yet acknowledged: sent again, as it is, by the next write. */
  #unsent: { seq: number; visits: VisitCounts[] } | null = null;

  constructor(experiments: Experiments) {
    this.#experiments = experiments;
  }

  /** One non-intercepted visit. Hot path: one Map lookup and a register update; allocates only at a route's first visit of a flush period and when a sketch's table grows. */
  record(routeId: number, day: number, variant: number, hi: number, lo: number): void {
    const key = routeDayKey(routeId, day);
    let p = this.#pending.get(key);
    if (p === undefined) {
      p = { routeId, day, clicks: [0, 0, 0, 0, 0, 0, 0, 0], sketches: [null, null, null, null, null, null, null, null], touched: true };
      this.#pending.set(key, p);
    }
    p.touched = true;
    p.clicks[variant]++;
    (p.sketches[variant] ??= new VisitorSketch()).add(hi, lo);
  }

  /**
   * Writes what changed; concurrent calls queue behind each other. A batch
   * whose write failed is kept as it is, number included, and sent again
   * before anything newer: its commit may have been taken with only the
   * answer lost, and under its number PostgreSQL counts it once
   * (store/batch-sequence.ts).
   */
  flush(): Promise<void> {
    // A failed write must not fail every later one: each flush starts after the last, however it ended.
    this.#flushing = this.#flushing.catch(() => {}).then(() => this.#write());
    return this.#flushing;
  }

  async #write(): Promise<void> {
    // PostgreSQL known to be away: nothing is taken or serialised. Each try
    // serialised every sketch with news (32 KiB each once dense) only to be
    // refused, every second on the redirect's thread: with 1,000 routes
    // visited during an outage, redirects waited a second.
    if (!this.#experiments.writable()) return;
    await this.#experiments.sendKeptVisits();
    if (this.#unsent !== null) {
      await this.#experiments.addVisits(this.#unsent.visits, this.#unsent.seq);
      this.#unsent = null;
    }
    // Numbered before anything is taken: the first number of a run may not be had (PostgreSQL away).
    const seq = await this.#experiments.nextVisitBatch();
    const visits = this.#take();
    if (visits.length === 0) return;
    this.#unsent = { seq, visits };
    await this.#experiments.addVisits(visits, seq);
    this.#unsent = null;
  }

  /**
   * At a stop, before the last flush: what is not written yet goes to the
   * local spill (cluster mode), which the last flush sends first and the
   * next start sends what it could not; returns the clicks kept. A batch
   * being written meanwhile goes too: taken, its kept copy counts once.
   */
  keepUnwritten(): number {
    if (!this.#experiments.keeps) return 0;
    const batches: { seq: number | null; visits: VisitCounts[] }[] = [];
    if (this.#unsent !== null) batches.push(this.#unsent);
    this.#unsent = null;
    batches.push({ seq: null, visits: this.#take() });
    return this.#experiments.keepVisits(batches);
  }

  /** What changed since the last take: the clicks, and the sketches that grew; routes not visited since are dropped. */
  #take(): VisitCounts[] {
    const visits: VisitCounts[] = [];
    for (const [key, p] of this.#pending) {
      if (!p.touched) {
        this.#pending.delete(key);
        continue;
      }
      p.touched = false;
      const clicks = p.clicks;
      p.clicks = [0, 0, 0, 0, 0, 0, 0, 0];
      const sketches = p.sketches.map((h) => h?.take() ?? null);
      visits.push({ routeId: p.routeId, day: p.day, clicks, sketches });
    }
    return visits;
  }
}

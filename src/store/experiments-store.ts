// Experiment data (contract §10): per-variant clicks and unique-visitor
// sketches per (route, UTC day), conversions counted once per (route, goal,
// visitor), and the click-id secret. Written and read through the back end
// (backend.ts), like the click statistics: the local store on a single node,
// PostgreSQL in cluster mode. Four databases in the local store (db.ts):
//
//   variant_days     [route, day] → {clicks: per variant}
//   sketches         [route, day, variant] → HyperLogLog (day 0: lifetime)
//   conversions      [route, goal, visitor hash] → the one counted conversion
//   conversion_days  [route, click day, goal] → {count, value: per variant}
//
// and the secret in meta under `secret:click_id`.
//
// Retention (SPLITGUARD_SKETCH_DAYS, N): the per-day sketches of days before
// today − N are deleted (pruneSketches: the server's first thread, at start
// and daily), and a visit of such a day (a batch kept at a stop, sent weeks
// later; a clock stepped back) goes into the lifetime sketch only. A reader
// counts a day's sketch only from today − N + 1 on (sketchesFrom): one day
// more is kept than read, so a prune at midnight on a clock a little ahead
// of the reader's never takes a day from under it. The lifetime sketches,
// the clicks per variant and the conversions stay.
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import type { Backend } from './backend.js';
import { BatchSequence } from './batch-sequence.js';
import { dayOf } from '../days.js';
import { keptBatches, oldestKept, type Stores } from './db.js';

/** One thread's visits to one route on one day since its last flush. */
export interface VisitCounts {
  routeId: number;
  day: number;
  /** Non-intercepted redirects per variant. */
  clicks: number[];
  /** Serialized sketches (experiments/hll.ts) per variant; null where nothing new was seen. */
  sketches: (Uint8Array | null)[];
}

export interface ConversionInput {
  routeId: number;
  /** The route's account (the handler has checked it owns the route), whose stored conversions the quota counts. */
  accountId: number;
  goal: string;
  /** The visitor hash from the click id, 16 hex digits. */
  visitor: string;
  variant: number;
  /** UTC day of the click. */
  day: number;
  at: number;
  value: number | null;
}

/**
 * Goals one route counts at most. A route's detail computes the statistics
 * of every goal it has (experiments/report.ts), and a click id converts once
 * per goal, so without a bound one client could give a route any number of
 * goals and make each detail cost seconds of its thread. The default goal
 * is not among them: a conversion that names no goal (DEFAULT_GOAL) is never
 * refused for the bound, and a route's detail lists it always, so a route
 * counts at most GOAL_LIMIT goals besides it.
 */
export const GOAL_LIMIT = 20;

/** The goal of a conversion that names none (contract §10). */
export const DEFAULT_GOAL = 'conversion';

/**
 * What became of a conversion: counted, a repeat of one counted before,
 * refused as a new goal past GOAL_LIMIT, refused because its account already
 * stores its quota of conversions (SPLITGUARD_CONVERSION_QUOTA; a repeat is
 * still a duplicate), or refused because its route was deleted before the
 * commit (the route was checked when the request came, and a deletion may
 * commit while the conversion waits for its group).
 *
 * The quota counts the conversions an account stores, in the back end's
 * write transaction (so racing requests, threads and nodes never pass it):
 * on LMDB a counter per account in meta (conversionCountKey), in PostgreSQL
 * the account's row of account_conversions; a route's deletion subtracts the
 * conversions it takes with it.
 */
export type ConversionOutcome = 'counted' | 'duplicate' | 'goal_limit' | 'quota' | 'route_gone';

/**
 * (route, goal) pairs known stored, as of a commit: a goal, once counted,
 * stays (a route's conversions go only with the route, whose id is never
 * used again), so its conversions need no goal check again. Per back end
 * and thread; looked up without building a key; bounded like the other
 * per-thread memos.
 */
export class GoalsSeen {
  static readonly MAX = 100_000;
  readonly #byRoute = new Map<number, Set<string>>();
  #size = 0;

  has(routeId: number, goal: string): boolean {
    return this.#byRoute.get(routeId)?.has(goal) ?? false;
  }

  /** Notes the pairs a commit stored (only once committed: a rolled-back goal is not), and returns the outcomes. */
  remember(items: readonly ConversionInput[], outcomes: ConversionOutcome[]): ConversionOutcome[] {
    items.forEach((item, i) => {
      if (outcomes[i] === 'goal_limit' || outcomes[i] === 'quota' || outcomes[i] === 'route_gone' || this.has(item.routeId, item.goal)) return;
      if (this.#size >= GoalsSeen.MAX) {
        this.#byRoute.clear();
        this.#size = 0;
      }
      let goals = this.#byRoute.get(item.routeId);
      if (!goals) this.#byRoute.set(item.routeId, (goals = new Set()));
      goals.add(item.goal);
      this.#size++;
    });
    return outcomes;
  }
}

interface Waiting {
  items: readonly ConversionInput[];
  resolve: (outcomes: ConversionOutcome[]) => void;
  reject: (err: unknown) => void;
}

/** The server's bounds on what experiments store (the configuration's; absent: none). */
export interface ExperimentLimits {
  /** SPLITGUARD_SKETCH_DAYS. */
  sketchDays?: number;
  /** SPLITGUARD_CONVERSION_QUOTA (0: no limit). */
  conversionQuota?: number;
}

/** The configuration's limits: what each server thread's store enforces, and what a cluster node publishes (pg/node.ts). */
export const limitsOf = (config: Pick<Config, 'sketchDays' | 'conversionQuota'>): Required<ExperimentLimits> => ({
  sketchDays: config.sketchDays,
  conversionQuota: config.conversionQuota,
});

/** Conversions committed together at most: a batch waiting behind a commit takes everything queued meanwhile, up to this. */
const GROUP_LIMIT = 2000;
/** How long the first request of a group waits for others before the commit starts. */
const GROUP_WINDOW_MS = 1;

export class Experiments {
  readonly #backend: Backend;
  /**
   * Group commit of conversions: requests that arrive while a commit is
   * under way (or in the same turn of the event loop) wait for the next one,
   * which writes them all in one transaction, in arrival order, and answers
   * each once it has committed. One transaction per request cost about 110 µs
   * of CPU each (bench:conversions, 3,600/s); see docs/performance.md.
   */
  #queue: Waiting[] = [];
  #queued = 0;
  #committing = false;

  /**
   * Cluster mode: the name PostgreSQL knows this thread's visit batches by
   * (`<node>/<slot>/visits`), and where a stop keeps the batches it could
   * not write (visit_spill, under [slot, seq]); null on a single node.
   */
  readonly #visitWriter: { name: string; slot: number; stores: Stores } | null;
  readonly #visitSeq = new BatchSequence();
  #visitSeqChecked = false;
  /** Wall time after which sendKeptVisits sends no further batch (finishBy: a stop's deadline). */
  #until = Infinity;
  /** SPLITGUARD_SKETCH_DAYS; Infinity (tests, the CLI): per-day sketches are kept and read whatever their age. */
  readonly #sketchDays: number;
  /** SPLITGUARD_CONVERSION_QUOTA: the conversions an account may store; 0 (tests, the CLI): no limit. */
  readonly conversionQuota: number;

  constructor(backend: Backend, visitWriter: { name: string; slot: number; stores: Stores } | null = null, limits: ExperimentLimits = {}) {
    this.#backend = backend;
    this.#visitWriter = visitWriter;
    this.#sketchDays = limits.sketchDays ?? Infinity;
    this.conversionQuota = limits.conversionQuota ?? 0;
  }

  /** The first day whose own sketch a report may count, as of UTC day `today`: the last SPLITGUARD_SKETCH_DAYS days. */
  sketchesFrom(today: number): number {
    return today - this.#sketchDays + 1;
  }

  /** The first day whose own sketch is written and kept, as of now: one day before sketchesFrom. */
  #keptFrom(): number {
    return this.sketchesFrom(dayOf(Date.now())) - 1;
  }

  /**
   * Deletes the per-day sketches of days before today − SPLITGUARD_SKETCH_DAYS
   * (the back end's pruneSketches: small transactions); stops between two
   * once `going` answers false. Resolves with how many went.
   */
  pruneSketches(going?: () => boolean): Promise<number> {
    const before = this.#keptFrom();
    return before === -Infinity ? Promise.resolve(0) : this.#backend.pruneSketches(before, going);
  }

  /** Whether a write may be tried now (false while PostgreSQL is known to be away). */
  writable(): boolean {
    return this.#backend.writable();
  }

  /**
   * The number of the next batch of visits (batch-sequence.ts; 0 on a single
   * node): the first call of a run reads the last number PostgreSQL took
   * from this writer, and rejects while it cannot.
   */
  async nextVisitBatch(): Promise<number> {
    if (this.#visitWriter === null) return 0;
    if (!this.#visitSeqChecked) {
      this.#visitSeq.above(await this.#backend.lastClickBatch(this.#visitWriter.name));
      this.#visitSeqChecked = true;
    }
    return this.#visitSeq.next();
  }

  /** Adds a batch of visits numbered by nextVisitBatch; sent again under the same number, it counts once. */
  addVisits(batch: readonly VisitCounts[], seq: number): Promise<void> {
    if (batch.length === 0) return Promise.resolve();
    return this.#backend.addVisits(batch, this.#visitWriter === null ? undefined : { writer: this.#visitWriter.name, seq }, this.#keptFrom());
  }

  /** Whether a stop keeps batches in a local spill (cluster mode): a single node's back end is its own store. */
  get keeps(): boolean {
    return this.#visitWriter !== null;
  }

  /**
   * At a stop: keeps `batches` (numbered, or not yet: seq null) in the local
   * spill, for the stop's last flush and, what that cannot send, the next
   * start of this writer (cluster mode: see keeps); returns the clicks kept.
   */
  keepVisits(batches: readonly { seq: number | null; visits: readonly VisitCounts[] }[]): number {
    if (this.#visitWriter === null) return 0;
    const { slot, stores } = this.#visitWriter;
    let clicks = 0;
    for (const { seq, visits } of batches) {
      if (visits.length === 0) continue;
      stores.visitSpill.putSync([slot, seq ?? this.#visitSeq.next()], visits);
      for (const v of visits) for (const c of v.clicks) clicks += c;
    }
    return clicks;
  }

  /** Clicks this writer keeps in the local spill (cluster mode), for the next start. */
  keptVisits(): number {
    if (this.#visitWriter === null) return 0;
    const { slot, stores } = this.#visitWriter;
    let clicks = 0;
    for (const { value } of keptBatches(stores.visitSpill, slot)) for (const v of value) for (const c of v.clicks) clicks += c;
    return clicks;
  }

  /** A stop's deadline (cluster mode): from `until` (wall time) on, sendKeptVisits sends no further batch. */
  finishBy(until: number): void {
    this.#until = until;
  }

  /**
   * Sends what a stop kept (an earlier run's, or this one's own before its
   * last flush), oldest first, each under its number (counted once if it had
   * been taken after all), and removes it once taken; before any new batch,
   * whose number must be above them. Stops at finishBy's deadline.
   */
  async sendKeptVisits(): Promise<void> {
    if (this.#visitWriter === null) return;
    const { slot, stores } = this.#visitWriter;
    for (let kept = oldestKept(stores.visitSpill, slot); kept !== undefined && Date.now() < this.#until; kept = oldestKept(stores.visitSpill, slot)) {
      this.#visitSeq.above(kept.seq);
      await this.#backend.addVisits(kept.value, { writer: this.#visitWriter.name, seq: kept.seq }, this.#keptFrom());
      await stores.visitSpill.remove([slot, kept.seq]);
    }
  }

  variantDays(routeId: number, from: number, to: number): Promise<Map<number, number[]>> {
    return this.#backend.readVariantDays(routeId, from, to);
  }

  sketches(routeId: number, days: readonly number[]): Promise<Map<number, (Uint8Array | undefined)[]>> {
    return this.#backend.readSketches(routeId, days);
  }

  /** What became of each, once committed (with whatever else was queued: see #queue), under conversionQuota. */
  addConversions(items: readonly ConversionInput[]): Promise<ConversionOutcome[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      this.#queued += items.length;
      if (!this.#committing) {
        this.#committing = true;
        setTimeout(() => void this.#commit(), GROUP_WINDOW_MS);
      }
    });
  }

  async #commit(): Promise<void> {
    while (this.#queue.length > 0) {
      // Take whole requests, up to GROUP_LIMIT items (a batch request of 100 is never split).
      let take = 0;
      let n = 0;
      while (take < this.#queue.length && (take === 0 || n + this.#queue[take].items.length <= GROUP_LIMIT)) n += this.#queue[take++].items.length;
      const group = this.#queue.splice(0, take);
      this.#queued -= n;
      const all = group.length === 1 ? group[0].items : group.flatMap((w) => w.items);
      try {
        const outcomes = await this.#backend.addConversions(all, this.conversionQuota);
        let at = 0;
        for (const w of group) {
          w.resolve(outcomes.slice(at, at + w.items.length));
          at += w.items.length;
        }
      } catch (err) {
        for (const w of group) w.reject(err);
      }
    }
    this.#committing = false;
  }

  conversionDays(routeId: number, from: number, to: number): Promise<Map<number, Map<string, number[]>>> {
    return this.#backend.readConversionDays(routeId, from, to);
  }

  /**
   * The conversions the account stores now, as conversionQuota counts them,
   * read from the back end that keeps the count (a read, no write). Null
   * when it cannot be read now: in cluster mode while PostgreSQL is away
   * (the replica does not hold the count, and an account read goes on
   * from the replica).
   */
  async storedConversions(accountId: number): Promise<number | null> {
    try {
      return await this.#backend.storedConversions(accountId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'storage_unavailable') return null;
      throw err;
    }
  }
}

/** Server secrets, created once per store (a cluster shares one), read from the local store. */
export class Secrets {
  readonly #stores: Stores;
  readonly #backend: Backend;

  constructor(stores: Stores, backend: Backend) {
    this.#stores = stores;
    this.#backend = backend;
  }

  /** The stored secret, or one made by `make` and stored if there is none yet (the first writer wins). */
  async get(name: string, make: () => Uint8Array): Promise<Uint8Array> {
    const raw = this.#stores.meta.get(`secret:${name}`) as Uint8Array | undefined;
    const stored = raw ? new Uint8Array(raw) : undefined;
    if (this.#backend.kind === 'lmdb') return stored ?? this.#backend.ensureSecret(name, make());
    // Cluster mode: PostgreSQL's is the cluster's (a node started on a data
    // directory from before the import holds its own); the local copy serves
    // only while PostgreSQL cannot be reached.
    try {
      return await this.#backend.ensureSecret(name, stored ?? make());
    } catch (err) {
      if (stored) return stored;
      throw err;
    }
  }
}

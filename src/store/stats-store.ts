// Click statistics: per route and UTC day, the counters of contract §4
// (redirect/clicks.ts gathers them in memory and hands them here once a
// second). Read from the source of truth: the local store on a single node,
// PostgreSQL in cluster mode.
//
// Exactly once: each hand-over becomes a batch with a number of its writer's
// sequence (a node's thread; batch-sequence.ts says how PostgreSQL takes
// each once), and the batches are sent oldest first, each retried as it is
// until the back end has taken it. While the back end is away, batches wait in memory,
// and past SPILL_DAYS route-days in the local LMDB (click_spill, under
// [slot, seq]), where they also outlive a restart of the node.
//
// What waits is bounded by the route-days visited, not by the seconds the
// back end is away: a hand-over is added into the last batch in memory as
// long as that batch has never been sent (an unsent batch's number promises
// nothing yet), so an outage keeps one entry per route and day. Each second
// its own batch, 50 routes visited for 12 s kept 650 route-days, and a
// stranger visiting 1,000 public links added 1,000 route-days a second and
// thread to the spill (single node, a failing disk: to memory) for as long
// as the outage lasted (docs/reliability.md, finding 118). Past the bound
// in memory the same holds in the spill: the route-days a hand-over brings
// that the batch in memory does not hold are added into the last spilled
// batch never sent (#openSpill); spilled whole, as a batch a second, they
// grew the spill again once more than SPILL_DAYS route-days were visited
// (60,000 links visited at 10,000 a second: 10,000 route-days every 5 s;
// finding 118, amended).
import { routeDayKey } from '../days.js';
import { log } from '../log.js';
import type { Backend, DayCounts } from './backend.js';
import { BatchSequence } from './batch-sequence.js';
import { type DayStats, keptBatches, oldestKept, type SpilledDay, type Stores } from './db.js';

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

/** DayCounts in click_spill's stored form (db.ts SpilledDay) and back. */
const toSpilled = (d: DayCounts): SpilledDay => ({ routeId: d.routeId, day: d.day, c: d.counts });
const fromSpilled = (d: SpilledDay): DayCounts => ({ routeId: d.routeId, day: d.day, counts: d.c });

/** Route-days kept in memory while the back end is away; beyond, batches go to the local LMDB. */
const SPILL_DAYS = 50_000;

/** Who hands batches over: the name PostgreSQL knows it by, and its slot in the local spill. */
export interface ClickWriter {
  name: string;
  slot: number;
}

/** A batch of counters under its sequence number (for the back end's exactly-once check). */
export interface ClickBatch {
  seq: number;
  days: readonly DayCounts[];
}

export class Stats {
  readonly #backend: Backend;
  readonly #stores: Stores | null;
  readonly #writer: ClickWriter | null;
  readonly #spillDays: number;
  readonly #queue: ClickBatch[] = [];
  #queuedDays = 0;
  /**
   * The last batch in memory while it has never been handed to the back end,
   * its days by route-day (routeDayKey, as ClickRecorder keys
   * them): later hand-overs are added into it. Closed (null) once drain
   * starts sending it or keepQueued moves it to the spill: a batch that may
   * have been taken is never changed. The index is made at the first
   * hand-over added in: with the back end answering, drain closes the batch
   * first, so the flush of every second makes none.
   */
  #open: { batch: ClickBatch; days: DayCounts[]; byKey: Map<number, DayCounts> | null } | null = null;
  /**
   * The number of the last spilled batch while it has never been handed to
   * the back end: route-days that do not fit in memory are added into it
   * (read, added to and written again). Closed (null) as #open is.
   */
  #openSpill: number | null = null;
  readonly #seq = new BatchSequence();
  /** Whether this run has read the last batch PostgreSQL took from its writer (#afterTaken). */
  #takenChecked = false;
  /** Wall time after which a drain sends no further batch (finishBy: a stop's deadline). */
  #until = Infinity;

  /** `stores` and `writer`: cluster mode, where batches may wait (and spill) while PostgreSQL is away. */
  constructor(backend: Backend, stores: Stores | null = null, writer: ClickWriter | null = null, spillDays = SPILL_DAYS) {
    this.#backend = backend;
    this.#stores = stores;
    this.#writer = writer;
    this.#spillDays = spillDays;
  }

  /**
   * Queues counters: added into the open batch (see #open), or as the next
   * batch (synchronous; the counters become the queue's, and a later
   * hand-over may be added into them).
   */
  enqueue(days: readonly DayCounts[]): void {
    if (days.length === 0) return;
    const open = this.#open;
    const spills = (more: number) => this.#stores !== null && this.#writer !== null && this.#queuedDays + more > this.#spillDays;
    if (open !== null) {
      const byKey = (open.byKey ??= new Map(open.days.map((d) => [routeDayKey(d.routeId, d.day), d])));
      let added = 0;
      for (const d of days) if (!byKey.has(routeDayKey(d.routeId, d.day))) added++;
      const fits = !spills(added);
      // What does not fit: the route-days the open batch does not hold, to the spill.
      const rest: DayCounts[] = [];
      for (const d of days) {
        const key = routeDayKey(d.routeId, d.day);
        const into = byKey.get(key);
        if (into) {
          addDay(into.counts, d.counts);
        } else if (fits) {
          byKey.set(key, d);
          open.days.push(d);
        } else {
          rest.push(d);
        }
      }
      if (fits) this.#queuedDays += added;
      else this.#spillOpen(rest);
      return;
    }
    if (spills(days.length)) {
      this.#spillOpen(days);
      return;
    }
    const seq = this.#seq.next();
    const own = Array.from(days);
    const batch = { seq, days: own };
    this.#queue.push(batch);
    this.#queuedDays += own.length;
    this.#open = { batch, days: own, byKey: null };
  }

  /**
   * Once per run, before the first batch goes (cluster mode): the batches
   * in memory numbered at or below the last one PostgreSQL took from this
   * writer are numbered again, above it. They were never sent, but the
   * clock gave them numbers from the past (it stepped back, or the machine
   * was restored from a snapshot), and PostgreSQL would have taken each
   * for one it had: acknowledged, counted nowhere.
   */
  async #afterTaken(): Promise<void> {
    if (!this.#writer || this.#takenChecked) return;
    const taken = await this.#backend.lastClickBatch(this.#writer.name);
    this.#takenChecked = true;
    if (taken <= this.#seq.last && (this.#queue[0]?.seq ?? Infinity) > taken) return;
    this.#seq.above(taken);
    for (const batch of this.#queue) if (batch.seq <= taken) batch.seq = this.#seq.next();
    this.#queue.sort((x, y) => x.seq - y.seq);
  }

  /**
   * At a stop, before the last drain: the batches waiting in memory go to
   * the local spill, which the last drain and, for what it cannot send, the
   * next start of this writer send, so a stop loses none of them however
   * slow or absent the back end (cluster mode; a single node's back end is
   * its own store). A batch being sent meanwhile goes too: if its commit is
   * taken, its kept copy is refused as already taken when it is sent again.
   * Returns the route-days kept.
   */
  keepQueued(): number {
    if (!this.#stores || !this.#writer) return 0;
    const kept = this.#queuedDays;
    for (const batch of this.#queue) this.#spill(batch.seq, batch.days);
    this.#queue.length = 0;
    this.#open = null;
    this.#openSpill = null;
    this.#queuedDays = 0;
    return kept;
  }

  /** Route-days waiting in memory (not spilled). */
  get queuedDays(): number {
    return this.#queuedDays;
  }

  /** Route-days this writer keeps in the local spill (cluster mode), for the next start. */
  keptDays(): number {
    if (!this.#stores || !this.#writer) return 0;
    let days = 0;
    for (const { value } of keptBatches(this.#stores.clickSpill, this.#writer.slot)) days += value.length;
    return days;
  }

  /** A stop's deadline (cluster mode): from `until` (wall time) on, a drain sends no further batch. */
  finishBy(until: number): void {
    this.#until = until;
  }

  /**
   * Sends every queued batch, oldest first (spilled ones included, from this
   * run or an earlier one), until finishBy's deadline; rejects at the first
   * the back end refuses, which stays queued, as it is, for the next call.
   */
  async drain(): Promise<void> {
    await this.#afterTaken();
    while (Date.now() < this.#until) {
      const spilled = this.#oldestSpilled();
      const memory = this.#queue[0];
      if (!spilled && !memory) return;
      const next = !memory || (spilled && spilled.seq < memory.seq) ? spilled! : memory;
      if (next === this.#open?.batch) this.#open = null;
      if (next !== memory && next.seq === this.#openSpill) this.#openSpill = null;
      await this.#backend.addClicks(next.days, this.#writer ? { writer: this.#writer.name, seq: next.seq } : undefined);
      if (next === memory) {
        // Unless keepQueued moved it to the spill meanwhile (a stop), whence it goes again.
        if (this.#queue[0] === memory) {
          this.#queue.shift();
          this.#queuedDays -= memory.days.length;
        }
      } else {
        // Taken by PostgreSQL: were this removal lost (a crash right now), the
        // batch would be sent again after the restart and refused as already taken.
        await this.#stores!.clickSpill.remove([this.#writer!.slot, next.seq]);
        log('info', 'click_spill_merged', { seq: next.seq, days: next.days.length });
      }
    }
  }

  #oldestSpilled(): ClickBatch | undefined {
    if (!this.#stores || !this.#writer) return undefined;
    const kept = oldestKept(this.#stores.clickSpill, this.#writer.slot);
    return kept && { seq: kept.seq, days: kept.value.map(fromSpilled) };
  }

  /**
   * Adds route-days into the open spill batch (see #openSpill), or spills
   * them as a new batch, which opens (cluster mode: the caller has checked
   * for stores and writer).
   */
  #spillOpen(days: readonly DayCounts[]): void {
    const seq = this.#openSpill;
    const stored = seq === null ? undefined : this.#stores!.clickSpill.get([this.#writer!.slot, seq]);
    if (seq === null || stored === undefined) {
      const next = this.#seq.next();
      this.#spill(next, days);
      this.#openSpill = next;
      return;
    }
    const merged = stored.map((d) => ({ routeId: d.routeId, day: d.day, c: completeDay(d.c) }));
    const byKey = new Map(merged.map((d) => [routeDayKey(d.routeId, d.day), d]));
    for (const d of days) {
      const into = byKey.get(routeDayKey(d.routeId, d.day));
      if (into) addDay(into.c, d.counts);
      else merged.push(toSpilled(d));
    }
    this.#stores!.clickSpill.putSync([this.#writer!.slot, seq], merged);
  }

  /** Puts a batch in the local spill (cluster mode: the caller has checked for stores and writer). */
  #spill(seq: number, days: readonly DayCounts[]): void {
    this.#stores!.clickSpill.putSync([this.#writer!.slot, seq], days.map(toSpilled));
  }

  /** Counters added at once (the CLI's import, tests): one batch, sent now. */
  add(days: readonly DayCounts[]): Promise<void> {
    this.enqueue(days);
    return this.drain();
  }

  /** The last `days` UTC days of a route's counters up to `today`, oldest first, zero-filled. */
  async window(routeId: number, today: number, days = 7): Promise<{ day: number; stats: DayStats }[]> {
    const stored = await this.#backend.readDays(routeId, today - days + 1, today);
    const out: { day: number; stats: DayStats }[] = [];
    for (let d = today - days + 1; d <= today; d++) out.push({ day: d, stats: completeDay(stored.get(d)) });
    return out;
  }
}

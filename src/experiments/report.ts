// The `experiment` object of GET /v1/routes/<id> (contract §10): per variant
// unique visitors (HyperLogLog, hll.ts), non-intercepted clicks and, per
// goal, conversions with the statistics of stats.ts, over the 7-day window
// and the route's life, and the sample-ratio check.
//
// Days are UTC. Conversions count on the day of their click (the click id's
// time), so a window's rates compare visitors with what those visitors did.
// `visitors` is the union of the days' sketches (a visitor seen on three days
// counts once). A rate's denominator is max(visitors, conversions): the
// estimate can fall a little under the true count, and a rate above 1 would
// be meaningless. A variant with no visitors has no statistics, whatever its
// conversions (they can be acknowledged before the visits' flush reaches the
// store): a rate of 1 and a p-value from nothing would read as a result.
//
// The SRM check compares visitors with the current weights, allowing for the
// sketches' own error (stats.ts srm), and counting only
// days after the weights last changed (the day of a change mixes two
// splits): from the UTC day after weightsChangedAt, at most the last
// SRM_DAYS of them, or from the creation day if they never changed. Until
// such a day exists its p_value is null. Only days whose sketches are still
// kept count (SPLITGUARD_SKETCH_DAYS, Experiments.sketchesFrom): a day past
// retention keeps its clicks but not its visitors, so a route idle since then
// has its check on the recent days it has, or none (p_value null), rather
// than on sketches half deleted or gone.
//
// The probabilities of being best are most of a report's cost (about 1-3 ms
// per goal and period on 8 arms; 21 goals twice). They are a pure function of
// the (conversions, visitors) pairs, so each thread keeps the latest results
// by those pairs (BestMemo): the console's route page polls the detail every
// second, and between two click flushes nothing it is computed from changes.
// The key is the counts themselves, never a route or a time, so a new
// visitor, conversion or variant gives a new key and can never be answered
// from an older one.
import { dayOf, isoDay } from '../days.js';
import { Hll, RELATIVE_ERROR } from './hll.js';
import { probBest, relativeLift, srm, wilson, zTestPValue } from './stats.js';
import type { Experiments } from '../store/experiments-store.js';
import { type Route, VARIANT_KEYS, variantsOf } from '../store/routes-store.js';
import { DEFAULT_GOAL } from '../store/experiments-store.js';

const WINDOW_DAYS = 7;
/** The last UTC day a day number may name (PostgreSQL's day columns are integers). */
const LAST_DAY = 2 ** 31 - 2;
/** Where the lifetime sketches are kept (store/experiments-store.ts): day 0 is never a real day. */
const LIFETIME = 0;
/**
 * The lifetime SRM check after a weight change counts at most the last this
 * many days with visits: each is a sketch per variant read and merged on
 * every detail request, and a route years past its last change made that
 * 112 ms and 95 MB of reads a request (the tenant attack review of
 * 2026-11-29). A split that breaks shows within days; the window's check
 * covers the last 7.
 */
const SRM_DAYS = 28;

const round = (x: number) => Math.round(x * 1e6) / 1e6;

/**
 * probBest's results by its arguments, the most recently used kept: at most
 * BestMemo.MAX entries (each about 8 numbers and a key of some 100
 * characters, so some 300 bytes: about 1.2 MB a thread at most), a route's
 * report using up to 42 of them (21 goals, window and lifetime), so the
 * latest hundred or so routes' reports stay in it. A Map keeps insertion
 * order: a hit is moved to the end, and the oldest (first) entry goes when
 * the memo is full. The results are frozen: every report shares them.
 */
export class BestMemo {
  static readonly MAX = 4096;
  readonly #entries = new Map<string, readonly (number | null)[]>();

  /** probBest(arms), computed once for the same arms while they are remembered. */
  get(arms: readonly ({ conversions: number; visitors: number } | null)[]): readonly (number | null)[] {
    // "x/n" per arm, "-" for an arm left out: every input probBest reads, in order.
    const key = arms.map((a) => (a === null ? '-' : `${a.conversions}/${a.visitors}`)).join(',');
    let best = this.#entries.get(key);
    if (best !== undefined) {
      this.#entries.delete(key);
    } else {
      best = Object.freeze(probBest(arms));
      if (this.#entries.size >= BestMemo.MAX) this.#entries.delete(this.#entries.keys().next().value!);
    }
    this.#entries.set(key, best);
    return best;
  }

  get size(): number {
    return this.#entries.size;
  }
}

/** This thread's memo (each server thread has its own module instance). */
const bestMemo = new BestMemo();
const roundPair = (p: [number, number] | null) => (p === null ? null : ([round(p[0]), round(p[1])] as [number, number]));

interface Period {
  visitors: number[];
  clicks: number[];
  /** goal → conversions per variant. */
  conversions: Map<string, number[]>;
  /** Visitors since the weights last changed, for the SRM check; null when no such day is in the period. */
  srmVisitors: number[] | null;
}

function union(rows: ((Uint8Array | undefined)[] | undefined)[], count: number): number[] {
  const out: number[] = [];
  for (let v = 0; v < count; v++) {
    const forms: Uint8Array[] = [];
    for (const row of rows) {
      const bytes = row?.[v];
      if (bytes) forms.push(bytes);
    }
    out.push(Math.round(Hll.unionEstimate(forms)));
  }
  return out;
}

function goalStats(count: number[], visitors: number[]) {
  const n = visitors.map((v, i) => (v > 0 ? Math.max(v, count[i] ?? 0) : 0));
  const x = n.map((_, i) => count[i] ?? 0);
  const best = bestMemo.get(n.map((nv, i) => (nv > 0 ? { conversions: x[i], visitors: nv } : null)));
  return n.map((nv, i) => {
    const lift = i === 0 ? null : relativeLift(x[i], nv, x[0], n[0]);
    return {
      count: x[i],
      rate: nv > 0 ? round(x[i] / nv) : null,
      ci95: roundPair(wilson(x[i], nv)),
      lift: lift === null ? null : round(lift.lift),
      lift_ci95: lift === null ? null : roundPair(lift.ci95),
      p_value: i === 0 ? null : (() => {
        const p = zTestPValue(x[i], nv, x[0], n[0]);
        return p === null ? null : round(p);
      })(),
      prob_best: best[i] === null ? null : round(best[i]!),
    };
  });
}

function view(period: Period, route: Route, goals: string[]) {
  const variants = variantsOf(route);
  const perGoal = new Map(goals.map((g) => [g, goalStats(period.conversions.get(g) ?? [], period.visitors)]));
  const check = period.srmVisitors === null ? { p_value: null, alert: false } : srm(period.srmVisitors, variants.map((v) => v.weight), RELATIVE_ERROR);
  return {
    goals,
    variants: variants.map((v, i) => ({
      key: VARIANT_KEYS[i],
      weight: v.weight,
      visitors: period.visitors[i],
      clicks: period.clicks[i] ?? 0,
      conversions: Object.fromEntries(goals.map((g) => [g, perGoal.get(g)![i]])),
    })),
    srm: { p_value: check.p_value === null ? null : round(check.p_value), alert: check.alert },
  };
}

/** The experiment object for a route, as of UTC day `today`. */
export async function experimentReport(experiments: Experiments, route: Route, today: number) {
  const count = variantsOf(route).length;
  const created = dayOf(Date.parse(route.createdAt));
  const srmFrom = route.weightsChangedAt ? dayOf(Date.parse(route.weightsChangedAt)) + 1 : created;
  const from = today - WINDOW_DAYS + 1;

  // Every stored day, those after `today` too: counted while the clock ran
  // ahead (then stepped back), they belong to the lifetime as much as any.
  const allDays = await experiments.variantDays(route.id, 1, LAST_DAY);
  const allConversions = await experiments.conversionDays(route.id, 1, LAST_DAY);
  const windowDays = Array.from({ length: WINDOW_DAYS }, (_, i) => from + i);
  // Lifetime SRM needs the daily sketches since the change, the last SRM_DAYS of them; without a change, the lifetime sketch is the same thing.
  const keptFrom = Math.max(srmFrom, experiments.sketchesFrom(today));
  const srmDays = route.weightsChangedAt ? [...allDays.keys()].filter((d) => d >= keptFrom).sort((x, y) => x - y).slice(-SRM_DAYS) : [];
  const sketches = await experiments.sketches(route.id, [...new Set([LIFETIME, ...windowDays, ...srmDays])]);

  const sum = (days: Iterable<[number, number[]]>, inPeriod: (d: number) => boolean) => {
    const out: number[] = new Array(count).fill(0);
    for (const [d, clicks] of days) if (inPeriod(d)) clicks.forEach((c, i) => (out[i] = (out[i] ?? 0) + c));
    return out;
  };
  const conversions = (inPeriod: (d: number) => boolean) => {
    const out = new Map<string, number[]>();
    for (const [d, goals] of allConversions) {
      if (!inPeriod(d)) continue;
      for (const [goal, c] of goals) {
        const into = out.get(goal) ?? [];
        c.forEach((n, i) => (into[i] = (into[i] ?? 0) + (n ?? 0)));
        out.set(goal, into);
      }
    }
    return out;
  };
  const inWindow = (d: number) => d >= from && d <= today;
  const windowSrmDays = windowDays.filter((d) => d >= srmFrom);

  // The window's SRM days are its own days unless the weights changed within it (then the same union serves both).
  const windowVisitors = union(windowDays.map((d) => sketches.get(d)), count);
  const lifeVisitors = union([sketches.get(LIFETIME)], count);
  const win: Period = {
    visitors: windowVisitors,
    clicks: sum(allDays, inWindow),
    conversions: conversions(inWindow),
    srmVisitors: windowSrmDays.length === WINDOW_DAYS ? windowVisitors : windowSrmDays.length > 0 ? union(windowSrmDays.map((d) => sketches.get(d)), count) : null,
  };
  const life: Period = {
    visitors: lifeVisitors,
    clicks: sum(allDays, () => true),
    conversions: conversions(() => true),
    srmVisitors: !route.weightsChangedAt ? lifeVisitors : srmDays.length > 0 ? union(srmDays.map((d) => sketches.get(d)), count) : null,
  };
  const goals = [...new Set([DEFAULT_GOAL, ...life.conversions.keys()])].sort();
  return {
    window: { from: isoDay(from), to: isoDay(today) },
    ...view(win, route, goals),
    lifetime: view(life, route, goals),
  };
}

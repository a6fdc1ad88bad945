// Failures per exact key over a rolling minute, shared by every server
// thread: failed API authentications per client address, failed console
// sign-ins per address, per (email, address) and per email. Keys are 16
// bytes (an address as http/client-ip.ts normalizes it, or failureKey() of
// anything else), compared whole: two callers never share a count, so one
// cannot lock another out by landing in the same slot.
//
// Memory is bounded: the table is set-associative. A key hashes (with a
// per-process random seed, so a stranger cannot aim at a set) to one set of
// WAYS entries; a key not in its set takes an empty or expired entry, else
// the one with the fewest failures, which loses its count. A throttled
// key is only evicted by WAYS keys at least as throttled in the same set.
//
// Layout, one SharedArrayBuffer viewed as Int32Array:
//
//   [ seed | pad x3 ]  then per set:  [ lock | entry 0 ... entry WAYS-1 ]
//   entry: [ key0 key1 key2 key3 | lastTick | total | bucket 0 ... bucket BUCKETS-1 ]
//
// Time runs in ticks of TICK_MS; bucket (t % BUCKETS) counts the failures of
// tick t, `total` is the sum of the buckets for the BUCKETS ticks up to
// lastTick. lastTick 0 marks an empty entry (tick 0 is in 1970). A set is
// guarded by a spin lock held for a few dozen instructions, never an await.
import { createHash, randomInt } from 'node:crypto';
import { countInWindow, oldestCounted, rollWindow } from './rolling-window.js';

const TICK_MS = 5_000;
const BUCKETS = 12; // 12 x 5 s: a rolling minute
const WAYS = 8;
const ENTRY = 6 + BUCKETS;
const SET = 1 + WAYS * ENTRY;
const HEADER = 4;
const LAST = 4;
const TOTAL = 5;

export interface Verdict {
  allowed: boolean;
  /** The limit applied (in a cluster with Redis away, this node's share of the configured one). */
  limit: number;
  /** Failures counted for the key in the window, this one included. */
  count: number;
  /** Whole seconds until the oldest counted failure leaves the window (1..60). */
  retryAfter: number;
}

/** A 16-byte limiter key for a string (an email, or an email and an address joined). */
export function failureKey(...parts: (string | Uint8Array)[]): Uint8Array {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return Uint8Array.from(h.digest().subarray(0, 16));
}

export class FailureLimiter {
  readonly #table: Int32Array;
  readonly #sets: number;
  readonly #key = new Int32Array(4);
  readonly #keyBytes = new Uint8Array(this.#key.buffer);

  /** `sets` (a power of two) x WAYS keys at most are tracked at once. */
  static allocate(sets: number): SharedArrayBuffer {
    if (sets <= 0 || (sets & (sets - 1)) !== 0) throw new Error('sets must be a power of two');
    const buffer = new SharedArrayBuffer((HEADER + sets * SET) * 4);
    new Int32Array(buffer)[0] = randomInt(1, 0x7fffffff);
    return buffer;
  }

  constructor(buffer: SharedArrayBuffer) {
    this.#table = new Int32Array(buffer);
    this.#sets = (this.#table.length - HEADER) / SET;
  }

  /** Counts one failure for `key` if the key has fewer than `limit` in the last minute. */
  hit(key: Uint8Array, limit: number, nowMs = Date.now()): Verdict {
    return this.#locked(key, nowMs, (entry, tick) => {
      const a = this.#table;
      const allowed = a[entry + TOTAL] < limit;
      if (allowed) countInWindow(a, entry + LAST, BUCKETS, tick);
      return { allowed, limit, count: a[entry + TOTAL], retryAfter: this.#retryAfter(entry, tick, nowMs) };
    });
  }

  /** Failures counted for `key` in the last minute. */
  count(key: Uint8Array, nowMs = Date.now()): number {
    return this.#locked(key, nowMs, (entry) => this.#table[entry + TOTAL]);
  }

  /**
   * Takes back one failure counted at `atMs` (an attempt counted up front
   * that turned out to succeed), if it is still in the window.
   */
  release(key: Uint8Array, atMs: number, nowMs = Date.now()): void {
    const at = Math.floor(atMs / TICK_MS);
    this.#locked(key, nowMs, (entry, tick) => {
      const bucket = entry + 6 + (at % BUCKETS);
      if (tick - at < BUCKETS && this.#table[bucket] > 0) {
        this.#table[bucket]--;
        this.#table[entry + TOTAL]--;
      }
    });
  }

  /** Runs `work` on the key's entry, rolled forward to now, under its set's lock. */
  #locked<T>(key: Uint8Array, nowMs: number, work: (entry: number, tick: number) => T): T {
    const a = this.#table;
    const k = this.#key;
    this.#keyBytes.set(key.subarray(0, 16));
    let h = a[0];
    for (let i = 0; i < 4; i++) {
      h = Math.imul(h ^ k[i], 0x9e3779b1);
      h ^= h >>> 15;
    }
    const set = HEADER + ((h >>> 0) % this.#sets) * SET;
    const tick = Math.floor(nowMs / TICK_MS);
    while (Atomics.compareExchange(a, set, 0, 1) !== 0) {
      // another thread holds this set for a few nanoseconds
    }
    try {
      return work(this.#entry(set, tick), tick);
    } finally {
      Atomics.store(a, set, 0);
    }
  }

  /** The key's entry in `set` (taking one over if it has none), with its buckets rolled to `tick`. */
  #entry(set: number, tick: number): number {
    const a = this.#table;
    const k = this.#key;
    let victim = -1;
    for (let w = 0; w < WAYS; w++) {
      const e = set + 1 + w * ENTRY;
      const last = a[e + LAST];
      if (last !== 0 && a[e] === k[0] && a[e + 1] === k[1] && a[e + 2] === k[2] && a[e + 3] === k[3]) {
        rollWindow(a, e + LAST, BUCKETS, tick);
        return e;
      }
      if (victim < 0 || this.#weaker(e, victim, tick)) victim = e;
    }
    a.set(k, victim);
    a.fill(0, victim + TOTAL, victim + ENTRY);
    a[victim + LAST] = tick;
    return victim;
  }

  /** Whether entry `e` is a better one to give up than entry `than`: empty or expired first, then fewer failures. */
  #weaker(e: number, than: number, tick: number): boolean {
    const a = this.#table;
    const live = (x: number) => a[x + LAST] !== 0 && tick - a[x + LAST] < BUCKETS && a[x + LAST] - tick < BUCKETS;
    if (!live(e)) return live(than) || a[e + LAST] < a[than + LAST];
    if (!live(than)) return false;
    return a[e + TOTAL] < a[than + TOTAL] || (a[e + TOTAL] === a[than + TOTAL] && a[e + LAST] < a[than + LAST]);
  }

  #retryAfter(e: number, tick: number, nowMs: number): number {
    const age = oldestCounted(this.#table, e + LAST, BUCKETS, tick);
    if (age < 0) return 1;
    // That tick's failures leave the window when tick - age + BUCKETS begins.
    return Math.max(1, Math.ceil(((tick - age + BUCKETS) * TICK_MS - nowMs) / 1000));
  }
}

// A rolling one-minute request limit shared by every server thread.
//
// Layout: one SharedArrayBuffer, viewed as Int32Array, of `capacity` slots of
// SLOT_INTS integers each:
//
//   slot:  [ key | lock | lastSecond | total | bucket 0 ... bucket 59 ]
//
// [ lastSecond | total | buckets ] is a rolling window of 60 one-second
// buckets (rolling-window.ts): a hit first expires the buckets of the seconds
// that passed since lastSecond, so the window rolls second by second and
// costs O(1) amortised. A slot is guarded by a spin lock
// (the critical section is a few dozen instructions, never an await).
//
// A slot is found by open addressing on the key (an account id); a key,
// once placed, stays. Failures per client address, which strangers choose,
// use the bounded, evicting table of failure-limiter.ts instead.

import { countInWindow, oldestCounted, rollWindow } from './rolling-window.js';

const WINDOW = 60;
/** 2023-11-14T22:13:20Z: the table's seconds count from here, in an Int32 until 2091. */
const EPOCH_S = 1_700_000_000;
const SLOT_INTS = 4 + WINDOW;
const KEY = 0;
const LOCK = 1;
const LAST = 2;
const TOTAL = 3;

export interface Verdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (1..60). */
  resetSeconds: number;
}

export class SharedRateLimiter {
  readonly #table: Int32Array;
  readonly #mask: number;

  /** capacity (of keys) must be a power of two. */
  static allocate(capacity: number): SharedArrayBuffer {
    if (capacity <= 0 || (capacity & (capacity - 1)) !== 0) throw new Error('capacity must be a power of two');
    return new SharedArrayBuffer(capacity * SLOT_INTS * 4);
  }

  constructor(buffer: SharedArrayBuffer) {
    this.#table = new Int32Array(buffer);
    this.#mask = this.#table.length / SLOT_INTS - 1;
  }

  #slot(key: number): number {
    const a = this.#table;
    let h = Math.imul(key, 0x9e3779b1) >>> 0;
    h ^= h >>> 15;
    for (let probe = 0; probe <= this.#mask; probe++) {
      const base = ((h + probe) & this.#mask) * SLOT_INTS;
      const k = Atomics.load(a, base + KEY);
      if (k === key) return base;
      if (k === 0) {
        const prev = Atomics.compareExchange(a, base + KEY, 0, key);
        if (prev === 0 || prev === key) return base;
      }
    }
    return -1;
  }

  /**
   * Counts one request for `key` (a non-zero 32-bit integer) if it fits under
   * `limit` in the last minute; with count = false only tells whether one
   * more would fit. A full keyed table lets the request through.
   */
  hit(key: number, limit: number, nowMs = Date.now(), count = true): Verdict {
    const base = this.#slot(key | 0 || 1);
    if (base < 0) return { allowed: true, limit, remaining: limit, resetSeconds: WINDOW };
    return this.#hitSlot(base, limit, nowMs, count);
  }

  #hitSlot(base: number, limit: number, nowMs: number, count: boolean): Verdict {
    const a = this.#table;
    // Seconds since EPOCH_S: an Int32 of Unix seconds runs out in 2038.
    const now = Math.floor(nowMs / 1000) - EPOCH_S;
    while (Atomics.compareExchange(a, base + LOCK, 0, 1) !== 0) {
      // another thread holds this slot for a few nanoseconds
    }
    let total: number;
    let allowed: boolean;
    let oldest: number;
    try {
      rollWindow(a, base + LAST, WINDOW, now);
      allowed = a[base + TOTAL] < limit;
      if (allowed && count) countInWindow(a, base + LAST, WINDOW, now);
      total = a[base + TOTAL];
      oldest = oldestCounted(a, base + LAST, WINDOW, now);
    } finally {
      Atomics.store(a, base + LOCK, 0);
    }
    const reset = oldest < 0 ? WINDOW : WINDOW - oldest;
    return { allowed, limit, remaining: Math.max(0, limit - total), resetSeconds: reset };
  }
}

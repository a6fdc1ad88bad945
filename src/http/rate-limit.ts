// A rolling one-minute request limit shared by every server thread.
//
// Layout: one SharedArrayBuffer, viewed as Int32Array, of `capacity` slots of
// SLOT_INTS integers each:
//
//   slot:  [ key | lock | lastSecond | total | bucket 0 ... bucket 59 ]
//
// bucket (s % 60) counts the requests accepted in second s; `total` is the sum
// of the buckets for the 60 seconds up to `lastSecond`. A hit first expires
// the buckets of the seconds that passed since lastSecond, so the window rolls
// second by second and costs O(1) amortised. A slot is guarded by a spin lock
// (the critical section is a few dozen instructions, never an await).
//
// Keyed tables (accounts) find a slot by open addressing on the key; a key,
// once placed, stays. Hashed tables (client IPs) index by hash alone and
// share a slot on collision, which can only make the limit stricter. A
// hashed table also counts every counted hit in one more slot after the
// others, the sum: since each slot counts a subset of those hits, a sum
// under a limit means no key can be at it (mayRefuse), and a gate can skip
// computing the key at all.

const WINDOW = 60;
const SLOT_INTS = 4 + WINDOW;
const KEY = 0;
const LOCK = 1;
const LAST = 2;
const TOTAL = 3;
const UNCAPPED = 0x7fffffff;

export interface Verdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (1..60). */
  resetSeconds: number;
}

export class SharedRateLimiter {
  readonly #a: Int32Array;
  readonly #mask: number;
  readonly #keyed: boolean;
  /** Base of the sum slot (hashed tables). */
  readonly #sum: number;

  /** capacity (of keys or hash slots) must be a power of two; one more slot holds the sum. */
  static allocate(capacity: number): SharedArrayBuffer {
    if (capacity <= 0 || (capacity & (capacity - 1)) !== 0) throw new Error('capacity must be a power of two');
    return new SharedArrayBuffer((capacity + 1) * SLOT_INTS * 4);
  }

  constructor(buffer: SharedArrayBuffer, keyed: boolean) {
    this.#a = new Int32Array(buffer);
    this.#mask = this.#a.length / SLOT_INTS - 2;
    this.#sum = (this.#mask + 1) * SLOT_INTS;
    this.#keyed = keyed;
  }

  #slot(key: number): number {
    const a = this.#a;
    let h = Math.imul(key, 0x9e3779b1) >>> 0;
    h ^= h >>> 15;
    if (!this.#keyed) return (h & this.#mask) * SLOT_INTS;
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
   * Whether one more request for `key` would fit, without counting it: the
   * cheap form of hit(key, limit, now, false) for a gate that almost always
   * passes.
   */
  allows(key: number, limit: number, nowMs = Date.now()): boolean {
    const base = this.#slot(key | 0 || 1);
    return base < 0 || this.#fits(base, limit, nowMs);
  }

  /**
   * Hashed tables: whether any key could be refused at `limit` now. False
   * when the sum of every hit counted in the last minute is under it.
   * Keyed tables keep no sum and always answer true.
   */
  mayRefuse(limit: number, nowMs = Date.now()): boolean {
    return this.#keyed || !this.#fits(this.#sum, limit, nowMs);
  }

  /**
   * Counts one request for `key` (a non-zero 32-bit integer) if it fits under
   * `limit` in the last minute; with count = false only tells whether one
   * more would fit. A full keyed table lets the request through.
   */
  hit(key: number, limit: number, nowMs = Date.now(), count = true): Verdict {
    const base = this.#slot(key | 0 || 1);
    if (base < 0) return { allowed: true, limit, remaining: limit, resetSeconds: WINDOW };
    const verdict = this.#hitSlot(base, limit, nowMs, count);
    if (count && verdict.allowed && !this.#keyed) this.#hitSlot(this.#sum, UNCAPPED, nowMs, true);
    return verdict;
  }

  /** A slot's `total` only shrinks as the window rolls: one under the limit (read without the lock) is a sure yes. */
  #fits(base: number, limit: number, nowMs: number): boolean {
    const a = this.#a;
    if (Math.floor(nowMs / 1000) - a[base + LAST] >= WINDOW || a[base + TOTAL] < limit) return true;
    return this.#hitSlot(base, limit, nowMs, false).allowed;
  }

  #hitSlot(base: number, limit: number, nowMs: number, count: boolean): Verdict {
    const a = this.#a;
    const now = Math.floor(nowMs / 1000);
    while (Atomics.compareExchange(a, base + LOCK, 0, 1) !== 0) {
      // another thread holds this slot for a few nanoseconds
    }
    let total: number;
    let allowed: boolean;
    let reset: number;
    try {
      const last = a[base + LAST];
      total = a[base + TOTAL];
      if (now - last >= WINDOW) {
        a.fill(0, base + 4, base + SLOT_INTS);
        total = 0;
      } else {
        for (let s = last + 1; s <= now; s++) {
          const b = base + 4 + (s % WINDOW);
          total -= a[b];
          a[b] = 0;
        }
      }
      if (now > last) a[base + LAST] = now;
      allowed = total < limit;
      if (allowed && count) {
        a[base + 4 + (now % WINDOW)]++;
        total++;
      }
      a[base + TOTAL] = total;
      reset = WINDOW;
      for (let age = WINDOW - 1; age >= 0; age--) {
        if (a[base + 4 + ((now - age) % WINDOW)] > 0) {
          reset = WINDOW - age;
          break;
        }
      }
    } finally {
      Atomics.store(a, base + LOCK, 0);
    }
    return { allowed, limit, remaining: Math.max(0, limit - total), resetSeconds: reset };
  }
}

/** A 32-bit hash of an address's 16 bytes (FNV-1a), never 0. */
export function addressKey(a: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < a.length; i++) h = Math.imul(h ^ a[i], 0x01000193);
  return h | 0 || 1;
}

// A rolling window of counts inside a shared Int32Array, as both limiters
// keep one per key (rate-limit.ts: 60 buckets of a second; failure-limiter.ts:
// 12 buckets of 5 s). At index `at`:
//
//   [ last | total | bucket 0 ... bucket n-1 ]
//
// bucket (t % n) counts time unit t; `total` is the sum of the buckets for
// the n units up to `last`. The caller holds the entry's lock.

/**
 * Moves the window at `at` on to unit `now`, emptying the buckets of the
 * units that passed. A window or more away either way starts afresh: the
 * clock moved on, or stepped back (NTP, a restored VM), and counts made "in
 * the future" would otherwise hold until the clock caught up with them.
 */
export function rollWindow(a: Int32Array, at: number, n: number, now: number): void {
  const last = a[at];
  if (now - last >= n || last - now >= n) {
    a.fill(0, at + 1, at + 2 + n);
    a[at] = now;
    return;
  }
  for (let t = last + 1; t <= now; t++) {
    const bucket = at + 2 + (t % n);
    a[at + 1] -= a[bucket];
    a[bucket] = 0;
  }
  if (now > last) a[at] = now;
}

/** Counts one in unit `now`'s bucket; the window must have been rolled to `now`. */
export function countInWindow(a: Int32Array, at: number, n: number, now: number): void {
  a[at + 2 + (now % n)]++;
  a[at + 1]++;
}

/** How many units before `now` the oldest counted unit is (0..n-1), or -1 when nothing is counted. */
export function oldestCounted(a: Int32Array, at: number, n: number, now: number): number {
  for (let age = n - 1; age >= 0; age--) if (a[at + 2 + ((now - age) % n)] > 0) return age;
  return -1;
}

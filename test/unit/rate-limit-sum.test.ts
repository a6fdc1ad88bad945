// A hashed limiter keeps the sum of every counted hit, so a gate can tell
// that no key is anywhere near its limit without computing a key:
// mayRefuse(limit) stays false while all keys together have fewer hits than
// the limit in the rolling minute, and is true as soon as one key could be
// refused. The sum rolls with the window like every slot.
import { describe, expect, it } from 'vitest';
import { SharedRateLimiter } from '../../src/http/rate-limit.js';

const T0 = 1_800_000_000_000;

describe('SharedRateLimiter.mayRefuse', () => {
  it('is false until the hits of all keys together reach the limit', () => {
    const l = new SharedRateLimiter(SharedRateLimiter.allocate(1 << 6), false);
    expect(l.mayRefuse(3, T0)).toBe(false);
    l.hit(101, 3, T0);
    l.hit(202, 3, T0);
    expect(l.mayRefuse(3, T0)).toBe(false);
    l.hit(303, 3, T0);
    expect(l.mayRefuse(3, T0)).toBe(true);
    // No single key is at the limit yet; the sum is only an upper bound.
    expect(l.allows(101, 3, T0)).toBe(true);
    l.hit(101, 3, T0 + 1000);
    l.hit(101, 3, T0 + 1000);
    expect(l.allows(101, 3, T0 + 1000)).toBe(false);
    expect(l.mayRefuse(3, T0 + 1000)).toBe(true);
  });

  it('rolls with the window', () => {
    const l = new SharedRateLimiter(SharedRateLimiter.allocate(1 << 6), false);
    for (let i = 0; i < 5; i++) l.hit(7, 5, T0);
    expect(l.mayRefuse(5, T0 + 59_000)).toBe(true);
    expect(l.mayRefuse(5, T0 + 60_000)).toBe(false);
  });

  it('counts nothing for checks that do not count, and is always true for keyed tables', () => {
    const hashed = new SharedRateLimiter(SharedRateLimiter.allocate(1 << 6), false);
    for (let i = 0; i < 10; i++) hashed.hit(9, 2, T0, false);
    expect(hashed.mayRefuse(2, T0)).toBe(false);
    const keyed = new SharedRateLimiter(SharedRateLimiter.allocate(1 << 6), true);
    expect(keyed.mayRefuse(2, T0)).toBe(true);
    for (let i = 0; i < 64; i++) keyed.hit(i + 1, 1, T0); // every key slot usable, none lost to the sum
    expect(keyed.allows(64, 1, T0)).toBe(false);
  });
});

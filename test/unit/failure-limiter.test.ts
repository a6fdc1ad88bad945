// The failure table counts per exact 16-byte key: keys never share a count,
// whatever set they hash to; memory stays bounded by evicting the weakest
// entry of a full set, never a throttled one while weaker ones exist; an
// attempt counted up front can be taken back; the window rolls.
import { describe, expect, it } from 'vitest';
import { FailureLimiter, failureKey } from '../../src/http/failure-limiter.js';

const T0 = 1_800_000_000_000;
const addr = (i: number) => Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, (i >> 16) & 255, (i >> 8) & 255, i & 255]);

describe('FailureLimiter', () => {
  it('keeps a count per exact key, even in a table of one set', () => {
    const l = new FailureLimiter(FailureLimiter.allocate(1));
    for (let i = 0; i < 3; i++) expect(l.hit(addr(1), 3, T0).allowed).toBe(true);
    expect(l.hit(addr(1), 3, T0)).toMatchObject({ allowed: false, count: 3 });
    // Seven other keys in the same (only) set are untouched by key 1's failures.
    for (let i = 2; i <= 8; i++) expect(l.hit(addr(i), 3, T0)).toMatchObject({ allowed: true, count: 1 });
    expect(l.count(addr(1), T0)).toBe(3);
  });

  it('evicts the weakest entry of a full set, keeping the throttled one', () => {
    const l = new FailureLimiter(FailureLimiter.allocate(1));
    for (let i = 0; i < 5; i++) l.hit(addr(1), 5, T0);
    // 200 strangers with one failure each pass through the 8 ways.
    for (let i = 100; i < 300; i++) l.hit(addr(i), 5, T0);
    expect(l.count(addr(1), T0)).toBe(5);
    expect(l.hit(addr(1), 5, T0).allowed).toBe(false);
  });

  it('rolls the window and says when to retry', () => {
    const l = new FailureLimiter(FailureLimiter.allocate(4));
    l.hit(addr(1), 2, T0);
    l.hit(addr(1), 2, T0 + 30_000);
    const refused = l.hit(addr(1), 2, T0 + 31_000);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfter).toBeGreaterThanOrEqual(29);
    expect(refused.retryAfter).toBeLessThanOrEqual(30);
    // The first failure has left the window a minute later; the second has not.
    expect(l.hit(addr(1), 2, T0 + 61_000)).toMatchObject({ allowed: true, count: 2 });
    expect(l.count(addr(1), T0 + 200_000)).toBe(0);
  });

  it('takes back an attempt counted up front, once', () => {
    const l = new FailureLimiter(FailureLimiter.allocate(4));
    l.hit(addr(1), 5, T0);
    l.hit(addr(1), 5, T0 + 6_000);
    l.release(addr(1), T0 + 6_000, T0 + 7_000);
    expect(l.count(addr(1), T0 + 7_000)).toBe(1);
    // Nothing is left in that tick to take back.
    l.release(addr(1), T0 + 6_000, T0 + 7_000);
    expect(l.count(addr(1), T0 + 7_000)).toBe(1);
    // Out of the window: nothing to take back.
    l.release(addr(1), T0, T0 + 120_000);
    expect(l.count(addr(1), T0 + 120_000)).toBe(0);
  });

  it('shares counts through the buffer (as server threads do) and keys strings by digest', () => {
    const buffer = FailureLimiter.allocate(8);
    const a = new FailureLimiter(buffer);
    const b = new FailureLimiter(buffer);
    a.hit(failureKey('owner@example.com'), 10, T0);
    b.hit(failureKey('owner@example.com'), 10, T0);
    expect(a.count(failureKey('owner@example.com'), T0)).toBe(2);
    expect(a.count(failureKey('owner@example.com', addr(1)), T0)).toBe(0);
  });
});

// The wall clock stepping backwards (an NTP correction of a clock that ran
// ahead, a VM restored from a snapshot) locks nobody out for the length of
// the step: a count a whole window in the future starts afresh, so once a
// minute has passed in real time the rolling minute has rolled, and a 429's
// Retry-After says when a retry passes. The account table's seconds also
// outlast 2038. Before, a day's step back held an account seen before it to
// 60 requests for the whole day, and the table stopped limiting in 2038.
import { describe, expect, it } from 'vitest';
import { FailureLimiter } from '../../src/http/failure-limiter.js';
import { SharedRateLimiter } from '../../src/http/rate-limit.js';

const T = Date.UTC(2026, 10, 24, 12, 0, 0);
const DAY = 86_400_000;
const addr = Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 203, 0, 113, 5]);

describe('account rate limit (http/rate-limit.ts) after the clock steps back a day', () => {
  it('an account seen before the step gets its 60 a minute again a minute later, not a day later', () => {
    const l = new SharedRateLimiter(SharedRateLimiter.allocate(16));
    expect(l.hit(7, 60, T).allowed).toBe(true); // one request before the step
    const back = T - DAY; // the clock is corrected a day back
    for (let i = 0; i < 60; i++) l.hit(7, 60, back);
    const refused = l.hit(7, 60, back);
    expect(refused.allowed).toBe(false);
    // Ten minutes of real time later the minute has long rolled.
    expect(l.hit(7, 60, back + 10 * 60_000).allowed).toBe(true);
  });

  it("a 429's reset time is when a request passes again", () => {
    const l = new SharedRateLimiter(SharedRateLimiter.allocate(16));
    l.hit(7, 60, T);
    const back = T - DAY;
    for (let i = 0; i < 60; i++) l.hit(7, 60, back);
    const v = l.hit(7, 60, back);
    expect(v.allowed).toBe(false);
    expect(l.hit(7, 60, back + (v.resetSeconds + 1) * 1000).allowed).toBe(true);
  });

  it('still limits after 2038-01-19T03:14:08Z (seconds past 2^31)', () => {
    const l = new SharedRateLimiter(SharedRateLimiter.allocate(16));
    const t = 2 ** 31 * 1000 + 5000;
    let allowed = 0;
    for (let i = 0; i < 100; i++) if (l.hit(9, 60, t).allowed) allowed++;
    expect(allowed).toBe(60);
  });
});

describe('failure limiter (http/failure-limiter.ts) after the clock steps back a day', () => {
  it('an address throttled after the step is free again a minute later', () => {
    const l = new FailureLimiter(FailureLimiter.allocate(16));
    l.hit(addr, 30, T); // one failure before the step
    const back = T - DAY;
    for (let i = 0; i < 30; i++) l.hit(addr, 30, back);
    const v = l.hit(addr, 30, back);
    expect(v.allowed).toBe(false);
    expect(l.hit(addr, 30, back + (v.retryAfter + 5) * 1000).allowed).toBe(true);
    expect(l.hit(addr, 30, back + 10 * 60_000).allowed).toBe(true);
  });
});

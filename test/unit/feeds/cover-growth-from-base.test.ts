// Past the week, a feed's growth is still measured from its base (limits.ts,
// FeedState.base) for 90 days: the cover its growth started from. A list
// grown 4 times a week, every week, passes the weekly rule each week, and
// stops at 4 times its base (or the floor, for a small one) until the base
// is 90 days old.
import { expect, it } from 'vitest';
import { DAY_MS } from '../../../src/days.js';
import { coverRecord, growthError } from '../../../src/ipdb/feeds/limits.js';
import { FEEDS } from '../../../src/ipdb/feeds/registry.js';

const tor = FEEDS.find((f) => f.name === 'tor')!;
const NOW = Date.parse('2026-11-29T12:00:00Z');
const v4 = (n: number) => ({ v4: BigInt(n), v6: 0n });

it('stops a list grown 4 times a week at 4 times its base', () => {
  const base = coverRecord(v4(1651), NOW - 30 * DAY_MS);
  // The first week's step: within both rules.
  expect(growthError(tor, v4(6604), v4(1651), [], base, NOW)).toBeNull();
  // The next week's: 4 times the week's smallest (6,604), but 16 times the base.
  const lastWeek = [coverRecord(v4(6604), NOW - 2 * DAY_MS)];
  expect(growthError(tor, v4(26_416), v4(6604), lastWeek, base, NOW)).toBe(
    "covers 26416 IPv4 addresses, more than 4 times the 1651 its data covered when taken as its base on 2026-10-30 (6604 allowed for 90 days from then); if the publisher's list did grow, `splitguard ipdb reset-feed tor` takes it",
  );
  expect(growthError(tor, v4(6604), v4(6604), lastWeek, base, NOW)).toBeNull();
  // Without a base (no download taken yet, or a state from before bases): the weekly rule alone.
  expect(growthError(tor, v4(26_416), v4(6604), lastWeek, null, NOW)).toBeNull();
});

it('lets the base bound growth for 90 days', () => {
  const lastWeek = [coverRecord(v4(6604), NOW - 2 * DAY_MS)];
  expect(growthError(tor, v4(26_416), v4(6604), lastWeek, coverRecord(v4(1651), NOW - 90 * DAY_MS), NOW)).toContain('more than 4 times the 1651');
  expect(growthError(tor, v4(26_416), v4(6604), lastWeek, coverRecord(v4(1651), NOW - 90 * DAY_MS - 1), NOW)).toBeNull();
  // An aged base leaves the weekly rule.
  expect(growthError(tor, v4(26_417), v4(6604), lastWeek, coverRecord(v4(1651), NOW - 91 * DAY_MS), NOW)).toContain('more than 4 times the 6604 the feed\'s data covered at its smallest in 7 days');
});

it('lets a small base grow up to the floor, in each family', () => {
  const base = coverRecord({ v4: 20n, v6: 10n }, NOW - 30 * DAY_MS);
  expect(growthError(tor, { v4: 4096n, v6: 4096n }, { v4: 4096n, v6: 4096n }, [], base, NOW)).toBeNull();
  expect(growthError(tor, { v4: 4096n, v6: 4097n }, { v4: 4096n, v6: 4096n }, [], base, NOW)).toContain('covers 4097 IPv6 addresses, more than 4 times the 10 its data covered when taken as its base');
});

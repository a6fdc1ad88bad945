// Every shipped snapshot keeps within its feed's cap on an entry's width
// (registry.ts, limits.ts): the caps come from the publishers' own data, and
// a snapshot refreshed to a wider list must move the cap with it, or the
// publisher's first download would be refused. The Tor memories shipped hold
// single addresses, as recent.ts keeps them. A list of single addresses
// (`hosts`) holds, with its memory, no more than its growth floor (4,096 of
// each family): a floor sized from these lists; NordVPN's 8,468 are past it
// and grow by 4 times themselves.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { coverOf, growthError, pastCap } from '../../../src/ipdb/feeds/limits.js';
import { ASN_FORMATS, parseFeed } from '../../../src/ipdb/feeds/parse.js';
import { FEEDS, snapshotFiles, snapshotRecent } from '../../../src/ipdb/feeds/registry.js';

const rangeFeeds = FEEDS.filter((f) => f.snapshot && !ASN_FORMATS.includes(f.snapshot.format));

it.each(rangeFeeds.map((f) => [f.name, f] as const))('%s', (_, feed) => {
  const ranges = { v4: [] as [bigint, bigint][], v6: [] as [bigint, bigint][] };
  for (const file of snapshotFiles(feed)) {
    const parsed = parseFeed(feed.snapshot!.format, readFileSync(file), feed.name);
    ranges.v4.push(...parsed.ranges!.v4);
    ranges.v6.push(...parsed.ranges!.v6);
  }
  expect(ranges.v4.length + ranges.v6.length).toBeGreaterThan(0);
  expect(pastCap(feed, ranges)).toBeNull();
  const recent = snapshotRecent(feed);
  if (recent) {
    const parsed = parseFeed('cidr-lines', readFileSync(recent), feed.name);
    for (const [start, end] of [...parsed.ranges!.v4, ...parsed.ranges!.v6]) expect(end).toBe(start);
    ranges.v4.push(...parsed.ranges!.v4);
    ranges.v6.push(...parsed.ranges!.v6);
  }
  if (feed.hosts) {
    const cover = coverOf(ranges);
    const fromNothing = growthError(feed, cover, { v4: 0n, v6: 0n }, [], null, Date.now());
    if (feed.name === 'nordvpn') {
      expect(fromNothing).toContain('covers 8468 IPv4 addresses');
      expect(growthError(feed, cover, { v4: cover.v4 / 4n, v6: 0n }, [], null, Date.now())).toBeNull();
    } else {
      expect(fromNothing).toBeNull();
    }
  }
});

// Tor's memory (src/ipdb/feeds/recent.ts) keeps a week of exits, so what a
// `tor` refresh folds in is its download and the addresses the memory keeps.
// The growth rule (limits.ts) judges the two together: a publisher sending a
// new set of addresses at each hourly refresh, each set within the rule on its
// own, filled the memory with up to 1,000,000 addresses of its choosing, kept
// a week (the review of finding 108). Here each refresh serves 2,000 new
// Comcast addresses (AS7922, a carrier): the memory takes sets until the data
// would pass 4 times the snapshot's 1,372 exits and 279 remembered, then the
// refresh is refused, naming the cover and what only the memory holds, and
// the feed keeps its last good data.
import { expect, it } from 'vitest';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';

const SET = 2000;
/** The `k`th set: 2,000 addresses of 73.k.0.0/16, none in another set. */
const exits = (k: number) => Array.from({ length: SET }, (_, i) => `73.${k}.${i >> 8}.${i & 255}`);
const reply = (k: number) => ({ body: torList(exits(k)), etag: `"set ${k}"` });

const ctx = useFeedServer({ '/tor': reply(1) }, { tor: '/tor' });

it('takes rotated sets only while download and memory stay within 4 times the week\'s smallest cover', async () => {
  const seen: { outcome: string; error: string | null; ranges: number | null }[] = [];
  for (let k = 1; k <= 5; k++) {
    ctx.feeds.routes.set('/tor', reply(k));
    const status = await refreshNow(ctx.server, (await newAccount(ctx.server, `set ${k}`)).api_key);
    const outcome = status.last_refresh!.feeds.find((f) => f.feed === 'tor')!;
    const feed = (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')!;
    seen.push({ outcome: outcome.outcome, error: outcome.error, ranges: feed.ranges });
  }
  // 2,000, 4,000 and 6,000 addresses folded in; 8,000 is past the 6,604 allowed.
  expect(seen.map((s) => s.outcome)).toEqual(['updated', 'updated', 'updated', 'failed', 'failed']);
  expect(seen.map((s) => s.ranges)).toEqual([2000, 4000, 6000, 6000, 6000]);
  for (const refused of seen.slice(3)) {
    expect(refused.error).toContain("covers 8000 IPv4 addresses with the 6000 only its memory of the last 7 days holds, more than 4 times the 1651 the feed's data covered at its smallest in 7 days (6604 allowed)");
    expect(refused.error).toContain('`splitguard ipdb reset-feed tor` takes it');
  }
  // The newest set taken is a Tor exit. The two before it, held only by the
  // memory, are a carrier's and so are not folded in (unit/feeds/memory-spares-carriers;
  // feeds/tor-exits-kept-a-week folds a memory in on a hoster), though the rule
  // counted them; the refused sets' addresses stay clean too.
  expect((await check(ctx.server, exits(3)[SET - 1]!)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
  for (const k of [1, 2, 4, 5]) {
    const r = await check(ctx.server, exits(k)[SET - 1]!);
    expect(r.signals.range_feed, `set ${k}`).toBeNull();
    expect(r.intercept.low, `set ${k}`).toBe(false);
  }
}, 240_000);

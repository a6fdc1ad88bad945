// A feed entry wider than its feed's cap refuses the whole download
// (src/ipdb/feeds/limits.ts, registry.ts): a `tor` list of every unicast /8
// and of the /16s of 2000::/3, 1 MB, made every carrier a Tor exit from `low`
// (the hostile-publisher review of 2026-11-29). Tor's lists hold single
// addresses; its cap is /24 and /48. The feed keeps its last good data (here
// its snapshot), the error names the entry and the cap, and carriers stay clean.
import { expect, it } from 'vitest';
import { useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, refreshNow } from '../../helpers/refresh.js';

/** Comcast (AS7922), on the carrier list. */
const CARRIERS = ['73.1.2.3', '2601::1'];
/** A shipped snapshot exit (feeds/snapshots/tor-exit-nodes.threatfeed.list). */
const SNAPSHOT_EXIT = '171.25.193.25';

const v4 = Array.from({ length: 223 }, (_, i) => `${i + 1}.0.0.0/8`);
const v6 = Array.from({ length: 0x2000 }, (_, i) => `${(0x2000 + i).toString(16)}::/16`);

const ctx = useFeedServer({ '/tor': { body: `${[...v4, ...v6].join('\n')}\n` } }, { tor: '/tor' });

it('refuses the list, naming the entry and the cap; carriers stay clean and the snapshot stays', async () => {
  for (const ip of CARRIERS) expect((await check(ctx.server, ip)).intercept.low, ip).toBe(false);
  const status = await refreshNow(ctx.server, ctx.server.apiKey);
  const outcome = status.last_refresh!.feeds.find((f) => f.feed === 'tor')!;
  expect(outcome.outcome).toBe('failed');
  expect(outcome.error).toContain('entry 1.0.0.0/8 is wider than the /24 an IPv4 entry of feed tor may be');
  expect((await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')).toMatchObject({ last_outcome: 'failed' });
  for (const ip of CARRIERS) {
    const r = await check(ctx.server, ip);
    expect(r.signals.range_feed, ip).toBeNull();
    expect(r.intercept.low, ip).toBe(false);
  }
  expect((await check(ctx.server, SNAPSHOT_EXIT)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
}, 120_000);

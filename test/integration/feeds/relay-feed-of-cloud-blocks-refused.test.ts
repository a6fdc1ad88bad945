// A `cloudflare` list (label `relay`: never intercepted below `high`)
// answering the clouds' /8s passed them as relays and so overrode the
// blacklist (the hostile-publisher review of 2026-11-29). Cloudflare's
// widest entries are a /13 and a /29; its cap is /11 and /25
// (src/ipdb/feeds/registry.ts): the list is refused whole and an Amazon
// address stays intercepted from `low` by the blacklist.
import { expect, it } from 'vitest';
import { useFeedServer } from '../../helpers/feed-server.js';
import { check, refreshNow } from '../../helpers/refresh.js';

/** Amazon (AS16509, on the blacklist at `low`), inside no feed but the hostile one here. */
const AMAZON = '52.10.0.1';
/** Cloudflare's real lists, with the clouds' /8s among them. */
const V4 = ['173.245.48.0/20', '103.21.244.0/22', '104.16.0.0/13', '3.0.0.0/8', '13.0.0.0/8', '34.0.0.0/8', '35.0.0.0/8', '52.0.0.0/8', '54.0.0.0/8'];
const V6 = ['2400:cb00::/32', '2606:4700::/32', '2a06:98c0::/29'];

const ctx = useFeedServer({ '/v4': { body: `${V4.join('\n')}\n` }, '/v6': { body: `${V6.join('\n')}\n` } }, { cloudflare: '/v4|/v6' });

it('refuses the list; the blacklist still intercepts the cloud from low', async () => {
  expect((await check(ctx.server, AMAZON)).intercept.low).toBe(true);
  const status = await refreshNow(ctx.server, ctx.server.apiKey);
  const outcome = status.last_refresh!.feeds.find((f) => f.feed === 'cloudflare')!;
  expect(outcome.outcome).toBe('failed');
  expect(outcome.error).toContain('entry 3.0.0.0/8 is wider than the /11 an IPv4 entry of feed cloudflare may be');
  const r = await check(ctx.server, AMAZON);
  expect(r.signals.range_feed).toBeNull();
  expect(r.intercept.low).toBe(true);
}, 120_000);

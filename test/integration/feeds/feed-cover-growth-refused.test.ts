// A download covering more than 4 times the address space of the feed's data
// (at its smallest in the last week, the snapshot its first download replaced
// included, and at least a /16 of IPv4 for a range list) is refused
// (src/ipdb/feeds/limits.ts): entries within the feed's cap can still label
// whole networks when there are enough of them. The feed keeps its last good
// data, and the error says how to take a list that really grew.
import { expect, it } from 'vitest';
import { useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';

/** `n` /24s from 11.0.0.0/24 on (no special range), one a line. */
const blocks = (n: number) => `${Array.from({ length: n }, (_, i) => `11.${i >> 8}.${i & 255}.0/24`).join('\n')}\n`;
const telegram = async () => (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'telegram-crawler')!;

// Telegram's list of ranges (its widest a /18): the snapshot covers 11,008 IPv4 addresses.
const ctx = useFeedServer({ '/telegram': { body: blocks(200), etag: '"a"' } }, { 'telegram-crawler': '/telegram' });

it('takes a list under the floor', async () => {
  // 51,200 addresses, past 4 times the snapshot's 11,008 but under a range list's 65,536 floor.
  await refreshNow(ctx.server, ctx.server.apiKey);
  expect(await telegram()).toMatchObject({ last_outcome: 'updated', ranges: 200 });
});

it('refuses one covering more than 4 times as much, and keeps the last good list', async () => {
  ctx.feeds.routes.set('/telegram', { body: blocks(1000), etag: '"b"' });
  const status = await refreshNow(ctx.server, (await newAccount(ctx.server, 'growth')).api_key);
  const outcome = status.last_refresh!.feeds.find((f) => f.feed === 'telegram-crawler')!;
  expect(outcome.outcome).toBe('failed');
  // Measured against the week's smallest, the snapshot's, not the 51,200 taken since.
  expect(outcome.error).toContain("covers 256000 IPv4 addresses, more than 4 times the 11008 the feed's data covered at its smallest in 7 days (65536 allowed)");
  expect(outcome.error).toContain('`splitguard ipdb reset-feed telegram-crawler` takes it');
  expect(await telegram()).toMatchObject({ last_outcome: 'failed', ranges: 200 });
  expect((await check(ctx.server, '11.0.199.1')).signals.range_feed).toEqual({ feed: 'telegram-crawler', label: 'crawler' });
  expect((await check(ctx.server, '11.3.0.1')).signals.range_feed).toBeNull();
}, 120_000);

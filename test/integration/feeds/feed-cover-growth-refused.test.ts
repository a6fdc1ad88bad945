// A download covering more than 4 times the address space of the feed's data
// (at its smallest in the last week, and at least a /16 of IPv4) is refused
// (src/ipdb/feeds/limits.ts): entries within the feed's cap can still label
// whole networks when there are enough of them. The feed keeps its last good
// data, and the error says how to take a list that really grew.
import { expect, it } from 'vitest';
import { useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';

/** `n` /24s from 11.0.0.0/24 on (no special range), one a line. */
const blocks = (n: number) => `${Array.from({ length: n }, (_, i) => `11.${i >> 8}.${i & 255}.0/24`).join('\n')}\n`;
const mullvad = async () => (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'mullvad')!;

const ctx = useFeedServer({ '/mullvad': { body: blocks(200), etag: '"a"' } }, { mullvad: '/mullvad' });

it('takes a list under the floor', async () => {
  // 51,200 addresses against the snapshot's 589: under the 65,536 floor.
  await refreshNow(ctx.server, ctx.server.apiKey);
  expect(await mullvad()).toMatchObject({ last_outcome: 'updated', ranges: 200 });
});

it('refuses one covering more than 4 times as much, and keeps the last good list', async () => {
  ctx.feeds.routes.set('/mullvad', { body: blocks(1000), etag: '"b"' });
  const status = await refreshNow(ctx.server, (await newAccount(ctx.server, 'growth')).api_key);
  const outcome = status.last_refresh!.feeds.find((f) => f.feed === 'mullvad')!;
  expect(outcome.outcome).toBe('failed');
  expect(outcome.error).toContain("covers 256000 IPv4 addresses, more than 4 times the 51200 the feed's data covered at its smallest in 7 days (204800 allowed)");
  expect(outcome.error).toContain('`splitguard ipdb reset-feed mullvad` takes it');
  expect(await mullvad()).toMatchObject({ last_outcome: 'failed', ranges: 200 });
  expect((await check(ctx.server, '11.0.199.1')).signals.range_feed).toEqual({ feed: 'mullvad', label: 'vpn' });
  expect((await check(ctx.server, '11.3.0.1')).signals.range_feed).toBeNull();
}, 120_000);

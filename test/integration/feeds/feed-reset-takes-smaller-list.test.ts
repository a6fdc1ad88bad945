// `splitguard ipdb reset-feed NAME` drops a feed's kept data and its memory
// (recent.ts), so that the next download is taken whole: the honest list a
// publisher sends after a bad one would otherwise be refused by the shrink
// rule (under half the entries) or the growth rule for good. Run beside the
// server, as an operator would.
import { expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';

const exits = (n: number) => Array.from({ length: n }, (_, i) => `185.220.${100 + (i >> 8)}.${i & 255}`);
const tor = async () => (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')!;
const torOutcome = (s: Awaited<ReturnType<typeof refreshNow>>) => s.last_refresh!.feeds.find((f) => f.feed === 'tor')!;

const ctx = useFeedServer({ '/tor': { body: torList(exits(1000)), etag: '"big"' } }, { tor: '/tor' });

it('refuses the smaller list, then takes it whole after a reset, without the old list or its memory', async () => {
  await refreshNow(ctx.server, ctx.server.apiKey);
  expect(await tor()).toMatchObject({ last_outcome: 'updated', ranges: 1000 });

  ctx.feeds.routes.set('/tor', { body: torList(exits(300)), etag: '"small"' });
  const refused = await refreshNow(ctx.server, (await newAccount(ctx.server, 'shrink')).api_key);
  expect(torOutcome(refused).error).toContain('300 entries, under 50% of the 1000 of the last good download; if the publisher\'s list did shrink, `splitguard ipdb reset-feed tor` takes it');

  const reset = await runCli(['ipdb', 'reset-feed', 'tor'], ctx.server.dataDir);
  expect(reset.code, reset.stderr).toBe(0);
  expect(JSON.parse(reset.stdout)).toMatchObject({ feed: 'tor' });
  expect(JSON.parse(reset.stdout).dropped.length).toBeGreaterThan(0);

  const taken = await refreshNow(ctx.server, (await newAccount(ctx.server, 'after reset')).api_key);
  expect(torOutcome(taken)).toMatchObject({ outcome: 'updated' });
  // 300 exits and nothing remembered: the dropped data's 700 others are gone.
  expect(await tor()).toMatchObject({ last_outcome: 'updated', ranges: 300 });
  expect((await check(ctx.server, exits(300)[299]!)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
  expect((await check(ctx.server, exits(1000)[999]!)).signals.range_feed).toBeNull();
}, 180_000);

it('refuses an unknown feed as a usage error', async () => {
  const r = await runCli(['ipdb', 'reset-feed', 'no-such-feed'], ctx.server.dataDir);
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('ipdb reset-feed: unknown feed "no-such-feed"');
});

// `splitguard ipdb reset-feed` run while the server's refresh of that feed
// is downloading: the refresh had read the feed's state before the reset and
// saved its own after it, so the reset was lost without a word (its data was
// put back under the old rules, the files named by the state were gone, and
// the list the operator meant to take whole was refused again). The refresh
// now saves only if the feed was not reset since it read the state, and
// keeps nothing of its download; the reset stands and the feed's next
// download is taken whole. Run beside the server, as an operator would.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const exits = (n: number) => Array.from({ length: n }, (_, i) => `185.220.${100 + (i >> 8)}.${i & 255}`);
const tor = async () => (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')!;
const torOutcome = (s: Awaited<ReturnType<typeof refreshNow>>) => s.last_refresh!.feeds.find((f) => f.feed === 'tor')!;
const torFiles = () => readdirSync(path.join(ctx.server.dataDir, 'ipdb', 'feeds')).filter((f) => f.startsWith('tor.')).sort();

const ctx = useFeedServer({ '/tor': { body: torList(exits(1000)), etag: '"1000"' } }, { tor: '/tor' });

it('keeps a reset made while the feed downloads, and takes the next download whole', async () => {
  await refreshNow(ctx.server, ctx.server.apiKey);
  expect(await tor()).toMatchObject({ last_outcome: 'updated', ranges: 1000 });

  // The publisher sends 1,200 exits (a list the rules take), slowly: the operator resets the feed meanwhile.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  ctx.feeds.routes.set('/tor', { body: torList(exits(1200)), etag: '"1200"', held });
  const asked = ctx.feeds.requests.length;
  const refreshing = refreshNow(ctx.server, (await newAccount(ctx.server, 'during reset')).api_key);
  await waitUntil(() => ctx.feeds.requests.slice(asked).some((r) => r.path === '/tor'), (asking) => asking, 30_000);
  const reset = await runCli(['ipdb', 'reset-feed', 'tor'], ctx.server.dataDir);
  expect(reset.code, reset.stderr).toBe(0);
  expect(torFiles()).toEqual([]);
  release();

  const raced = torOutcome(await refreshing);
  expect(raced.outcome).toBe('failed');
  expect(raced.error).toContain('the feed was reset (`splitguard ipdb reset-feed`) while it downloaded: the download is not taken');
  // The reset stands: no outcome since, none of the download's files left
  // behind (the installed database serves the dropped data until the next build).
  expect(await tor()).toMatchObject({ last_outcome: null, last_error: null });
  expect(torFiles()).toEqual([]);

  // 300 exits, under half of any list before: taken whole, as after any reset.
  ctx.feeds.routes.set('/tor', { body: torList(exits(300)), etag: '"300"' });
  const taken = await refreshNow(ctx.server, (await newAccount(ctx.server, 'after reset')).api_key);
  expect(torOutcome(taken)).toMatchObject({ outcome: 'updated', error: null });
  expect(await tor()).toMatchObject({ last_outcome: 'updated', ranges: 300 });
  expect((await check(ctx.server, exits(1200)[1100]!)).signals.range_feed).toBeNull();
}, 180_000);

// `splitguard ipdb reset-feed` or `splitguard ipdb refresh` run while the
// server's refresh of that feed is downloading: the refresh had read the
// feed's state before them and saved its own after, so the reset was lost
// without a word (its data put back under the old rules, the files named by
// the state gone, and the list the operator meant to take whole refused
// again), and the other refresh's newer data replaced by an older download.
// A refresh now saves only over the revision of the state it read, and
// keeps nothing of its download otherwise. Run beside the server, as an
// operator would.
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
const CHANGED = 'the feed was reset (`splitguard ipdb reset-feed`) or refreshed by another process while it downloaded: this download is not taken';

/**
 * Starts the server's refresh with /tor answering `body` only once the
 * returned `release` is called, and waits until the refresh has asked for it.
 */
async function refreshHeldAt(body: string, etag: string, account: string): Promise<{ release: () => void; refreshing: ReturnType<typeof refreshNow> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  ctx.feeds.routes.set('/tor', { body, etag, held });
  const asked = ctx.feeds.requests.length;
  const refreshing = refreshNow(ctx.server, (await newAccount(ctx.server, account)).api_key);
  await waitUntil(() => ctx.feeds.requests.slice(asked).some((r) => r.path === '/tor'), (asking) => asking, 30_000);
  return { release, refreshing };
}

it('keeps a reset made while the feed downloads, and takes the next download whole', async () => {
  await refreshNow(ctx.server, ctx.server.apiKey);
  expect(await tor()).toMatchObject({ last_outcome: 'updated', ranges: 1000 });

  // The publisher sends 1,200 exits (a list the rules take), slowly: the operator resets the feed meanwhile.
  const { release, refreshing } = await refreshHeldAt(torList(exits(1200)), '"1200"', 'during reset');
  const reset = await runCli(['ipdb', 'reset-feed', 'tor'], ctx.server.dataDir);
  expect(reset.code, reset.stderr).toBe(0);
  expect(torFiles()).toEqual([]);
  release();

  const raced = torOutcome(await refreshing);
  expect(raced.outcome).toBe('failed');
  expect(raced.error).toContain(CHANGED);
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

it("keeps another process's refresh made while the feed downloads", async () => {
  // The server's refresh asks for 1,100 exits and waits; `ipdb refresh` meanwhile takes 1,200.
  const { release, refreshing } = await refreshHeldAt(torList(exits(1100)), '"1100"', 'beside the cli');
  ctx.feeds.routes.set('/tor', { body: torList(exits(1200)), etag: '"1200-cli"' });
  const cli = await runCli(['ipdb', 'refresh'], ctx.server.dataDir, {
    SPLITGUARD_IPDB_SOURCES: 'package:',
    SPLITGUARD_FEEDS: 'tor',
    SPLITGUARD_FEED_SOURCES: `tor=${ctx.feeds.url('/tor')}`,
  }, 120_000);
  expect(cli.code, cli.stderr).toBe(0);
  expect(JSON.parse(cli.stdout).feeds).toEqual([expect.objectContaining({ feed: 'tor', outcome: 'updated' })]);
  release();

  const raced = torOutcome(await refreshing);
  expect(raced).toMatchObject({ outcome: 'failed', error: CHANGED });
  // The command's 1,200 stay the feed's data, in the database served (the server swaps to the command's build).
  await waitUntil(tor, (t) => t.ranges === 1200, 10_000);
  expect(await tor()).toMatchObject({ last_outcome: 'updated', ranges: 1200 });
  expect((await check(ctx.server, exits(1200)[1150]!)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
}, 180_000);

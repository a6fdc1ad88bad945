// Tor exits that drop out of the publisher's list stay intercepted for a week
// (src/ipdb/feeds/recent.ts): after a refresh whose list lacks an exit the
// previous one had, the rebuilt database still names the tor feed for it, and
// the feed's range count includes it. The shipped snapshot's exits, last seen
// months before the first refresh, are not carried over.
import { expect, it } from 'vitest';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';

const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);
/** A shipped snapshot exit (feeds/snapshots/tor-exit-nodes.threatfeed.list) that no refresh here serves. */
const SNAPSHOT_EXIT = '171.25.193.25';
const torFeed = async () => (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')!;

const ctx = useFeedServer({ '/tor': { body: torList(EXITS), etag: '"r1"' } }, { tor: '/tor' });

it('starts from the snapshot, then replaces it: nothing of a months-old snapshot is kept', async () => {
  expect((await check(ctx.server, SNAPSHOT_EXIT)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
  await refreshNow(ctx.server, ctx.server.apiKey);
  expect(await torFeed()).toMatchObject({ ranges: 40, last_outcome: 'updated' });
  expect((await check(ctx.server, SNAPSHOT_EXIT)).signals.range_feed).toBeNull();
});

it('keeps an exit the next list lacks, beside the new ones', async () => {
  ctx.feeds.routes.set('/tor', { body: torList([...EXITS.slice(5), '185.220.103.1']), etag: '"r2"' });
  await refreshNow(ctx.server, (await newAccount(ctx.server, 'second list')).api_key);
  expect(await torFeed()).toMatchObject({ ranges: 41, last_outcome: 'updated' });
  for (const ip of [EXITS[0], EXITS[4], '185.220.103.1']) {
    expect((await check(ctx.server, ip)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
  }
});

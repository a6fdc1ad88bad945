// Tor exits that drop out of the publisher's list stay intercepted for a week
// (src/ipdb/feeds/recent.ts): after a refresh whose list lacks an exit the
// previous one had, the rebuilt database still names the tor feed for it, and
// the feed's range count includes it. The shipped snapshot's exits, last seen
// months before the first refresh, are not carried over.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FeedServer, startFeedServer, torList } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let feeds: FeedServer;
let server: TestServer;
const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);
/** A shipped snapshot exit (feeds/snapshots/tor-exit-nodes.threatfeed.list) that no refresh here serves. */
const SNAPSHOT_EXIT = '171.25.193.25';
const torFeed = async () => (await databaseStatus(server)).feeds.find((f) => f.name === 'tor')!;

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.routes.set('/tor', { body: torList(EXITS), etag: '"r1"' });
  server = await startServer({
    env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/tor')}` },
  });
});
afterAll(async () => {
  await server?.close();
  await feeds?.close();
});

it('starts from the snapshot, then replaces it: nothing of a months-old snapshot is kept', async () => {
  expect((await check(server, SNAPSHOT_EXIT)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
  await refreshNow(server, server.apiKey);
  expect(await torFeed()).toMatchObject({ ranges: 40, last_outcome: 'updated' });
  expect((await check(server, SNAPSHOT_EXIT)).signals.range_feed).toBeNull();
});

it('keeps an exit the next list lacks, beside the new ones', async () => {
  feeds.routes.set('/tor', { body: torList([...EXITS.slice(5), '185.220.103.1']), etag: '"r2"' });
  await refreshNow(server, (await newAccount(server, 'second list')).api_key);
  expect(await torFeed()).toMatchObject({ ranges: 41, last_outcome: 'updated' });
  for (const ip of [EXITS[0], EXITS[4], '185.220.103.1']) {
    expect((await check(server, ip)).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
  }
});

// A feed's nodes are tried in order (failover). When every node fails, or
// answers something unusable (a page of HTML, a list shrunk to a tenth), the
// feed keeps its last good data and says why; the database still holds it.
// An unchanged feed costs one conditional request (304).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FeedServer, startFeedServer, torList } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let feeds: FeedServer;
let server: TestServer;
const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);
const torFeed = async () => (await databaseStatus(server)).feeds.find((f) => f.name === 'tor')!;
const refresh = async (name: string) => refreshNow(server, (await newAccount(server, name)).api_key);

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.routes.set('/down', 'refuse');
  feeds.routes.set('/tor', { body: torList(EXITS), etag: '"r1"' });
  server = await startServer({
    env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/down')},${feeds.url('/tor')}` },
  });
});
afterAll(async () => {
  await server?.close();
  await feeds?.close();
});

it('fails over to the next node', async () => {
  const status = await refreshNow(server, server.apiKey);
  expect(status.last_refresh!.feeds).toEqual([{ feed: 'tor', outcome: 'updated', source: feeds.url('/tor'), error: null, ms: expect.any(Number) }]);
  expect(await torFeed()).toMatchObject({ ranges: 40, last_outcome: 'updated' });
});

it('asks conditionally and keeps an unchanged feed', async () => {
  feeds.requests.splice(0);
  const status = await refresh('unchanged');
  expect(status.last_refresh!.feeds[0]).toMatchObject({ outcome: 'unchanged' });
  expect(feeds.requests.find((r) => r.path === '/tor')).toMatchObject({ ifNoneMatch: '"r1"', status: 304 });
});

it.each([
  ['an HTML page', { body: '<!doctype html><html><body>rate limited</body></html>' }, /1 of 1 entries are malformed/],
  ['a list shrunk to a tenth', { body: torList(EXITS.slice(0, 4)), etag: '"r2"' }, /4 entries, under 50% of the 40/],
  ['HTTP 500', { status: 500 }, /HTTP 500/],
] as const)('keeps the last good data when the publisher serves %s', async (what, reply, why) => {
  feeds.routes.set('/tor', reply);
  const status = await refresh(`bad ${what}`);
  expect(status.last_refresh!.feeds[0]).toMatchObject({ feed: 'tor', outcome: 'failed', source: null });
  expect(status.last_refresh!.feeds[0].error).toMatch(why);
  expect(await torFeed()).toMatchObject({ ranges: 40, last_outcome: 'failed' });
  expect((await torFeed()).last_error).toMatch(why);
  expect((await check(server, EXITS[39])).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
});

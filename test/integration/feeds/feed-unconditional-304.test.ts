// A feed node that answers 304 Not Modified to a request without a
// validator (the first download after the snapshot asks unconditionally)
// has said nothing about its data: the node fails with that reason and the
// next node is tried. (The feed was recorded "unchanged" and kept its
// snapshot; a two-part node reached readFileSync(null).)
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FeedServer, startFeedServer, torList } from '../../helpers/feed-server.js';
import { refreshNow } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let feeds: FeedServer;
let server: TestServer;
const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.routes.set('/not-modified', { status: 304 });
  feeds.routes.set('/tor', { body: torList(EXITS), etag: '"r1"' });
  server = await startServer({
    env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/not-modified')},${feeds.url('/tor')}` },
  });
});
afterAll(async () => {
  await server?.close();
  await feeds?.close();
});

it('fails a node that answers 304 to an unconditional request and takes the next', async () => {
  const status = await refreshNow(server, server.apiKey);
  expect(feeds.requests.find((r) => r.path === '/not-modified')).toMatchObject({ ifNoneMatch: undefined, status: 304 });
  expect(status.last_refresh!.feeds).toEqual([{ feed: 'tor', outcome: 'updated', source: feeds.url('/tor'), error: null, ms: expect.any(Number) }]);
  expect(status.feeds.find((f) => f.name === 'tor')).toMatchObject({ ranges: 40, last_outcome: 'updated' });
  const failed = server.logs().filter((l) => l.event === 'feed_source_failed');
  expect(failed).toEqual([expect.objectContaining({ feed: 'tor', source: feeds.url('/not-modified'), error: `${feeds.url('/not-modified')}: HTTP 304 to a request without a validator` })]);
}, 120_000);

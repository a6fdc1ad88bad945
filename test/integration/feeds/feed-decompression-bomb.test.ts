// A feed publisher (or anyone on its path, or a mirror in
// SPLITGUARD_FEED_SOURCES) serves a small gzip body that inflates to far more
// than any feed: the download is refused at once, the feed keeps its data and
// the server lives. Before the fix, 64 MiB capped only the bytes on the wire,
// the body inflated up to 512 MiB and the main thread then split and parsed
// every line: 784 KB of gzip (500 MiB of "1.2.3.4\n") took the server's main
// thread to 4 GB in ~4 minutes and the whole process died (JavaScript heap
// out of memory), every redirect with it; the feed, never recorded, was due
// again a minute after each restart. This test's 70 MiB bomb (~100 KB on the
// wire) held the main thread for tens of seconds and ~1.5 GB.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type FeedServer, startFeedServer, torList } from '../../helpers/feed-server.js';
import { databaseStatus, newAccount, triggerRefresh } from '../../helpers/refresh.js';
import { NO_RATE_LIMIT, waitUntil } from '../../helpers/routes.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let feeds: FeedServer;
let server: TestServer;
const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);

function bomb(mib: number): Buffer {
  const member = gzipSync(Buffer.from('1.2.3.4\n'.repeat(1 << 17)), { level: 9 }); // 1 MiB inflated
  return Buffer.concat(Array(mib).fill(member));
}

beforeAll(async () => {
  feeds = await startFeedServer();
  feeds.routes.set('/tor', { body: torList(EXITS), etag: '"good"' });
  server = await startServer({
    threads: 2,
    env: { ...NO_RATE_LIMIT, SPLITGUARD_IPDB_SOURCES: 'package:', SPLITGUARD_FEEDS: 'tor', SPLITGUARD_FEED_SOURCES: `tor=${feeds.url('/tor')}` },
  });
});
afterAll(async () => {
  await server?.close();
  await feeds?.close();
});

it('refuses a feed body that inflates past the feed cap, quickly, and keeps the last good data', async () => {
  // A good download first.
  let r = await triggerRefresh(server, server.apiKey);
  expect(r.status, r.body).toBe(202);
  await waitUntil(() => databaseStatus(server), (s) => !s.refresh_running && s.last_refresh !== null, 60_000, 100);
  expect((await databaseStatus(server)).feeds.find((f) => f.name === 'tor')).toMatchObject({ ranges: 40, last_outcome: 'updated' });

  const body = bomb(70);
  expect(body.length).toBeLessThan(1 << 20);
  feeds.routes.set('/tor', { body, etag: '"bomb"' });
  const before = (await databaseStatus(server)).last_refresh!.finished_at;
  const { api_key } = await newAccount(server, 'bomb');
  r = await triggerRefresh(server, api_key);
  expect(r.status, r.body).toBe(202);
  const { value } = await waitUntil(() => databaseStatus(server), (s) => !s.refresh_running && s.last_refresh?.finished_at !== before, 20_000, 200);
  const tor = value.last_refresh!.feeds.find((f) => f.feed === 'tor')!;
  expect(tor.outcome).toBe('failed');
  expect(tor.error).toMatch(/decompresses to more than|larger than/);
  expect(value.feeds.find((f) => f.name === 'tor')).toMatchObject({ ranges: 40, last_outcome: 'failed' });
  expect(server.process.exitCode).toBeNull();
}, 90_000);

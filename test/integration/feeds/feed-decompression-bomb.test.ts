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
import { expect, it } from 'vitest';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { databaseStatus, newAccount, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';

const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);

function bomb(mib: number): Buffer {
  const member = gzipSync(Buffer.from('1.2.3.4\n'.repeat(1 << 17)), { level: 9 }); // 1 MiB inflated
  return Buffer.concat(Array(mib).fill(member));
}

const ctx = useFeedServer({ '/tor': { body: torList(EXITS), etag: '"good"' } }, { tor: '/tor' }, { threads: 2 });

it('refuses a feed body that inflates past the feed cap, quickly, and keeps the last good data', async () => {
  // A good download first.
  let r = await triggerRefresh(ctx.server, ctx.server.apiKey);
  expect(r.status, r.body).toBe(202);
  await waitUntil(() => databaseStatus(ctx.server), (s) => !s.refresh_running && s.last_refresh !== null, 60_000, 100);
  expect((await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')).toMatchObject({ ranges: 40, last_outcome: 'updated' });

  const body = bomb(70);
  expect(body.length).toBeLessThan(1 << 20);
  ctx.feeds.routes.set('/tor', { body, etag: '"bomb"' });
  const before = (await databaseStatus(ctx.server)).last_refresh!.finished_at;
  const { api_key } = await newAccount(ctx.server, 'bomb');
  r = await triggerRefresh(ctx.server, api_key);
  expect(r.status, r.body).toBe(202);
  const { value } = await waitUntil(() => databaseStatus(ctx.server), (s) => !s.refresh_running && s.last_refresh?.finished_at !== before, 20_000, 200);
  const tor = value.last_refresh!.feeds.find((f) => f.feed === 'tor')!;
  expect(tor.outcome).toBe('failed');
  expect(tor.error).toMatch(/decompresses to more than|larger than/);
  expect(value.feeds.find((f) => f.name === 'tor')).toMatchObject({ ranges: 40, last_outcome: 'failed' });
  expect(ctx.server.process.exitCode).toBeNull();
}, 90_000);

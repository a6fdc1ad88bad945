// The feed analogue of finding 4 ("a damaged current.trie was never
// repaired: the refresh trusted the validators"). A feed's last good download
// is damaged on disk (a bad sector, a stray write) while the publisher's list
// has not changed. The next rebuild (another feed changed) folds in the
// feed's months-old snapshot instead (feed_unreadable), and every later
// refresh asks the publisher conditionally with the damaged download's
// validators, gets 304 and records `unchanged`: the download is never fetched
// again while the publisher's ETag stays, and the database keeps the snapshot
// while the feed's state claims the download's version. A refresh should
// treat a download it cannot read like a missing one (no conditional request).
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { check, newAccount, refreshNow } from '../../helpers/refresh.js';

// Not in the shipped Tor snapshot (feeds/snapshots/tor-*).
const EXITS = Array.from({ length: 40 }, (_, i) => `62.210.1.${i + 1}`);
const refresh = async (name: string) => refreshNow(ctx.server, (await newAccount(ctx.server, name)).api_key);

const ctx = useFeedServer({ '/tor': { body: torList(EXITS), etag: '"tor-1"' }, '/openai': { body: '4.151.71.176/28\n4.151.119.48/28\n', etag: '"openai-1"' } }, { tor: '/tor', openai: '/openai' });

it('fetches a damaged feed download again instead of trusting its validators', async () => {
  const first = await refreshNow(ctx.server, ctx.server.apiKey);
  expect(first.last_refresh!.feeds.map((f) => f.outcome)).toEqual(['updated', 'updated']);
  expect((await check(ctx.server, EXITS[39])).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });

  // Damage tor's download in place; the publisher's list is unchanged.
  const dir = path.join(ctx.server.dataDir, 'ipdb', 'feeds');
  const download = readdirSync(dir).find((f) => /^tor\.[0-9a-z]+\.0$/.test(f))!;
  writeFileSync(path.join(dir, download), Buffer.alloc(4096, 0xff));

  // Another feed changes: the database is rebuilt.
  ctx.feeds.routes.set('/openai', { body: '4.151.71.176/28\n4.151.119.48/28\n4.189.118.208/28\n', etag: '"openai-2"' });
  await refresh('openai changed');
  // Then one more refresh: the publisher still has the same tor list.
  const last = await refresh('later');

  const tor = last.feeds.find((f) => f.name === 'tor')!;
  const torRequests = ctx.feeds.requests.filter((r) => r.path === '/tor');
  expect(torRequests.map((r) => r.status), JSON.stringify(tor)).toContain(200);
  expect(torRequests.slice(1).some((r) => r.status === 200), `every later request was conditional: ${JSON.stringify(torRequests)}; tor now ${JSON.stringify(tor)}`).toBe(true);
  expect(tor.version).not.toMatch(/^snapshot/);
  expect((await check(ctx.server, EXITS[39])).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
}, 120_000);

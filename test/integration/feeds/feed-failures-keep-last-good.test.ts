// A feed's nodes are tried in order (failover). When every node fails, or
// answers something unusable (a page of HTML, a list shrunk to a tenth), the
// feed keeps its last good data and says why; the database still holds it.
// An unchanged feed costs one conditional request (304).
import { expect, it } from 'vitest';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { check, databaseStatus, newAccount, refreshNow } from '../../helpers/refresh.js';

const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);
const torFeed = async () => (await databaseStatus(ctx.server)).feeds.find((f) => f.name === 'tor')!;
const refresh = async (name: string) => refreshNow(ctx.server, (await newAccount(ctx.server, name)).api_key);

const ctx = useFeedServer({ '/down': 'refuse', '/tor': { body: torList(EXITS), etag: '"r1"' } }, { tor: '/down,/tor' });

it('fails over to the next node', async () => {
  const status = await refreshNow(ctx.server, ctx.server.apiKey);
  expect(status.last_refresh!.feeds).toEqual([{ feed: 'tor', outcome: 'updated', source: ctx.feeds.url('/tor'), error: null, ms: expect.any(Number) }]);
  expect(await torFeed()).toMatchObject({ ranges: 40, last_outcome: 'updated' });
});

it('asks conditionally and keeps an unchanged feed', async () => {
  ctx.feeds.requests.splice(0);
  const status = await refresh('unchanged');
  expect(status.last_refresh!.feeds[0]).toMatchObject({ outcome: 'unchanged' });
  expect(ctx.feeds.requests.find((r) => r.path === '/tor')).toMatchObject({ ifNoneMatch: '"r1"', status: 304 });
});

it.each([
  ['an HTML page', { body: '<!doctype html><html><body>rate limited</body></html>' }, /1 of 1 entries are malformed/],
  ['a list shrunk to a tenth', { body: torList(EXITS.slice(0, 4)), etag: '"r2"' }, /4 entries, under 50% of the 40/],
  ['HTTP 500', { status: 500 }, /HTTP 500/],
] as const)('keeps the last good data when the publisher serves %s', async (what, reply, why) => {
  ctx.feeds.routes.set('/tor', reply);
  const status = await refresh(`bad ${what}`);
  expect(status.last_refresh!.feeds[0]).toMatchObject({ feed: 'tor', outcome: 'failed', source: null });
  expect(status.last_refresh!.feeds[0].error).toMatch(why);
  expect(await torFeed()).toMatchObject({ ranges: 40, last_outcome: 'failed' });
  expect((await torFeed()).last_error).toMatch(why);
  expect((await check(ctx.server, EXITS[39])).signals.range_feed).toEqual({ feed: 'tor', label: 'tor' });
});

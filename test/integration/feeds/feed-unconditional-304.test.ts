// A feed node that answers 304 Not Modified to a request without a
// validator (the first download after the snapshot asks unconditionally)
// has said nothing about its data: the node fails with that reason and the
// next node is tried. (The feed was recorded "unchanged" and kept its
// snapshot; a two-part node reached readFileSync(null).)
import { expect, it } from 'vitest';
import { torList, useFeedServer } from '../../helpers/feed-server.js';
import { refreshNow } from '../../helpers/refresh.js';

const EXITS = Array.from({ length: 40 }, (_, i) => `185.220.102.${i + 1}`);

const ctx = useFeedServer({ '/not-modified': { status: 304 }, '/tor': { body: torList(EXITS), etag: '"r1"' } }, { tor: '/not-modified,/tor' });

it('fails a node that answers 304 to an unconditional request and takes the next', async () => {
  const status = await refreshNow(ctx.server, ctx.server.apiKey);
  expect(ctx.feeds.requests.find((r) => r.path === '/not-modified')).toMatchObject({ ifNoneMatch: undefined, status: 304 });
  expect(status.last_refresh!.feeds).toEqual([{ feed: 'tor', outcome: 'updated', source: ctx.feeds.url('/tor'), error: null, ms: expect.any(Number) }]);
  expect(status.feeds.find((f) => f.name === 'tor')).toMatchObject({ ranges: 40, last_outcome: 'updated' });
  const failed = ctx.server.logs().filter((l) => l.event === 'feed_source_failed');
  expect(failed).toEqual([expect.objectContaining({ feed: 'tor', source: ctx.feeds.url('/not-modified'), error: `${ctx.feeds.url('/not-modified')}: HTTP 304 to a request without a validator` })]);
}, 120_000);

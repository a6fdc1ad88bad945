// The feeds' downloads together are bounded (FEEDS_MAX_ENTRIES): a feed
// whose download would pass the bound with the other feeds' last good data is
// refused and keeps its own, so publishers each sending up to one feed's cap
// cannot make the database's build run out of memory (ten feeds of a million
// random IPv6 addresses each took it to 5 GB and a failed refresh after four
// minutes, and every refresh after it failed the same way). Two feeds here,
// each just over half the bound: the first fetched (x4b-vpn, in the
// registry's order) is taken, the second refused.
// Both are feeds whose data covers more than 4 times as much already, so that
// the growth rule (limits.ts) takes them.
import { expect, it } from 'vitest';
import { FEEDS_MAX_ENTRIES } from '../../../src/ipdb/feeds/update.js';
import { useFeedServer } from '../../helpers/feed-server.js';
import { databaseStatus, triggerRefresh } from '../../helpers/refresh.js';
import { waitUntil } from '../../helpers/routes.js';


/** `n` consecutive public IPv4 addresses from `first` (11.0.0.0 and up: no special range), one a line. */
function addresses(first: number, n: number): string {
  const lines = new Array<string>(n);
  for (let i = 0; i < n; i++) {
    const a = first + i;
    lines[i] = `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.${a & 255}`;
  }
  return `${lines.join('\n')}\n`;
}

const HALF = FEEDS_MAX_ENTRIES / 2 + 1;

const ctx = useFeedServer({ '/dc': { body: addresses(11 << 24, HALF) }, '/vpn': { body: addresses(12 << 24, HALF) } }, { 'x4b-datacenter': '/dc', 'x4b-vpn': '/vpn' });

it('refuses the download that would pass the bound on all feeds together, and that feed keeps its data', async () => {
  const r = await triggerRefresh(ctx.server, ctx.server.apiKey);
  expect(r.status, r.body).toBe(202);
  const { value } = await waitUntil(() => databaseStatus(ctx.server), (s) => !s.refresh_running && s.last_refresh !== null, 120_000, 200);
  const outcome = (name: string) => value.last_refresh!.feeds.find((f) => f.feed === name)!;
  expect(outcome('x4b-vpn').outcome).toBe('updated');
  expect(outcome('x4b-datacenter').outcome).toBe('failed');
  expect(outcome('x4b-datacenter').error).toContain(`${HALF} entries, which with the ${HALF} the other feeds hold pass the ${FEEDS_MAX_ENTRIES} all feeds may hold together`);
  expect(value.feeds.find((f) => f.name === 'x4b-datacenter')).toMatchObject({ last_outcome: 'failed' });
  expect(ctx.server.process.exitCode).toBeNull();
}, 180_000);

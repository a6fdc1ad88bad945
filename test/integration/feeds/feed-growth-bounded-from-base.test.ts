// A feed's publisher growing its list 4 times a week, every week, passed the
// growth rule (limits.ts) week after week: measured against the week's
// smallest cover only, a Tor list went from the snapshot's 1,651 addresses
// to 6,604, then 26,416, then 105,664 (the hostile-publisher review). The
// feed's base, the cover its first download was measured from, now bounds it
// for 90 days: the second week's step is refused, naming the base, and the
// feed keeps its last good data. Once the base is 90 days old the step is
// taken and the week's smallest becomes the base (4 times a quarter, not a
// week); `ipdb reset-feed` takes the publisher's list at once as the new
// base. The feeds' real update (updateFeeds) runs here on a real store and
// a loopback publisher, with the clock (Date alone) moved between refreshes.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { DAY_MS } from '../../../src/days.js';
import { DEFAULT_LIMITS } from '../../../src/ipdb/fetch.js';
import { FEEDS } from '../../../src/ipdb/feeds/registry.js';
import { feedState, resetFeed } from '../../../src/ipdb/feeds/state.js';
import { updateFeeds } from '../../../src/ipdb/feeds/update.js';
import { StateStore } from '../../../src/store/state-store.js';
import { type FeedServer, startFeedServer, torList } from '../../helpers/feed-server.js';
import { useLocalRepositories } from '../../helpers/local-stores.js';

const tor = FEEDS.find((f) => f.name === 'tor')!;
const local = useLocalRepositories('sg-feed-base-');
const dir = mkdtempSync(path.join(os.tmpdir(), 'sg-feed-base-data-'));
let feeds: FeedServer;
let state: StateStore;
beforeAll(async () => {
  feeds = await startFeedServer();
  state = new StateStore(local.stores, local.backend);
});
afterEach(() => {
  vi.useRealTimers();
});
afterAll(async () => {
  await feeds?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The first `n` of a fixed run of carrier addresses (AS7922): each list holds the one before it, so the memory adds nothing. */
const exits = (n: number) => Array.from({ length: n }, (_, i) => `73.${1 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`);

/** Serves `n` exits and runs the tor feed's refresh at `at`; its outcome and error. */
async function refreshAt(at: number, n: number): Promise<{ outcome: string; error: string | null }> {
  feeds.routes.set('/tor', { body: torList(exits(n)), etag: `"${n}"` });
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(at);
  const work = mkdtempSync(path.join(os.tmpdir(), 'sg-feed-base-work-'));
  try {
    const [out] = await updateFeeds([tor], { state, dataDir: dir, work, limits: DEFAULT_LIMITS, sources: () => [feeds.url('/tor')] });
    return { outcome: out!.outcome, error: out!.error };
  } finally {
    vi.useRealTimers();
    rmSync(work, { recursive: true, force: true });
  }
}

it('stops a list grown 4 times a week at 4 times its base, until the base ages or a reset', async () => {
  const start = Date.parse('2026-11-01T12:00:00Z');
  const day = (n: number) => start + n * DAY_MS;
  // The snapshot covers 1,651 (1,372 exits and 279 remembered): 6,000 is within 4 times it, and becomes the data.
  expect(await refreshAt(day(0), 6000)).toEqual({ outcome: 'updated', error: null });
  expect(feedState(state, 'tor').base).toEqual({ at: '2026-11-01T12:00:00.000Z', v4: '1651', v6: '0' });
  // Eight days on, 24,000 is within 4 times the week's smallest (6,000), not 4 times the base.
  const refused = await refreshAt(day(8), 24_000);
  expect(refused.outcome).toBe('failed');
  expect(refused.error).toContain('covers 24000 IPv4 addresses, more than 4 times the 1651 its data covered when taken as its base on 2026-11-01 (6604 allowed for 90 days from then)');
  expect(feedState(state, 'tor')).toMatchObject({ entries: 6000, last_outcome: 'failed' });
  // 91 days on, the base has aged: the step is taken, and the week's smallest (the 6,000 held) is the base.
  expect(await refreshAt(day(91), 24_000)).toEqual({ outcome: 'updated', error: null });
  expect(feedState(state, 'tor').base).toMatchObject({ v4: '6000' });
  expect((await refreshAt(day(99), 90_000)).error).toContain('more than 4 times the 6000 its data covered when taken as its base on 2027-01-31');
  // The operator takes the grown list: it is the new base at once.
  await resetFeed(state, dir, 'tor', new Date(day(99)));
  expect(await refreshAt(day(99), 90_000)).toEqual({ outcome: 'updated', error: null });
  expect(feedState(state, 'tor').base).toMatchObject({ v4: '90000' });
}, 120_000);

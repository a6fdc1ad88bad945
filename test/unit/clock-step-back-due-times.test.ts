// Due times set while the wall clock ran ahead (then stepped back: NTP, a
// restored VM) hold nothing off until the clock catches up: the daily
// refresh and a feed whose due time lies further ahead than their interval
// ever sets it are due now, and an account's refresh trigger stamped a
// whole hour in the future does not hold its allowance. Before, a year's
// step held off the refresh and the feeds for a year, and the account's
// manual refresh for a year and an hour. (PostgreSQL's trigger claim:
// cluster/refresh-trigger-after-clock-step-back.test.ts.)
import { beforeAll, expect, it } from 'vitest';
import { useLocalStores } from '../helpers/local-stores.js';
import { dueFeeds } from '../../src/ipdb/feeds/update.js';
import { FEEDS } from '../../src/ipdb/feeds/registry.js';
import { EMPTY_STATE, saveFeedState } from '../../src/ipdb/feeds/state.js';
import { scheduledRefresh, storeNextDue } from '../../src/ipdb/refresh.js';
import { LmdbBackend } from '../../src/store/lmdb-backend.js';
import { StateStore } from '../../src/store/state-store.js';

const T = Date.UTC(2026, 10, 27, 12, 0, 0);
const HOUR = 3_600_000;
const YEAR = 365 * 24 * HOUR;
const local = useLocalStores('splitguard-clock-due-');
let backend: LmdbBackend;
let state: StateStore;
beforeAll(() => {
  backend = new LmdbBackend(local.stores);
  state = new StateStore(local.stores, backend);
});

it('takes a daily refresh due further ahead than its interval with jitter as due now, and a normal one as stored', async () => {
  await storeNextDue(state, T + YEAR);
  expect(scheduledRefresh(state, T, 24)).toBe(T);
  // 24 h plus the most jitter (10 %, at most an hour) is a due time a refresh sets.
  await storeNextDue(state, T + 25 * HOUR);
  expect(scheduledRefresh(state, T, 24)).toBe(T + 25 * HOUR);
});

it('takes a feed due further ahead than its interval as due now, and one due within it as not due', async () => {
  const feed = FEEDS.find((f) => f.name === 'tor')!;
  const sources = () => ['http://127.0.0.1:1/tor.txt'];
  await saveFeedState(state, feed.name, { ...EMPTY_STATE, next_due_at: new Date(T + YEAR).toISOString() });
  expect(dueFeeds([feed], state, T, sources).map((f) => f.name)).toEqual(['tor']);
  await saveFeedState(state, feed.name, { ...EMPTY_STATE, next_due_at: new Date(T + feed.refreshHours * HOUR).toISOString() });
  expect(dueFeeds([feed], state, T, sources)).toEqual([]);
});

it("lets an account trigger again when its last trigger is a whole hour in the future, and not when it is within the hour", async () => {
  expect(await backend.claimRefreshTrigger(7, T + YEAR, HOUR)).toBe(0);
  // The clock is stepped back a year: the claim from the future holds nothing.
  expect(await backend.claimRefreshTrigger(7, T, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(7, T + 10 * 60_000, HOUR)).toBe(T);
  // A claim less than an hour ahead (another node's clock) still holds.
  expect(await backend.claimRefreshTrigger(8, T + 30 * 60_000, HOUR)).toBe(0);
  expect(await backend.claimRefreshTrigger(8, T, HOUR)).toBe(T + 30 * 60_000);
});

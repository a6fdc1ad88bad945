// A feed is due when it was never fetched or its next due time has passed,
// and only if it has a source to fetch from: a feed the configuration gives
// no node (SPLITGUARD_FEED_SOURCES='aws=') would otherwise be due for ever
// and start an empty run every minute.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FEEDS, type FeedDefinition } from '../../../src/ipdb/feeds/registry.js';
import { saveFeedState, EMPTY_STATE } from '../../../src/ipdb/feeds/state.js';
import { dueFeeds } from '../../../src/ipdb/feeds/update.js';
import { openStorage, type Storage } from '../../../src/store/storage.js';

let dir: string;
let storage: Storage;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sg-due-feeds-'));
  storage = await openStorage(dir);
});
afterAll(async () => {
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
});

const byName = (...names: string[]) => names.map((n) => FEEDS.find((f) => f.name === n)!);
const NOW = Date.parse('2026-11-23T12:00:00Z');
const publishers = (f: FeedDefinition) => f.sources;

it('is due when never fetched or past its due time, not before', async () => {
  await saveFeedState(storage.state, 'aws', { ...EMPTY_STATE, next_due_at: new Date(NOW - 1).toISOString() });
  await saveFeedState(storage.state, 'tor', { ...EMPTY_STATE, next_due_at: new Date(NOW + 60_000).toISOString() });
  const names = dueFeeds(byName('aws', 'tor', 'mullvad'), storage.state, NOW, publishers).map((f) => f.name);
  expect(names).toEqual(['aws', 'mullvad']);
});

it('is never due without a source', () => {
  const noAws = (f: FeedDefinition) => (f.name === 'aws' ? [] : f.sources);
  expect(dueFeeds(byName('aws', 'mullvad'), storage.state, NOW, noAws).map((f) => f.name)).toEqual(['mullvad']);
});

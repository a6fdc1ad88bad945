// click_spill's stored form is its own (db.ts SpilledDay): a route-day's
// counters sit under `c` there, whatever the name in memory, so a batch
// spilled by an earlier version (a node stopped while PostgreSQL was away,
// then upgraded) is read back and sent whole, and a batch spilled now is
// written in the same form.
import { expect, it } from 'vitest';
import type { Backend, DayCounts } from '../../../src/store/backend.js';
import { Stats, zeroDay } from '../../../src/store/stats-store.js';
import { useLocalStores } from '../../helpers/local-stores.js';

const local = useLocalStores('sg-spill-');

/** A back end that takes every batch and keeps what it was sent. */
function recordingBackend(sent: DayCounts[][]): Backend {
  return {
    lastClickBatch: async () => 0,
    addClicks: async (days: readonly DayCounts[]) => {
      sent.push([...days]);
    },
  } as unknown as Backend;
}

it('sends a batch spilled in the stored form with its counters', async () => {
  const counters = { ...zeroDay(), clicks: 5, a: 3, b: 2 };
  local.stores.clickSpill.putSync([7, 1000], [{ routeId: 4, day: 20_000, c: counters }]);
  const sent: DayCounts[][] = [];
  await new Stats(recordingBackend(sent), local.stores, { name: 'n/7', slot: 7 }).drain();
  expect(sent).toEqual([[{ routeId: 4, day: 20_000, counts: counters }]]);
  expect(local.stores.clickSpill.getCount({ start: [7, 0], end: [7, Number.MAX_SAFE_INTEGER] })).toBe(0);
});

it('spills a batch in the stored form', () => {
  const stats = new Stats(recordingBackend([]), local.stores, { name: 'n/8', slot: 8 }, 0);
  const counters = { ...zeroDay(), clicks: 1, a: 1 };
  stats.enqueue([{ routeId: 9, day: 20_001, counts: counters }]);
  const spilled = [...local.stores.clickSpill.getRange({ start: [8, 0], end: [8, Number.MAX_SAFE_INTEGER] })];
  expect(spilled.map((e) => e.value)).toEqual([[{ routeId: 9, day: 20_001, c: counters }]]);
});

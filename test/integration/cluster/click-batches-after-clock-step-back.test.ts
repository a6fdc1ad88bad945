// Cluster mode: click batches carry sequence numbers made of the wall clock
// (store/stats-store.ts), and PostgreSQL adds a batch only when its sequence
// is newer than the writer's last (click_flushes). A node whose clock was
// stepped back (NTP correcting a clock that ran ahead, a VM restored from a
// snapshot) and that restarts still has its clicks counted: its first
// batches are numbered above the last one taken. Before, both were
// acknowledged and counted nowhere (5 stored instead of 12).
import { afterAll, expect, it, vi } from 'vitest';
import type { DayCounts } from '../../../src/store/backend.js';
import { Stats, zeroDay } from '../../../src/store/stats-store.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-clicks-clock-');
const backend = () => fixture.backend();
afterAll(() => vi.restoreAllMocks());
const day = (clicks: number): DayCounts => ({ routeId: 1, day: 20_416, counts: { ...zeroDay(), clicks, a: clicks } });
const stored = async () => Number((await fixture.pg.query<{ clicks: string }>('SELECT clicks FROM route_days WHERE route_id = 1'))[0]?.clicks ?? 0);

it.skipIf(fixture.skip)('a node restarted after its clock stepped back 10 s still has its clicks counted', async () => {
  const writer = { name: 'node-a/1', slot: 1 };
  const T = Date.now();
  const now = vi.spyOn(Date, 'now').mockReturnValue(T);
  await new Stats(backend(), fixture.stores, writer).add([day(5)]);
  expect(await stored()).toBe(5);

  // The clock is stepped back 10 seconds; the node restarts (its memory, and its last sequence, are gone).
  now.mockReturnValue(T - 10_000);
  const restarted = new Stats(backend(), fixture.stores, writer);
  await restarted.add([day(3)]); // acknowledged: drain resolved, nothing queued
  expect(restarted.queuedDays).toBe(0);
  now.mockReturnValue(T - 9_000);
  await restarted.add([day(4)]);
  expect(await stored()).toBe(12);
});

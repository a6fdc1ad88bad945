// Click batches reach PostgreSQL exactly once (store/stats-store.ts with the
// PostgreSQL back end, against a real PostgreSQL and a real LMDB):
// - a batch sent again (its first commit taken but not acknowledged) is
//   not counted twice;
// - while PostgreSQL is stopped, batches wait in memory and, past the
//   bound, in the local LMDB; they survive a restart of the writer, and
//   once PostgreSQL is back every one is added once, in order.
import { expect, it } from 'vitest';
import type { DayCounts } from '../../../src/store/backend.js';
import { Stats, zeroDay } from '../../../src/store/stats-store.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-clicks-');
const backend = () => fixture.backend();

const day = (routeId: number, clicks: number): DayCounts => ({ routeId, day: 20_000, counts: { ...zeroDay(), clicks, a: clicks } });
const stored = async (routeId: number) =>
  Number((await fixture.pg.query<{ clicks: string }>('SELECT clicks FROM route_days WHERE route_id = $1', [routeId]))[0]?.clicks ?? 0);
const storedFrom = async (routeId: number) =>
  Number((await fixture.pg.query<{ clicks: string }>('SELECT sum(clicks) AS clicks FROM route_days WHERE route_id >= $1', [routeId]))[0]?.clicks ?? 0);

it.skipIf(fixture.skip)('a batch sent twice is counted once; batches kept and spilled while PostgreSQL is away are each counted once when it returns', async () => {
  const b = backend();

  await b.addClicks([day(1, 5)], { writer: 'n/1', seq: 10 });
  await b.addClicks([day(1, 5)], { writer: 'n/1', seq: 10 });
  await b.addClicks([day(1, 3)], { writer: 'n/1', seq: 9 });
  expect(await stored(1)).toBe(5);
  // Another writer's sequence is its own.
  await b.addClicks([day(1, 2)], { writer: 'n/2', seq: 1 });
  expect(await stored(1)).toBe(7);

  const writer = { name: 'n/3', slot: 3 };
  let stats = new Stats(b, fixture.stores, writer, 4);
  fixture.pg.stop();
  // Ten hand-overs of one route-day each, each route its own (one route-day
  // handed over again is added into the batch that was never sent): 4 fit
  // in memory, 6 spill to LMDB (into one batch, never sent meanwhile).
  for (let i = 0; i < 10; i++) {
    stats.enqueue([day(2 + i, 1)]);
    await expect(stats.drain()).rejects.toMatchObject({ code: 'storage_unavailable' });
  }
  expect(stats.queuedDays).toBe(4);
  expect(stats.keptDays()).toBe(6);

  // The writer restarts (its memory is gone, the spill stays), PostgreSQL returns.
  stats = new Stats(backend(), fixture.stores, writer, 4);
  fixture.pg.start();
  await stats.drain();
  expect(await storedFrom(2)).toBe(6);
  expect(fixture.stores.clickSpill.getCount({ start: [3, 0], end: [3, Number.MAX_SAFE_INTEGER] })).toBe(0);
  await stats.drain();
  expect(await storedFrom(2)).toBe(6);
});

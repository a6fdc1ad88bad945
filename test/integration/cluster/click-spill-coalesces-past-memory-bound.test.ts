// Past the route-days a writer keeps in memory while PostgreSQL is away,
// the clicks it is handed still wait as one entry per route and day
// (store/stats-store.ts, against a real PostgreSQL and a real LMDB). Finding
// 118 added each hand-over into the batch in memory, but once that batch
// held the bound (50,000 route-days) every hand-over with a route-day it did
// not hold went to the local spill whole, as a batch of its own, every
// second: a stranger visiting 60,000 public links round robin at 10,000 a
// second grew the spill by 10,000 route-days every 5 s for as long as the
// outage lasted. Here the bound is 4: six routes visited each second.
import { expect, it } from 'vitest';
import type { DayCounts } from '../../../src/store/backend.js';
import { Stats, zeroDay } from '../../../src/store/stats-store.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-click-spill-coalesces-');

const ROUTES = 6;
const SECONDS = 20;
const handOver = (): DayCounts[] => Array.from({ length: ROUTES }, (_, i) => ({ routeId: 1 + i, day: 20_000, counts: { ...zeroDay(), clicks: 1, a: 1 } }));

it.skipIf(fixture.skip)('keeps one entry per route and day in the spill too, and counts every click once', async () => {
  const writer = { name: 'n/1', slot: 1 };
  let stats = new Stats(fixture.backend(), fixture.stores, writer, 4);
  fixture.pg.stop();
  for (let s = 0; s < SECONDS; s++) {
    stats.enqueue(handOver());
    await expect(stats.drain()).rejects.toMatchObject({ code: 'storage_unavailable' });
  }
  // In memory and in the spill together, each route-day at most twice (the batch a failed send left at the head, and the one after).
  expect(stats.queuedDays + stats.keptDays()).toBeLessThanOrEqual(2 * ROUTES);

  // A stop keeps what is in memory; the next run sends it all, each click once.
  stats.keepQueued();
  stats = new Stats(fixture.backend(), fixture.stores, writer, 4);
  fixture.pg.start();
  await stats.drain();
  const rows = await fixture.pg.query<{ route_id: string; clicks: string }>('SELECT route_id, clicks FROM route_days ORDER BY route_id');
  expect(rows.map((r) => [Number(r.route_id), Number(r.clicks)])).toEqual(Array.from({ length: ROUTES }, (_, i) => [1 + i, SECONDS]));
  expect(stats.keptDays()).toBe(0);
});

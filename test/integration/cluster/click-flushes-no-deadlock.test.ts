// Two nodes flushing clicks for the same route days at once wait for each
// other, never deadlock (store/pg/backend.ts addClicks, against a real
// PostgreSQL): each batch's rows are upserted in (route, day) order, so
// every writer takes the row locks in the same order. A node's batch comes
// in whatever order its counters were first touched; here the two writers'
// batches hold the same 400 route days in opposite orders, without the sort,
// half the rounds failed with "deadlock detected" (40P01).
import { expect, it } from 'vitest';
import type { DayCounts } from '../../../src/store/backend.js';
import { zeroDay } from '../../../src/store/stats-store.js';
import { usePgBackend } from '../../helpers/pg-backend.js';

const fixture = usePgBackend('sg-click-deadlock-');

const ROUTES = 400;
const ROUNDS = 6;

const batch = (order: number[]): DayCounts[] => order.map((routeId) => ({ routeId, day: 20_000, counts: { ...zeroDay(), clicks: 1, a: 1 } }));

it.skipIf(fixture.skip)('two writers flushing the same route days in opposite orders both commit, every click counted', async () => {
  const one = fixture.backend();
  const two = fixture.backend();
  const up = Array.from({ length: ROUTES }, (_, i) => i + 1);
  const down = [...up].reverse();
  const failures: unknown[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const results = await Promise.allSettled([
      one.addClicks(batch(up), { writer: 'a/1', seq: round }),
      two.addClicks(batch(down), { writer: 'b/1', seq: round }),
    ]);
    for (const r of results) if (r.status === 'rejected') failures.push(r.reason);
  }
  expect(failures.map((e) => (e as Error).message)).toEqual([]);
  const rows = await fixture.pg.query<{ clicks: string }>('SELECT clicks FROM route_days WHERE day = 20000');
  expect(rows).toHaveLength(ROUTES);
  expect(new Set(rows.map((r) => Number(r.clicks)))).toEqual(new Set([2 * ROUNDS]));
});

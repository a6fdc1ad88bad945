// A deleted route's data (its click days, variant days, sketches,
// conversions and conversion days) is removed after the deletion, in
// transactions of PURGE_CHUNK keys: a route holding a million conversions,
// removed in the deletion's own transaction, held its thread and every
// writer of the store for 1.7 s (docs/reliability.md, finding 97). A write
// queued behind the deletion commits while the purge goes on, the data goes
// to the last key, and a purge a stop interrupted is finished at the next
// start (purgeDeletedRoutes), leaving other routes' data alone.
import { expect, it } from 'vitest';
import type { Stores } from '../../../src/store/db.js';
import { PURGE_CHUNK } from '../../../src/store/lmdb-backend.js';
import { useLocalRepositories } from '../../helpers/local-stores.js';

const local = useLocalRepositories('sg-route-purge-');

const CONVERSIONS = 30 * PURGE_CHUNK;

/** Gives a route data in every per-route table, as months of visits and conversions would. */
function fill(s: Stores, routeId: number): void {
  s.root.transactionSync(() => {
    for (let day = 1; day <= 40; day++) {
      s.stats.putSync([routeId, day], { clicks: 1 } as never);
      s.variantDays.putSync([routeId, day], { clicks: [1, 1] });
      s.sketches.putSync([routeId, day, 0], new Uint8Array([2]));
      s.conversionDays.putSync([routeId, day, 'buy'], { count: [1], value: [0] });
    }
    for (let i = 0; i < CONVERSIONS; i++) {
      s.conversions.putSync([routeId, 'buy', i.toString(16).padStart(16, '0')], { variant: 0, day: 1, at: 1, value: null });
    }
  });
}

function storedUnder(s: Stores, routeId: number): number {
  const range = { start: [routeId], end: [routeId + 1] };
  return [s.stats, s.variantDays, s.sketches, s.conversions, s.conversionDays].reduce((n, db) => n + db.getKeysCount(range), 0);
}

const newRoute = async (name: string) => {
  const account = await local.accounts.create(name, 10);
  return { account, route: await local.routes.create(account, { name, pageA: 'https://a.example/', pageB: 'https://b.example/' }) };
};

it('answers the deletion and the writes behind it before the data is gone, then removes all of it', async () => {
  const s = local.stores;
  const { account, route } = await newRoute('big');
  const { route: other } = await newRoute('other');
  fill(s, route.id);
  fill(s, other.id);

  const deletion = local.routes.delete(account.id, route.id);
  const behind = local.accounts.create('behind', 10);
  expect(await deletion).toBe(true);
  await behind;
  // Committed while most of the route's data is still there: the deletion held nobody up for it.
  expect(storedUnder(s, route.id)).toBeGreaterThan(CONVERSIONS / 2);

  await expect.poll(() => storedUnder(s, route.id), { timeout: 20_000, interval: 20 }).toBe(0);
  await expect.poll(() => [...s.meta.getKeys({ start: 'purge:', end: 'purge:~' })], { timeout: 5000 }).toEqual([]);
  expect(storedUnder(s, other.id)).toBe(CONVERSIONS + 160);
});

it('finishes at the next start a purge that a stop interrupted', async () => {
  const s = local.stores;
  const { account, route } = await newRoute('interrupted');
  const { route: kept } = await newRoute('kept');
  await local.routes.delete(account.id, route.id);
  await expect.poll(() => [...s.meta.getKeys({ start: 'purge:', end: 'purge:~' })], { timeout: 5000 }).toEqual([]);
  // As a stop in the middle leaves it: the marker and data still under the deleted route.
  fill(s, route.id);
  fill(s, kept.id);
  await s.root.transaction(() => s.meta.put(`purge:route:${route.id}`, true));

  await local.routes.purgeDeleted();
  expect(storedUnder(s, route.id)).toBe(0);
  expect([...s.meta.getKeys({ start: 'purge:', end: 'purge:~' })]).toEqual([]);
  expect(storedUnder(s, kept.id)).toBe(CONVERSIONS + 160);
});

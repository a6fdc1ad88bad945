// The account's count of stored conversions (meta conversions:account:<id>,
// the quota's) follows a deleted route's purge: each chunk's transaction
// subtracts the conversions it removed, down to what the account's other
// routes hold. A purge marker written before the count existed (`true`)
// subtracts nothing (its conversions were never counted), and the count
// never goes below 0.
import { expect, it } from 'vitest';
import type { ConversionInput } from '../../../src/store/experiments-store.js';
import { PURGE_CHUNK } from '../../../src/store/lmdb-backend.js';
import { useLocalRepositories } from '../../helpers/local-stores.js';

/** Where the store keeps an account's count (meta, store/db.ts). */
const countKey = (accountId: number) => `conversions:account:${accountId}`;

const local = useLocalRepositories('sg-conversion-count-');

const counted = (accountId: number) => local.stores.meta.get(countKey(accountId)) as number | undefined;
const conversionsOf = (routeId: number) => local.stores.conversions.getKeysCount({ start: [routeId], end: [routeId + 1] });

/** `n` new conversions of the route through the back end, 100 a commit; returns how many it counted. */
async function convert(accountId: number, routeId: number, n: number, quota = 0): Promise<number> {
  const items: ConversionInput[] = Array.from({ length: n }, (_, i) => ({
    routeId, accountId, goal: `g${i % 10}`, visitor: i.toString(16).padStart(16, '0'), variant: i % 2, day: 20_000, at: 0, value: null,
  }));
  let stored = 0;
  for (let at = 0; at < n; at += 100) stored += (await local.backend.addConversions(items.slice(at, at + 100), quota)).filter((o) => o === 'counted').length;
  return stored;
}

const purged = () => expect.poll(() => [...local.stores.meta.getKeys({ start: 'purge:', end: 'purge:~' })], { timeout: 20_000, interval: 20 }).toEqual([]);

it("subtracts a deleted route's conversions chunk by chunk, down to the account's other routes'", async () => {
  const account = await local.accounts.create('two routes', 10);
  const big = await local.routes.create(account, { name: 'big', pageA: 'https://a.example/', pageB: 'https://b.example/' });
  const small = await local.routes.create(account, { name: 'small', pageA: 'https://a.example/', pageB: 'https://b.example/' });
  const many = 2 * PURGE_CHUNK + 7;
  expect(await convert(account.id, big.id, many)).toBe(many);
  expect(await convert(account.id, small.id, 30)).toBe(30);
  expect(counted(account.id)).toBe(many + 30);

  expect(await local.routes.delete(account.id, big.id)).toBe(true);
  await purged();
  expect(conversionsOf(big.id)).toBe(0);
  expect(counted(account.id)).toBe(30);
});

it('leaves the count alone for a marker from before it (true), and never takes it below 0', async () => {
  const s = local.stores;
  const account = await local.accounts.create('old marker', 10);
  const route = await local.routes.create(account, { name: 'r', pageA: 'https://a.example/', pageB: 'https://b.example/' });
  const gone = await local.routes.create(account, { name: 'gone', pageA: 'https://a.example/', pageB: 'https://b.example/' });
  expect(await convert(account.id, route.id, 5)).toBe(5);
  expect(await convert(account.id, gone.id, 40)).toBe(40);
  expect(await local.routes.delete(account.id, gone.id)).toBe(true);
  await purged();
  expect(counted(account.id)).toBe(5);

  // A purge an older version's deletion left: its marker names no account.
  await s.root.transaction(() => {
    for (let i = 0; i < 40; i++) s.conversions.put([gone.id, 'g', i.toString(16).padStart(16, '0')], { variant: 0, day: 1, at: 1, value: null });
    s.meta.put(`purge:route:${gone.id}`, true);
  });
  await local.routes.purgeDeleted();
  expect(conversionsOf(gone.id)).toBe(0);
  expect(counted(account.id)).toBe(5);

  // A marker naming the account, over more conversions than it counts: the count ends at 0 (absent), not below.
  await s.root.transaction(() => {
    for (let i = 0; i < 40; i++) s.conversions.put([gone.id, 'g', i.toString(16).padStart(16, '0')], { variant: 0, day: 1, at: 1, value: null });
    s.meta.put(`purge:route:${gone.id}`, { accountId: account.id });
  });
  await local.routes.purgeDeleted();
  expect(conversionsOf(gone.id)).toBe(0);
  expect(counted(account.id)).toBeUndefined();
});

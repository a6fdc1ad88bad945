// The local store's sketch retention (store/sketch-prune.ts) walks the
// sketches database route by route in transactions of at most 1,000 keys:
// whatever the chunks' boundaries, exactly the per-day keys before the
// bound go, of every route (one with 1,500 of them, more than a
// transaction's; routes with lifetime keys only, 8 variants; gaps in the
// route ids), and every lifetime key and later day stays.
import { expect, it } from 'vitest';
import { useLocalStores } from '../../helpers/local-stores.js';
import { pruneLocalSketches } from '../../../src/store/sketch-prune.js';

const local = useLocalStores('sg-sketch-prune-');
const BEFORE = 1000;

it('removes exactly the per-day keys before the bound, across transactions', async () => {
  const { sketches } = local.stores;
  const bytes = new Uint8Array([2]);
  const all: [number, number, number][] = [];
  const put = (route: number, days: number[], variants: number) => {
    for (const day of [0, ...days]) for (let v = 0; v < variants; v++) all.push([route, day, v]);
  };
  put(1, Array.from({ length: 750 }, (_, i) => BEFORE - 750 + i), 2); // 1,500 to remove, none kept
  put(2, [], 8); // lifetime only
  put(3, [], 8);
  for (let r = 10; r < 400; r += 3) put(r, [BEFORE - 5, BEFORE - 1, BEFORE, BEFORE + 3], 1 + (r % 8));
  put(500, [BEFORE + 1], 8); // nothing to remove
  put(501, [1], 2); // the first day there is
  await local.stores.root.transaction(() => {
    for (const key of all) sketches.put(key, bytes);
  });
  let transactions = 0;
  const removed = await pruneLocalSketches(local.stores, BEFORE, () => ++transactions > 0);
  const expected = all.filter(([, day]) => day === 0 || day >= BEFORE);
  expect(removed).toBe(all.length - expected.length);
  expect([...sketches.getKeys()]).toEqual(expected);
  expect(transactions).toBeGreaterThan(2);
});

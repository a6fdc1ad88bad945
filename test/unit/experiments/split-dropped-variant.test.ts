// A variant whose weight goes to 0, or that a shorter list drops, keeps no
// bucket of the layout, however little it held (src/experiments/split.ts
// nextLayout); a stored layout naming such a variant is replaced when the
// route is read (layoutOf). Before, a share at or under 1e-15 was skipped:
// three weight changes a tenant chose left variant c owning [0.5, 0.5+1e-15)
// on a route of two variants, and the visitor whose bucket is 0.5 made the
// redirect throw, ending the server at every start.
import { expect, it } from 'vitest';
import { initialLayout, layoutFits, nextLayout } from '../../../src/experiments/split.js';
import { layoutOf } from '../../../src/store/routes-store.js';
import { TEST_SEED, xorshift32 } from '../../helpers/seeded.js';

it('leaves no sliver to a variant a change sets to 0 or drops', () => {
  let layout = initialLayout([1, 1, 0, 0]);
  for (const weights of [[0.5, 0, 3e-15, 0.5 - 3e-15], [0.4, 0, 1e-15, 0.6 - 1e-15], [1, 1]]) {
    layout = nextLayout(layout, weights);
    expect(layoutFits(layout, weights), JSON.stringify(layout)).toBe(true);
  }
  for (let i = 1; i < layout.length; i += 2) expect(layout[i]).toBeLessThan(2);
});

it(`keeps every layout of 20,000 random weight changes fit for its weights (seed ${TEST_SEED})`, () => {
  const next = xorshift32(TEST_SEED, 114);
  const weight = () => {
    const r = next() % 6;
    // Zeros, slivers, huge and ordinary weights, as a tenant may send them.
    return r === 0 ? 0 : r === 1 ? (next() % 10) * 1e-15 : r === 2 ? next() : (next() % 1000) / 10;
  };
  let weights = [1, 1];
  let layout = initialLayout(weights);
  for (let i = 0; i < 20_000; i++) {
    const count = 2 + (next() % 7);
    weights = Array.from({ length: count }, weight);
    if (!weights.some((w) => w > 0)) weights[next() % count] = 1;
    layout = nextLayout(layout, weights);
    expect(layoutFits(layout, weights), `${JSON.stringify(weights)} → ${JSON.stringify(layout)}`).toBe(true);
  }
});

it('replaces a stored layout that names a variant the route does not have', () => {
  const variants = [{ url: 'https://a.example/', weight: 1 }, { url: 'https://b.example/', weight: 1 }];
  expect(layoutOf({ pageA: '', pageB: '', splitRatio: 0.5, variants, layout: [0.5, 0, 0.500000000000001, 2, 1, 1] })).toEqual(initialLayout([1, 1]));
  expect(layoutOf({ pageA: '', pageB: '', splitRatio: 0.5, variants, layout: [0.3, 1, 1, 0] })).toEqual([0.3, 1, 1, 0]);
});

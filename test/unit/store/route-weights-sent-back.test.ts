// A PUT that sends back the split a route already has changes no share, so
// the split's layout stays and the sample-ratio check keeps its days. A
// route created with weights 40/30 answers split_ratio 0.5714285714285714;
// sent back, that made weights whose shares differ from 40/70 in the last
// bit, which counted as a weight change (for 3,936 of the 10,000 integer
// weight pairs up to 100) and restarted the check. A real change still counts.
import { expect, it } from 'vitest';
import { applyRouteChanges } from '../../../src/store/routes-store.js';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const route = (a: number, b: number) => applyRouteChanges(undefined, { name: 'r', variants: [{ url: 'https://a.example/', weight: a }, { url: 'https://b.example/', weight: b }] }, T0);

it('keeps the layout and no weight change for a split_ratio sent back as it was answered', () => {
  let pairs = 0;
  for (let a = 1; a <= 100; a += 3) {
    for (let b = 1; b <= 100; b += 7) {
      const before = route(a, b);
      const after = applyRouteChanges(before, { splitRatio: before.splitRatio! }, T1);
      expect(after.weightsChangedAt, `${a}/${b}`).toBeUndefined();
      expect(after.layout).toEqual(before.layout);
      pairs++;
    }
  }
  expect(pairs).toBeGreaterThan(400);
});

it('still takes a real change of the split', () => {
  const before = route(40, 30);
  const after = applyRouteChanges(before, { splitRatio: 0.6 }, T1);
  expect(after.weightsChangedAt).toBe(T1);
  expect(after.layout).not.toEqual(before.layout);
});

// Hll.unionEstimate, which a report takes per variant and period on every
// route detail, gives exactly the estimate of the merged sketches (merge of
// each deserialized form, then estimate): sparse forms only (merged through
// the thread's scratch registers, which must be left all 0 for the next
// call), a dense one among them, none at all, and the same forms twice.
import { expect, it } from 'vitest';
import { Hll } from '../../../src/experiments/hll.js';

let seed = 0x2545f491;
const next = () => {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>>= 0);
};
const sketch = (visitors: number) => {
  const h = new Hll();
  for (let i = 0; i < visitors; i++) h.add(next(), next());
  return h.serialize();
};
const merged = (forms: Uint8Array[]) => {
  const h = new Hll();
  for (const f of forms) h.merge(Hll.deserialize(f));
  return h.estimate();
};

it('equals the estimate of the merged sketches, sparse or dense, and leaves nothing behind', () => {
  const sparse = [150, 1, 2000, 40, 7000].map(sketch);
  expect(sparse.every((f) => f[0] === 2)).toBe(true);
  const dense = sketch(30_000);
  expect(dense[0]).toBe(1);
  const cases = [sparse, [sparse[0]], [sparse[1], sparse[1]], [...sparse, dense], [dense], [], [sparse[2], sparse[2], sparse[3]]];
  for (const forms of cases) expect(Hll.unionEstimate(forms)).toBe(merged(forms));
  // Scratch left clean: the same union again, and a single small sketch, still agree.
  for (const forms of cases) expect(Hll.unionEstimate(forms)).toBe(merged(forms));
  expect(Hll.unionEstimate([])).toBe(0);
});

it('refuses a malformed form as deserialize does', () => {
  expect(() => Hll.unionEstimate([new Uint8Array([3, 0, 0])])).toThrow(RangeError);
});

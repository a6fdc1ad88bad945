// The thread's sparse sketch and the stored forms' merge (experiments/hll.ts
// VisitorSketch, mergeForms) against the dense Hll they stand for: every
// take merged into a stored form gives the registers of one Hll that saw
// every visitor, across the sparse table's growth and its change to dense;
// and mergeForms gives what a dense merge of any two forms gives.
import { expect, it } from 'vitest';
import { Hll, mergeForms, VisitorSketch } from '../../../src/experiments/hll.js';
import { TEST_SEED, xorshift32 } from '../../helpers/seeded.js';

const registers = (form: Uint8Array) => Buffer.from(Hll.deserialize(form).registers);

it(`takes, merged, equal one dense sketch of every visitor, from one visitor to saturation (seed ${TEST_SEED})`, () => {
  const next = xorshift32(TEST_SEED, 7);
  for (const visitors of [1, 20, 3000, 9000, 200_000]) {
    const sketch = new VisitorSketch();
    const dense = new Hll();
    let stored: Uint8Array | undefined;
    for (let i = 0; i < visitors; i++) {
      const hi = next();
      const lo = next();
      // A returning visitor grows nothing, in either.
      expect(sketch.add(hi, lo)).toBe(dense.add(hi, lo));
      expect(sketch.add(hi, lo)).toBe(false);
      if (next() < 2 ** 32 / 1000 || i === visitors - 1) {
        const taken = sketch.take();
        if (taken) stored = mergeForms(stored, taken);
      }
    }
    expect(sketch.take()).toBeNull();
    expect(registers(stored!).equals(Buffer.from(dense.registers))).toBe(true);
  }
});

it(`merges any two stored forms as a dense merge does (seed ${TEST_SEED})`, () => {
  const next = xorshift32(TEST_SEED, 11);
  const form = (n: number) => {
    const h = new Hll();
    for (let i = 0; i < n; i++) h.add(next(), next());
    return h;
  };
  for (const [x, y] of [[0, 0], [1, 0], [5, 7], [3000, 3000], [7000, 2000], [100, 50_000], [50_000, 10]]) {
    const a = form(x);
    const b = form(y);
    const expected = new Hll(new Uint8Array(a.registers));
    expected.merge(b);
    // Buffers, as LMDB hands stored forms over: neither may be changed (a Buffer's slice shares memory).
    const [sa, sb] = [Buffer.from(a.serialize()), Buffer.from(b.serialize())];
    const [ca, cb] = [Buffer.from(sa), Buffer.from(sb)];
    const merged = mergeForms(sa, sb);
    expect(sa.equals(ca) && sb.equals(cb)).toBe(true);
    expect(registers(merged).equals(Buffer.from(expected.registers))).toBe(true);
    // The same form serialize would store: sparse below REGISTERS / 4 registers, dense from there.
    expect(Buffer.from(merged).equals(Buffer.from(expected.serialize()))).toBe(true);
  }
  expect(() => mergeForms(undefined, Uint8Array.of(3, 0, 0, 0, 0))).toThrow(RangeError);
  // A damaged stored form beside a dense or a sparse one.
  for (const add of [form(50_000).serialize(), form(3).serialize()]) expect(() => mergeForms(Uint8Array.of(1, 0, 0), add)).toThrow(RangeError);
});

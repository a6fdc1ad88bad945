// The sticky split over variants (src/experiments/split.ts) with the
// product's own visitor ids and bucket hash: over 1,000,000 simulated
// visitors each arm gets its weight's share within ±0.3 points, and after a
// weight change the share of returning visitors who moved is the least any
// split can achieve (the total variation distance between the old and new
// shares) within ±0.3 points; the layout itself moves exactly that much.
import { describe, expect, it } from 'vitest';
import { initialLayout, layoutShares, MAX_SEGMENTS, nextLayout, shares, variantAt } from '../../../src/experiments/split.js';
import { bucket, NewVisitors } from '../../../src/redirect/visitor.js';

const N = 1_000_000;
const ROUTE = 4242;
const ids = new NewVisitors();
// The redirect's own new-visitor ids (16 random bytes, base64url).
const visitors = Array.from({ length: N }, () => {
  ids.next(ROUTE);
  return ids.id;
});
const buckets = Float64Array.from(visitors, (v) => bucket(ROUTE, v));

function assign(layout: number[]): Uint8Array {
  const flat = Float64Array.from(layout);
  return Uint8Array.from(buckets, (u) => variantAt(flat, u));
}

/** ½ Σ |a_i − b_i| over both lists (a missing entry is a share of 0). */
function totalVariation(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < Math.max(a.length, b.length); i++) sum += Math.abs((a[i] ?? 0) - (b[i] ?? 0));
  return sum / 2;
}

describe('1,000,000 visitors', () => {
  const weights = [10, 20, 30, 40];
  const before = assign(initialLayout(weights));

  it('each arm of 10/20/30/40 gets its share within ±0.3 points', () => {
    const counts = [0, 0, 0, 0];
    for (const v of before) counts[v]++;
    counts.forEach((c, i) => expect(Math.abs(c / N - weights[i] / 100)).toBeLessThan(0.003));
  });

  it.each([
    [[40, 30, 20, 10]],
    [[10, 20, 30, 40, 100]],
    [[25, 25, 25, 25]],
    [[0, 20, 30, 50]],
    [[100, 0]],
  ])('moving to %j moves the theoretical minimum of returning visitors', (next) => {
    const layout = nextLayout(initialLayout(weights), next);
    const after = assign(layout);
    let moved = 0;
    const counts = new Array<number>(next.length).fill(0);
    for (let i = 0; i < N; i++) {
      if (after[i] !== before[i]) moved++;
      counts[after[i]]++;
    }
    const minimum = totalVariation(shares(weights), shares(next));
    expect(Math.abs(moved / N - minimum)).toBeLessThan(0.003);
    const want = shares(next);
    counts.forEach((c, i) => expect(Math.abs(c / N - want[i])).toBeLessThan(0.003));
  });
});

describe('layouts', () => {
  it('two variants: bucket < split_ratio goes to a, as contract §5.4 says', () => {
    expect(initialLayout([0.3, 0.7])).toEqual([0.3, 0, 1, 1]);
    expect(variantAt(Float64Array.from([0.3, 0, 1, 1]), 0.2999)).toBe(0);
    expect(variantAt(Float64Array.from([0.3, 0, 1, 1]), 0.3)).toBe(1);
  });

  it('weight-0 variants own no bucket; the last end is exactly 1', () => {
    const l = initialLayout([0, 1, 0, 3]);
    expect(l).toEqual([0.25, 1, 1, 3]);
    expect(layoutShares(l, 4)).toEqual([0, 0.25, 0, 0.75]);
  });

  it('each change moves exactly the total variation distance, over a long random sequence of changes', () => {
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    let weights = [1, 1];
    let layout = initialLayout(weights);
    for (let step = 0; step < 300; step++) {
      const count = 2 + Math.floor(rnd() * 7);
      const next: number[] = Array.from({ length: count }, (): number => (rnd() < 0.2 ? 0 : Math.floor(rnd() * 100)));
      if (!next.some((w) => w > 0)) next[0] = 1;
      const after = nextLayout(layout, next);
      // Shares are right, ends ascend, neighbours differ.
      layoutShares(after, count).forEach((s, i) => expect(s).toBeCloseTo(shares(next)[i], 12));
      for (let i = 2; i < after.length; i += 2) {
        expect(after[i]).toBeGreaterThan(after[i - 2]);
        expect(after[i + 1]).not.toBe(after[i - 1]);
      }
      expect(after[after.length - 2]).toBe(1);
      // The measure of buckets whose owner changed, computed on the merged breakpoints.
      if (layout.length / 2 <= MAX_SEGMENTS) {
        const points = [...new Set([0, ...layout.filter((_, i) => i % 2 === 0), ...after.filter((_, i) => i % 2 === 0)])].sort((x, y) => x - y);
        let moved = 0;
        for (let i = 1; i < points.length; i++) {
          const mid = (points[i - 1] + points[i]) / 2;
          if (variantAt(Float64Array.from(layout), mid) !== variantAt(Float64Array.from(after), mid)) moved += points[i] - points[i - 1];
        }
        const prev = layoutShares(layout, 8);
        const want = totalVariation(prev, [...shares(next), ...new Array(8 - count).fill(0)]);
        expect(moved).toBeCloseTo(want, 9);
      }
      weights = next;
      layout = after;
    }
    expect(weights.length).toBeGreaterThanOrEqual(2);
  });
});

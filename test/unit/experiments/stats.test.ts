// The experiment statistics (src/experiments/stats.ts) against values
// computed independently: published worked examples, and SciPy run at test
// time (test/helpers/scipy-reference.py) over a grid of cases that includes
// the edges: zero conversions, 100 %, one visitor, a weight of 0.
import { describe, expect, it } from 'vitest';
import { RELATIVE_ERROR } from '../../../src/experiments/hll.js';
import { probBest, relativeLift, srm, wilson, zTestPValue } from '../../../src/experiments/stats.js';
import { hasScipy, scipyReference as scipy } from '../../helpers/scipy.js';

const close = (got: number | null | undefined, want: number | null | undefined, tol: number) => {
  if (want === null || want === undefined) {
    expect(got ?? null).toBeNull();
    return;
  }
  expect(got).not.toBeNull();
  expect(Math.abs((got as number) - want)).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(want)));
};

describe('published worked examples', () => {
  // Newcombe, "Two-sided confidence intervals for the single proportion:
  // comparison of seven methods", Statistics in Medicine 17 (1998) 857-872,
  // Table II, method 3 (score interval without continuity correction).
  it.each([
    [81, 263, 0.2553, 0.3662],
    [15, 148, 0.0624, 0.1605],
    [0, 20, 0, 0.1611],
    [1, 29, 0.0061, 0.1718],
  ])('Wilson interval of %i/%i is Newcombe\'s [%f, %f]', (x, n, lo, hi) => {
    const ci = wilson(x, n)!;
    expect(ci[0]).toBeCloseTo(lo, 4);
    expect(ci[1]).toBeCloseTo(hi, 4);
  });

  // SciPy's documentation of scipy.stats.chisquare: observed 16 18 16 14 12 12,
  // equal expectation → chi² 2.0, p 0.84914503608460956; expected
  // 16 16 16 16 16 8 → chi² 3.5, p 0.62338762774958223.
  it('the SRM chi-square matches the scipy.stats.chisquare examples', () => {
    expect(srm([16, 18, 16, 14, 12, 12], [1, 1, 1, 1, 1, 1]).p_value).toBeCloseTo(0.84914503608460956, 12);
    expect(srm([16, 18, 16, 14, 12, 12], [16, 16, 16, 16, 16, 8]).p_value).toBeCloseTo(0.62338762774958223, 12);
  });

  // Two arms with equal counts are symmetric: each is best with probability 1/2.
  it('two identical arms are each best with probability one half', () => {
    const [a, b] = probBest([{ conversions: 37, visitors: 1000 }, { conversions: 37, visitors: 1000 }]);
    expect(a).toBeCloseTo(0.5, 9);
    expect(b).toBeCloseTo(0.5, 9);
  });
});

describe('edge cases', () => {
  it('no visitors: no interval, no lift, no p-value, no probability', () => {
    expect(wilson(0, 0)).toBeNull();
    expect(relativeLift(0, 0, 5, 100)).toBeNull();
    expect(zTestPValue(0, 0, 5, 100)).toBeNull();
    expect(probBest([{ conversions: 0, visitors: 0 }, { conversions: 1, visitors: 10 }])).toEqual([null, 1]);
  });

  it('zero and 100 % rates pin the interval ends at exactly 0 and 1', () => {
    expect(wilson(0, 50)![0]).toBe(0);
    expect(wilson(50, 50)![1]).toBe(1);
    expect(wilson(1, 1)![1]).toBe(1);
    expect(wilson(0, 1)![0]).toBe(0);
  });

  it('a baseline without conversions has no lift; an arm without conversions has lift -1 and no interval', () => {
    expect(relativeLift(5, 100, 0, 100)).toBeNull();
    expect(relativeLift(0, 100, 5, 100)).toEqual({ lift: -1, ci95: null });
  });

  it('both arms at 0 % (or both at 100 %) differ by nothing: p = 1', () => {
    expect(zTestPValue(0, 10, 0, 10)).toBe(1);
    expect(zTestPValue(10, 10, 7, 7)).toBe(1);
  });

  it('a weight-0 arm is left out of the SRM test, and alarms if it has visitors', () => {
    const withZero = srm([500, 0, 500], [50, 0, 50]);
    expect(withZero.p_value).toBeCloseTo(1, 12);
    expect(withZero.alert).toBe(false);
    expect(srm([500, 3, 500], [50, 0, 50])).toEqual({ p_value: 0, alert: true });
    expect(srm([500, 0], [100, 0])).toEqual({ p_value: null, alert: false });
  });

  it('a broken split alarms, a fair one does not', () => {
    expect(srm([5000, 4500], [1, 1]).alert).toBe(true);
    expect(srm([5010, 4990], [1, 1]).alert).toBe(false);
  });

  it('the probabilities of being best sum to 1 and follow the rates', () => {
    const p = probBest([{ conversions: 10, visitors: 1000 }, { conversions: 20, visitors: 1000 }, { conversions: 30, visitors: 1000 }, null]) as number[];
    expect(p[3]).toBeNull();
    expect(p[0] + p[1] + p[2]).toBeCloseTo(1, 12);
    expect(p[2]).toBeGreaterThan(p[1]);
    expect(p[1]).toBeGreaterThan(p[0]);
  });

  it('is deterministic', () => {
    const arms = [{ conversions: 123, visitors: 4567 }, { conversions: 140, visitors: 4600 }, { conversions: 111, visitors: 4500 }];
    expect(probBest(arms)).toEqual(probBest(arms));
  });
});

describe.skipIf(!hasScipy)('against SciPy, computed at test time', () => {
  const rates: [number, number][] = [
    [0, 1], [1, 1], [0, 7], [7, 7], [1, 2], [3, 10], [0, 1000], [1000, 1000], [1, 1000], [61, 1204], [500, 1000],
    [999, 1000], [4321, 98765], [12, 30000], [150_000, 1_000_000],
  ];

  it('Wilson intervals (scipy.stats.binomtest(...).proportion_ci(method="wilson"))', () => {
    const want = scipy(rates.map(([x, n]) => ({ kind: 'wilson', x, n }))) as [number, number][];
    rates.forEach(([x, n], i) => {
      const got = wilson(x, n)!;
      close(got[0], want[i][0], 1e-9);
      close(got[1], want[i][1], 1e-9);
    });
  });

  const pairs: [number, number, number, number][] = [];
  for (const [xv, nv] of rates) for (const [xa, na] of [[61, 1204], [1, 3], [1000, 1000], [4321, 98765], [0, 50]]) pairs.push([xv, nv, xa, na]);

  it('relative lift and its Katz interval (scipy.stats.contingency.relative_risk)', () => {
    const usable = pairs.filter(([xv, , xa]) => xv > 0 && xa > 0);
    const want = scipy(usable.map(([xv, nv, xa, na]) => ({ kind: 'lift', xv, nv, xa, na }))) as { lift: number; ci95: [number, number] }[];
    usable.forEach(([xv, nv, xa, na], i) => {
      const got = relativeLift(xv, nv, xa, na)!;
      close(got.lift, want[i].lift, 1e-9);
      close(got.ci95![0], want[i].ci95[0], 1e-9);
      close(got.ci95![1], want[i].ci95[1], 1e-9);
    });
  });

  it('two-proportion z-test p-values (scipy.stats.chi2_contingency without correction)', () => {
    const usable = pairs.filter(([xv, nv, xa, na]) => {
      const pooled = (xv + xa) / (nv + na);
      return pooled > 0 && pooled < 1;
    });
    const want = scipy(usable.map(([xv, nv, xa, na]) => ({ kind: 'ztest', xv, nv, xa, na }))) as number[];
    usable.forEach(([xv, nv, xa, na], i) => close(zTestPValue(xv, nv, xa, na), want[i], 1e-8));
  });

  it('probability of being best: two arms against Evan Miller\'s exact sum', () => {
    const cases = [
      [0, 1, 0, 1], [1, 1, 0, 1], [3, 10, 5, 10], [61, 1204, 75, 1198], [0, 100, 2, 100], [100, 100, 99, 100], [12, 3000, 20, 3000],
      // Arms of very different sizes (a variant added late, a 99/1 canary): the narrow arm's CDF is a step inside one of the wide arm's panels.
      [1000, 100_000, 0, 50], [1000, 100_000, 1, 100], [1000, 100_000, 0, 10], [500, 99_000, 7, 1000], [5, 20, 2000, 10_000],
      // A billion visitors an arm.
      [0, 1e9, 1, 1e9], [1000, 1e9, 1050, 1e9],
    ];
    const want = scipy(cases.map(([xa, na, xb, nb]) => ({ kind: 'miller', xa, na, xb, nb }))) as number[];
    cases.forEach(([xa, na, xb, nb], i) => close(probBest([{ conversions: xa, visitors: na }, { conversions: xb, visitors: nb }])[1], want[i], 1e-9));
  });

  it('probability of being best: up to 8 arms against scipy.integrate.quad', () => {
    const cases = [
      [{ conversions: 61, visitors: 1204 }, { conversions: 75, visitors: 1198 }, { conversions: 52, visitors: 1210 }],
      [{ conversions: 0, visitors: 1 }, { conversions: 1, visitors: 1 }, { conversions: 0, visitors: 3 }, { conversions: 2, visitors: 3 }],
      [{ conversions: 10, visitors: 100 }, { conversions: 11, visitors: 100 }, { conversions: 12, visitors: 100 }, { conversions: 9, visitors: 100 }, { conversions: 10, visitors: 110 }, { conversions: 0, visitors: 100 }, { conversions: 100, visitors: 100 }, { conversions: 13, visitors: 90 }],
      [{ conversions: 15_000, visitors: 100_000 }, { conversions: 15_200, visitors: 100_000 }, { conversions: 14_900, visitors: 100_000 }],
      [{ conversions: 5000, visitors: 100_000 }, { conversions: 6, visitors: 100 }, { conversions: 55, visitors: 1000 }],
    ];
    const want = scipy(cases.map((arms) => ({ kind: 'prob_best', arms }))) as number[][];
    cases.forEach((arms, i) => {
      const got = probBest(arms) as number[];
      const total = want[i].reduce((s, v) => s + v, 0);
      got.forEach((g, k) => close(g, want[i][k] / total, 1e-8));
    });
  });

  it('SRM p-values (scipy.stats.chisquare), weight-0 arms left out', () => {
    const cases: [number[], number[]][] = [
      [[1204, 1198], [50, 50]], [[5000, 4500], [1, 1]], [[100, 200, 300, 400], [10, 20, 30, 40]], [[130, 190, 300, 380], [10, 20, 30, 40]],
      [[1, 0], [1, 1]], [[500, 0, 480], [40, 0, 60]], [[7, 9, 11, 5, 8, 6, 10, 12], [1, 1, 1, 1, 1, 1, 1, 1]],
    ];
    const want = scipy(cases.map(([observed, weights]) => ({ kind: 'srm', observed, weights }))) as number[];
    cases.forEach(([o, w], i) => close(srm(o, w).p_value, want[i], 1e-9));
  });

  it('SRM p-values of estimated counts (the sketches\' 0.57 %): two arms in closed form, more by numpy', () => {
    const cases: [number[], number[]][] = [
      [[1_004_000, 996_000], [1, 1]], [[120_400, 119_800], [50, 50]], [[1204, 1198], [50, 50]], [[1_020_000, 980_000], [1, 1]],
      [[100_000, 200_500, 299_000, 400_100], [10, 20, 30, 40]], [[500_000, 0, 480_000], [40, 0, 60]],
      [[7000, 9000, 11_000, 5000, 8000, 6000, 10_000, 12_000], [1, 1, 1, 1, 1, 1, 1, 1]],
    ];
    const want = scipy(cases.map(([observed, weights]) => ({ kind: 'srm_estimated', observed, weights, error: RELATIVE_ERROR }))) as number[];
    cases.forEach(([o, w], i) => close(srm(o, w, RELATIVE_ERROR).p_value, want[i], 1e-9));
  });
});

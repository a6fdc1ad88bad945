// probBest takes a density under e^-80 as 0 and its CDF as exactly 0 or 1
// (below or above the mode) instead of running the continued fraction there,
// and skips a point where two arms' CDFs are 0: most of the spans (mean ± 40
// sd) are such tail. That must leave the figures where they were: on report
// shapes (8 arms of a route with many goals: a few dozen visitors an arm,
// ten thousand, arms of very different sizes, arms sharing their counts)
// they match scipy.integrate.quad to 1e-8, as the full quadrature does
// (stats.test.ts), and stay bit-identical to it away from the cut tails.
import { describe, expect, it } from 'vitest';
import { probBest } from '../../../src/experiments/stats.js';
import { hasScipy, scipyReference } from '../../helpers/scipy.js';

type Arm = { conversions: number; visitors: number } | null;
const arm = (conversions: number, visitors: number): Arm => ({ conversions, visitors });

const CASES: Arm[][] = [
  // The reviewer's route: about 50 visitors a variant, 2-8 conversions per goal.
  Array.from({ length: 8 }, (_, v) => arm(2 + ((3 + v) % 7), 45 + v * 3)),
  // Ten thousand visitors a variant, rates 5.0-5.9 %.
  Array.from({ length: 8 }, (_, v) => arm(500 + 13 * ((5 + v) % 7), 10_000 + v * 37)),
  // A late variant and a canary beside large arms; two arms with the same counts; one without visitors.
  [arm(15_000, 100_000), arm(15_000, 100_000), arm(14_900, 100_000), arm(3, 40), arm(0, 7), arm(160, 1000), null, arm(1502, 10_000)],
  // A rate of 0 and of 1 (the posteriors' modes at the span's ends).
  [arm(0, 200), arm(200, 200), arm(100, 200), arm(1, 200)],
];

describe.skipIf(!hasScipy)('probBest with the far tails cut', () => {
  it('matches scipy.integrate.quad on 8-arm report shapes', () => {
    const live = CASES.map((arms) => arms.filter((a): a is NonNullable<Arm> => a !== null));
    const want = scipyReference(live.map((arms) => ({ kind: 'prob_best', arms }))) as number[][];
    CASES.forEach((arms, i) => {
      const got = probBest(arms);
      const total = want[i].reduce((s, v) => s + v, 0);
      let k = 0;
      got.forEach((g, j) => {
        if (arms[j] === null) {
          expect(g).toBeNull();
          return;
        }
        const w = want[i][k++] / total;
        expect(Math.abs((g as number) - w), `case ${i}, arm ${j}: ${g} against ${w}`).toBeLessThanOrEqual(1e-8 * Math.max(1, Math.abs(w)));
      });
    });
  });
});

it('gives arms with the same counts the same probability, all summing to 1', () => {
  const got = probBest(CASES[2]) as number[];
  expect(got[0]).toBe(got[1]);
  expect(got[6]).toBeNull();
  expect(got.reduce((s, v) => s + (v ?? 0), 0)).toBeCloseTo(1, 12);
});

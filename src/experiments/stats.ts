// The statistics of an experiment (contract §10), pure functions of counts.
// Every figure is deterministic: the same counts give the same numbers on
// every node and every run (no sampling).
//
//   wilson        95 % Wilson score interval of a rate x/n
//   relativeLift  (p_v - p_a) / p_a with the Katz log interval of the risk
//                 ratio p_v / p_a, minus 1
//   zTestPValue   two-sided pooled two-proportion z test against a
//   probBest      P(variant has the highest rate) under independent
//                 Beta(1 + x, 1 + n - x) posteriors (uniform prior),
//                 integrated numerically (composite Simpson, fixed grid)
//   srm           chi-square goodness of fit of visitors against weights
//
// The special functions below (log-gamma, regularised incomplete gamma and
// beta) follow Numerical Recipes (Press et al., 3rd ed., §6.1, §6.2, §6.4):
// Lanczos for log-gamma, a series or Lentz's continued fraction for the rest.

/** z for a two-sided 95 % interval: the normal's 97.5th percentile. */
const Z95 = 1.959963984540054;

/** SRM alarm threshold (contract §10): a split this unlikely is broken. */
const SRM_ALPHA = 0.001;

const EPS = 1e-15;
const TINY = 1e-300;

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7; relative error about 1e-15). */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = LANCZOS[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += LANCZOS[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Regularised upper incomplete gamma Q(a, x) = Γ(a, x) / Γ(a). */
function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const lead = -x + a * Math.log(x) - logGamma(a);
  if (x < a + 1) {
    // Series for P, then Q = 1 - P.
    let ap = a;
    let sum = 1 / a;
    let del = sum;
    for (let n = 0; n < 100_000; n++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * EPS) break;
    }
    return 1 - sum * Math.exp(lead);
  }
  // Continued fraction for Q (modified Lentz).
  let b = x + 1 - a;
  let c = 1 / TINY;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 100_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < TINY) d = TINY;
    c = b + an / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return Math.exp(lead) * h;
}

/** P(|Z| > z) for a standard normal Z: Q(1/2, z²/2). */
function twoSidedNormalP(z: number): number {
  return gammaQ(0.5, (z * z) / 2);
}

/** Continued fraction of the incomplete beta (modified Lentz). */
function betaCf(a: number, b: number, x: number): number {
  const qab = a + b;
  const qap = a + 1;
  const qam = a - 1;
  let c = 1;
  let d = 1 - (qab * x) / qap;
  if (Math.abs(d) < TINY) d = TINY;
  d = 1 / d;
  let h = d;
  for (let m = 1; m < 100_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (qab + m) * x) / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < TINY) d = TINY;
    c = 1 + aa / c;
    if (Math.abs(c) < TINY) c = TINY;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < EPS) break;
  }
  return h;
}

/** Regularised incomplete beta I_x(a, b): the CDF of Beta(a, b) at x. */
function betaCdf(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // The fraction converges fast on this side of the mean; use symmetry on the other.
  if (x < (a + 1) / (a + b + 2)) return (front * betaCf(a, b, x)) / a;
  return 1 - (front * betaCf(b, a, 1 - x)) / b;
}

/** ln of the Beta(a, b) density at x, for 0 < x < 1. */
function logBetaPdf(x: number, a: number, b: number): number {
  return (a - 1) * Math.log(x) + (b - 1) * Math.log1p(-x) + logGamma(a + b) - logGamma(a) - logGamma(b);
}

/** The Beta(a, b) density at x in [0, 1] (a, b >= 1, so it is finite at the ends). */
function densityAt(x: number, a: number, b: number): number {
  if (x <= 0) return a === 1 ? b : 0;
  if (x >= 1) return b === 1 ? a : 0;
  return Math.exp(logBetaPdf(x, a, b));
}

/** The 95 % Wilson score interval of x successes in n trials; null when n = 0. */
export function wilson(x: number, n: number, z = Z95): [number, number] | null {
  if (n <= 0) return null;
  const p = x / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At p = 0 or 1 the bound is exactly 0 or 1; rounding must not leave it a hair off.
  return [x === 0 ? 0 : Math.max(0, centre - half), x === n ? 1 : Math.min(1, centre + half)];
}

export interface Lift {
  /** (p_v - p_a) / p_a. */
  lift: number;
  /** 95 % interval of the lift, or null when it is not finite (no conversion in v). */
  ci95: [number, number] | null;
}

/**
 * Relative lift of v over a, with the Katz log interval of the risk ratio
 * (Katz et al. 1978): ln(RR) ± z · sqrt(1/x_v - 1/n_v + 1/x_a - 1/n_a).
 * Null when a's rate is 0 or either arm has no visitors (no baseline);
 * with no conversion in v the lift is -1 and the interval null (ln 0).
 */
export function relativeLift(xv: number, nv: number, xa: number, na: number, z = Z95): Lift | null {
  if (na <= 0 || nv <= 0 || xa <= 0) return null;
  const pa = xa / na;
  const pv = xv / nv;
  const ratio = pv / pa;
  if (xv <= 0) return { lift: -1, ci95: null };
  const se = Math.sqrt(1 / xv - 1 / nv + 1 / xa - 1 / na);
  const ln = Math.log(ratio);
  return { lift: ratio - 1, ci95: [Math.exp(ln - z * se) - 1, Math.exp(ln + z * se) - 1] };
}

/**
 * Two-sided p-value of the pooled two-proportion z test (v against a).
 * Null when an arm has no visitors; 1 when nothing varies (both rates 0,
 * or both 1: the pooled variance is 0 and the rates are equal).
 */
export function zTestPValue(xv: number, nv: number, xa: number, na: number): number | null {
  if (na <= 0 || nv <= 0) return null;
  const pooled = (xv + xa) / (nv + na);
  const variance = pooled * (1 - pooled) * (1 / nv + 1 / na);
  if (variance <= 0) return 1;
  const z = (xv / nv - xa / na) / Math.sqrt(variance);
  return Math.min(1, twoSidedNormalP(z));
}

/** Gauss-Legendre panels per arm's integration span. */
const PANELS = 64;
/** The 8-point Gauss-Legendre rule on [-1, 1]: nodes ±x with weight w (Abramowitz & Stegun, table 25.4). */
const GL_X = [0.1834346424956498, 0.525532409916329, 0.7966664774136267, 0.9602898564975363];
const GL_W = [0.362683783378362, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763];
/** Each posterior is integrated over mean ± SPAN standard deviations, clipped to [0, 1]. */
const SPAN = 40;

interface Posterior {
  a: number;
  b: number;
  lo: number;
  hi: number;
}

function posterior(x: number, n: number): Posterior {
  const a = 1 + x;
  const b = 1 + n - x;
  const mean = a / (a + b);
  const sd = Math.sqrt((a * b) / ((a + b) * (a + b) * (a + b + 1)));
  return { a, b, lo: Math.max(0, mean - SPAN * sd), hi: Math.min(1, mean + SPAN * sd) };
}

/**
 * P(variant i has the highest conversion rate) for each arm, under
 * independent Beta(1 + x, 1 + n - x) posteriors:
 *   P_i = ∫ f_i(t) · Π_{j≠i} F_j(t) dt,
 * each integral taken by the 8-point Gauss-Legendre rule on PANELS equal
 * panels (1.25 sd wide: the integrand is a polynomial-like bump there, and
 * the rule is exact to degree 15) over the span of f_i (mean ± 40 sd: a
 * skewed posterior such as Beta(1, n) keeps about e^-k of its mass beyond
 * k sd, so 12 sd would lose 1e-6, 40 sd loses under 1e-17). F_j is taken as
 * exactly 0 or 1 outside j's own span. A composite Simpson rule on 1,024
 * steps was tried first: 4.6e-7 off Evan Miller's exact value at 100/100
 * against 99/100.
 * The results are scaled to sum to 1 (the residue of the quadrature, about 1e-9, spread evenly).
 * Arms marked null (no visitors) take no part and get null.
 */
export function probBest(arms: readonly ({ x: number; n: number } | null)[]): (number | null)[] {
  const posts = arms.map((arm) => (arm === null || arm.n <= 0 ? null : posterior(Math.min(arm.x, arm.n), arm.n)));
  const live = posts.filter((p) => p !== null).length;
  if (live === 0) return posts.map(() => null);
  if (live === 1) return posts.map((p) => (p === null ? null : 1));
  const raw = posts.map((pi, i) => {
    if (pi === null) return null;
    const width = (pi.hi - pi.lo) / PANELS;
    let sum = 0;
    for (let panel = 0; panel < PANELS; panel++) {
      const mid = pi.lo + (panel + 0.5) * width;
      for (let k = 0; k < 8; k++) {
        const t = mid + (k < 4 ? -1 : 1) * GL_X[k & 3] * (width / 2);
        let f = densityAt(t, pi.a, pi.b);
        for (let j = 0; j < posts.length && f > 0; j++) {
          const pj = posts[j];
          if (j === i || pj === null) continue;
          if (t <= pj.lo) f = 0;
          else if (t < pj.hi) f *= betaCdf(t, pj.a, pj.b);
        }
        sum += GL_W[k & 3] * f;
      }
    }
    return (sum * width) / 2;
  });
  const total = raw.reduce<number>((s, r) => s + (r ?? 0), 0);
  return raw.map((r) => (r === null ? null : total > 0 ? r / total : 1 / live));
}

export interface Srm {
  /** Null when fewer than two arms have weight (nothing to compare) or nobody was counted. */
  p_value: number | null;
  alert: boolean;
}

/**
 * Sample-ratio mismatch: Pearson's chi-square of the observed visitors
 * against the shares the weights promise, df = (arms with weight) - 1.
 * An arm of weight 0 is left out of the test; if it has visitors anyway
 * the split is broken by definition (p = 0, alert).
 */
export function srm(observed: readonly number[], weights: readonly number[]): Srm {
  let totalWeight = 0;
  let total = 0;
  let arms = 0;
  for (let i = 0; i < weights.length; i++) {
    if (weights[i] > 0) {
      totalWeight += weights[i];
      total += observed[i];
      arms++;
    } else if (observed[i] > 0) {
      return { p_value: 0, alert: true };
    }
  }
  if (arms < 2 || total <= 0) return { p_value: null, alert: false };
  let chi2 = 0;
  for (let i = 0; i < weights.length; i++) {
    if (weights[i] <= 0) continue;
    const expected = (total * weights[i]) / totalWeight;
    chi2 += ((observed[i] - expected) * (observed[i] - expected)) / expected;
  }
  const p = Math.min(1, Math.max(0, gammaQ((arms - 1) / 2, chi2 / 2)));
  return { p_value: p, alert: p < SRM_ALPHA };
}

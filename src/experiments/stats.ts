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
//                 integrated numerically (Gauss-Legendre on fixed panels)
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

const HALF_LN_2PI = 0.5 * Math.log(2 * Math.PI);

/**
 * ln Γ(x) minus Stirling's leading terms, (x - 1/2) ln x - x + ln √(2π): a
 * small number, from its asymptotic series from 15 on (the next term is under
 * 3e-14 there) and from logGamma below.
 */
function stirlingRest(x: number): number {
  if (x < 15) return logGamma(x) - ((x - 0.5) * Math.log(x) - x + HALF_LN_2PI);
  const x2 = x * x;
  return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * x2)) / x2) / x2) / x;
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

/** Gauss-Legendre panels over each arm's span. */
const PANELS = 64;
/** The 8-point Gauss-Legendre rule on [-1, 1]: points ±x with weight w (Abramowitz & Stegun, table 25.4). */
const GL_X = [0.1834346424956498, 0.525532409916329, 0.7966664774136267, 0.9602898564975363];
const GL_W = [0.362683783378362, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763];
/** Merged panels closer than this share of the finest panel there are joined (grid). */
const MIN_PANEL = 0.5;
/** Each posterior is integrated over mean ± SPAN standard deviations, clipped to [0, 1]. */
const SPAN = 40;
/**
 * ln of a density taken as 0 (about 1e-35), its CDF then as exactly 0 below
 * the mode and 1 above it: see probBest.
 */
const LOG_NEGLIGIBLE = -80;

/**
 * A Beta(a, b) posterior, its span, and what its log density needs:
 * the mode-side shares p = a / (a + b), q = 1 - p, and the constant term k
 * (see logDensity).
 */
interface Posterior {
  a: number;
  b: number;
  lo: number;
  hi: number;
  p: number;
  q: number;
  k: number;
  /** The mode, (a - 1) / (a + b - 2): the density rises up to it and falls after it (a, b ≥ 1). */
  mode: number;
}

function posterior(x: number, n: number): Posterior {
  const a = 1 + x;
  const b = 1 + n - x;
  const c = a + b;
  const p = a / c;
  const q = b / c;
  const sd = Math.sqrt((a * b) / (c * c * (c + 1)));
  const k = 0.5 * Math.log(c / (p * q)) - HALF_LN_2PI - stirlingRest(a) - stirlingRest(b) + stirlingRest(c);
  return { a, b, lo: Math.max(0, p - SPAN * sd), hi: Math.min(1, p + SPAN * sd), p, q, k, mode: (a - 1) / (c - 2) };
}

/**
 * ln of the Beta(a, b) density at x, for 0 < x < 1. Written around
 * p = a / (a + b) rather than as (a - 1) ln x + (b - 1) ln(1 - x) - ln B(a, b):
 * at a billion visitors those terms are about 1e10 each and cancel to a few,
 * leaving the rounding of the large ones (about 1e-6) in the result.
 *   (a - 1) ln(x / p) + (b - 1) ln((1 - x) / q) + k,
 *   k = ln √((a + b) / (2π p q)) - rest(a) - rest(b) + rest(a + b),  rest = stirlingRest
 */
function logDensity(x: number, s: Posterior): number {
  return (s.a - 1) * Math.log1p((x - s.p) / s.p) + (s.b - 1) * Math.log1p((s.p - x) / s.q) + s.k;
}

/**
 * The regularised incomplete beta I_x(a, b), the CDF of Beta(a, b), at
 * 0 < x < 1, given ln of the density there (logDensity).
 */
function cdfAt(x: number, s: Posterior, logPdf: number): number {
  const front = Math.exp(logPdf + Math.log(x) + Math.log1p(-x));
  // The fraction converges fast on this side of the mean; use symmetry on the other.
  if (x < (s.a + 1) / (s.a + s.b + 2)) return (front * betaCf(s.a, s.b, x)) / s.a;
  return 1 - (front * betaCf(s.b, s.a, 1 - x)) / s.b;
}

/**
 * The panel edges for all arms at once: every arm's PANELS equal panels over
 * its span, merged, then thinned where arms overlap so that no panel is much
 * finer than it must be. An edge is kept when it is a span's end (a density
 * or CDF starts or stops there) or lies at least MIN_PANEL of the finest
 * panel covering it past the last edge kept: eight arms of the same size then
 * share about two arms' panels, not eight, and a panel stays at most about
 * (1 + MIN_PANEL) of the finest one it crosses.
 */
function grid(shapes: readonly Posterior[]): number[] {
  const ends = new Set(shapes.flatMap((q) => [q.lo, q.hi]));
  // Every arm's edges in one typed array, sorted numerically; repeats are passed over below.
  const all = new Float64Array(shapes.length * (PANELS + 1));
  shapes.forEach((q, i) => {
    for (let k = 0; k <= PANELS; k++) all[i * (PANELS + 1) + k] = q.lo + ((q.hi - q.lo) * k) / PANELS;
  });
  all.sort();
  const finest = (t: number) => {
    let w = Infinity;
    for (const q of shapes) if (t >= q.lo && t <= q.hi) w = Math.min(w, (q.hi - q.lo) / PANELS);
    return w;
  };
  const out = [all[0]];
  let lastFinest = finest(all[0]);
  for (let e = 1; e < all.length; e++) {
    const t = all[e];
    const last = out[out.length - 1];
    if (t === last) continue;
    const here = finest(t);
    if (ends.has(t) || t - last >= MIN_PANEL * Math.min(lastFinest, here)) {
      out.push(t);
      lastFinest = here;
    }
  }
  return out;
}

/**
 * P(variant i has the highest conversion rate) for each arm of x
 * conversions among n visitors, under independent Beta(1 + x, 1 + n - x)
 * posteriors:
 *   P_i = ∫ f_i(t) · Π_{j≠i} F_j(t) dt,
 * all integrals taken together on one grid by the 8-point Gauss-Legendre
 * rule (exact to degree 15). The grid joins every arm's PANELS equal panels
 * over its span (mean ± SPAN sd, clipped to [0, 1]): a panel is 1.25 of its
 * arm's sd, where the integrand is a polynomial-like bump, and a much
 * narrower arm's CDF, which climbs from 0 to 1 within a few of its own sd,
 * lies on its own fine panels wherever it falls inside a wide arm's span (the
 * wide arm's panels alone would be 1.6e-3 off the exact value at 1,000 against
 * 100,000 visitors). SPAN is 40: a skewed posterior such as Beta(1, n) keeps
 * about e^-k of its mass beyond k sd, so 12 sd would lose 1e-6, 40 sd loses
 * under 1e-17. f_j and F_j are taken as exactly 0 (and F_j as 1 above) outside
 * j's span. A fixed-step rule is not accurate enough here
 * (docs/performance.md, "Figures behind code comments").
 *
 * Each point's densities and CDFs are computed once for all arms, and once
 * for arms with the same counts: 8 arms cost one grid's worth of CDFs each,
 * not each arm's grid times the other seven (a route with many goals
 * computes this once per goal and period). Most of a span is far tail,
 * where a density is below e^LOG_NEGLIGIBLE (about 1e-35): there it is taken
 * as 0, and the CDF as 0 below the mode and 1 above it, without its
 * continued fraction. A Beta density with a, b ≥ 1 rises up to its mode and
 * falls after it, so the mass beyond such a point is under the density
 * there (times a distance of at most 1): each F_j moves by under 1e-35, each
 * integral by under 1e-34, far below the figures' 1e-9 (and bit-identical
 * wherever the tail is not cut). A point where two arms' CDFs are 0 adds 0
 * to every integral and is skipped before any CDF is computed; each arm's
 * power of its CDF is taken once a point, not once per other arm.
 * The results are scaled to sum to 1 (the residue of the quadrature, about
 * 1e-9, spread evenly). Arms marked null (no visitors) take no part and get null.
 */
export function probBest(arms: readonly ({ conversions: number; visitors: number } | null)[]): (number | null)[] {
  // The distinct posteriors, and how many live arms share each.
  const shapes: Posterior[] = [];
  const sharing: number[] = [];
  const shapeOf = arms.map((arm) => {
    if (arm === null || arm.visitors <= 0) return -1;
    const x = Math.min(arm.conversions, arm.visitors);
    let d = shapes.findIndex((q) => q.a === 1 + x && q.b === 1 + arm.visitors - x);
    if (d < 0) {
      d = shapes.push(posterior(x, arm.visitors)) - 1;
      sharing.push(0);
    }
    sharing[d]++;
    return d;
  });
  const live = sharing.reduce((s, c) => s + c, 0);
  if (live === 0) return arms.map(() => null);
  if (live === 1) return shapeOf.map((d) => (d < 0 ? null : 1));

  const edges = grid(shapes);
  const D = shapes.length;
  /** At the current point, per distinct posterior d: ln f_d (-Infinity outside d's span), f_d, F_d. */
  const logPdf = new Float64Array(D);
  const density = new Float64Array(D);
  const cdf = new Float64Array(D);
  /** F_d to the power of the live arms sharing d, and of one fewer (d's own arm left out). */
  const power = new Float64Array(D);
  const powerOthers = new Float64Array(D);
  /** Per distinct posterior d: ∫ f_d · Π over the other live arms of F. */
  const integral = new Float64Array(D);
  for (let e = 1; e < edges.length; e++) {
    const width = edges[e] - edges[e - 1];
    const mid = edges[e - 1] + width / 2;
    for (let k = 0; k < 8; k++) {
      const t = mid + (k < 4 ? -1 : 1) * GL_X[k & 3] * (width / 2);
      // Points lie inside their panel, so 0 < t < 1; outside a span f = 0 and F is 0 below it, 1 above.
      // First the densities alone, and how many live arms have F = 0 here.
      let any = false;
      let zeros = 0;
      for (let d = 0; d < D; d++) {
        const q = shapes[d];
        const inside = t > q.lo && t < q.hi;
        const l = inside ? logDensity(t, q) : -Infinity;
        logPdf[d] = l;
        if (l >= LOG_NEGLIGIBLE) {
          density[d] = Math.exp(l);
          any ||= density[d] > 0;
        } else {
          density[d] = 0;
          cdf[d] = (inside ? t < q.mode : t <= q.lo) ? 0 : 1;
          if (cdf[d] === 0) zeros += sharing[d];
        }
      }
      if (!any || zeros >= 2) continue;
      for (let d = 0; d < D; d++) {
        if (density[d] > 0) cdf[d] = cdfAt(t, shapes[d], logPdf[d]);
        // Arms mostly have counts of their own: x ** 1 and x ** 0 without calling pow.
        power[d] = sharing[d] === 1 ? cdf[d] : cdf[d] ** sharing[d];
        powerOthers[d] = sharing[d] === 1 ? 1 : cdf[d] ** (sharing[d] - 1);
      }
      for (let d = 0; d < D; d++) {
        if (density[d] === 0) continue;
        let f = density[d];
        for (let j = 0; j < D && f > 0; j++) f *= j === d ? powerOthers[j] : power[j];
        integral[d] += (GL_W[k & 3] * f * width) / 2;
      }
    }
  }
  const total = shapeOf.reduce((s, d) => s + (d < 0 ? 0 : integral[d]), 0);
  return shapeOf.map((d) => (d < 0 ? null : total > 0 ? integral[d] / total : 1 / live));
}

export interface Srm {
  /** Null when fewer than two arms have weight (nothing to compare) or nobody was counted. */
  p_value: number | null;
  alert: boolean;
}

/**
 * Sample-ratio mismatch: the chi-square test of the observed visitors
 * against the shares the weights promise, df = (arms with weight) - 1. An arm
 * of weight 0 is left out of the test; if it has visitors anyway the split is
 * broken by definition (p = 0, alert).
 *
 * `relativeError` is the standard error of each count relative to itself
 * when the counts are estimates (0.57 % for the HyperLogLog sketches, hll.ts);
 * 0 means exact counts, and the test is then Pearson's. Pearson's statistic
 * takes the whole difference between observed and expected for sampling
 * noise, which with estimated counts stops being true from a few ten
 * thousand visitors an arm: at 2,000,000 visitors on a fair 50/50 split it
 * alarmed in about half of the runs. So the statistic is the general one,
 * d' C⁻¹ d over the first k - 1 arms, with d = observed - N·share (N the
 * observed total) and C the covariance of d under a fair split: the
 * multinomial's N(diag(s) - s s') plus each count's own estimate noise
 * (variance (relativeError · N·s_i)², independent between arms) carried
 * through the same projection d = (I - s 1') observed. With no estimate
 * noise C⁻¹ is known in closed form and d' C⁻¹ d is exactly Pearson's sum.
 */
export function srm(observed: readonly number[], weights: readonly number[], relativeError = 0): Srm {
  let totalWeight = 0;
  let total = 0;
  const counts: number[] = [];
  const shares: number[] = [];
  for (let i = 0; i < weights.length; i++) {
    if (weights[i] > 0) {
      totalWeight += weights[i];
      total += observed[i];
      counts.push(observed[i]);
      shares.push(weights[i]);
    } else if (observed[i] > 0) {
      return { p_value: 0, alert: true };
    }
  }
  const k = counts.length;
  if (k < 2 || total <= 0) return { p_value: null, alert: false };
  for (let i = 0; i < k; i++) shares[i] /= totalWeight;
  const d = counts.map((o, i) => o - total * shares[i]);
  const noise = shares.map((s) => (relativeError * total * s) ** 2);
  const noiseSum = noise.reduce((sum, v) => sum + v, 0);
  // C over the first k - 1 arms (d sums to 0, so the last adds nothing), then d' C⁻¹ d by Gaussian elimination.
  const n = k - 1;
  const c: number[][] = [];
  for (let i = 0; i < n; i++) {
    c.push([]);
    for (let j = 0; j < n; j++) {
      const multinomial = total * ((i === j ? shares[i] : 0) - shares[i] * shares[j]);
      const estimate = (i === j ? noise[i] : 0) - shares[i] * noise[j] - noise[i] * shares[j] + shares[i] * shares[j] * noiseSum;
      c[i].push(multinomial + estimate);
    }
  }
  const chi2 = quadraticForm(c, d.slice(0, n));
  const p = Math.min(1, Math.max(0, gammaQ(n / 2, chi2 / 2)));
  return { p_value: p, alert: p < SRM_ALPHA };
}

/** x' A⁻¹ x for a symmetric positive definite A (at most 7 × 7 here), by Gaussian elimination with partial pivoting. */
function quadraticForm(a: number[][], x: readonly number[]): number {
  const n = x.length;
  const m = a.map((row, i) => [...row, x[i]]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) pivot = r;
    [m[col], m[pivot]] = [m[pivot], m[col]];
    for (let r = col + 1; r < n; r++) {
      const f = m[r][col] / m[col][col];
      for (let j = col; j <= n; j++) m[r][j] -= f * m[col][j];
    }
  }
  // Back substitution gives y = A⁻¹ x; the form is x · y.
  const y = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let v = m[r][n];
    for (let j = r + 1; j < n; j++) v -= m[r][j] * y[j];
    y[r] = v / m[r][r];
  }
  return x.reduce((sum, xi, i) => sum + xi * y[i], 0);
}

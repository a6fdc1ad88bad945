# The experiment statistics computed by SciPy (and mpmath), as an independent reference
# for test/unit/experiments/*.test.ts. Reads a JSON list of cases on stdin,
# writes a JSON list of answers (null where SciPy's answer is not finite).
import json
import math
import sys

from mpmath import mp
from scipy import integrate, stats
from scipy.stats import contingency


def finite(v):
    v = float(v)
    return v if math.isfinite(v) else None


def wilson(c):
    ci = stats.binomtest(c["x"], c["n"]).proportion_ci(confidence_level=0.95, method="wilson")
    return [finite(ci.low), finite(ci.high)]


def lift(c):
    r = contingency.relative_risk(c["xv"], c["nv"], c["xa"], c["na"])
    ci = r.confidence_interval(0.95)
    return {"lift": finite(r.relative_risk - 1), "ci95": [finite(ci.low - 1), finite(ci.high - 1)]}


def ztest(c):
    # A 2x2 chi-square without continuity correction is the square of the
    # pooled z statistic: a different computation of the same p-value.
    table = [[c["xv"], c["nv"] - c["xv"]], [c["xa"], c["na"] - c["xa"]]]
    return finite(stats.chi2_contingency(table, correction=False)[1])


def spread(a, b):
    return a / (a + b), math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))


def prob_best(c):
    arms = [(1 + a["conversions"], 1 + a["visitors"] - a["conversions"]) for a in c["arms"]]
    out = []
    for i, (a, b) in enumerate(arms):
        def f(t, i=i, a=a, b=b):
            v = stats.beta.pdf(t, a, b)
            for j, (aj, bj) in enumerate(arms):
                if j != i:
                    v *= stats.beta.cdf(t, aj, bj)
            return v
        mean, sd = spread(a, b)
        lo, hi = max(0.0, mean - 15 * sd), min(1.0, mean + 15 * sd)
        # Break points where any arm's CDF climbs, so that quad sees a narrow arm's step.
        points = sorted({p for aj, bj in arms for m, d in [spread(aj, bj)] for k in (-6, -3, -1, 0, 1, 3, 6) if lo < (p := m + k * d) < hi})
        out.append(integrate.quad(f, lo, hi, limit=2000, epsabs=1e-13, epsrel=1e-10, points=points)[0])
    return out


def miller(c):
    # Evan Miller, "Formulas for Bayesian A/B Testing" (2015): the exact
    # P(p_B > p_A) for Beta posteriors, a finite sum over B's alpha, in
    # mpmath at 40 digits (SciPy's betaln is 4e-6 off the sum at 1e9 visitors).
    mp.dps = 40
    aa, ba = 1 + c["xa"], 1 + c["na"] - c["xa"]
    ab, bb = 1 + c["xb"], 1 + c["nb"] - c["xb"]
    lbeta = lambda a, b: mp.loggamma(a) + mp.loggamma(b) - mp.loggamma(a + b)
    total = mp.mpf(0)
    for i in range(int(ab)):
        total += mp.exp(lbeta(aa + i, ba + bb) - mp.log(bb + i) - lbeta(1 + i, bb) - lbeta(aa, ba))
    return float(total)


def srm(c):
    obs = [o for o, w in zip(c["observed"], c["weights"]) if w > 0]
    ws = [w for w in c["weights"] if w > 0]
    total = sum(obs)
    exp = [total * w / sum(ws) for w in ws]
    return finite(stats.chisquare(obs, exp)[1])


def srm_estimated(c):
    # The chi-square of counts that are estimates with relative standard error
    # e: d = observed - N*share, with covariance N(diag(s) - s s') plus the
    # estimates' own noise carried through d = (I - s 1') observed. Two arms
    # in closed form (d_2 = -d_1); more by numpy's solver.
    import numpy as np
    obs = [o for o, w in zip(c["observed"], c["weights"]) if w > 0]
    ws = [w for w in c["weights"] if w > 0]
    n, k, e = float(sum(obs)), len(obs), c["error"]
    s = np.array(ws, dtype=float) / sum(ws)
    d = np.array(obs, dtype=float) - n * s
    noise = (e * n * s) ** 2
    if k == 2:
        var = n * s[0] * s[1] + s[1] ** 2 * noise[0] + s[0] ** 2 * noise[1]
        return finite(stats.chi2.sf(d[0] ** 2 / var, 1))
    proj = np.eye(k) - np.outer(s, np.ones(k))
    cov = n * (np.diag(s) - np.outer(s, s)) + proj @ np.diag(noise) @ proj.T
    x2 = d[:-1] @ np.linalg.solve(cov[:-1, :-1], d[:-1])
    return finite(stats.chi2.sf(x2, k - 1))


KINDS = {"wilson": wilson, "lift": lift, "ztest": ztest, "prob_best": prob_best, "miller": miller, "srm": srm, "srm_estimated": srm_estimated}
print(json.dumps([KINDS[c["kind"]](c) for c in json.load(sys.stdin)]))

# The experiment statistics computed by SciPy, as an independent reference
# for test/unit/experiments/*.test.ts. Reads a JSON list of cases on stdin,
# writes a JSON list of answers (null where SciPy's answer is not finite).
import json
import math
import sys

from scipy import integrate, special, stats
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


def prob_best(c):
    arms = [(1 + a["x"], 1 + a["n"] - a["x"]) for a in c["arms"]]
    out = []
    for i, (a, b) in enumerate(arms):
        def f(t, i=i, a=a, b=b):
            v = stats.beta.pdf(t, a, b)
            for j, (aj, bj) in enumerate(arms):
                if j != i:
                    v *= stats.beta.cdf(t, aj, bj)
            return v
        mean = a / (a + b)
        sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        lo, hi = max(0.0, mean - 15 * sd), min(1.0, mean + 15 * sd)
        out.append(integrate.quad(f, lo, hi, limit=500, epsabs=1e-13, epsrel=1e-10, points=[mean])[0])
    return out


def miller(c):
    # Evan Miller, "Formulas for Bayesian A/B Testing" (2015): the exact
    # P(p_B > p_A) for Beta posteriors, a finite sum over B's alpha.
    aa, ba = 1 + c["xa"], 1 + c["na"] - c["xa"]
    ab, bb = 1 + c["xb"], 1 + c["nb"] - c["xb"]
    total = 0.0
    for i in range(ab):
        total += math.exp(special.betaln(aa + i, ba + bb) - math.log(bb + i) - special.betaln(1 + i, bb) - special.betaln(aa, ba))
    return total


def srm(c):
    obs = [o for o, w in zip(c["observed"], c["weights"]) if w > 0]
    ws = [w for w in c["weights"] if w > 0]
    total = sum(obs)
    exp = [total * w / sum(ws) for w in ws]
    return finite(stats.chisquare(obs, exp)[1])


KINDS = {"wilson": wilson, "lift": lift, "ztest": ztest, "prob_best": prob_best, "miller": miller, "srm": srm}
print(json.dumps([KINDS[c["kind"]](c) for c in json.load(sys.stdin)]))

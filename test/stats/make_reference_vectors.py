#!/usr/bin/python3
"""Writes test/stats/reference-vectors.json: inputs and outputs of the reference libraries that
src/stats follows, for test/stats/reference.test.ts (which needs no Python).

Run with Debian's interpreter, which has the libraries (apt-get install python3-scipy
python3-statsmodels python3-sklearn):

    /usr/bin/python3 test/stats/make_reference_vectors.py

Floats are written with repr (exact round trip); NaN and infinities as the strings "NaN", "Infinity",
"-Infinity". Everything is seeded, so a rerun with the same library versions writes the same file.
"""
import json
import math
import os
import warnings

import numpy as np
import scipy
import sklearn
import statsmodels
from scipy import special, stats
from scipy.stats import _resampling
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar
from statsmodels.stats.multitest import multipletests

warnings.simplefilter("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference-vectors.json")


def num(x):
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def nums(xs):
    return [num(x) for x in xs]


rng = np.random.default_rng(20261130)


def gfs_like(n, p=(0.1, 0.15, 0.2, 0.25, 0.3)):
    """Grounding-faithfulness-like scores: five levels 0, 0.25, ..., 1, so sums are exact and ties many."""
    return rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=n, p=list(p))


# ---------------------------------------------------------------- distributions
def distributions():
    zs = np.concatenate([np.linspace(-37, 8.5, 92), [-1.959963984540054, 1.959963984540054, 0.3, -0.7, 1e-9, 0.0]])
    ps = np.concatenate([np.logspace(-300, -2, 60), np.linspace(0.01, 0.99, 50), 1 - np.logspace(-15, -2, 20),
                         [0.025, 0.975, 0.5, 0.05, 0.95]])
    xs = np.concatenate([np.logspace(-8, 3.1, 60), [3.841458820694124, 6.634896601021214, 1400.0]])
    bins = []
    for n in [0, 1, 2, 5, 10, 24, 25, 31, 100, 1000, 10000, 123457, 2000000]:
        for k in sorted({0, 1, 2, n // 3, max(n // 2 - 3, 0), n // 2, n // 2 + 1, max(n - 1, 0), n}):
            bins.append([k, n, num(stats.binom.cdf(k, n, 0.5))])
    return {
        "ndtr": [[num(z), num(special.ndtr(z))] for z in zs],
        "ndtri": [[num(p), num(special.ndtri(p))] for p in ps],
        "chi2sf1": [[num(x), num(stats.chi2.sf(x, 1))] for x in xs],
        "binomcdfHalf": bins,
    }


# ---------------------------------------------------------------- kappa
def kappa_cases():
    cases = []

    def add(name, a, b, weights=None, labels=None, codes=None):
        """codes: the same ratings as integer category codes, for labels scikit-learn calls continuous."""
        sk_a, sk_b = codes if codes is not None else (a, b)
        a = list(map(float, a))
        b = list(map(float, b))
        value = cohen_kappa_score(sk_a, sk_b, weights=weights, labels=labels)
        cases.append({"name": name, "a": a, "b": b, "weights": weights or "none",
                      "labels": None if labels is None else list(map(float, labels)), "kappa": num(value)})

    add("textbook binary", [1] * 20 + [1] * 5 + [0] * 10 + [0] * 15, [1] * 20 + [0] * 5 + [1] * 10 + [0] * 15)
    a = rng.integers(0, 3, 80)
    b = np.where(rng.random(80) < 0.6, a, rng.integers(0, 3, 80))
    add("three labels, moderate agreement", a, b)
    add("identical", a, a)
    add("negative kappa (systematic disagreement)", [0, 1, 0, 1, 0, 1, 0, 1, 1, 0], [1, 0, 1, 0, 1, 0, 1, 1, 0, 1])
    add("perfect disagreement, binary", [0, 1] * 10, [1, 0] * 10)
    add("constant raters on the same label (undefined)", [1] * 12, [1] * 12)
    add("constant raters on different labels", [1] * 12, [0] * 12)
    add("one rater constant", [1] * 12, [0, 1] * 6)
    g1 = rng.integers(0, 5, 120)
    g2 = np.clip(g1 + rng.integers(-1, 2, 120), 0, 4)
    for w in [None, "linear", "quadratic"]:
        add(f"ordinal 0..4, weights {w or 'none'}", g1, g2, weights=w)
    q1 = g1 / 4
    q2 = g2 / 4
    # scikit-learn rejects fractional labels as "continuous"; the same ratings as codes 0..4 are the reference
    add("GFS-like levels 0, .25, .., 1, quadratic (reference on codes 0..4)", q1, q2, weights="quadratic",
        codes=(g1, g2))
    add("explicit labels, superset (unseen label 5), linear", g1, g2, weights="linear", labels=[0, 1, 2, 3, 4, 5])
    add("explicit labels, superset, unweighted", g1, g2, labels=[0, 1, 2, 3, 4, 5])
    add("explicit labels, subset (items outside dropped)", g1, g2, labels=[0, 1, 2])
    add("explicit labels, unsorted order, linear", g1, g2, weights="linear", labels=[4, 0, 3, 1, 2])
    add("explicit labels, unsorted order, quadratic", g1, g2, weights="quadratic", labels=[2, 4, 0, 1, 3])
    add("constant raters, weighted (undefined)", [2] * 9, [2] * 9, weights="quadratic")
    add("single disagreement, large n", [1] * 999 + [0], [1] * 1000)
    return cases


# ---------------------------------------------------------------- McNemar
def mcnemar_cases():
    tables = [
        ("b = c = 0", [[30, 0], [0, 20]]),
        ("tiny: n01 = 1, n10 = 0", [[10, 1], [0, 10]]),
        ("tiny: n01 = 0, n10 = 2", [[10, 0], [2, 10]]),
        ("small: 2 vs 3", [[40, 2], [3, 50]]),
        ("small: 5 vs 0", [[40, 5], [0, 50]]),
        ("equal discordant 12 vs 12", [[40, 12], [12, 50]]),
        ("sum 24 (exact by default)", [[40, 3], [21, 50]]),
        ("sum 25 (chi-square by default)", [[40, 13], [12, 50]]),
        ("moderate 30 vs 45", [[300, 30], [45, 500]]),
        ("huge: 5000 vs 4700", [[90000, 5000], [4700, 80000]]),
        ("huge: 1000000 vs 1003000", [[0, 1000000], [1003000, 0]]),
        ("huge, very different: 20000 vs 30000", [[0, 20000], [30000, 0]]),
    ]
    cases = []
    for name, t in tables:
        row = {"name": name, "table": t}
        for key, kw in [("exact", dict(exact=True)), ("chi2corrected", dict(exact=False, correction=True)),
                        ("chi2", dict(exact=False, correction=False))]:
            res = sm_mcnemar(np.array(t), **kw)
            row[key] = {"statistic": num(res.statistic), "pValue": num(res.pvalue)}
        cases.append(row)
    return cases


# ---------------------------------------------------------------- multiple comparisons
def multitest_cases():
    inputs = [
        [0.01, 0.04, 0.03, 0.005],
        [0.2, 0.2, 0.01, 0.5, 0.01, 0.9],
        [0.5, 0.6, 0.7],
        [0.0, 1.0, 0.049, 0.051],
        [0.3],
        list(rng.uniform(0, 0.2, 25)),
    ]
    out = []
    for p in inputs:
        out.append({"p": nums(p), "bonferroni": nums(multipletests(p, method="bonferroni")[1]),
                    "holm": nums(multipletests(p, method="holm")[1])})
    return out


# ---------------------------------------------------------------- bootstrap
def mean_stat(x, axis=-1):
    return np.mean(x, axis=axis)


def bca_parts(data_arrays, statistic, dist, confidence):
    alpha = (1 - confidence) / 2
    theta_hat = np.asarray(statistic(*data_arrays, axis=-1))[..., None]
    pct = _resampling._percentile_of_score(dist, theta_hat, axis=-1)
    z0 = special.ndtri(pct)
    a1, a2, a_hat = _resampling._bca_interval(data_arrays, statistic, axis=-1, alpha=alpha, theta_hat_b=dist,
                                              batch=None)
    return float(np.squeeze(z0)), float(a1), float(a2), float(a_hat)


def given_distribution_cases():
    """scipy's own bootstrap distribution recorded with its BCa and percentile intervals."""
    datasets = [
        ("normal n=60", rng.normal(10, 2, 60), 2000, 0.95),
        ("exponential n=40 (skewed), 90%", rng.exponential(1.0, 40), 2000, 0.9),
        ("0/1 n=200 (tied distribution)", rng.integers(0, 2, 200).astype(float), 3000, 0.95),
        ("0/1 n=20 (heavy ties at the estimate)", np.array([1.0] * 13 + [0.0] * 7), 1000, 0.95),
        ("GFS-like n=300 (many ties)", gfs_like(300), 3000, 0.95),
        ("GFS-like n=1800, B=9999 (the hot path)", gfs_like(1800), 9999, 0.95),
        ("two distinct values, one rare", np.array([0.0] * 29 + [1.0]), 1500, 0.99),
    ]
    out = []
    for i, (name, x, b, conf) in enumerate(datasets):
        x = np.asarray(x, dtype=float)
        res = stats.bootstrap((x,), mean_stat, n_resamples=b, confidence_level=conf, method="BCa",
                              vectorized=True, random_state=1000 + i)
        dist = res.bootstrap_distribution
        pct = stats.bootstrap((x,), mean_stat, n_resamples=b, confidence_level=conf, method="percentile",
                              vectorized=True, random_state=1000 + i)
        assert np.array_equal(pct.bootstrap_distribution, dist)
        z0, a1, a2, a_hat = bca_parts((x,), mean_stat, dist, conf)
        out.append({"name": name, "values": nums(x), "confidence": conf, "bootDistribution": nums(dist),
                    "bca": {"low": num(res.confidence_interval.low), "high": num(res.confidence_interval.high),
                            "z0": num(z0), "acceleration": num(a_hat), "alpha1": num(a1), "alpha2": num(a2)},
                    "percentile": {"low": num(pct.confidence_interval.low),
                                   "high": num(pct.confidence_interval.high)}})
    return out


def ratio_stat(s, c, axis=-1):
    return np.sum(s, axis=axis) / np.sum(c, axis=axis)


def cluster_rows(n_clusters, sizes, level_p=None):
    rows = []
    for q in range(n_clusters):
        base = rng.uniform(0, 1)
        for r in range(sizes[q]):
            v = float(np.clip(np.round((base + rng.normal(0, 0.25)) * 4) / 4, 0, 1))
            rows.append({"cluster": f"q{q:03d}", "value": v})
    return rows


def cluster_arrays(rows):
    order, sums, sizes = [], {}, {}
    for r in rows:
        if r["cluster"] not in sums:
            order.append(r["cluster"])
            sums[r["cluster"]] = 0.0
            sizes[r["cluster"]] = 0
        sums[r["cluster"]] += r["value"]
        sizes[r["cluster"]] += 1
    return np.array([sums[c] for c in order]), np.array([float(sizes[c]) for c in order])


def cluster_given_distribution_cases():
    out = []
    for i, (name, k, sizes) in enumerate([("equal clusters 40 x 5", 40, [5] * 40),
                                          ("unequal clusters 30 x 1..6", 30, list(rng.integers(1, 7, 30)))]):
        rows = cluster_rows(k, sizes)
        s, c = cluster_arrays(rows)
        res = stats.bootstrap((s, c), ratio_stat, paired=True, vectorized=True, n_resamples=2000,
                              method="BCa", random_state=2000 + i)
        # scipy's paired path bootstraps (and jackknifes) an index array; do the same here
        def by_index(i, axis=-1, s=s, c=c):
            return ratio_stat(s[..., i], c[..., i], axis=axis)

        z0, a1, a2, a_hat = bca_parts((np.arange(len(s)),), by_index, res.bootstrap_distribution, 0.95)
        dist = res.bootstrap_distribution
        assert np.allclose([np.percentile(dist, a1 * 100), np.percentile(dist, a2 * 100)],
                           [res.confidence_interval.low, res.confidence_interval.high], rtol=0, atol=1e-15)
        out.append({"name": name, "rows": rows, "clusterSums": nums(s), "clusterSizes": nums(c),
                    "bootDistribution": nums(res.bootstrap_distribution),
                    "bca": {"low": num(res.confidence_interval.low), "high": num(res.confidence_interval.high),
                            "z0": num(z0), "acceleration": num(a_hat), "alpha1": num(a1), "alpha2": num(a2)}})
    return out


END_TO_END_B = 100000


def end_to_end_cases():
    """scipy.stats.bootstrap intervals with many resamples, for statistical agreement."""
    out = []
    one = [("normal n=200", rng.normal(0.6, 0.2, 200)), ("0/1 n=300", rng.integers(0, 2, 300).astype(float)),
           ("GFS-like n=500", gfs_like(500)), ("exponential n=80 (skewed)", rng.exponential(1.0, 80))]
    for i, (name, x) in enumerate(one):
        row = {"kind": "one-sample", "name": name, "values": nums(x), "confidence": 0.95}
        for method in ["BCa", "percentile"]:
            res = stats.bootstrap((x,), mean_stat, n_resamples=END_TO_END_B, method=method, vectorized=True,
                                  batch=2000, random_state=3000 + i)
            row[method.lower()] = {"low": num(res.confidence_interval.low), "high": num(res.confidence_interval.high),
                                   "standardError": num(res.standard_error)}
        out.append(row)
    a = gfs_like(400)
    b = np.clip(a + rng.choice([-0.25, 0.0, 0.0, 0.25, 0.5], 400), 0, 1)
    row = {"kind": "paired", "name": "paired GFS-like n=400", "a": nums(a), "b": nums(b), "confidence": 0.95}
    for method in ["BCa", "percentile"]:
        res = stats.bootstrap((a, b), lambda x, y, axis=-1: np.mean(x - y, axis=axis), paired=True, vectorized=True,
                              n_resamples=END_TO_END_B, method=method, batch=2000, random_state=3100)
        row[method.lower()] = {"low": num(res.confidence_interval.low), "high": num(res.confidence_interval.high),
                               "standardError": num(res.standard_error)}
    out.append(row)
    for i, (name, k, sizes) in enumerate([("cluster 60 x 5 runs", 60, [5] * 60),
                                          ("cluster 50 x 1..8 runs", 50, list(rng.integers(1, 9, 50)))]):
        rows = cluster_rows(k, sizes)
        s, c = cluster_arrays(rows)
        row = {"kind": "cluster", "name": name, "rows": rows, "confidence": 0.95}
        for method in ["BCa", "percentile"]:
            res = stats.bootstrap((s, c), ratio_stat, paired=True, vectorized=True, n_resamples=END_TO_END_B,
                                  method=method, batch=5000, random_state=3200 + i)
            row[method.lower()] = {"low": num(res.confidence_interval.low), "high": num(res.confidence_interval.high),
                                   "standardError": num(res.standard_error)}
        out.append(row)
    return out


# ---------------------------------------------------------------- variance decomposition
def variance_cases():
    out = []
    specs = [("GFS-like 50 questions x 5 runs", [5] * 50), ("uneven runs, one single-run question", [3, 1, 4, 2, 5, 2]),
             ("continuous 20 questions x 3 runs", [3] * 20)]
    for name, runs in specs:
        rows = []
        for q, m in enumerate(runs):
            base = rng.uniform(0, 1)
            for r in range(m):
                if name.startswith("continuous"):
                    v = float(base + rng.normal(0, 0.1))
                else:
                    v = float(np.clip(np.round((base + rng.normal(0, 0.2)) * 4) / 4, 0, 1))
                rows.append({"question": f"q{q}", "run": r, "value": v})
        groups = {}
        for row in rows:
            groups.setdefault(row["question"], []).append(row["value"])
        per_sd = {q: num(np.std(v, ddof=1)) if len(v) >= 2 else "NaN" for q, v in groups.items()}
        variances = [np.var(v, ddof=1) for v in groups.values() if len(v) >= 2]
        within = float(np.mean(variances))
        between = float(np.var([np.mean(v) for v in groups.values()], ddof=1))
        out.append({"name": name, "rows": rows, "perQuestionSD": per_sd, "withinQuestionVariance": num(within),
                    "withinQuestionSD": num(math.sqrt(within)), "betweenQuestionVariance": num(between)})
    return out


def main():
    doc = {
        "generator": "test/stats/make_reference_vectors.py",
        "versions": {"scipy": scipy.__version__, "statsmodels": statsmodels.__version__,
                     "sklearn": sklearn.__version__, "numpy": np.__version__},
        "distributions": distributions(),
        "kappa": kappa_cases(),
        "mcnemar": mcnemar_cases(),
        "multitest": multitest_cases(),
        "bootstrapGivenDistribution": given_distribution_cases(),
        "clusterGivenDistribution": cluster_given_distribution_cases(),
        "endToEnd": {"resamples": END_TO_END_B, "cases": end_to_end_cases()},
        "variance": variance_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, allow_nan=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()

"""Encoder.feasible and nearest_counterfactuals against naive Python loops, in one process; and
exhaustive_recourse_by_price against one exhaustive_recourse call per set of prices.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/features.py``).
Prints, for each operation: time per call at several sizes, the growth exponent
in n, and the speed-up over a naive per-pair loop measured on a subset.
"""

import numpy as np
import pandas as pd

from recourselab.counterfactuals import exhaustive_recourse, exhaustive_recourse_by_price, nearest_counterfactuals
from recourselab.counterfactuals.paper import nearest_feasible_counterfactual
from recourselab.datasets import load_adult, load_german_credit

from _timing import Results, best_time, growth_exponent, machine

results = Results(__file__)


def naive_feasible(encoder, Z_from, Z_to):
    """Reference: one Python loop over pairs and features, as research code often does."""
    out = np.empty(len(Z_from), dtype=bool)
    for i in range(len(Z_from)):
        ok = True
        for spec in encoder.specs_:
            sl = encoder.slices_[spec.name]
            d = Z_to[i, sl] - Z_from[i, sl]
            if spec.actionability == "immutable" and np.any(np.abs(d) > 1e-9):
                ok = False
            elif spec.actionability == "increase" and np.any(d < -1e-9):
                ok = False
            elif spec.actionability == "decrease" and np.any(d > 1e-9):
                ok = False
        out[i] = ok
    return out


def naive_nearest(encoder, A, B):
    """Reference: the lesson's literal search (counterfactuals/paper.py), one Python loop over pairs, feasible moves."""
    everyone = np.ones(len(B), dtype=bool)  # B holds the approved candidates only
    return np.array([nearest_feasible_counterfactual(a, B, everyone, encoder, actionable=False)[1] for a in A])


def bench_feasible(rng):
    data = load_german_credit()
    enc = data.encoder().fit(data.frame)
    Z = enc.transform(data.frame)
    rows = []
    for n in (10_000, 100_000, 1_000_000):
        i, j = rng.integers(0, len(Z), n), rng.integers(0, len(Z), n)
        A, B = Z[i], Z[j]
        rows.append({"pairs": n, "seconds": best_time(lambda A=A, B=B: enc.feasible(A, B))})
    table = pd.DataFrame(rows)
    i, j = rng.integers(0, len(Z), 5_000), rng.integers(0, len(Z), 5_000)
    naive_per_pair = best_time(lambda: naive_feasible(enc, Z[i], Z[j]), repeat=1) / 5_000
    assert np.array_equal(naive_feasible(enc, Z[i], Z[j]), enc.feasible(Z[i], Z[j]))
    table["naive seconds (extrapolated)"] = table["pairs"] * naive_per_pair
    table["speed-up"] = table["naive seconds (extrapolated)"] / table["seconds"]
    title = f"Encoder.feasible on German Credit ({enc.n_columns} encoded columns)"
    growth = results.value("growth exponent: Encoder.feasible",
                           growth_exponent(table["pairs"], table["seconds"]), note="in the number of pairs")
    results.table("Encoder.feasible", title, table, note="naive: a Python loop over pairs and features, "
                  "timed on 5,000 pairs and extrapolated")
    results.value("speed-up: Encoder.feasible (10^6 pairs)", table["speed-up"].iloc[-1])
    print(title)
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    print(f"growth exponent in n: {growth:.2f}\n")


def bench_nearest(rng):
    data = load_adult()
    enc = data.encoder().fit(data.frame)
    Z = enc.transform(data.frame)
    rows = []
    for n in (500, 1_000, 2_000, 4_000):
        A, B = Z[rng.choice(len(Z), n, replace=False)], Z[rng.choice(len(Z), n, replace=False)]
        rows.append({"factuals × candidates": f"{n} × {n}", "n": n,
                     "seconds": best_time(lambda A=A, B=B: nearest_counterfactuals(A, B, enc, actionable=False),
                                           repeat=2)})
    table = pd.DataFrame(rows)
    small_A, small_B = Z[rng.choice(len(Z), 20, replace=False)], Z[rng.choice(len(Z), 200, replace=False)]
    naive_seconds = best_time(lambda: naive_nearest(enc, small_A, small_B), repeat=1)
    fast = nearest_counterfactuals(small_A, small_B, enc, actionable=False).best_cost
    np.testing.assert_allclose(naive_nearest(enc, small_A, small_B), fast)
    naive_per_pair = naive_seconds / (20 * 200)
    table["naive seconds (extrapolated)"] = table["n"] ** 2 * naive_per_pair
    table["speed-up"] = table["naive seconds (extrapolated)"] / table["seconds"]
    title = f"nearest_counterfactuals on Adult ({enc.n_columns} encoded columns)"
    growth = results.value("growth exponent: nearest_counterfactuals", growth_exponent(table["n"], table["seconds"]),
                           note="in n, for n factuals x n candidates (pairs grow as n²)")
    results.table("nearest_counterfactuals", title, table, note="naive: a Python loop over factual-candidate "
                  "pairs, timed on 20 x 200 pairs and extrapolated")
    results.value("speed-up: nearest_counterfactuals (4000 × 4000)", table["speed-up"].iloc[-1])
    print(title)
    print(table.drop(columns="n").to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    print(f"growth exponent in n (pairs grow as n²): {growth:.2f}\n")


def bench_by_price(rng):
    """Several sets of prices: one grid scored once against one exhaustive_recourse call per set."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    from recourselab.features import Encoder, FeatureSpec

    n = 2_000
    X = pd.DataFrame({"age": rng.integers(20, 70, n), "income": rng.integers(20, 60, n),
                      "debt": rng.integers(0, 25, n), "education": rng.integers(0, 8, n)})
    y = (0.08 * X["income"] - 0.15 * X["debt"] + 0.4 * X["education"] + rng.logistic(0, 0.5, n) > 2).astype(int)
    model = HistGradientBoostingClassifier(random_state=0).fit(X, y)
    enc = Encoder([FeatureSpec("age", "continuous", "immutable"),
                   FeatureSpec("income", "continuous", "increase", max_change=6.0),
                   FeatureSpec("debt", "continuous", "decrease", max_change=8.0),
                   FeatureSpec("education", "continuous", "increase", max_change=2.0)]).fit(X)
    rows = X.index[model.predict(X) == 0][:300]
    rows_out = []
    for k in (1, 2, 5, 8):
        prices = {w: {"education": w} for w in np.geomspace(0.5, 8, k)}
        shared = best_time(lambda p=prices: exhaustive_recourse_by_price(model, X, enc, p, rows=rows), repeat=2)
        one_each = best_time(lambda p=prices: [exhaustive_recourse(model, X, enc, rows=rows, weights=w)
                                               for w in p.values()], repeat=2)
        rows_out.append({"prices": k, "by_price seconds": shared, "one call per price seconds": one_each})
    last = exhaustive_recourse_by_price(model, X, enc, prices, rows=rows)
    for w, res in last.items():  # the same answers
        pd.testing.assert_frame_equal(res.summary, exhaustive_recourse(model, X, enc, rows=rows,
                                                                        weights=prices[w]).summary)
    table = pd.DataFrame(rows_out)
    table["speed-up"] = table["one call per price seconds"] / table["by_price seconds"]
    title = f"exhaustive_recourse_by_price, {len(rows)} refused people, four columns"
    results.table("exhaustive_recourse_by_price", title, table,
                  note="against one exhaustive_recourse call per set of prices, same process, same answers")
    results.value("speed-up: exhaustive_recourse_by_price (8 prices)", table["speed-up"].iloc[-1])
    print(title)
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    print()


if __name__ == "__main__":
    print(f"machine: {machine()}\n")
    rng = np.random.default_rng(0)
    bench_feasible(rng)
    bench_nearest(rng)
    bench_by_price(rng)
    results.save()

"""Leave-one-out knapsack counterfactuals and the Table 3 experiment, timed in one process.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/allocation.py``).

1. ``utility_ce`` (prefix/suffix dynamic programme, O(n r) for all applicants)
   against ``utility_ce_naive`` (two knapsacks per applicant, O(n^2 r): the
   literal recomputation of ``recourselab/allocation/paper.py``, in plain Python
   loops, so the ratio holds both the algorithm's gain and numpy's over Python;
   the growth exponents separate the two) on pools of 20 to 2,000 applicants
   with integer requests 1-50 and a budget of 30% of the total request. The
   naive version runs in full on the smaller pools; on the larger ones it runs
   on a subset of applicants and its time is extrapolated (printed as such).
   Both must agree.
2. ``robustness_experiment`` on a synthetic lending setup shaped like the
   paper's: 20 problems x 20 applicants, 200 validation and 200 test budgets.
"""

import time

import numpy as np
import pandas as pd

from recourselab.allocation import BudgetDistribution, LendingUtility, robustness_experiment, utility_ce
from recourselab.allocation.paper import utility_ce as utility_ce_of_one
from recourselab.allocation.paper import utility_ce_naive

from _timing import Results, best_time, growth_exponent, machine

UTILITY = LendingUtility(G1=0.06, G2=4, C=0.5)   # the paper's lending parameters
SIZES = (20, 100, 500, 2_000)
FULL_NAIVE_UP_TO = 100
NAIVE_SUBSET = {500: 8, 2_000: 2}

results = Results(__file__)


def pool(n, rng):
    proba = rng.beta(5, 2, n)
    weights = rng.integers(1, 51, n)
    return UTILITY.value(proba, weights), weights, round(0.3 * int(weights.sum()))


def bench_utility_ce(rng):
    rows = []
    for n in SIZES:
        values, weights, capacity = pool(n, rng)
        fast = utility_ce(values, weights, capacity)
        fast_seconds = best_time(lambda v=values, w=weights, r=capacity: utility_ce(v, w, r), repeat=3)
        if n <= FULL_NAIVE_UP_TO:
            start = time.perf_counter()
            slow = utility_ce_naive(values, weights, capacity)
            naive_seconds = time.perf_counter() - start
            np.testing.assert_allclose(fast, slow, atol=1e-9)
            how = "measured"
        else:
            # the naive cost is the same for every applicant (two knapsacks over the n - 1 others):
            # time a few and extrapolate to all n
            subset = np.random.default_rng(n).choice(n, NAIVE_SUBSET[n], replace=False)  # own stream: pools stay
            v, w = values.tolist(), weights.tolist()
            start = time.perf_counter()
            for i in subset:
                np.testing.assert_allclose(fast[i], utility_ce_of_one(v, w, capacity, int(i)), atol=1e-9)
            naive_seconds = (time.perf_counter() - start) / NAIVE_SUBSET[n] * n
            how = f"extrapolated from {NAIVE_SUBSET[n]} applicants"
        rows.append({"applicants": n, "capacity": capacity, "all at once (s)": fast_seconds,
                     "naive (s)": naive_seconds, "naive timing": how, "speed-up": naive_seconds / fast_seconds})
    table = pd.DataFrame(rows)
    title = ("utility_ce for every applicant: prefix/suffix DP vs re-solving two knapsacks per applicant "
             "(paper.py, plain Python)")
    results.table("utility_ce", title, table, note="all at once: best of 3; naive: one run")
    print(title)
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.4g}"))
    sizes = table["applicants"]
    fast_growth = results.value("growth exponent: utility_ce all at once",
                                growth_exponent(sizes, table["all at once (s)"]),
                                note="O(n r) and the capacity r grows with n: ~ n^2")
    naive_growth = results.value("growth exponent: utility_ce naive", growth_exponent(sizes, table["naive (s)"]),
                                 note="O(n^2 r) and the capacity r grows with n: ~ n^3; 2,000 extrapolated")
    print(f"growth exponent in n (capacity grows with n, so O(n r) ~ n^2): all at once "
          f"{fast_growth:.2f}, naive "
          f"{naive_growth:.2f}")
    speedup_500 = float(table.loc[table["applicants"] == 500, "speed-up"].iloc[0])
    results.value("speed-up: utility_ce vs naive (500 applicants)", speedup_500)
    results.value("speed-up: utility_ce vs naive (2,000 applicants)", table["speed-up"].iloc[-1],
                  note=f"naive extrapolated from {NAIVE_SUBSET[2_000]} applicants")
    results.target("utility_ce speed-up at 500 applicants", speedup_500, ">=", 20, unit="x")
    print(f"speed-up at 500 applicants: {speedup_500:,.0f}x (target >= 20x)\n")
    assert speedup_500 >= 20, "the all-at-once utility_ce should be at least 20x faster at 500 applicants"


def bench_experiment(rng):
    # a synthetic lending test set shaped like German Credit's: 300 applicants, credit in hundreds (3-185),
    # historical decisions approving ~70%; budgets = approved credit of 50 historical batches of 20
    n = 300
    proba = rng.beta(5, 2, n)
    credit = np.clip(np.round(rng.lognormal(np.log(25), 0.7, n)), 3, 185).astype(int)
    approved = rng.random(n) < proba
    history = [credit[b][approved[b]].sum() for b in (rng.choice(n, 20, replace=False) for _ in range(50))]
    budgets = BudgetDistribution.fit(history)
    problems = [rng.choice(n, 20, replace=False) for _ in range(20)]
    start = time.perf_counter()
    res = robustness_experiment(proba, credit, policy="knapsack", utility=UTILITY, budget_distribution=budgets,
                                problems=problems, n_validation=200, n_test=200, random_state=0)
    seconds = time.perf_counter() - start
    n_refused = res.frame[["problem", "applicant"]].drop_duplicates().shape[0]
    results.value("seconds: robustness_experiment", seconds,
                  note=f"20 problems x 20 applicants, 200 validation + 200 test budgets; "
                       f"{n_refused} refused applicants")
    results.table("robustness_experiment", "robustness_experiment on a synthetic lending setup (Table 3 design)",
                  res.to_frame().reset_index(), note=f"one run, {seconds:.2f} s")
    print(f"robustness_experiment: synthetic lending, 20 problems x 20 applicants, 200 validation + 200 test "
          f"budgets (budget distribution N({budgets.mean:.0f}, {budgets.std:.0f}²) in hundreds)")
    print(f"time: {seconds:.2f} s for {res.frame[['problem', 'applicant']].drop_duplicates().shape[0]} refused "
          f"applicants ({res.n_excluded} left out of the means: some method's m' is infinite)")
    print(res.to_frame().to_string(float_format=lambda x: f"{x:.3f}"))
    print()


if __name__ == "__main__":
    print(f"machine: {machine()}\n")
    rng = np.random.default_rng(0)
    bench_utility_ce(rng)
    bench_experiment(rng)
    results.save()

"""Tests for recourselab.allocation.engine: the paper's Tables 1-2, brute force on small instances, bad input."""

import itertools
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.allocation import engine as al
from recourselab.allocation.engine import (
    AdmissionUtility,
    BudgetDistribution,
    LendingUtility,
    admission_probability,
    admission_utility,
    allocate,
    feature_ce,
    greedy,
    knapsack,
    lending_probability,
    lending_utility,
    monte_carlo_recourse,
    noisy_recourse,
    prediction_ce,
    prediction_ce_matrix,
    prediction_cost,
    robust_recourse,
    robustness_experiment,
    utility_ce,
    utility_ce_naive,
    validity,
)
from recourselab.counterfactuals.recourse import NO_COUNTERFACTUAL, nearest_counterfactuals
from recourselab.datasets import admissions_graduation_probability, make_admissions

EPS = 1e-6
M = np.array([0.8, 0.7, 0.6, 0.5])
CREDIT = np.array([4, 3, 2, 1])
LENDING = LendingUtility(G1=0.05, G2=1, C=0.2)
ADMISSION = AdmissionUtility(G=1, C=0.6)


# --------------------------------------------------------------------------- the paper's worked examples
def test_table_1_lending_example():
    v = LENDING.value(M, CREDIT)
    np.testing.assert_allclose(v, [0.8, 0.625, 0.5, 0.425])
    res = knapsack(v, CREDIT, 6)
    assert res.selected.astype(int).tolist() == [0, 1, 1, 1]
    assert res.utility == pytest.approx(1.55)
    assert res.used == 6
    # with applicant 1 forced in the best allocation is (1, 0, 1, 0) worth 1.3, so they need 1.55 - 0.5
    forced = knapsack(v[1:], CREDIT[1:], 6 - 4)
    assert forced.selected.astype(int).tolist() == [0, 1, 0] and forced.utility == pytest.approx(0.5)
    ce = utility_ce(v, CREDIT, 6, eps=EPS)
    assert ce[0] == pytest.approx(1.05 + EPS, abs=1e-12)
    m_prime = prediction_ce(ce, LENDING, CREDIT)
    assert m_prime[0] == pytest.approx(0.925, abs=1e-6)
    m_matrix = prediction_ce_matrix(M, CREDIT, [6], policy="knapsack", utility=LENDING)
    assert m_matrix[0, 0] == pytest.approx(0.925, abs=1e-6)
    # at m' the applicant is selected; just below they are not
    for m1, expected in ((m_prime[0], True), (0.925 - 1e-4, False)):
        assert knapsack(LENDING.value(np.r_[m1, M[1:]], CREDIT), CREDIT, 6).selected[0] == expected


def test_table_2_admissions_example():
    v = ADMISSION.value(M)
    np.testing.assert_allclose(v, [0.2, 0.1, 0.0, -0.1], atol=1e-12)
    for r in (2, 3):
        assert greedy(v, r).selected.astype(int).tolist() == [1, 1, 0, 0]
        assert allocate(v, None, r, policy="greedy").selected_index.tolist() == [0, 1]
    assert utility_ce(v, None, 2, policy="greedy", eps=EPS)[2] == pytest.approx(0.1 + EPS, abs=1e-12)
    assert utility_ce(v, None, 3, policy="greedy", eps=EPS)[2] == pytest.approx(EPS, abs=1e-12)
    ce = prediction_ce_matrix(M, None, [2, 3], policy="greedy", utility=ADMISSION, eps=EPS)
    assert ce[:, 2] == pytest.approx([0.7 + EPS, 0.6 + EPS], abs=1e-9)


def test_utilities_and_their_inverses():
    np.testing.assert_allclose(lending_utility(M, CREDIT, 0.05, 1, 0.2),
                               M * (CREDIT * 0.05 + 1) - (1 - M) * 0.2 * CREDIT)
    np.testing.assert_allclose(lending_probability(lending_utility(M, CREDIT, 0.05, 1, 0.2), CREDIT, 0.05, 1, 0.2), M)
    np.testing.assert_allclose(admission_probability(admission_utility(M, 2, 1), 2, 1), M)
    assert admission_utility(0.5, 2, 1) == 0.0  # the paper's G = 2, C = 1: positive iff M > 0.5
    assert np.isinf(prediction_ce(np.inf, ADMISSION))
    assert prediction_ce(0.5, ADMISSION) == pytest.approx(1.1)  # above 1 is kept: no probability is enough
    assert prediction_cost([0.3, 0.9], [0.5, 0.5]).tolist() == pytest.approx([0.2, 0.0])


@given(st.floats(0, 1), st.integers(0, 200), st.floats(0, 1), st.floats(0.01, 5), st.floats(0, 1))
def test_lending_inverse_round_trip(m, credit, G1, G2, C):
    v = lending_utility(m, credit, G1, G2, C)
    assert lending_probability(v, credit, G1, G2, C) == pytest.approx(m, abs=1e-9)


# --------------------------------------------------------------------------- brute force on small instances
quarters = st.integers(-8, 20).map(lambda k: k / 4)   # exact in binary: ties are real ties


@st.composite
def pools(draw, max_n=8, max_weight=6, max_capacity=15):
    n = draw(st.integers(1, max_n))
    values = np.array(draw(st.lists(quarters, min_size=n, max_size=n)))
    weights = np.array(draw(st.lists(st.integers(0, max_weight), min_size=n, max_size=n)))
    capacity = draw(st.integers(0, max_capacity))
    return values, weights, capacity


def best_subset(values, weights, capacity, items):
    """Enumeration: the best total over subsets of the positive items that fit."""
    items = [i for i in items if values[i] > 0]
    best = 0.0
    for k in range(1, len(items) + 1):
        for subset in itertools.combinations(items, k):
            if weights[list(subset)].sum() <= capacity:
                best = max(best, values[list(subset)].sum())
    return best


@given(pools())
def test_knapsack_equals_enumeration_with_documented_tie_breaking(pool):
    values, weights, capacity = pool
    res = knapsack(values, weights, capacity)
    n = len(values)
    optimum = best_subset(values, weights, capacity, range(n))
    assert res.utility == pytest.approx(optimum, abs=1e-12)
    assert weights[res.selected].sum() <= capacity
    assert (values[res.selected] > 0).all()
    # among optimal sets the one that leaves later applicants out (reversed indicator lexicographically smallest)
    positive = [i for i in range(n) if values[i] > 0]
    optimal = []
    for k in range(len(positive) + 1):
        for subset in itertools.combinations(positive, k):
            y = np.zeros(n, dtype=int)
            y[list(subset)] = 1
            if weights[y == 1].sum() <= capacity and values[y == 1].sum() == optimum:
                optimal.append(tuple(y[::-1]))
    assert tuple(res.selected.astype(int)[::-1]) == min(optimal)


@given(pools(), st.sampled_from(["knapsack", "greedy"]))
def test_utility_ce_all_at_once_equals_naive(pool, policy):
    values, weights, capacity = pool
    w = weights if policy == "knapsack" else None
    fast = utility_ce(values, w, capacity, policy=policy)
    slow = utility_ce_naive(values, w, capacity, policy=policy)
    np.testing.assert_allclose(fast, slow, atol=1e-12)
    if policy == "knapsack":  # and both equal the enumeration formula with i excluded
        for i in range(len(values)):
            others = [j for j in range(len(values)) if j != i]
            if weights[i] > capacity:
                assert np.isinf(fast[i])
            else:
                t = (best_subset(values, weights, capacity, others)
                     - best_subset(values, weights, capacity - weights[i], others))
                assert fast[i] == pytest.approx(t + EPS, abs=1e-12)


def test_leave_one_out_in_blocks_matches_naive():
    """Long pools use checkpointed suffix tables; force tiny blocks to exercise that path."""
    rng = np.random.default_rng(5)
    for _ in range(15):
        n = int(rng.integers(2, 40))
        values = rng.normal(0.5, 1.0, n)
        weights = rng.integers(0, 12, n)
        capacity = int(rng.integers(0, weights.sum() + 2))
        expected = utility_ce_naive(values, weights, capacity)
        for cells in (1, 7, 64):
            with mock.patch.object(al, "_BLOCK_CELLS", cells):
                np.testing.assert_allclose(utility_ce(values, weights, capacity), expected, atol=1e-12)
        # many budgets at once: both ways of evaluating the max-plus combination agree with one budget at a time
        caps = rng.integers(0, weights.sum() + 2, 12)
        proba = rng.uniform(0, 1, n)
        one_at_a_time = np.array([prediction_ce(utility_ce(LENDING.value(proba, weights), weights, r), LENDING, weights)
                                  for r in caps])
        for loop_from in (0, 10**9):
            with mock.patch.object(al, "_SLICE_LOOP_FROM", loop_from), mock.patch.object(al, "_BLOCK_CELLS", 50):
                matrix = prediction_ce_matrix(proba, weights, caps, policy="knapsack", utility=LENDING)
            np.testing.assert_allclose(matrix, one_at_a_time, atol=1e-12)


@given(pools(), st.sampled_from(["knapsack", "greedy"]))
def test_utility_ce_is_exactly_the_selection_threshold(pool, policy):
    values, weights, capacity = pool
    w = weights if policy == "knapsack" else None
    ce = utility_ce(values, w, capacity, policy=policy)
    for i in range(len(values)):
        if not np.isfinite(ce[i]):
            assert (policy == "knapsack" and weights[i] > capacity) or (policy == "greedy" and capacity == 0)
            continue
        for value, expected in ((ce[i], True), (ce[i] - 2 * EPS, False)):
            v = values.copy()
            v[i] = value
            assert allocate(v, w, capacity, policy).selected[i] == expected


@given(pools(), st.sampled_from(["knapsack", "greedy"]), st.integers(1, 20))
def test_raising_a_selected_utility_never_deselects(pool, policy, raise_by):
    values, weights, capacity = pool
    w = weights if policy == "knapsack" else None
    res = allocate(values, w, capacity, policy)
    for i in res.selected_index:
        v = values.copy()
        v[i] += raise_by / 4
        assert allocate(v, w, capacity, policy).selected[i]


@given(pools(max_weight=1))
def test_greedy_ce_agrees_with_brute_force_search(pool):
    values, _, capacity = pool
    ce = utility_ce(values, None, capacity, policy="greedy")
    for i in range(len(values)):
        # the selection threshold is 0 or another applicant's utility: try them all, smallest first
        candidates = sorted({0.0} | {values[j] for j in range(len(values)) if j != i and values[j] > 0})
        found = np.inf
        for c in candidates:
            v = values.copy()
            v[i] = c + EPS
            if greedy(v, capacity).selected[i]:
                found = c + EPS
                break
        assert ce[i] == pytest.approx(found, abs=1e-12) if np.isfinite(found) else np.isinf(ce[i])


@given(pools(), st.lists(st.integers(0, 15), min_size=1, max_size=6), st.sampled_from(["knapsack", "greedy"]))
def test_prediction_ce_matrix_equals_one_budget_at_a_time(pool, capacities, policy):
    values, weights, _ = pool
    proba = np.clip((values + 2) / 7, 0, 1)
    w = weights if policy == "knapsack" else None
    utility = LendingUtility(0.05, 1.0, 0.2) if policy == "knapsack" else AdmissionUtility(2, 1)
    matrix = prediction_ce_matrix(proba, w, capacities, policy=policy, utility=utility)
    v = utility.value(proba, w)
    for j, r in enumerate(capacities):
        expected = prediction_ce(utility_ce(v, w, r, policy=policy), utility, w)
        np.testing.assert_allclose(matrix[j], expected, atol=1e-12)


# --------------------------------------------------------------------------- robust recourse and validity
@st.composite
def budget_problems(draw):
    policy = draw(st.sampled_from(["knapsack", "greedy"]))
    n = draw(st.integers(1, 7))
    proba = np.array(draw(st.lists(st.integers(0, 100), min_size=n, max_size=n))) / 100
    weights = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n))) if policy == "knapsack" else None
    capacities = np.array(draw(st.lists(st.integers(0, 12), min_size=1, max_size=12)))
    utility = LendingUtility(0.05, 1.0, 0.2) if policy == "knapsack" else AdmissionUtility(2, 1)
    return policy, proba, weights, capacities, utility


@given(budget_problems(), st.lists(st.floats(0, 1), min_size=2, max_size=5))
def test_robust_recourse_monotone_in_rho_and_valid_on_its_samples(problem, rhos):
    policy, proba, weights, capacities, utility = problem
    ce = prediction_ce_matrix(proba, weights, capacities, policy=policy, utility=utility)
    rhos = sorted(rhos)
    recourse = np.array([robust_recourse(ce, rho) for rho in rhos])
    assert (recourse[1:] >= recourse[:-1]).all()
    for rho, m_rho in zip(rhos, recourse, strict=True):
        share = validity(m_rho, proba, weights, capacities, policy=policy, utility=utility)
        finite = np.isfinite(m_rho)
        assert (share[finite] >= rho - 1e-12).all()
    np.testing.assert_array_equal(robust_recourse(ce, 0.0), ce.min(axis=0))
    np.testing.assert_array_equal(robust_recourse(ce, 1.0), ce.max(axis=0))


@given(budget_problems(), st.data())
def test_validity_shortcut_equals_rerunning_the_allocation(problem, data):
    policy, proba, weights, capacities, utility = problem
    n = len(proba)
    ce = prediction_ce_matrix(proba, weights, capacities, policy=policy, utility=utility)
    at_tie = prediction_ce_matrix(proba, weights, capacities, policy=policy, utility=utility, eps=1e-12)
    # new probabilities exactly at a counterfactual, just below one, or anywhere in [0, 1] (rerunning the
    # allocation needs a real probability: the utilities reject values outside [0, 1])
    m_new = np.empty(n)
    for i in range(n):
        j = data.draw(st.integers(0, len(capacities) - 1))
        kind = data.draw(st.sampled_from(["at", "below", "random"]))
        if kind == "random" or not np.isfinite(ce[j, i]) or ce[j, i] > 1:
            m_new[i] = data.draw(st.integers(0, 100)) / 100
        else:
            m_new[i] = ce[j, i] if kind == "at" else max(ce[j, i] - 1e-4, 0.0)
    shortcut = validity(m_new, proba, weights, capacities, policy=policy, utility=utility)
    rerun = np.zeros((len(capacities), n), dtype=bool)
    band = np.zeros_like(rerun)
    for i in range(n):
        p = proba.copy()
        p[i] = m_new[i]
        for j, r in enumerate(capacities):
            rerun[j, i] = allocate(utility.value(p, weights), weights, r, policy).selected[i]
            # inside the documented eps band just above a tie the shortcut says "not valid" (conservative)
            band[j, i] = at_tie[j, i] - 1e-12 <= m_new[i] < ce[j, i]
    outside = ~band
    np.testing.assert_array_equal(rerun[outside], ((m_new[None, :] >= ce) & np.isfinite(ce))[outside])
    np.testing.assert_allclose(shortcut, (rerun & outside).mean(axis=0), atol=1e-12)


def test_noisy_recourse_brackets_the_static_counterfactual():
    rng = np.random.default_rng(0)
    proba = rng.uniform(0.3, 1, 60)
    static = prediction_ce_matrix(proba, None, [25], policy="greedy", utility=AdmissionUtility(2, 1))[0]
    kw = dict(policy="greedy", utility=AdmissionUtility(2, 1), random_state=1)
    assert np.array_equal(noisy_recourse(proba, None, 25, 4.0, 0.0, **kw), static)   # p = 0: no noise
    low, high = noisy_recourse(proba, None, 25, 4.0, 0.5, **kw), noisy_recourse(proba, None, 25, 4.0, 0.99, **kw)
    assert (low >= static).all() and (high >= low - 1e-12).all()
    # z = Phi^-1(0.95) = 1.645: budgets stay within 25 +- round(1.645 * 4) = 25 +- 7
    worst = prediction_ce_matrix(proba, None, [18], policy="greedy", utility=AdmissionUtility(2, 1))[0]
    assert (noisy_recourse(proba, None, 25, 4.0, 0.9, **kw) <= worst).all()


def test_monte_carlo_recourse_matches_the_matrix_route():
    rng = np.random.default_rng(2)
    others, weights = rng.uniform(0.2, 1, 12), rng.integers(1, 8, 12)
    budgets = BudgetDistribution(20, 5)

    def sampler(g):
        return others, weights, int(budgets.sample(1, g)[0]), LENDING

    res = monte_carlo_recourse(0.4, 5, sampler, 50, 0.8, policy="knapsack", random_state=3)
    pool_p, pool_w = np.r_[others, 0.4], np.r_[weights, 5]
    expected = prediction_ce_matrix(pool_p, pool_w, res.capacities, policy="knapsack", utility=LENDING)[:, -1]
    np.testing.assert_allclose(res.samples, expected, atol=1e-12)
    assert res.m_prime == robust_recourse(expected, 0.8)[0]
    assert res.validity >= 0.8 and res.cost == pytest.approx(max(res.m_prime - 0.4, 0))
    assert list(res.to_frame().columns) == ["capacity", "prediction_ce", "valid"]
    again = monte_carlo_recourse(0.4, 5, sampler, 50, 0.8, policy="knapsack", random_state=3)
    assert np.array_equal(again.samples, res.samples)


def test_budget_distribution_fit_and_sample():
    dist = BudgetDistribution.fit([10, 12, 14])
    assert dist.mean == 12 and dist.std == pytest.approx(2.0)
    draws = BudgetDistribution(1.0, 5.0).sample(500, random_state=0)
    assert draws.dtype.kind == "i" and draws.min() == 0 and (draws >= 0).all()
    assert np.array_equal(draws, BudgetDistribution(1.0, 5.0).sample(500, random_state=np.random.default_rng(0)))


def lending_pool(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return rng.beta(5, 2, n), rng.integers(3, 60, n)


def test_robustness_experiment_reproduces_table_3_design():
    proba, credit = lending_pool()
    rng = np.random.default_rng(1)
    problems = [rng.choice(len(proba), 20, replace=False) for _ in range(6)]
    budgets = BudgetDistribution.fit([credit[rng.choice(len(proba), 20)].sum() * 0.4 for _ in range(50)])
    kw = dict(policy="knapsack", utility=LendingUtility(0.06, 4, 0.5), budget_distribution=budgets,
              problems=problems, n_validation=100, n_test=100, random_state=4)
    res = robustness_experiment(proba, credit, **kw)
    table = res.to_frame()
    assert list(table.index) == ["static CE", "0.7-robust", "0.9-robust", "0.7-noisy", "0.9-noisy", "optimistic"]
    assert table.loc["optimistic", "cost"] == pytest.approx(1.0)
    assert table.loc["optimistic", "validity"] == pytest.approx(1.0)
    assert table.loc["0.9-robust", "validity"] >= table.loc["0.7-robust", "validity"]
    assert table.loc["0.9-robust", "cost"] >= table.loc["0.7-robust", "cost"]
    frame = res.frame
    assert set(frame.columns) >= {"problem", "applicant", "method", "proba", "m_prime", "cost", "validity"}
    # every row is a refused applicant of its problem at the problem's current budget
    for (number, capacity), rows in frame.groupby(["problem", "capacity"]):
        P, W = proba[problems[number]], credit[problems[number]]
        refused = ~knapsack(kw["utility"].value(P, W), W, capacity).selected
        assert set(rows["applicant"]) == set(problems[number][refused])
    assert np.array_equal(robustness_experiment(proba, credit, **kw).frame.to_numpy(), frame.to_numpy())


# --------------------------------------------------------------------------- feature counterfactuals
@pytest.fixture(scope="module")
def admissions():
    return make_admissions(2000, random_state=1)


def test_feature_ce_reaches_m_prime_at_the_nearest_feasible_profile(admissions):
    from sklearn.linear_model import LogisticRegression

    enc = admissions.encoder().fit(admissions.frame)
    Z = enc.transform(admissions.frame)
    model = LogisticRegression(max_iter=1000).fit(Z, admissions.y)
    proba = model.predict_proba(Z)[:, 1]
    index = int(np.argsort(proba)[200])
    res = feature_ce(model, Z, index, 0.7, enc)
    assert res.found and res.proba >= 0.7 and enc.feasible(Z[index], Z[res.target])[0]
    reach = np.flatnonzero(proba >= 0.7)
    expected = nearest_counterfactuals(Z[index], Z[reach], enc).best_cost[0]
    assert res.cost == pytest.approx(expected)
    assert feature_ce(model, Z, index, proba[index] - 0.01, enc).cost == 0.0   # already there
    impossible = feature_ce(model, Z, index, 1.2, enc)                        # m' above 1: impossible
    assert not impossible.found and impossible.target == NO_COUNTERFACTUAL
    with pytest.raises(IndexError):  # an absent counterfactual cannot pick a row by mistake
        Z[impossible.target]
    assert impossible.to_frame()["target"].isna().all()
    subset = feature_ce(model, Z, index, 0.7, enc, candidates=np.r_[index, reach[:5]])
    assert subset.target in reach[:5] or not subset.found
    assert res.to_frame().shape == (1, 7) and res.to_frame()["target"].iloc[0] == res.target


def test_make_admissions_rates_and_specs(admissions):
    data = make_admissions(10000, random_state=0)
    frame = data.frame
    p = frame["graduation_probability"]
    assert 0.5 <= (p > 0.5).mean() <= 0.6
    assert 0.35 <= frame["admitted"].mean() <= 0.45
    np.testing.assert_allclose(admissions_graduation_probability(frame), p)
    assert data.target == "graduated" and data.protected == ("first_generation",)
    acts = {s.name: s.actionability for s in data.features}
    assert acts == {"grade_average": "increase", "entrance_test": "increase", "extra_credits": "increase",
                    "age": "increase", "first_generation": "immutable"}
    rng = np.random.default_rng(0)
    budgets = BudgetDistribution.fit([frame["admitted"].iloc[rng.choice(len(frame), 500, replace=False)].sum()
                                      for _ in range(50)])
    assert 175 <= budgets.mean <= 225
    assert frame.equals(make_admissions(10000, random_state=0).frame)
    assert not frame.equals(admissions.frame)


# --------------------------------------------------------------------------- bad input
def test_bad_weights_and_capacity():
    with pytest.raises(ValueError, match=r"weights\[1\]=-2 is negative"):
        knapsack([1.0, 2.0], [1, -2], 3)
    with pytest.raises(ValueError, match=r"weights\[0\]=1.5 is not an integer"):
        knapsack([1.0, 2.0], [1.5, 2], 3)
    with pytest.raises(ValueError, match="capacity=-1 is negative"):
        knapsack([1.0], [1], -1)
    with pytest.raises(ValueError, match="capacity=2.5 is not an integer"):
        utility_ce([1.0], [1], 2.5)
    with pytest.raises(ValueError, match=r"weights has shape \(3,\) but there are 2 applicants"):
        knapsack([1.0, 2.0], [1, 2, 3], 3)
    with pytest.raises(ValueError, match=r"values\[1\]=nan"):
        knapsack([1.0, np.nan], [1, 1], 3)
    with pytest.raises(ValueError, match="values is empty: there are no applicants"):
        knapsack([], [], 3)
    with pytest.raises(ValueError, match="values is empty"):
        greedy([], 2)
    with pytest.raises(ValueError, match="greedy policy gives every applicant one slot"):
        allocate([1.0, 2.0], [1, 3], 2, policy="greedy")
    with pytest.raises(ValueError, match="policy='fifo'"):
        allocate([1.0], [1], 1, policy="fifo")
    with pytest.raises(ValueError, match="capacities\\[1\\]=-3 is negative"):
        prediction_ce_matrix([0.5, 0.6], [1, 1], [2, -3], policy="knapsack", utility=LENDING)


def test_rho_outside_unit_interval():
    with pytest.raises(ValueError, match=r"rho=1.5 must lie in \[0, 1\]"):
        robust_recourse([[0.5]], 1.5)
    with pytest.raises(ValueError, match=r"rho=-0.1 must lie in \[0, 1\]"):
        monte_carlo_recourse(0.5, 1, lambda g: ([0.6], None, 1, ADMISSION), 5, -0.1, policy="greedy")


def test_utility_parameters_that_make_s_non_invertible():
    with pytest.raises(ValueError, match=r"credit\*\(G1 \+ C\) \+ G2 = -0.5 <= 0 for credit\[0\]=0"):
        lending_probability(0.1, [0, 10], G1=0.05, G2=-0.5, C=0.2)
    with pytest.raises(ValueError, match=r"G1=1.5 is outside \[0, 1\]"):
        LendingUtility(G1=1.5, G2=1, C=0.2)
    with pytest.raises(ValueError, match=r"C=-0.1 is outside \[0, 1\]"):
        lending_utility(0.5, 1, 0.05, 1, -0.1)
    with pytest.raises(ValueError, match="G1 \\+ C = 0 and G2=0"):
        LendingUtility(G1=0, G2=0, C=0)
    with pytest.raises(ValueError, match="G=0 must be > 0"):
        AdmissionUtility(G=0, C=1)
    with pytest.raises(ValueError, match="C=-1 is negative"):
        admission_probability(0.2, G=1, C=-1)
    with pytest.raises(ValueError, match="weights is None"):
        LENDING.value([0.5], None)


def test_other_bad_input():
    with pytest.raises(ValueError, match="at least 2 historical budgets"):
        BudgetDistribution.fit([200])
    with pytest.raises(ValueError, match="std=-1.0 must be >= 0"):
        BudgetDistribution(10, -1)
    with pytest.raises(ValueError, match=r"p=2 must lie in \[0, 1\]"):
        noisy_recourse([0.5], None, 1, 1.0, 2, policy="greedy", utility=ADMISSION)
    with pytest.raises(ValueError, match="m_new has shape"):
        validity([0.5], [0.5, 0.6], None, [1], policy="greedy", utility=ADMISSION)
    with pytest.raises(TypeError, match="utility must be"):
        prediction_ce([0.1], "lending")
    with pytest.raises(ValueError, match="eps=0 must be a small positive number"):
        utility_ce([1.0], [1], 1, eps=0)
    with pytest.raises(ValueError, match="problems is empty"):
        robustness_experiment([0.5], None, policy="greedy", utility=ADMISSION,
                              budget_distribution=BudgetDistribution(1, 1), problems=[])
    with pytest.raises(ValueError, match="lacks the columns"):
        admissions_graduation_probability(pd.DataFrame({"age": [20]}))


def test_inputs_are_not_mutated():
    v, w = np.array([0.8, 0.625, 0.5, 0.425]), CREDIT.copy()
    utility_ce(v, w, 6)
    knapsack(v, w, 6)
    prediction_ce_matrix(M, w, [3, 6], policy="knapsack", utility=LENDING)
    assert v.tolist() == [0.8, 0.625, 0.5, 0.425] and w.tolist() == [4, 3, 2, 1]


# --------------------------------------------------------------------------- bad input, one case per test
def test_lending_utility_rejects_a_probability_above_one():
    with pytest.raises(ValueError, match=r"m=1.5 is outside \[0, 1\]; m holds probabilities"):
        lending_utility(1.5, 4, G1=0.05, G2=1, C=0.2)


def test_lending_utility_rejects_an_infinite_probability():
    with pytest.raises(ValueError, match=r"m=inf is not finite"):
        lending_utility(np.inf, 4, G1=0.05, G2=1, C=0.2)


def test_lending_utility_rejects_a_nan_probability():
    with pytest.raises(ValueError, match=r"m\[1\]=nan is not finite"):
        LENDING.value([0.5, np.nan], [4, 3])


def test_lending_utility_object_names_the_entry_above_one():
    with pytest.raises(ValueError, match=r"m\[1\]=1.2 is outside \[0, 1\]"):
        LENDING.value([0.5, 1.2], [4, 3])


def test_admission_utility_rejects_a_negative_probability():
    with pytest.raises(ValueError, match=r"m\[0\]=-0.1 is outside \[0, 1\]"):
        admission_utility([-0.1, 0.5], G=1, C=0.6)


def test_lending_utility_without_credit_is_reported():
    with pytest.raises(TypeError, match="credit is None"):
        lending_utility(0.5, None, G1=0.05, G2=1, C=0.2)


def test_prediction_ce_matrix_rejects_probabilities_above_one():
    with pytest.raises(ValueError, match=r"proba\[1\]=1.3 is outside \[0, 1\]"):
        prediction_ce_matrix([0.5, 1.3], None, [1], policy="greedy", utility=ADMISSION)


def test_prediction_ce_matrix_rejects_infinite_probabilities():
    with pytest.raises(ValueError, match=r"proba\[0\]=inf is not finite"):
        prediction_ce_matrix([np.inf, 0.3], None, [1], policy="greedy", utility=ADMISSION)


def test_robustness_experiment_rejects_probabilities_above_one():
    with pytest.raises(ValueError, match=r"proba\[2\]=2 is outside \[0, 1\]"):
        robustness_experiment([0.5, 0.6, 2.0], None, policy="greedy", utility=ADMISSION,
                              budget_distribution=BudgetDistribution(1, 1), problems=[np.array([0, 1])])


def test_monte_carlo_rejects_a_current_probability_above_one():
    with pytest.raises(ValueError, match=r"m_i=1.5 must be a probability in \[0, 1\]"):
        monte_carlo_recourse(1.5, 1, lambda g: ([0.6], None, 1, ADMISSION), 5, 0.5, policy="greedy")


def test_monte_carlo_rejects_a_nan_current_probability():
    with pytest.raises(ValueError, match=r"m_i=nan must be a probability in \[0, 1\]"):
        monte_carlo_recourse(float("nan"), 1, lambda g: ([0.6], None, 1, ADMISSION), 5, 0.5, policy="greedy")


def test_monte_carlo_rejects_sampled_probabilities_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"others_proba\[1\]=1.4 is outside \[0, 1\]"):
        monte_carlo_recourse(0.5, 1, lambda g: ([0.6, 1.4], None, 1, ADMISSION), 5, 0.5, policy="greedy")


def test_monte_carlo_rejects_a_whole_float_sample_count():
    with pytest.raises(ValueError, match=r"n_samples=5.0 must be an integer >= 1"):
        monte_carlo_recourse(0.5, 1, lambda g: ([0.6], None, 1, ADMISSION), 5.0, 0.5, policy="greedy")


def test_prediction_cost_rejects_a_probability_above_one():
    with pytest.raises(ValueError, match=r"m\[0\]=1.1 is outside \[0, 1\]"):
        prediction_cost([1.1], [0.5])


def test_prediction_cost_rejects_a_negative_target():
    with pytest.raises(ValueError, match=r"m_prime\[0\]=-0.2 is negative"):
        prediction_cost([0.5], [-0.2])


def test_prediction_cost_keeps_targets_above_one_and_inf():
    assert prediction_cost([0.5, 0.5], [1.2, np.inf]).tolist() == pytest.approx([0.7, np.inf])


def test_validity_rejects_a_nan_new_probability():
    with pytest.raises(ValueError, match=r"m_new\[0\]=nan is not a number"):
        validity([np.nan], [0.5], None, [1], policy="greedy", utility=ADMISSION)


def test_validity_rejects_a_negative_new_probability():
    with pytest.raises(ValueError, match=r"m_new\[0\]=-0.5 is negative"):
        validity([-0.5], [0.5], None, [1], policy="greedy", utility=ADMISSION)


def test_validity_accepts_a_counterfactual_above_one_as_documented():
    # three applicants, one slot: the last one needs m' = 0.8 + eps (admission: (0.2 + 0.6) / 1), which 1.5 reaches
    shares = validity([1.5, 1.5, np.inf], [0.8, 0.7, 0.6], None, [1], policy="greedy", utility=ADMISSION)
    assert shares.tolist() == [1.0, 1.0, 1.0]


def test_robust_recourse_rejects_rho_nan():
    with pytest.raises(ValueError, match=r"rho=nan must lie in \[0, 1\]"):
        robust_recourse([[0.5]], float("nan"))


def test_robust_recourse_rejects_rho_inf():
    with pytest.raises(ValueError, match=r"rho=inf must lie in \[0, 1\]"):
        robust_recourse([[0.5]], float("inf"))


def test_noisy_recourse_rejects_p_nan():
    with pytest.raises(ValueError, match=r"p=nan must lie in \[0, 1\]"):
        noisy_recourse([0.5], None, 1, 1.0, float("nan"), policy="greedy", utility=ADMISSION)


def test_noisy_recourse_rejects_a_fractional_seed():
    with pytest.raises(TypeError, match="random_state=1.7 must be None, an int seed"):
        noisy_recourse([0.5], None, 1, 1.0, 0.5, policy="greedy", utility=ADMISSION, random_state=1.7)


def test_noisy_recourse_rejects_a_negative_seed():
    with pytest.raises(ValueError, match="random_state=-1 must be an int >= 0"):
        noisy_recourse([0.5], None, 1, 1.0, 0.5, policy="greedy", utility=ADMISSION, random_state=-1)


def test_noisy_recourse_rejects_a_whole_float_sample_count():
    with pytest.raises(ValueError, match=r"n_samples=200.0 must be an integer >= 1"):
        noisy_recourse([0.5], None, 1, 1.0, 0.5, policy="greedy", utility=ADMISSION, n_samples=200.0)


def test_budget_sample_rejects_a_fractional_count():
    with pytest.raises(ValueError, match=r"n=2.5 must be an integer >= 0"):
        BudgetDistribution(10, 2).sample(2.5)


def test_robustness_experiment_rejects_repeated_levels():
    with pytest.raises(ValueError, match=r"rhos repeats the level\(s\) \['0.7'\]"):
        robustness_experiment([0.5, 0.6], None, policy="greedy", utility=ADMISSION,
                              budget_distribution=BudgetDistribution(1, 1), problems=[np.array([0, 1])],
                              rhos=(0.7, 0.7))


def test_robustness_experiment_rejects_a_level_outside_the_unit_interval():
    with pytest.raises(ValueError, match=r"ps=1.5 must lie in \[0, 1\]"):
        robustness_experiment([0.5, 0.6], None, policy="greedy", utility=ADMISSION,
                              budget_distribution=BudgetDistribution(1, 1), problems=[np.array([0, 1])],
                              ps=(0.5, 1.5))


def test_robustness_experiment_accepts_one_level_as_a_number():
    res = robustness_experiment([0.9, 0.8, 0.7, 0.6], None, policy="greedy", utility=AdmissionUtility(2, 1),
                                budget_distribution=BudgetDistribution(2, 1), problems=[np.arange(4)],
                                rhos=0.9, ps=0.7, n_validation=20, n_test=20)
    assert res.methods == ("static CE", "0.9-robust", "0.7-noisy", "optimistic")


def test_robustness_experiment_rejects_a_whole_float_test_count():
    with pytest.raises(ValueError, match=r"n_test=100.0 must be an integer >= 1"):
        robustness_experiment([0.5, 0.6], None, policy="greedy", utility=ADMISSION,
                              budget_distribution=BudgetDistribution(1, 1), problems=[np.array([0, 1])],
                              n_test=100.0)


def test_infinite_capacity_is_reported_as_not_finite():
    with pytest.raises(ValueError, match="capacity=inf is not a finite whole number"):
        knapsack([1.0], [1], np.inf)


def test_whole_float_capacity_is_an_amount_and_is_accepted():
    assert knapsack(M, CREDIT, 6.0).selected.tolist() == knapsack(M, CREDIT, 6).selected.tolist()


def test_feature_ce_rejects_fractional_candidate_rows(admissions):
    from sklearn.linear_model import LogisticRegression

    enc = admissions.encoder().fit(admissions.frame)
    Z = enc.transform(admissions.frame)
    model = LogisticRegression(max_iter=1000).fit(Z, admissions.y)
    with pytest.raises(ValueError, match="candidates has dtype float64; give integer row positions"):
        feature_ce(model, Z, 0, 0.9, enc, candidates=[1.7, 3.0])


def test_feature_ce_rejects_a_whole_float_index(admissions):
    enc = admissions.encoder().fit(admissions.frame)
    Z = enc.transform(admissions.frame)
    with pytest.raises(ValueError, match="index=0.0 must be a row position in Z"):
        feature_ce(object(), Z, 0.0, 0.9, enc)


def test_feature_ce_rejects_a_negative_target(admissions):
    enc = admissions.encoder().fit(admissions.frame)
    Z = enc.transform(admissions.frame)
    with pytest.raises(ValueError, match="m_prime=-0.1 is negative"):
        feature_ce(object(), Z, 0, -0.1, enc)


def test_monte_carlo_names_the_sampled_weights_in_errors():
    with pytest.raises(ValueError, match=r"others_weights\[0\]=2 but the greedy policy gives every applicant one slot"):
        monte_carlo_recourse(0.5, 1, lambda g: ([0.6], [2], 1, ADMISSION), 5, 0.5, policy="greedy")


def test_lending_probability_rejects_minus_infinity():
    with pytest.raises(ValueError, match="v=-inf: a utility of -inf has no probability"):
        lending_probability(-np.inf, 4, G1=0.05, G2=1, C=0.2)


def test_prediction_ce_rejects_a_nan_utility():
    with pytest.raises(ValueError, match=r"v_prime\[1\]=nan is not a number"):
        prediction_ce([0.1, np.nan], ADMISSION)


def test_robust_recourse_rejects_negative_counterfactuals():
    with pytest.raises(ValueError, match=r"ce_samples\[1\]=-0.3 is negative"):
        robust_recourse([[0.5], [-0.3]], 0.5)


# --------------------------------------------------------------------------- why applicants are refused
def test_refusal_reasons_reproduce_tables_1_and_2():
    assert al.refusal_reasons(lending_utility(M, [4, 3, 2, 1], 0.05, 1, 0.2), [4, 3, 2, 1], 6).tolist() == [
        "budget", "selected", "selected", "selected"]
    values = admission_utility(M, 1, 0.6)
    assert al.refusal_reasons(values, None, 2, policy="greedy").tolist() == [
        "selected", "selected", "unprofitable", "unprofitable"]
    # a huge budget leaves only unprofitable refusals; a zero budget refuses every profitable applicant
    assert set(al.refusal_reasons(values, None, 100, policy="greedy")) == {"selected", "unprofitable"}
    assert al.refusal_reasons(values, None, 0, policy="greedy").tolist() == [
        "budget", "budget", "unprofitable", "unprofitable"]


@given(st.lists(st.integers(-10, 10), min_size=1, max_size=8),
       st.lists(st.integers(0, 6), min_size=8, max_size=8), st.integers(0, 20))
def test_refusal_reasons_match_the_allocation_and_the_sign_of_the_utility(values, weights, capacity):
    v = np.array(values) / 10  # utilities on a grid: no positive value lost to rounding next to a large one
    w = np.array(weights[: len(v)])
    reasons = al.refusal_reasons(v, w, capacity)
    chosen = knapsack(v, w, capacity).selected
    assert ((reasons == "selected") == chosen).all()
    assert ((reasons == "unprofitable") == (v <= 0)).all()
    assert ((reasons == "budget") == ((v > 0) & ~chosen)).all()
    if capacity >= w[v > 0].sum():  # the whole profitable demand fits: the budget refuses nobody
        assert not (reasons == "budget").any()


def test_refusal_breakdown_counts_and_shares():
    u = LendingUtility(0.05, 1, 0.2)
    proba = np.array([0.8, 0.7, 0.6, 0.5, 0.1])
    credit = np.array([4, 3, 2, 1, 5])
    res = al.refusal_breakdown(proba, credit, [6, 10, 0], [[0, 1, 2, 3, 4]] * 3, policy="knapsack", utility=u)
    f = res.to_frame()
    assert f["demand"].tolist() == [10, 10, 10] and f["used"].tolist() == [6, 10, 0]
    assert f["budget"].tolist() == [1, 0, 4] and f["unprofitable"].tolist() == [1, 1, 1]
    assert (f["selected"] + f["refused"] == 5).all() and (f["budget"] + f["unprofitable"] == f["refused"]).all()
    assert res.budget_share == pytest.approx(5 / 8)
    assert res.profitable_refused_share == pytest.approx(5 / 12)
    # above break-even: the prediction counterfactual of a refused applicant exceeds S^-1(0)
    for k, cap in enumerate([6, 10, 0]):
        m = prediction_ce(utility_ce(u.value(proba, credit), credit, cap), u, credit)
        refused = res.reasons[k] != "selected"
        assert f.loc[k, "above_break_even"] == int((refused & (m > u.probability(np.zeros(5), credit) + 1e-5)).sum())
    summary = res.summary()
    assert summary["rounds"] == 3 and summary["capacity_over_demand"] == pytest.approx(16 / 30)
    greedy_res = al.refusal_breakdown(M, None, [1, 3], [[0, 1, 2, 3]] * 2, policy="greedy",
                                      utility=AdmissionUtility(1, 0.6))
    assert greedy_res.frame["budget"].tolist() == [1, 0] and greedy_res.frame["demand"].tolist() == [2, 2]


def test_refusal_breakdown_rejects_bad_input():
    u = LendingUtility(0.05, 1, 0.2)
    with pytest.raises(ValueError, match="one budget per round"):
        al.refusal_breakdown(M, [4, 3, 2, 1], [6, 7], [[0, 1]], policy="knapsack", utility=u)
    with pytest.raises(ValueError, match="problems is empty"):
        al.refusal_breakdown(M, [4, 3, 2, 1], [6], [], policy="knapsack", utility=u)
    with pytest.raises(ValueError, match="outside"):
        al.refusal_breakdown(M, [4, 3, 2, 1], [6], [[0, 9]], policy="knapsack", utility=u)
    with pytest.raises(ValueError, match="not finite"):
        al.refusal_breakdown([0.5, np.nan], [1, 1], [1], [[0, 1]], policy="knapsack", utility=u)
    with pytest.raises(ValueError, match="not an integer"):
        al.refusal_breakdown(M, [4, 3, 2, 1], [6.5], [[0, 1]], policy="knapsack", utility=u)


def test_robustness_experiment_records_why_each_applicant_was_refused():
    proba, credit = lending_pool()
    rng = np.random.default_rng(2)
    problems = [rng.choice(len(proba), 20, replace=False) for _ in range(4)]
    u = LendingUtility(0.06, 4, 0.5)
    res = robustness_experiment(proba, credit, policy="knapsack", utility=u, budget_distribution=BudgetDistribution(
        60, 10), problems=problems, n_validation=50, n_test=50, random_state=0)
    rows = res.frame[res.frame["method"] == "static CE"]
    breakdown = al.refusal_breakdown(proba, credit, res.capacities, problems, policy="knapsack", utility=u)
    assert set(rows["reason"]) <= {"budget", "unprofitable"}
    assert (rows["reason"] == "budget").sum() == breakdown.frame["budget"].sum()
    assert ((rows["reason"] == "unprofitable") == (u.value(rows["proba"].to_numpy(), credit[rows["applicant"]]) <= 0)
            ).all()


# --------------------------------------------------------------------------- Pareto dominance
def test_pareto_dominance_on_the_papers_table_3():
    paper = pd.DataFrame({"cost": [0.42, 0.407, 0.51, 0.571, 0.649, 1.0],
                          "validity": [0.823, 0.84, 0.917, 0.888, 0.977, 1.0]},
                         index=["static CE", "0.7-robust", "0.9-robust", "0.7-noisy", "0.9-noisy", "optimistic"])
    dom = al.pareto_dominance(paper)
    assert dom.loc["0.7-robust", "static CE"] and dom.loc["0.9-robust", "0.7-noisy"]   # the paper's two claims
    assert not dom[["0.7-robust", "0.9-robust"]].any().any()                         # robust never dominated
    assert not np.diag(dom.to_numpy()).any()
    tie = pd.DataFrame({"cost": [1.0, 1.0], "validity": [0.5, 0.5]}, index=["a", "b"])
    assert not al.pareto_dominance(tie).any().any()                                   # equal is not dominance
    trade = pd.DataFrame({"c": [1.0, 2.0], "v": [0.5, 0.9]}, index=["a", "b"])
    assert not al.pareto_dominance(trade, cost="c", validity="v").any().any()         # a trade-off


def test_pareto_dominance_rejects_bad_input():
    with pytest.raises(TypeError, match="DataFrame"):
        al.pareto_dominance([[1, 2]])
    with pytest.raises(ValueError, match="lacks the column"):
        al.pareto_dominance(pd.DataFrame({"cost": [1.0]}))
    with pytest.raises(ValueError, match="not finite"):
        al.pareto_dominance(pd.DataFrame({"cost": [np.nan], "validity": [1.0]}))
    with pytest.raises(ValueError, match="more than once"):
        al.pareto_dominance(pd.DataFrame({"cost": [1.0, 2.0], "validity": [1.0, 1.0]}, index=["a", "a"]))


# --------------------------------------------------------------------------- grafted candidates and pruning
def _toy_encoder():
    from recourselab.features import Encoder, FeatureSpec

    frame = pd.DataFrame({"amount": [10.0, 20.0, 30.0, 40.0], "savings": [0.0, 5.0, 10.0, 15.0],
                          "noise": [1.0, 0.0, 1.0, 0.0]})
    enc = Encoder([FeatureSpec("amount", "continuous"), FeatureSpec("savings", "continuous", "increase"),
                   FeatureSpec("noise", "continuous")]).fit(frame)
    return enc, enc.transform(frame)


def test_graft_candidates_keeps_the_held_features():
    enc, Z = _toy_encoder()
    pool = al.graft_candidates(Z[1], Z, enc, keep=["amount", "noise"])
    assert pool.shape == (len(Z) + 1, Z.shape[1])
    np.testing.assert_array_equal(pool[0], Z[1])
    np.testing.assert_array_equal(pool[1:, [0, 2]], np.repeat(Z[[1]][:, [0, 2]], len(Z), axis=0))
    np.testing.assert_array_equal(pool[1:, 1], Z[:, 1])
    with pytest.raises(ValueError, match="not features"):
        al.graft_candidates(Z[1], Z, enc, keep=["age"])
    with pytest.raises(ValueError, match="one applicant"):
        al.graft_candidates(Z[:2], Z, enc, keep=["amount"])


def test_prune_move_undoes_changes_the_score_does_not_need():
    from sklearn.linear_model import LogisticRegression

    enc, Z = _toy_encoder()
    model = LogisticRegression(C=100).fit(Z, [0, 0, 1, 1])
    z_from = np.array([0.0, 0.0, 0.0])
    z_to = np.array([1.0, 1.0, 1.0])
    target = float(model.predict_proba(z_to[None, :])[0, 1]) - 0.2
    pruned = al.prune_move(model, z_from, z_to, target, enc)
    assert model.predict_proba(pruned[None, :])[0, 1] >= target
    assert enc.feasible(z_from[None, :], pruned[None, :])[0]
    assert enc.cost(z_from[None, :], pruned[None, :])[0] < enc.cost(z_from[None, :], z_to[None, :])[0]
    # no single remaining change can be undone while keeping the score
    for k in np.flatnonzero(pruned != z_from):
        trial = pruned.copy()
        trial[k] = z_from[k]
        assert model.predict_proba(trial[None, :])[0, 1] < target
    with pytest.raises(ValueError, match="reaches m_prime"):
        al.prune_move(model, z_from, z_from, 0.99, enc)
    with pytest.raises(ValueError, match="m_prime"):
        al.prune_move(model, z_from, z_to, float("nan"), enc)

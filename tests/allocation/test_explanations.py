"""The engine's utilities, policies and counterfactual explanations: brute force on small instances.

The literal versions of paper.py are compared with the engine in test_paper.py; here the engine is
held against enumeration, against re-running the allocation, and against itself (one budget at a
time, and the blocked leave-one-out programme).
"""

import itertools
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.allocation import (
    AdmissionUtility,
    LendingUtility,
    admission_probability,
    admission_utility,
    allocate,
    explanations,
    greedy,
    knapsack,
    lending_probability,
    lending_utility,
    prediction_ce,
    prediction_ce_matrix,
    prediction_cost,
    utility_ce,
    utility_ce_naive,
)

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
            with mock.patch.object(explanations, "_BLOCK_CELLS", cells):
                np.testing.assert_allclose(utility_ce(values, weights, capacity), expected, atol=1e-12)
        # many budgets at once: both ways of evaluating the max-plus combination agree with one budget at a time
        caps = rng.integers(0, weights.sum() + 2, 12)
        proba = rng.uniform(0, 1, n)
        one_at_a_time = np.array([prediction_ce(utility_ce(LENDING.value(proba, weights), weights, r), LENDING, weights)
                                  for r in caps])
        for loop_from in (0, 10**9):
            with mock.patch.object(explanations, "_SLICE_LOOP_FROM", loop_from), \
                    mock.patch.object(explanations, "_BLOCK_CELLS", 50):
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


def test_inputs_are_not_mutated():
    v, w = np.array([0.8, 0.625, 0.5, 0.425]), CREDIT.copy()
    utility_ce(v, w, 6)
    knapsack(v, w, 6)
    prediction_ce_matrix(M, w, [3, 6], policy="knapsack", utility=LENDING)
    assert v.tolist() == [0.8, 0.625, 0.5, 0.425] and w.tolist() == [4, 3, 2, 1]


def test_prediction_cost_keeps_targets_above_one_and_inf():
    assert prediction_cost([0.5, 0.5], [1.2, np.inf]).tolist() == pytest.approx([0.7, np.inf])


def test_whole_float_capacity_is_an_amount_and_is_accepted():
    assert knapsack(M, CREDIT, 6.0).selected.tolist() == knapsack(M, CREDIT, 6).selected.tolist()

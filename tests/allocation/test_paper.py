"""The paper's worked examples as exact fixtures, and paper.py equal to the engine on small random instances.

Ties: both knapsacks leave later applicants out among equally good allocations (an applicant is
taken only when strictly better), both greedy policies order by utility then by lower index.
Utilities are drawn on a grid of quarters, exact in binary, so that sums in any order are exact and
the literal and the engine can be compared with ``==``. The Monte Carlo comparison uses real
probabilities and the same random stream; both compute each sampled counterfactual with the same
additions in the same order, so it is compared with ``==`` too.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recourselab import allocation as al
from recourselab.allocation import paper

M = [0.8, 0.7, 0.6, 0.5]
CREDIT = [4, 3, 2, 1]
LENDING = {"G1": 0.05, "G2": 1, "C": 0.2}
ADMISSIONS = {"G": 1, "C": 0.6}


# --------------------------------------------------------------------------- the paper's Tables 1 and 2, from paper.py
def test_table_1_lending_from_the_literal_functions():
    v = [paper.S(m, w, LENDING) for m, w in zip(M, CREDIT, strict=True)]
    assert [round(x, 12) for x in v] == [0.8, 0.625, 0.5, 0.425]              # u(x_i) of Table 1
    Y, U = paper.knapsack(v, CREDIT, 6)
    assert Y == [0, 1, 1, 1] and U == pytest.approx(1.55, abs=1e-12)         # Y = (0, 1, 1, 1), U = 1.55
    forced_Y, forced_U = paper.knapsack(v[1:], CREDIT[1:], 6 - 4)             # applicant 1 forced in: Y' = (1, 0, 1, 0)
    assert forced_Y == [0, 1, 0] and forced_U + v[0] == pytest.approx(1.3, abs=1e-12)
    v_prime = paper.utility_ce(v, CREDIT, 6, 0, eps=0.0)
    assert v_prime == pytest.approx(1.05, abs=1e-12)                          # 1.55 - 0.5
    assert paper.prediction_ce(v_prime, CREDIT[0], LENDING) == pytest.approx(0.925, abs=1e-12)   # M >= 0.925


def test_table_2_admissions_from_the_literal_functions():
    v = [paper.S(m, 1, ADMISSIONS) for m in M]
    assert [round(x, 12) for x in v] == [0.2, 0.1, 0.0, -0.1]
    for r in (2, 3):                                                           # r = 2 and r = 3: applicants 1 and 2
        assert paper.greedy(v, r)[0] == [1, 1, 0, 0]
    assert paper.utility_ce(v, None, 2, 2, "greedy", eps=0.0) == pytest.approx(0.1, abs=1e-12)   # beat applicant 2
    assert paper.utility_ce(v, None, 3, 2, "greedy", eps=1e-6) == 1e-6        # a place is free: epsilon suffices
    assert paper.prediction_ce(0.1, 1, ADMISSIONS) == pytest.approx(0.7, abs=1e-12)


def test_tables_1_and_2_from_the_engine():
    v = al.LendingUtility(**LENDING).value(M, CREDIT)
    res = al.knapsack(v, CREDIT, 6)
    assert res.selected.astype(int).tolist() == [0, 1, 1, 1] and res.utility == pytest.approx(1.55, abs=1e-12)
    m_prime = al.prediction_ce_matrix(M, CREDIT, [6], policy="knapsack", utility=al.LendingUtility(**LENDING))
    assert m_prime[0, 0] == pytest.approx(0.925, abs=1e-6)
    va = al.AdmissionUtility(**ADMISSIONS).value(M)
    for r in (2, 3):
        assert al.greedy(va, r).selected.astype(int).tolist() == [1, 1, 0, 0]


# --------------------------------------------------------------------------- literal = engine
quarters = st.integers(-8, 20).map(lambda k: k / 4)


@st.composite
def pools(draw, max_n=7, max_weight=6, max_capacity=14):
    n = draw(st.integers(1, max_n))
    values = draw(st.lists(quarters, min_size=n, max_size=n))
    weights = draw(st.lists(st.integers(0, max_weight), min_size=n, max_size=n))
    return values, weights, draw(st.integers(0, max_capacity))


@settings(max_examples=80, deadline=None)
@given(pools())
def test_knapsack_literal_equals_engine(pool):
    values, weights, r = pool
    Y, U = paper.knapsack(values, weights, r)
    res = al.knapsack(values, weights, r)
    assert Y == res.selected.astype(int).tolist()
    assert U == res.utility


@settings(max_examples=80, deadline=None)
@given(pools(), st.integers(0, 9))
def test_greedy_literal_equals_engine(pool, r):
    values = pool[0]
    Y, U = paper.greedy(values, r)
    res = al.greedy(values, r)
    assert Y == res.selected.astype(int).tolist()
    assert U == res.utility


@settings(max_examples=80, deadline=None)
@given(pools(), st.sampled_from(["knapsack", "greedy"]))
def test_leave_one_out_ce_by_recomputation_equals_the_prefix_suffix_programme(pool, policy):
    values, weights, r = pool
    w = weights if policy == "knapsack" else None
    engine = al.utility_ce(values, w, r, policy=policy)
    literal = [paper.utility_ce(values, w, r, i, policy) for i in range(len(values))]
    assert engine.tolist() == literal
    assert al.utility_ce_naive(values, w, r, policy=policy).tolist() == literal
    # "raise the utility until the policy selects them": at v'_i the applicant is in, 2 eps below they are out
    for i, v_prime in enumerate(literal):
        if np.isfinite(v_prime):
            for value, expected in ((v_prime, 1), (v_prime - 2e-6, 0)):
                trial = list(values)
                trial[i] = value
                chosen = paper.knapsack(trial, weights, r)[0] if policy == "knapsack" else paper.greedy(trial, r)[0]
                assert chosen[i] == expected


@st.composite
def sampled_problems(draw):
    policy = draw(st.sampled_from(["knapsack", "greedy"]))
    n_others = draw(st.integers(0, 6))
    m_i = draw(st.integers(0, 100)) / 100
    w_i = draw(st.integers(0, 5)) if policy == "knapsack" else 1
    rho = draw(st.sampled_from([0.0, 0.3, 0.5, 0.7, 0.9, 1.0]))
    n = draw(st.integers(1, 25))
    seed = draw(st.integers(0, 2**16))
    return policy, n_others, m_i, w_i, rho, n, seed


@settings(max_examples=60, deadline=None)
@given(sampled_problems())
def test_monte_carlo_rho_robust_recourse_literal_equals_engine(problem):
    policy, n_others, m_i, w_i, rho, n, seed = problem
    theta = {"G1": 0.06, "G2": 4.0, "C": 0.5} if policy == "knapsack" else {"G": 2.0, "C": 1.0}
    utility = al.LendingUtility(**theta) if policy == "knapsack" else al.AdmissionUtility(**theta)

    def draw(rng):  # one sampled round: the others' probabilities and requests, then the budget
        p = rng.uniform(0, 1, n_others)
        w = rng.integers(0, 6, n_others) if policy == "knapsack" else np.ones(n_others, dtype=int)
        return p, w, int(rng.integers(0, 15))

    def engine_sampler(rng):
        p, w, r = draw(rng)
        return p, (w if policy == "knapsack" else None), r, utility

    def paper_sampler(rng):
        p, w, r = draw(rng)
        return r, list(zip(p.tolist(), w.tolist(), strict=True)), theta

    res = al.monte_carlo_recourse(m_i, w_i, engine_sampler, n, rho, policy=policy, random_state=seed)
    m_rho, m_primes = paper.rho_robust_recourse(m_i, w_i, paper_sampler, n, rho, policy, random_state=seed)
    assert res.samples.tolist() == m_primes
    assert res.m_prime == m_rho

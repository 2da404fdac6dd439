"""rho-robust recourse, its baselines, validity, the Table 3 experiment and why applicants are refused."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab import allocation as al
from recourselab.allocation import (
    AdmissionUtility,
    BudgetDistribution,
    LendingUtility,
    admission_utility,
    allocate,
    knapsack,
    lending_utility,
    monte_carlo_recourse,
    noisy_recourse,
    prediction_ce,
    prediction_ce_matrix,
    robust_recourse,
    robustness_experiment,
    utility_ce,
    validity,
)
from recourselab.allocation.robust import TIE_TOL, reaches

EPS = 1e-6
M = np.array([0.8, 0.7, 0.6, 0.5])
LENDING = LendingUtility(G1=0.05, G2=1, C=0.2)
ADMISSION = AdmissionUtility(G=1, C=0.6)


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
            band[j, i] = at_tie[j, i] - 1e-12 <= m_new[i] < ce[j, i] - TIE_TOL
    outside = ~band
    np.testing.assert_array_equal(rerun[outside], reaches(m_new[None, :], ce)[outside])
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


def test_validity_accepts_a_counterfactual_above_one_as_documented():
    # three applicants, one slot: the last one needs m' = 0.8 + eps (admission: (0.2 + 0.6) / 1), which 1.5 reaches
    shares = validity([1.5, 1.5, np.inf], [0.8, 0.7, 0.6], None, [1], policy="greedy", utility=ADMISSION)
    assert shares.tolist() == [1.0, 1.0, 1.0]


def test_robustness_experiment_accepts_one_level_as_a_number():
    res = robustness_experiment([0.9, 0.8, 0.7, 0.6], None, policy="greedy", utility=AdmissionUtility(2, 1),
                                budget_distribution=BudgetDistribution(2, 1), problems=[np.arange(4)],
                                rhos=0.9, ps=0.7, n_validation=20, n_test=20)
    assert res.methods == ("static CE", "0.9-robust", "0.7-noisy", "optimistic")


def test_robustness_experiment_caps_impossible_advice_at_one():
    proba, credit = lending_pool()
    rng = np.random.default_rng(5)
    problems = [rng.choice(len(proba), 20, replace=False) for _ in range(5)]
    kw = dict(policy="knapsack", utility=LendingUtility(0.06, 4, 0.5), budget_distribution=BudgetDistribution(
        120, 40), problems=problems, n_validation=60, n_test=60, random_state=1)
    kept, capped = robustness_experiment(proba, credit, **kw), robustness_experiment(proba, credit, cap=True, **kw)
    a, b = kept.frame, capped.frame
    assert not kept.capped and capped.capped
    assert a["impossible"].any() and (a["impossible"] == b["impossible"]).all()  # same draws either way
    assert (a["impossible"] == (a["m_prime"] > 1)).all() and (b["m_prime"] <= 1).all()
    possible = ~a["impossible"]
    assert np.array_equal(a[possible].to_numpy(), b[possible].to_numpy())  # only impossible advice changes
    assert (b["cost"] <= 1 - b["proba"] + 1e-12).all()
    assert (b.loc[a["impossible"] & np.isfinite(a["m_prime"]), "validity"]
            <= a.loc[a["impossible"] & np.isfinite(a["m_prime"]), "validity"]).all()
    assert capped.n_excluded == 0 and capped.to_frame()["n"].sum() == len(b)
    assert kept.to_frame()["n"].sum() < len(a)  # the paper's table leaves out applicants with an infinite m'
    assert 0 < capped.to_frame().loc["0.9-robust", "impossible"] < 1


def test_validity_counts_a_tie_reached_through_different_sums():
    # applicant 71 needs the same probability at budgets 205 and 163 (the same others are selected), but the
    # leave-one-out tables reach it through different sums: the two values differ by ~3e-16. Advice computed at
    # 205 must count as valid at 163; a probability a hair (1e-9, inside the epsilon band) below stays invalid.
    proba, credit = lending_pool()
    members = [71, 211, 7, 274, 291, 140, 18, 142, 284, 253, 252, 10, 52, 6, 138, 179, 233, 33, 14, 193]
    kw = dict(policy="knapsack", utility=LendingUtility(0.06, 4, 0.5))
    need = al.prediction_ce_matrix(proba[members], credit[members], [205, 163], **kw)[:, 0]
    assert need[0] != need[1] and abs(need[0] - need[1]) < 1e-14
    m_new = proba[members].copy()
    m_new[0] = need.min()
    assert validity(m_new, proba[members], credit[members], [205, 163], **kw)[0] == 1.0
    m_new[0] = need.min() - 1e-9
    assert validity(m_new, proba[members], credit[members], [205, 163], **kw)[0] == 0.0
    assert reaches(0.5, 0.5 + 1e-15) and not reaches(0.5, 0.5 + 1e-9) and not reaches(2.0, np.inf)

"""rerank_by_cost: RAGUEL's walk on given per-row costs, promoting records instead of modifying them."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recourselab.fair_ranking import (
    ranked_fair_representation,
    ranked_recourse_fairness,
    recourse_fairness_ratio,
    rerank_by_cost,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10, allow_nan=False), st.sampled_from(["F", "M"])), min_size=2, max_size=40),
       st.sampled_from([1 / 3, 1 / 2, 1.0]))
def test_rerank_by_cost_keeps_records_and_costs_and_makes_prefixes_fair(rows, t):
    costs = np.array([c for c, _ in rows])
    groups = np.array([g for _, g in rows], dtype=object)
    assume(len(set(groups)) == 2)
    res = rerank_by_cost(costs, groups, protected_group="F", tolerance=t)
    assert sorted(res.order.tolist()) == list(range(len(costs)))
    np.testing.assert_array_equal(res.cost, costs)
    assert res.rho == recourse_fairness_ratio(costs, groups)  # no modification: the population's rho is unchanged
    p = np.mean(groups == "F")
    fair = ranked_fair_representation(groups[res.order], "F", t, p=p).per_prefix
    limit = len(costs) if res.exit_at is None else res.exit_at
    for k in range(1, limit):  # every prefix built before an exit is fair unless no group could make it fair
        assert fair[k] or k in res.unattainable.tolist()
    # a promoted row overtakes a cheaper one: its gap is its cost minus that row's, and only promoted rows have one
    assert (res.gap[~res.promoted] == 0).all() and (res.gap >= 0).all()
    by_cost = res.initial_order
    for i, row in enumerate(res.order):
        if res.promoted[row]:  # it overtook the best-ranked record not yet placed
            placed = set(res.order[:i].tolist())
            overtaken = next(int(r) for r in by_cost if int(r) not in placed)
            assert overtaken != row and res.gap[row] == pytest.approx(max(costs[row] - costs[overtaken], 0.0))
    np.testing.assert_array_equal(by_cost, np.lexsort((np.arange(len(costs)), costs)))
    if not res.promoted.any() and res.exit_at is None:
        np.testing.assert_array_equal(res.order, by_cost)


def test_rerank_by_cost_promotes_the_first_needed_record_and_reports_its_gap():
    res = rerank_by_cost([0.1, 0.2, 0.3, 0.5, 0.9], ["M", "M", "M", "F", "F"], protected_group="F", tolerance=1 / 2)
    assert res.order.tolist() == [0, 3, 1, 2, 4]
    assert res.promoted.tolist() == [False, False, False, True, False]
    assert res.gap[3] == pytest.approx(0.5 - 0.2)  # the woman overtook the man with cost 0.2
    check = res.check()
    assert check.loc["re-ranked", "fair prefixes"] > check.loc["by cost", "fair prefixes"]
    assert check.loc["re-ranked", "population rho"] == check.loc["by cost", "population rho"]
    # prefixes with both groups: by cost the worst is the whole list (0.2 / 0.7), re-ranked it is [0, 3] (0.1 / 0.5)
    assert check.loc["by cost", "min prefix rho"] == pytest.approx(0.2 / 0.7)
    assert check.loc["re-ranked", "min prefix rho"] == pytest.approx(0.2)
    assert "recourse-fair prefixes" not in check.columns  # only with beta
    frame = res.to_frame()
    assert frame["promoted"].sum() == 1 and frame.loc[1, "gap"] == pytest.approx(0.3)


def test_rerank_by_cost_with_beta_keeps_each_promotion_recourse_fair():
    costs = [1.0, 1.1, 1.2, 1.3, 3.0, 3.1, 3.2, 3.3]
    groups = ["M", "M", "M", "M", "F", "F", "F", "F"]
    free = rerank_by_cost(costs, groups, protected_group="F", tolerance=1 / 2)
    assert free.order[1] == 4 and free.gap[4] == pytest.approx(1.9)  # the cheapest woman overtakes the 1.1 man
    strict = rerank_by_cost(costs, groups, protected_group="F", tolerance=1 / 2, beta=0.2)
    assert strict.exit_at == 1 and strict.n_promoted == 0  # any woman would pull the prefix's rho below 0.8
    rng = np.random.default_rng(0)
    for _ in range(30):
        c = rng.uniform(0, 2, 30) + np.r_[np.zeros(20), np.full(10, 0.5)]
        g = np.array(["M"] * 20 + ["F"] * 10, dtype=object)
        res = rerank_by_cost(c, g, protected_group="F", tolerance=1 / 3, beta=0.3)
        rho = ranked_recourse_fairness(c[res.order], g[res.order], 0.3).value
        for position, row in enumerate(res.order):
            if res.promoted[row]:
                assert rho[position] >= 0.7 - 1e-12



def test_rerank_by_cost_refuses_mixed_and_missing_labels():
    # 1 and "1" print alike but would be two groups; a NaN in a list would become a group "nan"
    with pytest.raises(ValueError, match="groups mixes strings and other values"):
        rerank_by_cost([0.1, 0.2, 0.3, 0.4], [1, "1", "1", 1], protected_group=1)
    with pytest.raises(ValueError, match=r"groups has missing labels \(None or NaN; first at position 1"):
        rerank_by_cost([0.1, 0.2, 0.3, 0.4], ["a", float("nan"), "b", "a"], protected_group="a")

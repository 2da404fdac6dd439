"""Ranking metrics rND, rKL, rRD and FA*IR: the extremes, the reference implementation's values, the table."""

import itertools

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from recourselab.fair_ranking import (
    fair_adjusted_alpha,
    fair_minimum_table,
    fair_rerank,
    ranking_metrics,
    rkl,
    rnd,
    rrd,
)
from recourselab.fair_ranking.fair import _fail_probability


def test_metrics_zero_when_proportional_and_one_at_worst():
    proportional = [1, 0, 0, 1, 0, 0, 1, 0, 0, 0] * 10
    assert ranking_metrics(proportional) == {"rKL": 0.0, "rND": 0.0, "rRD": 0.0}
    top = [1] * 30 + [0] * 70
    bottom = [0] * 70 + [1] * 30
    for metric in (rnd, rkl, rrd):
        worst = max(metric(top), metric(bottom))
        assert worst == pytest.approx(1.0)
        assert 0 <= min(metric(top), metric(bottom)) <= 1


def test_fair_tables_reproduce_fairsearchcore():
    assert fair_minimum_table(20, 0.25, 0.1).tolist() == [0] * 8 + [1] * 6 + [2] * 5 + [3]
    assert fair_adjusted_alpha(20, 0.25, 0.1) == 0.078125
    assert fair_adjusted_alpha(10, 0.2, 0.15) == 0.15
    assert fair_adjusted_alpha(30, 0.3, 0.15) == pytest.approx(0.0796875)
    assert fair_minimum_table(20, 0.25, 0.078125).tolist() == [0] * 8 + [1] * 7 + [2] * 5
    assert _fail_probability(fair_minimum_table(20, 0.25, 0.078125), 0.25) == pytest.approx(0.10515247355215251)
    assert _fail_probability(fair_minimum_table(10, 0.2, 0.15), 0.2) == pytest.approx(0.134217728)


@given(st.integers(1, 10), st.sampled_from([0.2, 0.3, 0.5, 0.7]), st.sampled_from([0.05, 0.1, 0.3]))
def test_fail_probability_matches_enumeration(k, p, alpha):
    m = fair_minimum_table(k, p, alpha)
    fail = 0.0
    for seq in itertools.product([0, 1], repeat=k):
        cum = np.cumsum(seq)
        if any(cum[i] < m[i] for i in range(k - 1)):  # positions 1..k-1, as fairsearchcore
            fail += p ** sum(seq) * (1 - p) ** (k - sum(seq))
    assert _fail_probability(m, p) == pytest.approx(fail, abs=1e-12)


@given(st.lists(st.booleans(), min_size=2, max_size=40), st.sampled_from([0.2, 0.4, 0.6]),
       st.sampled_from([0.05, 0.1]), st.booleans(), st.randoms(use_true_random=False))
def test_fair_rerank_satisfies_its_table(prot, p, alpha, adjust, rnd_gen):
    n = len(prot)
    prot = np.array(prot)
    assume(prot.sum() >= np.ceil(p * n))  # enough protected records to meet the table everywhere
    order = list(range(n))
    rnd_gen.shuffle(order)
    out = fair_rerank(order, prot, p=p, alpha=alpha, adjust=adjust)
    assert sorted(out.tolist()) == list(range(n))
    a = fair_adjusted_alpha(n, p, alpha) if adjust else alpha
    m = fair_minimum_table(n, p, a)
    assert (np.cumsum(prot[out]) >= m).all()
    # within each group the given order is kept
    for flag in (True, False):
        mine = [r for r in out.tolist() if prot[r] == flag]
        assert mine == [r for r in order if prot[r] == flag]


@given(st.lists(st.booleans(), min_size=2, max_size=60).filter(lambda v: 0 < sum(v) < len(v)),
       st.sampled_from([0.15, 0.4]), st.randoms(use_true_random=False))
def test_fair_rerank_with_the_lists_own_share_moves_every_prefix_towards_it(prot, alpha, rnd_gen):
    # why FA*IR on a whole list cannot raise rKL, rND or rRD (the RAGUEL report's Table 5 row)
    prot = np.array(prot)
    order = list(range(len(prot)))
    rnd_gen.shuffle(order)
    out = fair_rerank(order, prot, alpha=alpha, adjust=False)  # p defaults to the list's own share
    k = np.arange(1, len(prot) + 1)
    gap = [np.abs(np.cumsum(prot[o]) / k - prot.mean()) for o in (np.array(order), out)]
    assert (gap[1] <= gap[0] + 1e-12).all()


def test_fair_rerank_kinds_agree():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    prot = np.array([0, 0, 0, 1, 1, 1])
    by_order = fair_rerank(np.argsort(-scores), prot, p=0.5, alpha=0.1)
    assert fair_rerank(scores, prot, p=0.5, alpha=0.1, kind="score").tolist() == by_order.tolist()
    assert fair_rerank(-scores, prot, p=0.5, alpha=0.1, kind="cost").tolist() == by_order.tolist()
    assert fair_rerank(scores, prot, p=0.5, alpha=0.1, kind="score", k=3).tolist() == by_order[:3].tolist()
    assert fair_rerank(np.array([0.0, 2.0, 1.0]), [1, 0, 0], p=0.3).tolist() == [0, 2, 1]  # whole floats are fine

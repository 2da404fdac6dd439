"""Fairness of a set and a ranking (Definitions 3.1-3.4), the ratio rho, and the best rho one more record gives."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recourselab import fair_ranking as rk
from recourselab.fair_ranking import (
    best_ratio_with_one_more,
    fair_representation,
    ranked_fair_representation,
    recourse_fairness_ratio,
)


def test_rho_of_table3():
    rng = np.random.default_rng(0)
    single = rng.uniform(0, 15, 400)
    married = rng.uniform(0, 12, 300)
    single *= 7.688 / single.mean()
    married *= 5.837 / married.mean()
    costs = np.concatenate([single, married])
    groups = ["single"] * 400 + ["married"] * 300
    assert round(recourse_fairness_ratio(costs, groups), 3) == 0.759
    assert recourse_fairness_ratio([1.0, 2.0, 4.0], ["a", "b", "c"]) == 0.25  # min over max of three groups
    assert recourse_fairness_ratio([0.0, 0.0], ["a", "b"]) == 1.0


def test_fair_representation_band():
    assert fair_representation(["F", "M", "M", "M", "M", "M", "M", "M", "M", "M"], "F", p=0.3) is False
    assert fair_representation(["F", "F", "M", "M", "M", "M", "M", "M", "M", "M"], "F", p=0.3)  # 20%: edge
    assert fair_representation(["F"] * 4 + ["M"] * 6, "F", p=0.3)  # 40%: edge, despite 0.4 - 0.3 > 0.1 in floats
    assert not fair_representation(["F"] * 5 + ["M"] * 5, "F", p=0.3)
    # several protected labels: each within its own band
    groups = ["a", "b", "c", "c"]
    assert fair_representation(groups, ["a", "b"], 1 / 2, p={"a": 0.25, "b": 0.25})
    assert not fair_representation(groups, ["a", "b"], 1 / 2, p={"a": 0.25, "b": 0.6})


def test_a_protected_label_that_never_occurs_is_warned_about_by_both_checks():
    with pytest.warns(UserWarning, match=r"protected_group label\(s\) \['Fmale'\] do not occur in groups"):
        assert not fair_representation(["F", "M", "M"], "Fmale", p=0.3)
    # the ranked check says fair=False for the same reason, and now says why (issue 22, part 3)
    with pytest.warns(UserWarning, match=r"protected_group label\(s\) \['Fmale'\] do not occur in groups"):
        assert not ranked_fair_representation(["F", "M", "M"], "Fmale", p=0.3).fair
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a label that occurs: no warning
        assert ranked_fair_representation(["F", "M", "M"], "F", 1 / 2, p=0.3).fair is False


def test_labels_one_and_string_one_are_never_merged():
    with pytest.raises(ValueError, match="groups mixes strings and other values"):
        recourse_fairness_ratio([0.1, 0.2, 0.3], [1, "1", 2])
    with pytest.raises(ValueError, match="groups has missing labels"):
        recourse_fairness_ratio([0.1, 0.2, 0.3], ["a", float("nan"), "b"])
    with pytest.raises(ValueError, match="protected_group='1' is not a label of groups"):
        ranked_fair_representation([1, 2, 1], "1")


@settings(max_examples=80, deadline=None)
@given(costs=st.lists(st.floats(0.5, 10), min_size=1, max_size=8), labels=st.lists(st.sampled_from("abc"),
       min_size=8, max_size=8), group=st.sampled_from("abc"), below=st.floats(0.01, 12))
def test_best_ratio_with_one_more_is_the_supremum_over_a_fine_grid(costs, labels, group, below):
    groups = labels[:len(costs)]
    best = best_ratio_with_one_more(costs, groups, group, below=below)
    others = {g: np.mean([c for c, h in zip(costs, groups, strict=True) if h == g]) for g in set(groups) if g != group}
    if not others:
        assert np.isnan(best)
        return
    # brute force: rho of the prefix plus the new record, at every added cost of a fine grid
    grid = np.linspace(0, below, 20001)
    mine = [c for c, h in zip(costs, groups, strict=True) if h == group]
    mu = (sum(mine) + grid) / (len(mine) + 1)
    low, high = min(others.values()), max(others.values())
    scanned = np.minimum(mu, low) / np.maximum(mu, high)
    assert best >= scanned.max() - 1e-12  # no added cost does better
    # and the grid comes within its resolution: rho changes by at most 1 / ((n_g + 1) * low) per unit of cost
    assert best <= scanned.max() + (below / 20000) / ((len(mine) + 1) * low) + 1e-12


def test_prefix_rho_is_the_value_of_ranked_recourse_fairness():
    rng = np.random.default_rng(3)
    costs, groups = rng.uniform(0, 2, 40), rng.choice(["a", "b", "c"], 40)
    rho = rk.prefix_rho(costs, groups)
    for beta in (0.0, 0.1, 0.5):
        check = rk.ranked_recourse_fairness(costs, groups, beta)
        np.testing.assert_array_equal(rho, check.value)
    assert rho[0] == 1.0 and rho.shape == (40,)


def test_the_ratio_between_a_named_pair_leaves_the_other_groups_out():
    """Six groups, as COMPAS's race: the default compares the extremes, whichever they are; ``between`` compares
    the pair it names, equal to the ratio computed on those two groups' records alone."""
    import warnings

    rng = np.random.default_rng(0)
    races = rng.choice(["A", "B", "C", "D", "E", "F"], 600)
    costs = rng.gamma(2.0, 1.0, 600) * np.select([races == "A", races == "F"], [0.5, 2.0], 1.0)
    two = np.isin(races, ["B", "C"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every group here has about 100 records: no warning
        pair = recourse_fairness_ratio(costs, races, between=("B", "C"))
    assert pair == pytest.approx(recourse_fairness_ratio(costs[two], races[two]))
    assert recourse_fairness_ratio(costs, races) < 0.35 < pair  # the extremes A and F, not the pair asked about
    assert recourse_fairness_ratio(costs, races, between=("C", "B")) == pair


def test_a_named_pair_must_be_two_present_groups_and_a_tiny_one_warns():
    costs, groups = np.arange(1.0, 41.0), np.array(["x"] * 35 + ["y"] * 5)
    with pytest.warns(UserWarning, match="group 'y' has 5 records"):
        recourse_fairness_ratio(costs, groups, between=("x", "y"))
    for bad in (("x", "z"), ("x", "x"), ("x",), "xy"):
        with pytest.raises(ValueError, match="between="):
            recourse_fairness_ratio(costs, groups, between=bad)

"""recourse_by_group and coverage_by_group: nobody dropped, labels as given, Series paired by index."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.counterfactuals import coverage_by_group, recourse_by_group


def test_recourse_by_group_counts_missing_recourse_and_ignores_it_in_costs():
    table = recourse_by_group([1.0, 3.0, np.inf, np.inf], ["a", "a", "a", "b"])
    assert table.loc["a", "n"] == 3
    assert table.loc["a", "with_recourse"] == pytest.approx(2 / 3)
    assert table.loc["a", "median_cost"] == 2.0
    assert table.loc["b", "with_recourse"] == 0 and np.isnan(table.loc["b", "median_cost"])


def test_numeric_labels_stay_numbers_and_series_sharing_an_index_are_accepted():
    cost = pd.Series([1.0, 2.0, np.inf], index=[10, 11, 12])
    groups = pd.Series([0, 1, 1], index=[10, 11, 12])
    table = recourse_by_group(cost, groups)
    assert table.index.tolist() == [0, 1] and table["n"].tolist() == [1, 2]
    assert coverage_by_group(cost, groups, [np.inf]).columns.tolist() == [0, 1]


def test_coverage_by_group_counts_people_without_recourse_in_every_budget():
    table = coverage_by_group([1.0, 3.0, np.inf, np.inf], ["a", "a", "a", "b"], [0.0, 1.0, 2.9, 3.0, np.inf])
    assert list(table.columns) == ["a", "b"] and table.index.name == "budget"
    np.testing.assert_allclose(table["a"], [0, 1 / 3, 1 / 3, 2 / 3, 2 / 3])
    # an infinite budget covers everyone with recourse, never the people without it
    np.testing.assert_allclose(table["b"], [0, 0, 0, 0, 0])


def test_coverage_by_group_keeps_the_budget_order_and_does_not_mutate():
    cost = np.array([2.0, 0.5, np.inf])
    groups = np.array(["x", "x", "y"], dtype=object)
    budgets = np.array([3.0, 0.0, 1.0])
    table = coverage_by_group(cost, groups, budgets)
    assert table.index.tolist() == [3.0, 0.0, 1.0]
    np.testing.assert_allclose(table["x"], [1.0, 0.0, 0.5])
    np.testing.assert_array_equal(cost, [2.0, 0.5, np.inf])
    np.testing.assert_array_equal(budgets, [3.0, 0.0, 1.0])
    assert coverage_by_group(cost, groups, 1.0).index.tolist() == [1.0]  # a single budget


@given(
    st.lists(st.tuples(st.sampled_from([0.0, 0.5, 1.0, 2.5, np.inf]), st.sampled_from(["f", "m", "x"])),
             min_size=1, max_size=25),
    st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 2.5, 3.0, np.inf]), min_size=1, max_size=6),
)
def test_coverage_by_group_matches_counting_by_hand(people, budgets):
    cost = [c for c, _ in people]
    groups = [g for _, g in people]
    table = coverage_by_group(cost, groups, budgets)
    for label in sorted(set(groups)):
        members = [c for c, g in people if g == label]
        for row, budget in enumerate(budgets):
            expected = sum(1 for c in members if np.isfinite(c) and c <= budget) / len(members)
            assert table[label].iloc[row] == pytest.approx(expected)


def test_coverage_by_group_ends_at_the_share_with_recourse():
    cost = np.array([0.2, np.inf, 1.5, 4.0, np.inf, 0.0])
    groups = np.array(["a", "a", "b", "b", "b", "a"])
    table = coverage_by_group(cost, groups, [np.inf])
    shares = recourse_by_group(cost, groups)["with_recourse"]
    np.testing.assert_allclose(table.loc[np.inf].to_numpy(), shares.to_numpy())

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.counterfactuals.recourse import (
    NO_COUNTERFACTUAL,
    coverage_by_group,
    describe_changes,
    nearest_counterfactuals,
    recourse_by_group,
)
from recourselab.features import Encoder, FeatureSpec

from strategies import slow_feasible, specs_and_frames


@given(specs_and_frames(min_rows=3, max_rows=20), st.integers(1, 3), st.sampled_from(["l1", "l2"]), st.booleans())
def test_nearest_counterfactuals_match_brute_force(data, k, norm, feasible_only):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    half = len(Z) // 2
    factual, candidates = Z[:half] if half else Z[:1], Z[half:]
    k = min(k, len(candidates))
    res = nearest_counterfactuals(factual, candidates, enc, n_neighbors=k, norm=norm, feasible_only=feasible_only)
    f_rows = frame.iloc[:half] if half else frame.iloc[:1]
    for i in range(len(factual)):
        costs = []
        for j in range(len(candidates)):
            if feasible_only and not slow_feasible(specs, f_rows.iloc[i], frame.iloc[half + j]):
                continue
            costs.append(enc.cost(factual[i], candidates[j], norm=norm)[0])
        assert res.n_feasible[i] == len(costs)
        expected = np.sort(costs)[:k]
        got = res.cost[i][np.isfinite(res.cost[i])]
        np.testing.assert_allclose(got, expected, atol=1e-9)
        for j, c in zip(res.index[i], res.cost[i], strict=True):
            if j != NO_COUNTERFACTUAL:
                assert c == pytest.approx(enc.cost(factual[i], candidates[j], norm=norm)[0], abs=1e-9)
                assert not feasible_only or enc.feasible(factual[i], candidates[j])[0]
            else:
                assert np.isinf(c)


def test_nearest_counterfactuals_on_german_credit_are_feasible(german, german_encoder):
    Z = german_encoder.transform(german.frame)
    good = german.y.to_numpy() == 1
    res = nearest_counterfactuals(Z[~good], Z[good], german_encoder, n_neighbors=3)
    found = res.has_recourse
    assert 0 < found.sum() < len(found)  # many constraints leave some applicants without any target
    assert german_encoder.feasible(Z[~good][found], Z[good][res.best_index[found]]).all()
    free = nearest_counterfactuals(Z[~good], Z[good], german_encoder, feasible_only=False)
    assert np.all(free.best_cost <= res.best_cost)  # constraints can only make recourse dearer
    table = res.to_frame()
    assert list(table.columns) == ["factual", "rank", "candidate", "cost", "found"]
    assert len(table) == 3 * len(res.cost)  # nobody is dropped, with or without recourse
    assert (table["candidate"][table["found"]] >= 0).all()
    assert table["candidate"][~table["found"]].isna().all() and np.isinf(table["cost"][~table["found"]]).all()
    assert set(table.loc[~table["found"] & (table["rank"] == 1), "factual"]) == set(np.flatnonzero(~found))


def test_an_absent_counterfactual_cannot_select_a_row():
    # issue 12: -1 for "none" let accepted[best_index[i]] silently pick the last accepted applicant
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous")]
    frame = pd.DataFrame({"age": [40, 30, 20], "debt": [5, 0, 4]})
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    accepted = Z[1:]
    res = nearest_counterfactuals(Z[:1], accepted, enc)  # both accepted people are younger: no recourse
    assert not res.has_recourse[0] and np.isinf(res.best_cost[0])
    assert pd.isna(res.best_index[0])
    assert res.index[0, 0] == NO_COUNTERFACTUAL
    with pytest.raises(IndexError):
        accepted[res.best_index[0]]
    with pytest.raises(IndexError):
        accepted[res.best_index]
    with pytest.raises(IndexError):
        accepted[res.index[:, 0]]
    frame_out = res.to_frame()
    assert frame_out["factual"].tolist() == [0] and not frame_out["found"].iloc[0]


def test_recourse_by_group_rejects_missing_labels():
    with pytest.raises(ValueError, match=r"groups has missing labels \(None or NaN; first at position 1;"):
        recourse_by_group([1.0, 2.0, 3.0], ["a", None, "b"])
    with pytest.raises(ValueError, match="groups has missing labels"):
        recourse_by_group([1.0, 2.0], np.array([np.nan, 1.0]))


def test_recourse_by_group_rejects_negative_costs():
    with pytest.raises(ValueError, match="cost has negative values"):
        recourse_by_group([1.0, -np.inf], ["a", "b"])


def test_nearest_counterfactuals_reject_bad_input(german_encoder):
    Z = np.zeros((2, german_encoder.n_columns))
    with pytest.raises(ValueError, match="n_neighbors=3 must lie between 1 and the 2 candidates"):
        nearest_counterfactuals(Z, Z, german_encoder, n_neighbors=3)
    with pytest.raises(ValueError, match="norm='max'"):
        nearest_counterfactuals(Z[:0], Z, german_encoder, norm="max")
    with pytest.raises(ValueError, match="Z_candidates is empty"):
        nearest_counterfactuals(Z, Z[:0], german_encoder)
    with pytest.raises(TypeError, match="encoder must be a fitted recourselab Encoder"):
        nearest_counterfactuals(Z, Z, None)
    with pytest.raises(ValueError, match=r"Z_factual has shape \(2, 3\)"):
        nearest_counterfactuals(Z[:, :3], Z, german_encoder)


def test_describe_changes_reads_in_units_and_flags_broken_constraints():
    specs = [
        FeatureSpec("amount", "continuous", "decrease", unit="DM"),
        FeatureSpec("savings", "ordinal", "increase", order=["none", "low", "high"]),
        FeatureSpec("sex", "binary", "immutable", order=["female", "male"]),
        FeatureSpec("purpose", "categorical"),
    ]
    frame = pd.DataFrame({"amount": [5000, 1000, 3000], "savings": ["none", "high", "low"],
                          "sex": ["female", "male", "female"], "purpose": ["car", "car", "education"]})
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    table = describe_changes(enc, Z[0], Z[1])
    assert table["feature"].tolist() == ["amount", "savings", "sex"]
    assert table["change"].tolist() == [-4000.0, "+2 levels", "+1 level"]
    assert table["allowed"].tolist() == [True, True, False]
    np.testing.assert_allclose(table["cost"], [1.0, 1.0, 1.0])
    table = describe_changes(enc, Z[0], Z[2], weights={"purpose": 3.0})
    assert table.set_index("feature").loc["purpose", "cost"] == 3.0
    assert describe_changes(enc, Z[0], Z[0]).empty
    assert len(describe_changes(enc, Z[0], Z[0], only_changed=False)) == 4


def test_recourse_by_group_counts_missing_recourse_and_ignores_it_in_costs():
    table = recourse_by_group([1.0, 3.0, np.inf, np.inf], ["a", "a", "a", "b"])
    assert table.loc["a", "n"] == 3
    assert table.loc["a", "with_recourse"] == pytest.approx(2 / 3)
    assert table.loc["a", "median_cost"] == 2.0
    assert table.loc["b", "with_recourse"] == 0 and np.isnan(table.loc["b", "median_cost"])
    with pytest.raises(ValueError, match="give two 1-d arrays of the same length"):
        recourse_by_group([1.0], ["a", "b"])
    with pytest.raises(ValueError, match="NaN"):
        recourse_by_group([np.nan], ["a"])


def test_nearest_counterfactuals_rejects_infinite_rows_instead_of_reporting_no_recourse(german_encoder):
    # issue 12: an inf in Z used to come back as "no recourse"
    Z = np.zeros((3, german_encoder.n_columns))
    Z[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"Z_factual has infinite values \(first in encoded column 2, row 1\)"):
        nearest_counterfactuals(Z, np.zeros((2, german_encoder.n_columns)), german_encoder)


# --------------------------------------------------------------------------- coverage_by_group


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


def test_coverage_by_group_rejects_nan_cost():
    with pytest.raises(ValueError, match="cost has NaN values; use inf for 'no recourse'"):
        coverage_by_group([1.0, np.nan], ["a", "b"], [1.0])


def test_coverage_by_group_rejects_negative_cost():
    with pytest.raises(ValueError, match="cost has negative values"):
        coverage_by_group([1.0, -0.5], ["a", "b"], [1.0])


def test_coverage_by_group_rejects_missing_group_labels():
    with pytest.raises(ValueError, match=r"groups has missing labels \(None or NaN; first at position 0;"):
        coverage_by_group([1.0, 2.0], [None, "b"], [1.0])


def test_coverage_by_group_rejects_cost_and_groups_of_different_lengths():
    with pytest.raises(ValueError, match="cost has shape"):
        coverage_by_group([1.0, 2.0], ["a"], [1.0])


def test_coverage_by_group_rejects_nan_budgets():
    with pytest.raises(ValueError, match=r"budgets has NaN values \(first at position 1\)"):
        coverage_by_group([1.0], ["a"], [0.5, np.nan])


def test_coverage_by_group_rejects_negative_budgets():
    with pytest.raises(ValueError, match=r"budgets\[0\] = -1 is negative"):
        coverage_by_group([1.0], ["a"], [-1.0, 2.0])


def test_coverage_by_group_rejects_empty_budgets():
    with pytest.raises(ValueError, match=r"budgets has shape \(0,\); give a non-empty 1-d array"):
        coverage_by_group([1.0], ["a"], [])


def test_coverage_by_group_rejects_two_dimensional_budgets():
    with pytest.raises(ValueError, match=r"budgets has shape \(1, 2\)"):
        coverage_by_group([1.0], ["a"], [[1.0, 2.0]])


def test_coverage_by_group_rejects_non_numeric_budgets():
    with pytest.raises(TypeError, match="budgets must be numbers"):
        coverage_by_group([1.0], ["a"], ["1", "2"])
    with pytest.raises(TypeError, match="budgets='high' must be numbers"):
        coverage_by_group([1.0], ["a"], "high")


def test_coverage_by_group_rejects_boolean_budgets():
    with pytest.raises(TypeError, match="budgets must be numbers \\(got dtype bool\\)"):
        coverage_by_group([1.0], ["a"], [True, False])

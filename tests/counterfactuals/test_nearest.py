"""nearest_counterfactuals and describe_changes: admissible targets, the advice label, readable moves."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.counterfactuals import NO_COUNTERFACTUAL, describe_changes, nearest_counterfactuals
from recourselab.features import Encoder, FeatureSpec

from strategies import slow_feasible, specs_and_frames


@given(specs_and_frames(min_rows=3, max_rows=20), st.integers(1, 3), st.sampled_from(["l1", "l2"]), st.booleans())
def test_feasible_nearest_counterfactuals_match_brute_force(data, k, norm, feasible_only):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    half = len(Z) // 2
    factual, candidates = Z[:half] if half else Z[:1], Z[half:]
    k = min(k, len(candidates))
    res = nearest_counterfactuals(factual, candidates, enc, n_neighbors=k, norm=norm, actionable=False,
                                  feasible_only=feasible_only)
    assert res.advice == "relaxation"
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
        for j, c, advisable in zip(res.index[i], res.cost[i], res.actionable[i], strict=True):
            if j != NO_COUNTERFACTUAL:
                assert c == pytest.approx(enc.cost(factual[i], candidates[j], norm=norm)[0], abs=1e-9)
                assert not feasible_only or enc.feasible(factual[i], candidates[j])[0]
                assert advisable == enc.actionable(factual[i], candidates[j])[0]
            else:
                assert np.isinf(c) and not advisable


@given(specs_and_frames(min_rows=3, max_rows=20), st.integers(1, 3))
def test_actionable_targets_are_advice_and_the_cheapest_such(data, k):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    half = max(len(Z) // 2, 1)
    factual, candidates = Z[:half], Z[half:]
    k = min(k, len(candidates))
    res = nearest_counterfactuals(factual, candidates, enc, n_neighbors=k)
    relaxed = nearest_counterfactuals(factual, candidates, enc, n_neighbors=k, actionable=False)
    assert res.advice == "actionable"
    found = res.index != NO_COUNTERFACTUAL
    np.testing.assert_array_equal(res.actionable, found)
    rows, ranks = np.nonzero(found)
    assert enc.actionable(factual[rows], candidates[res.index[rows, ranks]]).all()
    assert (res.n_feasible == enc.actionable_pairs(factual, candidates).sum(axis=1)).all()
    assert (res.n_feasible <= relaxed.n_feasible).all() and (res.best_cost >= relaxed.best_cost).all()


def test_on_german_credit_the_advice_policy_leaves_few_people_to_become(german, german_encoder):
    Z = german_encoder.transform(german.frame)
    good = german.y.to_numpy() == 1
    feasible = nearest_counterfactuals(Z[~good], Z[good], german_encoder, n_neighbors=3, actionable=False)
    found = feasible.has_recourse
    assert 0 < found.sum() < len(found)  # many constraints leave some applicants without any target
    assert german_encoder.feasible(Z[~good][found], Z[good][feasible.best_index[found]]).all()
    free = nearest_counterfactuals(Z[~good], Z[good], german_encoder, feasible_only=False)
    assert free.advice == "relaxation" and np.all(free.best_cost <= feasible.best_cost)
    advice = nearest_counterfactuals(Z[~good], Z[good], german_encoder)
    assert advice.has_recourse.sum() < found.sum()  # age and credit history are never advised: few targets
    table = feasible.to_frame()
    assert list(table.columns) == ["factual", "rank", "candidate", "cost", "found", "actionable"]
    assert len(table) == 3 * len(feasible.cost)  # nobody is dropped, with or without recourse
    assert (table["candidate"][table["found"]] >= 0).all()
    assert table["candidate"][~table["found"]].isna().all() and np.isinf(table["cost"][~table["found"]]).all()
    assert set(table.loc[~table["found"] & (table["rank"] == 1), "factual"]) == set(np.flatnonzero(~found))


def test_ties_go_to_the_lowest_candidate_position():
    enc = Encoder([FeatureSpec("x", "continuous")]).fit(pd.DataFrame({"x": [0.0, 4.0]}))
    Z = enc.transform(pd.DataFrame({"x": [2.0, 3.0, 1.0, 3.0, 1.0]}))
    res = nearest_counterfactuals(Z[:1], Z[1:], enc, n_neighbors=2)
    assert res.index[0].tolist() == [0, 1]  # four candidates at distance 1/4: the first two
    assert nearest_counterfactuals(Z[:1], Z[1:], enc).index[0, 0] == 0


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


def test_frames_are_read_by_column_name():
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous")]
    frame = pd.DataFrame({"age": [30, 20, 40], "debt": [5, 0, 4]})
    enc = Encoder(specs).fit(frame)
    Z = pd.DataFrame(enc.transform(frame), columns=enc.feature_names_out_)
    swapped = Z[["debt", "age"]]
    expected = nearest_counterfactuals(Z.iloc[:1], Z.iloc[1:], enc)
    got = nearest_counterfactuals(swapped.iloc[:1], swapped.iloc[1:], enc)
    np.testing.assert_array_equal(got.index, expected.index)
    np.testing.assert_array_equal(got.cost, expected.cost)
    assert describe_changes(enc, swapped.iloc[0], swapped.iloc[2]).equals(describe_changes(enc, Z.iloc[0], Z.iloc[2]))


def test_describe_changes_reads_in_units_and_flags_broken_constraints_and_advice():
    specs = [
        FeatureSpec("amount", "continuous", "decrease", unit="DM"),
        FeatureSpec("savings", "ordinal", "increase", order=["none", "low", "high"], max_change=1),
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
    assert table["advice"].tolist()[0] == "" and table["advice"].tolist()[1].startswith("beyond its plausible")
    np.testing.assert_allclose(table["cost"], [1.0, 1.0, 1.0])
    table = describe_changes(enc, Z[0], Z[2], weights={"purpose": 3.0})
    assert table.set_index("feature").loc["purpose", "cost"] == 3.0
    assert describe_changes(enc, Z[0], Z[0]).empty
    assert len(describe_changes(enc, Z[0], Z[0], only_changed=False)) == 4


def test_nothing_is_modified():
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous")]
    frame = pd.DataFrame({"age": [30, 20, 40], "debt": [5, 0, 4]})
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    before = Z.copy()
    nearest_counterfactuals(Z, Z, enc, n_neighbors=2, actionable=False)
    describe_changes(enc, Z[0], Z[2])
    np.testing.assert_array_equal(Z, before)

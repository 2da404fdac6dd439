"""situation_testing, wald_ci and counterfactual_fairness: hand examples and properties of the engine."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from situation_testing.st_cases import mixed_tables

from recourselab.situation_testing import counterfactual_fairness, situation_testing, wald_ci

X6 = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5]})
P6 = np.array([1, 1, 1, 0, 0, 0])
Y6 = np.array([0, 1, 0, 1, 0, 1])


def test_wald_ci_is_vectorised_and_two_sided_is_wider():
    low, high = wald_ci(np.array([0.5, 0.2]), np.array([0.1, 0.2]), np.array([10, 10]))
    assert low.shape == (2,) and high[1] > 0 > low[1]
    two_low, two_high = wald_ci(0.5, 0.1, 10, one_sided=False)
    assert two_low < low[0] and two_high > high[0]
    assert wald_ci(0.5, 0.1, 10) == pytest.approx((0.4 - 1.6448536 * np.sqrt(0.34 / 10),
                                                   0.4 + 1.6448536 * np.sqrt(0.34 / 10)))


@given(mixed_tables(), st.integers(1, 3), st.booleans())
def test_cst_with_factual_rows_as_counterfactuals_equals_st(data, k, include_centers):
    frame, protected = data
    y_hat = (frame["a"] + frame["b"] >= 4).to_numpy().astype(int)
    st_result = situation_testing(frame, protected, y_hat, k=k, include_centers=include_centers)
    cst_result = situation_testing(frame, protected, y_hat, k=k, X_cf=frame, y_hat_cf=y_hat,
                                   include_centers=include_centers)
    pd.testing.assert_frame_equal(st_result, cst_result)


def test_proportions_intervals_and_flags_on_a_hand_example():
    X = pd.DataFrame({"score": [0.0, 0.1, 0.2, 0.3, 0.0, 0.1, 0.2, 0.3]}, index=list("abcdefgh"))
    protected = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    y_hat = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    result = situation_testing(X, protected, y_hat, k=2)
    assert list(result.index) == list("abcd")
    # complainant a: control b, c (both refused); test e, f (both approved)
    assert result.loc["a", ["p_c", "p_t", "delta_p"]].tolist() == [1.0, 0.0, 1.0]
    assert bool(result.loc["a", "discrimination"]) and bool(result.loc["a", "significant"])
    with_centres = situation_testing(X, protected, y_hat, k=2, include_centers=True)
    # a's own refusal joins the control group; its test centre is itself (ST): refused too
    assert with_centres.loc["a", ["p_c", "p_t"]].tolist() == [1.0, pytest.approx(1 / 3)]
    low, high = wald_ci(1.0, 1 / 3, 3)
    assert with_centres.loc["a", "ci_low"] == pytest.approx(low)


def test_counterfactual_centres_move_the_test_group():
    X = pd.DataFrame({"salary": [10.0, 11, 12, 10, 11, 12, 30, 31, 32]})
    protected = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0])
    y_hat = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    X_cf = X.copy()
    X_cf.loc[:2, "salary"] += 20  # what the women would have earned as men
    st_result = situation_testing(X, protected, y_hat, k=2)
    cst_result = situation_testing(X, protected, y_hat, k=2, X_cf=X_cf)
    assert (st_result["delta_p"] == 0).all()  # similar men were refused too
    assert (cst_result["delta_p"] == 1).all()  # the men they would have been were approved


def test_tau_just_below_one_is_accepted_and_flags_only_larger_differences():
    result = situation_testing(X6, P6, Y6, k=1, tau=0.99)
    assert (result["discrimination"] == (result["delta_p"] > 0.99)).all()


def test_pandas_inputs_with_x_index_are_accepted_and_the_result_keeps_it():
    X = X6.set_axis(list("abcdef"))
    result = situation_testing(X, pd.Series(P6, index=X.index), pd.Series(Y6, index=X.index), k=1,
                               X_cf=X.assign(a=X["a"] + 1), reference=pd.Series(P6 == 0, index=X.index))
    assert list(result.index) == ["a", "b", "c"]


def test_inputs_are_not_modified():
    X = X6.set_axis(list("abcdef"))
    X_cf, protected, y_hat = X.assign(a=X["a"] + 1), pd.Series(P6, index=X.index), Y6.copy()
    copies = X.copy(), X_cf.copy(), protected.copy()
    situation_testing(X, protected, y_hat, k=1, X_cf=X_cf, y_hat_cf=y_hat, include_centers=True)
    pd.testing.assert_frame_equal(X, copies[0])
    pd.testing.assert_frame_equal(X_cf, copies[1])
    pd.testing.assert_series_equal(protected, copies[2])
    np.testing.assert_array_equal(y_hat, Y6)


def test_counterfactual_fairness_flags_refusals_that_flip():
    assert counterfactual_fairness([0, 0, 1, 1], [1, 0, 1, 0]).tolist() == [True, False, False, False]
    assert counterfactual_fairness(np.array([False, True]), np.array([True, True])).tolist() == [True, False]

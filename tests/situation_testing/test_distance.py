"""The distance transform: Eq. (6) as an L1 distance, its options, and how it reads tables (see test_paper.py)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from recourselab.situation_testing import situation_distance_transform, situation_testing


def test_categorical_as_a_string_names_one_column():
    frame = pd.DataFrame({"ab": [0, 1, 2, 0, 1, 2], "a": [0.0, 1, 2, 3, 4, 5]})
    T, _ = situation_distance_transform(frame, categorical="ab")
    assert T.shape == (6, 3 + 1)   # "ab" one-hot with three levels, "a" numeric


def test_a_constant_column_separates_no_one():
    T, _ = situation_distance_transform(pd.DataFrame({"a": [1.0, 2, 3], "same": [7.0, 7, 7]}))
    assert np.abs(T[0] - T[2]).sum() == pytest.approx(0.5)   # (2/2 + 0) / 2


def test_x_cf_with_the_columns_in_another_order_is_aligned_by_name():
    X = pd.DataFrame({"salary": [10.0, 20, 30], "job": ["a", "b", "a"]})
    X_cf = pd.DataFrame({"job": ["b", "b", "a"], "salary": [20.0, 25, 30]})
    _, by_name = situation_distance_transform(X, X_cf)
    _, in_order = situation_distance_transform(X, X_cf[["salary", "job"]])
    np.testing.assert_array_equal(by_name, in_order)


def test_object_array_gives_the_same_transform_as_the_frame(german):
    frame = german.X
    array = frame.to_numpy()   # dtype object: numbers and labels side by side
    assert array.dtype == object
    T_frame, _ = situation_distance_transform(frame)
    T_array, _ = situation_distance_transform(array)
    assert T_array.shape == T_frame.shape
    np.testing.assert_array_equal(T_array, T_frame)


def test_object_array_gives_the_same_situation_testing_result_as_the_frame(german):
    frame = german.X.iloc[:200]
    women = (frame["sex"] == "female").to_numpy()
    y_hat = german.y.iloc[:200].to_numpy()
    from_frame = situation_testing(frame.reset_index(drop=True), women, y_hat, k=5)
    from_array = situation_testing(frame.to_numpy(), women, y_hat, k=5)
    np.testing.assert_array_equal(from_frame.to_numpy(), from_array.to_numpy())


def test_object_column_holding_numbers_warns_that_it_is_treated_as_categorical():
    frame = pd.DataFrame({"a": pd.Series([0, 1, 2, 3], dtype=object), "b": [0.0, 1, 2, 3]})
    with pytest.warns(UserWarning, match=r"columns \['a'\] of X have dtype object and hold numbers"):
        T, _ = situation_distance_transform(frame)
    assert T.shape == (4, 4 + 1)


def test_object_array_column_mixing_numbers_and_labels_warns():
    array = np.array([[1, 0.5], ["high", 1.5], [3, 2.5]], dtype=object)
    with pytest.warns(UserWarning, match=r"columns \['x0'\] of X have dtype object"):
        situation_distance_transform(array)


def test_numbers_turned_into_text_by_numpy_warn():
    array = np.array([[1, "a"], [2, "b"], [3, "a"]])   # numpy stores 1, 2, 3 as the text "1", "2", "3"
    assert array.dtype.kind == "U"
    with pytest.warns(UserWarning, match=r"columns \['x0'\] of X hold numbers written as text"):
        situation_distance_transform(array)


def test_explicit_categorical_silences_the_guess_warnings():
    array = np.array([[1, "a"], [2, "b"], [3, "a"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T, _ = situation_distance_transform(array, categorical=["x0", "x1"])
    assert T.shape == (3, 3 + 2)


# --------------------------------------------------------------------------- the authors' options
def test_refit_maps_counterfactuals_onto_the_factual_scale_by_hand():
    X = pd.DataFrame({"salary": [0.0, 10, 20, 30, 40]})
    X_cf = pd.DataFrame({"salary": [0.0, 0, 0, 40, 40]})
    # range: centre = min, spread = range; X: (0, 40), X_cf: (0, 40) -> the map is the identity
    _, T_cf = situation_distance_transform(X, X_cf, cf_scaling="refit")
    np.testing.assert_allclose(T_cf[:, 0], np.array([0, 0, 0, 40, 40]) / 40)
    # std: X has mean 20, sd sqrt(200); X_cf has mean 16, sd sqrt((3 * 16**2 + 2 * 24**2) / 5) = sqrt(384)
    _, T_cf = situation_distance_transform(X, X_cf, normalize="std", cf_scaling="refit")
    by_hand = (20 + (np.array([0, 0, 0, 40, 40]) - 16) * np.sqrt(200) / np.sqrt(384)) / np.sqrt(200)
    np.testing.assert_allclose(T_cf[:, 0], by_hand)
    assert T_cf[3, 0] == pytest.approx((20 + 24 * np.sqrt(200 / 384)) / np.sqrt(200))
    # the paper's definition measures the counterfactual with the factual ruler: no mapping
    _, T_cf = situation_distance_transform(X, X_cf, normalize="std")
    np.testing.assert_allclose(T_cf[:, 0], np.array([0, 0, 0, 40, 40]) / np.sqrt(200))


def test_refit_of_an_affine_image_gives_back_the_factual_rows():
    X = pd.DataFrame({"salary": [0.0, 10, 20, 35, 40], "balance": [5.0, 1, 3, 2, 4]})
    X_cf = 2 * X + 100
    for normalize in ("range", "std"):
        T, T_cf = situation_distance_transform(X, X_cf, normalize=normalize, cf_scaling="refit")
        np.testing.assert_allclose(T_cf, T)


def test_refit_maps_a_constant_counterfactual_column_to_the_factual_centre():
    X = pd.DataFrame({"salary": [0.0, 10, 20, 30, 40]})
    X_cf = pd.DataFrame({"salary": [7.0] * 5})
    _, T_cf = situation_distance_transform(X, X_cf, normalize="std", cf_scaling="refit")
    np.testing.assert_allclose(T_cf[:, 0], 20 / np.sqrt(200))
    _, T_cf = situation_distance_transform(X, X_cf, cf_scaling="refit")
    np.testing.assert_allclose(T_cf[:, 0], 0.0)   # range: the centre is the minimum


def test_std_refit_equals_standardising_each_data_set_on_its_own(loan_world):
    """The authors' code: a StandardScaler fitted on X for the factual rows, another fitted on X_cf for the rest."""
    from sklearn.preprocessing import StandardScaler

    X, cf, _, _ = loan_world
    Z, Z_cf = StandardScaler().fit_transform(X), StandardScaler().fit_transform(cf)
    T, T_cf = situation_distance_transform(X, cf, normalize="std", cf_scaling="refit")
    for i in range(0, len(X), 37):
        np.testing.assert_allclose(np.abs(T - T_cf[i]).sum(axis=1), np.abs(Z - Z_cf[i]).sum(axis=1) / 2,
                                   rtol=1e-12, atol=1e-12)


def test_the_transform_does_not_modify_its_inputs():
    X = pd.DataFrame({"salary": [10.0, 20, 30], "job": ["a", "b", "a"]}, index=[5, 6, 7])
    X_cf = X.assign(salary=[15.0, 20, 35])
    before, before_cf = X.copy(), X_cf.copy()
    situation_distance_transform(X, X_cf, cf_scaling="refit")
    pd.testing.assert_frame_equal(X, before)
    pd.testing.assert_frame_equal(X_cf, before_cf)

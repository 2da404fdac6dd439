import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError

from recourselab.features import Encoder, FeatureSpec, features_to_frame

from strategies import ACTS, slow_feasible, specs_and_frames


# ----------------------------------------------------------------------------- FeatureSpec
def test_spec_accepts_seed_symbols():
    assert [FeatureSpec("x", "continuous", a).actionability for a in ["-", "↑", "↓", "="]] == ACTS


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(kind="number"), "kind='number'"),
        (dict(kind="continuous", actionability="sideways"), "actionability='sideways'"),
        (dict(kind="categorical", actionability="increase"), "has no direction"),
        (dict(kind="continuous", weight=-1), "weight=-1"),
        (dict(kind="continuous", weight=float("nan")), "must be finite"),
        (dict(kind="continuous", order=[1, 2]), "is continuous, so order"),
        (dict(kind="binary", order=["a", "b", "c"]), "exactly 2 levels"),
        (dict(kind="ordinal", order=["a", "a"]), "distinct levels"),
        (dict(kind="ordinal", order="abc"), "must be a list of levels"),
        (dict(kind="ordinal", lower=0), "lower/upper are for continuous"),
        (dict(kind="continuous", lower=5, upper=1), "lower=5 must be below upper=1"),
    ],
)
def test_spec_rejects_bad_arguments_with_a_useful_message(kwargs, message):
    with pytest.raises((ValueError, TypeError), match=message):
        FeatureSpec("x", **kwargs)


def test_features_to_frame_describes_levels_and_ranges():
    table = features_to_frame([FeatureSpec("a", "ordinal", "↑", order=["lo", "hi"]),
                               FeatureSpec("b", "continuous", lower=0, upper=10, unit="DM")])
    assert table["levels (worst to best) or range"].tolist() == ["lo; hi", "[0, 10]"]
    assert table["unit"].tolist() == ["", "DM"]


# ----------------------------------------------------------------------------- round trip
@given(specs_and_frames())
def test_inverse_transform_round_trips(data):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    assert Z.shape == (len(frame), len(enc.feature_names_out_))
    assert np.all((Z >= -1e-12) & (Z <= 1 + 1e-12))
    back = enc.inverse_transform(Z)
    pd.testing.assert_frame_equal(back, frame, check_exact=False, rtol=1e-9, atol=1e-9)


def test_round_trip_on_german_credit(german, german_encoder):
    back = german_encoder.inverse_transform(german_encoder.transform(german.frame))
    pd.testing.assert_frame_equal(back, german.X)


def test_transform_does_not_mutate_input(german):
    frame = german.frame.copy()
    enc = german.encoder().fit(frame)
    enc.transform(frame)
    pd.testing.assert_frame_equal(frame, german.frame)


def test_ordinal_encoding_is_rank_over_levels_minus_one():
    spec = FeatureSpec("s", "ordinal", order=["none", "low", "mid", "high"])
    frame = pd.DataFrame({"s": ["none", "mid", "high", "low"]})
    Z = Encoder([spec]).fit(frame).transform(frame)
    assert Z[:, 0].tolist() == [0.0, 2 / 3, 1.0, 1 / 3]


def test_continuous_uses_spec_range_when_given():
    frame = pd.DataFrame({"x": [2.0, 4.0]})
    Z = Encoder([FeatureSpec("x", "continuous", lower=0, upper=10)]).fit(frame).transform(frame)
    assert Z[:, 0].tolist() == [0.2, 0.4]


# ----------------------------------------------------------------------------- feasibility
@given(specs_and_frames(min_rows=2, max_rows=15), st.data())
def test_feasible_agrees_with_slow_per_feature_reference(data, draw):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    i = np.array(draw.draw(st.lists(st.integers(0, len(frame) - 1), min_size=1, max_size=30)))
    j = np.array(draw.draw(st.lists(st.integers(0, len(frame) - 1), min_size=len(i), max_size=len(i))))
    fast = enc.feasible(Z[i], Z[j])
    slow = [slow_feasible(specs, frame.iloc[a], frame.iloc[b]) for a, b in zip(i, j, strict=True)]
    assert fast.tolist() == slow
    # violations() explains the same verdict feature by feature
    assert (~enc.violations(Z[i], Z[j]).any(axis=1)).tolist() == slow


@given(specs_and_frames(min_rows=1, max_rows=12))
def test_feasible_pairs_is_feasible_on_every_pair(data):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    n = len(Z)
    pairs = enc.feasible_pairs(Z, Z)
    rows = enc.feasible(np.repeat(Z, n, axis=0), np.tile(Z, (n, 1))).reshape(n, n)
    assert np.array_equal(pairs, rows)
    assert pairs.diagonal().all()  # staying put is always allowed


def test_feasible_on_german_credit_examples(german, german_encoder):
    frame = german.frame
    older = frame.iloc[[0]].copy()
    older["age"] += 1
    younger = frame.iloc[[0]].copy()
    younger["age"] -= 1
    other_sex = frame.iloc[[0]].copy()
    other_sex["sex"] = "female"
    more_savings = frame.iloc[[0]].copy()
    more_savings["savings"] = ">= 1000 DM"  # from 'unknown or none'
    Z0 = german_encoder.transform(frame.iloc[[0]])
    moves = [german_encoder.transform(f) for f in (older, younger, other_sex, more_savings)]
    assert [bool(german_encoder.feasible(Z0, m)[0]) for m in moves] == [True, False, False, True]
    assert german_encoder.feasible(moves[3], Z0).tolist() == [False]  # savings cannot go down


def test_encoded_arrays_with_nan_are_rejected(german_encoder):
    Z = np.zeros((3, german_encoder.n_columns))
    Z[1, 4] = np.nan
    with pytest.raises(ValueError, match=r"Z_to has missing values \(first in encoded column 4, row 1\)"):
        german_encoder.feasible(np.zeros_like(Z), Z)
    with pytest.raises(ValueError, match="Z has missing values"):
        german_encoder.inverse_transform(Z)


def test_feasible_rejects_different_shapes(german_encoder):
    Z = np.zeros((3, german_encoder.n_columns))
    with pytest.raises(ValueError, match=r"Z_from has shape \(3, 34\) but Z_to has shape \(2, 34\)"):
        german_encoder.feasible(Z, Z[:2])
    with pytest.raises(ValueError, match=r"expected \(n_rows, 34\) encoded columns"):
        german_encoder.feasible(Z[:, :5], Z[:, :5])


# ----------------------------------------------------------------------------- costs
@given(specs_and_frames(min_rows=1, max_rows=10), st.sampled_from(["l1", "l2"]))
def test_pairwise_cost_matches_rowwise_cost(data, norm):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    n = len(Z)
    weights = {s.name: 0.5 + i for i, s in enumerate(specs)}
    rowwise = enc.cost(np.repeat(Z, n, axis=0), np.tile(Z, (n, 1)), weights=weights, norm=norm).reshape(n, n)
    np.testing.assert_allclose(enc.pairwise_cost(Z, Z, weights=weights, norm=norm), rowwise, atol=1e-12)


def test_feature_distances_count_a_category_change_once():
    specs = [FeatureSpec("c", "categorical"), FeatureSpec("o", "ordinal", order=["a", "b", "c"])]
    frame = pd.DataFrame({"c": ["x", "y", "x"], "o": ["a", "c", "b"]})
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    d = enc.feature_distances(Z[[0, 0]], Z[[1, 2]])
    assert d.tolist() == [[1.0, 1.0], [0.0, 0.5]]
    assert enc.cost(Z[[0]], Z[[1]], weights={"c": 2.0}).tolist() == [3.0]
    assert enc.cost(Z[[0]], Z[[1]], norm="l2").tolist() == [np.sqrt(2.0)]


def test_cost_rejects_unknown_weights_and_norms(german_encoder):
    Z = np.zeros((1, german_encoder.n_columns))
    with pytest.raises(ValueError, match="unknown feature 'salary'"):
        german_encoder.cost(Z, Z, weights={"salary": 1.0})
    with pytest.raises(ValueError, match=r"weights\['age'\]=-2.0 must be finite and >= 0"):
        german_encoder.cost(Z, Z, weights={"age": -2})
    with pytest.raises(ValueError, match="norm='l3'"):
        german_encoder.cost(Z, Z, norm="l3")


# ----------------------------------------------------------------------------- bad input
def test_unknown_column_in_spec_is_named(german):
    enc = Encoder(list(german.features) + [FeatureSpec("salary", "continuous")])
    with pytest.raises(ValueError, match=r"no column for the feature\(s\) \['salary'\]"):
        enc.fit(german.frame)


def test_nan_is_reported_with_its_column(german):
    frame = german.frame.copy()
    frame.loc[[3, 7], "credit_amount"] = np.nan
    message = r"column 'credit_amount' of frame has 2 missing value\(s\) \(first rows: \[3, 7\]\)"
    with pytest.raises(ValueError, match=message):
        german.encoder().fit(frame)


def test_ordinal_value_outside_its_order_is_reported(german, german_encoder):
    frame = german.frame.copy()
    frame.loc[5, "savings"] = "a lot"
    with pytest.raises(ValueError, match=r"column 'savings' of frame has values \['a lot'\] that are not in its order"):
        german_encoder.transform(frame)


def test_unseen_category_and_untyped_ordinal_are_reported():
    frame = pd.DataFrame({"c": ["x", "y"], "o": ["lo", "hi"]})
    enc = Encoder([FeatureSpec("c", "categorical")]).fit(frame[["c"]])
    with pytest.raises(ValueError, match=r"values \['z'\] that are not in its categories"):
        enc.transform(pd.DataFrame({"c": ["z"]}))
    with pytest.raises(ValueError, match="give order=\\[worst, ..., best\\]"):
        Encoder([FeatureSpec("o", "ordinal")]).fit(frame[["o"]])


def test_encoder_rejects_bad_construction_and_use():
    with pytest.raises(ValueError, match="features is empty"):
        Encoder([]).fit(pd.DataFrame({"x": [1]}))
    with pytest.raises(TypeError, match="must hold FeatureSpec objects"):
        Encoder(["x"]).fit(pd.DataFrame({"x": [1]}))
    with pytest.raises(ValueError, match=r"more than once: \['x'\]"):
        Encoder([FeatureSpec("x", "continuous")] * 2).fit(pd.DataFrame({"x": [1]}))
    with pytest.raises(NotFittedError, match="not fitted yet"):
        Encoder([FeatureSpec("x", "continuous")]).transform(pd.DataFrame({"x": [1]}))
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        Encoder([FeatureSpec("x", "continuous")]).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="declared continuous but has dtype"):
        Encoder([FeatureSpec("x", "continuous")]).fit(pd.DataFrame({"x": ["a", "b"]}))
    with pytest.raises(ValueError, match="is binary but has 3 values"):
        Encoder([FeatureSpec("x", "binary")]).fit(pd.DataFrame({"x": [1, 2, 3]}))


def test_values_outside_a_declared_range_warn():
    frame = pd.DataFrame({"x": [0.0, 12.0]})
    with pytest.warns(UserWarning, match=r"outside its declared range \[0.0, 10.0\]"):
        Encoder([FeatureSpec("x", "continuous", lower=0, upper=10)]).fit(frame)


def test_weight_vector_follows_spec_order_and_overrides():
    frame = pd.DataFrame({"a": [0.0, 1.0], "b": [0.0, 1.0]})
    enc = Encoder([FeatureSpec("a", "continuous", weight=2.0), FeatureSpec("b", "continuous")]).fit(frame)
    assert enc.weight_vector().tolist() == [2.0, 1.0]
    assert enc.weight_vector({"b": 3}).tolist() == [2.0, 3.0]


# --------------------------------------------------------------------------- issue 12: no silent wrong answers


def test_encoder_fit_rejects_infinite_values():
    frame = pd.DataFrame({"x": [1.0, np.inf, 3.0]})
    with pytest.raises(ValueError, match=r"column 'x' of frame has 1 infinite value\(s\) \(first rows: \[1\]\)"):
        Encoder([FeatureSpec("x", "continuous")]).fit(frame)


def test_encoder_transform_rejects_infinite_values():
    enc = Encoder([FeatureSpec("x", "continuous")]).fit(pd.DataFrame({"x": [1.0, 3.0]}))
    with pytest.raises(ValueError, match=r"column 'x' of frame has 1 infinite value\(s\) \(first rows: \['b'\]\)"):
        enc.transform(pd.DataFrame({"x": [2.0, -np.inf]}, index=["a", "b"]))


def test_encoded_arrays_with_inf_are_rejected(german_encoder):
    Z = np.zeros((3, german_encoder.n_columns))
    Z[2, 1] = np.inf
    with pytest.raises(ValueError, match=r"Z_from has infinite values \(first in encoded column 1, row 2\)"):
        german_encoder.feasible(Z, Z)


def test_encoder_fit_rejects_zero_rows():
    with pytest.raises(ValueError, match="frame has 0 rows"):
        Encoder([FeatureSpec("x", "continuous")]).fit(pd.DataFrame({"x": np.array([], dtype=float)}))


def test_encoder_warns_about_undescribed_columns_and_respects_ignore():
    frame = pd.DataFrame({"x": [1.0, 2.0], "income": [3.0, 4.0], "y": [0, 1]})
    with pytest.warns(UserWarning, match=r"no FeatureSpec describes .*\['income', 'y'\]"):
        Encoder([FeatureSpec("x", "continuous")]).fit(frame)
    with pytest.warns(UserWarning, match=r"\['income'\]"):
        Encoder([FeatureSpec("x", "continuous")], ignore=["y"]).fit(frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Encoder([FeatureSpec("x", "continuous")], ignore=["y", "income"]).fit(frame)


def test_dataset_encoder_ignores_the_target_without_warning(german):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        german.encoder().fit(german.frame)


def test_inverse_transform_keeps_the_input_index(german_encoder, german):
    rows = german.frame.iloc[[3, 7, 9]]
    Z = pd.DataFrame(german_encoder.transform(rows), index=rows.index)
    assert german_encoder.inverse_transform(Z).index.tolist() == [3, 7, 9]
    assert german_encoder.inverse_transform(Z.to_numpy(), index=rows.index).index.tolist() == [3, 7, 9]
    assert german_encoder.inverse_transform(Z.to_numpy()).index.tolist() == [0, 1, 2]
    with pytest.raises(ValueError, match="index has 2 entries but Z has 3 rows"):
        german_encoder.inverse_transform(Z.to_numpy(), index=[1, 2])

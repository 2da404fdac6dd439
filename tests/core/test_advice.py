"""Feasible is not yet advice: the spec's ``advise`` and ``max_change``, and ``Encoder.actionable``.

The reference below judges a move on the readable values, feature by feature, without the encoding;
the encoder's vectorised checks must agree with it on random specs, frames and moves.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.features import Encoder, FeatureSpec, features_to_frame

from strategies import advised, slow_feasible, specs_and_frames


@st.composite
def advice_specs_and_frames(draw):
    """Random specs with random advice (directions narrower than actionability, caps) and two frames of rows."""
    specs, frame = draw(specs_and_frames(min_rows=2, max_rows=12))
    moved = frame.sample(frac=1.0, random_state=draw(st.integers(0, 1000))).reset_index(drop=True)
    return advised(draw, specs), frame, moved


def slow_actionable(specs, old: pd.Series, new: pd.Series) -> bool:
    """Per-feature reference on readable values (every readable value is a whole level)."""
    if not slow_feasible(specs, old, new):
        return False
    for s in specs:
        a, b = old[s.name], new[s.name]
        if s.kind == "categorical":
            change = float(a != b)
        elif s.kind == "continuous":
            change = float(b - a)
        else:
            change = float(s.order.index(b) - s.order.index(a))
        if change and s.advice_direction == "never":
            return False
        if (change > 0 and s.advice_direction == "decrease") or (change < 0 and s.advice_direction == "increase"):
            return False
        if s.max_change is not None and abs(change) > s.max_change + 1e-9 and s.advice_direction != "never":
            return False
        if change and b in s.never_advise_levels:  # into a level never advised (staying there is fine)
            return False
    return True


@given(advice_specs_and_frames())
def test_actionable_equals_the_per_feature_reference(data):
    specs, frame, moved = data
    enc = Encoder(specs).fit(pd.concat([frame, moved]))
    A, B = enc.transform(frame), enc.transform(moved)
    expected = [slow_actionable(specs, frame.iloc[i], moved.iloc[i]) for i in range(len(frame))]
    assert enc.actionable(A, B).tolist() == expected
    # every actionable move is feasible, and the reasons are empty exactly where the move is actionable
    assert not (enc.actionable(A, B) & ~enc.feasible(A, B)).any()
    reasons = enc.advice_violations(A, B)
    assert (reasons == "").all(axis=1).tolist() == expected


@given(advice_specs_and_frames())
def test_actionable_pairs_equal_the_row_wise_check(data):
    specs, frame, moved = data
    enc = Encoder(specs).fit(pd.concat([frame, moved]))
    A, B = enc.transform(frame), enc.transform(moved)
    pairs = enc.actionable_pairs(A, B)
    rows = np.repeat(np.arange(len(A)), len(B))
    cols = np.tile(np.arange(len(B)), len(A))
    assert pairs.ravel().tolist() == enc.actionable(A[rows], B[cols]).tolist()


@given(advice_specs_and_frames(), st.integers(0, 10**6))
def test_snapping_lands_on_whole_levels_at_least_as_far_as_proposed(data, seed):
    specs, frame, moved = data
    enc = Encoder(specs).fit(pd.concat([frame, moved]))
    A = enc.transform(frame)
    rng = np.random.default_rng(seed)
    B = np.clip(A + rng.normal(0, 0.3, A.shape) * rng.integers(0, 2, A.shape), 0, 1)  # off-level moves
    B_before = B.copy()
    snapped = enc.snap_to_levels(A, B)
    assert np.array_equal(B, B_before)  # not modified
    assert enc.on_levels(snapped).all()
    for s in specs:
        if s.kind in ("ordinal", "binary"):
            j = enc.slices_[s.name].start
            proposed, made = B[:, j] - A[:, j], snapped[:, j] - A[:, j]
            # rounded away from the start: as far as proposed, or to the last level
            assert np.all((np.abs(made) >= np.abs(proposed) - 1e-9) | np.isclose(snapped[:, j], 0)
                          | np.isclose(snapped[:, j], 1))
            assert np.all(np.sign(made) * np.sign(proposed) >= 0)


def test_snapping_keeps_each_category_blocks_largest_column():
    specs = [FeatureSpec("job", "categorical", order=["a", "b", "c"]), FeatureSpec("x", "continuous")]
    enc = Encoder(specs).fit(pd.DataFrame({"job": ["a", "b", "c"], "x": [0.0, 1.0, 2.0]}))
    start = enc.transform(pd.DataFrame({"job": ["a", "a"], "x": [1.0, 1.0]}))
    proposed = start.copy()
    proposed[0, :3] = [0.2, 0.7, 0.1]  # mostly "b"
    proposed[1, :3] = [0.1, 0.2, 0.6]  # mostly "c"
    snapped = enc.snap_to_levels(start, proposed)
    assert enc.inverse_transform(snapped)["job"].tolist() == ["b", "c"]


def test_on_levels_finds_half_levels_broken_one_hot_and_fractional_years():
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("hours", "continuous"),
             FeatureSpec("savings", "ordinal", "increase", order=["none", "some", "much"]),
             FeatureSpec("job", "categorical", order=["a", "b"])]
    frame = pd.DataFrame({"age": [20, 60], "hours": [10.0, 50.0], "savings": ["none", "much"], "job": ["a", "b"]})
    enc = Encoder(specs).fit(frame)
    z = enc.transform(frame.iloc[[0]])[0]
    rows = np.tile(z, (5, 1))
    rows[1, 0] += 0.5 / 40          # age 20.5 years: an integer column off its grid
    rows[2, 1] += 0.123             # hours are floats: any value is fine
    rows[3, 2] = 0.25               # a quarter of the way from "none" to "some"
    rows[4, 3:5] = [0.5, 0.5]       # half a category
    assert enc.on_levels(rows).tolist() == [True, False, True, False, False]


def test_advice_violations_say_why_in_the_features_units():
    specs = [FeatureSpec("age", "continuous", "increase", advise="never", unit="years"),
             FeatureSpec("hours", "continuous", max_change=10, unit="hours"),
             FeatureSpec("debts", "continuous", "free", advise="decrease"),
             FeatureSpec("savings", "ordinal", "increase", order=[0, 1, 2, 3], max_change=1)]
    frame = pd.DataFrame({"age": [20, 60], "hours": [0.0, 60.0], "debts": [0, 10], "savings": [0, 3]})
    enc = Encoder(specs).fit(frame)
    start = pd.DataFrame({"age": [30] * 5, "hours": [20.0] * 5, "debts": [5] * 5, "savings": [1] * 5})
    end = pd.DataFrame({"age": [31, 30, 30, 30, 30], "hours": [20.0, 45.0, 20.0, 20.0, 25.0],
                        "debts": [5, 5, 6, 5, 4], "savings": [1, 1, 1, 0, 2]})
    reasons = enc.advice_violations(enc.transform(start), enc.transform(end))
    assert reasons.loc[0, "age"] == "not to be advised"
    assert reasons.loc[1, "hours"] == "beyond its plausible change (25 > 10 hours)"
    assert reasons.loc[2, "debts"] == "advised the wrong way"
    assert reasons.loc[3, "savings"] == "moves the wrong way"
    assert (reasons.loc[4] == "").all()
    assert enc.actionable(enc.transform(start), enc.transform(end)).tolist() == [False, False, False, False, True]


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(kind="continuous", actionability="increase", advise="decrease"), ValueError, "advice may only narrow"),
        (dict(kind="continuous", actionability="immutable", advise="any"), ValueError, "advice may only narrow"),
        (dict(kind="continuous", advise="sideways"), ValueError, "advise='sideways'"),
        (dict(kind="categorical", order=["a", "b", "c"], advise="increase"), ValueError, "has no direction"),
        (dict(kind="categorical", order=["a", "b"], max_change=1), ValueError, "one whole step"),
        (dict(kind="binary", order=["a", "b"], max_change=1), ValueError, "one whole step"),
        (dict(kind="ordinal", order=[1, 2, 3], max_change=1.5), ValueError, "whole number"),
        (dict(kind="continuous", max_change=0), ValueError, "max_change=0"),
        (dict(kind="continuous", max_change=float("inf")), ValueError, "finite number > 0"),
        (dict(kind="continuous", max_change=float("nan")), ValueError, "finite number > 0"),
        (dict(kind="continuous", max_change="2"), TypeError, "must be a number"),
        (dict(kind="continuous", max_change=True), TypeError, "must be a number"),
    ],
)
def test_spec_rejects_bad_advice_with_a_useful_message(kwargs, error, message):
    with pytest.raises(error, match=message):
        FeatureSpec("x", **kwargs)


def test_advice_defaults_to_actionability_and_is_tabulated():
    specs = [FeatureSpec("a", "continuous", "↑"), FeatureSpec("b", "continuous", "="),
             FeatureSpec("c", "ordinal", "free", order=[1, 2, 3], max_change=1),
             FeatureSpec("d", "continuous", "free", advise="↓", max_change=5, unit="k€")]
    assert [s.advice_direction for s in specs] == ["increase", "never", "any", "decrease"]
    assert [s.advise for s in specs] == [None, None, None, "decrease"]  # as given: replace() narrows with it
    from dataclasses import replace
    assert replace(specs[0], actionability="immutable").advice_direction == "never"
    assert features_to_frame(specs)["advice"].tolist() == [
        "increase", "never", "any, at most ±1 level", "decrease, at most 5 k€"]


def test_advice_checks_do_not_modify_their_inputs():
    specs = [FeatureSpec("x", "ordinal", "increase", order=[0, 1, 2], max_change=1), FeatureSpec("y", "continuous")]
    frame = pd.DataFrame({"x": [0, 2], "y": [0.0, 1.0]})
    enc = Encoder(specs).fit(frame)
    A, B = enc.transform(frame), enc.transform(frame[::-1])
    B[0, 0] = 0.3
    copies = A.copy(), B.copy()
    for method in (enc.actionable, enc.actionable_pairs, enc.advice_violations, enc.snap_to_levels):
        method(A, B)
        assert np.array_equal(A, copies[0]) and np.array_equal(B, copies[1])

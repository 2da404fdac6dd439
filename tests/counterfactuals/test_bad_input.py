"""Bad input to every public function of recourselab.counterfactuals: one table, the package's own messages.

Each row: a name, a call, the error type and a regex its message must match. Every message names the
argument and the fix; none comes from inside numpy, pandas or scikit-learn.
"""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from recourselab.counterfactuals import (
    coverage_by_group,
    describe_changes,
    exhaustive_recourse,
    exhaustive_recourse_by_price,
    linear_recourse,
    mad_l1_cost,
    nearest_counterfactuals,
    percentile_shift_cost,
    recourse_by_group,
    recourse_for_refused,
)
from recourselab.features import Encoder, FeatureSpec

SPECS = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous"),
         FeatureSpec("savings", "ordinal", order=[0, 1, 2])]
FRAME = pd.DataFrame({"age": [30, 20, 40], "debt": [5.0, 0.0, 4.0], "savings": [0, 1, 2]})
ENC = Encoder(SPECS).fit(FRAME)
Z = ENC.transform(FRAME)
COLS = list(ENC.feature_names_out_)
X = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0]])


def with_nan(A, value=np.nan):
    A = np.array(A, dtype=float)
    A[1, 1] = value
    return A


def nearest(**kw):
    args = {"Z_factual": Z[:1], "Z_candidates": Z[1:], "encoder": ENC, **kw}
    return lambda: nearest_counterfactuals(args.pop("Z_factual"), args.pop("Z_candidates"), args.pop("encoder"),
                                           **args)


_MODEL = LogisticRegression().fit(FRAME, [0, 1, 1])


def batch(**kw):
    return lambda: recourse_for_refused(kw.pop("model", _MODEL), kw.pop("X", FRAME), kw.pop("encoder", ENC),
                                        progress=False, **kw)


def exhaustive(**kw):
    return lambda: exhaustive_recourse(kw.pop("model", _MODEL), kw.pop("X", FRAME), kw.pop("encoder", ENC), **kw)


def by_price(prices, **kw):
    return lambda: exhaustive_recourse_by_price(_MODEL, FRAME, ENC, prices, **kw)


def linear(X_=X, coef=(1, 1, 1, 1), intercept=0.0, weights=1.0, **kw):
    return lambda: linear_recourse(X_, list(coef) if isinstance(coef, tuple) else coef, intercept, weights, **kw)


CASES = [
    # ---------------------------------------------------------------- recourse_for_refused (more in test_batch.py)
    ("batch: not a frame", batch(X=Z), TypeError, "X is a ndarray; give a pandas DataFrame"),
    ("batch: threshold 0", batch(threshold=0), ValueError, "threshold=0 is reached by everyone"),
    # ---------------------------------------------------------------- exhaustive_recourse (more in test_exhaustive.py)
    ("exhaustive: not a frame", exhaustive(X=Z), TypeError, "X is a ndarray; give a pandas DataFrame"),
    ("exhaustive: grid too large", exhaustive(max_grid=1), ValueError, "max_grid=1: the grid .* raise max_grid"),
    ("exhaustive: max_grid 0", exhaustive(max_grid=0), ValueError, "max_grid"),
    ("exhaustive: a column advice may not change", exhaustive(columns=["nope"]), ValueError,
     "names \\['nope'\\], which advice may not change or no spec describes; give features among"),
    ("exhaustive: a weight names no feature", exhaustive(weights={"salary": 1.0}), ValueError,
     "weights names an unknown feature 'salary'"),
    ("by price: not a mapping", by_price([None]), TypeError, r"prices=\[None\]: give a non-empty mapping"),
    ("by price: a price is a number", by_price({"x2": 2.0}), TypeError, r"prices\['x2'\]=2.0: give a mapping"),
    ("by price: a negative weight", by_price({"x": {"debt": -1}}), ValueError,
     r"prices\['x'\]: weights\['debt'\]=-1.0 must be finite and >= 0"),
    ("by price: threshold 0", by_price({"x": None}, threshold=0), ValueError, "threshold=0 is reached by everyone"),
    ("batch: NaN threshold", batch(threshold=float("nan")), ValueError, "threshold"),
    ("batch: infinite threshold", batch(threshold=float("inf")), ValueError, "threshold"),
    ("batch: unknown favourable", batch(favourable=2), ValueError, r"favourable=2 is not among model's classes"),
    ("batch: no encoder", batch(encoder=None), TypeError, "encoder must be a fitted recourselab Encoder"),
    # ---------------------------------------------------------------- nearest_counterfactuals
    ("nearest: too many neighbours", nearest(Z_factual=Z, Z_candidates=Z[:2], n_neighbors=3), ValueError,
     "n_neighbors=3 must lie between 1 and the 2 candidates"),
    ("nearest: fractional neighbours", nearest(n_neighbors=1.5), TypeError, r"n_neighbors=1.5 must be an integer"),
    ("nearest: bool neighbours", nearest(n_neighbors=True), TypeError, "n_neighbors=True must be an integer"),
    ("nearest: string neighbours", nearest(n_neighbors="2"), TypeError, "n_neighbors='2' must be an integer"),
    ("nearest: unknown norm", nearest(Z_factual=Z[:0], norm="max"), ValueError, r"norm='max' is not one of"),
    ("nearest: empty candidates", nearest(Z_candidates=Z[:0]), ValueError, "Z_candidates is empty"),
    ("nearest: no encoder", nearest(encoder=None), TypeError, "encoder must be a fitted recourselab Encoder"),
    ("nearest: wrong width", nearest(Z_factual=Z[:, :2]), ValueError, r"Z_factual has shape \(3, 2\)"),
    ("nearest: infinite row", nearest(Z_factual=with_nan(Z, np.inf)), ValueError,
     r"Z_factual has infinite values \(first in encoded column 1, row 1\)"),
    ("nearest: NaN candidate", nearest(Z_candidates=with_nan(Z)), ValueError,
     r"Z_candidates has missing values \(first in encoded column 1, row 1\)"),
    ("nearest: strings", nearest(Z_factual=[["a", "b", "c"]]), TypeError, "Z_factual must be a numeric array"),
    ("nearest: None rows", nearest(Z_candidates=None), TypeError, "Z_candidates=None; give encoded rows"),
    ("nearest: frame with other columns", nearest(Z_factual=pd.DataFrame(Z, columns=["a", "b", "c"])),
     ValueError, r"Z_factual has columns that do not match .* missing \['age', 'debt', 'savings'\]"),
    ("nearest: actionable is a string", nearest(actionable="False"), TypeError,
     "actionable='False' must be True or False"),
    ("nearest: feasible_only is a number", nearest(feasible_only=0), TypeError,
     "feasible_only=0 must be True or False"),
    ("nearest: unknown weight", nearest(weights={"height": 1.0}), ValueError, "weights names an unknown feature"),
    ("nearest: negative weight", nearest(weights={"age": -1.0}), ValueError, r"weights\['age'\]=-1.0 must be"),
    # ---------------------------------------------------------------- describe_changes
    ("describe: two rows", lambda: describe_changes(ENC, Z[:2], Z[1]), ValueError,
     "describe_changes takes one row each; got 2 and 1 rows"),
    ("describe: wrong width", lambda: describe_changes(ENC, Z[0, :2], Z[1]), ValueError,
     r"z_from has shape \(1, 2\)"),
    ("describe: NaN", lambda: describe_changes(ENC, Z[0], with_nan(Z)[1]), ValueError, "z_to has missing values"),
    ("describe: strings", lambda: describe_changes(ENC, ["a", "b", "c"], Z[1]), TypeError,
     "z_from must be a numeric array"),
    ("describe: no encoder", lambda: describe_changes("encoder", Z[0], Z[1]), TypeError,
     "encoder must be a fitted recourselab Encoder"),
    ("describe: series with other labels", lambda: describe_changes(ENC, pd.Series(Z[0], index=["a", "b", "c"]), Z[1]),
     ValueError, r"z_from has columns that do not match .* unexpected \['a', 'b', 'c'\]"),
    # ---------------------------------------------------------------- recourse_by_group
    ("by group: missing label", lambda: recourse_by_group([1.0, 2.0, 3.0], ["a", None, "b"]), ValueError,
     r"groups has missing labels \(None or NaN; first at position 1;"),
    ("by group: NaN label in an array", lambda: recourse_by_group([1.0, 2.0], np.array([np.nan, 1.0])), ValueError,
     "groups has missing labels"),
    ("by group: NaN label in a list", lambda: recourse_by_group([1.0, 2.0], ["a", np.nan]), ValueError,
     r"groups has missing labels \(None or NaN; first at position 1"),
    ("by group: 1 and '1'", lambda: recourse_by_group([1.0, 2.0], [1, "1"]), ValueError,
     "groups mixes strings and other values"),
    ("by group: negative cost", lambda: recourse_by_group([1.0, -np.inf], ["a", "b"]), ValueError,
     r"cost has negative values \(first at position 1\)"),
    ("by group: NaN cost", lambda: recourse_by_group([np.nan], ["a"]), ValueError,
     r"cost has NaN values \(first at position 0\); use inf for 'no recourse'"),
    ("by group: lengths", lambda: recourse_by_group([1.0], ["a", "b"]), ValueError,
     r"groups has shape \(2,\); give one label per individual \(1\)"),
    ("by group: empty", lambda: recourse_by_group([], []), ValueError, "cost is empty"),
    ("by group: string costs", lambda: recourse_by_group(["1", "2"], ["a", "b"]), TypeError,
     r"cost holds strings"),
    ("by group: 2-d costs", lambda: recourse_by_group([[1.0, 2.0]], ["a", "b"]), ValueError,
     r"cost has shape \(1, 2\); give a 1-d array"),
    ("by group: None groups", lambda: recourse_by_group([1.0], None), TypeError, "groups=None; give one group label"),
    ("by group: misaligned Series", lambda: recourse_by_group(pd.Series([1.0, 2.0], index=[0, 1]),
                                                               pd.Series(["a", "b"], index=[1, 0])),
     ValueError, "groups has a different index from cost"),
    # ---------------------------------------------------------------- coverage_by_group
    ("coverage: NaN cost", lambda: coverage_by_group([1.0, np.nan], ["a", "b"], [1.0]), ValueError,
     "cost has NaN values .*; use inf for 'no recourse'"),
    ("coverage: negative cost", lambda: coverage_by_group([1.0, -0.5], ["a", "b"], [1.0]), ValueError,
     "cost has negative values"),
    ("coverage: missing label", lambda: coverage_by_group([1.0, 2.0], [None, "b"], [1.0]), ValueError,
     r"groups has missing labels \(None or NaN; first at position 0;"),
    ("coverage: NaN label in a list", lambda: coverage_by_group([1.0, 2.0], [float("nan"), "b"], [1.0]), ValueError,
     "groups has missing labels"),
    ("coverage: 1 and '1'", lambda: coverage_by_group([1.0, 2.0], ["1", 1], [1.0]), ValueError,
     "groups mixes strings and other values"),
    ("coverage: lengths", lambda: coverage_by_group([1.0, 2.0], ["a"], [1.0]), ValueError,
     r"groups has shape \(1,\); give one label per individual \(2\)"),
    ("coverage: misaligned Series", lambda: coverage_by_group(pd.Series([1.0, 2.0], index=["x", "y"]),
                                                               pd.Series(["a", "b"], index=["y", "x"]), [1.0]),
     ValueError, r"groups has a different index from cost .* groups.loc\[cost.index\]"),
    ("coverage: NaN budget", lambda: coverage_by_group([1.0], ["a"], [0.5, np.nan]), ValueError,
     r"budgets\[1\]=nan is missing \(NaN\)"),
    ("coverage: negative budget", lambda: coverage_by_group([1.0], ["a"], [-1.0, 2.0]), ValueError,
     r"budgets\[0\]=-1.0 is below 0"),
    ("coverage: empty budgets", lambda: coverage_by_group([1.0], ["a"], []), ValueError, "budgets is empty"),
    ("coverage: 2-d budgets", lambda: coverage_by_group([1.0], ["a"], [[1.0, 2.0]]), ValueError,
     r"budgets has shape \(1, 2\); give a 1-d array"),
    ("coverage: string budgets", lambda: coverage_by_group([1.0], ["a"], ["1", "2"]), TypeError,
     "budgets holds strings"),
    ("coverage: one string budget", lambda: coverage_by_group([1.0], ["a"], "high"), TypeError,
     "budgets='high'; give numbers"),
    ("coverage: None budgets", lambda: coverage_by_group([1.0], ["a"], None), TypeError, "budgets=None; give numbers"),
    ("coverage: boolean budgets", lambda: coverage_by_group([1.0], ["a"], [True, False]), TypeError,
     r"budgets must be numbers \(got booleans\)"),
    ("coverage: string costs", lambda: coverage_by_group(["x"], ["a"], [1.0]), TypeError, "cost holds strings"),
    # ---------------------------------------------------------------- linear_recourse
    ("linear: coef length", linear(coef=(1, 2, 3)), ValueError, "coef has 3 entries but X has 4 columns"),
    ("linear: zero weight", linear(weights=[1, 0, 1, 1]), ValueError, r"weights\[1\] = 0 on a mutable feature"),
    ("linear: negative weight", linear(weights=[-1, 1, 1, 1]), ValueError,
     r"weights\[0\] = -1 \('x0'\); recourse weights must be >= 0"),
    ("linear: NaN weight", linear(weights=[np.nan, 1, 1, 1]), ValueError, r"weights\[0\] = nan"),
    ("linear: string weights", linear(weights=["a", 1, 1, 1]), TypeError, "weights must be numbers"),
    ("linear: all immutable", linear(immutable=[0, 1, 2, 3]), ValueError, "every feature is immutable"),
    ("linear: NaN in X", linear(X_=np.array([[1.0, 2.0, np.nan, 4.0]])), ValueError,
     "column 'x2' of X has missing values"),
    ("linear: inf in X", linear(X_=np.array([[1.0, 2.0, np.inf, 4.0]])), ValueError,
     "column 'x2' of X has an infinite value"),
    ("linear: NaN in a frame", linear(X_=pd.DataFrame({"a": [1.0], "b": [np.nan]}), coef=(1, 1)), ValueError,
     "column 'b' of X has missing values"),
    ("linear: text column", linear(X_=pd.DataFrame({"a": [1.0], "b": ["x"]}), coef=(1, 1)), TypeError,
     "column 'b' of X has dtype"),
    ("linear: strings", linear(X_=[["a", "b", "c", "d"]]), TypeError, "X must be a 2-d numeric array"),
    ("linear: None", linear(X_=None), ValueError, r"X has shape \(\); give a 2-d table"),
    ("linear: empty", linear(X_=np.zeros((0, 4))), ValueError, r"X has shape \(0, 4\); give at least one row"),
    ("linear: 1-d X", linear(X_=np.zeros(4)), ValueError, r"X has shape \(4,\); give a 2-d table"),
    ("linear: NaN coef", linear(coef=(1, np.nan, 1, 1)), ValueError, "coef=.* must be finite"),
    ("linear: string intercept", linear(intercept="0"), TypeError, "intercept='0' must be a number"),
    ("linear: NaN intercept", linear(intercept=np.nan), ValueError, "intercept=nan must be finite"),
    ("linear: steps without the MIP", linear(steps=0.1), ValueError, "steps are only used by method='mip'"),
    ("linear: zero steps", linear(steps=0.0, method="mip"), ValueError, r"steps\[0\] = 0 for 'x0'; steps must be > 0"),
    ("linear: unknown method", linear(method="greedy"), ValueError, r"method='greedy' is not one of"),
    ("linear: bad time limit", linear(time_limit=0, method="mip"), ValueError,
     "time_limit=0 must be a positive number of seconds"),
    ("linear: unknown immutable", linear(immutable=["age"]), ValueError, "immutable names 'age'"),
    ("linear: unknown bound", linear(bounds={"age": (0, 1)}), ValueError, "bounds names 'age'"),
    ("linear: crossed bounds", linear(bounds={"x0": (2, 1)}), ValueError,
     r"bounds for column 'x0' have lower 2.0 > upper 1.0"),
    ("linear: actionable without an encoder", linear(actionable=True), ValueError,
     "actionable=True needs the encoder"),
    ("linear: actionable is a string", linear(actionable="yes"), TypeError, "actionable='yes' must be True or False"),
    ("linear: encoder width", lambda: linear_recourse(Z[:, :2], [1, 1], 0.0, encoder=ENC), ValueError,
     "X has 2 columns but the encoder produces 3 encoded columns"),
    ("linear: encoder columns", lambda: linear_recourse(pd.DataFrame(Z, columns=["c0", "c1", "c2"]), [1, 1, 1], 0.0,
                                                        encoder=ENC), ValueError,
     "are not the encoder's encoded columns"),
    ("linear: not an encoder", lambda: linear_recourse(Z, [1, 1, 1], 0.0, encoder="enc"), TypeError,
     "encoder must be a fitted recourselab Encoder"),
    ("linear: fractional level steps", lambda: linear_recourse(Z, [1, 1, 1], -5.0, encoder=ENC, method="mip",
                                                               steps=[np.nan, np.nan, 0.3]), ValueError,
     r"steps\[2\] = 0.3 for the discrete column 'savings'; it must be a whole number of its steps"),
    ("mad: no spread", lambda: mad_l1_cost(pd.DataFrame({"n": [0, 0, 0, 1]}), {"n": 0}, {"n": 1}), ValueError,
     r"features \['n'\] have a median absolute deviation of 0"),
    ("mad: other features", lambda: mad_l1_cost(FRAME, {"age": 30}, {"debt": 1.0}), ValueError,
     "must name the same features"),
    ("mad: not a frame", lambda: mad_l1_cost(FRAME.to_numpy(), {"age": 30}, {"age": 31}), TypeError,
     "reference must be a DataFrame"),
    ("mad: not a mapping", lambda: mad_l1_cost(FRAME, [30], [31]), TypeError, "x and x_new must be mappings"),
    ("mad: NaN in x_new", lambda: mad_l1_cost(FRAME, {"age": 30}, {"age": float("nan")}), ValueError, "x_new"),
    ("percentile: inf in x", lambda: percentile_shift_cost(FRAME, {"age": float("inf")}, {"age": 31}), ValueError,
     "x"),
    ("mad: NaN in reference", lambda: mad_l1_cost(FRAME.assign(age=np.nan), {"age": 30}, {"age": 31}), ValueError,
     "reference"),
    ("percentile: unknown feature", lambda: percentile_shift_cost(FRAME, {"income": 1}, {"income": 2}),
     ValueError, r"features \['income'\] are not columns of reference"),
    ("percentile: not numeric", lambda: percentile_shift_cost(FRAME.assign(s="a"), {"s": "a"}, {"s": "b"}),
     ValueError, "feature 's' is not numeric"),
]


@pytest.mark.parametrize("call, error, message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_gets_the_packages_own_message(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_table_covers_every_public_function():
    import recourselab.counterfactuals as package

    functions = {name for name in package.__all__ if callable(getattr(package, name)) and name[0].islower()}
    covered = {c[0].split(":")[0] for c in CASES}
    assert {"nearest", "describe", "by group", "coverage", "linear", "mad", "percentile", "batch",
            "exhaustive", "by price"} == covered
    assert functions == {"nearest_counterfactuals", "describe_changes", "recourse_by_group", "coverage_by_group",
                         "linear_recourse", "mad_l1_cost", "percentile_shift_cost", "recourse_for_refused",
                         "exhaustive_recourse", "exhaustive_recourse_by_price"}

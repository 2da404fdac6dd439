"""Bad input to every public function of recourselab.situation_testing: one table.

Each row: the call, the error type and a regex of the package's own message (wrong type:
TypeError; wrong value: ValueError; the message names the argument and the value).
"""

import numpy as np
import pandas as pd
import pytest

from recourselab.situation_testing import (
    build_groups,
    counterfactual_fairness,
    situation_distance_transform,
    situation_testing,
    wald_ci,
)

X6 = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5]})
P6 = np.array([1, 1, 1, 0, 0, 0])
Y6 = np.array([0, 1, 0, 1, 0, 1])
XJ = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5], "job": list("uvuvuv")})
LETTERS = list("abcdef")


def st_(**changes):
    """situation_testing on the six-row table with ``changes`` to its arguments."""
    args = dict(X=X6, protected=P6, y_hat=Y6, k=1)
    args.update(changes)
    return lambda: situation_testing(**args)


def bg(**changes):
    """build_groups on the six-row table with ``changes`` to its arguments."""
    args = dict(X=X6, protected=P6, k=1)
    args.update(changes)
    return lambda: build_groups(**args)


def tr(X=X6, X_cf=None, **kwargs):
    return lambda: situation_distance_transform(X, X_cf, **kwargs)


def with_value(frame, column, row, value):
    frame = frame.copy()
    frame[column] = frame[column].astype(object) if isinstance(value, str) else frame[column]
    frame.loc[frame.index[row], column] = value
    return frame


CASES = [
    # ------------------------------------------------------------------ situation_testing: the spaces and k
    (st_(protected=np.ones(6)), ValueError, r"protected has a single value \(all rows protected\)"),
    (st_(protected=np.zeros(6)), ValueError, r"protected has a single value \(no rows protected\)"),
    (st_(k=3), ValueError, r"k=3 is larger than the control search space: 3 protected rows"),
    (st_(protected=[1, 1, 1, 1, 0, 0], k=3), ValueError, r"k=3 is larger than the test search space"),
    (st_(k=0), ValueError, r"k=0 must be at least 1"),
    (st_(k=-2), ValueError, r"k=-2 must be at least 1"),
    (st_(k=2.0), TypeError, r"k=2.0 must be an integer, not float \(fractional values are not rounded\)"),
    (st_(k="2"), TypeError, r"k='2' must be an integer, not str"),
    (st_(k=None), TypeError, r"k=None must be an integer"),
    (st_(k=True), TypeError, r"k=True must be an integer, not bool"),
    # ------------------------------------------------------------------ situation_testing: X and X_cf
    (st_(X=X6.iloc[:0], protected=np.zeros(0, bool), y_hat=np.zeros(0, int)), ValueError, r"X has 0 rows"),
    (st_(X=None), TypeError, r"X=None; give a table of attributes"),
    (st_(X="table"), TypeError, r"X='table'; give a table of attributes"),
    (st_(X=np.arange(6.0)), ValueError, r"X has shape \(6,\); give a 2-d table"),
    (st_(X=X6[[]]), ValueError, r"X has no columns"),
    (st_(X=with_value(X6, "a", 0, np.nan)), ValueError, r"X\['a'\]\[0\]=nan is missing \(NaN\)"),
    (st_(X=with_value(X6, "a", 2, np.inf)), ValueError, r"X\['a'\]\[2\]=inf is infinite"),
    (st_(X=with_value(XJ, "job", 1, None)), ValueError, r"X\['job'\] has missing values \(first at row 1\)"),
    (st_(X=XJ, categorical=[]), TypeError, r"column 'job' holds non-numbers \(dtype \w+\).*categorical"),
    (st_(categorical=["colour"]), ValueError, r"categorical names columns that X lacks: \['colour'\]"),
    (st_(X_cf=X6.iloc[:5]), ValueError, r"X_cf has shape \(5, 1\) and columns \['a'\], but X has shape \(6, 1\)"),
    (st_(X_cf=np.zeros((6, 2))), ValueError, r"X_cf has shape \(6, 2\).*but X has shape \(6, 1\)"),
    (st_(X_cf=X6.rename(columns={"a": "b"})), ValueError, r"X_cf has shape \(6, 1\) and columns \['b'\]"),
    (st_(X_cf=X6.iloc[::-1]), ValueError, r"X_cf has a different index from X.*X_cf.loc\[X.index\]"),
    (st_(X_cf=with_value(X6, "a", 0, -np.inf)), ValueError, r"X_cf\['a'\]\[0\]=-inf is infinite"),
    (st_(X_cf=with_value(X6, "a", 1, np.nan)), ValueError, r"X_cf\['a'\]\[1\]=nan is missing \(NaN\)"),
    (st_(X_cf=X6.assign(a=list("uvwxyz"))), TypeError, r"column 'a' is numeric in X but not in X_cf"),
    # ------------------------------------------------------------------ situation_testing: masks and decisions
    (st_(protected=np.array([1, None, 1, 0, 0, 0], dtype=object)), ValueError,
     r"protected\[1\] is missing \(None\).*True or 1 = in the protected group"),
    (st_(protected=[1, np.nan, 1, 0, 0, 0]), ValueError, r"protected\[1\] is missing \(nan\)"),
    (st_(protected=None), TypeError, r"protected=None; give one True/False"),
    (st_(protected="women"), TypeError, r"protected='women'; give one True/False"),
    (st_(protected=P6[:5]), ValueError, r"protected has shape \(5,\); give one entry per row \(6\)"),
    (st_(protected=list("wwwmmm")), ValueError, r"protected must be boolean or 0/1 .*found values \['m', 'w'\]"),
    (st_(protected=pd.Series(P6, index=LETTERS)), ValueError, r"protected has a different index from X"),
    (st_(y_hat=[0, 1, 0, 1, 0, None]), ValueError, r"y_hat\[5\] is missing"),
    (st_(y_hat=np.arange(6)), ValueError, r"y_hat must be boolean or 0/1 \(decisions: 1 = favourable, 0 = refused\)"),
    (st_(y_hat=[0, 1, 2, 1, 0, 1]), ValueError, r"y_hat must be boolean or 0/1 \(decisions"),
    (st_(y_hat=list("nynyny")), ValueError, r"y_hat must be boolean or 0/1.*found values \['n', 'y'\]"),
    (st_(y_hat=None), TypeError, r"y_hat=None; give one True/False"),
    (st_(y_hat=Y6[:4]), ValueError, r"y_hat has shape \(4,\); give one entry per row \(6\)"),
    (st_(y_hat=pd.Series(Y6, index=LETTERS)), ValueError, r"y_hat has a different index from X"),
    (st_(y_hat_cf=Y6), ValueError, r"y_hat_cf is given without X_cf"),
    (st_(X_cf=X6, include_centers=True), ValueError, r"include_centers with counterfactuals needs y_hat_cf"),
    (st_(X_cf=X6, y_hat_cf=[None, 1, 0, 1, 0, 1], include_centers=True), ValueError, r"y_hat_cf\[0\] is missing"),
    (st_(X_cf=X6, y_hat_cf=Y6[:5]), ValueError, r"y_hat_cf has shape \(5,\); give one entry per row \(6\)"),
    (st_(X_cf=X6, y_hat_cf=pd.Series(Y6, index=LETTERS)), ValueError, r"y_hat_cf has a different index from X"),
    (st_(reference=[0, 0, 0, 2, 1, 1]), ValueError,
     r"reference must be boolean or 0/1 \(True or 1 = in the reference group\)"),
    (st_(reference=pd.Series(P6 == 0, index=LETTERS)), ValueError, r"reference has a different index from X"),
    (st_(include_centers="yes"), TypeError, r"include_centers='yes' must be True or False"),
    (st_(include_centers=1), TypeError, r"include_centers=1 must be True or False"),
    # ------------------------------------------------------------------ situation_testing: alpha, tau, options
    (st_(tau=float("nan")), ValueError, r"tau=nan must be a finite number"),
    (st_(tau=5), ValueError, r"tau=5 must lie in \[0, 1\).*never exceeds 1"),
    (st_(tau=1.0), ValueError, r"tau=1.0 must lie in \[0, 1\)"),
    (st_(tau=-0.1), ValueError, r"tau=-0.1 must lie in \[0, 1\)"),
    (st_(tau="0"), TypeError, r"tau='0' must be a number"),
    (st_(tau=None), TypeError, r"tau=None must be a number"),
    (st_(alpha=float("inf")), ValueError, r"alpha=inf must be a finite number"),
    (st_(alpha=0), ValueError, r"alpha=0.0 must lie in \(0, 1\)"),
    (st_(alpha=1.5), ValueError, r"alpha=1.5 must lie in \(0, 1\)"),
    (st_(alpha="0.05"), TypeError, r"alpha='0.05' must be a number"),
    (st_(normalize="minmax"), ValueError, r"normalize='minmax' is not one of \('range', 'std'\)"),
    (st_(cf_scaling="refit"), ValueError, r"cf_scaling='refit' re-fits the normalisation.*X_cf is not given"),
    (st_(ties="random"), ValueError, r"ties='random' is not one of \('row', 'bitwise'\)"),
    (st_(n_jobs=0), ValueError, r"n_jobs=0 runs nothing; give None.*a positive integer"),
    (st_(n_jobs=1.5), TypeError, r"n_jobs=1.5 must be an integer"),
    (st_(n_jobs=True), TypeError, r"n_jobs=True must be an integer"),
    (st_(n_jobs="2"), TypeError, r"n_jobs='2' must be an integer"),
    (st_(progress="yes"), TypeError, r"progress='yes' must be True or False"),
    # ------------------------------------------------------------------ build_groups
    (bg(k=1.7), TypeError, r"k=1.7 must be an integer, not float"),
    (bg(k=0), ValueError, r"k=0 must be at least 1"),
    (bg(protected=pd.Series(P6, index=LETTERS)), ValueError, r"protected has a different index from X"),
    (bg(protected=None), TypeError, r"protected=None; give one True/False"),
    (bg(protected=P6[:4]), ValueError, r"protected has shape \(4,\); give one entry per row \(6\)"),
    (bg(reference=[0, 0, 0, 2, 1, 1]), ValueError,
     r"reference must be boolean or 0/1 \(True or 1 = in the reference group\)"),
    (bg(reference=np.zeros(6, dtype=bool)), ValueError, r"reference selects no rows"),
    (bg(reference=P6), ValueError, r"reference and protected overlap"),
    (bg(reference=P6[:3] == 0), ValueError, r"reference has shape \(3,\); give one entry per row \(6\)"),
    (bg(reference=pd.Series(P6 == 0, index=LETTERS)), ValueError, r"reference has a different index from X"),
    (bg(X=np.zeros((6, 1, 1))), ValueError, r"X has shape \(6, 1, 1\); give a 2-d table"),
    (bg(X=None), TypeError, r"X=None; give a table of attributes"),
    (bg(X=with_value(X6, "a", 3, np.nan)), ValueError, r"X\['a'\]\[3\]=nan is missing"),
    (bg(X_cf=np.zeros((6, 3))), ValueError, r"X_cf has shape \(6, 3\)"),
    (bg(X_cf=X6.iloc[::-1]), ValueError, r"X_cf has a different index from X"),
    (bg(X_cf=X6, cf_scaling="own"), ValueError, r"cf_scaling='own' is not one of \('factual', 'refit'\)"),
    (bg(normalize=None), ValueError, r"normalize=None is not one of"),
    (bg(chunk_size=0), ValueError, r"chunk_size=0 must be at least 1"),
    (bg(chunk_size=-5), ValueError, r"chunk_size=-5 must be at least 1"),
    (bg(chunk_size=2.0), TypeError, r"chunk_size=2.0 must be an integer"),
    (bg(chunk_size=False), TypeError, r"chunk_size=False must be an integer"),
    (bg(progress=1), TypeError, r"progress=1 must be True or False"),
    # ------------------------------------------------------------------ situation_distance_transform
    (tr(X6, X6.assign(a=list("uvwxyz"))), TypeError, r"column 'a' is numeric in X but not in X_cf"),
    (tr(normalize=None), ValueError, r"normalize=None is not one of \('range', 'std'\)"),
    (tr(cf_scaling="refit"), ValueError, r"cf_scaling='refit'.*pass X_cf"),
    (tr(cf_scaling=["refit"]), ValueError, r"cf_scaling=\['refit'\] is not one of"),
    (tr(None), TypeError, r"X=None; give a table of attributes"),
    (tr("table"), TypeError, r"X='table'; give a table"),
    (tr(np.arange(3.0)), ValueError, r"X has shape \(3,\); give a 2-d table"),
    (tr(X6.iloc[:0]), ValueError, r"X has 0 rows"),
    (tr(np.zeros((3, 0))), ValueError, r"X has no columns"),
    (tr(with_value(X6, "a", 4, np.nan)), ValueError, r"X\['a'\]\[4\]=nan is missing \(NaN\)"),
    (tr(with_value(X6, "a", 1, -np.inf)), ValueError, r"X\['a'\]\[1\]=-inf is infinite"),
    (tr(with_value(XJ, "job", 2, np.nan)), ValueError, r"X\['job'\] has missing values \(first at row 2\)"),
    (tr(XJ, with_value(XJ, "job", 3, None)), ValueError, r"X_cf\['job'\] has missing values \(first at row 3\)"),
    (tr(XJ, categorical="colour"), ValueError, r"categorical names columns that X lacks: \['colour'\]"),
    (tr(X6, X6.iloc[:4]), ValueError, r"X_cf has shape \(4, 1\).*but X has shape \(6, 1\)"),
    (tr(X6, np.zeros((6, 2))), ValueError, r"X_cf has shape \(6, 2\)"),
    (tr(X6, X6.set_axis(LETTERS)), ValueError, r"X_cf has a different index from X"),
    (tr(X6, "table"), TypeError, r"X_cf='table'; give a table of attributes"),
    # ------------------------------------------------------------------ wald_ci
    (lambda: wald_ci(0.5, np.nan, 10), ValueError, r"p_t=nan is missing \(NaN\)"),
    (lambda: wald_ci(np.inf, 0.5, 10), ValueError, r"p_c=inf is infinite"),
    (lambda: wald_ci(1.5, 0.1, 10), ValueError, r"p_c=1.5 is above 1"),
    (lambda: wald_ci(0.5, -0.1, 10), ValueError, r"p_t=-0.1 is below 0"),
    (lambda: wald_ci([0.5, 1.2], 0.1, 10), ValueError, r"p_c\[1\]=1.2 is above 1"),
    (lambda: wald_ci("0.5", 0.1, 10), TypeError, r"p_c='0.5'; give numbers"),
    (lambda: wald_ci(None, 0.1, 10), TypeError, r"p_c=None; give numbers"),
    (lambda: wald_ci(["a", "b"], 0.1, 10), TypeError, r"p_c holds strings"),
    (lambda: wald_ci([], [], 10), ValueError, r"p_c is empty"),
    (lambda: wald_ci([0.1, 0.2], [0.1, 0.2, 0.3], 10), ValueError, r"p_c, p_t and n have shapes \(2,\), \(3,\)"),
    (lambda: wald_ci(0.5, 0.1, 15.5), ValueError, r"n=15.5 is not a whole number"),
    (lambda: wald_ci(0.5, 0.1, np.inf), ValueError, r"n=inf is infinite"),
    (lambda: wald_ci(0.5, 0.1, 0), ValueError, r"n=0.0 is below 1"),
    (lambda: wald_ci(0.5, 0.1, True), TypeError, r"n holds booleans"),
    (lambda: wald_ci(0.5, 0.1, "16"), TypeError, r"n='16'; give numbers"),
    (lambda: wald_ci(0.5, 0.1, 10, alpha=1.5), ValueError, r"alpha=1.5 must lie in \(0, 1\)"),
    (lambda: wald_ci(0.5, 0.1, 10, alpha=np.nan), ValueError, r"alpha=nan must be a finite number"),
    (lambda: wald_ci(0.5, 0.1, 10, one_sided="no"), TypeError, r"one_sided='no' must be True or False"),
    # ------------------------------------------------------------------ counterfactual_fairness
    (lambda: counterfactual_fairness([0, 1], [0]), ValueError,
     r"y_hat_cf has shape \(1,\); give one entry per row \(2\)"),
    (lambda: counterfactual_fairness([0, 2], [0, 1]), ValueError, r"y_hat must be boolean or 0/1.*found values \[2\]"),
    (lambda: counterfactual_fairness([0, 1], [1, None]), ValueError, r"y_hat_cf\[1\] is missing \(None\)"),
    (lambda: counterfactual_fairness([0, np.nan], [1, 1]), ValueError, r"y_hat\[1\] is missing \(nan\)"),
    (lambda: counterfactual_fairness(["no", "yes"], [0, 1]), ValueError, r"y_hat must be boolean or 0/1"),
    (lambda: counterfactual_fairness(None, [0, 1]), TypeError, r"y_hat=None; give one True/False"),
    (lambda: counterfactual_fairness([], []), ValueError, r"y_hat is empty"),
    (lambda: counterfactual_fairness([[0, 1], [1, 0]], [0, 1]), ValueError, r"y_hat has shape \(2, 2\)"),
    (lambda: counterfactual_fairness(pd.Series([0, 1], index=["a", "b"]), pd.Series([1, 1], index=["b", "a"])),
     ValueError, r"y_hat_cf has a different index from y_hat"),
]


@pytest.mark.parametrize("call, error, message", CASES)
def test_bad_input_gets_the_packages_own_message(call, error, message):
    with pytest.raises(error, match=message):
        call()

"""Bad input to every public function of recourselab.explanation_consistency: one table of (call, error, message).

Each case must get the package's own message (naming the argument, the value and the fix), never an error
from inside numpy, pandas, scikit-learn or jax.
"""

import types

import numpy as np
import pandas as pd
import pytest
from explanation_consistency.cec_cases import small_problem
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from recourselab.explanation_consistency import (
    MLPClassifier,
    attributions_by_feature,
    audit_explanations,
    cec_scores,
    counterfactual_rows,
    cross_validate_methods,
    evaluate_method,
    fit_method,
    ig_quadrature,
    integrated_gradients,
    label_group_baselines,
    label_group_means,
    match_counterfactuals,
    regimes,
)

NAN, INF = float("nan"), float("inf")
X4 = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0], "job": ["a", "b", "a", "b"]})
INCOME = X4[["income"]]
Y4, A4 = [1, 1, 0, 0], ["f", "m", "f", "m"]
LIN = types.SimpleNamespace(coef_=np.ones((1, 2)), intercept_=np.zeros(1))   # a duck-typed linear model
ONES, ZEROS = np.ones((2, 2)), np.zeros(2)
XN, YN, AN = small_problem(40)


@pytest.fixture(scope="module")
def fitted(plain_mlp, german_encoder):
    """A fitted network (the session's, on 3 columns) and logistic regression, a match and the German encoder."""
    return types.SimpleNamespace(mlp=plain_mlp, lr=LogisticRegression().fit(XN, YN),
                                 match=match_counterfactuals(XN, YN, AN, [0]), encoder=german_encoder)


def evaluate(f, **changes):
    kwargs = dict(X_test=XN, y_test=YN, groups_test=AN, X_cf=XN, groups_cf=1 - AN, baselines=XN.mean(axis=0),
                  steps=2)
    kwargs.update(changes)
    return evaluate_method(f.mlp, kwargs.pop("X_test"), kwargs.pop("y_test"), kwargs.pop("groups_test"), **kwargs)


def cross_validate(**changes):
    kwargs = dict(X=XN, y=YN, groups=AN, financial=[0], methods=["unconstrained"])
    kwargs.update(changes)
    return cross_validate_methods(kwargs.pop("X"), kwargs.pop("y"), kwargs.pop("groups"), kwargs.pop("financial"),
                                  **kwargs)


def fit_mlp(X=XN, y=YN, **params):
    fit = {k: params.pop(k) for k in ("sample_weight", "sensitive_features", "X_cf", "baselines") if k in params}
    return MLPClassifier(**dict(dict(hidden_layer_sizes=(2,), epochs=1), **params)).fit(X, y, **fit)


def none_at(values, i):
    out = np.asarray(values, dtype=object).copy()
    out[i] = None
    return out


CASES = [
    # ------------------------------------------------------------------ match_counterfactuals
    ("match: unknown financial", lambda f: match_counterfactuals(X4, Y4, A4, ["salary"]), ValueError,
     r"financial feature\(s\) \['salary'\] are not columns of X"),
    ("match: text financial", lambda f: match_counterfactuals(X4, Y4, A4, ["job"]), TypeError,
     r"X has non-numeric columns \['job'\]; encode them"),
    ("match: empty stratum", lambda f: match_counterfactuals(X4, [1, 0, 1, 0], A4, ["income"]), ValueError,
     r"a group with no rows for a label.*y=1.*groups='m'"),
    ("match: pool alone", lambda f: match_counterfactuals(X4, Y4, A4, ["income"], X_pool=X4), ValueError,
     "give X_pool, y_pool and groups_pool together"),
    ("match: pool stratum", lambda f: match_counterfactuals(X4, Y4, A4, ["income"], X_pool=X4, y_pool=[1, 0, 0, 0],
                                                            groups_pool=A4), ValueError,
     "the pool has no rows with label y=1 in group groups_pool='m'"),
    ("match: three groups", lambda f: match_counterfactuals(X4, Y4, ["f", "m", "x", "m"], ["income"]), ValueError,
     r"groups must have exactly two values.*found 3"),
    ("match: tau negative", lambda f: match_counterfactuals(X4, Y4, A4, ["income"], tau=-1), ValueError,
     "tau=-1 must be >= 0"),
    ("match: tau nan", lambda f: match_counterfactuals(X4, Y4, A4, ["income"], tau=NAN), ValueError,
     "tau=nan must be a finite number"),
    ("match: tau text", lambda f: match_counterfactuals(X4, Y4, A4, ["income"], tau="1"), TypeError,
     "tau='1' must be a number"),
    ("match: inf financial", lambda f: match_counterfactuals(pd.DataFrame({"income": [1.0, 2, -INF, 4]}), Y4, A4,
                                                             ["income"]), ValueError,
     r"column 'income' of X has infinite values \(first in row 2"),
    ("match: NaN financial", lambda f: match_counterfactuals(np.array([[1.0], [NAN], [2], [3]]), Y4, A4, [0]),
     ValueError, r"column 0 of X has missing values \(NaN\) \(first in row 1"),
    ("match: repeated name", lambda f: match_counterfactuals(INCOME, Y4, A4, ["income", "income"]), ValueError,
     r"financial names \['income'\] more than once"),
    ("match: repeated position", lambda f: match_counterfactuals(ONES, [1, 1], [0, 1], [0, 0]), ValueError,
     r"financial=\[0, 0\] names a column more than once"),
    ("match: fractional position", lambda f: match_counterfactuals(np.ones((4, 2)), Y4, A4, [0.0]), TypeError,
     r"financial=\[0.0\] must be column positions"),
    ("match: position out of range", lambda f: match_counterfactuals(np.ones((4, 2)), Y4, A4, [2]), ValueError,
     r"column positions \[2\] outside 0..1 of X"),
    ("match: no financial", lambda f: match_counterfactuals(INCOME, Y4, A4, []), ValueError, "financial is empty"),
    ("match: financial None", lambda f: match_counterfactuals(INCOME, Y4, A4, None), TypeError, "financial=None"),
    ("match: None group", lambda f: match_counterfactuals(INCOME, Y4, ["f", "m", None, "m"], ["income"]), ValueError,
     r"groups has missing labels \(None or NaN; first at position 2"),
    ("match: NaN label", lambda f: match_counterfactuals(INCOME, [1, NAN, 1, 1], A4, ["income"]), ValueError,
     r"y has missing labels \(None or NaN; first at position 1"),
    ("match: mixed groups", lambda f: match_counterfactuals(INCOME, Y4, ["1", 1, "1", 1], ["income"]), ValueError,
     "groups mixes strings and other values"),
    ("match: labels too short", lambda f: match_counterfactuals(INCOME, [1, 1, 1], A4, ["income"]), ValueError,
     r"y has shape \(3,\); give one label per row \(4\)"),
    ("match: pool labels too short", lambda f: match_counterfactuals(
        INCOME, Y4, A4, ["income"], X_pool=INCOME, y_pool=[1, 1, 1], groups_pool=A4), ValueError,
     r"y_pool has shape \(3,\); give one label per row \(4\)"),
    ("match: misaligned Series", lambda f: match_counterfactuals(INCOME, pd.Series(Y4, index=[3, 2, 1, 0]), A4,
                                                                 ["income"]), ValueError,
     "y has a different index from X"),
    ("match: text table", lambda f: match_counterfactuals(np.array([["a"], ["b"]]), [1, 1], [0, 1], [0]), TypeError,
     r"X has non-numeric columns \[0\]"),
    ("match: empty", lambda f: match_counterfactuals(np.zeros((0, 2)), [], [], [0]), ValueError, "X is empty"),
    ("match: 1-d table", lambda f: match_counterfactuals(np.ones(4), Y4, A4, [0]), ValueError,
     r"X has shape \(4,\); give a 2-d table"),
    # ------------------------------------------------------------------ counterfactual_rows
    ("rows: not a match", lambda f: counterfactual_rows("match", XN), TypeError, "match must be a MatchResult"),
    ("rows: another pool", lambda f: counterfactual_rows(f.match, XN[:10]), ValueError,
     "X_pool has 10 rows but the match was made against a pool of 40"),
    ("rows: NaN pool", lambda f: counterfactual_rows(f.match, np.full((40, 3), NAN)), ValueError,
     r"X_pool\[0, 0\]=nan is missing"),
    ("rows: text pool", lambda f: counterfactual_rows(f.match, X4), TypeError, r"X_pool has non-numeric columns"),
    ("rows: misnamed pool", lambda f: counterfactual_rows(f.match, pd.DataFrame(XN, columns=list("abc")),
                                                          columns=list("abd")), ValueError,
     r"X_pool has columns that do not match the 3 expected: missing \['d'\], unexpected \['c'\]"),
    # ------------------------------------------------------------------ label_group_means / baselines
    ("means: empty cell", lambda f: label_group_means(INCOME, [1, 0, 1, 0], A4), ValueError,
     "a group with no rows for a label"),
    ("means: None label", lambda f: label_group_means(np.ones((4, 1)), [None, 1, 0, 0], A4), ValueError,
     r"y has missing labels \(None or NaN; first at position 0"),
    ("means: text", lambda f: label_group_means(X4, Y4, A4), TypeError, r"X has non-numeric columns \['job'\]"),
    ("means: NaN", lambda f: label_group_means(pd.DataFrame({"u": [1.0, NAN, 1, 1]}), Y4, A4), ValueError,
     r"column 'u' of X has missing values"),
    ("means: empty", lambda f: label_group_means(np.zeros((0, 1)), [], []), ValueError, "X is empty"),
    ("means: groups too long", lambda f: label_group_means(INCOME, Y4, A4 + ["f"]), ValueError,
     r"groups has shape \(5,\); give one label per row \(4\)"),
    ("baselines: fit alone", lambda f: label_group_baselines(INCOME, Y4, A4, y_fit=Y4), ValueError,
     "give X_fit, y_fit and groups_fit together"),
    ("baselines: one group", lambda f: label_group_baselines(INCOME, Y4, ["f"] * 4), ValueError,
     "exactly two values"),
    ("baselines: fit width", lambda f: label_group_baselines(XN, YN, AN, X_fit=XN[:, :2], y_fit=YN, groups_fit=AN),
     ValueError, "X_fit has 2 columns but X has 3"),
    ("baselines: fit misnamed", lambda f: label_group_baselines(INCOME, Y4, A4, X_fit=INCOME.set_axis(["debt"],
                                                                axis=1), y_fit=Y4, groups_fit=A4), ValueError,
     r"X_fit has columns that do not match the 1 expected: missing \['income'\]"),
    ("baselines: unseen group", lambda f: label_group_baselines(INCOME, Y4, ["f", "m", "x", "m"], X_fit=INCOME,
                                                                y_fit=Y4, groups_fit=A4), ValueError,
     r"groups\[2\]='x' is not one of the two groups \['f', 'm'\] of groups_fit"),
    # ------------------------------------------------------------------ ig_quadrature
    ("quadrature: rule", lambda f: ig_quadrature(8, "simpson"), ValueError,
     r"rule='simpson' is not a quadrature rule; use one of"),
    ("quadrature: trapezoid", lambda f: ig_quadrature(1, "trapezoid"), ValueError,
     "steps=1 is too few for the trapezoid rule"),
    ("quadrature: whole float", lambda f: ig_quadrature(2.0), TypeError, r"steps=2.0 must be an integer"),
    ("quadrature: zero", lambda f: ig_quadrature(0), ValueError, "steps=0 must be at least 1"),
    ("quadrature: text", lambda f: ig_quadrature("8"), TypeError, "steps='8' must be an integer"),
    # ------------------------------------------------------------------ integrated_gradients
    ("ig: steps 0", lambda f: integrated_gradients(LIN, ONES, ZEROS, steps=0), ValueError,
     "steps=0 must be at least 1"),
    ("ig: fractional steps", lambda f: integrated_gradients(LIN, ONES, ZEROS, steps=2.5), TypeError,
     "steps=2.5 must be an integer"),
    ("ig: rule None", lambda f: integrated_gradients(LIN, ONES, ZEROS, rule=None), ValueError,
     "rule=None is not a quadrature rule"),
    ("ig: baselines shape", lambda f: integrated_gradients(LIN, ONES, np.zeros(3)), ValueError,
     r"baselines has shape \(3,\)"),
    ("ig: baselines NaN", lambda f: integrated_gradients(LIN, ONES, [0.0, NAN]), ValueError,
     r"baselines\[1\]=nan is missing"),
    ("ig: baselines text", lambda f: integrated_gradients(LIN, ONES, ["a", "b"]), TypeError,
     "baselines holds strings"),
    ("ig: X text", lambda f: integrated_gradients(LIN, [["a", "b"]], ZEROS), TypeError, "X holds strings"),
    ("ig: X empty", lambda f: integrated_gradients(LIN, np.zeros((0, 2)), ZEROS), ValueError, "X is empty"),
    ("ig: X inf names the column", lambda f: integrated_gradients(
        LIN, pd.DataFrame({"income": [1.0, INF], "debt": [0.0, 1.0]}), ZEROS), ValueError,
     r"column 'income' of X has infinite values \(first in row 1"),
    ("ig: X NaN", lambda f: integrated_gradients(LIN, [[1.0, NAN]], ZEROS), ValueError, r"X\[0, 1\]=nan is missing"),
    ("ig: width vs coef", lambda f: integrated_gradients(LIN, np.ones((2, 3)), np.zeros(3)), ValueError,
     "X has 3 columns but the model's coef_ has 2"),
    ("ig: width vs network", lambda f: integrated_gradients(f.mlp, ONES, ZEROS), ValueError,
     "X has 2 columns but the model was fitted on 3"),
    ("ig: autodiff of a forest", lambda f: integrated_gradients(
        __import__("sklearn.ensemble", fromlist=["x"]).RandomForestClassifier(n_estimators=2).fit(np.eye(2), [0, 1]),
        ONES, ZEROS, method="autodiff"), TypeError,
     r"cannot differentiate a RandomForestClassifier.*method='finite-difference'"),
    ("ig: not a model", lambda f: integrated_gradients("model", ONES, ZEROS), TypeError, "cannot explain a str"),
    ("ig: unfitted", lambda f: integrated_gradients(LogisticRegression(), ONES, ZEROS), NotFittedError,
     "the LogisticRegression is not fitted; fit it before explaining it"),
    ("ig: unfitted network", lambda f: integrated_gradients(MLPClassifier(), ONES, ZEROS), NotFittedError,
     "the MLPClassifier is not fitted"),
    ("ig: favourable absent", lambda f: integrated_gradients(f.lr, XN[:2], XN[0], favourable=2), ValueError,
     r"favourable=2 is not among model's classes \[0, 1\]"),
    ("ig: favourable of a function", lambda f: integrated_gradients(lambda Z: Z.sum(axis=1), ONES, ZEROS,
                                                                    favourable=0), ValueError,
     "favourable=0 cannot be applied to a function f"),
    ("ig: misnamed frame", lambda f: integrated_gradients(
        LogisticRegression().fit(pd.DataFrame(XN, columns=list("abc")), YN), pd.DataFrame(XN, columns=list("abd")),
        XN[0]), ValueError, r"X has columns that do not match the 3 expected: missing \['c'\], unexpected \['d'\]"),
    ("ig: misaligned baselines", lambda f: integrated_gradients(LIN, pd.DataFrame(ONES), pd.DataFrame(
        ONES, index=[5, 6])), ValueError, "baselines has a different index from X"),
    # ------------------------------------------------------------------ attributions_by_feature
    ("by feature: width", lambda f: attributions_by_feature(np.ones((2, 3)), f.encoder), ValueError,
     r"attributions has 3 columns but \d+ column names are given"),
    ("by feature: unknown column", lambda f: attributions_by_feature(np.ones((2, 1)), f.encoder, columns=["salary"]),
     ValueError, r"columns \['salary'\] are not columns of the encoder"),
    ("by feature: NaN", lambda f: attributions_by_feature(np.full((1, 34), NAN), f.encoder), ValueError,
     r"attributions\[0, 0\]=nan is missing"),
    ("by feature: text", lambda f: attributions_by_feature([["a"]], f.encoder), TypeError,
     "attributions holds strings"),
    ("by feature: empty", lambda f: attributions_by_feature(np.zeros((0, 34)), f.encoder), ValueError,
     "attributions is empty"),
    ("by feature: no encoder", lambda f: attributions_by_feature(np.ones((1, 34)), None), TypeError,
     "encoder must be a fitted recourselab Encoder"),
    ("by feature: one string", lambda f: attributions_by_feature(np.ones((1, 1)), f.encoder, columns="age"),
     TypeError, "columns='age' must be a list"),
    # ------------------------------------------------------------------ cec_scores
    ("cec: partner shape", lambda f: cec_scores(LIN, ONES, np.ones((3, 2)), ZEROS), ValueError,
     r"X_cf has shape \(3, 2\) but X has shape \(2, 2\)"),
    ("cec: unmatched partner", lambda f: cec_scores(LIN, ONES, [[1.0, 1.0], [NAN, NAN]], ZEROS), ValueError,
     r"unmatched \(NaN\).*match.matched"),
    ("cec: partly missing partner", lambda f: cec_scores(LIN, ONES, [[1.0, NAN], [1.0, 1.0]], ZEROS), ValueError,
     "row 0 of X_cf is partly missing"),
    ("cec: text partner", lambda f: cec_scores(LIN, ONES, [["a", "b"], ["c", "d"]], ZEROS), TypeError,
     "X_cf holds strings"),
    ("cec: inf partner", lambda f: cec_scores(LIN, ONES, [[1.0, INF], [1.0, 1.0]], ZEROS), ValueError,
     r"X_cf\[0, 1\]=inf is infinite"),
    ("cec: method", lambda f: cec_scores(LIN, ONES, ONES, ZEROS, method="numeric"), ValueError,
     r"method='numeric' is not one of \('auto', 'autodiff', 'finite-difference'\)"),
    ("cec: empty", lambda f: cec_scores(LIN, np.zeros((0, 2)), np.zeros((0, 2)), ZEROS), ValueError, "X is empty"),
    ("cec: misaligned partners", lambda f: cec_scores(LIN, pd.DataFrame(ONES), pd.DataFrame(ONES, index=[7, 8]),
                                                      ZEROS), ValueError, "X_cf has a different index from X"),
    ("cec: misnamed partners", lambda f: cec_scores(LIN, pd.DataFrame(ONES, columns=["u", "v"]), pd.DataFrame(
        ONES, columns=["u", "w"]), ZEROS), ValueError, r"X_cf has columns that do not match the 2 expected"),
    # ------------------------------------------------------------------ regimes
    ("regimes: threshold", lambda f: regimes([0.1], [1], [1], threshold=1.5), ValueError, "threshold=1.5"),
    ("regimes: threshold nan", lambda f: regimes([0.1], [1], [1], threshold=NAN), ValueError,
     r"threshold=nan must lie in \[0, 1\]"),
    ("regimes: threshold text", lambda f: regimes([0.1], [1], [1], threshold="low"), ValueError,
     r"threshold='low' must lie in \[0, 1\]"),
    ("regimes: score inf", lambda f: regimes([INF], [1], [1]), ValueError, r"score\[0\]=inf is infinite"),
    ("regimes: score above 1", lambda f: regimes([1.5], [1], [1]), ValueError, r"score\[0\]=1.5 is above 1"),
    ("regimes: score below 0", lambda f: regimes([-0.1], [1], [1]), ValueError, r"score\[0\]=-0.1 is below 0"),
    ("regimes: score text", lambda f: regimes(["high"], [1], [1]), TypeError, "score holds strings"),
    ("regimes: empty", lambda f: regimes([], [], []), ValueError, "score is empty"),
    ("regimes: lengths", lambda f: regimes([0.1, 0.2], [1], [1, 1]), ValueError,
     r"prediction has shape \(1,\); give one label per pair \(2\)"),
    ("regimes: None prediction", lambda f: regimes([0.1, 0.2], [1, 1], [1, None]), ValueError,
     r"prediction_cf has missing labels"),
    ("regimes: misaligned", lambda f: regimes(pd.Series([0.1, 0.2]), pd.Series([1, 1], index=[1, 0]), [1, 1]),
     ValueError, "prediction has a different index from score"),
    # ------------------------------------------------------------------ audit_explanations
    ("audit: no financial", lambda f: audit_explanations(f.lr, XN, YN, AN), ValueError, "give financial"),
    ("audit: match of other rows", lambda f: audit_explanations(f.lr, XN[:10], YN[:10], AN[:10], match=f.match),
     ValueError, "match has 40 rows but X has 10"),
    ("audit: not a match", lambda f: audit_explanations(f.lr, XN, YN, AN, match="all"), TypeError,
     "match must be a MatchResult"),
    ("audit: threshold", lambda f: audit_explanations(f.lr, XN, YN, AN, financial=[0], threshold=2), ValueError,
     r"threshold=2 must lie in \[0, 1\]"),
    ("audit: steps", lambda f: audit_explanations(f.lr, XN, YN, AN, financial=[0], steps=0), ValueError,
     "steps=0 must be at least 1"),
    ("audit: None group", lambda f: audit_explanations(f.lr, XN, YN, none_at(AN, 3), financial=[0]), ValueError,
     r"groups has missing labels \(None or NaN; first at position 3"),
    ("audit: NaN feature", lambda f: audit_explanations(f.lr, np.where(np.eye(40, 3) > 0, NAN, XN), YN, AN,
                                                        financial=[0]), ValueError, r"X\[0, 0\]=nan is missing"),
    ("audit: favourable", lambda f: audit_explanations(f.lr, XN, YN, AN, financial=[0], favourable="yes"), ValueError,
     r"favourable='yes' is not among model's classes"),
    ("audit: predictions too short", lambda f: audit_explanations(f.lr, XN, YN, AN, financial=[0],
                                                                  prediction=YN[:5]), ValueError,
     r"prediction has shape \(5,\); give one label per row \(40\)"),
    # ------------------------------------------------------------------ MLPClassifier
    ("mlp: CEC without pairs", lambda f: fit_mlp(lambda_cec=1.0), ValueError, r"lambda_cec=1.0 > 0 needs X_cf"),
    ("mlp: EO without groups", lambda f: fit_mlp(lambda_eo=1.0), ValueError,
     r"lambda_eo=1.0 > 0 needs sensitive_features"),
    ("mlp: three groups", lambda f: fit_mlp(lambda_eo=1.0, sensitive_features=np.arange(40) % 3), ValueError,
     "sensitive_features must have exactly two values"),
    ("mlp: None group", lambda f: fit_mlp(sensitive_features=none_at(AN, 0)), ValueError,
     r"sensitive_features has missing labels"),
    ("mlp: partly missing partner", lambda f: fit_mlp(lambda_cec=1.0, X_cf=np.where(np.eye(40, 3) > 0, NAN, XN),
                                                      baselines=np.zeros(3)), ValueError, "partly missing"),
    ("mlp: no partner at all", lambda f: fit_mlp(lambda_cec=1.0, X_cf=np.full((40, 3), NAN), baselines=np.zeros(3)),
     ValueError, "X_cf has no matched row"),
    ("mlp: partner width", lambda f: fit_mlp(lambda_cec=1.0, X_cf=XN[:, :2], baselines=np.zeros(3)), ValueError,
     r"X_cf has shape \(40, 2\) but X has shape \(40, 3\)"),
    ("mlp: baselines shape", lambda f: fit_mlp(lambda_cec=1.0, X_cf=XN, baselines=np.zeros(2)), ValueError,
     r"baselines has shape \(2,\) but X has shape \(40, 3\)"),
    ("mlp: one label", lambda f: fit_mlp(y=np.zeros(40)), ValueError, "y must have exactly two labels"),
    ("mlp: labels too short", lambda f: fit_mlp(y=YN[:30]), ValueError, r"y has shape \(30,\); give one label"),
    ("mlp: None label", lambda f: fit_mlp(y=none_at(YN, 4)), ValueError, "y has missing labels"),
    ("mlp: one row", lambda f: fit_mlp(X=XN[:1], y=YN[:1]), ValueError, r"X has 1 row\(s\); fitting needs at least 2"),
    ("mlp: text X", lambda f: fit_mlp(X=X4, y=Y4), TypeError, r"X has non-numeric columns \['job'\]"),
    ("mlp: NaN X", lambda f: fit_mlp(X=np.where(np.eye(40, 3) > 0, NAN, XN)), ValueError, r"X\[0, 0\]=nan"),
    ("mlp: negative weight", lambda f: fit_mlp(sample_weight=-np.ones(40)), ValueError,
     r"sample_weight\[0\]=-1.0 is below 0"),
    ("mlp: zero weights", lambda f: fit_mlp(sample_weight=np.zeros(40)), ValueError, "sample_weight is all zero"),
    ("mlp: weights too short", lambda f: fit_mlp(sample_weight=np.ones(3)), ValueError,
     "sample_weight has 3 entries but there are 40 rows of X"),
    ("mlp: misaligned weights", lambda f: fit_mlp(X=pd.DataFrame(XN), sample_weight=pd.Series(np.ones(40),
                                                                                               index=range(1, 41))),
     ValueError, "sample_weight has a different index from X"),
    ("mlp: fractional seed", lambda f: fit_mlp(random_state=1.7), TypeError,
     "random_state=1.7 must be None, an int seed"),
    ("mlp: whole float epochs", lambda f: fit_mlp(epochs=2.0), TypeError, r"epochs=2.0 must be an integer"),
    ("mlp: zero batch", lambda f: fit_mlp(batch_size=0), ValueError, "batch_size=0 must be at least 1"),
    ("mlp: NaN dropout", lambda f: fit_mlp(dropout=NAN), ValueError, "dropout=nan must be a finite number"),
    ("mlp: dropout 1", lambda f: fit_mlp(dropout=1.0), ValueError, r"dropout=1 must lie in \[0, 1\)"),
    ("mlp: zero learning rate", lambda f: fit_mlp(learning_rate=0), ValueError, "learning_rate=0 must be > 0"),
    ("mlp: negative lambda", lambda f: fit_mlp(lambda_cec=-1), ValueError, "lambda_cec=-1 must be >= 0"),
    ("mlp: text lambda", lambda f: fit_mlp(lambda_eo="1"), TypeError, "lambda_eo='1' must be a number"),
    ("mlp: fractional size", lambda f: fit_mlp(hidden_layer_sizes=(2.5,)), TypeError,
     r"hidden_layer_sizes\[0\]=2.5 must be an integer"),
    ("mlp: size None", lambda f: fit_mlp(hidden_layer_sizes=None), TypeError, "hidden_layer_sizes=None must be"),
    ("mlp: ig rule", lambda f: fit_mlp(ig_rule="midpoint"), ValueError,
     "ig_rule='midpoint' is not a quadrature rule"),
    ("mlp: ig steps", lambda f: fit_mlp(ig_steps=0), ValueError, "ig_steps=0 must be at least 1"),
    ("mlp: trapezoid", lambda f: fit_mlp(ig_steps=1, ig_rule="trapezoid"), ValueError,
     "ig_steps=1 is too few for ig_rule='trapezoid'"),
    ("mlp: zero pairs", lambda f: fit_mlp(cec_pairs=0), ValueError, "cec_pairs=0 must be at least 1"),
    ("mlp: fractional pairs", lambda f: fit_mlp(cec_pairs=2.5), TypeError, "cec_pairs=2.5 must be an integer"),
    ("mlp: pairs True", lambda f: fit_mlp(cec_pairs=True), TypeError, "cec_pairs=True must be an integer"),
    ("mlp: predict width", lambda f: f.mlp.predict(ONES), ValueError, "X has 2 columns but the model was fitted on 3"),
    ("mlp: predict text", lambda f: f.mlp.predict([["a", "b", "c"]]), TypeError, "X holds strings"),
    ("mlp: predict NaN", lambda f: f.mlp.predict_proba([[1.0, NAN, 0.0]]), ValueError, r"X\[0, 1\]=nan is missing"),
    ("mlp: unfitted", lambda f: MLPClassifier().predict(ONES), NotFittedError, "not fitted yet; call fit"),
    # ------------------------------------------------------------------ fit_method
    ("fit: unknown method", lambda f: fit_method("dir", XN, YN, AN), ValueError, "name='dir' is not one of"),
    ("fit: labels not 0/1", lambda f: fit_method("unconstrained", XN, YN + 1, AN), ValueError,
     r"y must hold 0/1 labels \(1 = favourable\)"),
    ("fit: labels too short", lambda f: fit_method("unconstrained", XN, YN[:3], AN), ValueError,
     r"y has shape \(3,\); give one label per row \(40\)"),
    ("fit: three groups", lambda f: fit_method("unconstrained", XN, YN, np.arange(40) % 3), ValueError,
     "groups must have exactly two values"),
    ("fit: text X", lambda f: fit_method("unconstrained", X4, Y4, A4), TypeError, "X has non-numeric columns"),
    ("fit: CEC without pairs", lambda f: fit_method("cec", XN, YN, AN), ValueError,
     "method 'cec' trains with the CEC penalty and needs X_cf and baselines"),
    ("fit: partner shape", lambda f: fit_method("cec", XN, YN, AN, X_cf=XN[:5], baselines=XN), ValueError,
     r"X_cf has shape \(5, 3\) but X has shape \(40, 3\)"),
    ("fit: unknown parameter", lambda f: fit_method("unconstrained", XN, YN, AN, mlp_params={"lambda": 1}),
     ValueError, r"mlp_params has unknown keys \['lambda'\]"),
    ("fit: parameters not a dict", lambda f: fit_method("unconstrained", XN, YN, AN, mlp_params=[("epochs", 1)]),
     TypeError, "mlp_params must be a dict"),
    # ------------------------------------------------------------------ evaluate_method
    ("evaluate: missing partner group", lambda f: evaluate(f, groups_cf=none_at(1 - AN, 3)), ValueError,
     r"groups_cf\[3\]=None is not one of the two groups \[0, 1\], but row 3"),
    ("evaluate: threshold nan", lambda f: evaluate(f, threshold=NAN), ValueError,
     r"threshold=nan must lie in \[0, 1\]"),
    ("evaluate: partner groups short", lambda f: evaluate(f, groups_cf=AN[:5]), ValueError,
     r"groups_cf has shape \(5,\); give the group of every row's partner"),
    ("evaluate: partner shape", lambda f: evaluate(f, X_cf=XN[:, :2]), ValueError,
     r"X_cf has shape \(40, 2\) but X_test has shape \(40, 3\)"),
    ("evaluate: baselines shape", lambda f: evaluate(f, baselines=np.zeros(2)), ValueError,
     r"baselines has shape \(2,\)"),
    ("evaluate: labels short", lambda f: evaluate(f, y_test=YN[:4]), ValueError, r"y_test has shape \(4,\)"),
    ("evaluate: width", lambda f: evaluate(f, X_test=XN[:, :2], X_cf=XN[:, :2], baselines=np.zeros(2)), ValueError,
     "X has 2 columns but the model was fitted on 3"),
    ("evaluate: steps", lambda f: evaluate(f, steps=2.0), TypeError, "steps=2.0 must be an integer"),
    ("evaluate: seed", lambda f: evaluate(f, random_state=0.5), TypeError, "random_state=0.5 must be None, an int"),
    ("evaluate: favourable", lambda f: evaluate(f, favourable="good"), ValueError,
     r"favourable='good' is not among model's classes \[0, 1\]"),
    ("evaluate: None test group", lambda f: evaluate(f, groups_test=none_at(AN, 1)), ValueError,
     r"groups_test has missing labels"),
    # ------------------------------------------------------------------ cross_validate_methods
    ("cv: whole float folds", lambda f: cross_validate(n_splits=2.0), TypeError, r"n_splits=2.0 must be an integer"),
    ("cv: one fold", lambda f: cross_validate(n_splits=1), ValueError, "n_splits=1 must be at least 2"),
    ("cv: fractional seed", lambda f: cross_validate(random_state=0.5), TypeError,
     "random_state=0.5 must be None, an int seed"),
    ("cv: unknown method", lambda f: cross_validate(methods=["fairest"]), ValueError,
     r"methods\[0\]='fairest' is not one of"),
    ("cv: unknown variant key", lambda f: cross_validate(variants={"v": {"lambda": 1.0}}), ValueError,
     r"variants\['v'\] has unknown keys"),
    ("cv: variant named as a method", lambda f: cross_validate(variants={"unconstrained": {}}), ValueError,
     "have the names of methods"),
    ("cv: variants not a dict", lambda f: cross_validate(variants=[("v", {})]), TypeError,
     "variants must be a dict"),
    ("cv: three labels", lambda f: cross_validate(y=np.arange(40) % 3), ValueError, "y must have two labels"),
    ("cv: one group", lambda f: cross_validate(groups=np.zeros(40)), ValueError, "groups must have exactly two"),
    ("cv: unknown financial", lambda f: cross_validate(X=pd.DataFrame(XN, columns=list("abc")), financial=["z"]),
     ValueError, r"financial feature\(s\) \['z'\] are not columns of X"),
    ("cv: NaN X", lambda f: cross_validate(X=np.where(np.eye(40, 3) > 0, NAN, XN)), ValueError, r"X\[0, 0\]=nan"),
    ("cv: steps", lambda f: cross_validate(steps=0), ValueError, "steps=0 must be at least 1"),
    ("cv: threshold", lambda f: cross_validate(threshold=2.0), ValueError, r"threshold=2.0 must lie in \[0, 1\]"),
    ("cv: labels short", lambda f: cross_validate(y=YN[:10]), ValueError, r"y has shape \(10,\)"),
]


@pytest.mark.parametrize(("call", "error", "message"), [pytest.param(c, e, m, id=i) for i, c, e, m in CASES])
def test_bad_input(call, error, message, fitted):
    with pytest.raises(error, match=message):
        call(fitted)

"""The paper's comparison (fairlearn baselines, cross-validation), the one-call audit and the synthetic data."""

import numpy as np
import pandas as pd
import pytest
from explanation_consistency.cec_cases import TINY, small_problem
from sklearn.linear_model import LogisticRegression

from recourselab.datasets import make_cec_synthetic
from recourselab.explanation_consistency import (
    METHODS,
    MLPClassifier,
    audit_explanations,
    cross_validate_methods,
    evaluate_method,
    fit_method,
    integrated_gradients,
    regimes,
)


@pytest.mark.filterwarnings("ignore::DeprecationWarning:fairlearn")   # pandas 3 deprecations inside fairlearn
def test_fairlearn_reductions_and_post_processing_run_and_are_explained(pairs):
    from fairlearn.postprocessing import ThresholdOptimizer
    from fairlearn.reductions import EqualizedOdds, ExponentiatedGradient

    X, y, a, _, B = pairs
    base = MLPClassifier(**dict(TINY, epochs=3), random_state=0)   # the session's configuration: compiled once
    eg = ExponentiatedGradient(base, EqualizedOdds(), max_iter=3).fit(X, y, sensitive_features=a)
    G = integrated_gradients(eg, X[:5], B[:5], steps=4)
    expected = sum(w * integrated_gradients(p, X[:5], B[:5], steps=4)
                   for p, w in zip(eg.predictors_, eg.weights_, strict=True) if w > 0)
    assert np.allclose(G, expected)
    assert np.allclose(integrated_gradients(eg, X[:5], B[:5], steps=4, favourable=0), -G)
    to = ThresholdOptimizer(estimator=base, constraints="equalized_odds", predict_method="predict_proba",
                            objective="balanced_accuracy_score").fit(X, y, sensitive_features=a)
    assert np.allclose(integrated_gradients(to, X[:5], B[:5], steps=4),
                       integrated_gradients(to.estimator_, X[:5], B[:5], steps=4))


@pytest.fixture(scope="module")
def problem():
    """512 rows: each training fold of a two-fold split has the 256 rows of the session's networks, so the
    methods reuse their compiled training epochs."""
    X, y, a = small_problem(512, seed=1)
    return pd.DataFrame(X, columns=["income", "proxy", "group"]), y, a, ["income"]


SMALL = dict(TINY, epochs=3)


def test_cross_validation_of_every_method_on_a_tiny_problem(problem):
    X, y, groups, fin = problem
    result = cross_validate_methods(X, y, groups, fin, n_splits=2, steps=8, mlp_params=SMALL,
                                    variants={"same as cec": {"lambda_eo": 1.0, "lambda_cec": 1.0}})
    assert result.shape[0] == 2 * (len(METHODS) + 1) and set(result["method"]) == set(METHODS) | {"same as cec"}
    metrics = ["auc", "f1", "eo_gap", "sp_gap", "cec", "pfr"]
    assert result[metrics].notna().all().all()
    shares = result[["regime_A", "regime_B", "regime_C", "regime_D"]].sum(axis=1)
    assert np.allclose(shares, 1.0)
    assert ((result["cec"] >= 0) & (result["cec"] <= 1)).all()
    # a variant with the cec method's lambdas is the same network with the same seed: same metrics
    by_method = result.set_index(["fold", "method"]).drop(columns="fit_seconds")
    pd.testing.assert_frame_equal(by_method.xs("cec", level="method"), by_method.xs("same as cec", level="method"))


def test_fit_and_evaluate_one_method_by_hand(problem):
    """The pieces cross_validate_methods chains, on a frame whose columns come back in another order."""
    from recourselab.explanation_consistency import counterfactual_rows, label_group_baselines, match_counterfactuals

    X, y, groups, fin = problem
    train, test = slice(0, 256), slice(256, 512)
    match = match_counterfactuals(X[test], y[test], groups[test], fin, X_pool=X[train], y_pool=y[train],
                                  groups_pool=groups[train])
    X_cf = counterfactual_rows(match, X[train])
    B = label_group_baselines(X[test], y[test], groups[test], X_fit=X[train], y_fit=y[train], groups_fit=groups[train])
    fitted = fit_method("unconstrained", X[train], y[train], groups[train], mlp_params=SMALL)
    assert fitted.columns == tuple(X.columns)
    kwargs = dict(X_cf=X_cf, groups_cf=match.partner_group, baselines=B, steps=8)
    result = evaluate_method(fitted, X[test], y[test], groups[test], **kwargs)
    assert evaluate_method(fitted, X[test][X.columns[::-1]], y[test], groups[test], **kwargs) == result
    assert result["n"] == result["n_matched"] == 256 and 0 <= result["cec"] <= 1
    flipped = evaluate_method(fitted, X[test], y[test], groups[test], favourable=0, **kwargs)
    # ranking by P(0) for the label 0 is the same ranking: the AUC and the directions (CEC) do not move
    assert flipped["auc"] == pytest.approx(result["auc"]) and flipped["cec"] == pytest.approx(result["cec"])
    assert flipped["f1"] != result["f1"]


def test_audit_explanations_in_one_call(pairs):
    X, y, a, _, _ = pairs
    model = LogisticRegression().fit(X, y)
    audit = audit_explanations(model, X, y, a, financial=[0], tau=0.05)
    frame = audit.to_frame()
    assert len(frame) == len(X) and frame["cec"].notna().sum() == audit.match.matched.sum()
    assert 0 < audit.match.matched.sum() < len(X)
    assert frame.loc[~audit.match.matched, "regime"].isna().all()
    assert audit.summary()["coverage"] == pytest.approx(audit.match.coverage)
    assert audit.mean_cec == pytest.approx(frame["cec"].mean())
    rows = audit.rows
    again = regimes(audit.cec.score, audit.prediction[rows], audit.prediction_cf[rows])
    assert np.array_equal(again.labels, audit.regimes.labels)


def test_audit_of_a_frame_model_aligns_the_pool_by_name():
    X, y, a = small_problem(120)
    names = ["income", "proxy", "group"]
    frame = pd.DataFrame(X, columns=names)
    model = LogisticRegression().fit(frame, y)
    base = audit_explanations(model, frame, y, a, financial=["income"])
    moved = audit_explanations(model, frame[names[::-1]], y, a, financial=["income"],
                               X_pool=frame[["proxy", "group", "income"]], y_pool=y, groups_pool=a)
    assert np.array_equal(base.cec.score, moved.cec.score)
    assert moved.cec.feature_names == tuple(names)


def test_make_cec_synthetic():
    data = make_cec_synthetic(20000, random_state=0)
    frame = data.frame
    assert frame.shape == (20000, 22) and len(data.features) == 21
    assert data.target == "approved" and data.protected == ("group",) and data.citation == "popoola2026cec"
    assert data.spec("group").actionability == "immutable"
    groups = frame.groupby("group").mean()
    proxies = [f"proxy_{j}" for j in range(5)]
    fins = [f"fin_{j}" for j in range(10)]
    assert np.allclose(groups.loc[1, proxies] - groups.loc[0, proxies], 0.5, atol=0.06)
    assert np.abs(frame[fins].corrwith(frame["group"])).max() < 0.03        # financial features ignore the group
    assert 0.55 < data.y.mean() < 0.65 and 0.37 < frame["group"].mean() < 0.43
    # the label depends on the financial features only: adding the others does not help a linear model
    from sklearn.model_selection import cross_val_score
    fin_only = cross_val_score(LogisticRegression(max_iter=500), frame[fins], data.y, cv=3).mean()
    everything = cross_val_score(LogisticRegression(max_iter=500), frame[data.feature_names], data.y, cv=3).mean()
    assert everything - fin_only < 0.005
    assert abs(data.y[frame["group"] == 1].mean() - data.y[frame["group"] == 0].mean()) < 0.03
    assert make_cec_synthetic(50, random_state=0).frame.equals(make_cec_synthetic(50, random_state=0).frame)

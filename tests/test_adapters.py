"""The practitioner's path: a raw-frame Pipeline (own ColumnTransformer + HistGradientBoosting) through every lens.

Each test wraps the same small Adult pipeline in ``EncodedModel`` and checks
that the lens runs on it, that what it returns is what the pipeline itself
says on the raw frame, and that every recourse it returns passes
``Encoder.feasible``.
"""

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

from recourselab.adapters import EncodedModel, check_model
from recourselab.allocation.engine import feature_ce, prune_move
from recourselab.counterfactuals.recourse import nearest_counterfactuals, recourse_by_group
from recourselab.datasets import load_adult
from recourselab.fair_ranking import ranked_fair_representation, rerank_by_cost
from recourselab.features import Encoder, FeatureSpec
from recourselab.group_counterfactuals.burden import minimum_resources
from recourselab.group_counterfactuals.graph import build_feasibility_graph
from recourselab.group_counterfactuals.selection import max_coverage
from recourselab.scm import AdditiveNoiseSCM
from recourselab.situation_testing.testing import situation_testing

CATEGORICAL = ["workclass", "education", "marital_status", "occupation", "relationship", "sex", "race"]


def make_pipe(**params):
    one_hot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    columns = make_column_transformer((one_hot, CATEGORICAL), remainder="passthrough")
    return make_pipeline(columns, HistGradientBoostingClassifier(max_iter=40, random_state=0, **params))


@pytest.fixture(scope="module", autouse=True)
def one_openmp_thread():
    # histogram gradient boosting's OpenMP threads crawl when the test machine's cores are busy
    with threadpool_limits(1, user_api="openmp"):
        yield


@pytest.fixture(scope="module")
def adult():
    data = load_adult()
    frame = data.frame.sample(1200, random_state=0).reset_index(drop=True)
    X, y = frame.drop(columns=data.target), frame[data.target].to_numpy()
    pipe = make_pipe().fit(X, y)
    encoder = data.encoder().fit(data.frame)  # ranges and levels of the whole data set
    Z = encoder.transform(X)
    return data, X, y, pipe, encoder, Z


def test_encoded_model_scores_encoded_rows_as_the_pipeline_scores_raw_ones(adult):
    _, X, _, pipe, encoder, Z = adult
    model = EncodedModel(pipe, encoder)
    assert Z.shape[1] == 49 and pipe.n_features_in_ == 12  # the mismatch the issue reported
    np.testing.assert_array_equal(model.predict_proba(Z), pipe.predict_proba(X))
    np.testing.assert_array_equal(model.predict(Z), pipe.predict(X))
    np.testing.assert_array_equal(model.decision_function(Z), pipe.decision_function(X))
    assert model.classes_.tolist() == [0, 1] and model.n_features_in_ == 49
    pd.testing.assert_frame_equal(model.decode(Z[:5]), X.iloc[:5].reset_index(drop=True))
    assert model.__sklearn_is_fitted__()


def test_clone_refits_on_decoded_rows_like_the_pipeline_on_raw_ones(adult):
    _, X, y, pipe, encoder, Z = adult
    fresh = clone(EncodedModel(pipe, encoder))
    assert not fresh.__sklearn_is_fitted__()
    with pytest.raises(NotFittedError, match="not fitted"):
        fresh.predict_proba(Z)
    fresh.fit(Z, y)
    np.testing.assert_allclose(fresh.predict_proba(Z), pipe.predict_proba(X))
    unfitted = EncodedModel(make_pipe(), encoder).fit(Z, y)  # columns default to the encoder's features
    assert list(unfitted.decode(Z[:1]).columns) == encoder.feature_names
    with pytest.raises(ValueError, match="y has 3 labels"):
        EncodedModel(make_pipe(), encoder).fit(Z, y[:3])


def test_clear_errors_for_the_practitioners_mistakes(adult):
    data, X, y, pipe, encoder, Z = adult
    with pytest.raises(TypeError, match="has no predict_proba"):
        svm = make_pipeline(make_column_transformer((OneHotEncoder(), CATEGORICAL), remainder="passthrough"),
                            LinearSVC()).fit(X, y)
        EncodedModel(svm, encoder).predict_proba(Z)
    with pytest.raises(NotFittedError, match="call fit"):
        EncodedModel(pipe, data.encoder()).predict_proba(Z)
    with pytest.raises(ValueError, match="shape"):
        EncodedModel(pipe, encoder).predict_proba(Z[:, :12])
    with pytest.raises(ValueError, match="missing values"):
        bad = Z[:2].copy()
        bad[0, 3] = np.nan
        EncodedModel(pipe, encoder).predict_proba(bad)
    with pytest.raises(TypeError, match="list of column names"):
        EncodedModel(pipe, encoder, columns="age").predict_proba(Z)
    with pytest.raises(TypeError, match="mapping column -> value"):
        EncodedModel(pipe, encoder, fill=3).predict_proba(Z)
    # the raw pipeline handed to a function that takes encoded rows: the error names the fix
    with pytest.raises(TypeError, match="EncodedModel"):
        feature_ce(pipe, Z, 0, 0.6, encoder)
    with pytest.raises(TypeError, match="EncodedModel"):
        check_model(HistGradientBoostingClassifier(max_iter=5).fit(Z[:, :12], y), encoder)
    other = Encoder([FeatureSpec("age", "continuous")]).fit(X[["age"]])
    with pytest.raises(ValueError, match="same encoder"):
        check_model(EncodedModel(pipe, other), encoder)


def test_columns_no_spec_describes_are_rejected_or_filled(adult):
    _, X, y, _, encoder, Z = adult
    wider = X.assign(fnlwgt=np.arange(len(X)) % 7 * 1000)  # a column the pipeline uses and no spec describes
    pipe = make_pipe().fit(wider, y)
    with pytest.raises(ValueError, match=r"\['fnlwgt'\].*FeatureSpec"):
        EncodedModel(pipe, encoder).predict_proba(Z)
    by_value = EncodedModel(pipe, encoder, fill={"fnlwgt": 3000})
    assert (by_value.decode(Z[:4])["fnlwgt"] == 3000).all()
    assert list(by_value.decode(Z[:1]).columns) == list(wider.columns)
    by_frame = EncodedModel(pipe, encoder, fill=wider)
    assert by_frame.decode(Z[:2])["fnlwgt"].tolist() == [int(wider["fnlwgt"].median())] * 2
    expected = pipe.predict_proba(wider.iloc[:20].assign(fnlwgt=3000))
    np.testing.assert_array_equal(by_value.predict_proba(Z[:20]), expected)
    with pytest.raises(ValueError, match="does not take"):
        EncodedModel(pipe, encoder, fill={"fnlwgt": 1, "age": 30}).predict_proba(Z)
    with pytest.raises(ValueError, match="without the column"):
        EncodedModel(pipe, encoder, fill=X).predict_proba(Z)


def _refused_and_approved(adult):
    _, X, _, pipe, encoder, Z = adult
    model = EncodedModel(pipe, encoder)
    approved = model.predict_proba(Z)[:, 1] >= 0.5
    assert 50 < approved.sum() < len(Z) - 50
    return model, approved


def test_nearest_counterfactuals_and_group_costs_with_the_adapter(adult):
    _, X, _, pipe, encoder, Z = adult
    model, approved = _refused_and_approved(adult)
    refused = np.flatnonzero(~approved)[:300]
    res = nearest_counterfactuals(Z[refused], Z[approved], encoder)
    found = res.has_recourse
    assert found.mean() > 0.5
    targets = Z[approved][res.best_index[found].to_numpy()]
    assert encoder.feasible(Z[refused][found], targets).all()
    assert (pipe.predict_proba(model.decode(targets))[:, 1] >= 0.5).all()  # the pipeline approves each target
    table = recourse_by_group(res.best_cost, X["sex"].to_numpy()[refused])
    assert set(table.index) == {"Female", "Male"}


def test_face_graph_and_facegroup_with_the_adapter(adult):
    _, _, _, _, encoder, Z = adult
    model, approved = _refused_and_approved(adult)
    rows = np.arange(600)
    graph = build_feasibility_graph(Z[rows], 1.0, encoder=encoder, weighting="distance")
    sources, targets = np.flatnonzero(~approved[rows])[:80], np.flatnonzero(approved[rows])
    C = graph.costs(sources, targets, cost="l2")
    reach = np.isfinite(C).any(axis=1)
    assert reach.sum() > 10
    chosen = max_coverage(C, k=3, d=float(np.nanmedian(np.where(np.isfinite(C), C, np.nan))))
    assert 0 < chosen.coverage_share <= 1
    picked = targets[np.asarray(chosen.selected)]
    assert (model.predict_proba(Z[rows][picked])[:, 1] >= 0.5).all()
    assert minimum_resources(C[reach], method="greedy").k0 >= 1


def test_feature_ce_and_prune_move_with_the_adapter(adult):
    _, _, _, pipe, encoder, Z = adult
    model, approved = _refused_and_approved(adult)
    applicant = int(np.flatnonzero(~approved)[0])
    res = feature_ce(model, Z, applicant, 0.6, encoder)
    assert res.found and res.proba >= 0.6 > res.factual_proba
    assert encoder.feasible(Z[applicant], Z[res.target]).all()
    pruned = prune_move(model, Z[applicant], Z[res.target], 0.6, encoder)
    assert encoder.feasible(Z[applicant], pruned).all()
    assert pipe.predict_proba(model.decode(pruned))[0, 1] >= 0.6
    assert encoder.cost(Z[applicant], pruned)[0] <= res.cost + 1e-12


def test_situation_testing_and_cst_in_raw_columns_with_the_pipeline(adult):
    data, X, _, pipe, encoder, Z = adult
    decisions = pipe.predict(X)
    women = (X["sex"] == "Female").to_numpy()
    features = ["age", "education_num", "hours_per_week", "capital_gain"]
    st = situation_testing(X[features], women, decisions, k=8)
    assert len(st) == women.sum() and st["p_c"].between(0, 1).all()  # one line per complainant
    dag = nx.DiGraph([("sex", "education_num"), ("race", "education_num"), ("age", "education_num"),
                      ("sex", "hours_per_week"), ("education_num", "hours_per_week"), ("age", "hours_per_week")])
    races = sorted(data.frame["race"].unique())
    scm = AdditiveNoiseSCM(dag, categories={"sex": ["Female", "Male"], "race": races},
                           decimals={"education_num": 0, "hours_per_week": 0},
                           bounds={"education_num": (1, 16), "hours_per_week": (1, 99)}).fit(X)
    cf = scm.counterfactual(X, do={"sex": "Male"})
    assert list(cf.columns) == list(X.columns) and (cf["sex"] == "Male").all()  # raw columns, labels back
    assert cf["race"].equals(X["race"]) and cf["hours_per_week"].dtype == X["hours_per_week"].dtype
    decisions_cf = pipe.predict(cf)  # the pipeline takes the counterfactual frame as it is
    cst = situation_testing(X[features], women, decisions, X_cf=cf[features], y_hat_cf=decisions_cf, k=8)
    assert len(cst) == women.sum() and cst["p_t"].between(0, 1).all()
    Z_cf = encoder.transform(cf)
    np.testing.assert_array_equal(EncodedModel(pipe, encoder).predict(Z_cf), decisions_cf)


def test_rerank_by_nearest_counterfactual_costs(adult):
    _, X, _, _, encoder, Z = adult
    model, approved = _refused_and_approved(adult)
    refused = np.flatnonzero(~approved)[:300]
    res = nearest_counterfactuals(Z[refused], Z[approved], encoder)
    keep = res.has_recourse
    cost, sex = res.best_cost[keep], X["sex"].to_numpy()[refused][keep]
    ranked = rerank_by_cost(cost, sex, protected_group="Female", tolerance=1 / 3)
    assert sorted(ranked.order.tolist()) == list(range(len(cost)))  # the same records, re-ordered
    p = float(np.mean(sex == "Female"))
    before = ranked_fair_representation(sex[ranked.initial_order], "Female", 1 / 3, p=p).per_prefix.mean()
    after = ranked_fair_representation(sex[ranked.order], "Female", 1 / 3, p=p).per_prefix.mean()
    assert after >= before
    np.testing.assert_array_equal(ranked.cost, cost)  # nothing is modified
    assert (ranked.gap[ranked.promoted] >= 0).all() and (ranked.gap[~ranked.promoted] == 0).all()

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
from sklearn.model_selection import cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from threadpoolctl import threadpool_limits

from recourselab.adapters import EncodedModel, check_model
from recourselab.allocation import feature_ce, graft_candidates, prune_move
from recourselab.counterfactuals import nearest_counterfactuals, recourse_by_group
from recourselab.datasets import load_adult
from recourselab.fair_ranking import ranked_fair_representation, rerank_by_cost
from recourselab.group_counterfactuals import build_feasibility_graph, max_coverage, minimum_resources
from recourselab.scm import AdditiveNoiseSCM
from recourselab.situation_testing import situation_testing

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


def test_a_frame_of_encoded_rows_is_read_by_column_name(adult):
    """Issue 22, part 3: a frame whose columns came in another order was read by position (probabilities off)."""
    _, X, _, pipe, encoder, Z = adult
    model = EncodedModel(pipe, encoder)
    frame = pd.DataFrame(Z[:50], columns=encoder.feature_names_out_)
    shuffled = frame[list(reversed(frame.columns))]
    np.testing.assert_array_equal(model.predict_proba(shuffled), pipe.predict_proba(X.iloc[:50]))
    np.testing.assert_array_equal(model.predict(shuffled), pipe.predict(X.iloc[:50]))
    pd.testing.assert_frame_equal(model.decode(shuffled), X.iloc[:50].reset_index(drop=True))
    # read by position, the shuffled frame would have scored differently: the test can fail
    assert not np.array_equal(pipe.predict_proba(model.decode(shuffled.to_numpy())), pipe.predict_proba(X.iloc[:50]))
    with pytest.raises(ValueError, match=r"Z has columns that do not match.*unexpected \['AGE'\]"):
        model.predict_proba(frame.rename(columns={"age": "AGE"}))
    with pytest.raises(ValueError, match="Z has the raw columns"):
        model.predict_proba(X.iloc[:5])
    row = frame.iloc[0][list(reversed(frame.columns))]  # one named row (a Series) is read by name too
    np.testing.assert_array_equal(model.predict_proba(row), pipe.predict_proba(X.iloc[:1]))


def test_a_clone_of_a_fitted_model_with_fill_refits_in_cross_validation(adult):
    """Issue 22, part 3: clone() of a fitted EncodedModel with fill= could not be refitted."""
    _, X, y, _, encoder, Z = adult
    wider = X.assign(fnlwgt=np.arange(len(X)) % 7 * 1000)
    pipe = make_pipe().fit(wider, y)
    for fill in ({"fnlwgt": 3000}, wider):
        model = EncodedModel(pipe, encoder, fill=fill)
        fresh = clone(model)
        assert fresh.columns == list(wider.columns)  # the raw columns the fitted pipeline took are pinned
        fresh.fit(Z, y)
        np.testing.assert_array_equal(fresh.decode(Z[:3]), model.decode(Z[:3]))
        scores = cross_val_score(model, Z, y, cv=3)
        assert scores.shape == (3,) and (scores > 0.7).all()
    # an unfitted estimator takes the encoder's features and the fill mapping's columns
    unfitted = EncodedModel(make_pipe(), encoder, fill={"fnlwgt": 2000}).fit(Z, y)
    assert list(unfitted.estimator_.feature_names_in_) == encoder.feature_names + ["fnlwgt"]


def test_check_model_refuses_a_model_without_the_favourable_class(adult):
    _, X, y, pipe, encoder, Z = adult
    labels = np.where(y == 1, "high", "low")
    named = EncodedModel(make_pipe().fit(X, labels), encoder)
    with pytest.raises(ValueError, match=r"favourable=1 is not among model's classes \['high', 'low'\]"):
        check_model(named, encoder)
    assert check_model(named, encoder, favourable="high") is named
    assert check_model(EncodedModel(pipe, encoder), encoder) is not None


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
    res = nearest_counterfactuals(Z[refused], Z[approved], encoder, actionable=False)  # burden: feasible costs
    found = res.has_recourse
    assert found.mean() > 0.5 and res.advice == "relaxation"
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
    for applicant in np.flatnonzero(~approved):  # the first refused applicant with advice reaching 0.6
        pool = graft_candidates(Z[applicant], Z, encoder)  # observed profiles, moved only as advice may move
        res = feature_ce(model, pool, 0, 0.6, encoder)
        if res.found:
            break
    assert res.found and res.proba >= 0.6 > res.factual_proba
    assert encoder.actionable(pool[0], pool[res.target]).all()
    pruned = prune_move(model, pool[0], pool[res.target], 0.6, encoder)
    assert encoder.actionable(pool[0], pruned).all()
    assert pipe.predict_proba(model.decode(pruned))[0, 1] >= 0.6
    assert encoder.cost(pool[0], pruned)[0] <= res.cost + 1e-12


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


# ---------------------------------------------------------------- a linear pipeline in the encoded space
def _linear_adult(drop_education=True):
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    data = load_adult()
    frame = data.frame.sample(3000, random_state=1)
    if drop_education:
        frame = frame.drop(columns="education")
    X, y = frame.drop(columns=data.target), frame[data.target].to_numpy()
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    numbers = [c for c in X.columns if c not in text]
    columns = make_column_transformer((OneHotEncoder(handle_unknown="ignore", sparse_output=False), text),
                                      (StandardScaler(), numbers))
    pipe = make_pipeline(columns, LogisticRegression(max_iter=2000)).fit(X, y)
    specs = [s for s in data.features if s.name in X.columns]
    from recourselab.features import Encoder

    return X, pipe, Encoder(specs).fit(X)


def test_linear_in_encoded_space_reproduces_the_pipelines_score_and_its_recourse_flips_the_pipeline():
    from recourselab.adapters import linear_in_encoded_space
    from recourselab.counterfactuals import linear_recourse

    X, pipe, encoder = _linear_adult()
    a, b = linear_in_encoded_space(pipe, encoder, X.head(500))
    Z = encoder.transform(X)
    assert np.allclose(Z @ a + b, pipe.decision_function(X), atol=1e-8)  # rows the fit never saw too
    refused = X.index[pipe.predict(X) == 0][:60]
    with pytest.warns(UserWarning, match="cannot reach the favourable side"):  # Adult's specs: most cannot
        result = linear_recourse(encoder.transform(X.loc[refused]), a, b, encoder=encoder, actionable=True,
                                 method="mip")
    found = np.isfinite(result.cost)
    assert found.sum() >= 5  # Adult's specs leave most refusals without actionable advice
    moved = encoder.inverse_transform(np.asarray(result.X_cf)[found])
    assert (pipe.predict(moved[X.columns]) == 1).all()  # whole units: decoding changes nothing, the pipeline flips
    assert encoder.actionable(encoder.transform(X.loc[refused])[found], np.asarray(result.X_cf)[found]).all()


def test_linear_in_encoded_space_flips_signs_for_favourable_zero():
    from recourselab.adapters import linear_in_encoded_space

    X, pipe, encoder = _linear_adult()
    a1, b1 = linear_in_encoded_space(pipe, encoder, X.head(200))
    a0, b0 = linear_in_encoded_space(pipe, encoder, X.head(200), favourable=0)
    Z = encoder.transform(X.head(200))
    assert np.allclose(Z @ a0 + b0, -(Z @ a1 + b1))


def test_linear_in_encoded_space_refuses_models_that_are_not_linear_in_the_encoded_features(adult):
    from recourselab.adapters import linear_in_encoded_space

    X, pipe, encoder = _linear_adult(drop_education=False)  # the ordinal education one-hot encoded by the pipeline
    with pytest.raises(ValueError, match="not linear in the encoded features.*'education'"):
        linear_in_encoded_space(pipe, encoder, X.head(300))
    _, X_a, y_a, boosted, encoder_a, _ = adult  # gradient boosting has a decision_function, but trees
    with pytest.raises(ValueError, match="not linear in the encoded features.*recourse_for_refused"):
        linear_in_encoded_space(boosted, encoder_a, X_a)
    from sklearn.ensemble import RandomForestClassifier

    forest = make_pipeline(clone(boosted[0]), RandomForestClassifier(n_estimators=5, random_state=0)).fit(X_a, y_a)
    with pytest.raises(TypeError, match="no decision_function.*recourse_for_refused"):
        linear_in_encoded_space(forest, encoder_a, X_a)


def test_linear_in_encoded_space_names_bad_arguments():
    from recourselab.adapters import linear_in_encoded_space

    X, pipe, encoder = _linear_adult()
    with pytest.raises(TypeError, match="X must be a non-empty DataFrame"):
        linear_in_encoded_space(pipe, encoder, X.to_numpy())
    with pytest.raises(ValueError, match="n_base=0"):
        linear_in_encoded_space(pipe, encoder, X, n_base=0)
    with pytest.raises(ValueError, match="favourable"):
        linear_in_encoded_space(pipe, encoder, X, favourable="yes")

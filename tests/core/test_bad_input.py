"""Bad input to every public function of the shared modules (adapters, models, audit, scm): the package's own error
and message, never one from inside numpy, pandas, scikit-learn or networkx.

One row per case: (call, error type, message regex). Calls that need a data set or a fitted model take them from
``inputs()``, built once.
"""

from dataclasses import replace
from functools import cache

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from sklearn.tree import DecisionTreeRegressor
from threadpoolctl import threadpool_limits

from recourselab.adapters import EncodedModel, check_model
from recourselab.allocation import feature_ce
from recourselab.audit import overlap_table, overlap_vs_chance, plant_label_bias, train_on_biased_history
from recourselab.datasets import load_adult, load_german_credit
from recourselab.features import Encoder, FeatureSpec
from recourselab.models import favourable_proba, make_classifier, split_dataset, train_model
from recourselab.scm import AdditiveNoiseSCM

CATEGORICAL = ["workclass", "education", "marital_status", "occupation", "relationship", "sex", "race"]


@cache
def inputs():
    """German Credit, a small Adult pipeline on the raw frame (with an undescribed column ``fnlwgt``), its encoder."""
    adult = load_adult()
    frame = adult.frame.sample(300, random_state=0).reset_index(drop=True)
    X, y = frame.drop(columns=adult.target), frame[adult.target].to_numpy()
    wider = X.assign(fnlwgt=np.arange(len(X)) % 7 * 1000)

    def pipe(data):
        columns = make_column_transformer((OneHotEncoder(handle_unknown="ignore", sparse_output=False), CATEGORICAL),
                                          remainder="passthrough")
        return make_pipeline(columns, HistGradientBoostingClassifier(max_iter=10, random_state=0)).fit(data, y)

    with threadpool_limits(1, user_api="openmp"):
        narrow, wide = pipe(X), pipe(wider)
    encoder = adult.encoder().fit(adult.frame)
    german = load_german_credit()
    return {"german": german, "adult": adult, "X": X, "y": y, "wider": wider, "pipe": narrow, "wide_pipe": wide,
            "encoder": encoder, "Z": encoder.transform(X), "trained": train_model(german, random_state=0)}


def get(name):
    return inputs()[name]


class NoProba:
    """A fitted classifier without predict_proba (like LinearSVC)."""

    classes_ = np.array([0, 1])

    def predict(self, X):
        return np.zeros(len(X), int)


def model(**kwargs):
    return EncodedModel(get("pipe"), get("encoder"), **kwargs)


def wide(**kwargs):
    return EncodedModel(get("wide_pipe"), get("encoder"), **kwargs)


def encoded_frame(rename=None):
    frame = pd.DataFrame(get("Z")[:5], columns=get("encoder").feature_names_out_)
    return frame if rename is None else frame.rename(columns=rename)


def bad_and_good():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    return LogisticRegression().fit(X, np.array(["bad", "bad", "good", "good"])), X


FLAGS = pd.DataFrame({"x": [True, True, False, False, False], "y": [True, False, True, False, True],
                      "z": [False, False, True, True, False]})
POPULATIONS = FLAGS | True
DAG = nx.DiGraph([("gender", "income"), ("income", "balance")])
FRAME = pd.DataFrame({"gender": [0, 1, 0, 1], "income": [1.0, 2.0, 3.0, 5.0], "balance": [0.0, 1.0, 1.0, 2.0]})
RAW = pd.DataFrame({"sex": ["Female", "Male"] * 10, "salary": np.arange(20.0)})
SEX = nx.DiGraph([("sex", "salary")])


def scm(**kwargs):
    return AdditiveNoiseSCM(DAG, **kwargs).fit(FRAME)


CASES = [
    # ---------------------------------------------------------------- models
    (lambda: make_classifier("svm"), ValueError, r"model='svm' is not one of \('logistic', 'forest'\)"),
    (lambda: make_classifier("forest", random_state=3.3), TypeError, "random_state=3.3 must be None"),
    (lambda: make_classifier(None), ValueError, "model=None is not one of"),
    (lambda: split_dataset(get("german"), test_size=1.5), ValueError, r"test_size=1.5 must lie in \(0, 1\)"),
    (lambda: split_dataset(get("german"), test_size=0), ValueError, r"test_size=0.0 must lie in \(0, 1\)"),
    (lambda: split_dataset(get("german"), test_size=float("nan")), ValueError, "test_size=nan must be a finite number"),
    (lambda: split_dataset(get("german"), test_size="0.3"), TypeError, "test_size='0.3' must be a number"),
    (lambda: split_dataset(get("german").frame), TypeError, "must be a recourselab Dataset"),
    (lambda: split_dataset(get("german"), stratify="target"), TypeError, "stratify='target' must be True or False"),
    (lambda: split_dataset(get("german"), random_state=1.7), TypeError,
     r"random_state=1.7 must be None, an int seed or a numpy.random.Generator"),
    (lambda: split_dataset(get("german"), random_state=2.0), TypeError, "random_state=2.0 must be None, an int seed"),
    (lambda: split_dataset(get("german"), random_state=-1), ValueError,
     r"random_state=-1 must be an int in \[0, 2\*\*32 - 1\]"),
    (lambda: split_dataset(get("german"), random_state=True), TypeError, "random_state=True must be None"),
    (lambda: split_dataset(get("german"), random_state="0"), TypeError, "random_state='0' must be None"),
    (lambda: train_model(get("german"), random_state=0.5), TypeError, "random_state=0.5 must be None"),
    (lambda: train_model(get("german"), threshold=0), ValueError, r"threshold=0.0 must lie in \(0, 1\)"),
    (lambda: train_model(get("german"), threshold=float("nan")), ValueError, "threshold=nan must be a finite number"),
    (lambda: train_model(get("german"), threshold="0.5"), TypeError, "threshold='0.5' must be a number"),
    (lambda: train_model(get("german"), model=3), TypeError, "model=3 must be a name in"),
    (lambda: train_model(get("german"), model="svm"), ValueError, "model='svm' is not one of"),
    (lambda: train_model(get("german").frame), TypeError, "must be a recourselab Dataset"),
    (lambda: replace(get("trained"), threshold=5), ValueError, r"threshold=5.0 must lie in \(0, 1\)"),
    (lambda: get("trained").proba(np.zeros((2, 3))), ValueError, r"Z has shape \(2, 3\); expected \(n_rows, 34\)"),
    (lambda: get("trained").decide([["a"] * 34]), TypeError, "Z must be a numeric array"),
    (lambda: get("trained").proba(np.full((1, 34), np.nan)), ValueError, "Z has missing values"),
    (lambda: get("trained").proba(np.empty((0, 34))), ValueError, "Z has no rows"),
    (lambda: favourable_proba(object(), np.zeros((1, 1))), TypeError, "has no predict_proba"),
    (lambda: favourable_proba(*bad_and_good()), ValueError,
     r"favourable=1 is not among model's classes \['bad', 'good'\]; pass the label of the favourable outcome"),
    (lambda: favourable_proba(bad_and_good()[0], bad_and_good()[1], favourable="Good"), ValueError,
     "favourable='Good' is not among"),
    # ---------------------------------------------------------------- adapters: EncodedModel
    (lambda: EncodedModel(NoProba(), get("encoder")).predict_proba(get("Z")), TypeError, "has no predict_proba"),
    (lambda: EncodedModel(get("pipe"), get("adult").encoder()).predict_proba(get("Z")), NotFittedError, "call fit"),
    (lambda: EncodedModel(HistGradientBoostingClassifier(), get("encoder")).predict_proba(get("Z")), NotFittedError,
     "is not fitted"),
    (lambda: model().predict_proba(get("Z")[:, :12]), ValueError, r"Z has shape \(300, 12\); expected \(n_rows, 49\)"),
    (lambda: model().predict_proba(np.where(np.arange(49) == 3, np.nan, get("Z")[:2])), ValueError,
     "Z has missing values"),
    (lambda: model().predict_proba(np.full((1, 49), np.inf)), ValueError, "Z has infinite values"),
    (lambda: model().predict_proba([["a"] * 49]), TypeError, "Z must be a numeric array of encoded rows"),
    (lambda: model().predict_proba(np.empty((0, 49))), ValueError, "Z has no rows"),
    (lambda: model().predict_proba(encoded_frame({"age": "AGE"})), ValueError,
     r"Z has columns that do not match the 49 expected: missing \['age'\], unexpected \['AGE'\]"),
    (lambda: model().decode(encoded_frame().drop(columns="age")), ValueError, r"missing \['age'\]"),
    (lambda: model().predict_proba(get("X")), ValueError, "Z has the raw columns"),
    (lambda: model().predict_proba(encoded_frame().assign(age="old")), TypeError, "Z must hold numbers"),
    (lambda: model(columns="age").predict_proba(get("Z")), TypeError, "list of column names"),
    (lambda: model(columns=["age", "age"]).predict_proba(get("Z")), ValueError, "columns lists a name more than once"),
    (lambda: model(fill=3).predict_proba(get("Z")), TypeError, "mapping column -> value"),
    (lambda: wide().predict_proba(get("Z")), ValueError, r"\['fnlwgt'\].*FeatureSpec"),
    (lambda: wide(fill={"fnlwgt": 1, "age": 30}).predict_proba(get("Z")), ValueError, "does not take"),
    (lambda: wide(fill=get("X")).predict_proba(get("Z")), ValueError, "without the column"),
    (lambda: wide(fill={"fnlwgt": np.nan}).predict_proba(get("Z")), ValueError,
     r"fill\['fnlwgt'\]=nan must be a finite number"),
    (lambda: wide(fill={"fnlwgt": np.inf}).predict_proba(get("Z")), ValueError,
     r"fill\['fnlwgt'\]=inf must be a finite number"),
    (lambda: wide(fill={"fnlwgt": None}).predict_proba(get("Z")), TypeError,
     r"fill\['fnlwgt'\]=None must be one value"),
    (lambda: wide(fill={"fnlwgt": [1, 2]}).predict_proba(get("Z")), TypeError,
     r"fill\['fnlwgt'\]=\[1, 2\] must be one value"),
    (lambda: wide(fill={"fnlwgt": "heavy"}).predict_proba(get("Z")), TypeError,
     r"could not score the decoded rows, and fill gives text \{'fnlwgt': 'heavy'\}"),
    (lambda: wide(fill={"fnlwgt": "heavy"}).predict(get("Z")), TypeError, "fill gives text"),
    (lambda: wide(fill=get("wider").assign(fnlwgt=np.nan)).predict_proba(get("Z")), ValueError,
     "column 'fnlwgt' of the fill frame has no values"),
    (lambda: wide(fill=get("wider").assign(fnlwgt=np.inf)).predict_proba(get("Z")), ValueError,
     "the fill frame's typical 'fnlwgt'=inf must be a finite number"),
    (lambda: EncodedModel(make_pipe_unfitted(), get("encoder")).fit(get("Z"), get("y")[:3]), ValueError,
     r"y has shape \(3,\); give one label per row \(300\)"),
    (lambda: EncodedModel(make_pipe_unfitted(), get("encoder")).fit(get("Z"), [None] * 300), ValueError,
     "y has missing labels"),
    (lambda: EncodedModel(make_pipe_unfitted(), get("encoder")).fit(encoded_frame(), pd.Series([0, 1] * 2 + [1],
                                                                                               index=range(1, 6))),
     ValueError, "y has a different index from Z"),
    (lambda: EncodedModel(object(), get("encoder")).fit(get("Z"), get("y")), TypeError, "has no fit"),
    (lambda: EncodedModel(get("pipe"), "encoder").predict_proba(get("Z")), TypeError,
     "encoder must be a fitted recourselab Encoder"),
    # ---------------------------------------------------------------- adapters: check_model
    (lambda: feature_ce(get("pipe"), get("Z"), 0, 0.6, get("encoder")), TypeError, "EncodedModel"),
    (lambda: check_model(get("pipe"), get("encoder")), TypeError, r"model Pipeline was fitted on a DataFrame"),
    (lambda: check_model(LogisticRegression().fit(get("Z")[:, :12], get("y")), get("encoder")), TypeError,
     "takes 12 features but the encoder has 49 encoded columns"),
    (lambda: check_model(EncodedModel(get("pipe"), Encoder([FeatureSpec("age", "continuous")]).fit(get("X")[["age"]])),
                         get("encoder")), ValueError, "same encoder"),
    (lambda: check_model(NoProba(), get("encoder")), TypeError, "model NoProba has no predict_proba"),
    (lambda: check_model(model(), get("encoder"), favourable="yes"), ValueError,
     r"favourable='yes' is not among model's classes \[0, 1\]"),
    (lambda: check_model(model(), "encoder"), TypeError, "encoder must be a fitted recourselab Encoder"),
    # ---------------------------------------------------------------- audit: planted bias
    (lambda: plant_label_bias([1, 0], [1, 0], 1.5), ValueError, r"rate=1.5 must lie in \[0, 1\]"),
    (lambda: plant_label_bias([1, 0], [1, 0], float("nan")), ValueError, "rate=nan must be a finite number"),
    (lambda: plant_label_bias([1, 0], [1, 0], "0.5"), TypeError, "rate='0.5' must be a number"),
    (lambda: plant_label_bias([2, 0], [1, 0], 0.5), ValueError, r"labels must be boolean or 0/1 \(1 = favourable\)"),
    (lambda: plant_label_bias(["yes", "no"], [1, 0], 0.5), ValueError, "labels must be boolean or 0/1"),
    (lambda: plant_label_bias([np.nan, 1.0], [1, 0], 0.5), ValueError, r"labels\[0\] is missing"),
    (lambda: plant_label_bias([1, None], [1, 0], 0.5), ValueError, r"labels\[1\] is missing"),
    (lambda: plant_label_bias([], [], 0.5), ValueError, "labels is empty"),
    (lambda: plant_label_bias([[1, 0]], [1, 0], 0.5), ValueError, r"labels has shape \(1, 2\)"),
    (lambda: plant_label_bias([1, 0], [1], 0.5), ValueError,
     r"protected has shape \(1,\); give one entry per row \(2\)"),
    (lambda: plant_label_bias([1, 0], [1, np.nan], 0.5), ValueError, r"protected\[1\] is missing"),
    (lambda: plant_label_bias([0, 1], [1, 0], 0.5), ValueError, "no favourable label to flip"),
    (lambda: plant_label_bias([1, 0], [1, 0], 0.5, random_state=1.5), TypeError, "random_state=1.5"),
    (lambda: plant_label_bias(pd.Series([1, 0]), pd.Series([True, False], index=[1, 0]), 0.5), ValueError,
     "protected has a different index from labels"),
    (lambda: train_on_biased_history(get("german"), protected_value="woman", rate=0.2), ValueError,
     "protected_value='woman' does not occur"),
    (lambda: train_on_biased_history(get("german"), column="gender", protected_value="female", rate=0.2), ValueError,
     "column='gender'"),
    (lambda: train_on_biased_history(get("german"), column=["sex"], protected_value="female", rate=0.2), ValueError,
     r"column=\['sex'\] is not a column"),
    (lambda: train_on_biased_history(get("german").frame, protected_value="female", rate=0.2), TypeError, "Dataset"),
    (lambda: train_on_biased_history(get("german"), protected_value="female", rate=2), ValueError, "rate=2.0 must lie"),
    (lambda: train_on_biased_history(get("german"), protected_value="female", rate=0.2, model=3), TypeError,
     "model=3 must be a name in"),
    (lambda: train_on_biased_history(get("german"), protected_value="female", rate=0.2, threshold=1), ValueError,
     r"threshold=1.0 must lie in \(0, 1\)"),
    (lambda: train_on_biased_history(get("german"), protected_value="female", rate=0.2, random_state=-3), ValueError,
     "random_state=-3 must be an int in"),
    # ---------------------------------------------------------------- audit: overlaps
    (lambda: overlap_vs_chance([1, 0, 1], [1, 0]), ValueError,
     r"flags_b has shape \(2,\); give one entry per row \(3\)"),
    (lambda: overlap_vs_chance([np.nan, 1.0], [1, 0]), ValueError, r"flags_a\[0\] is missing"),
    (lambda: overlap_vs_chance([1, 0], [1, 0], [0, 0]), ValueError, "population is empty"),
    (lambda: overlap_vs_chance([1, 0], [1, 0], [1, 0, 1]), ValueError, r"population has shape \(3,\)"),
    (lambda: overlap_vs_chance([1, 0], [1, 0], confidence=1), ValueError, r"confidence=1.0 must lie in \(0, 1\)"),
    (lambda: overlap_vs_chance([1, 0], [1, 0], confidence="high"), TypeError, "confidence='high' must be a number"),
    (lambda: overlap_vs_chance([1, 0], [1, 0], n_boot=-1), ValueError, "n_boot=-1 must be at least 0"),
    (lambda: overlap_vs_chance([1, 0], [1, 0], n_boot=2.5), TypeError, "n_boot=2.5 must be an integer"),
    (lambda: overlap_vs_chance(["x", "y"], [1, 0]), ValueError, "flags_a must be boolean or 0/1"),
    (lambda: overlap_vs_chance([], []), ValueError, "population is empty"),
    (lambda: overlap_vs_chance([1, 0], [1, 0], random_state=0.5), TypeError, "random_state=0.5"),
    (lambda: overlap_vs_chance(pd.Series([True, False]), pd.Series([True, False], index=[1, 0])), ValueError,
     "flags_b has a different index from flags_a"),
    (lambda: overlap_table(FLAGS, POPULATIONS[["x", "y"]]), ValueError, "same index and columns"),
    (lambda: overlap_table(FLAGS, POPULATIONS.set_axis(range(1, 6))), ValueError, "same index and columns"),
    (lambda: overlap_table(FLAGS.astype(int), POPULATIONS.astype(int)), ValueError, "not boolean"),
    (lambda: overlap_table(FLAGS, POPULATIONS, pairs=[("x", "w")]), ValueError, "names 'w'"),
    (lambda: overlap_table(FLAGS, POPULATIONS, pairs=[("x",)]), ValueError, r"pairs holds \('x',\)"),
    (lambda: overlap_table(FLAGS, POPULATIONS, pairs="xy"), TypeError, "pairs='xy' must be a list"),
    (lambda: overlap_table(FLAGS, POPULATIONS, pairs=[]), ValueError, "no pair to compare"),
    (lambda: overlap_table(FLAGS[["x"]], POPULATIONS[["x"]]), ValueError, "no pair to compare"),
    (lambda: overlap_table(FLAGS.to_numpy(), POPULATIONS), TypeError, "must be DataFrames"),
    (lambda: overlap_table(FLAGS, POPULATIONS, n_boot=-1), ValueError, "n_boot=-1 must be at least 0"),
    (lambda: overlap_table(FLAGS, POPULATIONS, confidence=0), ValueError, r"confidence=0.0 must lie in \(0, 1\)"),
    # ---------------------------------------------------------------- scm: the DAG and the keyword dicts
    (lambda: AdditiveNoiseSCM(nx.DiGraph([("a", "b"), ("b", "c"), ("c", "a"), ("x", "a")])), ValueError,
     r"dag has a cycle: .*(a -> b -> c -> a|b -> c -> a -> b|c -> a -> b -> c)"),
    (lambda: AdditiveNoiseSCM(nx.DiGraph([("a", "a"), ("a", "b")])), ValueError, "self loops"),
    (lambda: AdditiveNoiseSCM(nx.Graph([("a", "b")])), TypeError, "networkx.DiGraph"),
    (lambda: AdditiveNoiseSCM([("a", "b")]), TypeError, "networkx.DiGraph"),
    (lambda: AdditiveNoiseSCM(nx.DiGraph()), ValueError, "dag has no nodes"),
    (lambda: AdditiveNoiseSCM(DAG, regressors={"z": LinearRegression()}), ValueError,
     r"regressors names \['z'\], which is not a node of the DAG; nodes are \['balance', 'gender', 'income'\]"),
    (lambda: AdditiveNoiseSCM(DAG, regressors={"income": "ols"}), TypeError, r"regressors\['income'\] is a str"),
    (lambda: AdditiveNoiseSCM(DAG, regressors=[LinearRegression()]), TypeError, "regressors must be a dict"),
    (lambda: AdditiveNoiseSCM(DAG, bounds={"z": (0, 1)}), ValueError, r"bounds names \['z'\]"),
    (lambda: AdditiveNoiseSCM(DAG, decimals={"z": 0}), ValueError, r"decimals names \['z'\]"),
    (lambda: AdditiveNoiseSCM(DAG, regressors={"gender": LinearRegression()}), ValueError, "root node"),
    (lambda: AdditiveNoiseSCM(DAG, bounds={"income": (1, 0)}), ValueError, "low > high"),
    (lambda: AdditiveNoiseSCM(DAG, bounds={"income": ("a", 1)}), TypeError, r"bounds\['income'\]='a' must be a number"),
    (lambda: AdditiveNoiseSCM(DAG, bounds={"income": (np.nan, 1)}), ValueError,
     r"bounds\['income'\]=nan must be a finite number"),
    (lambda: AdditiveNoiseSCM(DAG, bounds={"income": 3}), TypeError, r"bounds\['income'\]=3 must be a pair"),
    (lambda: AdditiveNoiseSCM(DAG, decimals={"income": 1.5}), TypeError, r"decimals\['income'\]=1.5 must be an int"),
    (lambda: AdditiveNoiseSCM(SEX, categories={"sex": ["Female"]}), ValueError, "at least two distinct levels"),
    (lambda: AdditiveNoiseSCM(SEX, categories={"sex": "Female"}), TypeError, "list of levels"),
    (lambda: AdditiveNoiseSCM(SEX, categories={"sex": ["Female", "Male"]}, decimals={"sex": 0}), ValueError,
     "bounds and decimals do not apply"),
    (lambda: AdditiveNoiseSCM(SEX, categories={"region": ["north", "south"]}), ValueError, "not a node of the DAG"),
    # ---------------------------------------------------------------- scm: frames and interventions
    (lambda: AdditiveNoiseSCM(DAG).fit(FRAME.drop(columns="balance")), ValueError,
     r"lacks the column\(s\) \['balance'\]"),
    (lambda: AdditiveNoiseSCM(DAG).fit(FRAME.assign(income=[1.0, np.nan, 3.0, 5.0])), ValueError,
     r"frame\['income'\]\[1\]=nan is missing \(NaN\)"),
    (lambda: AdditiveNoiseSCM(DAG).fit(FRAME.assign(income=[1.0, np.inf, 3.0, 5.0])), ValueError,
     r"frame\['income'\]\[1\]=inf is infinite"),
    (lambda: AdditiveNoiseSCM(DAG).fit(FRAME.assign(gender=["m", "f", "m", "f"])), TypeError,
     "column 'gender' of frame has dtype"),
    (lambda: AdditiveNoiseSCM(DAG).fit(FRAME.iloc[:0]), ValueError, r"frame\['.*'\] is empty"),
    (lambda: AdditiveNoiseSCM(DAG).fit(FRAME.to_numpy()), TypeError, "frame must be a pandas DataFrame"),
    (lambda: AdditiveNoiseSCM(DAG).counterfactual(FRAME, {"gender": 0}), RuntimeError, "not fitted"),
    (lambda: scm().counterfactual(FRAME, {"salary": 1}), ValueError,
     r"do names 'salary', which is not a node of the DAG; nodes are \['balance', 'gender', 'income'\]"),
    (lambda: scm().counterfactual(FRAME, {"gender": [0, 0, 0]}), ValueError,
     r"do\['gender'\] has shape \(3,\); give one scalar or one value per row \(4\)"),
    (lambda: scm().counterfactual(FRAME, {"gender": np.nan}), ValueError, "NaN"),
    (lambda: scm().counterfactual(FRAME, {"gender": "x"}), TypeError, r"do\['gender'\] must hold numbers"),
    (lambda: scm().counterfactual(FRAME, [("gender", 0)]), TypeError, "do must be a dict"),
    (lambda: scm().counterfactual(FRAME, {"gender": pd.Series([0, 1, 0, 1], index=[3, 2, 1, 0])}), ValueError,
     r"do\['gender'\] has a different index from frame"),
    (lambda: scm().counterfactual(FRAME.assign(balance=[np.nan, 1.0, 1.0, 2.0]), {"gender": 0}), ValueError,
     r"frame\['balance'\]\[0\]=nan is missing"),
    (lambda: scm().predict_mechanism("gender", FRAME), ValueError, "is a root"),
    (lambda: scm().predict_mechanism("salary", FRAME), ValueError, "node='salary' is not a node of the DAG"),
    (lambda: scm().abduct(FRAME.drop(columns="income")), ValueError, r"lacks the column\(s\) \['income'\]"),
    (lambda: AdditiveNoiseSCM(DAG, regressors={"balance": DecisionTreeRegressor()}).fit(FRAME).fitted_effects(),
     ValueError, "needs linear regressors.*'balance': 'DecisionTreeRegressor'"),
    (lambda: AdditiveNoiseSCM(SEX, categories={"sex": ["F", "M"]}).fit(RAW), ValueError,
     r"not among categories\['sex'\]"),
    (lambda: AdditiveNoiseSCM(SEX, categories={"sex": ["Female", "Male"]}).fit(RAW).counterfactual(RAW,
                                                                                                   {"sex": "Other"}),
     ValueError, r"do\['sex'\] has values \['Other'\]"),
    (lambda: AdditiveNoiseSCM(SEX).fit(RAW), TypeError, "dtype"),  # without categories, labels are refused
]


def make_pipe_unfitted():
    columns = make_column_transformer((OneHotEncoder(handle_unknown="ignore", sparse_output=False), CATEGORICAL),
                                      remainder="passthrough")
    return make_pipeline(columns, HistGradientBoostingClassifier(max_iter=5, random_state=0))


@pytest.mark.parametrize("call, error, match", CASES)
def test_bad_input_gets_the_packages_own_message(call, error, match):
    with threadpool_limits(1, user_api="openmp"), pytest.raises(error, match=match):
        call()

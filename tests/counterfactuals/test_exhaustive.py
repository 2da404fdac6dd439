"""exhaustive_recourse: the exact cheapest advised move on the whole-unit grid."""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from recourselab.counterfactuals import exhaustive_recourse, exhaustive_recourse_by_price, recourse_for_refused
from recourselab.features import Encoder, FeatureSpec

SPECS = [
    FeatureSpec("stay_months", "continuous", "immutable", unit="months"),
    FeatureSpec("age", "continuous", "increase", advise="never", unit="years"),
    FeatureSpec("income", "continuous", "increase", max_change=6.0, unit="k"),
    FeatureSpec("debt", "continuous", "decrease", max_change=8.0, unit="k"),
    FeatureSpec("education", "ordinal", "increase", order=["basic", "high", "degree", "master"], max_change=1),
    FeatureSpec("job", "categorical", never_advise_levels=("driver",)),
]


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "stay_months": rng.gamma(2.0, 20.0, n).round(2),
        "age": rng.integers(20, 70, n),
        "income": rng.integers(20, 60, n),
        "debt": rng.integers(0, 25, n),
        "education": rng.choice(["basic", "high", "degree", "master"], n),
        "job": rng.choice(["clerk", "driver", "nurse", "teacher"], n),
    }, index=[f"p{i}" for i in range(n)])
    level = X["education"].map({"basic": 0, "high": 1, "degree": 2, "master": 3})
    score = (0.08 * (X["income"] - 40) - 0.15 * (X["debt"] - 10) + 0.6 * level + 0.01 * X["stay_months"]
             + 0.8 * (X["job"] == "nurse") + 0.02 * np.sin(X["age"]))
    return X, (score + rng.logistic(0, 0.5, n) > 1.2).astype(int)


@pytest.fixture(scope="module")
def world():
    X, y = _table()
    pipe = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["education", "job"]),
                                                 remainder="passthrough"),
                         GradientBoostingClassifier(random_state=0)).fit(X, y)
    enc = Encoder(SPECS).fit(X)
    refused = X.index[pipe.predict(X) == 0][:30]
    return X, pipe, enc, refused, exhaustive_recourse(pipe, X, enc, rows=refused)


def _brute(pipe, X, enc, who):
    """The cheapest approved actionable move by itertools.product over the same values, one at a time."""
    person = X.loc[who]
    order = ["basic", "high", "degree", "master"]
    options = {"income": range(int(max(person["income"], 20)), int(min(person["income"] + 6, X["income"].max())) + 1),
               "debt": range(int(max(person["debt"] - 8, X["debt"].min())), int(person["debt"]) + 1),
               "education": order, "job": [j for j in ("clerk", "driver", "nurse", "teacher")
                                           if j != "driver" or j == person["job"]]}
    best = np.inf
    z = enc.transform(X.loc[[who]])
    for values in itertools.product(*options.values()):
        row = X.loc[[who]].assign(**dict(zip(options, values, strict=True))).astype(X.dtypes)
        zr = enc.transform(row)
        if (zr == z).all() or not enc.actionable(z, zr)[0] or pipe.predict(row)[0] != 1:
            continue
        best = min(best, float(enc.cost(z, zr)[0]))
    return best


def test_equals_a_brute_force_minimum_on_a_tiny_case(world):
    X, pipe, enc, refused, res = world
    brute = {who: _brute(pipe, X, enc, who) for who in refused[:4]}
    assert sum(np.isfinite(b) for b in brute.values()) >= 2  # not vacuous
    for who in refused[:4]:
        assert np.isclose(res.summary.loc[who, "cost"], brute[who]) or (
            not res.summary.loc[who, "found"] and np.isinf(brute[who]))


def test_every_move_is_feasible_actionable_and_approved(world):
    X, pipe, enc, refused, res = world
    found = res.summary["found"].to_numpy()
    assert found.any() and set(res.summary["method"]) <= {"exhaustive", "none"}
    Zf, Zc = enc.transform(X.loc[refused]), enc.transform(res.counterfactuals)
    assert enc.feasible(Zf[found], Zc[found]).all() and enc.actionable(Zf[found], Zc[found]).all()
    assert (pipe.predict(res.counterfactuals[found]) == 1).all()
    assert (res.counterfactuals.loc[~found] == X.loc[refused[~found]]).all().all()
    assert (res.counterfactuals.dtypes == X.dtypes).all()
    assert (res.changes["feature"].isin(["income", "debt", "education", "job"])).all()


def test_never_costlier_than_the_searchs_upper_bound(world):
    X, pipe, enc, refused, res = world
    search = recourse_for_refused(pipe, X, enc, rows=refused, progress=False)
    both = res.summary["found"] & search.summary["found"]
    assert both.sum() >= 10
    assert (res.summary.loc[both, "cost"] <= search.summary.loc[both, "cost"] + 1e-9).all()
    # whole-unit grid: the search's moves here are whole units too, so it never finds one the grid lacks
    assert not (search.summary["found"] & ~res.summary["found"]).any()


def test_errors_name_the_argument_and_the_fix_and_nothing_is_mutated(world):
    X, pipe, enc, refused, _ = world
    before = X.copy()
    with pytest.raises(ValueError, match="max_grid=10: the grid for row .* raise max_grid"):
        exhaustive_recourse(pipe, X, enc, rows=refused[:2], max_grid=10)
    with pytest.raises(ValueError, match="names \\['age'\\], which advice may not change"):
        exhaustive_recourse(pipe, X, enc, rows=refused[:2], columns=["income", "age"])
    with pytest.raises(TypeError, match="columns='income' is a string"):
        exhaustive_recourse(pipe, X, enc, rows=refused[:2], columns="income")
    with pytest.raises(ValueError, match="threshold=0"):
        exhaustive_recourse(pipe, X, enc, rows=refused[:2], threshold=0)
    pd.testing.assert_frame_equal(X, before)


def test_batches_do_not_change_the_answer(world):
    X, pipe, enc, refused, res = world
    small = exhaustive_recourse(pipe, X, enc, rows=refused[:8], batch=50)
    pd.testing.assert_frame_equal(small.summary, res.summary.loc[refused[:8]])


def test_columns_restrict_the_grid():
    X, y = _table(200, seed=1)
    model = LogisticRegression(max_iter=1000).fit(X[["income", "debt"]], y)
    specs = [FeatureSpec("income", "continuous", "increase", max_change=6.0),
             FeatureSpec("debt", "continuous", "decrease", max_change=8.0)]
    enc = Encoder(specs).fit(X[["income", "debt"]])
    res = exhaustive_recourse(model, X[["income", "debt"]], enc, columns=["income"])
    assert set(res.changes["feature"]) <= {"income"}


def test_by_price_equals_one_call_per_price(world):
    X, pipe, enc, refused, res = world
    prices = {"specs": None, "education dear": {"education": 6.0}, "job cheap": {"job": 0.2, "debt": 2.0}}
    by_price = exhaustive_recourse_by_price(pipe, X, enc, prices, rows=refused, batch=500)
    assert list(by_price) == list(prices)
    for label, weights in prices.items():
        one = exhaustive_recourse(pipe, X, enc, rows=refused, weights=weights)
        pd.testing.assert_frame_equal(by_price[label].summary, one.summary)
        pd.testing.assert_frame_equal(by_price[label].counterfactuals, one.counterfactuals)
    # not vacuous: the prices change some people's cheapest move, and never make a move cheaper
    dear, specs = by_price["education dear"].summary, by_price["specs"].summary
    assert (dear["changes"] != specs["changes"]).any()
    assert (dear["cost"] >= specs["cost"] - 1e-12).all()
    assert (by_price["specs"].summary["found"] == by_price["job cheap"].summary["found"]).all()


def test_by_price_names_bad_prices_before_any_work(world):
    X, pipe, enc, refused, _ = world
    with pytest.raises(TypeError, match=r"prices=\[\]"):
        exhaustive_recourse_by_price(pipe, X, enc, [], rows=refused)
    with pytest.raises(TypeError, match=r"prices=\{\}"):
        exhaustive_recourse_by_price(pipe, X, enc, {}, rows=refused)
    with pytest.raises(TypeError, match=r"prices\['a'\]=2.0"):
        exhaustive_recourse_by_price(pipe, X, enc, {"a": 2.0}, rows=refused)
    with pytest.raises(ValueError, match=r"prices\['b'\].*unknown feature 'salary'"):
        exhaustive_recourse_by_price(pipe, X, enc, {"a": None, "b": {"salary": 1.0}}, rows=refused)
    with pytest.raises(ValueError, match=r"prices\['a'\].*weights\['job'\]=nan"):
        exhaustive_recourse_by_price(pipe, X, enc, {"a": {"job": float("nan")}}, rows=refused)


def test_the_changes_table_is_describe_changes_for_each_move(world):
    """The batch's vectorised changes table against one describe_changes call per person."""
    from recourselab.counterfactuals import describe_changes

    X, pipe, enc, refused, res = world
    priced = {"job": 0.3, "education": 2.0}
    for result, weights in ((res, None), (recourse_for_refused(pipe, X, enc, rows=refused, progress=False), None),
                            (exhaustive_recourse(pipe, X, enc, rows=refused, weights=priced), priced)):
        found = result.summary.index[result.summary["found"]]
        assert len(found) >= 5  # not vacuous
        Z_from, Z_to = enc.transform(X.loc[found]), enc.transform(result.counterfactuals.loc[found])
        one_by_one = pd.concat([describe_changes(enc, a, b, weights=weights).drop(columns=["allowed", "advice"])
                                .assign(row=label) for label, a, b in zip(found, Z_from, Z_to, strict=True)],
                               ignore_index=True)[["row", "feature", "from", "to", "change", "unit", "cost"]]
        pd.testing.assert_frame_equal(result.changes, one_by_one, check_dtype=False)
        assert set(result.changes["feature"]) >= {"income", "job"}  # continuous and categorical both present

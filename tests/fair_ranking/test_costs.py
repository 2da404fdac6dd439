"""The costs RAGUEL ranks by: the closed-form weighted projection of linear_recourse (no encoder: the relaxation)."""

import numpy as np
import pandas as pd
from hypothesis import given
from ranking_instances import instances, kwargs_of

from recourselab.counterfactuals import linear_recourse

# Example 1 / Table 2 of the paper: loan amount (LA, $'000) and duration (LD, years)
EXAMPLE = pd.DataFrame({"LA": [3.5, 2.0, 4.0, 5.0], "LD": [6.0, 1.0, 4.0, 4.0]},
                       index=["Abdul", "Bogdan", "Chiara", "Diana"])
BOUNDARY = {"coef": [-2.0, 1.0], "intercept": 0.0, "weights": [0.5, 1.0]}  # approved when LD - 2 LA >= 0


def test_example1_costs_and_counterfactuals():
    res = linear_recourse(EXAMPLE, **BOUNDARY)
    assert res.cost.round(2).tolist() == [0.33, 1.00, 1.33, 2.00]
    assert res.X_cf.round(2).to_numpy().tolist() == [[3.06, 6.11], [0.67, 1.33], [2.22, 4.44], [2.33, 4.67]]
    assert list(res.X_cf.index) == list(EXAMPLE.index)
    assert (res.status == "projected").all()
    assert res.to_frame()["n_changed"].tolist() == [2, 2, 2, 2]


def test_scikit_learn_coefficients():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["income", "debt", "age"])
    y = (X["income"] - X["debt"] > 0).astype(int)
    model = LogisticRegression().fit(X, y)  # coef_ of shape (1, 3), intercept_ of shape (1,)
    res = linear_recourse(X, model.coef_, model.intercept_, {"income": 1.0, "debt": 2.0, "age": 1.0},
                          immutable=["age"])
    refused = model.predict(X) == 0
    assert (res.cost[refused] > 0).all() and (res.cost[~refused] == 0).all()
    assert (model.predict_proba(res.X_cf)[:, 1] >= 0.5 - 1e-9).all()
    assert (res.X_cf["age"] == X["age"]).all()


@given(instances())
def test_closed_form_lands_on_the_boundary(inst):
    X = inst["X"]
    kw = kwargs_of(inst)
    kw.pop("steps")
    kw.pop("bounds")
    res = linear_recourse(X, **kw)
    margin = X @ inst["coef"] + inst["intercept"]
    unfav = margin < 0
    cf_margin = res.X_cf @ inst["coef"] + inst["intercept"]
    # on the favourable side by a hair (the slack), so the model's own arithmetic approves every counterfactual
    slack = 1e-9 * (1 + abs(inst["intercept"]) + np.abs(inst["coef"]).sum())
    assert (cf_margin[unfav] >= 0).all()
    np.testing.assert_allclose(cf_margin[unfav], slack, rtol=1e-6, atol=1e-12)
    assert (res.cost[~unfav] == 0).all() and np.array_equal(res.X_cf[~unfav], X[~unfav])
    frozen = ~inst["mutable"]
    np.testing.assert_array_equal(res.X_cf[:, frozen], X[:, frozen])
    w = np.where(inst["mutable"], inst["weights"], 0.0)
    np.testing.assert_allclose(res.cost, np.sqrt((w * res.delta ** 2).sum(axis=1)), atol=1e-9)

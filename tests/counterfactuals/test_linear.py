"""linear_recourse: the actionability box, actionable advice by default, one margin for both methods."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from recourselab.counterfactuals import _linear, linear_recourse
from recourselab.features import ADVICE, Encoder, FeatureSpec

from strategies import assert_allowed, encoded_problems, specs_and_frames

NARROWER = {"free": ADVICE, "increase": ("increase", "never"), "decrease": ("decrease", "never"),
            "immutable": ("never",)}




def quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows without recourse are reported by a warning
        return linear_recourse(*args, **kwargs)


# --------------------------------------------------------------------------- the relaxation: the feasible box


@given(encoded_problems())
def test_the_relaxed_closed_form_respects_the_specs(problem):
    specs, frame, encoder, Z, coef, b, _ = problem
    res = linear_recourse(Z, coef, b, encoder=encoder, actionable=False)
    assert res.advice == "relaxation"
    ok = np.isfinite(res.cost)
    assert_allowed(encoder, Z[ok], np.asarray(res.X_cf)[ok], levels=False)
    assert (res.X_cf[ok] @ coef + b >= -1e-9).all()
    assert set(res.status[~ok]) <= {"infeasible"} and np.isnan(res.X_cf[~ok]).all()
    np.testing.assert_array_equal(res.actionable[ok], encoder.actionable(Z[ok], res.X_cf[ok]))


@settings(max_examples=10)
@given(encoded_problems(max_rows=6))
def test_the_relaxed_mip_respects_the_specs_and_lands_on_levels(problem):
    specs, frame, encoder, Z, coef, b, _ = problem
    res = quiet(Z, coef, b, encoder=encoder, method="mip", actionable=False, time_limit=20)
    ok = np.isfinite(res.cost)
    assert_allowed(encoder, Z[ok], np.asarray(res.X_cf)[ok], levels=True)
    assert (res.X_cf[ok] @ coef + b >= -1e-6).all()
    closed = linear_recourse(Z, coef, b, encoder=encoder, actionable=False)
    # the MIP's box is the closed form's, with steps: it finds recourse only where the box allows it
    assert not (ok & ~np.isfinite(closed.cost)).any()
    assert (res.cost[ok] >= closed.cost[ok] - 1e-6).all()


# --------------------------------------------------------------------------- actionable advice, the default


@st.composite
def advised_problems(draw, max_rows=8):
    """encoded_problems with random advice on the specs (directions narrower than actionability, caps)."""
    specs, frame = draw(specs_and_frames(min_rows=3, max_rows=max_rows))
    assume(any(s.actionability != "immutable" and s.kind != "categorical" for s in specs))
    advised = []
    for s in specs:
        options = [a for a in NARROWER[s.actionability] if s.kind != "categorical" or a in ("any", "never")]
        advise = draw(st.sampled_from(options))
        cap = None
        if advise != "never" and s.kind in ("continuous", "ordinal") and draw(st.booleans()):
            cap = float(draw(st.integers(1, 3))) if s.kind == "ordinal" else draw(st.sampled_from([5.0, 300.0]))
        advised.append(FeatureSpec(s.name, s.kind, s.actionability, order=s.order, advise=advise, max_change=cap))
    encoder = Encoder(advised).fit(frame)
    Z = encoder.transform(frame)
    coef = np.array(draw(st.lists(st.integers(-3, 3), min_size=Z.shape[1], max_size=Z.shape[1])), dtype=float)
    assume((coef != 0).any())
    intercept = -float(np.quantile(Z @ coef, draw(st.sampled_from([0.3, 0.8])))) - 1e-3
    return encoder, Z, coef, intercept


def assert_advice(encoder, Z, res, coef, b):
    """Every counterfactual is actionable, on the favourable side, and survives decoding."""
    assert res.advice == "actionable"
    ok = np.isfinite(res.cost)
    X_cf = np.asarray(res.X_cf)[ok]
    assert encoder.actionable(Z[ok], X_cf).all() and bool(res.actionable[ok].all())
    assert (_linear.margin(X_cf, coef, b) >= 0).all()
    decoded = encoder.transform(encoder.inverse_transform(X_cf))  # rounds integer columns, snaps levels
    np.testing.assert_allclose(decoded, X_cf, atol=1e-9)
    assert (decoded @ coef + b >= 0).all()


@settings(max_examples=40, suppress_health_check=[HealthCheck.filter_too_much])
@given(advised_problems())
def test_the_default_with_an_encoder_is_actionable_advice(problem):
    encoder, Z, coef, b = problem
    res = quiet(Z, coef, b, encoder=encoder, time_limit=20)
    assert_advice(encoder, Z, res, coef, b)
    assert set(res.status) <= {"favourable", "projected", "snapped", "optimal", "infeasible"}
    relaxed = linear_recourse(Z, coef, b, encoder=encoder, actionable=False)
    found = np.isfinite(res.cost)
    assert not (found & ~np.isfinite(relaxed.cost)).any()  # advice is narrower than feasibility ...
    assert (res.cost[found] >= relaxed.cost[found] - 1e-9).all()  # ... so it never costs less


@settings(max_examples=10, suppress_health_check=[HealthCheck.filter_too_much])
@given(advised_problems(max_rows=5))
def test_the_actionable_mip_is_advice_and_finds_whatever_the_snapped_projection_finds(problem):
    encoder, Z, coef, b = problem
    res = quiet(Z, coef, b, encoder=encoder, method="mip", time_limit=20)
    assert_advice(encoder, Z, res, coef, b)
    snapped = quiet(Z, coef, b, encoder=encoder, time_limit=20)
    assert not (np.isfinite(snapped.cost) & ~np.isfinite(res.cost)).any()
    assert set(res.status) <= {"favourable", "optimal", "infeasible"}


def test_without_an_encoder_the_answer_is_labelled_a_relaxation():
    res = linear_recourse(np.array([[0.0, 0.0]]), [1, 1], -1)
    assert res.advice == "relaxation" and res.actionable.isna().all()
    assert "actionable" in res.to_frame().columns


# --------------------------------------------------------------------------- one margin for both methods


def test_the_closed_form_and_the_mip_aim_at_the_same_documented_margin():
    # large coefficients make the margin tau = 1e-9 (1 + |b| + sum |a|) large enough to see (~1e-5)
    X = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, -1.0]])
    a, b = np.array([4000.0, 1500.0]), -9000.0
    tau = 1e-9 * (1 + abs(b) + np.abs(a).sum())
    closed = linear_recourse(X, a, b, [1.0, 2.0])
    mip = linear_recourse(X, a, b, [1.0, 2.0], method="mip")
    refused = X @ a + b < 0
    assert refused.sum() == 2
    for res in (closed, mip):
        margins = _linear.margin(np.asarray(res.X_cf)[refused], a, b)
        assert (margins >= tau * (1 - 1e-6)).all() and (margins <= tau * 10).all()
    # one movable feature: the L1 proxy and the Euclidean cost coincide, and so do the two methods
    one = linear_recourse(X, a, b, [1.0, 2.0], immutable=[1])
    one_mip = linear_recourse(X, a, b, [1.0, 2.0], immutable=[1], method="mip")
    np.testing.assert_allclose(one_mip.cost, one.cost, rtol=1e-9)


@given(st.integers(1, 4).flatmap(lambda d: st.tuples(
    st.lists(st.lists(st.integers(-5, 5), min_size=d, max_size=d), min_size=1, max_size=4),
    st.lists(st.integers(-3, 3), min_size=d, max_size=d),
    st.integers(-8, 8),
    st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=d, max_size=d),
    st.integers(0, 3),
)))
@settings(max_examples=20)
def test_without_steps_the_mip_costs_what_the_closed_form_costs_when_one_feature_moves(args):
    X, a, b, w = (np.array(v, dtype=float) for v in args[:4])
    keep = args[4]
    assume(keep < len(a) and a[keep] != 0)
    immutable = [j for j in range(len(a)) if j != keep]
    if len(immutable) == len(a):
        return
    closed = linear_recourse(X, a, float(b), w, immutable=immutable or None)
    mip = linear_recourse(X, a, float(b), w, immutable=immutable or None, method="mip")
    np.testing.assert_allclose(mip.cost, closed.cost, rtol=1e-7, atol=1e-9)


def test_a_grid_point_on_the_boundary_is_not_enough_when_the_next_step_is_allowed():
    X = np.array([[0.0]])
    # two steps of 0.5 land exactly on the boundary (margin 0); the MIP takes a third, as the margin asks
    res = linear_recourse(X, [1.0], -1.0, [1.0], bounds=(0, 4), steps=0.5, method="mip")
    assert res.X_cf[0, 0] == 1.5
    # where the box stops at the boundary, the boundary itself is the answer
    res = linear_recourse(X, [1.0], -1.0, [1.0], bounds=(0, 1), steps=0.5, method="mip")
    assert res.X_cf[0, 0] == 1.0 and res.status[0] == "optimal"


@given(st.integers(1, 5).flatmap(lambda d: st.tuples(
    st.lists(st.lists(st.floats(-5, 5), min_size=d, max_size=d), min_size=1, max_size=6),
    st.lists(st.floats(-3, 3).filter(lambda v: abs(v) > 1e-3), min_size=d, max_size=d),
    st.floats(-5, 5),
    st.lists(st.floats(0.1, 4), min_size=d, max_size=d),
)))
def test_without_binding_bounds_the_closed_form_is_the_textbook_projection(args):
    X, a, b, w = np.array(args[0]), np.array(args[1]), float(args[2]), np.array(args[3])
    res = linear_recourse(X, a, b, w)  # no bounds at all
    slack = 1e-9 * (1 + abs(b) + np.abs(a).sum())  # counterfactuals aim a hair inside the favourable side
    s = X @ a + b
    target = np.where(s < 0, s - slack, s)
    R = np.sum(a * a / w)
    expected_cost = np.maximum(-target, 0) / np.sqrt(R)
    expected_delta = np.where(s[:, None] < 0, -target[:, None] * (a / w)[None, :] / R, 0.0)
    np.testing.assert_allclose(res.cost, expected_cost, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(res.delta, expected_delta, rtol=1e-10, atol=1e-12)
    # bounds that do not bind change nothing
    wide = linear_recourse(X, a, b, w, bounds=(np.minimum(X, res.X_cf).min(0) - 1, np.maximum(X, res.X_cf).max(0) + 1))
    np.testing.assert_allclose(wide.cost, res.cost, rtol=1e-12)  # (the breakpoint order may differ by rounding)


# --------------------------------------------------------------------------- German Credit, as the chapters use it


@pytest.fixture(scope="module")
def german_model(german):
    from recourselab.models import train_model

    trained = train_model(german, random_state=0)
    Z = trained.encoder.transform(german.frame)
    return trained, Z, trained.model.coef_[0], float(trained.model.intercept_[0])


def test_linear_recourse_on_german_credit_follows_the_book_specs(german_model):
    trained, Z, a, b = german_model
    encoder = trained.encoder
    refused = ~trained.decide(Z)
    res = linear_recourse(Z[refused], a, b, encoder=encoder, actionable=False)
    ok = np.isfinite(res.cost)
    assert ok.mean() > 0.5
    assert encoder.feasible(Z[refused][ok], res.X_cf[ok]).all()
    # checking_account is an 'increase' feature: no counterfactual lowers it
    col = encoder.slices_["checking_account"].start
    assert (res.X_cf[ok][:, col] >= Z[refused][ok][:, col] - 1e-12).all()
    unconstrained = linear_recourse(Z[refused], a, b, np.ones(Z.shape[1]))
    assert (res.cost[ok] >= unconstrained.cost[ok] - 1e-12).all()  # constraints only make recourse dearer
    assert not encoder.feasible(Z[refused], unconstrained.X_cf).all()  # ... and the old projection broke them


def test_actionable_advice_on_german_credit_survives_decoding(german_model):
    trained, Z, a, b = german_model
    encoder = trained.encoder
    refused = np.flatnonzero(~trained.decide(Z))
    advice = linear_recourse(Z[refused], a, b, encoder=encoder)
    ok = advice.has_recourse  # since the instalment rate and property are never advised, a few have none
    assert ok.mean() > 0.9 and advice.advice == "actionable"
    assert encoder.actionable(Z[refused][ok], advice.X_cf[ok]).all()
    # the frame a practitioner reads (whole years, months and DM) is approved by the model
    decoded = encoder.transform(encoder.inverse_transform(advice.X_cf[ok]))
    assert trained.decide(decoded).all()
    # never a move of a feature that is never advised, never past a cap
    for name in ("age", "credit_history", "purpose", "installment_rate", "property"):
        block = encoder.slices_[name]
        np.testing.assert_array_equal(advice.X_cf[ok][:, block], Z[refused][ok][:, block])


@pytest.mark.parametrize("seed", range(4))
def test_the_model_itself_approves_every_linear_counterfactual(german, seed):
    # a point exactly on the boundary can come back a rounding error short (margin -1e-15) and be refused by
    # the model's own arithmetic; counterfactuals aim a hair inside instead
    from recourselab.models import train_model

    trained = train_model(german, random_state=seed)
    encoder = trained.encoder
    Z = encoder.transform(german.frame)
    a, b = trained.model.coef_[0], float(trained.model.intercept_[0])
    refused = np.flatnonzero(~trained.decide(Z))
    for actionable in (False, True):
        closed = linear_recourse(Z[refused], a, b, encoder=encoder, actionable=actionable)
        ok = np.isfinite(closed.cost)
        assert ok.all() or actionable  # advice within the caps may not reach the boundary
        assert ok.mean() > (0.8 if actionable else 0.9) and trained.decide(closed.X_cf[ok]).all()
    few = refused[:: max(1, len(refused) // 6)]  # the MIP on a sample of rows keeps the test quick
    mip = linear_recourse(Z[few], a, b, encoder=encoder, method="mip", actionable=False, time_limit=20)
    solved = np.isfinite(mip.cost)
    assert solved.all() and trained.decide(mip.X_cf[solved]).all()


def test_frames_keep_their_index_and_columns():
    frame = pd.DataFrame({"x0": [0.0, 2.0], "x1": [0.0, 0.0]}, index=["p", "q"])
    res = linear_recourse(frame, {"x0": 1.0, "x1": 1.0}, -1.0)
    assert res.X_cf.index.tolist() == ["p", "q"] and res.X_cf.columns.tolist() == ["x0", "x1"]
    assert res.to_frame().index.tolist() == ["p", "q"]
    np.testing.assert_array_equal(frame.to_numpy(), [[0.0, 0.0], [2.0, 0.0]])  # not modified

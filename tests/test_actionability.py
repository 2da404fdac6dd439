"""One actionability model: no recourse generator in the package returns a move its Encoder forbids.

Each generator runs on random feature specs of every kind and actionability
(tests/strategies.py) and a random linear model; every counterfactual it
returns must pass ``Encoder.feasible`` against its factual, stay in the
encoder's range, keep one-hot blocks whole and ordinal features on a level
where the method promises levels.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recourselab.allocation import feature_ce
from recourselab.counterfactuals import NO_COUNTERFACTUAL, _linear, linear_recourse, nearest_counterfactuals
from recourselab.fair_ranking import raguel, raguel_block
from recourselab.features import Encoder, FeatureSpec
from recourselab.group_counterfactuals import build_feasibility_graph, face_counterfactuals, max_coverage, min_max_cost

from strategies import specs_and_frames


@st.composite
def encoded_problems(draw, min_rows=4, max_rows=14):
    """Specs, a fitted encoder, encoded rows, a linear model (coef, intercept) and two groups."""
    specs, frame = draw(specs_and_frames(min_rows=min_rows, max_rows=max_rows))
    # some feature a linear recourse may move (immutables and categories stay fixed)
    assume(any(s.actionability != "immutable" and s.kind != "categorical" for s in specs))
    encoder = Encoder(specs).fit(frame)
    Z = encoder.transform(frame)
    d = Z.shape[1]
    coef = np.array(draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d)), dtype=float)
    assume((coef != 0).any())
    score = Z @ coef
    # an intercept that refuses some rows and accepts others where possible
    cut = draw(st.sampled_from([0.3, 0.5, 0.8]))
    intercept = -float(np.quantile(score, cut)) - 1e-3
    groups = np.array(draw(st.lists(st.sampled_from(["P", "N"]), min_size=len(Z), max_size=len(Z))))
    return specs, frame, encoder, Z, coef, intercept, groups


def assert_allowed(encoder, Z_from, Z_to, *, levels):
    """Feasible, inside [0, 1], one-hot blocks unchanged; ordinal/binary on a level when ``levels``."""
    assert encoder.feasible(Z_from, Z_to).all()
    assert (Z_to >= -1e-12).all() and (Z_to <= 1 + 1e-12).all()
    for spec in encoder.specs_:
        block = encoder.slices_[spec.name]
        if spec.kind == "categorical":
            np.testing.assert_array_equal(Z_to[:, block], Z_from[:, block])
        elif levels and spec.kind in ("ordinal", "binary"):
            scaled = Z_to[:, block.start] * max(len(encoder.levels_[spec.name]) - 1, 1)
            np.testing.assert_allclose(scaled, np.round(scaled), atol=1e-9)


@given(encoded_problems())
def test_linear_recourse_closed_form_respects_the_specs(problem):
    specs, frame, encoder, Z, coef, b, _ = problem
    res = linear_recourse(Z, coef, b, encoder=encoder)
    ok = np.isfinite(res.cost)
    assert_allowed(encoder, Z[ok], np.asarray(res.X_cf)[ok], levels=False)
    assert (res.X_cf[ok] @ coef + b >= -1e-9).all()
    assert set(res.status[~ok]) <= {"infeasible"} and np.isnan(res.X_cf[~ok]).all()


@settings(max_examples=15)
@given(encoded_problems(max_rows=6))
def test_linear_recourse_mip_respects_the_specs_and_lands_on_levels(problem):
    specs, frame, encoder, Z, coef, b, _ = problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows without recourse are reported by a warning
        res = linear_recourse(Z, coef, b, encoder=encoder, method="mip", time_limit=20)
    ok = np.isfinite(res.cost)
    assert_allowed(encoder, Z[ok], np.asarray(res.X_cf)[ok], levels=True)
    assert (res.X_cf[ok] @ coef + b >= -1e-6).all()
    closed = linear_recourse(Z, coef, b, encoder=encoder)
    # the MIP's box is the closed form's, with steps: it finds recourse only where the box allows it
    assert not (ok & ~np.isfinite(closed.cost)).any()
    assert (res.cost[ok] >= closed.cost[ok] - 1e-6).all()


@settings(max_examples=30)
@given(encoded_problems(min_rows=6, max_rows=16), st.booleans())
def test_raguel_edits_respect_the_specs_and_keep_profiles_consistent(problem, blocks):
    specs, frame, encoder, Z, coef, b, groups = problem
    assume((_linear.parse_problem(Z, coef, b, None, encoder=encoder).usable).any())
    keep = np.isfinite(linear_recourse(Z, coef, b, encoder=encoder).cost)
    assume(keep.sum() >= 4 and len(set(groups[keep])) == 2)
    kw = dict(coef=coef, intercept=b, encoder=encoder, protected_group="P", tolerance=1 / 2)
    if blocks:
        res = raguel_block(Z[keep], groups[keep], block_size=2, **kw)
    else:
        res = raguel(Z[keep], groups[keep], **kw)
    X_new = np.asarray(res.X_new)
    assert_allowed(encoder, Z[keep], X_new, levels=True)
    # a profile decodes to the same row it encodes: no half-moved one-hot block or off-level ordinal
    np.testing.assert_allclose(encoder.transform(encoder.inverse_transform(X_new)), X_new, atol=1e-9)
    recomputed = linear_recourse(X_new, coef, b, encoder=encoder).cost
    np.testing.assert_array_equal(res.cost_new, recomputed)


@settings(max_examples=30)
@given(encoded_problems(min_rows=4, max_rows=16))
def test_nearest_face_group_and_feature_counterfactuals_respect_the_specs(problem):
    specs, frame, encoder, Z, coef, b, _ = problem
    accepted = Z @ coef + b >= 0
    assume(accepted.any() and (~accepted).any())
    res = nearest_counterfactuals(Z[~accepted], Z[accepted], encoder)
    ok = res.has_recourse
    assert encoder.feasible(Z[~accepted][ok], Z[accepted][res.best_index[ok]]).all()

    # an epsilon above the largest possible distance: every feasible pair is an edge
    graph = build_feasibility_graph(Z, np.sqrt(Z.shape[1]) + 1.0, encoder=encoder, weighting="distance")
    face = face_counterfactuals(graph, np.flatnonzero(~accepted), np.flatnonzero(accepted))
    found = np.isfinite(face.cost)
    sources, targets = face.sources[found], np.asarray(face.target)[found]
    assert encoder.feasible(Z[sources], Z[targets]).all()

    # FACEGroup's selections assign factuals to candidates through the graph's costs
    refused_rows, accepted_rows = np.flatnonzero(~accepted), np.flatnonzero(accepted)
    C = graph.costs(refused_rows, accepted_rows)
    if np.isfinite(C).any():
        d = float(C[np.isfinite(C)].max())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a coverage the candidates cannot reach is reported, not an error
            results = (max_coverage(C, min(2, C.shape[1]), d), min_max_cost(C, min(2, C.shape[1]), 0.5))
        for res in results:
            served = res.assignment != NO_COUNTERFACTUAL
            assert encoder.feasible(Z[refused_rows[served]], Z[accepted_rows[res.assignment[served]]]).all()

    class Linear:  # a probabilistic classifier on the same boundary, as feature_ce expects
        classes_ = np.array([0, 1])

        def predict_proba(self, X):
            p = 1 / (1 + np.exp(-(np.asarray(X) @ coef + b)))
            return np.column_stack([1 - p, p])

    for i in np.flatnonzero(~accepted)[:3]:
        ce = feature_ce(Linear(), Z, int(i), 0.5, encoder)
        if np.isfinite(ce.cost):
            assert encoder.feasible(Z[[i]], Z[[ce.target]]).all()


# --------------------------------------------------------------------------- the box-constrained projection


def brute_force_projection(x, a, b, w, lower, upper):
    """Exact minimum of sum w (x' - x)^2 s.t. a.x' + b >= 0, lower <= x' <= upper, by enumeration.

    At the optimum some features sit on a bound and the others solve the unbounded projection with
    those fixed; trying every set of features at every one of their bounds and keeping the cheapest
    candidate that lies inside the box and reaches the boundary gives the optimum exactly.
    """
    d = len(x)
    if a @ x + b >= 0:
        return 0.0
    best = np.inf
    for pattern in np.ndindex(*([3] * d)):  # 0: free, 1: at lower, 2: at upper
        y = x.copy()
        free = []
        for j, p in enumerate(pattern):
            if p == 1:
                y[j] = lower[j]
            elif p == 2:
                y[j] = upper[j]
            else:
                free.append(j)
        if not np.isfinite(y).all():
            continue
        gap = -(a @ y + b)
        if gap > 0:
            R = sum(a[j] ** 2 / w[j] for j in free)
            if R == 0:
                continue
            for j in free:
                y[j] += gap * a[j] / w[j] / R
        if a @ y + b < -1e-9 or (y < lower - 1e-9).any() or (y > upper + 1e-9).any():
            continue
        best = min(best, float(np.sqrt(np.sum(w * (y - x) ** 2))))
    return best


@given(st.integers(1, 4).flatmap(lambda d: st.tuples(
    st.lists(st.integers(-4, 4), min_size=d, max_size=d),
    st.lists(st.integers(-3, 3), min_size=d, max_size=d),
    st.integers(-8, 8),
    st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=d, max_size=d),
    st.lists(st.sampled_from([-np.inf, -5.0, -2.0, -1.0, 0.0]), min_size=d, max_size=d),
    st.lists(st.sampled_from([0.0, 1.0, 2.0, 5.0, np.inf]), min_size=d, max_size=d),
)))
def test_box_projection_equals_brute_force(args):
    x, a, b, w, lo, hi = (np.array(v, dtype=float) for v in args)
    b = float(b)
    assume((a != 0).any())
    res = linear_recourse(x[None, :], a, b, w, bounds=(lo, hi))
    box_lo, box_hi = np.minimum(lo, x), np.maximum(hi, x)  # the current value is always allowed
    # counterfactuals aim a hair (the slack) inside the favourable side
    slack = 1e-9 * (1 + abs(b) + np.abs(a).sum())
    if a @ x + b < 0:
        expected = brute_force_projection(x, a, b - slack, w, box_lo, box_hi)
        assume(np.isfinite(expected) or np.isinf(brute_force_projection(x, a, b, w, box_lo, box_hi)))
    else:
        expected = 0.0
    if np.isinf(expected):
        assert np.isinf(res.cost[0]) and res.status[0] == "infeasible"
    else:
        assert res.cost[0] == pytest.approx(expected, rel=1e-9, abs=1e-9)
        x_cf = res.X_cf[0]
        assert (x_cf >= box_lo - 1e-12).all() and (x_cf <= box_hi + 1e-12).all()
        assert a @ x_cf + b >= -1e-9
        assert np.sqrt(np.sum(w * (x_cf - x) ** 2)) == pytest.approx(res.cost[0], rel=1e-9, abs=1e-12)


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


def test_linear_recourse_on_german_credit_follows_the_book_specs(german):
    from recourselab.models import train_model

    trained = train_model(german, random_state=0)
    encoder = trained.encoder
    Z = encoder.transform(german.frame)
    a, b = trained.model.coef_[0], float(trained.model.intercept_[0])
    refused = ~trained.decide(Z)
    res = linear_recourse(Z[refused], a, b, encoder=encoder)
    ok = np.isfinite(res.cost)
    assert ok.mean() > 0.5
    assert encoder.feasible(Z[refused][ok], res.X_cf[ok]).all()
    # checking_account is an 'increase' feature: no counterfactual lowers it
    col = encoder.slices_["checking_account"].start
    assert (res.X_cf[ok][:, col] >= Z[refused][ok][:, col] - 1e-12).all()
    unconstrained = linear_recourse(Z[refused], a, b, np.ones(Z.shape[1]))
    assert (res.cost[ok] >= unconstrained.cost[ok] - 1e-12).all()  # constraints only make recourse dearer
    assert not encoder.feasible(Z[refused], unconstrained.X_cf).all()  # ... and the old projection broke them


@pytest.mark.parametrize("seed", range(10))
def test_the_model_itself_approves_every_linear_counterfactual(german, seed):
    # a point exactly on the boundary can come back a rounding error short (margin -1e-15) and be refused by
    # the model's own arithmetic; counterfactuals aim a hair inside instead
    from recourselab.models import train_model

    trained = train_model(german, random_state=seed)
    encoder = trained.encoder
    Z = encoder.transform(german.frame)
    a, b = trained.model.coef_[0], float(trained.model.intercept_[0])
    refused = np.flatnonzero(~trained.decide(Z))
    closed = linear_recourse(Z[refused], a, b, encoder=encoder)
    ok = np.isfinite(closed.cost)
    assert ok.all() and trained.decide(closed.X_cf[ok]).all()
    few = refused[:: max(1, len(refused) // 8)]  # the MIP on a sample of rows keeps the test quick
    mip = linear_recourse(Z[few], a, b, encoder=encoder, method="mip", time_limit=20)
    solved = np.isfinite(mip.cost)
    assert solved.all() and trained.decide(mip.X_cf[solved]).all()


def test_raguel_with_an_encoder_needs_finite_costs_and_explains_how_to_filter():
    specs = [FeatureSpec("income", "continuous", "increase"), FeatureSpec("age", "continuous", "immutable")]
    frame = pd.DataFrame({"income": [0.0, 0.5, 1.0, 0.2], "age": [20, 30, 40, 50]})
    encoder = Encoder(specs).fit(frame)
    Z = encoder.transform(frame)
    # age (immutable) decides nearly alone: even the top income leaves the two younger rows refused
    with pytest.raises(ValueError, match=r"2 of 4 rows \(first positions \[0, 1\]\) cannot reach the favourable side"):
        raguel(Z, ["P", "N", "P", "N"], coef=[0.1, 1.0], intercept=-0.5, encoder=encoder, protected_group="P")


def test_linear_recourse_with_encoder_checks_the_columns(german_encoder):
    Z = np.zeros((2, german_encoder.n_columns))
    with pytest.raises(ValueError, match="X has 3 columns but the encoder produces"):
        linear_recourse(Z[:, :3], np.ones(3), 0.0, encoder=german_encoder)
    frame = pd.DataFrame(Z, columns=[f"c{j}" for j in range(Z.shape[1])])
    with pytest.raises(ValueError, match="are not the encoder's encoded columns"):
        linear_recourse(frame, np.ones(Z.shape[1]), 0.0, encoder=german_encoder)

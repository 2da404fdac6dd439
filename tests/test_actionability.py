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
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from recourselab.allocation import feature_ce
from recourselab.counterfactuals import NO_COUNTERFACTUAL, _linear, linear_recourse, nearest_counterfactuals
from recourselab.fair_ranking import raguel, raguel_block
from recourselab.features import Encoder, FeatureSpec
from recourselab.group_counterfactuals import build_feasibility_graph, face_counterfactuals, max_coverage, min_max_cost

from strategies import assert_allowed, encoded_problems


@settings(max_examples=30)
@given(encoded_problems(min_rows=6, max_rows=16), st.booleans())
def test_raguel_edits_respect_the_specs_and_keep_profiles_consistent(problem, blocks):
    specs, frame, encoder, Z, coef, b, groups = problem
    assume((_linear.parse_problem(Z, coef, b, None, encoder=encoder).usable).any())
    keep = np.isfinite(linear_recourse(Z, coef, b, encoder=encoder, actionable=False).cost)  # raguel's costs
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
    recomputed = linear_recourse(X_new, coef, b, encoder=encoder, actionable=False).cost
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


def test_raguel_with_an_encoder_needs_finite_costs_and_explains_how_to_filter():
    specs = [FeatureSpec("income", "continuous", "increase"), FeatureSpec("age", "continuous", "immutable")]
    frame = pd.DataFrame({"income": [0.0, 0.5, 1.0, 0.2], "age": [20, 30, 40, 50]})
    encoder = Encoder(specs).fit(frame)
    Z = encoder.transform(frame)
    # age (immutable) decides nearly alone: even the top income leaves the two younger rows refused
    with pytest.raises(ValueError, match=r"2 of 4 rows \(first positions \[0, 1\]\) cannot reach the favourable side"):
        raguel(Z, ["P", "N", "P", "N"], coef=[0.1, 1.0], intercept=-0.5, encoder=encoder, protected_group="P")


# --------------------------------------------------------------------------- advice (issue 22, part 2)
class LinearModel:
    """A probabilistic classifier on the boundary coef·z + b = 0, as the model-taking generators expect."""

    classes_ = np.array([0, 1])

    def __init__(self, coef, intercept):
        self.coef, self.intercept = np.asarray(coef, float), float(intercept)

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-(np.asarray(X, float) @ self.coef + self.intercept)))
        return np.column_stack([1 - p, p])


def assert_labelled(result, encoder, Z_from, Z_to, found):
    """A result labelled 'actionable' holds only actionable moves; a relaxation says so row by row."""
    assert result.advice in ("actionable", "relaxation")
    ok = encoder.actionable(Z_from[found], Z_to[found]) if found.any() else np.ones(0, bool)
    if result.advice == "actionable":
        assert ok.all()
    flags = getattr(result, "actionable", None)
    if flags is not None:
        flags = np.asarray(flags, bool) if np.ndim(flags) == 2 else pd.Series(flags).fillna(False).to_numpy(bool)
        flags = flags[:, 0] if flags.ndim == 2 else flags  # nearest: one flag per ranked target; the best first
        np.testing.assert_array_equal(flags[found], ok)


@settings(max_examples=40, deadline=None)
@given(encoded_problems(min_rows=4, max_rows=14, advice=True))
def test_every_advice_generator_returns_actionable_moves_or_says_it_relaxes(problem):
    """The one advice model (DESIGN section 3): nearest, linear, FACE and feature counterfactuals."""
    specs, frame, encoder, Z, coef, b, _ = problem
    accepted = Z @ coef + b >= 0
    assume(accepted.any() and (~accepted).any())
    refused = np.flatnonzero(~accepted)

    nearest = nearest_counterfactuals(Z[refused], Z[accepted], encoder)
    assert nearest.advice == "actionable"
    found = np.asarray(nearest.has_recourse, bool)
    targets = np.zeros_like(Z[refused])
    targets[found] = Z[accepted][np.asarray(nearest.best_index[found], int)]
    assert_labelled(nearest, encoder, Z[refused], targets, found)

    linear = linear_recourse(Z[refused], coef, b, encoder=encoder)
    assert linear.advice == "actionable"
    found = np.isfinite(linear.cost)
    assert_labelled(linear, encoder, Z[refused], np.asarray(linear.X_cf, float), found)
    assert (np.asarray(linear.X_cf, float)[found] @ coef + b >= 0).all()  # the advice flips the model

    graph = build_feasibility_graph(Z, np.sqrt(Z.shape[1]) + 1.0, encoder=encoder, weighting="distance")
    for strict in (True, False):
        face = face_counterfactuals(graph, refused, np.flatnonzero(accepted), actionable=strict)
        found = np.isfinite(face.cost)
        ends = np.zeros_like(Z[face.sources])
        ends[found] = Z[np.asarray(face.target)[found].astype(int)]
        assert_labelled(face, encoder, Z[face.sources], ends, found)
        assert face.advice == ("actionable" if strict else "relaxation")

    model = LinearModel(coef, b)
    for i in refused[:3]:
        ce = feature_ce(model, Z, int(i), 0.5, encoder)
        if np.isfinite(ce.cost):
            assert ce.advice == "actionable" and encoder.actionable(Z[[i]], Z[[ce.target]]).all()


# Random problems often leave fewer than 4 refused rows that can reach approval, which the test needs
# (assume below); more rows make that rarer, and the filter health check is waived for the rest
# (it failed one CI run on 11-27: 7 problems kept of 57).
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(encoded_problems(min_rows=8, max_rows=16, advice=True), st.booleans())
def test_raguel_modifications_are_advice_or_a_labelled_relaxation(problem, blocks):
    specs, frame, encoder, Z, coef, b, groups = problem
    assume((_linear.parse_problem(Z, coef, b, None, encoder=encoder).usable).any())
    cost = linear_recourse(Z, coef, b, encoder=encoder, actionable=False).cost  # the relaxed costs raguel ranks by
    keep = np.isfinite(cost) & (cost > 0)  # the waiting list: refused rows that can reach approval
    assume(keep.sum() >= 4)
    # the protected group holds the dearest recourse, so the top of the list lacks it and RAGUEL must act
    ranks = np.argsort(np.argsort(cost[keep], kind="stable"), kind="stable")
    groups = np.where(ranks >= keep.sum() // 2, "P", "N")
    kw = dict(coef=coef, intercept=b, encoder=encoder, protected_group="P", tolerance=1 / 3)
    res = raguel_block(Z[keep], groups, block_size=2, **kw) if blocks else raguel(Z[keep], groups, **kw)
    X_new = np.asarray(res.X_new, float)
    changed = np.asarray(res.changed, bool)
    assert res.advice == "actionable" and res.cost_basis  # the ranking's costs say what they are
    if changed.any():
        assert encoder.actionable(Z[keep][changed], X_new[changed]).all()

"""Integrated gradients: completeness, the quadrature rules, finite differences for any model, the favourable
class, frames read by name, and attributions per original feature."""

import types
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from explanation_consistency.cec_cases import random_params, small_problem
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression

from recourselab.explanation_consistency import (
    IG_RULES,
    MLPClassifier,
    attributions_by_feature,
    audit_explanations,
    cec_scores,
    ig_quadrature,
    integrated_gradients,
    label_group_baselines,
)
from recourselab.explanation_consistency.attributions import FD_BLOCK_EVALUATIONS, SaturatedProbabilityWarning
from recourselab.explanation_consistency.network import ig_network, logits


def linear_network(w, c, mean, scale):
    """An MLPClassifier without hidden layer set to the logit w'(x - mean)/scale + c (as fit would store it)."""
    clf = MLPClassifier(hidden_layer_sizes=())
    clf.params_ = ((np.asarray(w, np.float32)[:, None], np.asarray([c], np.float32)),)
    clf.mean_, clf.scale_ = np.asarray(mean, float), np.asarray(scale, float)
    clf.classes_, clf.n_features_in_ = np.array([0, 1]), len(w)
    return clf


def test_ig_of_linear_models_is_the_closed_form():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 4))
    y = (X @ [1.0, -2.0, 0.5, 0.0] + rng.normal(size=64) > 0).astype(int)
    B = rng.normal(size=(64, 4))
    sk = LogisticRegression().fit(X, y)
    assert np.allclose(integrated_gradients(sk, X, B), (X - B) * sk.coef_.ravel(), rtol=1e-12, atol=1e-12)

    # our network without hidden layer, on standardised inputs: the weights of the logit on X are w / scale
    lin = linear_network([1.0, -2.0, 0.5, 0.0], 0.3, X.mean(axis=0), X.std(axis=0))
    G = integrated_gradients(lin, X, B, steps=7)
    assert np.allclose(G, (X - B) * np.array([1.0, -2.0, 0.5, 0.0]) / X.std(axis=0), rtol=1e-5, atol=1e-5)
    # completeness is exact for a linear logit, whatever the number of steps
    assert np.allclose(G.sum(axis=1), lin.decision_function(X) - lin.decision_function(B), rtol=1e-4, atol=1e-4)


IG_NETWORK = jax.jit(ig_network, static_argnums=(3,))
LOGITS = jax.jit(logits)


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10**6), sizes=st.sampled_from([(4, 8, 1), (4, 16, 8, 1), (4, 12, 8, 6, 1)]))
def test_ig_completeness_within_the_midpoint_rule_bound(seed, sizes):
    """Completeness: sum_j IG_j = f(x) - f(b), up to the Riemann-sum error.

    Along the path a ReLU network's logit is piecewise linear, so the integrand
    (its slope) is piecewise constant and the midpoint rule is only first-order
    accurate: each kink can cost up to |jump| / (2T), so the error is at most
    TV / (2T), with TV the total variation of the slope along the path (measured
    on a grid of 4,096 points, which can only under-estimate it, hence a 10%
    allowance) in float64. The per-row 1% rule is checked on a smooth function below.
    """
    steps, grid = 64, 4096
    rng = np.random.default_rng(seed)
    with jax.enable_x64(True):
        params = random_params(seed, sizes)
        X, B = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)) * 0.5
        G = np.asarray(IG_NETWORK(params, jnp.asarray(X), jnp.asarray(B), steps))
        alphas = np.linspace(0.0, 1.0, grid + 1)
        path = B[:, None, :] + alphas[None, :, None] * (X - B)[:, None, :]
        f = np.asarray(LOGITS(params, jnp.asarray(path.reshape(-1, 4)))).reshape(6, grid + 1)
    slopes = np.diff(f, axis=1) * grid
    tv = np.abs(np.diff(slopes, axis=1)).sum(axis=1)
    error = np.abs(G.sum(axis=1) - (f[:, -1] - f[:, 0]))
    assert (error <= 1.1 * tv / (2 * steps) + 1e-9).all()


def _tanh_network(seed, scale=1.0):
    rng = np.random.default_rng(seed)
    W1 = jnp.asarray(rng.normal(size=(5, 16)) * scale)
    W2 = jnp.asarray(rng.normal(size=16) * scale)
    return (lambda Z: jnp.tanh(jnp.asarray(Z) @ W1) @ W2), rng


def test_ig_completeness_one_percent_on_a_smooth_function():
    """For a smooth logit (tanh network in jax.numpy) the midpoint rule is second order: 1% at T = 64 holds,
    by autodiff and by finite differences. Rows with |f(x) - f(b)| < 0.05 are skipped (a relative error there
    divides by almost nothing)."""
    f, rng = _tanh_network(3)
    X, B = rng.normal(size=(40, 5)), rng.normal(size=(40, 5)) * 0.5
    delta = np.asarray(f(X) - f(B), dtype=float)
    keep = np.abs(delta) > 0.05
    assert keep.sum() > 30
    G = integrated_gradients(f, X, B, steps=64)
    fd = integrated_gradients(f, X, B, steps=64, method="finite-difference")
    for A in (G, fd):
        assert (np.abs(A.sum(axis=1) - delta)[keep] <= 1e-2 * np.abs(delta[keep])).all()
    assert np.allclose(fd, G, rtol=0.05, atol=0.02)


# --------------------------------------------------------------------------- quadrature rules
@pytest.mark.parametrize("rule", IG_RULES)
@pytest.mark.parametrize("steps", [2, 3, 6, 17, 64])
def test_quadrature_weights_sum_to_one_and_integrate_what_the_rule_promises(rule, steps):
    alphas, weights = ig_quadrature(steps, rule)
    assert alphas.shape == weights.shape == (steps,)
    assert weights.sum() == pytest.approx(1.0, abs=1e-14) and (weights > 0).all()
    assert (np.diff(alphas) > 0).all() and alphas[0] >= 0 and alphas[-1] <= 1
    # each node lies in its cell [c_{k-1}, c_k] of cumulative weights (the finite-difference path relies on it;
    # for Gauss-Legendre this is the Chebyshev-Markov-Stieltjes separation)
    upper = np.cumsum(weights)
    assert (alphas <= upper + 1e-14).all() and (alphas >= upper - weights - 1e-14).all()
    # degree of exactness: 2T - 1 for Gauss-Legendre, 1 for the midpoint and trapezoid rules
    degree = 2 * steps - 1 if rule == "gauss-legendre" else 1
    for k in range(degree + 1):
        assert weights @ alphas**k == pytest.approx(1 / (k + 1), rel=1e-12)
    if rule != "gauss-legendre":
        assert abs(weights @ alphas**2 - 1 / 3) > 1e-6     # and not more


def test_gauss_legendre_with_few_points_matches_a_fine_riemann_sum_on_a_smooth_network():
    """On a smooth (tanh) network Gauss-Legendre with 16 points lands within the midpoint rule's own error bound
    of a 1,024-point Riemann sum; the bound is max|h''| / (24 T^2) per attribution, h = the integrand, its second
    derivative measured on a grid of 2,048 intervals (10% allowance, as a grid can under-estimate a maximum).
    The midpoint rule with the same 16 points is more than 100 times further off."""
    with jax.enable_x64(True):
        f, rng = _tanh_network(5, scale=0.3)
        X, B = rng.normal(size=(20, 5)), rng.normal(size=(20, 5)) * 0.5
        fine = integrated_gradients(f, X, B, steps=1024)
        gl16 = integrated_gradients(f, X, B, steps=16, rule="gauss-legendre")
        mid16 = integrated_gradients(f, X, B, steps=16)
        grid = 2048
        alphas = np.linspace(0.0, 1.0, grid + 1)
        path = B[:, None, :] + alphas[None, :, None] * (X - B)[:, None, :]
        grads = np.asarray(jax.vmap(jax.grad(lambda z: f(z[None])[0]))(jnp.asarray(path.reshape(-1, 5))))
    h = grads.reshape(20, grid + 1, 5) * (X - B)[:, None, :]
    h2 = np.abs(np.diff(h, n=2, axis=1)).max(axis=1) * grid**2
    bound = 1.1 * h2 / (24 * 1024**2) + 1e-12
    assert (np.abs(gl16 - fine) <= bound).all()
    assert np.abs(mid16 - fine).max() > 100 * np.abs(gl16 - fine).max()


# --------------------------------------------------------------------------- any model: finite differences
class CountingModel:
    """Any object with predict_proba (and classes_) on the encoded matrix, counting what it is asked."""

    def __init__(self, model):
        self.model, self.classes_, self.calls, self.rows = model, model.classes_, 0, 0

    def predict_proba(self, Z):
        self.calls += 1
        self.rows += len(Z)
        return self.model.predict_proba(Z)


@pytest.fixture(scope="module")
def tree_problem():
    X, y, a = small_problem(300)
    X = np.column_stack([X, np.random.default_rng(0).normal(size=300)])   # a 4th column no model needs
    return X, y, a, label_group_baselines(X, y, a)


@pytest.mark.parametrize("rule", IG_RULES)
def test_finite_differences_give_the_exact_ig_of_a_logistic_regression(rule, tree_problem):
    X, y, a, B = tree_problem
    model = LogisticRegression().fit(X, y)
    exact = (X[:30] - B[:30]) * model.coef_.ravel()
    # the logit of predict_proba is linear, so every cell's difference is exact, whatever the rule or T
    fd = integrated_gradients(model, X[:30], B[:30], steps=3, rule=rule, method="finite-difference")
    assert np.allclose(fd, exact, rtol=1e-9, atol=1e-10)
    counting = CountingModel(model)                                    # duck-typed: only predict_proba and classes_
    assert np.allclose(integrated_gradients(counting, X[:30], B[:30], steps=3, rule=rule), exact, rtol=1e-9,
                       atol=1e-10)


def test_finite_differences_converge_to_the_ig_of_our_network(plain_mlp, pairs):
    """Against the autodiff IG of the same network: both approximate one integral with first-order error (a
    ReLU network's gradient jumps along the path), so we compare each with a 512-point autodiff reference: the
    finite differences at T = 64 are no further from it than twice the autodiff sum's own error at T = 64,
    and they halve (or better) from T = 16 to T = 64."""
    X, _, _, _, B = pairs
    rows = slice(0, 30)
    reference = integrated_gradients(plain_mlp, X[rows], B[rows], steps=2048)

    def error(G):
        return np.abs(G - reference).sum()

    fd16 = integrated_gradients(plain_mlp, X[rows], B[rows], steps=16, method="finite-difference")
    fd64 = integrated_gradients(plain_mlp, X[rows], B[rows], steps=64, method="finite-difference")
    ad64 = integrated_gradients(plain_mlp, X[rows], B[rows], steps=64)
    assert error(fd64) <= 2 * error(ad64) + 1e-4 * np.abs(reference).sum()
    assert error(fd64) <= 0.5 * error(fd16)
    assert error(fd64) <= 0.02 * np.abs(reference).sum()


def test_tree_models_through_predict_proba(tree_problem):
    X, y, a, B = tree_problem
    n, d, steps = 25, X.shape[1], 16

    def logit(model, Z):
        p = np.clip(model.predict_proba(Z)[:, 1], 1e-12, 1 - 1e-12)
        return np.log(p) - np.log1p(-p)

    # stumps: the logit is a sum of one-column step functions, so the cells telescope and completeness is exact
    stumps = HistGradientBoostingClassifier(max_depth=1, max_iter=60, random_state=0).fit(X, y)
    counting = CountingModel(stumps)
    G = integrated_gradients(counting, X[:n], B[:n], steps=steps)
    assert np.allclose(G.sum(axis=1), logit(stumps, X[:n]) - logit(stumps, B[:n]), rtol=0, atol=1e-9)
    assert np.abs(G).sum() > 1.0                                 # the jumps are counted, not missed
    assert counting.rows == 2 * d * steps * n                    # the stated cost: 2dT evaluations per row
    assert counting.calls == -(-n // (FD_BLOCK_EVALUATIONS // (2 * d * steps)))
    # deeper trees interact: finite attributions of the right shape, completeness only approximate, and a
    # column no split uses gets exactly nothing
    deep = HistGradientBoostingClassifier(max_depth=3, max_iter=60, random_state=0).fit(X, y)
    G = integrated_gradients(deep, X[:n], B[:n], steps=steps)
    assert G.shape == (n, d) and np.isfinite(G).all()
    used = {int(node["feature_idx"]) for tree in deep._predictors for node in tree[0].nodes if not node["is_leaf"]}
    for j in set(range(d)) - used:
        assert (G[:, j] == 0).all()
    with pytest.raises(TypeError, match="cannot differentiate a HistGradientBoostingClassifier"):
        integrated_gradients(deep, X[:2], B[:2], method="autodiff")
    # the one-call audit works on the tree model as it is
    audit = audit_explanations(deep, X, y, a, financial=[0], steps=8)
    assert audit.cec.attributions.shape == (len(X), d) and ((audit.cec.score >= 0) & (audit.cec.score <= 1)).all()


def test_probabilities_of_exactly_zero_or_one_are_flagged():
    """A single tree predicts 0 and 1: the clipped logit (±27.6) would set the attributions; we warn and say why."""
    from sklearn.tree import DecisionTreeClassifier

    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    tree = DecisionTreeClassifier().fit(X, [0, 0, 1, 1])
    with pytest.warns(SaturatedProbabilityWarning, match=r"exactly 0 or 1 .* 2 of 2 rows.*clipped at ±27\.6"):
        G = integrated_gradients(tree, X[2:], np.zeros(1), steps=4)
    assert np.allclose(G, 2 * np.log((1 - 1e-12) / 1e-12))      # the clip's logit gap, not the model's
    with warnings.catch_warnings():
        warnings.simplefilter("error")                             # no jump on the path: no warning
        assert (integrated_gradients(tree, X[:1], np.zeros(1), steps=4) == 0).all()


# --------------------------------------------------------------------------- the favourable class, frames by name
def test_favourable_class_zero_explains_the_other_logit(tree_problem):
    X, y, a, B = tree_problem
    model = LogisticRegression().fit(X, y)
    for method in ("auto", "finite-difference"):
        one = integrated_gradients(model, X[:5], B[:5], steps=4, method=method)
        zero = integrated_gradients(model, X[:5], B[:5], steps=4, method=method, favourable=0)
        assert np.allclose(zero, -one, rtol=1e-9, atol=1e-10)
    named = LogisticRegression().fit(X, np.where(y == 1, "repaid", "default"))
    assert np.allclose(integrated_gradients(named, X[:5], B[:5], favourable="repaid"), one)
    scores = cec_scores(model, X[:5], X[5:10], B[:5], favourable=0)
    assert np.allclose(scores.score, cec_scores(model, X[:5], X[5:10], B[:5]).score)   # directions flip together
    with pytest.raises(ValueError, match=r"favourable=1 is not among model's classes \['default', 'repaid'\]"):
        integrated_gradients(named, X[:5], B[:5])


def test_frames_are_read_by_column_name(tree_problem):
    """A frame in another column order gives the same attributions and scores; a misnamed one is refused."""
    X, y, a, B = tree_problem
    names = ["x0", "x1", "group", "noise"]
    frame = pd.DataFrame(X, columns=names)
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(frame, y)
    shuffled = frame[["noise", "x1", "x0", "group"]]
    G = integrated_gradients(model, frame.iloc[:5], B[:5], steps=4)
    assert np.array_equal(integrated_gradients(model, shuffled.iloc[:5], B[:5], steps=4), G)
    base = cec_scores(model, frame.iloc[:5], X[5:10], B[:5], steps=4)
    moved = cec_scores(model, shuffled.iloc[:5], frame.iloc[5:10][shuffled.columns].set_axis(range(5)),
                       pd.DataFrame(B[:5], columns=names)[shuffled.columns], steps=4)
    assert np.array_equal(base.score, moved.score) and moved.feature_names == tuple(names)
    with pytest.raises(ValueError, match=r"X has columns that do not match the 4 expected: missing \['x0'\], "
                                         r"unexpected \['income'\]"):
        integrated_gradients(model, frame.rename(columns={"x0": "income"}).iloc[:5], B[:5])
    linear = LogisticRegression().fit(X, y)          # fitted on an array: frames are aligned to X's own names
    with pytest.raises(ValueError, match=r"X_cf has columns that do not match"):
        cec_scores(linear, frame.iloc[:5], frame.iloc[5:10].rename(columns={"x1": "proxy"}).set_axis(range(5)), B[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # scikit-learn warns when a frame-fitted model is given an array
        integrated_gradients(model, frame.iloc[:5], B[:5], steps=4)


def test_an_unfitted_model_gets_our_message():
    from sklearn.exceptions import NotFittedError

    for model in (LogisticRegression(), HistGradientBoostingClassifier(), MLPClassifier()):
        with pytest.raises(NotFittedError, match=f"the {type(model).__name__} is not fitted; fit it before"):
            integrated_gradients(model, np.zeros((2, 3)), np.zeros(3))


def test_finite_differences_reject_a_multiclass_or_misshapen_model():
    from sklearn.tree import DecisionTreeClassifier

    X = np.random.default_rng(0).normal(size=(30, 2))
    three = DecisionTreeClassifier().fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match=r"the model has 3 classes \[0, 1, 2\]; only binary models"):
        integrated_gradients(three, X[:2], np.zeros(2))
    odd = types.SimpleNamespace(predict_proba=lambda Z: np.ones((len(Z), 3)) / 3)
    with pytest.raises(ValueError, match=r"predict_proba returned shape \(\d+, 3\)"):
        integrated_gradients(odd, X[:2], np.zeros(2), steps=2)


# --------------------------------------------------------------------------- attributions per original feature
def test_attributions_by_feature_add_up_one_hot_blocks(german, german_encoder):
    encoder = german_encoder
    names = encoder.feature_names_out_
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, len(names)))
    out = attributions_by_feature(A, encoder)
    assert list(out.columns) == encoder.feature_names and out.shape == (5, len(encoder.feature_names))
    assert np.allclose(out.sum(axis=1), A.sum(axis=1))              # completeness survives the grouping
    for feature in ("purpose", "credit_amount"):
        block = [i for i, c in enumerate(names) if encoder.spec_of_column(c).name == feature]
        assert np.allclose(out[feature], A[:, block].sum(axis=1))
    assert len([c for c in names if c.startswith("purpose=")]) > 1     # a real one-hot block was summed
    framed = attributions_by_feature(pd.DataFrame(A[:, :4], columns=names[:4], index=list("abcde")), encoder)
    assert list(framed.index) == list("abcde") and framed.to_numpy().sum() == pytest.approx(A[:, :4].sum())
    one = attributions_by_feature(A[0], encoder)
    assert one.shape == (1, len(encoder.feature_names))

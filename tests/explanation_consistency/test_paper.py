"""The paper's algorithms written literally (paper.py) against the engines, on small random instances.

Matching is deterministic and compared exactly (positions, distances, the threshold); the
floating-point computations (integrated gradients, the score, the loss) agree to rounding.
"""

import types

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from explanation_consistency.cec_cases import random_params
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recourselab.explanation_consistency import (
    cec_scores,
    counterfactual_rows,
    integrated_gradients,
    label_group_baselines,
    label_group_means,
    match_counterfactuals,
    paper,
    regimes,
)
from recourselab.explanation_consistency.network import cec_term, eo_term, ig_network, ig_network_autodiff, logits


# --------------------------------------------------------------------------- Algorithm 1
@st.composite
def matching_problems(draw):
    n_pool = draw(st.integers(8, 30))
    k = draw(st.integers(1, 3))
    values = st.integers(-3, 3)              # small integers: many exact ties
    Fp = np.array(draw(st.lists(st.lists(values, min_size=k, max_size=k), min_size=n_pool, max_size=n_pool)), float)
    yp = np.array(draw(st.lists(st.integers(0, 1), min_size=n_pool, max_size=n_pool)))
    ap = np.array(draw(st.lists(st.integers(0, 1), min_size=n_pool, max_size=n_pool)))
    for label in (0, 1):
        for g in (0, 1):
            assume(((yp == label) & (ap == g)).any())
    separate = draw(st.booleans())
    if separate:
        n = draw(st.integers(1, 12))
        F = np.array(draw(st.lists(st.lists(values, min_size=k, max_size=k), min_size=n, max_size=n)), float)
        y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
        a = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    else:
        F, y, a = Fp, yp, ap
    tau = draw(st.one_of(st.just(0.0), st.floats(0.0, 3.0)))
    return F, y, a, Fp, yp, ap, separate, tau


@settings(max_examples=60, deadline=None)
@given(matching_problems())
def test_matching_equals_algorithm_1(problem):
    """Positions, distances and the threshold exactly; ties broken alike (the lowest training position)."""
    F, y, a, Fp, yp, ap, separate, tau = problem
    groups, groups_p = np.where(a == 1, "m", "f").astype(object), np.where(ap == 1, "m", "f").astype(object)
    frame = pd.DataFrame(F, columns=[f"c{j}" for j in range(F.shape[1])]).assign(note="text")  # extra non-numeric
    pool = pd.DataFrame(Fp, columns=frame.columns[:-1]).assign(note="text")
    kwargs = dict(X_pool=pool, y_pool=yp, groups_pool=groups_p) if separate else {}
    result = match_counterfactuals(frame, y, groups, list(frame.columns[:-1]), tau=tau, **kwargs)
    C, d = paper.label_stratified_matching(Fp, yp, ap, tau, queries=(F, y, a) if separate else None)
    assert np.array_equal(result.nearest_distance, np.array(d, dtype=float))
    assert result.index.tolist() == [-1 if j is None else j for j in C]
    assert result.matched.tolist() == [j is not None for j in C]
    assert result.n_unmatched_by_tau == sum(j is None for j in C)
    rows = counterfactual_rows(result, pool.drop(columns="note"))
    assert np.isnan(rows[~result.matched]).all()
    assert np.array_equal(rows[result.matched], Fp[result.index[result.matched]])


def test_algorithm_1_marks_an_empty_stratum_unmatched_where_the_engine_refuses():
    """Lines 13-14: no candidate in the opposite group with the same label. The engine raises instead."""
    x_F, y, a = np.array([[0.0], [1.0], [2.0]]), [1, 1, 0], [0, 1, 0]
    C, d = paper.label_stratified_matching(x_F, y, a)
    assert C == [1, 0, None] and d[2] is None
    with pytest.raises(ValueError, match="a group with no rows for a label"):
        match_counterfactuals(x_F, y, a, [0])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(4, 20), d=st.integers(1, 3))
def test_label_group_means_are_principle_1(seed, n, d):
    rng = np.random.default_rng(seed)
    X, y, a = rng.normal(size=(n, d)), rng.integers(0, 2, n), rng.integers(0, 2, n)
    assume(len({(int(u), int(v)) for u, v in zip(y, a, strict=True)}) == 4)
    B = label_group_baselines(X, y, a)
    table = label_group_means(X, y, a)
    for i in range(n):
        b = paper.label_group_mean(X, y, a, y[i], a[i])
        assert np.allclose(B[i], b, rtol=1e-12, atol=1e-12)
        assert np.allclose(table.loc[(y[i], a[i])], b, rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------- integrated gradients
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), d=st.integers(1, 5), T=st.integers(1, 40))
def test_ig_of_a_linear_model_equals_the_riemann_sum(seed, d, T):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=d)
    model = types.SimpleNamespace(coef_=w[None, :], intercept_=np.zeros(1))
    X, B = rng.normal(size=(3, d)), rng.normal(size=(3, d))
    literal = np.array([paper.integrated_gradients_row(lambda z: w, X[i], B[i], T) for i in range(3)])
    assert np.allclose(integrated_gradients(model, X, B, steps=T), literal, rtol=1e-12, atol=1e-12)


def _grad(params):
    """The network's own gradient function at one input (jax.grad of the logit)."""
    one = jax.jit(jax.grad(lambda z: logits(params, z[None, :])[0]))
    return lambda z: np.asarray(one(jnp.asarray(z)))


FAST_IG = jax.jit(ig_network, static_argnums=(3, 4))
AUTODIFF_IG = jax.jit(ig_network_autodiff, static_argnums=(3, 4))


@pytest.mark.parametrize("sizes", [(3, 1), (3, 6, 1), (3, 5, 4, 3, 1)])
def test_ig_of_the_network_equals_the_riemann_sum(sizes):
    """Both engines (the rearranged backward pass and autodiff at every point) against the literal loop, in
    float64, for no, one and three hidden layers."""
    with jax.enable_x64(True):
        params = random_params(sum(sizes), sizes)
        rng = np.random.default_rng(1)
        X, B = jnp.asarray(rng.normal(size=(4, 3))), jnp.asarray(rng.normal(size=(4, 3)))
        literal = np.array([paper.integrated_gradients_row(_grad(params), X[i], B[i], 8) for i in range(4)])
        fast = np.asarray(FAST_IG(params, X, B, 8, "riemann"))
        autodiff = np.asarray(AUTODIFF_IG(params, X, B, 8, "riemann"))
        for rule in ("gauss-legendre", "trapezoid") if len(sizes) == 5 else ():   # and for every rule
            assert np.allclose(FAST_IG(params, X, B, 5, rule), AUTODIFF_IG(params, X, B, 5, rule),
                               rtol=1e-10, atol=1e-12)
    assert fast.dtype == np.float64
    assert np.allclose(fast, literal, rtol=1e-10, atol=1e-12)
    assert np.allclose(autodiff, literal, rtol=1e-10, atol=1e-12)
    assert jnp.zeros(1).dtype == jnp.float32   # the x64 context did not leak


def test_public_ig_of_a_fitted_network_equals_the_riemann_sum(plain_mlp, pairs):
    """The fitted float32 network against the literal loop on its float64 copy (IG ignores the standardisation)."""
    X, _, _, _, B = pairs
    G = integrated_gradients(plain_mlp, X[:6], B[:6], steps=8)
    with jax.enable_x64(True):
        params = tuple((jnp.asarray(W, jnp.float64), jnp.asarray(c, jnp.float64)) for W, c in plain_mlp.params_)
        Z, Zb = (X[:6] - plain_mlp.mean_) / plain_mlp.scale_, (B[:6] - plain_mlp.mean_) / plain_mlp.scale_
        literal = np.array([paper.integrated_gradients_row(_grad(params), Z[i], Zb[i], 8) for i in range(6)])
    assert np.allclose(G, literal, rtol=1e-4, atol=1e-5)
    assert np.allclose(integrated_gradients(plain_mlp, X[:6], B[0], steps=8),
                       integrated_gradients(plain_mlp, X[:6], np.tile(B[0], (6, 1)), steps=8))


# --------------------------------------------------------------------------- Definition 3, Table 1
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), d=st.integers(1, 6), scale=st.sampled_from([1e-9, 1.0, 1e3]))
def test_cec_scores_equal_definition_3(seed, d, scale):
    """Including attribution vectors so small that the 1e-8 of the normalisation matters."""
    rng = np.random.default_rng(seed)
    model = types.SimpleNamespace(coef_=scale * rng.normal(size=(1, d)), intercept_=np.zeros(1))
    X, C, B = rng.normal(size=(8, d)), rng.normal(size=(8, d)), rng.normal(size=(8, d))
    result = cec_scores(model, X, C, B, steps=4)
    literal = [paper.cec_score(result.attributions[i], result.attributions_cf[i]) for i in range(8)]
    assert np.allclose(result.score, literal, rtol=1e-12, atol=1e-12)
    assert np.allclose(result.score, 0.5 * np.linalg.norm(result.feature_gap, axis=1))
    # Proposition 1 and the geometry: in [0, 1], sin(theta / 2) of the angle, 0 for identical pairs
    assert ((result.score >= 0) & (result.score <= 1)).all()
    g, gc = result.attributions, result.attributions_cf
    norm, norm_cf = np.linalg.norm(g, axis=1), np.linalg.norm(gc, axis=1)
    cos = (g * gc).sum(1) / (norm * norm_cf)
    clear = (norm > 1e-2) & (norm_cf > 1e-2)   # where the 1e-8 in g / (||g|| + 1e-8) is negligible
    assert np.allclose(result.score[clear], np.sin(np.arccos(np.clip(cos, -1, 1)) / 2)[clear], atol=1e-6)
    assert np.allclose(cec_scores(model, X, X, B).score, 0.0)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=12),
       st.sampled_from([0.0, 0.25, 0.5, 1.0]))
def test_regimes_equal_table_1(cases, t):
    score, p, pc = (list(c) for c in zip(*cases, strict=True))
    result = regimes(score, p, pc, threshold=t)
    assert result.labels.tolist() == [paper.regime(s, u, v, t) for s, u, v in cases]


# --------------------------------------------------------------------------- Algorithm 2's penalties
@pytest.mark.parametrize("seed", [1, 7])
def test_cec_term_of_a_batch_equals_algorithm_2(seed):
    """Lines 10-17 on a random network: the engine's batched term (every pair weighted 1) against the loop."""
    with jax.enable_x64(True):
        params = random_params(seed, (3, 5, 4, 1))
        rng = np.random.default_rng(seed)
        X, Xc, B = rng.normal(size=(5, 3)), rng.normal(size=(5, 3)), rng.normal(size=(5, 3))
        engine = float(jax.jit(cec_term, static_argnums=(5,))(params, jnp.asarray(X), jnp.asarray(Xc),
                                                               jnp.asarray(B), jnp.ones(5), 8))
        literal = paper.cec_loss(_grad(params), X, Xc, B, T=8)
    assert literal > 0 and engine == pytest.approx(literal, rel=1e-9, abs=1e-12)


EO_TERM = jax.jit(eo_term)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=12))
def test_soft_equalized_odds_equals_algorithm_2(cases):
    p, y, a = (np.array(c, dtype=float) for c in zip(*cases, strict=True))
    pad = 12 - len(p)   # padded rows are not valid (as the engine pads its last batch): one compiled shape
    valid = np.r_[np.ones(len(p)), np.zeros(pad)]
    engine = float(EO_TERM(*(jnp.asarray(np.r_[v, np.zeros(pad)]) for v in (p, y, a)), jnp.asarray(valid)))
    assert engine == pytest.approx(paper.soft_equalized_odds(p, y, a), rel=1e-5, abs=1e-6)   # float32 engine

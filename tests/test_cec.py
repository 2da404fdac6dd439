import types

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression

from recourselab import cec
from recourselab.cec import (
    METHODS,
    MLPClassifier,
    audit_explanations,
    cec_scores,
    counterfactual_rows,
    cross_validate_methods,
    integrated_gradients,
    label_group_baselines,
    label_group_means,
    match_counterfactuals,
    regimes,
)
from recourselab.datasets import make_cec_synthetic


# --------------------------------------------------------------------------- helpers
def random_params(seed, sizes, dtype=np.float64):
    """Random network parameters in the module's layout (He-like scale, non-zero biases)."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
        W = rng.normal(size=(fan_in, fan_out)) * np.sqrt(2.0 / fan_in)
        c = rng.normal(size=fan_out) * 0.3
        params.append((jnp.asarray(W, dtype), jnp.asarray(c, dtype)))
    return tuple(params)


def ig_reference_loop(params, X, B, steps):
    """Per row and per path point: jax.grad of the plain forward pass at one input (no batching)."""
    grad_one = jax.jit(jax.grad(lambda z: cec._logits(params, z[None, :])[0]))
    out = np.zeros(X.shape)
    for i in range(X.shape[0]):
        total = np.zeros(X.shape[1])
        for k in range(steps):
            alpha = (k + 0.5) / steps
            total += np.asarray(grad_one(B[i] + alpha * (X[i] - B[i])))
        out[i] = (np.asarray(X[i]) - np.asarray(B[i])) * total / steps
    return out


def small_problem(n=400, seed=0):
    """A problem where group-dependent reasoning is possible: the proxy x1 counts +1 in group 0, -1 in group 1."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    x0, x1 = rng.normal(size=n), rng.normal(size=n)
    y = (x0 + np.where(a == 1, -1.0, 1.0) * x1 > 0).astype(int)
    X = np.column_stack([x0, x1, a])
    return X, y, a


TINY = dict(hidden_layer_sizes=(16, 8), epochs=30, learning_rate=1e-2, batch_size=64, ig_steps=8, dropout=0.0)


# --------------------------------------------------------------------------- integrated gradients
def test_ig_of_linear_models_is_the_closed_form():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(64, 4))
    y = (X @ [1.0, -2.0, 0.5, 0.0] + rng.normal(size=64) > 0).astype(int)
    B = rng.normal(size=(64, 4))
    sk = LogisticRegression().fit(X, y)
    assert np.allclose(integrated_gradients(sk, X, B), (X - B) * sk.coef_.ravel(), rtol=1e-12, atol=1e-12)

    lin = MLPClassifier(hidden_layer_sizes=(), epochs=3, learning_rate=0.05, random_state=0).fit(X, y)
    # the weights of the fitted linear logit, read off the model itself: f(e_j) - f(0)
    f0 = lin.decision_function(np.zeros((1, 4)))[0]
    w = lin.decision_function(np.eye(4)) - f0
    G = integrated_gradients(lin, X, B, steps=7)
    assert np.allclose(G, (X - B) * w, rtol=1e-4, atol=1e-5)   # float32 network
    # completeness is exact for a linear logit, whatever the number of steps
    assert np.allclose(G.sum(axis=1), lin.decision_function(X) - lin.decision_function(B), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("sizes", [(3, 1), (3, 5, 1), (3, 6, 4, 1), (3, 5, 4, 3, 1)])
def test_vectorised_ig_equals_per_row_per_point_loop(sizes):
    with jax.enable_x64(True):
        params = random_params(sum(sizes), sizes)
        rng = np.random.default_rng(1)
        X, B = jnp.asarray(rng.normal(size=(5, 3))), jnp.asarray(rng.normal(size=(5, 3)))
        fast = np.asarray(cec._ig_network(params, X, B, 8))
        autodiff = np.asarray(cec._ig_network_autodiff(params, X, B, 8))
        loop = ig_reference_loop(params, X, B, 8)
        assert fast.dtype == np.float64
    assert np.allclose(fast, loop, rtol=1e-10, atol=1e-12)
    assert np.allclose(autodiff, loop, rtol=1e-10, atol=1e-12)
    assert jnp.zeros(1).dtype == jnp.float32   # the x64 context did not leak


def test_public_ig_of_a_fitted_mlp_matches_the_reference():
    X, y, a = small_problem(120)
    clf = MLPClassifier(hidden_layer_sizes=(16, 8), epochs=2, random_state=0).fit(X, y)
    B = label_group_baselines(X, y, a)
    G = integrated_gradients(clf, X[:6], B[:6], steps=8)
    # the same network in float64 on the standardised inputs (IG does not change under standardisation)
    with jax.enable_x64(True):
        params = tuple((jnp.asarray(W, jnp.float64), jnp.asarray(c, jnp.float64)) for W, c in clf.params_)
        Z, Zb = (X[:6] - clf.mean_) / clf.scale_, (B[:6] - clf.mean_) / clf.scale_
        ref = ig_reference_loop(params, jnp.asarray(Z), jnp.asarray(Zb), 8)
    assert np.allclose(G, ref, rtol=1e-4, atol=1e-5)
    assert np.allclose(integrated_gradients(clf, X[:6], B[0], steps=8), integrated_gradients(clf, X[:6], np.tile(
        B[0], (6, 1)), steps=8))


@settings(max_examples=15)
@given(seed=st.integers(0, 10**6), sizes=st.sampled_from([(4, 8, 1), (4, 16, 8, 1), (4, 12, 8, 6, 1)]))
def test_ig_completeness_within_the_midpoint_rule_bound(seed, sizes):
    """Completeness: sum_j IG_j = f(x) - f(b), up to the Riemann-sum error.

    Along the path a ReLU network's logit is piecewise linear, so the integrand
    (its slope) is piecewise constant and the midpoint rule is only first-order
    accurate: each kink can cost up to |jump| / (2T), so the error is at most
    TV / (2T), with TV the total variation of the slope along the path. On random
    networks this is often more than 1% of f(x) - f(b) at T = 64 (for about a
    third of the rows of a random (128, 64) network), so the per-row 1% rule is
    checked below on a smooth function and here replaced by the exact bound.
    TV is measured on a grid of 4,096 points (which can only under-estimate it,
    hence a 10% allowance) in float64.
    """
    steps, grid = 64, 4096
    rng = np.random.default_rng(seed)
    with jax.enable_x64(True):
        params = random_params(seed, sizes)
        X, B = rng.normal(size=(6, 4)), rng.normal(size=(6, 4)) * 0.5
        G = np.asarray(cec._ig_network(params, jnp.asarray(X), jnp.asarray(B), steps))
        alphas = np.linspace(0.0, 1.0, grid + 1)
        path = B[:, None, :] + alphas[None, :, None] * (X - B)[:, None, :]
        f = np.asarray(cec._logits(params, jnp.asarray(path.reshape(-1, 4)))).reshape(6, grid + 1)
    slopes = np.diff(f, axis=1) * grid
    tv = np.abs(np.diff(slopes, axis=1)).sum(axis=1)
    error = np.abs(G.sum(axis=1) - (f[:, -1] - f[:, 0]))
    assert (error <= 1.1 * tv / (2 * steps) + 1e-9).all()


def test_ig_completeness_one_percent_on_a_smooth_function():
    """For a smooth logit (tanh network in jax.numpy) the midpoint rule is second order: 1% at T = 64 holds.

    Rows with |f(x) - f(b)| < 0.05 are skipped: there a relative error divides by almost nothing.
    """
    rng = np.random.default_rng(3)
    W1, W2 = jnp.asarray(rng.normal(size=(5, 16)), jnp.float32), jnp.asarray(rng.normal(size=16), jnp.float32)

    def f(Z):
        return jnp.tanh(Z @ W1) @ W2

    X, B = rng.normal(size=(50, 5)), rng.normal(size=(50, 5)) * 0.5
    G = integrated_gradients(f, X, B, steps=64)
    delta = np.asarray(f(jnp.asarray(X, jnp.float32)) - f(jnp.asarray(B, jnp.float32)), dtype=float)
    keep = np.abs(delta) > 0.05
    assert keep.sum() > 40
    assert (np.abs(G.sum(axis=1) - delta)[keep] <= 1e-2 * np.abs(delta[keep])).all()


# --------------------------------------------------------------------------- CEC scores and regimes
@settings(max_examples=40)
@given(seed=st.integers(0, 10**6), d=st.integers(1, 6))
def test_scores_lie_in_the_unit_interval_and_match_the_angle(seed, d):
    rng = np.random.default_rng(seed)
    model = types.SimpleNamespace(coef_=rng.normal(size=(1, d)), intercept_=np.zeros(1))
    X, C, B = rng.normal(size=(20, d)), rng.normal(size=(20, d)), rng.normal(size=(20, d))
    result = cec_scores(model, X, C, B, steps=4)
    assert ((result.score >= 0) & (result.score <= 1)).all()
    g, gc = result.attributions, result.attributions_cf
    norm, norm_cf = np.linalg.norm(g, axis=1), np.linalg.norm(gc, axis=1)
    cos = (g * gc).sum(1) / (norm * norm_cf)
    clear = (norm > 1e-2) & (norm_cf > 1e-2)   # where the 1e-8 in g / (||g|| + 1e-8) is negligible
    assert np.allclose(result.score[clear], np.sin(np.arccos(np.clip(cos, -1, 1)) / 2)[clear], atol=1e-6)
    assert np.allclose(result.score, 0.5 * np.linalg.norm(result.feature_gap, axis=1))
    assert np.allclose(cec_scores(model, X, X, B).score, 0.0)               # identical pairs


def test_opposite_attributions_score_one_and_the_gap_frame_ranks_features():
    model = types.SimpleNamespace(coef_=np.array([[1.0, -2.0, 0.5]]), intercept_=np.array([0.1]))
    b = np.array([0.5, 0.5, 0.5])
    X = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])
    X_cf = 2 * b - X                       # x_cf - b = -(x - b): attributions flip sign
    result = cec_scores(model, pd.DataFrame(X, columns=["u", "v", "w"]), X_cf, b)
    assert np.allclose(result.score, 1.0)
    assert result.mean == pytest.approx(1.0)
    frame = result.feature_gap_frame()
    assert list(frame.columns) == ["mean_abs_gap", "mean_gap"]
    assert frame["mean_abs_gap"].is_monotonic_decreasing and set(frame.index) == {"u", "v", "w"}
    assert list(result.to_frame().columns) == ["cec", "largest_gap_feature"]


def test_regimes_table_and_shares():
    r = regimes(np.array([0.0, 0.3, 0.25, 0.9, 0.1]), [1, 1, 0, 0, 1], [1, 1, 1, 1, 1], threshold=0.25)
    assert r.labels.tolist() == ["A", "B", "C", "D", "A"]
    assert r.shares.to_dict() == {"A": 0.4, "B": 0.2, "C": 0.2, "D": 0.2}
    assert r.flip_rate == pytest.approx(0.4)
    only_a = regimes([0.1], ["x"], ["x"])
    assert only_a.shares.to_dict() == {"A": 1.0, "B": 0.0, "C": 0.0, "D": 0.0}
    assert list(r.to_frame().columns) == ["regime", "same_prediction", "same_reasoning", "cec"]
    assert 2 * np.degrees(np.arcsin(0.25)) == pytest.approx(28.955, abs=1e-3)   # the documented angle
    with pytest.raises(ValueError, match="threshold=1.5"):
        regimes([0.1], [1], [1], threshold=1.5)


# --------------------------------------------------------------------------- matching
def brute_force_match(F, y, codes, Fp, yp, codes_p):
    mu, sd = Fp.mean(axis=0), Fp.std(axis=0)
    sd[sd == 0] = 1.0
    Zq, Zp = (F - mu) / sd, (Fp - mu) / sd
    index, dist = [], []
    for i in range(len(F)):
        d = np.zeros(len(Fp))
        for j in range(F.shape[1]):          # the same column-by-column sum as the module
            d += (Zq[i, j] - Zp[:, j]) ** 2
        d = np.sqrt(d)
        d[(yp != y[i]) | (codes_p == codes[i])] = np.inf
        best = d.min()
        tied = np.flatnonzero(d <= best * (1 + 1e-9) + 1e-12)
        index.append(tied.min())             # lowest pool position among ties
        dist.append(d[tied.min()])
    return np.array(index), np.array(dist)


@st.composite
def matching_problems(draw):
    n_pool = draw(st.integers(8, 40))
    k = draw(st.integers(1, 3))
    values = st.integers(-3, 3)              # small integers: many exact ties
    Fp = np.array(draw(st.lists(st.lists(values, min_size=k, max_size=k), min_size=n_pool, max_size=n_pool)), float)
    yp = np.array(draw(st.lists(st.integers(0, 1), min_size=n_pool, max_size=n_pool)))
    ap = np.array(draw(st.lists(st.sampled_from(["f", "m"]), min_size=n_pool, max_size=n_pool)), dtype=object)
    for label in (0, 1):
        for g in ("f", "m"):
            assume(((yp == label) & (ap == g)).any())
    separate = draw(st.booleans())
    if separate:
        n = draw(st.integers(1, 15))
        F = np.array(draw(st.lists(st.lists(values, min_size=k, max_size=k), min_size=n, max_size=n)), float)
        y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
        a = np.array(draw(st.lists(st.sampled_from(["f", "m"]), min_size=n, max_size=n)), dtype=object)
    else:
        F, y, a = Fp, yp, ap
    tau = draw(st.one_of(st.none(), st.floats(0.0, 3.0)))
    return F, y, a, Fp, yp, ap, separate, tau


@given(matching_problems())
def test_matching_equals_brute_force_within_each_stratum(problem):
    F, y, a, Fp, yp, ap, separate, tau = problem
    frame = pd.DataFrame(F, columns=[f"c{j}" for j in range(F.shape[1])]).assign(note="text")  # extra non-numeric
    pool = pd.DataFrame(Fp, columns=frame.columns[:-1]).assign(note="text")
    kwargs = dict(X_pool=pool, y_pool=yp, groups_pool=ap) if separate else {}
    result = match_counterfactuals(frame, y, a, list(frame.columns[:-1]), tau=tau, **kwargs)
    codes, codes_p = (a == "m").astype(int), (ap == "m").astype(int)
    index, dist = brute_force_match(F, y, codes, Fp, yp, codes_p)
    assert np.array_equal(result.nearest_distance, dist)
    keep = np.ones(len(F), bool) if not tau else dist <= tau
    assert np.array_equal(result.matched, keep)
    assert np.array_equal(result.index, np.where(keep, index, -1))
    assert np.array_equal(np.isnan(result.distance), ~keep)
    assert result.n_unmatched_by_tau == int((~keep).sum())
    assert (yp[result.index[keep]] == y[keep]).all() and (ap[result.index[keep]] != a[keep]).all()
    rows = counterfactual_rows(result, pool.drop(columns="note"))
    assert np.isnan(rows[~keep]).all() and np.array_equal(rows[keep], Fp[result.index[keep]])


def test_tau_rejects_exactly_the_pairs_beyond_it_and_zero_means_none():
    X = np.array([[0.0], [1.0], [0.1], [3.0]])
    y, a = [1, 1, 1, 1], [0, 0, 1, 1]
    full = match_counterfactuals(X, y, a, [0])
    tau = float(np.sort(full.distance)[1])        # keep the two closest distances exactly
    cut = match_counterfactuals(X, y, a, [0], tau=tau)
    assert np.array_equal(cut.matched, full.distance <= tau)
    assert cut.n_unmatched_by_tau == int((full.distance > tau).sum()) > 0
    assert cut.coverage == pytest.approx(np.mean(full.distance <= tau))
    assert match_counterfactuals(X, y, a, [0], tau=0).matched.all()   # tau = 0: no threshold, as in the paper
    assert list(cut.to_frame().columns) == ["match_index", "distance", "matched", "nearest_distance"]


def test_baselines_are_label_group_means_of_the_fit_data():
    X = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [1.0, 1.0]])
    y = np.array([0, 0, 1, 1, 0, 1])
    a = np.array(["f", "m", "f", "m", "f", "m"])
    B = label_group_baselines(X, y, a)
    assert np.allclose(B[0], [4.0, 5.0]) and np.allclose(B[3], [3.5, 4.0])
    table = label_group_means(X, y, a)
    assert table.loc[(0, "f")].tolist() == [4.0, 5.0] and table.index.names == ["label", "group"]
    test_rows = np.array([[100.0, 100.0]])
    assert np.allclose(label_group_baselines(test_rows, [1], ["m"], X_fit=X, y_fit=y, groups_fit=a), [[3.5, 4.0]])


# --------------------------------------------------------------------------- training
def test_gradient_of_the_cec_loss_matches_finite_differences():
    sizes = (3, 4, 3, 1)
    with jax.enable_x64(True):
        params = random_params(7, sizes)
        rng = np.random.default_rng(7)
        X, Xc, B = (jnp.asarray(rng.normal(size=(5, 3))) for _ in range(3))
        weight = jnp.asarray([1.0, 1.0, 0.0, 1.0, 1.0])          # one unmatched row takes no part

        @jax.jit
        def loss(p):
            return cec._cec_term(p, X, Xc, B, weight, 8)

        grads = jax.grad(loss)(params)
        leaves, treedef = jax.tree_util.tree_flatten(params)
        grad_leaves = jax.tree_util.tree_leaves(grads)
        def shifted(li, k, delta):
            new = np.asarray(leaves[li]).ravel().copy()
            new[k] += delta
            moved = list(leaves)
            moved[li] = jnp.asarray(new.reshape(leaves[li].shape))
            return float(loss(jax.tree_util.tree_unflatten(treedef, moved)))

        h = 1e-6
        for li, leaf in enumerate(leaves):
            for k in range(leaf.size):
                numeric = (shifted(li, k, h) - shifted(li, k, -h)) / (2 * h)
                assert float(np.asarray(grad_leaves[li]).ravel()[k]) == pytest.approx(numeric, rel=1e-5, abs=1e-8)
        assert float(loss(params)) > 0


def test_cec_training_lowers_the_cec_score():
    X, y, a = small_problem()
    match = match_counterfactuals(X, y, a, [0])
    X_cf, B = counterfactual_rows(match, X), label_group_baselines(X, y, a)
    plain = MLPClassifier(**TINY, random_state=0).fit(X, y)
    trained = MLPClassifier(**TINY, lambda_cec=1.0, random_state=0).fit(X, y, X_cf=X_cf, baselines=B)
    before = cec_scores(plain, X, X_cf, B, steps=8).mean
    after = cec_scores(trained, X, X_cf, B, steps=8).mean
    assert before > 0.3            # the unconstrained network reasons differently by group
    assert after < 0.9 * before
    assert trained.history_["cec"].iloc[-1] < trained.history_["cec"].iloc[0]
    # partly unmatched pairs (all-NaN rows) are allowed and skipped
    X_cf_partial = X_cf.copy()
    X_cf_partial[:10] = np.nan
    MLPClassifier(**TINY, lambda_cec=1.0, random_state=0).fit(X, y, X_cf=X_cf_partial, baselines=B)


def test_eo_penalty_and_any_two_labels():
    X, y, a = small_problem(200)
    labels = np.where(y == 1, "good", "bad")
    clf = MLPClassifier(**TINY, lambda_eo=1.0, random_state=0).fit(X, labels, sensitive_features=np.where(a, "m", "f"))
    assert set(clf.classes_) == {"bad", "good"} and set(clf.predict(X)) <= {"bad", "good"}
    assert np.allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert clf.history_["eo"].notna().all() and clf.history_.shape == (TINY["epochs"], 4)


def test_same_seed_same_model_and_clone():
    X, y, _ = small_problem(200)
    one = MLPClassifier(**TINY, random_state=3).fit(X, y)
    two = MLPClassifier(**TINY, random_state=3).fit(X, y)
    assert np.array_equal(one.decision_function(X), two.decision_function(X))
    copy = clone(one)
    assert copy.get_params() == one.get_params() and not hasattr(copy, "params_")
    weighted = clone(one).fit(X, pd.Series(y), sample_weight=pd.Series(np.linspace(0.5, 2, len(y))))
    assert not np.array_equal(weighted.decision_function(X), one.decision_function(X))


@pytest.mark.filterwarnings("ignore::DeprecationWarning:fairlearn")   # pandas 3 deprecations inside fairlearn
def test_fairlearn_reductions_and_post_processing_run_and_are_explained():
    from fairlearn.postprocessing import ThresholdOptimizer
    from fairlearn.reductions import EqualizedOdds, ExponentiatedGradient

    X, y, a = small_problem(200)
    base = MLPClassifier(hidden_layer_sizes=(8,), epochs=3, learning_rate=1e-2, random_state=0)
    eg = ExponentiatedGradient(base, EqualizedOdds(), max_iter=3).fit(X, y, sensitive_features=a)
    B = label_group_baselines(X, y, a)
    G = integrated_gradients(eg, X[:5], B[:5], steps=4)
    expected = sum(w * integrated_gradients(p, X[:5], B[:5], steps=4)
                   for p, w in zip(eg.predictors_, eg.weights_, strict=True) if w > 0)
    assert np.allclose(G, expected)
    to = ThresholdOptimizer(estimator=base, constraints="equalized_odds", predict_method="predict_proba",
                            objective="balanced_accuracy_score").fit(X, y, sensitive_features=a)
    assert np.allclose(integrated_gradients(to, X[:5], B[:5], steps=4),
                       integrated_gradients(to.estimator_, X[:5], B[:5], steps=4))


def test_cross_validation_of_every_method_on_a_tiny_problem():
    data = make_cec_synthetic(240, random_state=1)
    X = data.frame[[c for c in data.feature_names if c != "group"]]
    fin = [c for c in X.columns if c.startswith("fin_")]
    result = cross_validate_methods(X, data.y, data.frame["group"], fin, n_splits=2, steps=4,
                                    mlp_params={"hidden_layer_sizes": (8,), "epochs": 2, "learning_rate": 1e-2})
    assert result.shape[0] == 2 * len(METHODS) and set(result["method"]) == set(METHODS)
    metrics = ["auc", "f1", "eo_gap", "sp_gap", "cec", "pfr"]
    assert result[metrics].notna().all().all()
    shares = result[["regime_A", "regime_B", "regime_C", "regime_D"]].sum(axis=1)
    assert np.allclose(shares, 1.0)
    assert ((result["cec"] >= 0) & (result["cec"] <= 1)).all()


def test_cross_validation_variants_equal_the_same_network_fitted_by_hand():
    data = make_cec_synthetic(240, random_state=2)
    X = data.frame[[c for c in data.feature_names if c != "group"]]
    fin = [c for c in X.columns if c.startswith("fin_")]
    small = {"hidden_layer_sizes": (8,), "epochs": 2, "learning_rate": 1e-2}
    result = cross_validate_methods(X, data.y, data.frame["group"], fin, methods=["cec"], n_splits=2, steps=4,
                                    mlp_params=small, variants={"same as cec": {"lambda_eo": 1.0, "lambda_cec": 1.0}})
    by_method = result.set_index(["fold", "method"]).drop(columns="fit_seconds")
    # a variant with the cec method's lambdas is the same network with the same seed: same metrics
    pd.testing.assert_frame_equal(by_method.xs("cec", level="method"), by_method.xs("same as cec", level="method"))
    with pytest.raises(ValueError, match="unknown keys"):
        cross_validate_methods(X, data.y, data.frame["group"], fin, variants={"v": {"lambda": 1.0}})
    with pytest.raises(ValueError, match="have the names of methods"):
        cross_validate_methods(X, data.y, data.frame["group"], fin, methods=["cec"], variants={"cec": {}})


def test_audit_explanations_in_one_call():
    X, y, a = small_problem(120)
    model = LogisticRegression().fit(X, y)
    audit = audit_explanations(model, X, y, a, financial=[0], tau=0.05)
    frame = audit.to_frame()
    assert len(frame) == 120 and frame["cec"].notna().sum() == audit.match.matched.sum()
    assert frame.loc[~audit.match.matched, "regime"].isna().all()
    assert audit.summary()["coverage"] == pytest.approx(audit.match.coverage)
    assert audit.mean_cec == pytest.approx(frame["cec"].mean())


# --------------------------------------------------------------------------- bad input
def test_bad_input_messages():
    X = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0], "job": ["a", "b", "a", "b"]})
    y, a = [1, 1, 0, 0], ["f", "m", "f", "m"]
    with pytest.raises(ValueError, match=r"financial feature\(s\) \['salary'\] are not columns of X"):
        match_counterfactuals(X, y, a, ["salary"])
    with pytest.raises(TypeError, match=r"\['job'\] of X are not numeric; encode them"):
        match_counterfactuals(X, y, a, ["job"])
    with pytest.raises(ValueError, match=r"a group with no rows for a label.*y=1.*groups='m'"):
        match_counterfactuals(X, [1, 0, 1, 0], a, ["income"])
    with pytest.raises(ValueError, match="a group with no rows for a label"):
        label_group_means(X[["income"]], [1, 0, 1, 0], a)
    with pytest.raises(ValueError, match=r"give X_pool, y_pool and groups_pool together"):
        match_counterfactuals(X, y, a, ["income"], X_pool=X)
    with pytest.raises(ValueError, match=r"give X_fit, y_fit and groups_fit together"):
        label_group_baselines(X[["income"]], y, a, y_fit=y)
    with pytest.raises(ValueError, match=r"the pool has no rows with label y=1 in group groups_pool='m'"):
        match_counterfactuals(X, y, a, ["income"], X_pool=X, y_pool=[1, 0, 0, 0], groups_pool=a)
    with pytest.raises(ValueError, match=r"groups must have exactly two values.*found 3"):
        match_counterfactuals(X, y, ["f", "m", "x", "m"], ["income"])
    with pytest.raises(ValueError, match="exactly two values"):
        label_group_baselines(X[["income"]], y, ["f"] * 4)
    model = types.SimpleNamespace(coef_=np.ones((1, 2)), intercept_=np.zeros(1))
    with pytest.raises(ValueError, match=r"X_cf has shape \(3, 2\) but X has shape \(2, 2\)"):
        cec_scores(model, np.ones((2, 2)), np.ones((3, 2)), np.zeros(2))
    with pytest.raises(ValueError, match=r"unmatched \(NaN\).*match.matched"):
        cec_scores(model, np.ones((2, 2)), np.array([[1.0, 1.0], [np.nan, np.nan]]), np.zeros(2))
    with pytest.raises(ValueError, match="steps=0 must be an integer >= 1"):
        integrated_gradients(model, np.ones((2, 2)), np.zeros(2), steps=0)
    with pytest.raises(ValueError, match=r"baselines has shape \(3,\)"):
        integrated_gradients(model, np.ones((2, 2)), np.zeros(3))
    with pytest.raises(TypeError, match="cannot explain a RandomForestClassifier"):
        from sklearn.ensemble import RandomForestClassifier
        integrated_gradients(RandomForestClassifier(n_estimators=2).fit(np.eye(2), [0, 1]), np.ones((2, 2)),
                             np.zeros(2))
    Xn, yn, an = small_problem(40)
    with pytest.raises(ValueError, match=r"lambda_cec=1.0 > 0 needs X_cf"):
        MLPClassifier(lambda_cec=1.0).fit(Xn, yn)
    with pytest.raises(ValueError, match=r"lambda_eo=1.0 > 0 needs sensitive_features"):
        MLPClassifier(lambda_eo=1.0).fit(Xn, yn)
    with pytest.raises(ValueError, match="sensitive_features must have exactly two values"):
        MLPClassifier(lambda_eo=1.0).fit(Xn, yn, sensitive_features=np.arange(40) % 3)
    with pytest.raises(ValueError, match="partly missing"):
        bad = Xn.copy()
        bad[0, 0] = np.nan
        MLPClassifier(lambda_cec=1.0).fit(Xn, yn, X_cf=bad, baselines=np.zeros(3))
    with pytest.raises(ValueError, match="y must have exactly two labels"):
        MLPClassifier().fit(Xn, np.zeros(40))
    with pytest.raises(ValueError, match="tau=-1"):
        match_counterfactuals(X, y, a, ["income"], tau=-1)
    with pytest.raises(ValueError, match="name='dir' is not one of"):
        cec.fit_method("dir", Xn, yn, an)


# --------------------------------------------------------------------------- the synthetic data
def test_make_cec_synthetic():
    data = make_cec_synthetic(20000, random_state=0)
    frame = data.frame
    assert frame.shape == (20000, 22) and len(data.features) == 21
    assert data.target == "approved" and data.protected == ("group",) and data.citation == "popoola2026cec"
    assert data.spec("group").actionability == "immutable"
    groups = frame.groupby("group").mean()
    proxies = [f"proxy_{j}" for j in range(5)]
    fins = [f"fin_{j}" for j in range(10)]
    assert np.allclose(groups.loc[1, proxies] - groups.loc[0, proxies], 0.5, atol=0.06)
    assert np.abs(frame[fins].corrwith(frame["group"])).max() < 0.03        # financial features ignore the group
    assert 0.55 < data.y.mean() < 0.65 and 0.37 < frame["group"].mean() < 0.43
    # the label depends on the financial features only: adding the others does not help a linear model
    from sklearn.model_selection import cross_val_score
    fin_only = cross_val_score(LogisticRegression(max_iter=500), frame[fins], data.y, cv=3).mean()
    everything = cross_val_score(LogisticRegression(max_iter=500), frame[data.feature_names], data.y, cv=3).mean()
    assert everything - fin_only < 0.005
    assert abs(data.y[frame["group"] == 1].mean() - data.y[frame["group"] == 0].mean()) < 0.03
    assert make_cec_synthetic(50, random_state=0).frame.equals(make_cec_synthetic(50, random_state=0).frame)


# --------------------------------------------------------------------------- bad input, one case per test
@pytest.fixture(scope="module")
def tiny_mlp():
    X, y, _ = small_problem(60)
    return MLPClassifier(hidden_layer_sizes=(4,), epochs=1, random_state=0).fit(X, y), X


@pytest.mark.parametrize("method", ["predict", "predict_proba", "decision_function"])
def test_unfitted_mlp_raises_not_fitted_error(method):
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError, match="not fitted yet; call fit"):
        getattr(MLPClassifier(), method)(np.zeros((2, 3)))


def test_unfitted_mlp_score_raises_not_fitted_error():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        MLPClassifier().score(np.zeros((2, 3)), [0, 1])


def test_unfitted_mlp_cannot_be_explained():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        integrated_gradients(MLPClassifier(), np.zeros((2, 3)), np.zeros(3))


def test_mlp_predicts_no_rows_with_scikit_learn_shapes(tiny_mlp):
    model, X = tiny_mlp
    empty = X[:0]
    assert model.predict(empty).shape == (0,)
    assert model.predict_proba(empty).shape == (0, 2)
    assert model.decision_function(empty).shape == (0,)


def test_mlp_rejects_a_fractional_seed():
    X, y, _ = small_problem(20)
    with pytest.raises(TypeError, match="random_state=1.7 must be None, an int >= 0"):
        MLPClassifier(hidden_layer_sizes=(2,), epochs=1, random_state=1.7).fit(X, y)


def test_mlp_rejects_a_whole_float_epoch_count():
    X, y, _ = small_problem(20)
    with pytest.raises(ValueError, match=r"epochs=2.0 must be an integer >= 1"):
        MLPClassifier(hidden_layer_sizes=(2,), epochs=2.0).fit(X, y)


def test_mlp_rejects_a_nan_dropout():
    X, y, _ = small_problem(20)
    with pytest.raises(ValueError, match="dropout=nan must be a number"):
        MLPClassifier(hidden_layer_sizes=(2,), dropout=float("nan")).fit(X, y)


def test_infinite_input_names_the_column():
    model = types.SimpleNamespace(coef_=np.ones((1, 2)), intercept_=np.zeros(1))
    X = pd.DataFrame({"income": [1.0, np.inf], "debt": [0.0, 1.0]})
    with pytest.raises(ValueError, match=r"column 'income' of X has infinite values \(first in row 1\)"):
        integrated_gradients(model, X, np.zeros(2))


def test_infinite_financial_feature_is_rejected():
    X = pd.DataFrame({"income": [1.0, 2.0, -np.inf, 4.0]})
    with pytest.raises(ValueError, match="financial feature 'income' of X has infinite values"):
        match_counterfactuals(X, [1, 1, 1, 1], ["f", "m", "f", "m"], ["income"])


def test_repeated_financial_feature_is_rejected():
    X = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match=r"financial names \['income'\] more than once"):
        match_counterfactuals(X, [1, 1, 1, 1], ["f", "m", "f", "m"], ["income", "income"])


def test_fractional_financial_position_is_rejected():
    with pytest.raises(ValueError, match=r"financial=\[0.0\] must be column positions"):
        match_counterfactuals(np.ones((4, 2)), [1, 1, 1, 1], ["f", "m", "f", "m"], [0.0])


def test_none_group_label_is_an_error_not_a_dropped_row():
    X = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match=r"groups\[2\] is missing"):
        match_counterfactuals(X, [1, 1, 1, 1], ["f", "m", None, "m"], ["income"])


def test_pool_labels_of_the_wrong_length_name_the_pool():
    X = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match="y_pool has 3 entries but X_pool has 4 rows"):
        match_counterfactuals(X, [1, 1, 1, 1], ["f", "m", "f", "m"], ["income"], X_pool=X, y_pool=[1, 1, 1],
                              groups_pool=["f", "m", "f", "m"])


def test_none_label_is_an_error():
    with pytest.raises(ValueError, match=r"y\[0\] is missing"):
        label_group_means(np.ones((4, 1)), [None, 1, 0, 0], ["f", "m", "f", "m"])


def test_matching_tau_nan_is_rejected():
    X = pd.DataFrame({"income": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match="tau=nan must be None or a distance >= 0"):
        match_counterfactuals(X, [1, 1, 1, 1], ["f", "m", "f", "m"], ["income"], tau=float("nan"))


def test_regimes_threshold_nan_is_rejected():
    with pytest.raises(ValueError, match=r"threshold=nan must lie in \[0, 1\]"):
        regimes([0.1], [1], [1], threshold=float("nan"))


def test_regimes_score_inf_is_rejected():
    with pytest.raises(ValueError, match=r"score must lie in \[0, 1\] without NaN"):
        regimes([np.inf], [1], [1])


def test_evaluate_method_rejects_a_missing_partner_group(tiny_mlp):
    model, X = tiny_mlp
    y, a = (X[:, 0] > 0).astype(int), X[:, 2].astype(int)
    groups_cf = (1 - a).astype(object)
    groups_cf[3] = None
    with pytest.raises(ValueError, match=r"groups_cf\[3\]=None is not one of the two groups \[0, 1\], but row 3"):
        cec.evaluate_method(model, X, y, a, X_cf=X, groups_cf=groups_cf, baselines=X.mean(axis=0), steps=4)


def test_evaluate_method_rejects_threshold_nan_before_any_work(tiny_mlp):
    model, X = tiny_mlp
    y, a = (X[:, 0] > 0).astype(int), X[:, 2].astype(int)
    with pytest.raises(ValueError, match=r"threshold=nan must lie in \[0, 1\]"):
        cec.evaluate_method(model, X, y, a, X_cf=X, groups_cf=1 - a, baselines=X.mean(axis=0),
                            threshold=float("nan"))


def test_cross_validation_rejects_a_whole_float_fold_count():
    X, y, a = small_problem(40)
    with pytest.raises(ValueError, match=r"n_splits=2.0 must be an integer >= 2"):
        cross_validate_methods(X, y, a, [0], methods=["unconstrained"], n_splits=2.0)


def test_cross_validation_rejects_a_fractional_seed():
    X, y, a = small_problem(40)
    with pytest.raises(TypeError, match="random_state=0.5 must be an int >= 0"):
        cross_validate_methods(X, y, a, [0], methods=["unconstrained"], random_state=0.5)

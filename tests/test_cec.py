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

from recourselab.datasets import make_cec_synthetic
from recourselab.explanation_consistency import cec
from recourselab.explanation_consistency.cec import (
    METHODS,
    MLPClassifier,
    attributions_by_feature,
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
        for rule in ("gauss-legendre", "trapezoid"):   # the rearranged pass and autodiff agree for every rule
            assert np.allclose(cec._ig_network(params, X, B, 5, rule), cec._ig_network_autodiff(params, X, B, 5, rule),
                               rtol=1e-10, atol=1e-12)
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
@pytest.mark.parametrize(("rule", "seed"), [("riemann", 7), ("riemann", 1), ("gauss-legendre", 1)])
def test_gradient_of_the_cec_loss_matches_finite_differences(rule, seed):
    """Seed 7 (the original case) leaves most ReLUs dead along the paths; seed 1 keeps all 10 rows' IG non-zero."""
    sizes = (3, 4, 3, 1)
    with jax.enable_x64(True):
        params = random_params(seed, sizes)
        rng = np.random.default_rng(seed)
        X, Xc, B = (jnp.asarray(rng.normal(size=(5, 3))) for _ in range(3))
        weight = jnp.asarray([1.0, 1.0, 0.0, 1.0, 1.0])          # one unmatched row takes no part

        @jax.jit
        def loss(p):
            return cec._cec_term(p, X, Xc, B, weight, 8, rule)

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
    from sklearn.ensemble import RandomForestClassifier
    forest = RandomForestClassifier(n_estimators=2).fit(np.eye(2), [0, 1])
    with pytest.raises(TypeError, match=r"cannot differentiate a RandomForestClassifier.*method='finite-difference'"):
        integrated_gradients(forest, np.ones((2, 2)), np.zeros(2), method="autodiff")
    with pytest.raises(TypeError, match="cannot explain a str"):
        integrated_gradients("model", np.ones((2, 2)), np.zeros(2))
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


# --------------------------------------------------------------------------- quadrature rules (issue 16)
@pytest.mark.parametrize("rule", cec.IG_RULES)
@pytest.mark.parametrize("steps", [2, 3, 6, 17, 64])
def test_quadrature_weights_sum_to_one_and_integrate_what_the_rule_promises(rule, steps):
    alphas, weights = cec.ig_quadrature(steps, rule)
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


def test_quadrature_rejects_bad_rules_and_steps():
    with pytest.raises(ValueError, match=r"rule='simpson' is not a quadrature rule; use one of"):
        cec.ig_quadrature(8, "simpson")
    with pytest.raises(ValueError, match="steps=1 is too few for the trapezoid rule"):
        cec.ig_quadrature(1, "trapezoid")
    with pytest.raises(ValueError, match=r"steps=2.0 must be an integer >= 1"):
        cec.ig_quadrature(2.0)
    model = types.SimpleNamespace(coef_=np.ones((1, 2)), intercept_=np.zeros(1))
    with pytest.raises(ValueError, match="rule=None is not a quadrature rule"):
        integrated_gradients(model, np.ones((2, 2)), np.zeros(2), rule=None)
    with pytest.raises(ValueError, match=r"method='numeric' is not one of \('auto', 'autodiff', 'finite-difference'\)"):
        cec_scores(model, np.ones((2, 2)), np.ones((2, 2)), np.zeros(2), method="numeric")
    X, y, _ = small_problem(40)
    with pytest.raises(ValueError, match=r"ig_rule='midpoint' is not a quadrature rule"):
        MLPClassifier(ig_rule="midpoint").fit(X, y)
    with pytest.raises(ValueError, match=r"ig_steps=0 must be an integer >= 1 \(path points"):
        MLPClassifier(ig_steps=0).fit(X, y)
    with pytest.raises(ValueError, match="ig_steps=1 is too few for ig_rule='trapezoid'"):
        MLPClassifier(ig_steps=1, ig_rule="trapezoid").fit(X, y)
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match=rf"cec_pairs={bad!r} must be None"):
            MLPClassifier(cec_pairs=bad).fit(X, y)


def test_gauss_legendre_with_few_points_matches_a_fine_riemann_sum_on_a_smooth_network():
    """On a smooth (tanh) network Gauss-Legendre with 16 points lands within the midpoint rule's own error bound
    of a 1,024-point Riemann sum; the bound is max|h''| / (24 T^2) per attribution, h = the integrand, its second
    derivative measured on a grid of 2,048 intervals (10% allowance, as a grid can under-estimate a maximum).
    The midpoint rule with the same 16 points is more than 100 times further off."""
    rng = np.random.default_rng(5)
    with jax.enable_x64(True):
        W1 = jnp.asarray(rng.normal(size=(5, 16)) / np.sqrt(5))
        W2 = jnp.asarray(rng.normal(size=16) / 4)

        def f(Z):
            return jnp.tanh(Z @ W1) @ W2

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
    # and the midpoint rule with the same 16 points is far off by comparison (its error is second order)
    assert np.abs(mid16 - fine).max() > 100 * np.abs(gl16 - fine).max()


def test_cec_pairs_subsample_the_shuffled_batch():
    X, y, a = small_problem(256)
    match = match_counterfactuals(X, y, a, [0])
    X_cf, B = counterfactual_rows(match, X), label_group_baselines(X, y, a)
    fit = dict(TINY, epochs=3, lambda_cec=1.0, random_state=0)

    def logits(**kw):
        return MLPClassifier(**dict(fit, **kw)).fit(X, y, X_cf=X_cf, baselines=B).decision_function(X)

    # as many pairs as the batch holds is every pair: the same compiled step, the same model
    assert np.array_equal(logits(cec_pairs=None), logits(cec_pairs=64))
    assert np.array_equal(logits(cec_pairs=None), logits(cec_pairs=1000))
    assert not np.allclose(logits(cec_pairs=None), logits(cec_pairs=8))
    # the loss's CEC term on a batch is the term of its first cec_pairs rows
    with jax.enable_x64(True):
        params = random_params(2, (3, 6, 4, 1))
        batch = {"X": jnp.asarray(X[:32]), "X_cf": jnp.asarray(X_cf[:32]), "B": jnp.asarray(B[:32]),
                 "y": jnp.asarray(y[:32], float), "w": jnp.ones(32), "valid": jnp.ones(32),
                 "a": jnp.asarray(a[:32], float), "matched": jnp.ones(32)}
        cfg = cec._TrainConfig(sizes=(3, 6, 4, 1), batch_size=32, n_batches=1, dropout=0.0, learning_rate=1e-3,
                               use_cec=True, ig_steps=6, ig_rule="gauss-legendre", cec_pairs=8)
        _, parts = cec._batch_loss(params, batch, None, jnp.asarray([0.0, 1.0]), cfg)
        expected = cec._cec_term(params, batch["X"][:8], batch["X_cf"][:8], batch["B"][:8], jnp.ones(8), 6,
                                 "gauss-legendre")
    assert float(parts[3]) == pytest.approx(float(expected), rel=1e-12)


def test_training_defaults_are_the_measured_cheap_setting():
    clf = MLPClassifier()
    assert (clf.ig_steps, clf.ig_rule, clf.cec_pairs) == (cec.TRAIN_IG_STEPS, cec.TRAIN_IG_RULE, cec.TRAIN_CEC_PAIRS)
    assert (cec.TRAIN_IG_STEPS, cec.TRAIN_IG_RULE, cec.TRAIN_CEC_PAIRS) == (6, "gauss-legendre", 16)


# --------------------------------------------------------------------------- any model: finite differences (issue 15)
class CountingModel:
    """Any object with predict_proba (and classes_) on the encoded matrix, counting what it is asked."""

    def __init__(self, model):
        self.model, self.classes_, self.calls, self.rows = model, model.classes_, 0, 0

    def predict_proba(self, Z):
        self.calls += 1
        self.rows += len(Z)
        return self.model.predict_proba(Z)


def tree_problem(n=300, seed=0):
    X, y, a = small_problem(n, seed)
    X = np.column_stack([X, np.random.default_rng(seed).normal(size=n)])   # a 4th column no model needs
    return X, y, a, label_group_baselines(X, y, a)


@pytest.mark.parametrize("rule", cec.IG_RULES)
def test_finite_differences_give_the_exact_ig_of_a_logistic_regression(rule):
    X, y, a, B = tree_problem()
    model = LogisticRegression().fit(X, y)
    exact = (X[:30] - B[:30]) * model.coef_.ravel()
    # the logit of predict_proba is linear, so every cell's difference is exact, whatever the rule or T
    fd = integrated_gradients(model, X[:30], B[:30], steps=3, rule=rule, method="finite-difference")
    assert np.allclose(fd, exact, rtol=1e-9, atol=1e-10)
    counting = CountingModel(model)                                    # duck-typed: only predict_proba and classes_
    assert np.allclose(integrated_gradients(counting, X[:30], B[:30], steps=3, rule=rule), exact, rtol=1e-9,
                       atol=1e-10)


def test_finite_differences_converge_to_the_ig_of_our_network():
    """Against the autodiff IG of the same network: both approximate one integral with first-order error (a
    ReLU network's gradient jumps along the path), so we compare each with a 2,048-point autodiff reference: the
    finite differences at T = 64 are no further from it than twice the autodiff sum's own error at T = 64,
    and they halve (or better) from T = 16 to T = 64."""
    X, y, a, B = tree_problem()
    model = MLPClassifier(hidden_layer_sizes=(16, 8), epochs=20, learning_rate=1e-2, random_state=0).fit(X, y)
    rows = slice(0, 40)
    reference = integrated_gradients(model, X[rows], B[rows], steps=2048)

    def error(G):
        return np.abs(G - reference).sum()

    fd16 = integrated_gradients(model, X[rows], B[rows], steps=16, method="finite-difference")
    fd64 = integrated_gradients(model, X[rows], B[rows], steps=64, method="finite-difference")
    ad64 = integrated_gradients(model, X[rows], B[rows], steps=64)
    assert error(fd64) <= 2 * error(ad64) + 1e-4 * np.abs(reference).sum()
    assert error(fd64) <= 0.5 * error(fd16)
    assert error(fd64) <= 0.02 * np.abs(reference).sum()


def test_finite_differences_on_a_jax_function_keep_completeness():
    rng = np.random.default_rng(3)
    W1, W2 = rng.normal(size=(5, 16)), rng.normal(size=16)

    def f(Z):
        return jnp.tanh(jnp.asarray(Z) @ W1) @ W2

    X, B = rng.normal(size=(30, 5)), rng.normal(size=(30, 5)) * 0.5
    G = integrated_gradients(f, X, B, steps=64, method="finite-difference")
    delta = np.asarray(f(X) - f(B), dtype=float)
    keep = np.abs(delta) > 0.05
    assert (np.abs(G.sum(axis=1) - delta)[keep] <= 1e-2 * np.abs(delta[keep])).all()
    assert np.allclose(G, integrated_gradients(f, X, B, steps=64), rtol=0.05, atol=0.02)


def test_tree_models_through_predict_proba():
    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y, a, B = tree_problem()
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
    assert counting.calls == -(-n // (cec._FD_BLOCK_EVALUATIONS // (2 * d * steps)))
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
def test_attributions_by_feature_add_up_one_hot_blocks():
    from recourselab.datasets import load_german_credit

    german = load_german_credit()
    encoder = german.encoder().fit(german.X)
    Z = encoder.transform(german.X)
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, Z.shape[1]))
    out = attributions_by_feature(A, encoder)
    assert list(out.columns) == encoder.feature_names and out.shape == (5, len(encoder.feature_names))
    assert np.allclose(out.sum(axis=1), A.sum(axis=1))              # completeness survives the grouping
    names = encoder.feature_names_out_
    for feature in ("purpose", "credit_amount"):
        block = [i for i, c in enumerate(names) if encoder.spec_of_column(c).name == feature]
        assert np.allclose(out[feature], A[:, block].sum(axis=1))
    assert len([c for c in names if c.startswith("purpose=")]) > 1     # a real one-hot block was summed
    framed = attributions_by_feature(pd.DataFrame(A[:, :4], columns=names[:4], index=list("abcde")), encoder)
    assert list(framed.index) == list("abcde") and framed.to_numpy().sum() == pytest.approx(A[:, :4].sum())
    one = attributions_by_feature(A[0], encoder)
    assert one.shape == (1, len(encoder.feature_names))
    with pytest.raises(ValueError, match=r"attributions has 3 columns but \d+ column names are given"):
        attributions_by_feature(A[:, :3], encoder)
    with pytest.raises(ValueError, match=r"columns \['salary'\] are not columns of the encoder"):
        attributions_by_feature(A[:, :1], encoder, columns=["salary"])
    with pytest.raises(ValueError, match="missing or infinite"):
        attributions_by_feature(np.full((1, len(names)), np.nan), encoder)
    with pytest.raises(TypeError, match="encoder must be a fitted recourselab Encoder"):
        attributions_by_feature(A, None)


def test_a_model_fitted_on_a_data_frame_is_asked_with_its_column_names():
    import warnings

    from sklearn.ensemble import HistGradientBoostingClassifier

    X, y, a, B = tree_problem(200)
    frame = pd.DataFrame(X, columns=["x0", "x1", "group", "noise"])
    model = HistGradientBoostingClassifier(max_iter=20, random_state=0).fit(frame, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")   # scikit-learn warns when a frame-fitted model is given an array
        G = integrated_gradients(model, frame.iloc[:5], B[:5], steps=4)
    assert G.shape == (5, 4) and np.isfinite(G).all()

"""The network trained with the paper's penalties: the loss's gradient, what each penalty does, determinism."""

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from explanation_consistency.cec_cases import TINY, random_params
from sklearn.base import clone

from recourselab.explanation_consistency import MLPClassifier, cec_scores
from recourselab.explanation_consistency import mlp as mlp_module
from recourselab.explanation_consistency.network import TrainConfig, batch_loss, cec_term


def _check_gradient(loss, params, args):
    """jax's gradient of loss(params, *args) against central differences in every parameter."""
    leaves, treedef = jax.tree_util.tree_flatten(params)
    grad_leaves = jax.tree_util.tree_leaves(jax.grad(loss)(params, *args))
    h = 1e-6
    for li, leaf in enumerate(leaves):
        for k in range(leaf.size):
            values = []
            for delta in (h, -h):
                new = np.asarray(leaf).ravel().copy()
                new[k] += delta
                moved = list(leaves)
                moved[li] = jnp.asarray(new.reshape(leaf.shape))
                values.append(float(loss(jax.tree_util.tree_unflatten(treedef, moved), *args)))
            numeric = (values[0] - values[1]) / (2 * h)
            assert float(np.asarray(grad_leaves[li]).ravel()[k]) == pytest.approx(numeric, rel=1e-5, abs=1e-8)


@pytest.mark.parametrize("rule", ["riemann", "gauss-legendre"])
def test_gradient_of_the_cec_loss_matches_finite_differences(rule):
    """Seed 7 leaves most ReLUs dead along the paths; seed 1 keeps all rows' IG non-zero (riemann only)."""
    with jax.enable_x64(True):
        @jax.jit
        def loss(p, X, Xc, B, weight):
            return cec_term(p, X, Xc, B, weight, 8, rule)

        for seed in ((7, 1) if rule == "riemann" else (1,)):
            params = random_params(seed, (3, 4, 3, 1))
            rng = np.random.default_rng(seed)
            X, Xc, B = (jnp.asarray(rng.normal(size=(5, 3))) for _ in range(3))
            weight = jnp.asarray([1.0, 1.0, 0.0, 1.0, 1.0])          # one unmatched row takes no part
            _check_gradient(loss, params, (X, Xc, B, weight))
            assert float(loss(params, X, Xc, B, weight)) > 0


def test_cec_training_lowers_the_cec_score(pairs, plain_mlp, cec_mlp):
    X, y, a, X_cf, B = pairs
    before = cec_scores(plain_mlp, X, X_cf, B, steps=8).mean
    after = cec_scores(cec_mlp, X, X_cf, B, steps=8).mean
    assert before > 0.3            # the unconstrained network reasons differently by group
    assert after < 0.9 * before
    assert cec_mlp.history_["cec"].iloc[-1] < cec_mlp.history_["cec"].iloc[0]
    assert (plain_mlp.history_["cec"] == 0).all() and plain_mlp.history_["eo"].notna().all()
    # partly unmatched pairs (all-NaN rows) are allowed and skipped
    X_cf_partial = X_cf.copy()
    X_cf_partial[:10] = np.nan
    partial = MLPClassifier(**dict(TINY, epochs=2), lambda_cec=1.0, random_state=0).fit(X, y, X_cf=X_cf_partial,
                                                                                          baselines=B)
    assert np.isfinite(partial.history_.to_numpy()).all()


def test_cec_pairs_subsample_the_shuffled_batch(pairs, cec_mlp):
    X, y, a, X_cf, B = pairs

    def config(**kw):
        clf = MLPClassifier(**dict(TINY, lambda_cec=1.0, **kw))
        data = {"X": np.zeros((len(X), 3), np.float32)}
        return clf._config(data, *clf._check_hyperparameters())

    # as many pairs as the batch holds is every pair: the same compiled step (so the same model), and the
    # default takes 16 of the 64 pairs of each batch
    assert config(cec_pairs=None) == config(cec_pairs=64) == config(cec_pairs=1000)
    assert config(cec_pairs=None).cec_pairs is None and config().cec_pairs == 16 and config().batch_size == 64
    assert config(cec_pairs=None) != config()
    # the same configuration and seed trains the same network: two epochs are the first two of cec_mlp's thirty
    two_epochs = MLPClassifier(**dict(TINY, epochs=2, lambda_cec=1.0, random_state=0)).fit(
        X, y, sensitive_features=a, X_cf=X_cf, baselines=B)
    assert np.array_equal(two_epochs.history_, cec_mlp.history_.iloc[:2])
    # the loss's CEC term on a batch is the term of its first cec_pairs rows
    with jax.enable_x64(True):
        params = random_params(2, (3, 6, 4, 1))
        batch = {"X": jnp.asarray(X[:32]), "X_cf": jnp.asarray(X_cf[:32]), "B": jnp.asarray(B[:32]),
                 "y": jnp.asarray(y[:32], float), "w": jnp.ones(32), "valid": jnp.ones(32),
                 "a": jnp.asarray(a[:32], float), "matched": jnp.ones(32)}
        cfg = TrainConfig(sizes=(3, 6, 4, 1), batch_size=32, n_batches=1, dropout=0.0, learning_rate=1e-3,
                          use_cec=True, ig_steps=6, ig_rule="gauss-legendre", cec_pairs=8)
        _, parts = jax.jit(batch_loss, static_argnums=(4,))(params, batch, None, jnp.asarray([0.0, 1.0]), cfg)
        expected = jax.jit(cec_term, static_argnums=(5, 6))(params, batch["X"][:8], batch["X_cf"][:8],
                                                            batch["B"][:8], jnp.ones(8), 6, "gauss-legendre")
    assert float(parts[3]) == pytest.approx(float(expected), rel=1e-12)


def test_training_defaults_are_the_measured_cheap_setting():
    clf = MLPClassifier()
    assert (clf.ig_steps, clf.ig_rule, clf.cec_pairs) == (mlp_module.TRAIN_IG_STEPS, mlp_module.TRAIN_IG_RULE,
                                                          mlp_module.TRAIN_CEC_PAIRS) == (6, "gauss-legendre", 16)


def test_eo_penalty_and_any_two_labels(pairs):
    X, y, a, _, _ = pairs
    labels = np.where(y == 1, "good", "bad")
    clf = MLPClassifier(**TINY, lambda_eo=1.0, random_state=0).fit(X, labels, sensitive_features=np.where(a, "m", "f"))
    assert set(clf.classes_) == {"bad", "good"} and set(clf.predict(X)) <= {"bad", "good"}
    assert np.allclose(clf.predict_proba(X).sum(axis=1), 1.0)
    assert clf.history_["eo"].notna().all() and clf.history_.shape == (TINY["epochs"], 4)


def test_same_seed_same_model_and_clone(pairs, plain_mlp):
    X, y, a, _, _ = pairs
    two = MLPClassifier(**TINY, random_state=0).fit(X, y, sensitive_features=a)
    assert np.array_equal(plain_mlp.decision_function(X), two.decision_function(X))
    copy = clone(plain_mlp)
    assert copy.get_params() == plain_mlp.get_params() and not hasattr(copy, "params_")
    weighted = clone(plain_mlp).fit(X, pd.Series(y), sample_weight=pd.Series(np.linspace(0.5, 2, len(y))))
    assert not np.array_equal(weighted.decision_function(X), plain_mlp.decision_function(X))


def test_a_network_fitted_on_a_frame_reads_frames_by_name(pairs):
    X, y, _, _, _ = pairs
    frame = pd.DataFrame(X, columns=["x0", "x1", "group"])
    clf = MLPClassifier(**dict(TINY, epochs=1), random_state=0).fit(frame, y)
    assert list(clf.feature_names_in_) == ["x0", "x1", "group"]
    assert np.array_equal(clf.decision_function(frame[["group", "x0", "x1"]]), clf.decision_function(frame))
    with pytest.raises(ValueError, match=r"missing \['group'\], unexpected \['sex'\]"):
        clf.predict(frame.rename(columns={"group": "sex"}))
    assert not hasattr(clone(clf).fit(X, y), "feature_names_in_")   # refitted on an array: no names


def test_mlp_predicts_no_rows_with_scikit_learn_shapes(plain_mlp):
    empty = np.zeros((0, 3))
    assert plain_mlp.predict(empty).shape == (0,)
    assert plain_mlp.predict_proba(empty).shape == (0, 2)
    assert plain_mlp.decision_function(empty).shape == (0,)


@pytest.mark.parametrize("method", ["predict", "predict_proba", "decision_function", "score"])
def test_unfitted_mlp_raises_not_fitted_error(method):
    from sklearn.exceptions import NotFittedError

    args = (np.zeros((2, 3)), [0, 1]) if method == "score" else (np.zeros((2, 3)),)
    with pytest.raises(NotFittedError, match="not fitted yet; call fit"):
        getattr(MLPClassifier(), method)(*args)


"""The network trained with the paper's penalties (Algorithm 2): :class:`MLPClassifier`, a scikit-learn estimator."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import NotFittedError

from .._validation import (
    check_aligned,
    check_array,
    check_int,
    check_number,
    check_seed,
    check_table,
    is_integer,
)
from ._inputs import baseline_matrix, check_steps, frame_columns, group_codes, labels, partner_matrix
from .network import (
    IG_MAX_BLOCKS,
    TrainConfig,
    chunked,
    epoch_function,
    ig_function,
    init_params,
    jax,
    jnp,
    logit_function,
    require_jax,
)
from .quadrature import check_rule

__all__ = ["MLPClassifier"]

# The CEC term in training (MLPClassifier defaults; the measurement behind them is in MLPClassifier's docstring
# and benchmarks/cec.py): T path points of a rule, on the first cec_pairs rows of each shuffled minibatch.
TRAIN_IG_STEPS = 6
TRAIN_IG_RULE = "gauss-legendre"
TRAIN_CEC_PAIRS = 16


class MLPClassifier(ClassifierMixin, BaseEstimator):
    """A ReLU network for binary classification with the paper's equalized-odds and CEC penalties.

    Written in JAX (CPU) and trained with Adam (optax). The loss on a minibatch
    is (the paper's Algorithm 2)

    .. math:: \\mathcal L = \\mathrm{BCE}_w
              + \\lambda_{EO} \\big[(\\widehat{TPR}_0 - \\widehat{TPR}_1)^2
                                  + (\\widehat{FPR}_0 - \\widehat{FPR}_1)^2\\big]
              + \\lambda_{CEC} \\cdot \\mathrm{mean}_{i \\text{ matched}}\\, \\Delta_{CEC}(x_i, \\tilde x_i)^2 ,

    where the soft rates are mean sigmoid outputs within each (label, group)
    cell of the batch (a cell empty in the batch drops that label's term), and
    the CEC term uses integrated gradients with the factual's baseline for both
    members of a pair, computed on the network without dropout. The CEC term is
    averaged over the matched rows of the batch (the paper averages over the
    batch; every row is matched there). It needs the gradient of integrated
    gradients (gradients of gradients), which is why the model is written in JAX.

    With ``hidden_layer_sizes=()`` the network is logistic regression (a linear
    logit). With ``standardize=True`` inputs are standardised with the training
    mean and standard deviation inside the model; integrated gradients do not
    change under such a per-feature affine rescaling (the path and its
    derivative rescale together), so attributions are those of the model on
    the original features.

    Parameters
    ----------
    hidden_layer_sizes : tuple of int, default (128, 64)
    dropout : float in [0, 1), default 0.2
        Dropout rate of the hidden layers during training (not in the CEC term).
    learning_rate : float, default 3e-4
    batch_size : int, default 64
    epochs : int, default 30
    lambda_eo : float, default 0.0
        Weight of the soft equalized-odds penalty (needs ``sensitive_features``).
    lambda_cec : float, default 0.0
        Weight of the CEC penalty (needs ``X_cf`` and ``baselines``).
    ig_steps : int, default 6
        Path points T of the integrated gradients in the CEC term.
    ig_rule : {"riemann", "gauss-legendre", "trapezoid"}, default "gauss-legendre"
        Their quadrature rule (:func:`ig_quadrature`).
    cec_pairs : int or None, default 16
        Matched pairs per minibatch in the CEC term: the first ``cec_pairs``
        rows of each (shuffled) batch, a random subset whose mean estimates
        the batch's (without bias when every row is matched); None uses every
        row of the batch. The CEC term's cost is proportional to pairs x path
        points; these defaults (T = 6 Gauss-Legendre points on 16 of 64 pairs)
        keep a CEC epoch within 3x of a plain one and the CEC score within 0.01
        of T = 128 on trained networks (``benchmarks/cec.py``, parts 4, 6 and 7;
        the measurement is told in the performance appendix). For explanations
        (:func:`integrated_gradients`, :func:`evaluate_method`) the default
        stays T = 32 midpoint points.
    standardize : bool, default True
    random_state : None, int or numpy.random.Generator
        Seeds the initialisation (He normal for hidden layers, Glorot normal for
        the output), the shuffling and the dropout masks.

    Attributes
    ----------
    classes_ : ndarray of the two labels; ``predict_proba[:, 1]`` is for ``classes_[1]``
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The columns of a DataFrame ``X`` given to :meth:`fit` (only then); a
        DataFrame given later is aligned to them by name.
    params_ : tuple of (W, c) pairs (numpy float32), the fitted network (on standardised inputs)
    mean_, scale_ : ndarray of shape (d,)
        The input standardisation (zeros and ones when ``standardize=False``).
    history_ : pandas.DataFrame
        Per-epoch mean of the loss and its three parts over the minibatches
        (``eo`` is the soft gap whenever ``sensitive_features`` is given,
        even with ``lambda_eo=0``; ``cec`` is 0 unless ``lambda_cec > 0``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = (X[:, 0] > 0).astype(int)
    >>> clf = MLPClassifier(hidden_layer_sizes=(8,), epochs=20, learning_rate=0.02, random_state=0).fit(X, y)
    >>> clf.predict_proba(X).shape, bool(clf.score(X, y) > 0.9)
    ((200, 2), True)
    """

    def __init__(self, hidden_layer_sizes=(128, 64), dropout=0.2, learning_rate=3e-4, batch_size=64, epochs=30,
                 lambda_eo=0.0, lambda_cec=0.0, ig_steps=TRAIN_IG_STEPS, ig_rule=TRAIN_IG_RULE,
                 cec_pairs=TRAIN_CEC_PAIRS, standardize=True, random_state=None):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.dropout = dropout
        self.learning_rate = learning_rate
        self.batch_size = batch_size
        self.epochs = epochs
        self.lambda_eo = lambda_eo
        self.lambda_cec = lambda_cec
        self.ig_steps = ig_steps
        self.ig_rule = ig_rule
        self.cec_pairs = cec_pairs
        self.standardize = standardize
        self.random_state = random_state

    # ----------------------------------------------------------------- validation
    def _check_sizes(self) -> tuple:
        sizes = self.hidden_layer_sizes
        if is_integer(sizes):
            sizes = (sizes,)
        if sizes is None or isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
            raise TypeError(f"hidden_layer_sizes={sizes!r} must be a tuple of ints >= 1 (or () for logistic "
                            "regression).")
        return tuple(check_int(h, f"hidden_layer_sizes[{i}]", minimum=1) for i, h in enumerate(sizes))

    def _check_hyperparameters(self):
        """The validated hidden sizes, path points, rule and pairs per batch (the rest is checked in place)."""
        sizes = self._check_sizes()
        dropout = check_number(self.dropout, "dropout", minimum=0.0)
        if dropout >= 1:
            raise ValueError(f"dropout={dropout:g} must lie in [0, 1) (the share of hidden units dropped).")
        check_number(self.learning_rate, "learning_rate", minimum=0.0, strict_minimum=True)
        check_int(self.batch_size, "batch_size", minimum=1)
        check_int(self.epochs, "epochs", minimum=1)
        check_number(self.lambda_eo, "lambda_eo", minimum=0.0)
        check_number(self.lambda_cec, "lambda_cec", minimum=0.0)
        steps = check_steps(self.ig_steps, "ig_steps")
        rule = check_rule(self.ig_rule, "ig_rule")
        if rule == "trapezoid" and steps < 2:
            raise ValueError(f"ig_steps={steps} is too few for ig_rule='trapezoid', which needs both ends of the "
                             "path: give ig_steps >= 2.")
        pairs = None if self.cec_pairs is None else check_int(self.cec_pairs, "cec_pairs", minimum=1)
        return sizes, steps, rule, pairs

    def _check_fitted(self):
        if not hasattr(self, "params_"):
            raise NotFittedError("this MLPClassifier is not fitted yet; call fit(X, y) first.")

    def _inputs(self, X, name="X") -> np.ndarray:
        """X as the fitted network reads it: a DataFrame aligned by name to the columns fitted on."""
        M = check_table(X, name, columns=getattr(self, "feature_names_in_", None), allow_empty=True)
        if M.shape[1] != self.n_features_in_:
            raise ValueError(f"{name} has {M.shape[1]} columns but the model was fitted on {self.n_features_in_}.")
        return M

    def _scale(self, M: np.ndarray) -> np.ndarray:
        return ((M - self.mean_) / self.scale_).astype(np.float32)

    # ----------------------------------------------------------------- fit, in named steps
    def fit(self, X, y, sample_weight=None, *, sensitive_features=None, X_cf=None, baselines=None):
        """Train the network.

        Parameters
        ----------
        X : DataFrame or 2-d array of numbers, shape (n, d)
        y : array of shape (n,) with two labels
        sample_weight : array of shape (n,), optional
            Non-negative weights of the cross-entropy (as fairlearn's
            ``ExponentiatedGradient`` passes them); rescaled to mean 1.
        sensitive_features : array of shape (n,) with two values
            Needed when ``lambda_eo > 0``; without the penalty it is only
            monitored (``history_["eo"]``).
        X_cf : array of shape (n, d)
            Each row's counterfactual partner (e.g. from
            :func:`counterfactual_rows`); an all-NaN row marks an unmatched row,
            which takes no part in the CEC term. Needed when ``lambda_cec > 0``.
            A DataFrame is aligned to a DataFrame ``X`` by column name.
        baselines : array of shape (n, d) or (d,)
            Each row's integrated-gradients baseline (the factual's label-group
            mean, :func:`label_group_baselines`). Needed when ``lambda_cec > 0``.

        Returns
        -------
        self
        """
        require_jax()
        sizes, steps, rule, pairs = self._check_hyperparameters()
        seed = check_seed(self.random_state)
        check_aligned(X, "X", y=y, sample_weight=sample_weight, sensitive_features=sensitive_features, X_cf=X_cf,
                      baselines=baselines)
        M = check_table(X, "X")
        if len(M) < 2:
            raise ValueError(f"X has {len(M)} row(s); fitting needs at least 2.")
        classes, data, mean, scale = self._training_data(M, y, sample_weight, sensitive_features)
        if self.lambda_cec > 0:
            data.update(self._pair_data(M, X_cf, baselines, mean, scale, frame_columns(X)))
        cfg = self._config(data, sizes, steps, rule, pairs)
        params, history = self._train(cfg, data, seed)
        self.params_ = tuple((np.asarray(W), np.asarray(c)) for W, c in params)
        self.mean_, self.scale_ = mean, scale
        self.classes_ = classes
        self.n_features_in_ = M.shape[1]
        if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_   # refitted on an array: no names to align by
        self.history_ = pd.DataFrame(history, columns=["loss", "bce", "eo", "cec"]).rename_axis("epoch")
        return self

    def _training_data(self, M, y, sample_weight, sensitive_features):
        """Labels coded 0/1, weights, group codes and the standardised inputs, as float32 arrays."""
        n, d = M.shape
        y = labels(y, "y", n)
        classes = np.unique(y)
        if len(classes) != 2:
            raise ValueError(f"y must have exactly two labels to fit a binary classifier, found "
                             f"{classes.tolist()[:6]}.")
        if sample_weight is None:
            w = np.ones(n)
        else:
            w = check_array(sample_weight, "sample_weight", length=n, minimum=0.0, length_of="rows of X")
            if w.sum() <= 0:
                raise ValueError("sample_weight is all zero; give at least one row a positive weight.")
            w = w / w.mean()
        a01 = np.zeros(n, dtype=np.float32)
        if self.lambda_eo > 0 and sensitive_features is None:
            raise ValueError(f"lambda_eo={self.lambda_eo} > 0 needs sensitive_features (the protected attribute of "
                             "every row) in fit.")
        if sensitive_features is not None:   # also without the penalty: history_ then reports the soft EO gap
            _, codes = group_codes(labels(sensitive_features, "sensitive_features", n), "sensitive_features")
            a01 = codes.astype(np.float32)
        mean = M.mean(axis=0) if self.standardize else np.zeros(d)
        scale = M.std(axis=0) if self.standardize else np.ones(d)
        scale[scale == 0] = 1.0
        data = {"X": ((M - mean) / scale).astype(np.float32), "y": (y == classes[1]).astype(np.float32),
                "w": w.astype(np.float32), "valid": np.ones(n, np.float32), "a": a01}
        return classes, data, mean, scale

    def _pair_data(self, M, X_cf, baselines, mean, scale, columns) -> dict:
        """The partners, baselines and matched flags of the CEC term, standardised like X."""
        if X_cf is None or baselines is None:
            raise ValueError(f"lambda_cec={self.lambda_cec} > 0 needs X_cf (each row's counterfactual partner, "
                             "all-NaN when unmatched) and baselines (each row's label-group mean) in fit; see "
                             "match_counterfactuals, counterfactual_rows and label_group_baselines.")
        C = partner_matrix(X_cf, "X_cf", M.shape, columns=columns)
        matched = ~np.isnan(C).any(axis=1)
        if not matched.any():
            raise ValueError("X_cf has no matched row (all rows are NaN), so the CEC term is empty; check the "
                             "matching (tau may be too small).")
        C = np.where(matched[:, None], C, M)  # placeholders; masked out of the loss
        B = baseline_matrix(baselines, M.shape, columns=columns)
        return {"X_cf": ((C - mean) / scale).astype(np.float32), "B": ((B - mean) / scale).astype(np.float32),
                "matched": matched.astype(np.float32)}

    def _config(self, data, sizes, steps, rule, pairs) -> TrainConfig:
        """The static configuration of the compiled epoch; pads ``data`` to whole batches."""
        n, d = data["X"].shape
        batch_size = min(int(self.batch_size), n)
        n_batches = -(-n // batch_size)
        pad = n_batches * batch_size - n
        if pad:
            for k, v in data.items():
                data[k] = np.concatenate([v, np.zeros((pad,) + v.shape[1:], v.dtype)])
        return TrainConfig(sizes=(d,) + sizes + (1,), batch_size=batch_size, n_batches=n_batches,
                           dropout=float(self.dropout), learning_rate=float(self.learning_rate),
                           use_cec=self.lambda_cec > 0, ig_steps=steps, ig_rule=rule,
                           cec_pairs=None if pairs is None or pairs >= batch_size else pairs)

    def _train(self, cfg: TrainConfig, data: dict, seed: int):
        """Run the compiled epochs; returns the parameters and the per-epoch loss parts."""
        optimizer, epoch_fn = epoch_function(cfg)
        init_key, train_key = jax.random.split(jax.random.PRNGKey(seed))
        params = init_params(init_key, cfg.sizes)
        opt_state = optimizer.init(params)
        data = {k: jnp.asarray(v) for k, v in data.items()}
        lambdas = jnp.asarray([self.lambda_eo, self.lambda_cec], dtype=jnp.float32)
        history = []
        for epoch in range(int(self.epochs)):
            params, opt_state, parts = epoch_fn(params, opt_state, jax.random.fold_in(train_key, epoch), data, lambdas)
            history.append(parts)
        return params, np.asarray(jnp.stack(history), dtype=float)

    # ----------------------------------------------------------------- predict
    def decision_function(self, X) -> np.ndarray:
        """The logit of ``classes_[1]`` (what integrated gradients explain), shape (n,).

        Raises ``sklearn.exceptions.NotFittedError`` before :meth:`fit`, like
        every method that needs the fitted network.
        """
        require_jax()
        self._check_fitted()
        Z = self._scale(self._inputs(X))
        params = tuple((jnp.asarray(W), jnp.asarray(c)) for W, c in self.params_)
        fn = logit_function()
        return chunked(lambda Z: fn(params, Z), [Z], 1 << 16, tail=())

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of ``classes_[0]`` and ``classes_[1]``, shape (n, 2) (also (0, 2) for no rows)."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p]).reshape(len(p), 2)

    def predict(self, X) -> np.ndarray:
        """The more probable label (``classes_[1]`` when the logit is > 0), shape (n,)."""
        positive = self.decision_function(X) > 0   # first: it raises NotFittedError before classes_ is needed
        return self.classes_[positive.astype(int)]

    def _integrated_gradients(self, M: np.ndarray, B: np.ndarray, steps: int, rule: str = "riemann") -> np.ndarray:
        """IG of the logit of ``classes_[1]`` for validated matrices (see :func:`integrated_gradients`)."""
        self._check_fitted()
        if M.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {M.shape[1]} columns but the model was fitted on {self.n_features_in_}.")
        params = tuple((jnp.asarray(W), jnp.asarray(c)) for W, c in self.params_)
        fn, rows = ig_function(steps, rule)
        # IG is unchanged by the per-feature standardisation, so compute it on the scaled inputs
        return chunked(lambda Z, Zb: fn(params, Z, Zb), [self._scale(M), self._scale(B)], IG_MAX_BLOCKS * rows,
                       multiple=rows)

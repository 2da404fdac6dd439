"""Integrated gradients of any binary classifier, and attributions added up per original feature.

The literal midpoint sum for one row is :func:`recourselab.explanation_consistency.paper.integrated_gradients_row`.
"""

from __future__ import annotations

import types
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._validation import check_aligned, check_array, check_table, favourable_column, plain
from ._inputs import baseline_matrix, check_steps
from .mlp import MLPClassifier
from .network import IG_BLOCK_POINTS, jax, jnp, path_weights, require_jax
from .quadrature import check_rule, quadrature

__all__ = ["IG_METHODS", "integrated_gradients", "attributions_by_feature", "SaturatedProbabilityWarning"]

#: How :func:`integrated_gradients` takes the gradients along the path (see its docstring).
IG_METHODS = ("auto", "autodiff", "finite-difference")
FD_BLOCK_EVALUATIONS = 1 << 16   # model evaluations per predict_proba call of the finite-difference path
PROBABILITY_CLIP = 1e-12         # predict_proba is clipped to [clip, 1 - clip] before its logit is taken


class SaturatedProbabilityWarning(UserWarning):
    """Finite-difference integrated gradients met probabilities of exactly 0 or 1 on an integration path.

    Their logit is infinite; it is clipped at ±27.6 (p in [1e-12, 1 - 1e-12]), so those rows' attributions
    are set by the clip, not by the model (see :func:`integrated_gradients`).
    """


def fairlearn_types():
    """fairlearn's ThresholdOptimizer and ExponentiatedGradient classes (empty tuples without fairlearn)."""
    try:
        from fairlearn.postprocessing import ThresholdOptimizer
        from fairlearn.reductions import ExponentiatedGradient
    except ImportError:  # pragma: no cover
        return (), ()
    return ThresholdOptimizer, ExponentiatedGradient


def check_method(method) -> str:
    if not isinstance(method, str) or method.lower() not in IG_METHODS:
        raise ValueError(f"method={method!r} is not one of {IG_METHODS}: 'auto' differentiates our networks and "
                         "linear models exactly and uses finite differences on predict_proba for any other model.")
    return method.lower()


def check_fitted(model) -> None:
    """Refuse an unfitted scikit-learn estimator with our message (not scikit-learn's, from deep inside)."""
    if isinstance(model, BaseEstimator) and not isinstance(model, type):
        from sklearn.utils.validation import check_is_fitted
        try:
            check_is_fitted(model)
        except NotFittedError:
            raise NotFittedError(f"the {type(model).__name__} is not fitted; fit it before explaining it (integrated "
                                 "gradients explain a trained model).") from None


def favourable_is_second(model, favourable) -> bool:
    """True when ``favourable`` is ``classes_[1]`` (the class whose logit the model computes), False for
    ``classes_[0]`` (the attributions change sign); refuses a class the model does not have.

    A model without ``predict_proba`` (a duck-typed linear model) has the classes ``classes_`` or (0, 1);
    a function f(Z) returns one logit, which is taken as the favourable class's, so only the default is accepted.
    """
    if callable(model) and not hasattr(model, "predict_proba") and not hasattr(model, "coef_"):
        if favourable != 1:
            raise ValueError(f"favourable={plain(favourable)!r} cannot be applied to a function f(Z): it returns one "
                             "logit, taken as the favourable class's. Leave favourable=1 and pass lambda Z: -f(Z) "
                             "to explain the other class.")
        return True
    if not hasattr(model, "predict_proba"):
        model = types.SimpleNamespace(predict_proba=None, classes_=getattr(model, "classes_", None))
    return favourable_column(model, favourable) == 1


def unexplainable(model, method: str) -> TypeError:
    if method == "autodiff":
        return TypeError(
            f"cannot differentiate a {type(model).__name__}: method='autodiff' needs "
            "recourselab.explanation_consistency.MLPClassifier, a fitted linear model (coef_ and intercept_) or a "
            "function f(Z) -> (n,) written in jax.numpy. For any other model with predict_proba use "
            "method='finite-difference' (or 'auto')."
        )
    return TypeError(
        f"cannot explain a {type(model).__name__}: integrated gradients need a differentiable logit or, through "
        "finite differences, a predict_proba(Z) on the encoded matrix. Use "
        "recourselab.explanation_consistency.MLPClassifier, a fitted linear model (coef_ and intercept_), "
        "fairlearn's ThresholdOptimizer or ExponentiatedGradient around one of those, a function f(Z) -> (n,) in "
        "jax.numpy, or any fitted classifier with predict_proba (e.g. a scikit-learn "
        "HistGradientBoostingClassifier, or a Pipeline wrapped by recourselab's adapter)."
    )


def explain(model, M: np.ndarray, B: np.ndarray, steps: int, rule: str = "riemann", method: str = "auto",
            favourable=1) -> np.ndarray:
    """Integrated gradients for validated matrices: fairlearn's wrappers are unwrapped, then one of the paths."""
    from sklearn.dummy import DummyClassifier

    check_fitted(model)
    threshold_optimizer, exponentiated_gradient = fairlearn_types()
    if threshold_optimizer and isinstance(model, threshold_optimizer):
        return explain(model.estimator_, M, B, steps, rule, method, favourable)
    if exponentiated_gradient and isinstance(model, exponentiated_gradient):
        total = np.zeros_like(M)
        for predictor, weight in zip(model.predictors_, np.asarray(model.weights_, dtype=float), strict=True):
            if weight > 0:
                total += weight * explain(predictor, M, B, steps, rule, method, favourable)
        return total
    if isinstance(model, DummyClassifier):  # fairlearn's constant best response: no feature matters
        return np.zeros_like(M)
    second = favourable_is_second(model, favourable)
    G = _explain_logit(model, M, B, steps, rule, method)
    return G if second else -G


def _explain_logit(model, M, B, steps, rule, method) -> np.ndarray:
    """IG of the logit of ``classes_[1]`` (a function's own output), by the path that suits the model."""
    if method == "finite-difference":
        if hasattr(model, "predict_proba") or (callable(model) and not isinstance(model, type)):
            return _ig_finite_difference(model, M, B, steps, rule)
        raise unexplainable(model, method)
    if isinstance(model, MLPClassifier):
        require_jax()
        return model._integrated_gradients(M, B, steps, rule)
    if hasattr(model, "coef_") and hasattr(model, "intercept_"):
        w = np.asarray(model.coef_, dtype=float)
        if w.ndim == 2 and w.shape[0] != 1:
            raise ValueError(f"the linear model has coef_ of shape {w.shape}; only binary models (one logit) "
                             "can be explained here.")
        w = w.ravel()
        if len(w) != M.shape[1]:
            raise ValueError(f"X has {M.shape[1]} columns but the model's coef_ has {len(w)}.")
        return (M - B) * w
    if callable(model) and not isinstance(model, type):
        require_jax()
        return _ig_callable(model, M, B, steps, rule)
    if method == "auto" and hasattr(model, "predict_proba"):
        return _ig_finite_difference(model, M, B, steps, rule)
    raise unexplainable(model, method)


def _ig_callable(f, M, B, steps, rule="riemann"):
    n, d = M.shape
    rows = max(1, (IG_BLOCK_POINTS * 32) // steps)

    @jax.jit
    def ig(X, Bc):
        alphas, weights = path_weights(steps, rule, X.dtype)
        Z = (Bc[None] + alphas[:, None, None] * (X - Bc)[None]).reshape(-1, X.shape[1])
        out = f(Z)
        if out.shape != (Z.shape[0],):
            raise ValueError(f"the function returned shape {out.shape} for input of shape {Z.shape}; it must "
                             "return one logit per row, shape (n,).")
        grads = jax.grad(lambda Z: f(Z).sum())(Z).reshape(steps, X.shape[0], X.shape[1])
        return (X - Bc) * jnp.tensordot(weights, grads, axes=1)

    out = [np.asarray(ig(jnp.asarray(M[s:s + rows]), jnp.asarray(B[s:s + rows])), dtype=float)
           for s in range(0, n, rows)]
    return np.concatenate(out) if out else np.zeros((0, d))


def _fd_logit(model, d: int):
    """The function Z -> (logit, clipped) the finite-difference path differentiates: log(p / (1 - p)) of
    ``p = predict_proba(Z)[:, 1]`` (clipped to [1e-12, 1 - 1e-12]; ``clipped`` marks where the clip acted),
    or a callable's own output (never clipped)."""
    if not hasattr(model, "predict_proba"):
        def call(Z):
            out = np.asarray(model(Z), dtype=float)
            if out.shape != (len(Z),):
                raise ValueError(f"the function returned shape {out.shape} for input of shape {Z.shape}; it must "
                                 "return one logit per row, shape (n,).")
            return out, np.zeros(len(Z), dtype=bool)
        return call
    classes = getattr(model, "classes_", None)
    if classes is not None and len(classes) != 2:
        raise ValueError(f"the model has {len(classes)} classes {[plain(c) for c in list(classes)[:6]]}; only "
                         "binary models (one logit) can be explained here.")
    names = getattr(model, "feature_names_in_", None)   # fitted on a DataFrame: predict on one (no warning)
    named = names is not None and len(names) == d

    def logit(Z):
        P = np.asarray(model.predict_proba(pd.DataFrame(Z, columns=names) if named else Z), dtype=float)
        if P.shape != (len(Z), 2):
            raise ValueError(f"predict_proba returned shape {P.shape} for {len(Z)} rows of {d} columns; a "
                             "binary classifier returns shape (n, 2).")
        p = np.clip(P[:, 1], PROBABILITY_CLIP, 1.0 - PROBABILITY_CLIP)
        return np.log(p) - np.log1p(-p), (P[:, 1] < PROBABILITY_CLIP) | (P[:, 1] > 1.0 - PROBABILITY_CLIP)
    return logit


def _ig_finite_difference(model, M: np.ndarray, B: np.ndarray, steps: int, rule: str = "riemann") -> np.ndarray:
    """Integrated gradients from model evaluations only: a difference across each path point's cell.

    The rule's weights cut [0, 1] into cells :math:`[c_{k-1}, c_k]` with
    :math:`c_k = w_1 + \\dots + w_k`, each holding its node :math:`\\alpha_k`
    (for the midpoint rule the node is the cell's centre, so the difference is
    central). With :math:`z_k = b + \\alpha_k (x - b)`,

    .. math:: \\mathrm{IG}_j \\approx \\sum_k \\big[f(z_k \\,|\\, z_j = b_j + c_k \\Delta_j)
              - f(z_k \\,|\\, z_j = b_j + c_{k-1} \\Delta_j)\\big], \\quad \\Delta = x - b,

    which is :math:`\\Delta_j \\sum_k w_k` times a difference quotient of step
    :math:`w_k \\Delta_j` in column j. All :math:`2dT` evaluations of a block of
    rows go to the model in one ``predict_proba`` call.
    """
    n, d = M.shape
    f = _fd_logit(model, d)
    alphas, weights = quadrature(steps, rule)
    upper = np.cumsum(weights)
    upper[-1] = 1.0
    ends = np.stack([np.concatenate([[0.0], upper[:-1]]), upper], axis=1)   # (T, 2): cells tile [0, 1] exactly
    rows = max(1, FD_BLOCK_EVALUATIONS // (2 * d * steps))
    out = np.zeros((n, d))
    saturated = np.zeros(n, dtype=bool)
    for start in range(0, n, rows):
        X, Bc = M[start:start + rows], B[start:start + rows]
        values, clipped = (v.reshape(len(X), steps, d, 2) for v in f(_cell_ends(X, Bc, alphas, ends)))
        if not np.isfinite(values).all():
            raise ValueError("the model returned non-finite values on the integration path; check predict_proba.")
        differences = values[..., 1] - values[..., 0]
        out[start:start + len(X)] = differences.sum(axis=1)
        saturated[start:start + len(X)] = ((clipped[..., 0] | clipped[..., 1]) & (differences != 0)).any(axis=(1, 2))
    if saturated.any():
        warnings.warn(_saturation_message(int(saturated.sum()), n), SaturatedProbabilityWarning, stacklevel=5)
    return out


def _cell_ends(X, Bc, alphas, ends) -> np.ndarray:
    """The 2dT points of a block of rows, shape (rows * T * d * 2, d): path point k with column j at either end
    of its cell."""
    r, d = X.shape
    steps = len(alphas)
    Z = Bc[:, None, :] + alphas[None, :, None] * (X - Bc)[:, None, :]             # (r, T, d) path points
    E = np.broadcast_to(Z[:, :, None, None, :], (r, steps, d, 2, d)).copy()     # (row, point, column, end, d)
    # (1 - c) b + c x is exactly b at c = 0 and exactly x at c = 1 (b + c (x - b) can miss x by a rounding
    # step, and a tree's threshold can sit exactly at a training value)
    c = ends[None, None, :, :]
    cols = np.arange(d)
    E[:, :, cols, :, cols] = (1.0 - c) * Bc.T[:, :, None, None] + c * X.T[:, :, None, None]
    return E.reshape(-1, d)


def _saturation_message(rows: int, n: int) -> str:
    clip = float(np.log(1 - PROBABILITY_CLIP) - np.log(PROBABILITY_CLIP))
    return (f"predict_proba returned probabilities of exactly 0 or 1 on the integration path of {rows} of {n} rows; "
            f"their logit is infinite, so it was clipped at ±{clip:.1f} (p clipped to [1e-12, 1 - 1e-12]) and those "
            f"rows' attributions are multiples of {clip:.1f} set by the clip, not by the model. Explain a model whose "
            "probabilities stay inside (0, 1) (a boosted ensemble or a calibrated model rather than a single tree), "
            "or read those rows' attributions as signs only.")


def _model_columns(model):
    """The column names a model was fitted on (fairlearn's wrappers: their networks'), or None."""
    threshold_optimizer, exponentiated_gradient = fairlearn_types()
    if threshold_optimizer and isinstance(model, threshold_optimizer):
        return _model_columns(getattr(model, "estimator_", None))
    if exponentiated_gradient and isinstance(model, exponentiated_gradient):
        found = [_model_columns(p) for p in getattr(model, "predictors_", [])]
        return next((c for c in found if c is not None), None)
    names = getattr(model, "feature_names_in_", None)
    return None if names is None else [str(c) for c in names]


def model_inputs(model, X, name: str = "X", **pairs):
    """X as the model reads it (a DataFrame aligned by name to the model's columns, else to its own) and the
    column names its paired frames (baselines, partners) must be aligned to; refuses misaligned indexes."""
    check_aligned(X, name, **pairs)
    columns = _model_columns(model) if isinstance(X, pd.DataFrame) else None
    M = check_table(X, name, columns=columns)
    if columns is None and isinstance(X, pd.DataFrame):
        columns = [str(c) for c in X.columns]
    return M, columns


def integrated_gradients(model, X, baselines, steps: int = 32, *, rule: str = "riemann", method: str = "auto",
                         favourable=1) -> np.ndarray:
    """Integrated gradients of a model's logit along the straight path from each baseline to each row.

    .. math:: \\mathrm{IG}_j(x; b) = (x_j - b_j) \\sum_{k=1}^{T} w_k\\,
              \\frac{\\partial f}{\\partial x_j}\\big(b + \\alpha_k (x - b)\\big)

    with the positions :math:`\\alpha_k` and weights :math:`w_k` of a quadrature
    rule (:func:`ig_quadrature`; the default is the midpoint rule,
    :math:`\\alpha_k = (k - \\tfrac12)/T`, :math:`w_k = 1/T`, the paper's sum
    under our reading), :math:`f` the logit of the favourable class.

    Sundararajan et al.'s axioms :cite:p:`sundararajan2017axiomatic`, as they
    hold here. *Completeness*: the attributions of a row add up to
    :math:`f(x) - f(b)` (up to the quadrature error). *Sensitivity*: a feature
    in which x and b differ, and which alone changes the prediction, gets a
    non-zero attribution; a feature the model ignores gets exactly zero.
    *Implementation invariance*: two networks that compute the same function
    get the same attributions (they depend on the function's gradients only,
    not on how it is written; the finite-difference path on a tree model uses
    its cell differences, see below). *Linearity* is linearity in the model:
    the IG of :math:`a f_1 + c f_2` is :math:`a\\,\\mathrm{IG}(f_1) +
    c\\,\\mathrm{IG}(f_2)`, which is why a mixture of networks is explained by
    the weighted sum of their IGs. (For a linear logit :math:`w^\\top x + c`
    the gradient is constant and IG is exactly :math:`(x - b) \\odot w`: a
    consequence of the definition, not the linearity axiom.)

    Supported models:

    * :class:`MLPClassifier` (all rows and path points in one batched, compiled computation);
    * any fitted linear model with ``coef_`` and ``intercept_`` (e.g. scikit-learn's
      ``LogisticRegression``): the exact closed form :math:`(x - b) \\odot w`;
    * fairlearn's ``ThresholdOptimizer``: explains its fitted ``estimator_``. The
      group-specific randomised thresholds applied afterwards are not
      differentiable and are not part of the explanation;
    * fairlearn's ``ExponentiatedGradient``: by linearity, the weighted sum over
      ``predictors_`` (weights ``weights_``) of each predictor's IG explains the
      weighted mixture of their logits (a stand-in for the randomised
      classifier, which has no gradient);
    * a function ``f(Z) -> (n,)`` written in ``jax.numpy`` (its output is the
      favourable class's logit);
    * **any other binary classifier with** ``predict_proba(Z)`` on the matrix
      ``X`` (a gradient-boosted tree, a random forest, a scikit-learn
      ``Pipeline`` behind an adapter that takes the encoded matrix), through
      finite differences of :math:`f = \\log\\frac{p}{1 - p}` with
      :math:`p` = the ``predict_proba`` column of the favourable class.

    The finite-difference path (``method="finite-difference"``, or ``"auto"``
    for a model of the last kind). The rule's weights cut the path into cells
    :math:`[c_{k-1}, c_k]`, :math:`c_k = w_1 + \\dots + w_k`, each around its
    node :math:`\\alpha_k`; column j's partial derivative at path point k is the
    difference of f across that cell in column j alone, a step of
    :math:`w_k |x_j - b_j|`. Then :math:`\\mathrm{IG}_j = \\sum_k [f(z_k; z_j =
    b_j + c_k \\Delta_j) - f(z_k; z_j = b_j + c_{k-1}\\Delta_j)]`: the cells of
    a column tile its whole path, so every threshold a tree puts on column j
    between :math:`b_j` and :math:`x_j` is counted once, where an infinitesimal
    step would see a derivative of zero almost everywhere and miss every jump.

    * Cost: :math:`2dT` model evaluations per row, e.g. 4,032 per row for
      d = 63 and T = 32, stacked into one ``predict_proba`` call per block of
      :math:`2^{16}` evaluations; a 100-tree gradient-boosted model on Adult's
      49 encoded columns takes about 0.1-0.2 s per row at T = 32. Lower
      ``steps`` (the CEC score settles at far fewer points than completeness
      does, see ``benchmarks/cec.py``) or explain a sample.
    * Accuracy: for a smooth model the differences converge to the gradients as
      T grows. For a model that is a sum of one-column functions (a logistic
      regression, a boosted model of stumps) the sum telescopes and
      completeness holds exactly. For a tree model with interactions it holds
      only approximately; read such attributions as path-wise effects, not as
      derivatives.
    * A probability of exactly 0 or 1 has an infinite logit: it is clipped to
      :math:`[10^{-12}, 1 - 10^{-12}]` (a logit of ±27.6), and a
      ``SaturatedProbabilityWarning`` says how many rows' attributions the
      clip sets (multiples of 27.6 that measure the clip, not the model).

    Parameters
    ----------
    model : see above
    X : DataFrame or 2-d array of numbers, shape (n, d)
        The inputs as the model sees them. A DataFrame is aligned by column name
        to the model's ``feature_names_in_`` when it has them (a frame with
        other names is refused).
    baselines : array of shape (d,) or (n, d)
        A DataFrame (or a Series indexed by feature) is aligned to X's columns by name.
    steps : int, default 32
        Number of path points T.
    rule : {"riemann", "gauss-legendre", "trapezoid"}, default "riemann"
        The quadrature rule (:func:`ig_quadrature`).
    method : {"auto", "autodiff", "finite-difference"}, default "auto"
        "auto" uses exact gradients for :class:`MLPClassifier`, linear models
        and jax functions and finite differences of ``predict_proba`` for any
        other model; "autodiff" refuses models it cannot differentiate;
        "finite-difference" uses model evaluations only, for every model.
    favourable : label, default 1
        The favourable class, whose logit is explained (e.g. ``favourable=0``
        when 1 means default or reoffending): for ``classes_[0]`` every
        attribution changes sign. A model whose ``classes_`` lack it is refused.

    Returns
    -------
    ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0], [3.0, 1.0]])
    >>> model = LogisticRegression().fit(X, [0, 0, 1, 1])
    >>> ig = integrated_gradients(model, X, baselines=X.mean(axis=0))
    >>> gap = model.decision_function(X) - model.decision_function(X.mean(0, keepdims=True))
    >>> bool(np.allclose(ig.sum(axis=1), gap))
    True
    >>> fd = integrated_gradients(model, X, baselines=X.mean(axis=0), steps=4, method="finite-difference")
    >>> bool(np.allclose(fd, ig))
    True
    """
    steps = check_steps(steps)
    rule = check_rule(rule)
    method = check_method(method)
    M, columns = model_inputs(model, X, baselines=baselines)
    B = baseline_matrix(baselines, M.shape, columns=columns)
    return explain(model, M, B, steps, rule, method, favourable)


def attributions_by_feature(attributions, encoder, *, columns=None) -> pd.DataFrame:
    """Attributions per original feature: the columns of each one-hot block (and any other
    multi-column encoding) added up.

    Integrated gradients are additive (completeness), so the sum over a
    feature's encoded columns is that feature's share of :math:`f(x) - f(b)`;
    a categorical feature's one-hot block then counts once, as the raw data
    has it.

    Parameters
    ----------
    attributions : array of shape (n, d) or (d,), or DataFrame
        Attributions per encoded column, e.g. from :func:`integrated_gradients`
        or ``CECResult.attributions``; or ``CECResult.feature_gap``.
    encoder : recourselab.features.Encoder, fitted
        The encoder that made the columns (``feature_names_out_``,
        :meth:`~recourselab.features.Encoder.spec_of_column`).
    columns : list of str, optional
        The encoded column of each attribution (default: the encoder's
        ``feature_names_out_``, or the DataFrame's columns). Give it when the
        model saw only some of the encoded columns.

    Returns
    -------
    pandas.DataFrame of shape (n, number of features)
        One column per original feature, in the encoder's feature order
        (features with no column among ``columns`` are left out); the index is
        that of a DataFrame input.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from recourselab.features import Encoder, FeatureSpec
    >>> frame = pd.DataFrame({"age": [30.0, 40.0], "job": ["a", "b"]})
    >>> enc = Encoder([FeatureSpec("age", "continuous"), FeatureSpec("job", "categorical")]).fit(frame)
    >>> enc.feature_names_out_
    ['age', 'job=a', 'job=b']
    >>> attributions_by_feature(np.array([[0.5, 0.2, -0.1]]), enc).round(2).to_dict("records")
    [{'age': 0.5, 'job': 0.1}]
    """
    from ..features import check_encoder

    encoder = check_encoder(encoder)
    index = None
    if isinstance(attributions, pd.DataFrame):
        index = attributions.index
        if columns is None:
            columns = [str(c) for c in attributions.columns]
        A = check_table(attributions, "attributions")
    else:
        A = check_array(attributions, "attributions", ndim=None)
        A = A[None, :] if A.ndim == 1 else A
        if A.ndim != 2:
            raise ValueError(f"attributions has shape {A.shape}; give one row of attributions per explained row, "
                             "shape (n, d).")
    return _sum_blocks(A, encoder, columns, index)


def _sum_blocks(A, encoder, columns, index) -> pd.DataFrame:
    if isinstance(columns, str):
        raise TypeError(f"columns={columns!r} must be a list of encoded column names, not one string.")
    columns = list(encoder.feature_names_out_ if columns is None else columns)
    if len(columns) != A.shape[1]:
        raise ValueError(f"attributions has {A.shape[1]} columns but {len(columns)} column names are given"
                         f"{' (the encoder makes ' + str(encoder.n_columns) + ' columns)' if columns else ''}; "
                         "pass columns= with the encoded column of each attribution.")
    unknown = [c for c in columns if c not in encoder.feature_names_out_]
    if unknown:
        raise ValueError(f"columns {unknown[:5]} are not columns of the encoder; its columns are "
                         f"{encoder.feature_names_out_[:6]}...")
    if len(set(columns)) != len(columns):
        raise ValueError("columns names an encoded column more than once; each attribution needs its own column.")
    owner = [encoder.spec_of_column(c).name for c in columns]
    names = [f for f in encoder.feature_names if f in owner]
    out = np.zeros((len(A), len(names)))
    for k, name in enumerate(names):
        out[:, k] = A[:, [i for i, o in enumerate(owner) if o == name]].sum(axis=1)
    return pd.DataFrame(out, columns=pd.Index(names, name="feature"), index=index)


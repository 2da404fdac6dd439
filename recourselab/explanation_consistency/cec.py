"""Counterfactual explanation consistency (CEC): same outcome, but the same reasoning?

Outcome-fairness criteria such as equalized odds look at *what* a model decides.
Popoola and Sheppard :cite:p:`popoola2026cec` ask *how* it decides: two
applicants from different groups who look alike on the features that should
matter (the *financial* features) may receive the same decision for quite
different reasons. CEC makes this measurable and trainable in four steps.

1. **Counterfactual partners by matching** (:func:`match_counterfactuals`,
   the paper's Definition 2 and Algorithm 1). Each person is paired with the
   most similar real person of the other group *with the same true label*;
   similarity is the Euclidean distance on standardised financial features.
   No causal model is needed, and the partner is a real, plausible row.
2. **One shared baseline** (:func:`label_group_baselines`, Principle 1).
   Integrated gradients measure each feature's contribution relative to a
   baseline point. If each member of a pair were explained against its own
   group's average, part of the difference between the two explanations would
   come from the difference between the two averages. Both members are
   therefore explained against the *factual's* label-group mean
   :math:`b_{y,a}`.
3. **The score** (:func:`integrated_gradients`, :func:`cec_scores`,
   Definition 3). With :math:`g = \\mathrm{IG}(x; b)` and
   :math:`\\tilde g = \\mathrm{IG}(\\tilde x; b)`, each scaled to unit length
   (:math:`\\hat g = g / (\\lVert g \\rVert_2 + 10^{-8})`),

   .. math:: \\Delta_{\\mathrm{CEC}}(x, \\tilde x) = \\tfrac12 \\lVert \\hat g - \\hat{\\tilde g} \\rVert_2
             = \\sin(\\theta / 2) \\in [0, 1],

   where :math:`\\theta` is the angle between the two attribution vectors:
   0 for the same direction, 1 for opposite ones. :func:`regimes` crosses
   "same prediction?" with "same reasoning?" into the paper's four regimes
   A-D (Table 1); regime B, same decision for different reasons, is the one
   outcome metrics cannot see.
4. **Training for consistency** (:class:`MLPClassifier`, Algorithm 2). The
   loss adds to the binary cross-entropy a soft equalized-odds penalty and
   the mean squared CEC score of the matched pairs in each minibatch, so the
   network is pushed to explain partners alike. This needs the gradient of
   integrated gradients (gradients of gradients), which is why the model is
   written in JAX.

:func:`fit_method`, :func:`evaluate_method` and :func:`cross_validate_methods`
run the paper's comparison with fairlearn's outcome-fairness baselines.

Speed. Matching builds one KD-tree per (label, group) stratum and answers all
queries at once. Integrated gradients run in one compiled call over blocks of
rows x path points small enough to stay in the CPU cache. The network's input
gradient along the path is written out as a backward pass, so the training
loss contains no automatic derivative and is differentiated only once, and two
exact rearrangements take the input-dimension work out of the per-point cost:
the first layer's pre-activation is affine in the path position,
:math:`W_1^\\top(b + \\alpha(x - b)) = W_1^\\top b + \\alpha W_1^\\top (x - b)`,
and the last step of the backward pass (multiplying by :math:`W_1`) commutes
with the average over path points, so it runs once per row. A training epoch
is one compiled ``jax.lax.scan`` over minibatches, cached per configuration so
that repeated fits (cross-validation, ``ExponentiatedGradient``) do not
recompile. The CEC term in training uses fewer path points and pairs than
an explanation (``MLPClassifier(ig_steps=6, ig_rule="gauss-legendre",
cec_pairs=16)``, measured in ``benchmarks/cec.py``), which puts a CEC epoch
within 3x of a plain one on a CPU. ``benchmarks/cec.py`` times all of this
against naive loops.

Any model. :func:`integrated_gradients` (and so :func:`cec_scores` and
:func:`audit_explanations`) also explains a classifier that only has
``predict_proba`` on the encoded matrix (a tree ensemble, a scikit-learn
pipeline behind an adapter) through finite differences along the path, at
:math:`2dT` model evaluations per row; :func:`attributions_by_feature` adds the
columns of each one-hot block back into the original features.

Input conventions. Features must be finite numbers (errors name the column);
labels and group values may not be missing (a missing group is an error, never
a silently dropped row), and a protected attribute must have exactly two
values. Counts and seeds (``steps``, ``epochs``, ``batch_size``, ``n_splits``,
``random_state``) are Python or numpy integers: a float is rejected even when
whole. :class:`MLPClassifier` raises scikit-learn's ``NotFittedError`` when used
before :meth:`~MLPClassifier.fit` and predicts zero rows with scikit-learn's
shapes ((0,) labels, (0, 2) probabilities).
"""

from __future__ import annotations

import contextlib
import functools
import math
import numbers
import time
import warnings
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin

try:  # the differentiable parts need the optional "cec" extra (jax, optax)
    import jax
    import jax.numpy as jnp
    import optax
except ImportError:  # pragma: no cover - exercised only without jax
    jax = jnp = optax = None

__all__ = [
    "MatchResult",
    "match_counterfactuals",
    "counterfactual_rows",
    "label_group_means",
    "label_group_baselines",
    "IG_RULES",
    "IG_METHODS",
    "ig_quadrature",
    "integrated_gradients",
    "attributions_by_feature",
    "CECResult",
    "cec_scores",
    "RegimeResult",
    "regimes",
    "ExplanationAudit",
    "audit_explanations",
    "MLPClassifier",
    "METHODS",
    "FittedMethod",
    "fit_method",
    "evaluate_method",
    "cross_validate_methods",
]

EPS = 1e-8                 # the paper's epsilon in g / (||g|| + eps)
_TIE_RTOL = 1e-9           # distances equal up to this relative rounding count as ties in matching
_TIE_ATOL = 1e-12
_IG_BLOCK_POINTS = 4096    # path points (rows x steps) per block of the IG computation: stays in cache
_IG_MAX_BLOCKS = 256       # blocks per compiled call (rows beyond that go to further calls)
# The CEC term in training (MLPClassifier defaults; the measurement behind them is in MLPClassifier's docstring
# and benchmarks/cec.py): T path points of a rule, on the first cec_pairs rows of each shuffled minibatch.
TRAIN_IG_STEPS = 6
TRAIN_IG_RULE = "gauss-legendre"
TRAIN_CEC_PAIRS = 16
REGIMES = ("A", "B", "C", "D")
REGIME_MEANING = {
    "A": "same prediction, same reasoning",
    "B": "same prediction, different reasoning (hidden bias)",
    "C": "different prediction, same reasoning",
    "D": "different prediction, different reasoning",
}


def _require_jax():
    if jax is None:  # pragma: no cover
        raise ImportError("this part of recourselab.explanation_consistency needs jax and optax: "
                          "pip install 'recourselab[cec]'.")


# --------------------------------------------------------------------------- validation helpers
def _vector(values, n: int | None, name: str, table: str = "X") -> np.ndarray:
    """A 1-d array of one value per row of ``table`` (named in messages), with no missing entry."""
    arr = np.asarray(values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values)
    if arr.ndim != 1:
        raise ValueError(f"{name} has shape {arr.shape}; give one value per row (a 1-d array).")
    if n is not None and len(arr) != n:
        raise ValueError(f"{name} has {len(arr)} entries but {table} has {n} rows; give one value per row.")
    if len(arr) and pd.isna(arr).any():
        i = int(np.flatnonzero(pd.isna(arr))[0])
        raise ValueError(f"{name}[{i}] is missing; give a value for every row.")
    return arr


def _group_codes(a, name: str) -> tuple[tuple, np.ndarray]:
    """The two values of a binary attribute (sorted) and the 0/1 code of every entry."""
    values = pd.unique(a)
    if len(values) != 2:
        shown = sorted(values.tolist(), key=str)[:6]
        raise ValueError(
            f"{name} must have exactly two values (a binary protected attribute), found {len(values)}: "
            f"{shown}. Merge categories into two groups (e.g. white vs non-white) before matching."
        )
    values = tuple(sorted(values.tolist(), key=lambda v: (str(type(v)), v)))
    return values, (a == values[1]).astype(np.int64)


def _encode_groups(a, values: tuple, name: str, source: str) -> np.ndarray:
    a = np.asarray(a)
    known = (a == values[0]) | (a == values[1])
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        raise ValueError(f"{name}[{i}]={_py(a[i])!r} is not one of the two groups {list(values)} of {source}.")
    return (a == values[1]).astype(np.int64)


def _feature_names(X, d: int) -> tuple:
    if isinstance(X, pd.DataFrame):
        return tuple(str(c) for c in X.columns)
    return tuple(f"x{j}" for j in range(d))


def _numeric_matrix(X, name: str, *, allow_nan_rows: bool = False) -> np.ndarray:
    """A float64 (n, d) copy of a numeric table; errors name the offending column."""
    if isinstance(X, pd.DataFrame):
        bad = [c for c in X.columns if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]))]
        if bad:
            raise TypeError(
                f"{name} has non-numeric columns {bad[:5]}; encode them as numbers first "
                "(e.g. pandas.get_dummies or recourselab.features.Encoder)."
            )
        arr = X.to_numpy(dtype=float, na_value=np.nan)
    else:
        try:
            arr = np.array(X, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a numeric 2-d array or DataFrame.") from None
    if arr.ndim != 2:
        raise ValueError(f"{name} has shape {arr.shape}; give a 2-d table (rows = people, columns = features).")
    nan = np.isnan(arr)
    if nan.any():
        if allow_nan_rows:
            partial = nan.any(axis=1) & ~nan.all(axis=1)
            if partial.any():
                i = int(np.flatnonzero(partial)[0])
                raise ValueError(
                    f"row {i} of {name} is partly missing; a counterfactual row is either complete or all-NaN "
                    "(unmatched)."
                )
        else:
            j = int(np.flatnonzero(nan.any(axis=0))[0])
            column = X.columns[j] if isinstance(X, pd.DataFrame) else j
            raise ValueError(f"column {column!r} of {name} has missing values; impute or drop those rows first.")
    inf = np.isinf(arr)
    if inf.any():
        i, j = (int(v) for v in np.argwhere(inf)[0])
        column = X.columns[j] if isinstance(X, pd.DataFrame) else j
        raise ValueError(f"column {column!r} of {name} has infinite values (first in row {i}); give finite numbers "
                         "(cap, impute or drop those rows).")
    return np.ascontiguousarray(arr)


def _check_baselines(baselines, shape: tuple, name: str = "baselines") -> np.ndarray:
    try:
        B = np.array(baselines.to_numpy() if isinstance(baselines, (pd.DataFrame, pd.Series)) else baselines,
                     dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numbers: one baseline row per row of X, or one row for all.") from None
    n, d = shape
    if B.shape == (d,):
        B = np.broadcast_to(B, (n, d)).copy()
    if B.shape != (n, d):
        raise ValueError(f"{name} has shape {B.shape} but X has shape {shape}; give shape ({d},) or ({n}, {d}).")
    if not np.isfinite(B).all():
        raise ValueError(f"{name} has missing or infinite values; every row needs a finite baseline.")
    return B


def _check_threshold(threshold) -> float:
    if isinstance(threshold, (bool, np.bool_)) or not isinstance(threshold, numbers.Real) \
            or not 0 <= threshold <= 1:
        raise ValueError(f"threshold={threshold!r} must lie in [0, 1] (0.25 ≈ explanations within 29°).")
    return float(threshold)


def _check_steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 1:
        raise ValueError(f"steps={steps!r} must be an integer >= 1 (the paper uses 32 path points).")
    return int(steps)


def _seed(random_state) -> int:
    """An int seed for jax from None, an int, a numpy Generator or RandomState."""
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0] >> 1)
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**31 - 1))
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) or random_state < 0:
        raise TypeError(f"random_state={random_state!r} must be None, an int >= 0 or a numpy.random.Generator.")
    return int(random_state) % (2**32)


def _py(value):
    """A numpy scalar as a plain Python value (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


def _row_index(X, n: int):
    return X.index if isinstance(X, (pd.DataFrame, pd.Series)) else pd.RangeIndex(n)


# --------------------------------------------------------------------------- 1. matching (Algorithm 1)
@dataclass(frozen=True)
class MatchResult:
    """Counterfactual partners found by :func:`match_counterfactuals`.

    Attributes
    ----------
    index : ndarray of int, shape (n,)
        Position (0-based row number, not pandas label) of each row's partner in
        the pool; -1 when unmatched.
    distance : ndarray of float, shape (n,)
        Distance to the partner on the standardised financial features; NaN
        when unmatched.
    matched : ndarray of bool, shape (n,)
    nearest_distance : ndarray of float, shape (n,)
        Distance to the nearest candidate before the threshold ``tau`` is
        applied (so rejected matches can be inspected).
    tau : float or None
        The distance threshold used (None: no threshold).
    n_unmatched_by_tau : int
        Rows whose nearest candidate lay farther than ``tau``.
    group_values : tuple
        The two values of the protected attribute; the first is coded 0.
    group : ndarray of int, shape (n,)
        Each row's group code (0/1); its partner belongs to ``1 - group``.
    financial : tuple
        The financial features matched on.
    pool_size : int
        Number of rows in the pool the positions refer to.
    """

    index: np.ndarray
    distance: np.ndarray
    matched: np.ndarray
    nearest_distance: np.ndarray
    tau: float | None
    n_unmatched_by_tau: int
    group_values: tuple
    group: np.ndarray = field(repr=False)
    financial: tuple = ()
    pool_size: int = 0
    row_index: pd.Index = field(default=None, repr=False)

    @property
    def coverage(self) -> float:
        """Share of rows that found a partner."""
        return float(self.matched.mean()) if len(self.matched) else float("nan")

    @property
    def partner_group(self) -> np.ndarray:
        """The group value of each row's partner (the opposite group)."""
        return np.asarray(self.group_values)[1 - self.group]

    def to_frame(self) -> pd.DataFrame:
        """One row per matched-for row: partner position, distance, matched flag, nearest distance."""
        return pd.DataFrame(
            {"match_index": self.index, "distance": self.distance, "matched": self.matched,
             "nearest_distance": self.nearest_distance},
            index=self.row_index,
        )


def _financial_matrix(X, financial, name: str) -> tuple[np.ndarray, tuple]:
    if isinstance(financial, (str, numbers.Integral)):
        financial = [financial]
    financial = list(financial)
    if not financial:
        raise ValueError("financial is empty; name the merit-based features to match on.")
    repeated = [f for i, f in enumerate(financial) if f in financial[:i]]
    if repeated:
        raise ValueError(f"financial names {repeated} more than once; a repeated feature would count twice in the "
                         "matching distance. Name each feature once.")
    if isinstance(X, pd.DataFrame):
        missing = [f for f in financial if f not in X.columns]
        if missing:
            raise ValueError(
                f"financial feature(s) {missing} are not columns of {name}; columns are {list(X.columns)}."
            )
        bad = [f for f in financial if not (pd.api.types.is_numeric_dtype(X[f]) or pd.api.types.is_bool_dtype(X[f]))]
        if bad:
            raise TypeError(
                f"financial feature(s) {bad} of {name} are not numeric; encode them first (e.g. one-hot with "
                "pandas.get_dummies) and match on the encoded columns."
            )
        F = X[financial].to_numpy(dtype=float, na_value=np.nan)
        labels = tuple(financial)
    else:
        arr = np.asarray(X)
        if arr.ndim != 2:
            raise ValueError(f"{name} has shape {arr.shape}; give a 2-d table.")
        bad = [f for f in financial if isinstance(f, bool) or not isinstance(f, numbers.Integral)
               or not -arr.shape[1] <= f < arr.shape[1]]
        if bad:
            raise ValueError(
                f"financial={financial} must be column positions 0..{arr.shape[1] - 1} when {name} is an array "
                "(use a DataFrame to select columns by name)."
            )
        try:
            F = arr[:, financial].astype(float)
        except (TypeError, ValueError):
            raise TypeError(f"the financial columns of {name} are not numeric; encode them first.") from None
        labels = tuple(int(f) for f in financial)
    if np.isnan(F).any():
        j = int(np.flatnonzero(np.isnan(F).any(axis=0))[0])
        raise ValueError(f"financial feature {labels[j]!r} of {name} has missing values; impute or drop them.")
    if np.isinf(F).any():
        j = int(np.flatnonzero(np.isinf(F).any(axis=0))[0])
        raise ValueError(f"financial feature {labels[j]!r} of {name} has infinite values; the matching distance "
                         "needs finite numbers: cap or drop those rows.")
    return np.ascontiguousarray(F), labels


def _distances(Zq: np.ndarray, Zc: np.ndarray) -> np.ndarray:
    """Euclidean distances, summed column by column (a fixed order, so equal inputs give equal outputs)."""
    acc = np.zeros(np.broadcast_shapes(Zq.shape, Zc.shape)[:-1])
    for j in range(Zq.shape[-1]):
        acc += (Zq[..., j] - Zc[..., j]) ** 2
    return np.sqrt(acc)


def _nearest_stable(Zq: np.ndarray, Zs: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest row of ``Zs`` for each query; ties (up to rounding) go to the lowest pool position.

    Identical pool rows always tie, so only the first of each (the lowest
    position) enters the tree; on data with many duplicates (one-hot
    categories, zero capital gains) this keeps the tie search short.
    """
    _, first = np.unique(Zs, axis=0, return_index=True)
    first.sort()
    Zs, positions = Zs[first], positions[first]
    tree = cKDTree(Zs)
    k = min(4, len(Zs))
    d_kd, j = tree.query(Zq, k=k)
    d_kd, j = d_kd.reshape(len(Zq), k), j.reshape(len(Zq), k)
    reach = d_kd[:, 0] * (1 + 2 * _TIE_RTOL) + 2 * _TIE_ATOL   # a superset of every possible tie
    exact = _distances(Zq[:, None, :], Zs[j])
    exact[d_kd > reach[:, None]] = np.inf
    best = exact.min(axis=1)
    tie = exact <= best[:, None] * (1 + _TIE_RTOL) + _TIE_ATOL
    pos = np.where(tie, positions[j], np.iinfo(np.int64).max)
    choice = pos.argmin(axis=1)
    out_pos = pos[np.arange(len(Zq)), choice]
    out_dist = exact[np.arange(len(Zq)), choice]
    more = np.flatnonzero((d_kd[:, -1] <= reach) & (k < len(Zs)))  # all k candidates tied: look further
    for r in more:
        cand = np.asarray(tree.query_ball_point(Zq[r], reach[r]), dtype=np.int64)
        dist = _distances(Zq[r][None, :], Zs[cand])
        ties = dist <= dist.min() * (1 + _TIE_RTOL) + _TIE_ATOL
        pick = cand[ties][np.argmin(positions[cand[ties]])]
        out_pos[r], out_dist[r] = positions[pick], _distances(Zq[r][None, :], Zs[pick][None, :])[0]
    return out_pos, out_dist


def _reference_data(read, own, y, a, X_ref, y_ref, groups_ref, suffix: str):
    """The data a computation refers to: ``(X_ref, y_ref, groups_ref)`` when all three are given, else X itself.

    ``read(X, name)`` turns a table into the matrix the caller needs and ``own``
    is that matrix for X. Returns the reference matrix, its labels, the two
    group values, the reference rows' group codes, X's group codes (in the
    reference's coding) and the name of the groups argument for messages.
    """
    names = (f"X_{suffix}", f"y_{suffix}", f"groups_{suffix}")
    given = [v is not None for v in (X_ref, y_ref, groups_ref)]
    if any(given) and not all(given):
        raise ValueError(f"give {', '.join(names[:2])} and {names[2]} together (features, labels and groups), "
                         "or none of them to use X itself.")
    if not any(given):
        values, codes = _group_codes(a, "groups")
        return own, y, values, codes, codes, "groups"
    M_ref = read(X_ref, names[0])
    y_r = _vector(y_ref, len(M_ref), names[1], names[0])
    values, codes_ref = _group_codes(_vector(groups_ref, len(M_ref), names[2], names[0]), names[2])
    return M_ref, y_r, values, codes_ref, _encode_groups(a, values, "groups", names[2]), names[2]


def _cell_counts(y, codes, values) -> dict:
    """Rows per (label, group) cell, for error messages."""
    return {(_py(lab), values[k]): int(((y == lab) & (codes == k)).sum()) for lab in pd.unique(y) for k in (0, 1)}


def match_counterfactuals(X, y, groups, financial, *, tau=None, X_pool=None, y_pool=None,
                          groups_pool=None) -> MatchResult:
    """Label-stratified nearest-neighbour counterfactuals (the paper's Definition 2 and Algorithm 1).

    Row :math:`i` is matched to the pool row of the *other* group with the
    *same* label that is nearest on the standardised financial features,

    .. math:: \\tilde x_i = x_{j^*}, \\quad
              j^* = \\operatorname{argmin}_{j:\\, a_j = 1 - a_i,\\; y_j = y_i}
              \\lVert z_{\\mathcal F}(x_i) - z_{\\mathcal F}(x_j) \\rVert_2 ,

    where :math:`a_j \\in \\{0, 1\\}` is the group code of row :math:`j` (from
    ``groups``, or ``groups_pool`` for the pool) and :math:`z_{\\mathcal F}`
    standardises the financial columns with the pool's mean and standard
    deviation (a constant column is left unscaled).
    The pool is the training data; by default it is ``X`` itself. One KD-tree
    per (label, group) stratum of the pool answers all queries. Distances equal
    up to rounding (relative 1e-9) are ties and go to the lowest pool position.

    Parameters
    ----------
    X : pandas.DataFrame or 2-d array
        Rows to find partners for. Only the financial columns are used, and
        they must be numeric.
    y : array of shape (n,)
        True labels (any values; matching stays within a label).
    groups : array of shape (n,)
        Each row's group: a protected attribute with two values (any two, e.g.
        "female"/"male").
    financial : list of column names (DataFrame) or column positions (array)
        The merit-based features :math:`\\mathcal F` to match on.
    tau : float, optional
        Reject partners farther than ``tau`` (in standardised units). None or 0
        means no threshold, as in the paper's "if τ > 0" rule.
    X_pool, y_pool, groups_pool : optional
        The pool to draw partners from (all three or none), e.g. the training
        fold when ``X`` is a test fold. Positions in the result refer to it.

    Returns
    -------
    MatchResult

    Raises
    ------
    ValueError
        If a needed (label, group) stratum of the pool is empty, if the pool's
        groups (``groups_pool``, or ``groups`` without a pool) have other than
        two values, or if a financial feature is missing.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [1.1], [2.2]])
    >>> m = match_counterfactuals(X, y=[1, 1, 1, 1], groups=["f", "f", "m", "m"], financial=[0])
    >>> m.index.tolist(), m.coverage
    ([2, 3, 0, 1], 1.0)
    """
    F, labels = _financial_matrix(X, financial, "X")
    n = len(F)
    y = _vector(y, n, "y")
    a = _vector(groups, n, "groups")
    Fp, yp, values, ap_codes, a_codes, pool_groups = _reference_data(
        lambda table, name: _financial_matrix(table, financial, name)[0], F, y, a, X_pool, y_pool, groups_pool, "pool")
    if tau is not None:
        if isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not math.isfinite(tau) or tau < 0:
            raise ValueError(f"tau={tau!r} must be None or a distance >= 0 (in standardised units; 0 = no threshold).")
        tau = float(tau) if tau > 0 else None
    mu = Fp.mean(axis=0)
    sd = Fp.std(axis=0)
    sd[sd == 0] = 1.0
    Zp, Zq = (Fp - mu) / sd, (F - mu) / sd
    index = np.full(n, -1, dtype=np.int64)
    nearest = np.full(n, np.nan)
    for label in pd.unique(y):
        for g in (0, 1):
            rows = np.flatnonzero((y == label) & (a_codes == g))
            if len(rows) == 0:
                continue
            stratum = np.flatnonzero((yp == label) & (ap_codes == 1 - g))
            if len(stratum) == 0:
                counts = _cell_counts(yp, ap_codes, values)
                label = _py(label)
                raise ValueError(
                    f"a group with no rows for a label: the pool has no rows with label y={label!r} in group "
                    f"{pool_groups}={values[1 - g]!r}, so the {len(rows)} row(s) with y={label!r}, "
                    f"groups={values[g]!r} cannot be matched. Pool counts by (label, group): {counts}. Use a larger "
                    "pool or merge labels."
                )
            pos, dist = _nearest_stable(Zq[rows], Zp[stratum], stratum)
            index[rows], nearest[rows] = pos, dist
    matched = np.ones(n, dtype=bool) if tau is None else nearest <= tau
    n_by_tau = int((~matched).sum())
    return MatchResult(
        index=np.where(matched, index, -1),
        distance=np.where(matched, nearest, np.nan),
        matched=matched,
        nearest_distance=nearest,
        tau=tau,
        n_unmatched_by_tau=n_by_tau,
        group_values=values,
        group=a_codes,
        financial=labels,
        pool_size=len(Fp),
        row_index=_row_index(X, n),
    )


def counterfactual_rows(match: MatchResult, X_pool) -> np.ndarray:
    """The matched partners' full feature rows, NaN rows where unmatched.

    Parameters
    ----------
    match : MatchResult
    X_pool : DataFrame or 2-d array
        The pool the match was made against (``X`` itself by default); every
        column must be numeric.

    Returns
    -------
    ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 5.0], [2.0, 6.0], [1.1, 7.0], [2.2, 8.0]])
    >>> m = match_counterfactuals(X, [0, 0, 0, 0], [0, 0, 1, 1], [0], tau=0.5)
    >>> counterfactual_rows(m, X)[:, 1].tolist()
    [7.0, 8.0, 5.0, 6.0]
    """
    if not isinstance(match, MatchResult):
        raise TypeError(f"match must be a MatchResult from match_counterfactuals, got {type(match).__name__}.")
    Xp = _numeric_matrix(X_pool, "X_pool")
    if len(Xp) != match.pool_size:
        raise ValueError(f"X_pool has {len(Xp)} rows but the match was made against a pool of {match.pool_size}; "
                         "pass the same pool (X itself when no pool was given).")
    out = np.full((len(match.index), Xp.shape[1]), np.nan)
    out[match.matched] = Xp[match.index[match.matched]]
    return out


# --------------------------------------------------------------------------- 2. baselines (Principle 1)
def label_group_means(X, y, groups) -> pd.DataFrame:
    """The label-group means :math:`b_{y,a}`: the average feature row of every (label, group) cell.

    Parameters
    ----------
    X : DataFrame or 2-d array, all columns numeric
    y : array of shape (n,)
    groups : array of shape (n,) with two values

    Returns
    -------
    pandas.DataFrame
        Indexed by (label, group), one column per feature.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [2.0], [4.0], [6.0], [1.0], [3.0]])
    >>> label_group_means(X, [0, 0, 1, 1, 1, 0], ["f", "m", "f", "m", "m", "f"])["x0"].tolist()
    [1.5, 2.0, 4.0, 3.5]
    """
    M = _numeric_matrix(X, "X")
    n = len(M)
    y = _vector(y, n, "y")
    a = _vector(groups, n, "groups")
    values, codes = _group_codes(a, "groups")
    labels = sorted(pd.unique(y).tolist(), key=lambda v: (str(type(v)), v))
    rows, keys = [], []
    for label in labels:
        for g in (0, 1):
            cell = (y == label) & (codes == g)
            if not cell.any():
                counts = _cell_counts(y, codes, values)
                raise ValueError(
                    f"a group with no rows for a label: no rows with label y={label!r} in group "
                    f"groups={values[g]!r}, so that (label, group) baseline is undefined. Counts by (label, group): "
                    f"{counts}."
                )
            rows.append(M[cell].mean(axis=0))
            keys.append((label, values[g]))
    return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(keys, names=["label", "group"]),
                        columns=list(_feature_names(X, M.shape[1])))


def label_group_baselines(X, y, groups, *, X_fit=None, y_fit=None, groups_fit=None) -> np.ndarray:
    """Each row's integrated-gradients baseline: the mean of its own (label, group) cell.

    The means are computed on the fit data (default ``X`` itself; for a test
    fold pass the training fold) and assigned to every row of ``X`` by its
    own label and group. Following the paper's consistent-baseline principle,
    the *factual's* baseline is used for both members of a pair.

    Parameters
    ----------
    X : DataFrame or 2-d array, all columns numeric
    y, groups : arrays of shape (n,)
        True labels and each row's group (two values).
    X_fit, y_fit, groups_fit : optional
        Data to compute the means on (all three or none).

    Returns
    -------
    ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [2.0], [4.0], [6.0]])
    >>> label_group_baselines(X, [0, 0, 0, 0], [0, 0, 1, 1]).ravel().tolist()
    [1.0, 1.0, 5.0, 5.0]
    """
    M = _numeric_matrix(X, "X")
    n = len(M)
    y = _vector(y, n, "y")
    a = _vector(groups, n, "groups")
    Mf, yf, values, codes_f, codes, fit_groups = _reference_data(_numeric_matrix, M, y, a, X_fit, y_fit, groups_fit,
                                                                 "fit")
    if Mf.shape[1] != M.shape[1]:
        raise ValueError(f"X_fit has {Mf.shape[1]} columns but X has {M.shape[1]}; use the same features.")
    out = np.empty_like(M)
    for label in pd.unique(y):
        for g in (0, 1):
            rows = (y == label) & (codes == g)
            if not rows.any():
                continue
            cell = (yf == label) & (codes_f == g)
            if not cell.any():
                counts = _cell_counts(yf, codes_f, values)
                label = _py(label)
                raise ValueError(
                    f"a group with no rows for a label: the fit data has no rows with label y={label!r} in group "
                    f"{fit_groups}={values[g]!r}, so their baseline is undefined. Counts by (label, group): {counts}."
                )
            out[rows] = Mf[cell].mean(axis=0)
    return out


# --------------------------------------------------------------------------- 3. the network (JAX)
def _logits(params, Z, key=None, dropout: float = 0.0):
    """The network's logit; ``params`` = ((W, c) per hidden layer ..., (W_out (h, 1), c_out (1,)))."""
    h = Z
    train = key is not None and dropout > 0 and len(params) > 1
    if train:  # one random draw for the masks of all hidden layers (cheaper than one per layer)
        keep = 1.0 - dropout
        widths = [W.shape[1] for W, _ in params[:-1]]
        masks = jax.random.bernoulli(key, keep, Z.shape[:-1] + (sum(widths),))
        offsets = np.cumsum([0] + widths)
    for i, (W, c) in enumerate(params[:-1]):
        h = jax.nn.relu(h @ W + c)
        if train:
            h = jnp.where(masks[..., offsets[i]:offsets[i + 1]], h / keep, 0.0)
    W, c = params[-1]
    return h @ W[:, 0] + c[0]


#: The quadrature rules for the integrated-gradients path integral (see :func:`ig_quadrature`).
IG_RULES = ("riemann", "gauss-legendre", "trapezoid")


def _check_rule(rule, name: str = "rule") -> str:
    if not isinstance(rule, str) or rule.lower() not in IG_RULES:
        raise ValueError(f"{name}={rule!r} is not a quadrature rule; use one of {IG_RULES} ('riemann' is the "
                         "paper's midpoint sum, 'gauss-legendre' needs the fewest points on smooth paths).")
    return rule.lower()


@functools.lru_cache(maxsize=None)
def _quadrature(steps: int, rule: str) -> tuple[np.ndarray, np.ndarray]:
    if rule == "riemann":
        alphas = (np.arange(steps) + 0.5) / steps
        weights = np.full(steps, 1.0 / steps)
    elif rule == "gauss-legendre":
        nodes, w = np.polynomial.legendre.leggauss(steps)
        alphas, weights = (nodes + 1.0) / 2.0, w / 2.0
    else:  # trapezoid
        if steps < 2:
            raise ValueError(f"steps={steps} is too few for the trapezoid rule, which needs both ends of the path: "
                             "give steps >= 2.")
        alphas = np.linspace(0.0, 1.0, steps)
        weights = np.full(steps, 1.0 / (steps - 1))
        weights[[0, -1]] /= 2.0
    alphas.setflags(write=False)
    weights.setflags(write=False)
    return alphas, weights


def ig_quadrature(steps: int = 32, rule: str = "riemann") -> tuple[np.ndarray, np.ndarray]:
    """Path positions and weights of a quadrature rule for the integrated-gradients integral over [0, 1].

    Integrated gradients approximate :math:`\\int_0^1 \\partial_j f(b + \\alpha (x - b))\\, d\\alpha` by
    :math:`\\sum_k w_k\\, \\partial_j f(b + \\alpha_k (x - b))`. The rules:

    * ``"riemann"``: the midpoint rule, :math:`\\alpha_k = (k - \\tfrac12)/T`, :math:`w_k = 1/T` (the paper's
      sum). Error :math:`O(T^{-2})` on a smooth path, :math:`O(T^{-1})` where the gradient jumps.
    * ``"gauss-legendre"``: the T Gauss-Legendre nodes mapped to [0, 1]; exact for polynomials of degree
      :math:`2T - 1`, so on a smooth (analytic) path the error falls geometrically in T. A ReLU network's
      gradient is piecewise constant along the path, where no rule beats :math:`O(T^{-1})` in the worst
      case; ``benchmarks/cec.py`` measures what each rule gives on trained networks.
    * ``"trapezoid"``: T equally spaced points including both ends (T >= 2), end weights halved.

    Parameters
    ----------
    steps : int, default 32
        Number of path points T.
    rule : {"riemann", "gauss-legendre", "trapezoid"}, default "riemann"

    Returns
    -------
    alphas, weights : ndarray of shape (T,)
        Positions in [0, 1] and weights that sum to 1 (read-only arrays).

    Examples
    --------
    >>> alphas, weights = ig_quadrature(2, "gauss-legendre")
    >>> [round(float(a), 4) for a in alphas], [float(w) for w in weights]
    ([0.2113, 0.7887], [0.5, 0.5])
    """
    return _quadrature(_check_steps(steps), _check_rule(rule))


def _path_weights(steps: int, rule: str, dtype):
    alphas, weights = _quadrature(steps, rule)
    return jnp.asarray(alphas, dtype=dtype), jnp.asarray(weights, dtype=dtype)


def _ig_network(params, X, B, steps: int, rule: str = "riemann"):
    """Integrated gradients of the network's logit, all rows and path points at once.

    The input gradient is written out as a backward pass: with masks
    :math:`m_l = 1[u_l > 0]` along the path, :math:`\\nabla_x f = W_1 (m_1
    \\odot W_2 (m_2 \\odot \\dots w_{out}))`. Two exact rearrangements save the
    work that scales with the number of inputs d: the first pre-activation is
    :math:`P + \\alpha Q` with :math:`P = W_1^\\top b + c_1`,
    :math:`Q = W_1^\\top (x - b)` computed once per row, and the final
    multiplication by :math:`W_1` is applied once to the path average.
    """
    D = X - B
    if len(params) == 1:  # no hidden layer: a linear logit, IG = (x - b) * w exactly
        return D * params[0][0][:, 0]
    alphas, weights = _path_weights(steps, rule, X.dtype)
    W1, c1 = params[0]
    P = B @ W1 + c1                                            # (n, h1)
    Q = D @ W1                                                 # (n, h1)
    U = P[None] + alphas[:, None, None] * Q[None]              # (T, n, h1)
    masks = [U > 0]
    H = jnp.maximum(U, 0.0)
    for W, c in params[1:-1]:
        U = H @ W + c
        masks.append(U > 0)
        H = jnp.maximum(U, 0.0)
    delta = jnp.where(masks[-1], params[-1][0][:, 0], 0.0)    # d logit / d u_L at every path point
    for (W, _), m in zip(reversed(params[1:-1]), reversed(masks[:-1]), strict=True):
        delta = jnp.where(m, delta @ W.T, 0.0)
    return D * (jnp.tensordot(weights, delta, axes=1) @ W1.T)


def _ig_network_autodiff(params, X, B, steps: int, rule: str = "riemann"):
    """The straightforward version (autodiff of the logit at every path point); a reference for tests."""
    alphas, weights = _path_weights(steps, rule, X.dtype)
    Z = B[None] + alphas[:, None, None] * (X - B)[None]
    grads = jax.grad(lambda Z: _logits(params, Z).sum())(Z)
    return (X - B) * jnp.tensordot(weights, grads, axes=1)


def _safe_normalise(G):
    """G / (||G||_2 + eps) row-wise, with a zero (not NaN) derivative at G = 0."""
    sq = (G * G).sum(axis=-1, keepdims=True)
    positive = sq > 0
    norm = jnp.where(positive, jnp.sqrt(jnp.where(positive, sq, 1.0)), 0.0)
    return G / (norm + EPS)


def _cec_term(params, X, X_cf, B, weight, steps: int, rule: str = "riemann", reference: bool = False):
    """Mean squared CEC score over the rows with weight 1 (the paper's L_CEC on a minibatch).

    Factual and counterfactual rows go through one batched IG computation with
    the factual's baseline for both; the network is the deterministic one (no
    dropout), so the explanation being regularised is the one that is audited.
    """
    m = X.shape[0]
    ig = _ig_network_autodiff if reference else _ig_network
    G = ig(params, jnp.concatenate([X, X_cf]), jnp.concatenate([B, B]), steps, rule)
    diff = _safe_normalise(G[:m]) - _safe_normalise(G[m:])
    score_sq = 0.25 * (diff * diff).sum(axis=1)
    return (weight * score_sq).sum() / jnp.maximum(weight.sum(), 1.0)


def _eo_term(prob, y, a, valid):
    """Soft equalized-odds gap: (TPR_0 - TPR_1)^2 + (FPR_0 - FPR_1)^2 from mean sigmoid outputs.

    A (label, group) cell with no rows in the batch makes that label's term 0
    (masks, not branches, so the compiled step has one shape).
    """
    total = 0.0
    for label in (0.0, 1.0):
        rates, present = [], []
        for g in (0.0, 1.0):
            cell = valid * (y == label) * (a == g)
            count = cell.sum()
            rates.append((cell * prob).sum() / jnp.maximum(count, 1.0))
            present.append(count > 0)
        total = total + jnp.where(present[0] & present[1], (rates[0] - rates[1]) ** 2, 0.0)
    return total


@dataclass(frozen=True)
class _TrainConfig:
    sizes: tuple            # (d, h1, ..., 1)
    batch_size: int
    n_batches: int
    dropout: float
    learning_rate: float
    use_cec: bool           # the expensive term is compiled only when needed; the EO term always is (cheap)
    ig_steps: int
    reference_ig: bool = False   # benchmarks only: the straightforward autodiff IG inside the loss
    ig_rule: str = "riemann"
    cec_pairs: int | None = None  # rows of each batch (its first ones; batches are shuffled) in the CEC term


def _batch_loss(params, batch, key, lambdas, cfg: _TrainConfig):
    logits = _logits(params, batch["X"], key, cfg.dropout)
    n_valid = jnp.maximum(batch["valid"].sum(), 1.0)
    bce = (batch["w"] * optax.sigmoid_binary_cross_entropy(logits, batch["y"])).sum() / n_valid
    eo = _eo_term(jax.nn.sigmoid(logits), batch["y"], batch["a"], batch["valid"])
    cec = 0.0
    if cfg.use_cec:
        k = cfg.batch_size if cfg.cec_pairs is None else min(cfg.cec_pairs, cfg.batch_size)
        cec = _cec_term(params, batch["X"][:k], batch["X_cf"][:k], batch["B"][:k],
                        (batch["valid"] * batch["matched"])[:k], cfg.ig_steps, cfg.ig_rule, cfg.reference_ig)
    total = bce + lambdas[0] * eo + lambdas[1] * cec
    return total, jnp.stack([total, bce, eo, jnp.asarray(cec, bce.dtype)])


@functools.lru_cache(maxsize=64)
def _epoch_function(cfg: _TrainConfig):
    """One compiled training epoch per static configuration (cached for repeated fits)."""
    optimizer = optax.adam(cfg.learning_rate)
    grad_fn = jax.value_and_grad(_batch_loss, has_aux=True)

    def epoch(params, opt_state, key, data, lambdas):
        shuffle_key, dropout_key = jax.random.split(key)
        u = jnp.where(data["valid"] > 0, jax.random.uniform(shuffle_key, data["valid"].shape), 2.0)
        order = jnp.argsort(u).reshape(cfg.n_batches, cfg.batch_size)  # padding rows land in the last batch

        def step(carry, inputs):
            params, opt_state = carry
            b, idx = inputs
            batch = {k: v[idx] for k, v in data.items()}
            (_, parts), grads = grad_fn(params, batch, jax.random.fold_in(dropout_key, b), lambdas, cfg)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), parts

        (params, opt_state), parts = jax.lax.scan(step, (params, opt_state), (jnp.arange(cfg.n_batches), order))
        return params, opt_state, parts.mean(axis=0)

    return optimizer, jax.jit(epoch)


@functools.lru_cache(maxsize=None)
def _logit_function():
    return jax.jit(_logits)


@functools.lru_cache(maxsize=None)
def _ig_function(steps: int, rule: str = "riemann"):
    """Compiled IG over blocks of rows (``jax.lax.map``): each block's path points fit in the CPU cache,
    which is several times faster than one huge batch; returns the function and its block size in rows."""
    rows = max(1, _IG_BLOCK_POINTS // steps)

    def ig(params, X, B):
        n, d = X.shape
        blocks = jax.lax.map(lambda xb: _ig_network(params, xb[0], xb[1], steps, rule),
                             (X.reshape(n // rows, rows, d), B.reshape(n // rows, rows, d)))
        return blocks.reshape(n, d)

    return jax.jit(ig), rows


def _bucket(n: int, cap: int, multiple: int = 1) -> int:
    """Rows per call: ``multiple`` times a power of two (at least 16 rows, at most ``cap``), so few shapes compile."""
    size = multiple * max(1, -(-16 // multiple))
    while size < n and size < cap:
        size *= 2
    return min(size, max(cap, multiple))


def _chunked(fn, arrays, cap: int, multiple: int = 1, tail: tuple | None = None):
    """Apply a compiled row-wise function in zero-padded calls; returns a float64 numpy result.

    ``tail`` is the shape of one row of the output (default: that of the first
    input); it fixes the shape of the result for zero rows, when ``fn`` is never called.
    """
    n = len(arrays[0])
    size = _bucket(n, cap, multiple)
    out = []
    for start in range(0, n, size):
        parts = [arr[start:start + size] for arr in arrays]
        m = len(parts[0])
        if m < size:
            parts = [np.concatenate([p, np.zeros((size - m,) + p.shape[1:], p.dtype)]) for p in parts]
        out.append(np.asarray(fn(*[jnp.asarray(p) for p in parts]), dtype=float)[:m])
    if not out:
        return np.zeros((0,) + (tuple(np.shape(arrays[0])[1:]) if tail is None else tuple(tail)))
    return np.concatenate(out)


class MLPClassifier(ClassifierMixin, BaseEstimator):
    """A ReLU network for binary classification with the paper's equalized-odds and CEC penalties.

    Written in JAX (CPU) and trained with Adam (optax). The loss on a minibatch
    is

    .. math:: \\mathcal L = \\mathrm{BCE}_w
              + \\lambda_{EO} \\big[(\\widehat{TPR}_0 - \\widehat{TPR}_1)^2
                                  + (\\widehat{FPR}_0 - \\widehat{FPR}_1)^2\\big]
              + \\lambda_{CEC} \\cdot \\mathrm{mean}_{i \\text{ matched}}\\, \\Delta_{CEC}(x_i, \\tilde x_i)^2 ,

    where the soft rates are mean sigmoid outputs within each (label, group)
    cell of the batch (a cell empty in the batch drops that label's term), and
    the CEC term uses integrated gradients with the factual's baseline for both
    members of a pair, computed on the network without dropout. The CEC term is
    averaged over the matched rows of the batch (the paper averages over the
    batch; every row is matched there).

    With ``hidden_layer_sizes=()`` the network is logistic regression (a linear
    logit). With ``standardize=True`` inputs are standardised with the training
    mean and standard deviation inside the model; integrated gradients do not
    change under such a per-feature affine rescaling, so attributions are those
    of the model on the original features.

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
        row of the batch.

        Why these defaults (``benchmarks/cec.py``, parts 4, 6 and 7). The CEC
        term's cost is proportional to pairs x path points; the paper's T = 32
        on every pair made a CEC epoch 10-25x a plain one on two shared CPU
        cores (repeated runs of part 4; 1.7x-2.6x at these defaults).
        Against T = 128 midpoint points, on networks trained on German Credit
        (34 columns) and Adult (49 columns) with and without the CEC term, IG
        completeness converges at first order for every rule (a ReLU network's
        gradient jumps along the path; the error halves when T doubles, and
        Gauss-Legendre gains little over the midpoint rule), but the CEC
        score, which compares directions, settles early: T = 6 is the smallest
        T that keeps the mean per-pair absolute change of the CEC score within 0.01 and the mean CEC
        within 0.005 on all four networks, with Gauss-Legendre slightly ahead
        on completeness there. With 16 of 64 pairs per batch the five-fold CEC
        reduction, F1 and EO gap on German Credit and Adult stay within their
        fold-to-fold spread of the previous setting's. For explanations
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
    def _check_hyperparameters(self):
        sizes = self.hidden_layer_sizes
        if isinstance(sizes, numbers.Integral):
            sizes = (sizes,)
        sizes = tuple(sizes)
        if any(isinstance(h, bool) or not isinstance(h, numbers.Integral) or h < 1 for h in sizes):
            raise ValueError(f"hidden_layer_sizes={self.hidden_layer_sizes!r} must be a tuple of ints >= 1 "
                             "(or () for logistic regression).")
        for name in ("dropout", "learning_rate"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"{name}={value!r} must be a number.")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout={self.dropout!r} must lie in [0, 1).")
        if not self.learning_rate > 0:
            raise ValueError(f"learning_rate={self.learning_rate!r} must be > 0.")
        for name in ("batch_size", "epochs"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
                raise ValueError(f"{name}={value!r} must be an integer >= 1.")
        for name in ("lambda_eo", "lambda_cec"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (math.isfinite(value)
                                                                                        and value >= 0):
                raise ValueError(f"{name}={value!r} must be a number >= 0.")
        try:
            steps = _check_steps(self.ig_steps)
        except ValueError:
            raise ValueError(f"ig_steps={self.ig_steps!r} must be an integer >= 1 (path points of the integrated "
                             f"gradients in the CEC term; default {TRAIN_IG_STEPS}).") from None
        rule = _check_rule(self.ig_rule, "ig_rule")
        if rule == "trapezoid" and steps < 2:
            raise ValueError(f"ig_steps={steps} is too few for ig_rule='trapezoid', which needs both ends of the "
                             "path: give ig_steps >= 2.")
        pairs = self.cec_pairs
        if pairs is not None and (isinstance(pairs, bool) or not isinstance(pairs, numbers.Integral) or pairs < 1):
            raise ValueError(f"cec_pairs={pairs!r} must be None (every matched pair of a batch) or an integer >= 1 "
                             "(pairs per batch in the CEC term).")
        return tuple(int(h) for h in sizes), steps, rule, (None if pairs is None else int(pairs))

    def _check_fitted(self):
        if not hasattr(self, "params_"):
            from sklearn.exceptions import NotFittedError
            raise NotFittedError("this MLPClassifier is not fitted yet; call fit(X, y) first.")

    def _inputs(self, X, name="X", allow_nan_rows=False) -> np.ndarray:
        M = _numeric_matrix(X, name, allow_nan_rows=allow_nan_rows)
        if hasattr(self, "n_features_in_") and M.shape[1] != self.n_features_in_:
            raise ValueError(f"{name} has {M.shape[1]} columns but the model was fitted on {self.n_features_in_}.")
        return M

    def _scale(self, M: np.ndarray) -> np.ndarray:
        return ((M - self.mean_) / self.scale_).astype(np.float32)

    # ----------------------------------------------------------------- fit
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
        baselines : array of shape (n, d) or (d,)
            Each row's integrated-gradients baseline (the factual's label-group
            mean, :func:`label_group_baselines`). Needed when ``lambda_cec > 0``.

        Returns
        -------
        self
        """
        _require_jax()
        sizes, steps, rule, pairs = self._check_hyperparameters()
        M = _numeric_matrix(X, "X")
        n, d = M.shape
        if n < 2:
            raise ValueError(f"X has {n} row(s); fitting needs at least 2.")
        y = _vector(y, n, "y")
        classes = np.unique(y)
        if len(classes) != 2:
            raise ValueError(f"y must have exactly two labels to fit a binary classifier, found "
                             f"{classes.tolist()[:6]}.")
        y01 = (y == classes[1]).astype(np.float32)
        if sample_weight is None:
            w = np.ones(n)
        else:
            w = np.asarray(sample_weight.to_numpy() if isinstance(sample_weight, pd.Series) else sample_weight,
                           dtype=float)
            if w.shape != (n,):
                raise ValueError(f"sample_weight has shape {w.shape}; give one weight per row of X ({n}).")
            if not np.isfinite(w).all() or (w < 0).any() or w.sum() <= 0:
                raise ValueError("sample_weight must be finite, non-negative and not all zero.")
            w = w / w.mean()
        use_cec = self.lambda_cec > 0
        a01 = np.zeros(n, dtype=np.float32)
        if self.lambda_eo > 0 and sensitive_features is None:
            raise ValueError(f"lambda_eo={self.lambda_eo} > 0 needs sensitive_features (the protected attribute of "
                             "every row) in fit.")
        if sensitive_features is not None:   # also without the penalty: history_ then reports the soft EO gap
            _, codes = _group_codes(_vector(sensitive_features, n, "sensitive_features"), "sensitive_features")
            a01 = codes.astype(np.float32)
        mean = M.mean(axis=0) if self.standardize else np.zeros(d)
        scale = M.std(axis=0) if self.standardize else np.ones(d)
        scale[scale == 0] = 1.0

        def standardise(A):
            return ((A - mean) / scale).astype(np.float32)

        data = {"X": standardise(M), "y": y01, "w": w.astype(np.float32), "valid": np.ones(n, np.float32),
                "a": a01}
        if use_cec:
            if X_cf is None or baselines is None:
                raise ValueError(f"lambda_cec={self.lambda_cec} > 0 needs X_cf (each row's counterfactual partner, "
                                 "all-NaN when unmatched) and baselines (each row's label-group mean) in fit; see "
                                 "match_counterfactuals, counterfactual_rows and label_group_baselines.")
            C = _numeric_matrix(X_cf, "X_cf", allow_nan_rows=True)
            if C.shape != M.shape:
                raise ValueError(f"X_cf has shape {C.shape} but X has shape {M.shape}; give one partner row per row.")
            matched = ~np.isnan(C).any(axis=1)
            if not matched.any():
                raise ValueError("X_cf has no matched row (all rows are NaN), so the CEC term is empty; check the "
                                 "matching (tau may be too small).")
            C = np.where(matched[:, None], C, M)  # placeholders; masked out of the loss
            Bm = _check_baselines(baselines, M.shape)
            data.update({"X_cf": standardise(C), "B": standardise(Bm), "matched": matched.astype(np.float32)})
        batch_size = min(int(self.batch_size), n)
        n_batches = -(-n // batch_size)
        pad = n_batches * batch_size - n
        if pad:
            data = {k: np.concatenate([v, np.zeros((pad,) + v.shape[1:], v.dtype)]) for k, v in data.items()}
        cfg = _TrainConfig(sizes=(d,) + sizes + (1,), batch_size=batch_size, n_batches=n_batches,
                           dropout=float(self.dropout), learning_rate=float(self.learning_rate), use_cec=use_cec,
                           ig_steps=steps, ig_rule=rule,
                           cec_pairs=None if pairs is None or pairs >= batch_size else pairs)
        optimizer, epoch_fn = _epoch_function(cfg)
        key = jax.random.PRNGKey(_seed(self.random_state))
        init_key, train_key = jax.random.split(key)
        params = _init_params(init_key, cfg.sizes)
        opt_state = optimizer.init(params)
        data = {k: jnp.asarray(v) for k, v in data.items()}
        lambdas = jnp.asarray([self.lambda_eo, self.lambda_cec], dtype=jnp.float32)
        history = []
        for epoch in range(int(self.epochs)):
            params, opt_state, parts = epoch_fn(params, opt_state, jax.random.fold_in(train_key, epoch), data, lambdas)
            history.append(parts)
        history = np.asarray(jnp.stack(history), dtype=float)
        self.params_ = tuple((np.asarray(W), np.asarray(c)) for W, c in params)
        self.mean_, self.scale_ = mean, scale
        self.classes_ = classes
        self.n_features_in_ = d
        if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
            self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.history_ = pd.DataFrame(history, columns=["loss", "bce", "eo", "cec"]).rename_axis("epoch")
        return self

    # ----------------------------------------------------------------- predict
    def decision_function(self, X) -> np.ndarray:
        """The logit of ``classes_[1]`` (what integrated gradients explain), shape (n,).

        Raises ``sklearn.exceptions.NotFittedError`` before :meth:`fit`, like
        every method that needs the fitted network.
        """
        _require_jax()
        self._check_fitted()
        Z = self._scale(self._inputs(X))
        params = tuple((jnp.asarray(W), jnp.asarray(c)) for W, c in self.params_)
        fn = _logit_function()
        return _chunked(lambda Z: fn(params, Z), [Z], 1 << 16, tail=())

    def predict_proba(self, X) -> np.ndarray:
        """Probabilities of ``classes_[0]`` and ``classes_[1]``, shape (n, 2) (also (0, 2) for no rows)."""
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p]).reshape(len(p), 2)

    def predict(self, X) -> np.ndarray:
        """The more probable label (``classes_[1]`` when the logit is > 0), shape (n,)."""
        positive = self.decision_function(X) > 0   # first: it raises NotFittedError before classes_ is needed
        return self.classes_[positive.astype(int)]

    def _integrated_gradients(self, M: np.ndarray, B: np.ndarray, steps: int, rule: str = "riemann") -> np.ndarray:
        self._check_fitted()
        if M.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {M.shape[1]} columns but the model was fitted on {self.n_features_in_}.")
        params = tuple((jnp.asarray(W), jnp.asarray(c)) for W, c in self.params_)
        fn, rows = _ig_function(steps, rule)
        # IG is unchanged by the per-feature standardisation, so compute it on the scaled inputs
        return _chunked(lambda Z, Zb: fn(params, Z, Zb), [self._scale(M), self._scale(B)], _IG_MAX_BLOCKS * rows,
                        multiple=rows)


def _init_params(key, sizes):
    params = []
    n_layers = len(sizes) - 1
    for i, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        key, sub = jax.random.split(key)
        last = i == n_layers - 1
        std = math.sqrt(2.0 / (fan_in + fan_out)) if last else math.sqrt(2.0 / fan_in)  # Glorot / He
        params.append((jax.random.normal(sub, (fan_in, fan_out), jnp.float32) * std,
                       jnp.zeros((fan_out,), jnp.float32)))
    return tuple(params)


# --------------------------------------------------------------------------- 4. integrated gradients
def _fairlearn_types():
    try:
        from fairlearn.postprocessing import ThresholdOptimizer
        from fairlearn.reductions import ExponentiatedGradient
    except ImportError:  # pragma: no cover
        return (), ()
    return ThresholdOptimizer, ExponentiatedGradient


#: How :func:`integrated_gradients` takes the gradients along the path (see its docstring).
IG_METHODS = ("auto", "autodiff", "finite-difference")
_FD_BLOCK_EVALUATIONS = 1 << 16   # model evaluations per predict_proba call of the finite-difference path


def _check_method(method) -> str:
    if not isinstance(method, str) or method.lower() not in IG_METHODS:
        raise ValueError(f"method={method!r} is not one of {IG_METHODS}: 'auto' differentiates our networks and "
                         "linear models exactly and uses finite differences on predict_proba for any other model.")
    return method.lower()


def _unexplainable(model, method: str) -> TypeError:
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


def _ig_dispatch(model, M: np.ndarray, B: np.ndarray, steps: int, rule: str = "riemann",
                 method: str = "auto") -> np.ndarray:
    from sklearn.dummy import DummyClassifier

    threshold_optimizer, exponentiated_gradient = _fairlearn_types()
    if threshold_optimizer and isinstance(model, threshold_optimizer):
        if not hasattr(model, "estimator_"):
            raise ValueError("the ThresholdOptimizer is not fitted; fit it before explaining it.")
        return _ig_dispatch(model.estimator_, M, B, steps, rule, method)
    if exponentiated_gradient and isinstance(model, exponentiated_gradient):
        if not hasattr(model, "predictors_"):
            raise ValueError("the ExponentiatedGradient is not fitted; fit it before explaining it.")
        weights = np.asarray(model.weights_, dtype=float)
        total = np.zeros_like(M)
        for predictor, weight in zip(model.predictors_, weights, strict=True):
            if weight > 0:
                total += weight * _ig_dispatch(predictor, M, B, steps, rule, method)
        return total
    if isinstance(model, DummyClassifier):  # fairlearn's constant best response: no feature matters
        return np.zeros_like(M)
    if method == "finite-difference":
        if hasattr(model, "predict_proba") or (callable(model) and not isinstance(model, type)):
            return _ig_finite_difference(model, M, B, steps, rule)
        raise _unexplainable(model, method)
    if isinstance(model, MLPClassifier):
        _require_jax()
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
        _require_jax()
        return _ig_callable(model, M, B, steps, rule)
    if method == "auto" and hasattr(model, "predict_proba"):
        return _ig_finite_difference(model, M, B, steps, rule)
    raise _unexplainable(model, method)


def _ig_callable(f, M, B, steps, rule="riemann"):
    n, d = M.shape
    rows = max(1, (_IG_BLOCK_POINTS * 32) // steps)

    @jax.jit
    def ig(X, Bc):
        alphas, weights = _path_weights(steps, rule, X.dtype)
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
    """The function Z -> logit the finite-difference path differentiates: log(p / (1 - p)) of
    ``predict_proba(Z)[:, 1]`` (clipped to [1e-12, 1 - 1e-12]), or a callable's own output."""
    if hasattr(model, "predict_proba"):
        classes = getattr(model, "classes_", None)
        if classes is not None and len(classes) != 2:
            raise ValueError(f"the model has {len(classes)} classes {[_py(c) for c in list(classes)[:6]]}; only "
                             "binary models (one logit) can be explained here.")

        names = getattr(model, "feature_names_in_", None)   # fitted on a DataFrame: predict on one (no warning)
        named = names is not None and len(names) == d

        def logit(Z):
            P = np.asarray(model.predict_proba(pd.DataFrame(Z, columns=names) if named else Z), dtype=float)
            if P.shape != (len(Z), 2):
                raise ValueError(f"predict_proba returned shape {P.shape} for {len(Z)} rows of {d} columns; a "
                                 "binary classifier returns shape (n, 2).")
            p = np.clip(P[:, 1], 1e-12, 1.0 - 1e-12)
            return np.log(p) - np.log1p(-p)
        return logit

    def call(Z):
        out = np.asarray(model(Z), dtype=float)
        if out.shape != (len(Z),):
            raise ValueError(f"the function returned shape {out.shape} for input of shape {Z.shape}; it must "
                             "return one logit per row, shape (n,).")
        return out
    return call


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
    alphas, weights = _quadrature(steps, rule)
    upper = np.cumsum(weights)
    upper[-1] = 1.0
    lower = np.concatenate([[0.0], upper[:-1]])   # bit-identical to the previous cell's upper end: cells tile
    per_row = 2 * d * steps
    rows = max(1, _FD_BLOCK_EVALUATIONS // per_row)
    out = np.zeros((n, d))
    cols = np.arange(d)
    for start in range(0, n, rows):
        X, Bc = M[start:start + rows], B[start:start + rows]
        r = len(X)
        D = X - Bc
        Z = Bc[:, None, :] + alphas[None, :, None] * D[:, None, :]                   # (r, T, d) path points
        E = np.broadcast_to(Z[:, :, None, None, :], (r, steps, d, 2, d)).copy()     # (row, point, column, end, d)
        ends = np.stack([lower, upper], axis=1)                                      # (T, 2)
        # (1 - c) b + c x is exactly b at c = 0 and exactly x at c = 1 (b + c (x - b) can miss x by a rounding
        # step, and a tree's threshold can sit exactly at a training value)
        c = ends[None, None, :, :]
        E[:, :, cols, :, cols] = (1.0 - c) * Bc.T[:, :, None, None] + c * X.T[:, :, None, None]
        values = f(E.reshape(-1, d)).reshape(r, steps, d, 2)
        if not np.isfinite(values).all():
            raise ValueError("the model returned non-finite values on the integration path; check predict_proba.")
        out[start:start + r] = (values[..., 1] - values[..., 0]).sum(axis=1)
    return out


def integrated_gradients(model, X, baselines, steps: int = 32, *, rule: str = "riemann",
                         method: str = "auto") -> np.ndarray:
    """Integrated gradients of a model's logit along the straight path from each baseline to each row.

    .. math:: \\mathrm{IG}_j(x; b) = (x_j - b_j) \\sum_{k=1}^{T} w_k\\,
              \\frac{\\partial f}{\\partial x_j}\\big(b + \\alpha_k (x - b)\\big)

    with the positions :math:`\\alpha_k` and weights :math:`w_k` of a quadrature
    rule (:func:`ig_quadrature`; the default is the paper's midpoint rule,
    :math:`\\alpha_k = (k - \\tfrac12)/T`, :math:`w_k = 1/T`). Completeness:
    the attributions of a row add up to about :math:`f(x) - f(b)`.

    Supported models, with :math:`f` the logit (``decision_function``):

    * :class:`MLPClassifier` (all rows and path points in one batched, compiled computation);
    * any fitted linear model with ``coef_`` and ``intercept_`` (e.g. scikit-learn's
      ``LogisticRegression``): the exact closed form :math:`(x - b) \\odot w`;
    * fairlearn's ``ThresholdOptimizer``: explains its fitted ``estimator_``. The
      group-specific randomised thresholds applied afterwards are not
      differentiable and are not part of the explanation;
    * fairlearn's ``ExponentiatedGradient``: IG is linear in the function, so the
      weighted sum over ``predictors_`` (weights ``weights_``) of each
      predictor's IG explains the weighted mixture of their logits (a stand-in
      for the randomised classifier, which has no gradient);
    * a function ``f(Z) -> (n,)`` written in ``jax.numpy``;
    * **any other binary classifier with** ``predict_proba(Z)`` on the matrix
      ``X`` (a gradient-boosted tree, a random forest, a scikit-learn
      ``Pipeline`` behind an adapter that takes the encoded matrix), through
      finite differences of :math:`f = \\log\\frac{p}{1 - p}` with
      :math:`p` = ``predict_proba(Z)[:, 1]`` (the probability of ``classes_[1]``).

    The finite-difference path (``method="finite-difference"``, or ``"auto"``
    for a model of the last kind). The rule's weights cut the path into cells
    :math:`[c_{k-1}, c_k]`, :math:`c_k = w_1 + \\dots + w_k`, each around its
    node :math:`\\alpha_k`; column j's partial derivative at path point k is the
    difference of f across that cell in column j alone, a step of
    :math:`w_k |x_j - b_j|` (for the midpoint rule a central difference of step
    :math:`|x_j - b_j| / T`, so the step follows each column's own scale along
    the path). Then :math:`\\mathrm{IG}_j = \\sum_k [f(z_k; z_j = b_j + c_k
    \\Delta_j) - f(z_k; z_j = b_j + c_{k-1}\\Delta_j)]`: the cells of a column
    tile its whole path, so every threshold a tree puts on column j between
    :math:`b_j` and :math:`x_j` is counted once, where an infinitesimal step
    would see a derivative of zero almost everywhere and miss every jump.

    * Cost: :math:`2dT` model evaluations per row (T path points x d columns x
      the two ends of a cell), e.g. 4,032 per row for d = 63 and T = 32; they
      are stacked into one ``predict_proba`` call per block of
      :math:`2^{16}` evaluations. The model's prediction speed sets the pace:
      a 100-tree ``HistGradientBoostingClassifier`` on Adult's 49 encoded
      columns predicts some 15,000-25,000 rows per second on two cores, so
      T = 32 costs about 0.1-0.2 s per explained row (and T = 8 a quarter of
      that); a pipeline that decodes every row to a data frame is slower
      still. Lower ``steps`` (the CEC score settles at far fewer points than
      completeness does, see ``benchmarks/cec.py``) or explain a sample.
    * Accuracy: for a smooth model the differences converge to the gradients as
      T grows (the same order as the rule's). For a model that is a sum of
      one-column functions (a logistic regression, a boosted model of
      stumps) the sum telescopes and completeness holds exactly, smooth or
      not. For a tree model with interactions it does not: a cell difference in
      column j is taken at the other columns' values at that path point, so
      jumps whose position depends on other columns can be counted at a
      slightly different place, and the attributions add up to
      :math:`f(x) - f(b)` only approximately. A piecewise-constant model has no
      gradient, so what this measures is where along the straight path each
      column's own changes move the logit; read such attributions as
      path-wise effects, not as derivatives.

    Parameters
    ----------
    model : see above
    X : DataFrame or 2-d array of numbers, shape (n, d)
        The inputs as the model sees them.
    baselines : array of shape (d,) or (n, d)
    steps : int, default 32
        Number of path points T.
    rule : {"riemann", "gauss-legendre", "trapezoid"}, default "riemann"
        The quadrature rule (:func:`ig_quadrature`). The midpoint Riemann sum
        stays the default for explanations: on the trained networks of
        ``benchmarks/cec.py`` it agrees with T = 128 at T = 32, and reports
        stay comparable with the paper's.
    method : {"auto", "autodiff", "finite-difference"}, default "auto"
        "auto" uses exact gradients for :class:`MLPClassifier`, linear models
        and jax functions and finite differences of ``predict_proba`` for any
        other model; "autodiff" refuses models it cannot differentiate;
        "finite-difference" uses model evaluations only, for every model.

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
    steps = _check_steps(steps)
    rule = _check_rule(rule)
    method = _check_method(method)
    M = _numeric_matrix(X, "X")
    B = _check_baselines(baselines, M.shape)
    return _ig_dispatch(model, M, B, steps, rule, method)


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
        A = _numeric_matrix(attributions, "attributions")
    else:
        A = np.array(attributions, dtype=float)
        if A.ndim == 1:
            A = A[None, :]
        if A.ndim != 2:
            raise ValueError(f"attributions has shape {A.shape}; give one row of attributions per explained row, "
                             "shape (n, d).")
        if not np.isfinite(A).all():
            raise ValueError("attributions has missing or infinite values; attributions must be finite numbers.")
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


# --------------------------------------------------------------------------- 5. the CEC score
@dataclass(frozen=True)
class CECResult:
    """Explanation consistency of factual-counterfactual pairs (:func:`cec_scores`).

    Attributes
    ----------
    score : ndarray, shape (n,)
        :math:`\\Delta_{CEC} = \\frac12 \\lVert \\hat g - \\hat{\\tilde g} \\rVert_2` in [0, 1].
    attributions, attributions_cf : ndarray, shape (n, d)
        Raw integrated gradients of the factual and counterfactual rows (same baseline).
    feature_gap : ndarray, shape (n, d)
        :math:`\\hat g - \\hat{\\tilde g}` per feature: which features the two
        explanations weigh differently (the decomposition the paper leaves to
        future work). ``score = ½ · ‖feature_gap‖``.
    feature_names : tuple of str
    steps : int
    """

    score: np.ndarray
    attributions: np.ndarray = field(repr=False)
    attributions_cf: np.ndarray = field(repr=False)
    feature_gap: np.ndarray = field(repr=False)
    feature_names: tuple = ()
    steps: int = 32
    row_index: pd.Index = field(default=None, repr=False)

    @property
    def mean(self) -> float:
        """The population CEC: the mean score."""
        return float(self.score.mean()) if len(self.score) else float("nan")

    def feature_gap_frame(self, feature_names=None) -> pd.DataFrame:
        """Mean absolute and mean signed gap per feature, largest first."""
        names = list(self.feature_names if feature_names is None else feature_names)
        if len(names) != self.feature_gap.shape[1]:
            raise ValueError(f"feature_names has {len(names)} names but there are {self.feature_gap.shape[1]} "
                             "features.")
        frame = pd.DataFrame({"mean_abs_gap": np.abs(self.feature_gap).mean(axis=0),
                              "mean_gap": self.feature_gap.mean(axis=0)}, index=pd.Index(names, name="feature"))
        return frame.sort_values("mean_abs_gap", ascending=False, kind="stable")

    def to_frame(self) -> pd.DataFrame:
        """Per row: the score and the feature with the largest absolute gap."""
        top = np.asarray(self.feature_names, dtype=object)[np.abs(self.feature_gap).argmax(axis=1)] \
            if self.feature_gap.size else np.array([], dtype=object)
        return pd.DataFrame({"cec": self.score, "largest_gap_feature": top}, index=self.row_index)


def _cec_from_attributions(G, Gc):
    def unit(A):
        return A / (np.linalg.norm(A, axis=1, keepdims=True) + EPS)

    gap = unit(G) - unit(Gc)
    return np.clip(0.5 * np.linalg.norm(gap, axis=1), 0.0, 1.0), gap


def cec_scores(model, X, X_cf, baselines, steps: int = 32, *, rule: str = "riemann",
               method: str = "auto") -> CECResult:
    """The CEC score of every factual-counterfactual pair (the paper's Definition 3).

    Both members of a pair are explained against the same baseline (the
    factual's label-group mean), each attribution vector is scaled to unit
    length (:math:`g / (\\lVert g \\rVert_2 + 10^{-8})`) and the score is half
    the distance between them, :math:`\\sin(\\theta/2)` for the angle
    :math:`\\theta` between the explanations. A pair where exactly one
    attribution vector is zero scores 0.5.

    Parameters
    ----------
    model : any model :func:`integrated_gradients` supports
    X : DataFrame or 2-d array, shape (n, d)
        Factual rows (as the model sees them).
    X_cf : array of shape (n, d)
        Their counterfactual partners. No NaN: drop unmatched rows first
        (``X[match.matched]``).
    baselines : array of shape (n, d) or (d,)
    steps : int, default 32
    rule, method : see :func:`integrated_gradients` (``method="auto"`` explains
        any classifier with ``predict_proba`` through finite differences).

    Returns
    -------
    CECResult

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> model = LogisticRegression().fit([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]], [0, 1, 0, 1])
    >>> result = cec_scores(model, [[1.0, 1.0]], [[-1.0, -1.0]], baselines=[0.0, 0.0])
    >>> round(float(result.score[0]), 6)   # opposite explanations
    1.0
    """
    steps = _check_steps(steps)
    rule = _check_rule(rule)
    method = _check_method(method)
    M = _numeric_matrix(X, "X")
    if isinstance(X_cf, pd.DataFrame) or np.ndim(X_cf) == 2:
        shape_cf = np.shape(X_cf)
        if tuple(shape_cf) != M.shape:
            raise ValueError(f"X_cf has shape {tuple(shape_cf)} but X has shape {M.shape}; give one counterfactual "
                             "row per factual row.")
    C = _numeric_matrix(X_cf, "X_cf", allow_nan_rows=True)
    if C.shape != M.shape:
        raise ValueError(f"X_cf has shape {C.shape} but X has shape {M.shape}; give one counterfactual row per "
                         "factual row.")
    if np.isnan(C).any():
        bad = int(np.isnan(C).any(axis=1).sum())
        raise ValueError(f"X_cf has {bad} unmatched (NaN) row(s); score only the matched pairs, e.g. "
                         "X[match.matched], X_cf[match.matched] and baselines[match.matched].")
    B = _check_baselines(baselines, M.shape)
    G = _ig_dispatch(model, M, B, steps, rule, method)
    Gc = _ig_dispatch(model, C, B, steps, rule, method)
    score, gap = _cec_from_attributions(G, Gc)
    return CECResult(score=score, attributions=G, attributions_cf=Gc, feature_gap=gap,
                     feature_names=_feature_names(X, M.shape[1]), steps=steps, row_index=_row_index(X, len(M)))


# --------------------------------------------------------------------------- 6. regimes (Table 1)
@dataclass(frozen=True)
class RegimeResult:
    """The four fairness regimes of every pair (:func:`regimes`).

    Attributes
    ----------
    labels : ndarray of str, shape (n,)
        "A" same prediction and same reasoning, "B" same prediction and
        different reasoning (hidden bias), "C" different prediction and same
        reasoning, "D" both differ.
    same_prediction, same_reasoning : ndarray of bool
    score : ndarray of float
    threshold : float
    """

    labels: np.ndarray
    same_prediction: np.ndarray = field(repr=False)
    same_reasoning: np.ndarray = field(repr=False)
    score: np.ndarray = field(repr=False)
    threshold: float = 0.25
    row_index: pd.Index = field(default=None, repr=False)

    @property
    def shares(self) -> pd.Series:
        """Fraction of pairs in each regime; all four are present (0 when empty)."""
        n = len(self.labels)
        return pd.Series({r: (float((self.labels == r).sum()) / n if n else float("nan")) for r in REGIMES},
                         name="share")

    @property
    def flip_rate(self) -> float:
        """Prediction flip rate PFR = P(ŷ(x) ≠ ŷ(x̃))."""
        return float((~self.same_prediction).mean()) if len(self.labels) else float("nan")

    @property
    def mean_score(self) -> float:
        return float(self.score.mean()) if len(self.score) else float("nan")

    def to_frame(self) -> pd.DataFrame:
        """Per pair: regime, same prediction, same reasoning and score."""
        return pd.DataFrame({"regime": self.labels, "same_prediction": self.same_prediction,
                             "same_reasoning": self.same_reasoning, "cec": self.score}, index=self.row_index)


def regimes(score, prediction, prediction_cf, *, threshold: float = 0.25) -> RegimeResult:
    """Cross "same prediction?" with "same reasoning?" into the regimes A-D (the paper's Table 1).

    Reasoning counts as the same when the CEC score is at most ``threshold``.
    The paper gives no threshold. Because the score equals
    :math:`\\tfrac12\\sqrt{2(1 - \\cos\\theta)} = \\sin(\\theta/2)`, the default
    0.25 means the two normalised attribution vectors point within about 29°
    of each other (:math:`2 \\arcsin 0.25 = 28.96°`); 0.5 would allow 60°.

    Parameters
    ----------
    score : array of shape (n,), in [0, 1]
    prediction, prediction_cf : arrays of shape (n,)
        Decisions for the factual and counterfactual rows.
    threshold : float in [0, 1], default 0.25

    Returns
    -------
    RegimeResult

    Examples
    --------
    >>> r = regimes([0.1, 0.6, 0.1, 0.6], [1, 1, 1, 0], [1, 1, 0, 1])
    >>> r.labels.tolist(), r.flip_rate
    (['A', 'B', 'C', 'D'], 0.5)
    """
    s = np.asarray(score, dtype=float)
    if s.ndim != 1:
        raise ValueError(f"score has shape {s.shape}; give one score per pair.")
    if np.isnan(s).any() or (s < 0).any() or (s > 1 + 1e-12).any():
        raise ValueError("score must lie in [0, 1] without NaN (CEC scores of matched pairs).")
    p = _vector(prediction, len(s), "prediction", "score")
    pc = _vector(prediction_cf, len(s), "prediction_cf", "score")
    threshold = _check_threshold(threshold)
    same_p = p == pc
    same_r = s <= threshold
    labels = np.where(same_p, np.where(same_r, "A", "B"), np.where(same_r, "C", "D"))
    return RegimeResult(labels=labels, same_prediction=same_p, same_reasoning=same_r, score=s,
                        threshold=float(threshold), row_index=_row_index(score, len(s)))


# --------------------------------------------------------------------------- 7. one-call audit
@dataclass(frozen=True)
class ExplanationAudit:
    """Everything :func:`audit_explanations` computed.

    Attributes
    ----------
    match : MatchResult
    cec : CECResult
        Scores of the matched rows only.
    regimes : RegimeResult
        Regimes of the matched rows only.
    rows : ndarray of int
        Positions (in X) of the matched rows that ``cec`` and ``regimes`` describe.
    prediction, prediction_cf : ndarray
        Decisions for every row of X and for its partner (partner entries of
        unmatched rows are meaningless).
    """

    match: MatchResult
    cec: CECResult
    regimes: RegimeResult
    rows: np.ndarray
    prediction: np.ndarray = field(repr=False)
    prediction_cf: np.ndarray = field(repr=False)

    @property
    def mean_cec(self) -> float:
        return self.cec.mean

    @property
    def flip_rate(self) -> float:
        return self.regimes.flip_rate

    def summary(self) -> pd.Series:
        """Coverage, mean CEC, prediction flip rate and the regime shares."""
        values = {"coverage": self.match.coverage, "cec": self.mean_cec, "pfr": self.flip_rate}
        values.update({f"regime_{r}": v for r, v in self.regimes.shares.items()})
        return pd.Series(values)

    def to_frame(self) -> pd.DataFrame:
        """One row per row of X: match, predictions, CEC score and regime (NaN/None when unmatched)."""
        n = len(self.match.index)
        frame = self.match.to_frame()
        frame["prediction"] = self.prediction
        frame["prediction_cf"] = pd.Series(self.prediction_cf, index=frame.index).where(self.match.matched)
        cec = np.full(n, np.nan)
        cec[self.rows] = self.cec.score
        regime = np.full(n, None, dtype=object)
        regime[self.rows] = self.regimes.labels
        frame["cec"] = cec
        frame["regime"] = regime
        return frame


def _default_predict(model, X, name: str) -> np.ndarray:
    if not hasattr(model, "predict"):
        raise TypeError("the model has no predict method; pass prediction and prediction_cf (decisions for X and "
                        "for each row's partner).")
    try:
        return np.asarray(model.predict(X))
    except TypeError as err:
        raise TypeError(f"model.predict failed on {name} ({err}); for a model that needs the group at prediction "
                        "time (e.g. ThresholdOptimizer) pass prediction and prediction_cf.") from err


def audit_explanations(model, X, y, groups, *, financial=None, match: MatchResult | None = None, X_pool=None,
                       y_pool=None, groups_pool=None, tau=None, baselines=None, prediction=None, prediction_cf=None,
                       threshold: float = 0.25, steps: int = 32, rule: str = "riemann",
                       method: str = "auto") -> ExplanationAudit:
    """Match, explain, score and sort into regimes in one call (a thin wrapper).

    Runs :func:`match_counterfactuals` (unless ``match`` is given),
    :func:`counterfactual_rows`, :func:`label_group_baselines` (unless
    ``baselines`` is given), :func:`cec_scores` on the matched rows and
    :func:`regimes`.

    Parameters
    ----------
    model : any model :func:`integrated_gradients` supports
    X : DataFrame or 2-d array of numbers
        Rows to audit, as the model sees them.
    y, groups : arrays of shape (n,)
        True labels and each row's group (a binary protected attribute).
    financial : columns to match on (needed unless ``match`` is given)
    match : MatchResult, optional
    X_pool, y_pool, groups_pool : optional
        The pool partners come from (default: X itself), e.g. the training data.
    tau : float, optional
        Matching threshold.
    baselines : array of shape (n, d), optional
        Default: label-group means of the pool.
    prediction, prediction_cf : arrays of shape (n,), optional
        Decisions for X and for each row's partner; default ``model.predict``.
        Pass them for models that need the group at prediction time (e.g.
        ``ThresholdOptimizer``; use ``match.partner_group`` for the partners).
    threshold : float, default 0.25
    steps : int, default 32
    rule, method : see :func:`integrated_gradients`; with ``method="auto"``
        any binary classifier with ``predict_proba`` on X can be audited
        (finite differences, :math:`2dT` model calls per explained row).

    Returns
    -------
    ExplanationAudit

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 3)); groups = rng.integers(0, 2, 60); y = (X[:, 0] > 0).astype(int)
    >>> model = LogisticRegression().fit(X, y)
    >>> audit = audit_explanations(model, X, y, groups, financial=[0])
    >>> audit.summary().index.tolist()
    ['coverage', 'cec', 'pfr', 'regime_A', 'regime_B', 'regime_C', 'regime_D']
    """
    M = _numeric_matrix(X, "X")
    n = len(M)
    pool_given = X_pool is not None
    if match is None:
        if financial is None:
            raise ValueError("give financial (the features to match on) or a ready MatchResult as match.")
        match = match_counterfactuals(X, y, groups, financial, tau=tau, X_pool=X_pool, y_pool=y_pool,
                                      groups_pool=groups_pool)
    elif len(match.index) != n:
        raise ValueError(f"match has {len(match.index)} rows but X has {n}; match the same rows.")
    pool = X_pool if pool_given else X
    C = counterfactual_rows(match, pool)
    if baselines is None:
        if pool_given:
            baselines = label_group_baselines(X, y, groups, X_fit=X_pool, y_fit=y_pool, groups_fit=groups_pool)
        else:
            baselines = label_group_baselines(X, y, groups)
    B = _check_baselines(baselines, M.shape)
    rows = np.flatnonzero(match.matched)
    C_filled = np.where(match.matched[:, None], C, M)
    if isinstance(X, pd.DataFrame):  # predict on frames with X's columns, as the model was probably fitted
        M_in, C_in = X, pd.DataFrame(C_filled, columns=X.columns, index=X.index).astype(X.dtypes.to_dict())
    else:
        M_in, C_in = M, C_filled
    pred = _default_predict(model, M_in, "X") if prediction is None else _vector(prediction, n, "prediction")
    pred_cf = (_default_predict(model, C_in, "the partners") if prediction_cf is None
               else _vector(prediction_cf, n, "prediction_cf"))
    index = _row_index(X, n)[rows]
    cec = replace(cec_scores(model, M[rows], C[rows], B[rows], steps=steps, rule=rule, method=method),
                  feature_names=_feature_names(X, M.shape[1]), row_index=index)
    reg = replace(regimes(cec.score, pred[rows], pred_cf[rows], threshold=threshold), row_index=index)
    return ExplanationAudit(match=match, cec=cec, regimes=reg, rows=rows, prediction=pred, prediction_cf=pred_cf)


# --------------------------------------------------------------------------- 8. the paper's comparison
#: The methods :func:`fit_method` knows: the paper's baselines (fairlearn stand-ins) and the CEC ablations.
METHODS = ("unconstrained", "hardt", "agarwal", "correlation_remover", "eo_only", "cec_only", "cec")
#: Iterations of ExponentiatedGradient for "agarwal": each fits one network, so 10 keep a German-Credit
#: fold to a few seconds (fairlearn's default is 50; it stops earlier once the duality gap is small).
AGARWAL_MAX_ITER = 10


@dataclass(frozen=True)
class FittedMethod:
    """A model fitted by :func:`fit_method`, with what is needed to predict and explain it.

    Attributes
    ----------
    name : str
    model : object
        What integrated gradients explain: an :class:`MLPClassifier`, a
        ``ThresholdOptimizer`` or an ``ExponentiatedGradient``.
    remover : fairlearn CorrelationRemover or None
        For "correlation_remover": the fitted pre-processing; the network sees
        its output, so attributions are taken in the transformed space.
    group_values : tuple
        The two values of the protected attribute (the first is coded 0).
    fit_seconds : float
    """

    name: str
    model: object
    remover: object = None
    group_values: tuple = (0, 1)
    fit_seconds: float = float("nan")

    def inputs(self, X, groups) -> np.ndarray:
        """The features the model sees (the CorrelationRemover's output for that method)."""
        M = _numeric_matrix(X, "X")
        if self.remover is None:
            return M
        codes = _encode_groups(_vector(groups, len(M), "groups"), self.group_values, "groups", "the training data")
        return self.remover.transform(np.column_stack([M, codes]))

    def predict(self, X, groups, random_state=0) -> np.ndarray:
        """0/1 decisions; randomised post-processors and reductions use ``random_state``."""
        threshold_optimizer, exponentiated_gradient = _fairlearn_types()
        Z = self.inputs(X, groups)
        if threshold_optimizer and isinstance(self.model, threshold_optimizer):
            groups = _vector(groups, len(Z), "groups")
            _encode_groups(groups, self.group_values, "groups", "the training data")   # a group it never saw
            return np.asarray(self.model.predict(Z, sensitive_features=groups, random_state=random_state))
        if exponentiated_gradient and isinstance(self.model, exponentiated_gradient):
            return np.asarray(self.model.predict(Z, random_state=random_state))
        return np.asarray(self.model.predict(Z))

    def ranking_score(self, X, groups, random_state=0) -> np.ndarray:
        """The score the AUC is computed from (see :func:`evaluate_method`)."""
        threshold_optimizer, exponentiated_gradient = _fairlearn_types()
        Z = self.inputs(X, groups)
        if threshold_optimizer and isinstance(self.model, threshold_optimizer):
            return self.predict(X, groups, random_state).astype(float)
        if exponentiated_gradient and isinstance(self.model, exponentiated_gradient):
            total = np.zeros(len(Z))
            for predictor, weight in zip(self.model.predictors_, np.asarray(self.model.weights_, dtype=float),
                                         strict=True):
                if weight > 0:
                    total += weight * _positive_probability(predictor, Z)
            return total
        return _positive_probability(self.model, Z)


def _positive_probability(model, Z) -> np.ndarray:
    """P(class 1); also for fairlearn's constant DummyClassifier, whose predict_proba has one column."""
    proba = np.asarray(model.predict_proba(Z), dtype=float)
    classes = list(getattr(model, "classes_", [0, 1]))
    if 1 in classes:
        return proba[:, classes.index(1)]
    return np.zeros(len(Z))


@contextlib.contextmanager
def _quiet_fairlearn():
    """Silence pandas-3 deprecations raised inside fairlearn 0.15's reductions (not ours to fix)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="fairlearn")
        yield


def _check_int_seed(random_state) -> int:
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Integral) or random_state < 0:
        raise TypeError(f"random_state={random_state!r} must be an int >= 0 here (fairlearn's randomised "
                        "predictions and the per-fold seeds need an int).")
    return int(random_state)


def _mlp(mlp_params, random_state, **overrides) -> MLPClassifier:
    params = dict(mlp_params or {})
    bad = [k for k in params if k not in MLPClassifier().get_params()]
    if bad:
        raise ValueError(f"mlp_params has unknown keys {bad}; valid keys are {sorted(MLPClassifier().get_params())}.")
    params.setdefault("random_state", random_state)
    params.update(overrides)
    return MLPClassifier(**params)


def fit_method(name: str, X, y, groups, *, X_cf=None, baselines=None, mlp_params=None,
               random_state=0) -> FittedMethod:
    """Fit one of the paper's methods (or a fairlearn stand-in) with the same network.

    ``X`` is exactly what the model sees: whether the protected attribute is
    one of its columns is the caller's choice; ``groups`` is passed separately.

    * ``"unconstrained"``: :class:`MLPClassifier` with both penalties off.
    * ``"hardt"``: fairlearn ``ThresholdOptimizer(constraints="equalized_odds",
      objective="balanced_accuracy_score", predict_method="predict_proba")``
      around an unconstrained network. Balanced accuracy is chosen over
      accuracy because on imbalanced data (70% good risks in German Credit)
      the accuracy objective under equalized odds can settle on approving
      everyone, which satisfies the constraint trivially.
    * ``"agarwal"``: fairlearn ``ExponentiatedGradient(MLPClassifier,
      EqualizedOdds(), max_iter=AGARWAL_MAX_ITER)`` (10; each iteration fits
      one network, so fairlearn's default of 50 would take five times longer).
    * ``"correlation_remover"``: fairlearn ``CorrelationRemover`` (removes the
      linear correlation of every feature with the group) standing in for the
      paper's disparate impact remover, then an unconstrained network on the
      transformed features. Attributions are taken in that transformed space.
    * ``"eo_only"``: λ_EO = 1, λ_CEC = 0 (ablation).
    * ``"cec_only"``: λ_EO = 0, λ_CEC = 1 (ablation).
    * ``"cec"``: λ_EO = 1, λ_CEC = 1 (the paper's model).

    Parameters
    ----------
    name : one of ``METHODS``
    X : DataFrame or 2-d array of numbers, shape (n, d)
    y : array of 0/1 labels, shape (n,)
    groups : array with two values, shape (n,)
    X_cf, baselines : arrays of shape (n, d)
        The training rows' partners and baselines; needed by "cec_only" and "cec".
    mlp_params : dict, optional
        Keyword arguments of :class:`MLPClassifier` (e.g. ``epochs``,
        ``hidden_layer_sizes``); the λ's are set by the method.
    random_state : int, default 0

    Returns
    -------
    FittedMethod
    """
    if name not in METHODS:
        raise ValueError(f"name={name!r} is not one of {METHODS}.")
    M = _numeric_matrix(X, "X")
    n = len(M)
    y = _vector(y, n, "y")
    if not set(pd.unique(y).tolist()) <= {0, 1}:
        raise ValueError("y must hold 0/1 labels (1 = favourable) for the fairness baselines.")
    a = _vector(groups, n, "groups")
    values, codes = _group_codes(a, "groups")
    start = time.perf_counter()
    remover = None
    if name in ("unconstrained", "eo_only", "cec_only", "cec"):
        lam_eo = 1.0 if name in ("eo_only", "cec") else 0.0
        lam_cec = 1.0 if name in ("cec_only", "cec") else 0.0
        if lam_cec and (X_cf is None or baselines is None):
            raise ValueError(f"method {name!r} trains with the CEC penalty and needs X_cf and baselines for the "
                             "training rows (see match_counterfactuals and label_group_baselines).")
        model = _mlp(mlp_params, random_state, lambda_eo=lam_eo, lambda_cec=lam_cec)
        model.fit(M, y, sensitive_features=a, X_cf=X_cf if lam_cec else None,
                  baselines=baselines if lam_cec else None)
    elif name == "hardt":
        from fairlearn.postprocessing import ThresholdOptimizer
        model = ThresholdOptimizer(estimator=_mlp(mlp_params, random_state, lambda_eo=0.0, lambda_cec=0.0),
                                   constraints="equalized_odds", objective="balanced_accuracy_score",
                                   predict_method="predict_proba")
        model.fit(M, y, sensitive_features=a)
    elif name == "agarwal":
        from fairlearn.reductions import EqualizedOdds, ExponentiatedGradient
        model = ExponentiatedGradient(_mlp(mlp_params, random_state, lambda_eo=0.0, lambda_cec=0.0),
                                      EqualizedOdds(), max_iter=AGARWAL_MAX_ITER)
        with _quiet_fairlearn():
            model.fit(M, y, sensitive_features=a)
    else:  # correlation_remover
        from fairlearn.preprocessing import CorrelationRemover
        remover = CorrelationRemover(sensitive_feature_ids=[M.shape[1]])
        remover.fit(np.column_stack([M, codes]))
        Z = remover.transform(np.column_stack([M, codes]))
        model = _mlp(mlp_params, random_state, lambda_eo=0.0, lambda_cec=0.0).fit(Z, y)
    return FittedMethod(name=name, model=model, remover=remover, group_values=values,
                        fit_seconds=time.perf_counter() - start)


def evaluate_method(model_or_fitted, X_test, y_test, groups_test, *, X_cf, groups_cf, baselines,
                    threshold: float = 0.25, steps: int = 32, random_state=0) -> dict:
    """Utility, outcome fairness and procedural fairness of one fitted model on a test set.

    * ``auc`` from a score: the probability for networks, the weighted mixture
      of the predictors' probabilities for ``ExponentiatedGradient``, and the
      hard randomised decision for ``ThresholdOptimizer`` (which has no
      probability of its own), which lowers its AUC.
    * ``f1``; ``eo_gap`` = the larger of the absolute TPR and FPR differences and
      ``sp_gap`` (fairlearn's ``equalized_odds_difference`` and
      ``demographic_parity_difference``), on all test rows.
    * ``cec`` (mean score), ``pfr`` (prediction flip rate) and the regime
      shares ``regime_A`` ... ``regime_D`` on the matched rows.

    A group-aware post-processor predicts each counterfactual row with the
    counterfactual's own group ``groups_cf``. Randomised decisions use the same
    random numbers for a row and its partner, so a flip is never just noise.
    With the correlation remover, attributions are taken in the transformed
    space: the partner is transformed with its own group and the baseline with
    the factual's group, which (the transformation being affine) is exactly the
    label-group mean of the transformed training data.

    Parameters
    ----------
    model_or_fitted : FittedMethod or a model
    X_test : DataFrame or 2-d array, shape (n, d)
    y_test : array of 0/1, shape (n,)
    groups_test : array, shape (n,)
        Each test row's group.
    X_cf : array of shape (n, d)
        Partners (all-NaN rows where unmatched; those rows are left out of the
        procedural metrics).
    groups_cf : array of shape (n,)
        The partners' group (e.g. ``match.partner_group``); every matched
        row's entry must be one of the two groups (a missing one is an error).
    baselines : array of shape (n, d)
        The factual rows' baselines (training label-group means).
    threshold : float, default 0.25
    steps : int, default 32
    random_state : int, default 0

    Returns
    -------
    dict
    """
    from fairlearn.metrics import demographic_parity_difference, equalized_odds_difference
    from sklearn.metrics import f1_score, roc_auc_score

    random_state = _check_int_seed(random_state)
    _check_threshold(threshold)
    steps = _check_steps(steps)
    fitted = model_or_fitted if isinstance(model_or_fitted, FittedMethod) else \
        FittedMethod(name=type(model_or_fitted).__name__, model=model_or_fitted,
                     group_values=_group_codes(_vector(groups_test, None, "groups_test"), "groups_test")[0])
    M = _numeric_matrix(X_test, "X_test")
    n = len(M)
    y = _vector(y_test, n, "y_test", "X_test")
    a = _vector(groups_test, n, "groups_test", "X_test")
    C = _numeric_matrix(X_cf, "X_cf", allow_nan_rows=True)
    if C.shape != M.shape:
        raise ValueError(f"X_cf has shape {C.shape} but X_test has shape {M.shape}; give one partner row per row.")
    matched = ~np.isnan(C).any(axis=1)
    a_cf = np.asarray(groups_cf.to_numpy() if isinstance(groups_cf, (pd.Series, pd.Index)) else groups_cf)
    if a_cf.shape != (n,):
        raise ValueError(f"groups_cf has shape {a_cf.shape}; give the group of every row's partner, shape ({n},).")
    known = (a_cf == fitted.group_values[0]) | (a_cf == fitted.group_values[1])
    if (matched & ~known).any():   # unmatched rows' partner groups are never used
        i = int(np.flatnonzero(matched & ~known)[0])
        raise ValueError(f"groups_cf[{i}]={_py(a_cf[i])!r} is not one of the two groups {list(fitted.group_values)}, "
                         f"but row {i} has a partner; give every matched row's partner group (e.g. "
                         "match.partner_group).")
    B = _check_baselines(baselines, M.shape)
    pred = fitted.predict(M, a, random_state)
    a_cf_filled = np.where(matched, a_cf, a)
    pred_cf = fitted.predict(np.where(matched[:, None], C, M), a_cf_filled, random_state)
    score = fitted.ranking_score(M, a, random_state)
    rows = np.flatnonzero(matched)
    if len(rows):
        # each row in the space the model sees: the partner with its own group, the baseline with the factual's
        Zb = fitted.inputs(B[rows], a[rows])
        G = integrated_gradients(fitted.model, fitted.inputs(M[rows], a[rows]), Zb, steps)
        Gc = integrated_gradients(fitted.model, fitted.inputs(C[rows], a_cf_filled[rows]), Zb, steps)
        cec, _ = _cec_from_attributions(G, Gc)
        reg = regimes(cec, pred[rows], pred_cf[rows], threshold=threshold)
        shares, pfr, mean_cec = reg.shares, reg.flip_rate, float(cec.mean())
    else:
        shares, pfr, mean_cec = pd.Series(np.nan, index=list(REGIMES)), float("nan"), float("nan")
    out = {
        "n": n,
        "n_matched": len(rows),
        "auc": float(roc_auc_score(y, score)) if len(np.unique(y)) == 2 else float("nan"),
        "f1": float(f1_score(y, pred, zero_division=0)),
        "eo_gap": float(equalized_odds_difference(y, pred, sensitive_features=a)),
        "sp_gap": float(demographic_parity_difference(y, pred, sensitive_features=a)),
        "cec": mean_cec,
        "pfr": pfr,
    }
    out.update({f"regime_{r}": float(shares[r]) for r in REGIMES})
    return out


def cross_validate_methods(X, y, groups, financial, methods: Sequence[str] = METHODS, *, n_splits: int = 5, tau=None,
                           mlp_params=None, variants=None, threshold: float = 0.25, steps: int = 32,
                           random_state=0, progress: bool = False) -> pd.DataFrame:
    """The paper's experiment: k-fold cross-validation of several methods on one data set.

    Folds are stratified on (label, group). In each fold, the training rows are
    matched within the training fold and get their label-group baselines from
    it; every test row is matched against the training fold (standardised with
    the training statistics) and gets the training mean of its own (label,
    group) cell as its baseline. Each method is fitted with :func:`fit_method`
    and scored with :func:`evaluate_method`.

    Parameters
    ----------
    X : DataFrame or 2-d array of numbers
        What the models see (include the protected attribute as a column or not).
    y : array of two labels; the larger one (sorted) is coded 1 = favourable
    groups : array with two values
    financial : columns of X to match on
    methods : sequence of names from ``METHODS``
    n_splits : int, default 5
    tau : float, optional
        Matching threshold (unmatched rows drop out of CEC training and of the
        procedural metrics).
    mlp_params : dict, optional
        :class:`MLPClassifier` arguments shared by all methods.
    variants : dict, optional
        Further networks to evaluate alongside ``methods``: name -> keyword
        arguments of :class:`MLPClassifier` (on top of ``mlp_params``), e.g.
        ``{"cec (λ_CEC = 2)": {"lambda_cec": 2.0, "lambda_eo": 1.0}}``; used for
        sensitivity sweeps. Each is trained on the fold's pairs and baselines.
    threshold, steps : see :func:`evaluate_method`
    random_state : int, default 0
        Seeds the folds; the networks of fold k use ``random_state + k``.
    progress : bool, default False
        Show a tqdm progress bar.

    Returns
    -------
    pandas.DataFrame
        One row per (fold, method): coverage of the matching, fit time and
        every metric of :func:`evaluate_method`.

    Examples
    --------
    >>> from recourselab.datasets import make_cec_synthetic
    >>> data = make_cec_synthetic(200, random_state=0)
    >>> X = data.frame[[c for c in data.feature_names if c != "group"]]
    >>> fin = [c for c in X.columns if c.startswith("fin_")]
    >>> res = cross_validate_methods(X, data.y, data.frame["group"], fin, methods=["unconstrained"], n_splits=2,
    ...                              mlp_params={"hidden_layer_sizes": (8,), "epochs": 2}, steps=8)
    >>> res[["fold", "method"]].values.tolist()
    [[0, 'unconstrained'], [1, 'unconstrained']]
    """
    from sklearn.model_selection import StratifiedKFold
    from tqdm.auto import tqdm

    random_state = _check_int_seed(random_state)
    methods = [methods] if isinstance(methods, str) else list(methods)
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise ValueError(f"methods {bad} are not among {METHODS}.")
    M = _numeric_matrix(X, "X")
    n = len(M)
    y = _vector(y, n, "y")
    labels = np.unique(y)
    if len(labels) != 2:
        raise ValueError(f"y must have two labels, found {labels.tolist()[:6]}.")
    y01 = (y == labels[1]).astype(int)
    a = _vector(groups, n, "groups")
    values, codes = _group_codes(a, "groups")
    _financial_matrix(X, financial, "X")   # validate names early
    if isinstance(n_splits, bool) or not isinstance(n_splits, numbers.Integral) or n_splits < 2:
        raise ValueError(f"n_splits={n_splits!r} must be an integer >= 2.")
    frame = X if isinstance(X, pd.DataFrame) else pd.DataFrame(M)
    folds = StratifiedKFold(n_splits=n_splits, shuffle=True, random_state=random_state)
    results = []
    variants = dict(variants or {})
    clash = [v for v in variants if v in methods]
    if clash:
        raise ValueError(f"variants {clash} have the names of methods; give them other names.")
    for name, params in variants.items():
        if not isinstance(params, dict):
            raise TypeError(f"variants[{name!r}] must be a dict of MLPClassifier arguments, got "
                            f"{type(params).__name__}.")
        unknown = [k for k in params if k not in MLPClassifier().get_params()]
        if unknown:
            raise ValueError(f"variants[{name!r}] has unknown keys {unknown}; valid keys are "
                             f"{sorted(MLPClassifier().get_params())}.")
    bar = tqdm(total=n_splits * (len(methods) + len(variants)), disable=not progress, desc="folds x methods")
    for fold, (train, test) in enumerate(folds.split(M, 2 * y01 + codes)):
        Xtr, Xte = frame.iloc[train], frame.iloc[test]
        m_tr = match_counterfactuals(Xtr, y01[train], a[train], financial, tau=tau)
        cf_tr = counterfactual_rows(m_tr, M[train])
        b_tr = label_group_baselines(M[train], y01[train], a[train])
        m_te = match_counterfactuals(Xte, y01[test], a[test], financial, tau=tau, X_pool=Xtr, y_pool=y01[train],
                                     groups_pool=a[train])
        cf_te = counterfactual_rows(m_te, M[train])
        a_cf = np.asarray(values)[1 - codes[test]]
        b_te = label_group_baselines(M[test], y01[test], a[test], X_fit=M[train], y_fit=y01[train],
                                     groups_fit=a[train])
        for name in methods:
            fitted = fit_method(name, M[train], y01[train], a[train], X_cf=cf_tr, baselines=b_tr,
                                mlp_params=mlp_params, random_state=random_state + fold)
            row = {"fold": fold, "method": name, "coverage_train": m_tr.coverage, "coverage_test": m_te.coverage,
                   "fit_seconds": fitted.fit_seconds}
            row.update(evaluate_method(fitted, M[test], y01[test], a[test], X_cf=cf_te, groups_cf=a_cf, baselines=b_te,
                                       threshold=threshold, steps=steps, random_state=random_state + fold))
            results.append(row)
            bar.update(1)
        for name, params in variants.items():
            start = time.perf_counter()
            model = _mlp(mlp_params, random_state + fold, **params).fit(
                M[train], y01[train], sensitive_features=a[train], X_cf=cf_tr, baselines=b_tr)
            row = {"fold": fold, "method": name, "coverage_train": m_tr.coverage, "coverage_test": m_te.coverage,
                   "fit_seconds": time.perf_counter() - start}
            row.update(evaluate_method(model, M[test], y01[test], a[test], X_cf=cf_te, groups_cf=a_cf, baselines=b_te,
                                       threshold=threshold, steps=steps, random_state=random_state + fold))
            results.append(row)
            bar.update(1)
    bar.close()
    return pd.DataFrame(results)

"""Recourse to a linear boundary: argument parsing, the actionability box, and the exact projection.

Shared by :func:`recourselab.counterfactuals.linear_recourse` and the RAGUEL
re-rankings in :mod:`recourselab.fair_ranking`, so that both use one model of
actionability and one cost. Private to the package: the public entry points
document everything a user needs.

The cost of a row :math:`x` with :math:`a^\\top x + b < 0` is the smallest weighted
Euclidean move :math:`\\sqrt{\\sum_j w_j \\Delta_j^2}` that reaches the favourable side
while every feature stays inside its **box** :math:`[l_j(x), u_j(x)]`. The box says
what the actionability model allows: an immutable feature has :math:`l_j = u_j = x_j`,
an ``increase`` feature :math:`l_j = x_j`, a ``decrease`` feature :math:`u_j = x_j`, and
the other bounds come from the feature's valid range. The current value always lies
in its box (staying put is always allowed).

The Lagrangian of this convex problem gives every coordinate as a clipped
function of one multiplier :math:`\\lambda \\ge 0`,

.. math:: x_j(\\lambda) = \\operatorname{clip}(x_j + \\lambda a_j / w_j,\\; l_j,\\; u_j),

and the margin :math:`g(\\lambda) = a^\\top x(\\lambda) + b` is continuous,
non-decreasing and piecewise linear: feature :math:`j` adds :math:`r_j = a_j^2 / w_j`
to the slope until it reaches its bound at :math:`\\lambda_j = \\text{room}_j\\, w_j / |a_j|`,
where :math:`\\text{room}_j` is how far it may move in the direction of :math:`a_j`.
The optimum is the smallest :math:`\\lambda^*` with :math:`g(\\lambda^*) = 0`, found by
sorting the breakpoints :math:`\\lambda_j` (a sorted breakpoint search), and its cost
is :math:`\\sqrt{\\sum_j r_j \\min(\\lambda^*, \\lambda_j)^2}`. When no bound binds this is
the textbook projection onto the hyperplane,
:math:`|a^\\top x + b| / \\sqrt{\\sum_j a_j^2 / w_j}`; when even
:math:`\\lambda \\to \\infty` leaves :math:`g < 0`, no move inside the box reaches the
favourable side (cost ``inf``).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import check_real
from ..features import Encoder, check_encoder

# room to spare in bound comparisons: absorbs rounding of values that sit on a bound
SLACK = 1e-9


# --------------------------------------------------------------------------- argument parsing


def as_matrix(X, name: str = "X"):
    """Float copy of X, its column names and its index (None for an array); NaN and inf name the column."""
    if isinstance(X, pd.DataFrame):
        columns = [str(c) for c in X.columns]
        for c in X.columns:
            if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c])):
                raise TypeError(
                    f"column {c!r} of {name} has dtype {X[c].dtype}, not numeric; encode it first "
                    "(e.g. with recourselab.Encoder) or drop it."
                )
        A = X.to_numpy(dtype=float, copy=True)
        index = X.index
    else:
        try:
            A = np.array(X, dtype=float, copy=True)
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be a 2-d numeric array or DataFrame: {err}") from None
        if A.ndim != 2:
            raise ValueError(f"{name} has shape {A.shape}; give a 2-d table (rows = records, columns = features).")
        columns = [f"x{j}" for j in range(A.shape[1])]
        index = None
    if A.shape[0] == 0 or A.shape[1] == 0:
        raise ValueError(f"{name} has shape {A.shape}; give at least one row and one column.")
    bad = ~np.isfinite(A)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        what = "missing values" if np.isnan(A[i, j]) else "an infinite value"
        raise ValueError(f"column {columns[j]!r} of {name} has {what} (first at row {i}); impute or drop them first.")
    return A, columns, index


def per_feature(value, name: str, columns: list, *, scalar_ok: bool = True, fill=None) -> np.ndarray:
    """One float per column from a scalar, a sequence, or a dict/Series keyed by column names."""
    d = len(columns)
    if isinstance(value, (dict, pd.Series)):
        items = dict(value.items()) if isinstance(value, pd.Series) else dict(value)
        keys = {str(k): v for k, v in items.items()}
        unknown = [k for k in keys if k not in columns]
        if unknown:
            raise ValueError(f"{name} names columns that X lacks: {unknown}; columns are {columns}.")
        missing = [c for c in columns if c not in keys]
        if missing and fill is None:
            raise ValueError(f"{name} gives no value for columns {missing}; give one per column of X.")
        return np.array([float(keys.get(c, fill)) if keys.get(c, fill) is not None else np.nan for c in columns])
    if np.isscalar(value) and not isinstance(value, str):
        if not scalar_ok:
            raise ValueError(f"{name}={value!r} is a single number; give one entry per column of X ({d}).")
        return np.full(d, float(value))
    try:
        arr = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError) as err:
        raise TypeError(f"{name} must be numbers, one per column of X: {err}") from None
    if arr.shape[0] != d:
        raise ValueError(
            f"{name} has {arr.shape[0]} entries but X has {d} columns; give one entry per column "
            f"(columns are {columns})."
        )
    return arr


def immutable_mask(immutable, columns: list) -> np.ndarray:
    d = len(columns)
    if immutable is None:
        return np.zeros(d, dtype=bool)
    arr = np.asarray(immutable)
    if arr.dtype == bool:
        if arr.shape != (d,):
            raise ValueError(f"immutable is a boolean mask of shape {arr.shape}; give one entry per column ({d}).")
        return arr.copy()
    if isinstance(immutable, (str, numbers.Integral)):
        immutable = [immutable]
    mask = np.zeros(d, dtype=bool)
    for item in immutable:
        if isinstance(item, numbers.Integral) and not isinstance(item, bool) and str(item) not in columns:
            if not 0 <= int(item) < d:
                raise ValueError(f"immutable names column position {item}, but X has {d} columns.")
            mask[int(item)] = True
        elif str(item) in columns:
            mask[columns.index(str(item))] = True
        else:
            raise ValueError(f"immutable names {item!r}, which is not a column of X; columns are {columns}.")
    return mask


def parse_bounds(bounds, columns: list):
    d = len(columns)
    lower, upper = np.full(d, -np.inf), np.full(d, np.inf)
    if bounds is None:
        return lower, upper
    if isinstance(bounds, dict):
        for key, pair in bounds.items():
            if str(key) not in columns:
                raise ValueError(f"bounds names {key!r}, which is not a column of X; columns are {columns}.")
            lo, hi = pair
            j = columns.index(str(key))
            lower[j] = -np.inf if lo is None else float(lo)
            upper[j] = np.inf if hi is None else float(hi)
    else:
        try:
            lo, hi = bounds
        except (TypeError, ValueError):
            raise ValueError(
                "bounds must be a pair (lower, upper) of scalars/arrays/dicts (None = unbounded) or a dict "
                "{feature: (lower, upper)}."
            ) from None
        if lo is not None:
            lower = per_feature(lo, "bounds[0] (lower)", columns, fill=-np.inf)
            lower = np.where(np.isnan(lower), -np.inf, lower)
        if hi is not None:
            upper = per_feature(hi, "bounds[1] (upper)", columns, fill=np.inf)
            upper = np.where(np.isnan(upper), np.inf, upper)
    if np.isposinf(lower).any() or np.isneginf(upper).any():
        j = int(np.flatnonzero(np.isposinf(lower) | np.isneginf(upper))[0])
        raise ValueError(f"bounds for column {columns[j]!r} are ({lower[j]}, {upper[j]}); a bound of +inf below "
                         "or -inf above leaves no value. Use None (or -inf / +inf) for 'unbounded'.")
    bad = lower > upper
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(f"bounds for column {columns[j]!r} have lower {lower[j]} > upper {upper[j]}.")
    return lower, upper


def margin(A: np.ndarray, coef: np.ndarray, intercept: float) -> np.ndarray:
    """a.x + b, summed column by column in a fixed order (identical for a row alone or in a batch)."""
    s = np.full(A.shape[0], float(intercept))
    for j in np.flatnonzero(coef):
        s += A[:, j] * coef[j]
    return s


# --------------------------------------------------------------------------- the actionability box


@dataclass(frozen=True)
class Box:
    """Where each feature of a row may go: constant bounds, and bounds that follow the row's own value.

    ``bounds(X)`` gives, row by row, ``lower = X`` where a feature may not fall
    (``rises_only`` or ``fixed``) and ``upper = X`` where it may not rise
    (``falls_only`` or ``fixed``); otherwise the constant ``lower0``/``upper0``,
    narrowed to ``X + cap_lower`` and ``X + cap_upper`` where caps are given
    (the plausible change advice may ask for). The current value is always
    inside its box.
    """

    lower0: np.ndarray
    upper0: np.ndarray
    fixed: np.ndarray
    rises_only: np.ndarray
    falls_only: np.ndarray
    cap_lower: np.ndarray | None = None
    cap_upper: np.ndarray | None = None

    def bounds(self, X: np.ndarray):
        X = np.asarray(X, dtype=float)
        lower = np.where(self.fixed | self.rises_only, X, self.lower0)
        upper = np.where(self.fixed | self.falls_only, X, self.upper0)
        if self.cap_lower is not None:
            lower = np.maximum(lower, X + self.cap_lower)
            upper = np.minimum(upper, X + self.cap_upper)
        return np.minimum(lower, X), np.maximum(upper, X)

    def room(self, X: np.ndarray, coef: np.ndarray) -> np.ndarray:
        """How far each feature may move in the direction that raises the margin (0 where it may not)."""
        lower, upper = self.bounds(X)
        room = np.where(coef > 0, upper - X, np.where(coef < 0, X - lower, 0.0))
        return np.maximum(room, 0.0)


def encoder_box(encoder: Encoder, fixed_extra: np.ndarray, lower, upper) -> Box:
    """The box the encoder's specs define on its encoded columns, intersected with user bounds.

    Each encoded column stays in [0, 1] (the range the encoder maps each
    feature's valid range to); immutable features and every one-hot column of a
    categorical feature are fixed (a category cannot change by a fraction, and
    one column of a block cannot move alone); ``increase`` features may only
    rise and ``decrease`` features only fall.
    """
    d = encoder.n_columns
    fixed = np.array(fixed_extra, dtype=bool).copy()
    rises, falls = np.zeros(d, dtype=bool), np.zeros(d, dtype=bool)
    top = np.ones(d)
    for spec in encoder.specs_:
        block = encoder.slices_[spec.name]
        if spec.actionability == "immutable" or spec.kind == "categorical":
            fixed[block] = True
        elif spec.actionability == "increase":
            rises[block] = True
        elif spec.actionability == "decrease":
            falls[block] = True
        # a single level, or a constant continuous column, has nowhere to go: its range is one point
        if spec.kind in ("ordinal", "binary") and len(encoder.levels_[spec.name]) < 2:
            top[block] = 0.0
        if spec.kind == "continuous" and np.subtract(*encoder.ranges_[spec.name][::-1]) <= 0:
            top[block] = 0.0
    return Box(np.maximum(lower, 0.0), np.minimum(upper, top), fixed, rises, falls)


def level_steps(encoder: Encoder) -> np.ndarray:
    """One level of every ordinal and binary column (1 / (levels - 1)); NaN for the other columns."""
    steps = np.full(encoder.n_columns, np.nan)
    for spec in encoder.specs_:
        if spec.kind in ("ordinal", "binary"):
            steps[encoder.slices_[spec.name].start] = 1.0 / max(len(encoder.levels_[spec.name]) - 1, 1)
    return steps


def advice_box(box: Box, encoder: Encoder) -> Box:
    """``box`` narrowed to the moves advice may make (:meth:`Encoder.advice_bounds`).

    A feature advice may not move (``advise="never"``) is fixed, one advice may
    only raise (lower) keeps its value as lower (upper) bound, and a
    ``max_change`` caps the move on either side of the row's value.
    """
    low, high = encoder.advice_bounds()
    return Box(box.lower0, box.upper0, box.fixed | ((low == 0) & (high == 0)), box.rises_only | (low == 0),
               box.falls_only | (high == 0), np.minimum(low, 0.0), np.maximum(high, 0.0))


def unit_steps(encoder: Encoder) -> np.ndarray:
    """Whole steps of every discrete column: one level (see :func:`level_steps`), and one unit of a continuous
    feature stored as integers (years, months, counts; ``1 / (max - min)`` encoded); NaN for the others."""
    steps = level_steps(encoder)
    for spec in encoder.specs_:
        lo, hi = encoder.ranges_.get(spec.name, (0.0, 0.0))
        if spec.kind == "continuous" and hi > lo and pd.api.types.is_integer_dtype(encoder.dtypes_[spec.name]):
            steps[encoder.slices_[spec.name].start] = 1.0 / (hi - lo)
    return steps


@dataclass(frozen=True)
class LinearProblem:
    """A parsed linear-boundary recourse problem (see :func:`parse_problem`)."""

    A: np.ndarray
    columns: list
    index: object
    coef: np.ndarray
    intercept: float
    weights: np.ndarray
    box: Box
    encoder: Encoder | None

    @property
    def usable(self) -> np.ndarray:
        """Columns that can move the margin: not fixed, nonzero coefficient."""
        return ~self.box.fixed & (self.coef != 0)

    @property
    def slack(self) -> float:
        """How far inside the favourable side counterfactuals aim: 1e-9 of the model's scale.

        Far above the rounding of a margin sum, far below any cost that
        matters; it depends only on the model, so a row's cost is the same in
        every problem built with that model.
        """
        return 1e-9 * (1.0 + abs(self.intercept) + float(np.abs(self.coef).sum()))


def parse_problem(X, coef, intercept, weights, *, encoder=None, immutable=None, bounds=None) -> LinearProblem:
    """Validate the arguments of a linear-boundary recourse call and build its box."""
    if encoder is not None:
        check_encoder(encoder)
    A, columns, index = as_matrix(X)
    if encoder is not None:
        names = list(encoder.feature_names_out_)
        if A.shape[1] != len(names):
            raise ValueError(
                f"X has {A.shape[1]} columns but the encoder produces {len(names)} encoded columns; give X in "
                "the encoded space (encoder.transform(frame))."
            )
        if isinstance(X, pd.DataFrame) and columns != [str(c) for c in names]:
            raise ValueError(
                f"X's columns {columns[:4]}... are not the encoder's encoded columns {names[:4]}...; "
                "build X with pd.DataFrame(encoder.transform(frame), columns=encoder.feature_names_out_)."
            )
        columns = [str(c) for c in names]
    coef = per_feature(coef, "coef", columns, scalar_ok=False)
    if not np.isfinite(coef).all():
        raise ValueError(f"coef={coef.tolist()} must be finite.")
    if isinstance(intercept, np.ndarray) and intercept.size == 1:  # e.g. scikit-learn's intercept_ of shape (1,)
        intercept = np.asarray(intercept).reshape(-1)[0].item()
    b = check_real(intercept, "intercept")
    if not math.isfinite(b):
        raise ValueError(f"intercept={intercept!r} must be finite.")
    if weights is None:
        if encoder is not None:  # the specs' cost weights, one per encoded column
            w = encoder.column_weights()
        else:
            w = np.ones(len(columns))
    else:
        w = per_feature(weights, "weights", columns)
    if np.isnan(w).any() or (w < 0).any():
        j = int(np.flatnonzero(np.isnan(w) | (w < 0))[0])
        raise ValueError(f"weights[{j}] = {w[j]:g} ({columns[j]!r}); recourse weights must be >= 0 (inf = immutable).")
    fixed = immutable_mask(immutable, columns) | np.isposinf(w)  # an infinite weight also means immutable
    lower, upper = parse_bounds(bounds, columns)
    if encoder is not None:
        box = encoder_box(encoder, fixed, lower, upper)
    else:
        box = Box(lower, upper, fixed, np.zeros(len(columns), dtype=bool), np.zeros(len(columns), dtype=bool))
    if box.fixed.all():
        raise ValueError(
            f"every feature is immutable (immutable={immutable!r}, weights={w.tolist()}"
            f"{', and the encoder fixes the rest' if encoder is not None else ''}); recourse needs at least one "
            "feature a person can change."
        )
    for j in np.flatnonzero(~box.fixed):
        if not (np.isfinite(w[j]) and w[j] > 0):
            raise ValueError(
                f"weights[{j}] = {w[j]:g} on a mutable feature ({columns[j]!r}); recourse weights must be > 0 "
                "and finite on mutable features (mark the feature immutable instead, or give it weight inf)."
            )
    return LinearProblem(A, columns, index, coef, b, w, box, encoder)


# --------------------------------------------------------------------------- the exact projection


def projection(s: np.ndarray, lam: np.ndarray, rate: np.ndarray, gain: np.ndarray | None = None,
               slack: float = 0.0):
    """Cost and multiplier of the weighted projection onto ``margin >= 0`` inside a box, row by row.

    Parameters
    ----------
    s : array (N,)
        Margins :math:`a^\\top x + b`.
    lam : array (N, m)
        Breakpoints :math:`\\lambda_j = \\text{room}_j w_j / |a_j|` of the m usable
        features (``inf`` for unbounded room, 0 for none).
    rate : array (m,)
        :math:`r_j = a_j^2 / w_j > 0`.
    gain : array (N, m), optional
        Margin gained by each feature at its bound, :math:`|a_j|\\,\\text{room}_j`
        (equal to :math:`r_j \\lambda_j`; given, it spares that product's
        rounding, so a row that reaches the boundary exactly at its bounds is
        not declared unreachable).
    slack : float, default 0
        Aim this far inside the favourable side (margin ``slack`` instead of
        0), so that the model's own arithmetic, which sums the margin in
        another order, does not refuse the counterfactual by a rounding error.
        A row that reaches the boundary but not the slack goes as far as its
        box allows.

    Returns
    -------
    cost : array (N,)
        0 where ``s >= 0``, ``inf`` where the box cannot reach the boundary.
    lam_star : array (N,)
        The multiplier (0 where ``s >= 0``, ``inf`` where unreachable).

    Notes
    -----
    Sums run column by column in a fixed order, so a row's result does not
    depend on the batch it is computed in.
    """
    s = np.asarray(s, dtype=float)
    N, m = lam.shape
    cost = np.zeros(N)
    lam_star = np.zeros(N)
    todo = s < 0
    if not todo.any():
        return cost, lam_star
    L0 = lam[todo]
    need0 = -s[todo]
    need = need0 + slack
    order = np.argsort(L0, axis=1, kind="stable")
    L = np.take_along_axis(L0, order, axis=1)
    R = rate[order]
    G = None if gain is None else np.take_along_axis(np.asarray(gain, dtype=float)[todo], order, axis=1)
    # cumulative sums are sequential (unlike pairwise sum), so each row's result is independent of the batch
    tail = np.cumsum(R[:, ::-1], axis=1)[:, ::-1]  # rate still growing the margin from breakpoint k on
    with np.errstate(invalid="ignore", divide="ignore"):
        gained = np.cumsum(R * L if G is None else G, axis=1)  # margin from the features at their bounds
        head = np.concatenate([np.zeros((len(L), 1)), gained[:, :-1]], axis=1)
        reached = head + L * tail  # margin gained at each breakpoint (inf past an unbounded one)
        # a row that reaches the boundary exactly at its bounds must not be lost to rounding
        feasible = reached[:, -1] >= need0 * (1 - 1e-12)  # the last breakpoint gains the most
        ok = reached >= need[:, None]
        k = np.where(ok[:, -1], np.argmax(ok, axis=1), m - 1)  # short of the slack: every feature at its bound
        rows = np.arange(len(L))
        star = (need - head[rows, k]) / tail[rows, k]
        star = np.where(feasible, np.minimum(np.maximum(star, 0.0), L[rows, k]), np.inf)
        step = np.minimum(star[:, None], L0)
        total = np.cumsum(rate * step * step, axis=1)[:, -1]
    cost[todo] = np.where(feasible, np.sqrt(total), np.inf)
    lam_star[todo] = star
    return cost, lam_star


def breakpoints(room: np.ndarray, coef: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """:math:`\\lambda_j = \\text{room}_j w_j / |a_j|` for the given (usable) columns."""
    with np.errstate(invalid="ignore"):
        lam = room * (weights / np.abs(coef))
    return np.where(room > 0, lam, 0.0)


def closed_form(problem: LinearProblem, rows=None):
    """Closed-form recourse of ``rows`` (default all): delta, cost, margin and a feasibility flag.

    Returns ``(delta, cost, s, reachable)`` with ``delta`` NaN and ``cost``
    inf where no move inside the box reaches the favourable side.
    """
    A = problem.A if rows is None else problem.A[rows]
    a, w = problem.coef, problem.weights
    s = margin(A, a, problem.intercept)
    U = np.flatnonzero(problem.usable)
    delta = np.zeros_like(A)
    if U.size == 0:
        cost = np.where(s >= 0, 0.0, np.inf)
        delta[s < 0] = np.nan
        return delta, cost, s, s >= 0
    room = problem.box.room(A, a)[:, U]
    lam = breakpoints(room, a[U], w[U])
    cost, star = projection(s, lam, a[U] ** 2 / w[U], room * np.abs(a[U]), problem.slack)
    reachable = np.isfinite(cost)
    move = (s < 0) & reachable
    if move.any():
        lower, upper = problem.box.bounds(A[move])
        step = np.minimum(star[move][:, None], lam[move]) * (a[U] / w[U])[None, :]
        moved = np.clip(A[move][:, U] + step, lower[:, U], upper[:, U])
        block = np.zeros((int(move.sum()), A.shape[1]))
        block[:, U] = moved - A[move][:, U]
        delta[move] = block
    delta[~reachable] = np.nan
    return delta, cost, s, reachable

"""Setting up a RAGUEL re-ranking: the linear problem, the steps, the advice room, and the readable results.

Private; shared by :func:`~recourselab.fair_ranking.raguel` and
:func:`~recourselab.fair_ranking.raguel_block`. Relies on the private helpers
of :mod:`recourselab.counterfactuals._linear` (``parse_problem``,
``per_feature``, ``level_steps``), so that RAGUEL's costs are exactly those
of the closed-form :func:`~recourselab.counterfactuals.linear_recourse`.
"""

from __future__ import annotations

import time
import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._validation import check_aligned, check_int
from ..counterfactuals import _linear
from ._common import check_actionable, check_tolerance, frozen, group_codes, protected_codes
from ._engine import Engine


class Setup(NamedTuple):
    """Everything a re-ranking needs, parsed and checked once."""

    problem: object  # _linear.LinearProblem
    engine: Engine
    codes: np.ndarray  # group code of every row
    labels: list  # group labels, by code
    P: np.ndarray  # codes of the protected labels
    p: np.ndarray  # their population shares
    alpha: np.ndarray  # their band half-widths p * t
    t: float
    rank0: np.ndarray  # rows by initial cost, ties by row position
    actionable: bool  # modifications restricted to what advice may ask for


def _unit_steps(encoder) -> np.ndarray:
    """One whole step of every discrete column: a level, or one unit of a feature stored as integers; else NaN."""
    steps = _linear.level_steps(encoder)
    for spec in encoder.specs_:
        lo, hi = encoder.ranges_.get(spec.name, (0.0, 0.0))
        if spec.kind == "continuous" and hi > lo and pd.api.types.is_integer_dtype(encoder.dtypes_[spec.name]):
            steps[encoder.slices_[spec.name].start] = 1.0 / (hi - lo)
    return steps


def default_steps(problem, steps, actionable: bool) -> np.ndarray:
    """RAGUEL's step sizes: the user's, or with an encoder one level (ordinal/binary) and 1% of the range.

    For a continuous feature stored as integers (months, DM) the default is
    1% of the range rounded to a whole number of units (at least one), so that
    a modified profile reads in the feature's own units. A given step of a
    level-valued column must be a whole number of levels, and (``actionable``)
    that of an integer-valued column a whole number of units.
    """
    columns, encoder = problem.columns, problem.encoder
    if steps is None:
        if encoder is None:
            raise TypeError("steps is required without an encoder: give the step size of every mutable feature.")
        out = np.full(len(columns), 0.01)  # 1% of each continuous feature's range
        for spec in encoder.specs_:
            lo, hi = encoder.ranges_.get(spec.name, (0.0, 0.0))
            if spec.kind == "continuous" and hi > lo and pd.api.types.is_integer_dtype(encoder.dtypes_[spec.name]):
                out[encoder.slices_[spec.name].start] = max(1.0, round(0.01 * (hi - lo))) / (hi - lo)
    else:
        out = _linear.per_feature(steps, "steps", columns, fill=np.nan)
    if encoder is None:
        return out
    level = _linear.level_steps(encoder)
    whole = _unit_steps(encoder) if actionable else level
    for j in np.flatnonzero(~np.isnan(whole)):
        if steps is None or np.isnan(out[j]):
            out[j] = whole[j] if not np.isnan(level[j]) else out[j]
        elif not (out[j] > 0 and abs(out[j] / whole[j] - round(out[j] / whole[j])) < 1e-9):
            kind, what = ("level", "levels") if not np.isnan(level[j]) else ("integer", "units")
            raise ValueError(
                f"steps[{j}] = {out[j]:g} for the {kind}-valued column {columns[j]!r}; it must be a whole number "
                f"of {what} ({whole[j]:g} each) so that the profile stays on whole {what}."
            )
    return out


def advice_room(problem) -> np.ndarray:
    """Per column, how far advice may move it in the direction that raises the margin (encoded units).

    From :meth:`Encoder.advice_bounds <recourselab.features.Encoder.advice_bounds>`:
    0 where advice never moves the column or only the other way, its
    ``max_change`` where capped, inf otherwise.
    """
    low, high = problem.encoder.advice_bounds()
    coef = problem.coef
    room = np.where(coef > 0, high, np.where(coef < 0, -low, 0.0))
    return np.maximum(room, 0.0)


def setup_rerank(X, groups, *, coef, intercept, weights, steps, protected_group, immutable, bounds, tolerance,
                 max_steps, encoder, actionable) -> Setup:
    """Parse and check a re-ranking's arguments; rank the rows by their closed-form (relaxed) cost."""
    problem = _linear.parse_problem(X, coef, intercept, weights, encoder=encoder, immutable=immutable, bounds=bounds)
    actionable = check_actionable(actionable, encoder)
    steps = default_steps(problem, steps, actionable)
    max_steps = check_int(max_steps, "max_steps", minimum=1)
    t = check_tolerance(tolerance)
    n = problem.A.shape[0]
    check_aligned(X, "X", groups=groups)
    codes, labels = group_codes(groups, n)
    P = np.array(protected_codes(protected_group, labels), dtype=int)
    p = np.bincount(codes, minlength=len(labels))[P] / n
    engine = Engine(problem, steps, max_steps, advice_room(problem) if actionable else None)
    stuck = np.flatnonzero(~np.isfinite(engine.cost0))
    if stuck.size:
        raise ValueError(
            f"{stuck.size} of {n} rows (first positions {stuck[:5].tolist()}) cannot reach the favourable side with "
            "any move the actionability model allows (recourse cost inf), so group mean costs are undefined. Rank "
            "the others: keep = np.isfinite(linear_recourse(X, coef, intercept, weights, encoder=..., "
            "actionable=False).cost), and report the rows without recourse separately."
        )
    rank0 = np.lexsort((np.arange(n), engine.cost0))  # ascending cost, ties by row index
    return Setup(problem, engine, codes, labels, P, p, p * t, t, rank0, actionable)


def modified_rows(A, new_rows: dict):
    """X_new (a copy of A with the modified rows) and the changed mask."""
    X_new = A.copy()
    changed = np.zeros(len(A), dtype=bool)
    for y, xr in new_rows.items():
        X_new[y] = xr
        changed[y] = True
    return X_new, changed


def advice_check(setup: Setup, X_new, changed):
    """The result's ``advice`` label and per-row ``actionable`` flags (NA: no encoder, or no modification)."""
    problem = setup.problem
    flags = pd.array([pd.NA] * len(changed), dtype="boolean")
    if problem.encoder is None:
        return "relaxation", flags
    if changed.any():
        ok = problem.encoder.actionable(problem.A[changed], X_new[changed])
        flags[np.flatnonzero(changed)] = ok
        if setup.actionable and not ok.all():
            warnings.warn(f"{int((~ok).sum())} modifications are not actionable although actionable=True (first "
                          f"row {int(np.flatnonzero(changed)[~ok][0])}): the input rows are not on whole levels; "
                          "the result is labelled advice='relaxation'.", stacklevel=3)
    passes = bool(flags[changed].all()) if changed.any() else True
    return ("actionable" if passes else "relaxation"), flags


def interventions(records, setup: Setup, cost_new, flags) -> pd.DataFrame:
    """One line per (modified row, changed column); with an encoder, also the readable values and ``actionable``."""
    problem, engine = setup.problem, setup.engine
    A, columns, encoder = problem.A, problem.columns, problem.encoder
    F = list(engine.F)
    rows = []
    for y, cols, eff in records:
        x_new = A[y].copy()
        for j, k in zip(cols.tolist(), eff.tolist(), strict=True):
            x_new[j] += engine.signed_step[F.index(j)] * k
        if encoder is not None:
            readable = encoder.inverse_transform(np.vstack([A[y], x_new]))
        for j, k in zip(cols.tolist(), eff.tolist(), strict=True):
            if k == 0:
                continue
            line = {"row": int(y), "feature": columns[j], "before": float(A[y, j]), "after": float(x_new[j]),
                    "steps": int(k), "cost_before": float(engine.cost0[y]), "cost_after": float(cost_new[y])}
            if encoder is not None:
                name = encoder.spec_of_column(int(j)).name
                line["value_before"], line["value_after"] = readable[name].iloc[0], readable[name].iloc[1]
                line["actionable"] = bool(flags[y])
            rows.append(line)
    names = ["row", "feature", "before", "after", "steps", "cost_before", "cost_after"]
    if encoder is not None:
        names[4:4] = ["value_before", "value_after"]
        names.append("actionable")
    return pd.DataFrame(rows, columns=names)


def as_like(X_new, X, index):
    """X_new as X came: a read-only array, or a DataFrame with X's index and columns."""
    if index is None:
        return frozen(X_new)
    return pd.DataFrame(X_new, index=index, columns=X.columns)


def common_fields(setup: Setup, X, X_new, changed, cost_new, records, beta, start) -> dict:
    """The fields every re-ranking result shares (see :class:`~recourselab.fair_ranking.RaguelResult`)."""
    advice, flags = advice_check(setup, X_new, changed)
    labels, P = setup.labels, setup.P
    return dict(
        X_new=as_like(X_new, X, setup.problem.index), cost=frozen(setup.engine.cost0), cost_new=frozen(cost_new),
        changed=frozen(changed), interventions=interventions(records, setup, cost_new, flags),
        groups=frozen(np.asarray(labels, dtype=object)[setup.codes]), protected_group=tuple(labels[i] for i in P),
        p={labels[i]: float(v) for i, v in zip(P, setup.p, strict=True)}, tolerance=setup.t, beta=beta,
        advice=advice, actionable=flags, cost_basis="relaxation", runtime=time.perf_counter() - start,
    )

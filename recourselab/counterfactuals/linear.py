"""Recourse to a linear boundary: the cheapest allowed move of each row to the favourable side.

For a **linear** model the counterfactual need not be an observed person:
:func:`linear_recourse` moves each row to the model's boundary by the cheapest
weighted move the actionability model allows, either in closed form (the
weighted projection onto a half-space inside a box, :mod:`._linear`) or by a
small mixed-integer programme per row in whole steps (levels of ordinal
features, units of integer features), in the spirit of
:cite:t:`ustun2019actionable` and RAGUEL's inverse classification
:cite:p:`haldar2022raguel`. The literal versions are in
:mod:`recourselab.counterfactuals.paper`.

With an encoder the answer is **actionable** by default: every move stays
within what advice may ask for (:meth:`Encoder.advice_bounds
<recourselab.features.Encoder.advice_bounds>`) and lands on whole levels and
whole units, so it passes :meth:`Encoder.actionable
<recourselab.features.Encoder.actionable>` and still flips the model after
decoding. ``actionable=False`` gives the **relaxation** (feasible moves,
fractional levels), labelled so in the result.
"""

from __future__ import annotations

import dataclasses
import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pulp
from tqdm.auto import tqdm

from .._mip import Deadline, check_time_limit, continuous, solve
from .._validation import check_bool, check_choice
from ..features import Encoder
from . import _linear

__all__ = ["LinearRecourse", "linear_recourse"]

LINEAR_STATUSES = ("favourable", "projected", "snapped", "optimal", "time limit", "not solved", "infeasible")


@dataclass(frozen=True, eq=False)
class LinearRecourse:
    """Counterfactuals of every row to a linear boundary and what they cost.

    Attributes
    ----------
    X_cf : ndarray or DataFrame, shape (n, d)
        The counterfactual rows (like ``X``: a float DataFrame with ``X``'s
        index and columns when ``X`` is a frame). Rows on the favourable side
        are unchanged; rows without a counterfactual are NaN.
    cost : ndarray, shape (n,)
        Weighted Euclidean cost :math:`\\sqrt{\\sum_j w_j \\Delta_j^2}` of the
        move (0 on the favourable side, ``inf`` where no allowed move reaches
        the boundary, NaN where the MIP was not solved).
    delta : ndarray, shape (n, d)
        ``X_cf - X`` (NaN without a counterfactual).
    status : ndarray of str, shape (n,)
        Per row: ``"favourable"`` (already on the favourable side, cost 0),
        ``"projected"`` (closed form), ``"snapped"`` (closed form moved onto
        whole levels and units, actionable), ``"optimal"`` / ``"time limit"``
        (MIP: proven, or the best found when the call's time limit ran out),
        ``"not solved"`` (MIP: the time limit ran out before this row) or
        ``"infeasible"`` (no allowed move reaches the favourable side).
    margin : ndarray, shape (n,)
        :math:`a^\\top x + b` of the original rows.
    objective : ndarray, shape (n,)
        The MIP's weighted-L1 objective :math:`\\sum_j \\sqrt{w_j} |\\Delta_j|`
        (NaN for rows the closed form solved and for rows not solved).
    method : str
    runtime : float
        Wall-clock seconds.
    advice : str
        ``"actionable"``: every counterfactual is advice a person could follow
        (within the encoder's advice bounds, on whole levels and units).
        ``"relaxation"``: the moves respect only the actionability box
        (feasibility): ordinal features may stop between levels, integer
        features at fractions, and advised directions and plausible-change
        caps are not enforced; without an encoder nothing is known about them.
    actionable : pandas BooleanArray, shape (n,)
        Per row, whether the counterfactual passes :meth:`Encoder.actionable
        <recourselab.features.Encoder.actionable>` (``<NA>`` without an encoder
        or without a counterfactual).
    """

    X_cf: object
    cost: np.ndarray
    delta: np.ndarray
    status: np.ndarray
    margin: np.ndarray
    objective: np.ndarray
    method: str
    runtime: float
    advice: str
    actionable: pd.arrays.BooleanArray

    @property
    def has_recourse(self) -> np.ndarray:
        """True where the row is favourable or has a counterfactual."""
        return np.isfinite(self.cost)

    def to_frame(self) -> pd.DataFrame:
        """One row per input row: margin, favourable side, cost, status, number of changed features, actionable."""
        index = self.X_cf.index if isinstance(self.X_cf, pd.DataFrame) else None
        missing = np.isnan(self.delta).any(axis=1)
        changed = pd.arrays.IntegerArray(np.count_nonzero(np.nan_to_num(self.delta) != 0, axis=1), missing)
        return pd.DataFrame(
            {"margin": self.margin, "favourable": self.margin >= 0, "cost": self.cost,
             "status": self.status, "n_changed": changed, "actionable": self.actionable},
            index=index,
        )

    def __repr__(self) -> str:
        statuses = pd.Series(self.status).value_counts().to_dict()
        return f"LinearRecourse(method={self.method!r}, advice={self.advice!r}, n={len(self.cost)}, " \
               f"statuses={statuses})"


def linear_recourse(X, coef, intercept, weights=None, *, encoder: Encoder | None = None, immutable=None,
                    bounds=None, steps=None, method: str = "closed_form", actionable: bool | None = None,
                    time_limit: float = 60.0, progress: bool = False) -> LinearRecourse:
    """Cheapest allowed move of every row to the favourable side of a linear classifier.

    A row is favourable when :math:`a^\\top x + b \\ge 0`; it then costs 0.
    Otherwise its counterfactual :math:`x' = x + \\Delta` minimises the
    weighted Euclidean cost :math:`\\sqrt{\\sum_j w_j \\Delta_j^2}` subject to
    :math:`a^\\top x' + b \\ge \\tau` and the **actionability box**
    :math:`l_j(x) \\le x'_j \\le u_j(x)`. The margin :math:`\\tau =
    10^{-9}(1 + |b| + \\sum_j |a_j|)` (both methods aim at it) is a hair inside
    the favourable side, so that the model's own arithmetic, which sums in
    another order, cannot refuse the counterfactual by a rounding error; a row
    that can reach the boundary but not :math:`\\tau` moves as far as its box
    allows.

    The box:

    * with ``encoder`` (rows in the encoder's encoded space), the feature
      specs: immutable features and the one-hot columns of categorical
      features stay fixed, ``increase`` features may only rise and
      ``decrease`` features only fall, and every encoded column stays in
      [0, 1], the encoder's range of valid values. With ``actionable`` (the
      default with an encoder) the box is narrowed to what advice may ask for
      (:meth:`Encoder.advice_bounds
      <recourselab.features.Encoder.advice_bounds>`: features never advised
      stay fixed, the advised direction, the ``max_change`` caps);
    * ``immutable`` and ``bounds`` add constraints (for raw arrays without an
      encoder they are the only ones). A row whose value already lies outside
      ``bounds`` may stay there or move back towards the bounds, not further out.

    Methods:

    * ``"closed_form"`` (default): the exact weighted projection onto the
      half-space inside the box. Every coordinate is
      :math:`x'_j = \\operatorname{clip}(x_j + \\lambda a_j / w_j, l_j, u_j)`
      for one multiplier :math:`\\lambda \\ge 0`, found exactly by a sorted
      breakpoint search, vectorised over rows. Without binding bounds this is
      the textbook projection
      :math:`\\Delta = -(a^\\top x + b - \\tau)\\, W^{-1} a / (a^\\top W^{-1} a)`.
      The projection is continuous: ordinal and binary features may stop
      between two levels and integer features (age, months) at fractions. As
      a *relaxation* (``actionable=False``) it is returned as is. As
      *actionable* advice each moved discrete value is then rounded onwards to
      the next whole level or unit (:meth:`Encoder.snap_to_levels
      <recourselab.features.Encoder.snap_to_levels>`: the margin can only
      grow) and the result re-checked (box, margin, :meth:`Encoder.actionable
      <recourselab.features.Encoder.actionable>`); a row that fails the check
      is solved by the MIP instead. The snapped point is actionable but not
      always the cheapest one on the grid (``method="mip"`` is).
    * ``"mip"``: the inverse classification of :cite:t:`haldar2022raguel`,
      after :cite:t:`ustun2019actionable`: integer numbers of ``steps`` per
      feature, the same box and margin, and the weighted-L1 proxy objective
      (see Notes). One MIP per unfavourable row, solved by CBC; ``time_limit``
      bounds the whole call. The default steps are one level of every ordinal
      and binary feature, and with ``actionable`` also one unit of every
      continuous feature stored as integers; other features move continuously.

    Either way an actionable counterfactual lies on whole levels and units, so
    decoding it (which rounds integer features) gives the same point and the
    model still approves it; a relaxed one may not survive decoding.

    Rows that no allowed move can bring to the favourable side get cost
    ``inf``, NaN counterfactuals and status ``"infeasible"``; nothing ever
    breaks the box.

    Parameters
    ----------
    X : array or DataFrame of shape (n, d)
        Numeric features; with ``encoder``, encoded rows
        (``encoder.transform(frame)``; a DataFrame must have the encoder's
        column names, in its order).
    coef : array of shape (d,), or dict/Series by column name
        Coefficients :math:`a` (e.g. a logistic regression's ``coef_``).
    intercept : float
        :math:`b` (e.g. ``intercept_``; the decision boundary of a probability
        threshold :math:`t` has :math:`b - \\operatorname{logit}(t)`).
    weights : float, array of shape (d,), or dict/Series, optional
        Recourse weights :math:`w_j > 0` on mutable features (``inf`` marks a
        feature immutable). Default: the specs' ``weight`` with an encoder,
        else 1.
    encoder : Encoder, optional
        The fitted encoder of ``X``; its specs define the box.
    immutable : list of column names or positions, or bool mask, optional
    bounds : (lower, upper) or dict {feature: (lower, upper)}, optional
        Constant bounds on the counterfactual (None = unbounded).
    steps : float, array of shape (d,), or dict/Series, optional
        Step sizes for ``method="mip"`` (NaN = continuous, or the default step).
    method : {"closed_form", "mip"}
    actionable : bool, optional
        Default: True with an encoder (advice, ``advice="actionable"``), False
        without one (there are no specs to check advice against:
        ``advice="relaxation"``). True without an encoder is an error.
    time_limit : float, default 60
        Seconds for the whole call's MIPs: rows still waiting when it runs out
        get status ``"not solved"`` (NaN cost), and a row whose solve it stops
        keeps its best solution (status ``"time limit"``).
    progress : bool, default False
        Progress bar over the MIP rows.

    Returns
    -------
    LinearRecourse

    Notes
    -----
    *The MIP objective.* CBC solves linear programmes, and the weighted
    Euclidean cost is quadratic. The MIP minimises the weighted-L1 proxy
    :math:`\\sum_j \\sqrt{w_j}\\,|\\Delta_j|` (an upper bound of the L2 cost,
    equal to it when one feature moves) and reports the **true weighted-L2
    cost** of the point it finds (``cost``) next to the proxy
    (``objective``). Without discrete steps its L2 cost is therefore at least
    the closed form's, and equal to it when a single feature can move.

    Examples
    --------
    The RAGUEL paper's Example 1 (loan amount and duration; favourable when
    duration >= 2 x amount):

    >>> import numpy as np
    >>> X = np.array([[3.5, 6], [2, 1], [4, 4], [5, 4]])
    >>> res = linear_recourse(X, coef=[-2, 1], intercept=0, weights=[0.5, 1.0])
    >>> res.cost.round(2).tolist(), res.advice      # no encoder: no levels or advice policy to enforce
    ([0.33, 1.0, 1.33, 2.0], 'relaxation')
    >>> res.X_cf.round(2).tolist()[0]
    [3.06, 6.11]

    If the duration may not exceed 4 years, the last two applicants must cut
    the loan amount to 2 instead (Abdul, already at 6, may keep his duration but
    not extend it); with a smallest loan of 2.5 they cannot be approved at all:

    >>> capped = linear_recourse(X, [-2, 1], 0, [0.5, 1.0], bounds={"x1": (None, 4)})
    >>> capped.X_cf.round(2).tolist(), capped.cost.round(2).tolist()
    ([[3.0, 6.0], [0.67, 1.33], [2.0, 4.0], [2.0, 4.0]], [0.35, 1.0, 1.41, 2.12])
    >>> linear_recourse(X, [-2, 1], 0, [0.5, 1.0], bounds={"x0": (2.5, None), "x1": (None, 4)}).status.tolist()
    ['projected', 'projected', 'infeasible', 'infeasible']
    """
    start = time.perf_counter()
    method = check_choice(method, "method", ("closed_form", "mip"))
    time_limit = check_time_limit(time_limit)
    problem, actionable = _parse(X, coef, intercept, weights, encoder, immutable, bounds, actionable)
    if method == "closed_form" and steps is not None:
        raise ValueError("steps are only used by method='mip'; the closed form is the continuous projection. "
                         "Pass method='mip' for integer steps, or drop steps.")
    step = _mip_steps(steps, problem, actionable)
    s = _linear.margin(problem.A, problem.coef, problem.intercept)
    if method == "closed_form":
        delta, cost, status = _closed_form(problem)
        if actionable:
            _snap_to_whole_steps(problem, s, delta, cost, status)
        todo = np.flatnonzero(status == "not solved")
    else:
        n, d = problem.A.shape
        delta, cost = np.zeros((n, d)), np.zeros(n)
        status = np.where(s >= 0, "favourable", "not solved").astype(object)
        todo = np.flatnonzero(s < 0)
    objective = np.full(len(s), np.nan)
    if todo.size:
        _solve_rows(problem, s, todo, step, time_limit, progress, delta, cost, status, objective, actionable)
        _warn_about_mip_rows(status, cost, todo, time_limit)
    return _result(X, problem, s, delta, cost, status, objective, method, actionable, start)


def _parse(X, coef, intercept, weights, encoder, immutable, bounds, actionable):
    """The parsed problem (its box narrowed to the advice bounds when actionable) and the ``actionable`` switch."""
    problem = _linear.parse_problem(X, coef, intercept, weights, encoder=encoder, immutable=immutable, bounds=bounds)
    if actionable is None:
        actionable = encoder is not None
    actionable = check_bool(actionable, "actionable")
    if actionable and encoder is None:
        raise ValueError("actionable=True needs the encoder: advice is checked against its specs (whole levels, "
                         "advised directions, plausible changes). Pass encoder=..., or actionable=False for the "
                         "relaxation.")
    if actionable:
        problem = dataclasses.replace(problem, box=_linear.advice_box(problem.box, encoder))
    return problem, actionable


def _closed_form(problem: _linear.LinearProblem):
    """The projection of every row: delta, cost, and status ``favourable`` / ``projected`` / ``infeasible``."""
    delta, cost, s, reachable = _linear.closed_form(problem)
    status = np.where(s >= 0, "favourable", np.where(reachable, "projected", "infeasible")).astype(object)
    return delta, cost, status


def _snap_to_whole_steps(problem, s, delta, cost, status) -> None:
    """Round the projected rows onwards to whole levels and units; rows that then fail a check go to the MIP.

    Updates ``delta``, ``cost`` and ``status`` in place: ``"snapped"`` where the
    rounding moved the row, ``"projected"`` where it was already whole,
    ``"not solved"`` (to be solved by the MIP) where the rounded row leaves the
    box, falls short of the margin it had, or is not actionable.
    """
    rows = np.flatnonzero(status == "projected")
    if not rows.size:
        return
    A = problem.A[rows]
    projected = A + delta[rows]
    # columns the box fixes (categories among them) keep their value: snap_to_levels only has to round the others
    snapped = np.where(problem.box.fixed, A, problem.encoder.snap_to_levels(A, projected))
    lower, upper = problem.box.bounds(A)
    goal = np.minimum(_linear.margin(projected, problem.coef, problem.intercept), problem.slack)
    ok = ((snapped >= lower - 1e-12) & (snapped <= upper + 1e-12)).all(axis=1)
    ok &= _linear.margin(snapped, problem.coef, problem.intercept) >= goal
    ok &= problem.encoder.actionable(A, snapped)
    moved = ok & (np.abs(snapped - projected) > 0).any(axis=1)
    step = snapped - A
    delta[rows[ok]] = step[ok]
    cost[rows[ok]] = np.sqrt(np.sum(np.where(problem.usable, problem.weights, 0.0) * step[ok] ** 2, axis=1))
    status[rows[moved]] = "snapped"
    delta[rows[~ok]] = np.nan
    cost[rows[~ok]] = np.nan
    status[rows[~ok]] = "not solved"


def _mip_steps(steps, problem: _linear.LinearProblem, actionable: bool) -> np.ndarray:
    """Step sizes per column: the user's, or the whole steps of the encoder's discrete columns.

    A discrete column (a level, or with ``actionable`` a unit of an integer feature) takes a whole number
    of its steps; NaN means continuous.
    """
    columns = problem.columns
    step = np.full(len(columns), np.nan) if steps is None else _linear.per_feature(steps, "steps", columns,
                                                                                   fill=np.nan)
    if problem.encoder is not None:
        whole = _linear.unit_steps(problem.encoder) if actionable else _linear.level_steps(problem.encoder)
        for j in np.flatnonzero(~np.isnan(whole)):
            if np.isnan(step[j]):
                step[j] = whole[j]
            elif not (step[j] > 0 and abs(step[j] / whole[j] - round(step[j] / whole[j])) < 1e-9):
                raise ValueError(
                    f"steps[{j}] = {step[j]:g} for the discrete column {columns[j]!r}; it must be a whole number "
                    f"of its steps ({whole[j]:g} each: a level, or one unit), or NaN for one step."
                )
    for j in np.flatnonzero(problem.usable):
        if not (np.isnan(step[j]) or (np.isfinite(step[j]) and step[j] > 0)):
            raise ValueError(f"steps[{j}] = {step[j]:g} for {columns[j]!r}; steps must be > 0 (NaN = continuous).")
    return step


def _solve_rows(problem, s, rows, step, time_limit, progress, delta, cost, status, objective, actionable) -> None:
    """One MIP per row in ``rows`` within the call's time limit; fills the result arrays in place.

    With ``actionable`` the MIP also leaves out every move into a level a spec never advises
    (:func:`_never_moves`)."""
    usable = problem.usable
    lower, upper = problem.box.bounds(problem.A)
    w = problem.weights
    sqrt_w = np.sqrt(np.where(usable, w, 1.0))
    delta[rows] = np.nan
    cost[rows] = np.nan
    status[rows] = "not solved"
    deadline = Deadline(time_limit)
    for i in tqdm(rows, disable=not progress, desc="rows", unit="row"):
        if deadline.expired:
            break
        never = _never_moves(problem.encoder, problem.A[i], step, usable) if actionable else {}
        st_i, dl, obj = _recourse_mip(problem.A[i], s[i], problem.coef, usable, sqrt_w, step, lower[i], upper[i],
                                      deadline.remaining(), int(i), problem.slack, never)
        status[i] = st_i
        if dl is None:
            cost[i] = np.inf if st_i == "infeasible" else np.nan
        else:
            delta[i] = dl
            cost[i] = float(np.sqrt(np.sum(np.where(usable, w, 0.0) * dl * dl)))
            objective[i] = obj


def _warn_about_mip_rows(status, cost, rows, time_limit) -> None:
    """Warn about MIP rows stopped by the time limit and about rows without any allowed counterfactual."""
    st, c = status[rows], cost[rows]
    unsolved = int(np.count_nonzero((st == "not solved") | ((st == "time limit") & np.isnan(c))))
    limited = int(np.count_nonzero((st == "time limit") & np.isfinite(c)))
    if unsolved or limited:
        warnings.warn(
            f"time_limit={time_limit:g} s ran out: {limited} row(s) keep the best counterfactual found "
            f"(status 'time limit', not proven optimal) and {unsolved} row(s) have none (NaN cost). "
            "Raise time_limit, or use method='closed_form'.", stacklevel=3)
    infeasible = int(np.count_nonzero(st == "infeasible"))
    if infeasible:
        warnings.warn(
            f"{infeasible} rows cannot reach the favourable side with the allowed moves and steps "
            "(status 'infeasible', cost inf).", stacklevel=3)


def _frozen(a) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


def _result(X, problem, s, delta, cost, status, objective, method, actionable, start) -> LinearRecourse:
    """The frozen result: counterfactual rows like ``X``, per-row actionability, the advice label."""
    X_cf = problem.A + delta
    found = np.isfinite(cost)
    flags = np.zeros(len(cost), dtype=bool)
    if problem.encoder is not None and found.any():
        flags[found] = problem.encoder.actionable(problem.A[found], X_cf[found])
    known = found if problem.encoder is not None else np.zeros(len(cost), dtype=bool)
    if problem.index is not None:
        X_cf = pd.DataFrame(X_cf, index=problem.index, columns=X.columns)
    return LinearRecourse(
        X_cf=X_cf if isinstance(X_cf, pd.DataFrame) else _frozen(X_cf),
        cost=_frozen(cost), delta=_frozen(delta), status=_frozen(status.astype(str)),
        margin=_frozen(s), objective=_frozen(objective), method=method,
        runtime=time.perf_counter() - start, advice="actionable" if actionable else "relaxation",
        actionable=pd.arrays.BooleanArray(flags, ~known),
    )


# --------------------------------------------------------------------------- one row's MIP


def _bounded(prob, name, low, up, cat):
    low = None if not np.isfinite(low) else float(low)
    up = None if not np.isfinite(up) else float(up)
    if hasattr(prob, "add_variable"):  # PuLP >= 3.3
        return prob.add_variable(name, low, up, cat=cat)
    return pulp.LpVariable(name, low, up, cat=cat)


def _never_moves(encoder, x, step, usable) -> dict:
    """Per usable ordinal column of the row ``x``: the whole numbers of steps that land on a level its spec never
    advises (``never_advise_levels``; the row's own level is allowed). Categorical columns are fixed in the MIP."""
    out = {}
    for spec in encoder.specs_:
        j = encoder.slices_[spec.name].start
        if spec.kind != "ordinal" or not spec.never_advise_levels or not usable[j] or np.isnan(step[j]):
            continue
        levels = encoder.levels_[spec.name]
        per_level = 1.0 / max(len(levels) - 1, 1)
        own, stride = round(x[j] / per_level), round(step[j] / per_level)  # a step is a whole number of levels
        gaps = [levels.index(level) - own for level in spec.never_advise_levels]
        out[j] = [gap // stride for gap in gaps if gap != 0 and gap % stride == 0]
    return {j: moves for j, moves in out.items() if moves}


def _recourse_mip(x, s, a, usable, sqrt_w, step, lower, upper, time_limit, row, slack, never=None):
    """One row's inverse classification: min sum sqrt(w)|delta| s.t. a.(x + delta) + b >= slack, steps, box.

    ``slack`` is the margin the closed form aims at too (:attr:`LinearProblem.slack`): it keeps the point on
    the favourable side in the model's own arithmetic; a row that reaches the boundary but not the slack is
    solved against the boundary itself. CBC accepts a constraint violated by up to 1e-7, more than the
    slack, so a solution in whole steps that stops short of it (a grid point on the boundary) is solved
    again with the goal raised past CBC's tolerance; if nothing reaches that, the first solution stands.
    ``never`` maps a column to the whole numbers of steps it may not take (a level never advised).
    """
    usable_j = np.flatnonzero(usable)
    if not usable_j.size:
        return "infeasible", None, math.nan
    deadline = Deadline(time_limit)
    reach = sum(abs(a[j]) * ((upper[j] - x[j]) if a[j] > 0 else (x[j] - lower[j])) for j in usable_j)
    goal = slack - float(s) if reach >= slack - float(s) else -float(s)
    first = None
    for aim in (goal, goal + 1e-6 * (1.0 + abs(goal))):
        prob, moves, scale = _mip_model(x, a, usable_j, sqrt_w, step, lower, upper, row, aim, never or {})
        status, has = solve(prob, max(deadline.remaining(), 0.01))
        if not has:
            break
        delta, reached = _mip_solution(x, a, moves, scale, step, lower, upper, goal)
        first = first or (status, delta)
        if reached or deadline.expired:
            break
    if first is None:
        return status, None, math.nan
    status, delta = (status, delta) if has else first
    return status, delta, float(np.sum(sqrt_w * np.abs(delta)))


def _mip_model(x, a, usable_j, sqrt_w, step, lower, upper, row, goal, never):
    """The MIP of one row: a move per usable column (whole steps or continuous) in the box, its size, the goal.

    A number of steps ``v`` in ``never[j]`` is cut out of column j's range by one binary ``b``:
    ``n_j <= v - 1 + M b`` and ``n_j >= v + 1 - M (1 - b)`` (below ``v`` or above it)."""
    prob = pulp.LpProblem(f"recourse_row_{row}", pulp.LpMinimize)
    moves, absval, scale = {}, {}, {}
    tol = _linear.SLACK
    for j in usable_j:
        if np.isnan(step[j]):
            moves[j] = _bounded(prob, f"d_{j}", lower[j] - x[j], upper[j] - x[j], "Continuous")
            scale[j] = 1.0
        else:
            lo = math.ceil((lower[j] - x[j]) / step[j] - tol) if np.isfinite(lower[j]) else -np.inf
            hi = math.floor((upper[j] - x[j]) / step[j] + tol) if np.isfinite(upper[j]) else np.inf
            moves[j] = _bounded(prob, f"n_{j}", min(lo, 0), max(hi, 0), "Integer")
            scale[j] = float(step[j])
        for k, v in enumerate(never.get(j, ())):
            big = float(abs(v) + 2 + (abs(lo) if np.isfinite(lo) else 0) + (abs(hi) if np.isfinite(hi) else 0))
            side = _bounded(prob, f"b_{j}_{k}", 0, 1, "Binary")
            prob += (moves[j] <= v - 1 + big * side, f"never_below_{j}_{k}")
            prob += (moves[j] >= v + 1 - big * (1 - side), f"never_above_{j}_{k}")
        absval[j] = continuous(prob, f"t_{j}", 0.0)
        prob += (absval[j] >= scale[j] * moves[j], f"abs_pos_{j}")
        prob += (absval[j] >= -scale[j] * moves[j], f"abs_neg_{j}")
    prob += pulp.lpSum(float(sqrt_w[j]) * absval[j] for j in moves)
    prob += (pulp.lpSum(float(a[j]) * scale[j] * moves[j] for j in moves) >= goal, "favourable")
    return prob, moves, scale


def _mip_solution(x, a, moves, scale, step, lower, upper, goal):
    """The solved move (whole steps rounded, continuous moves put back in the box and nudged up to the goal),
    and whether it reaches the goal."""
    delta = np.zeros(len(x))
    for j, var in moves.items():
        value = var.value() or 0.0
        delta[j] = scale[j] * (round(value) if not np.isnan(step[j]) else value)
    # a continuous value a hair past its bound (CBC's rounding) is put back on the bound
    delta = np.clip(delta, lower - x, upper - x)
    # CBC reports continuous values to about 7 digits: nudge continuous moves that still have room in the
    # helpful direction until the point reaches its goal (the nudge is of the order of that rounding)
    reached = float(np.dot(a, delta)) >= goal
    for j in sorted((j for j in moves if np.isnan(step[j])), key=lambda c: -abs(a[c])):
        short = goal - float(np.dot(a, delta))
        if reached or short <= 0:
            reached = True
            break
        room = (upper[j] - x[j] - delta[j]) if a[j] > 0 else (delta[j] - (lower[j] - x[j]))
        if room > 0:
            delta[j] += np.sign(a[j]) * min(short / abs(a[j]) * (1 + 1e-12), room)
            reached = room >= short / abs(a[j])  # (the sum may still round a hair below the goal)
    return delta, reached

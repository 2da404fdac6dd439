"""The MIPs of FACEGroup's two problems (Eqs. (1)-(4), (6), (7)), built for PuLP and solved with CBC.

Private: :func:`~recourselab.group_counterfactuals.max_coverage` and
:func:`~recourselab.group_counterfactuals.min_max_cost` call them with
``method="mip"``. Their optimum equals the brute-force enumeration of
:func:`~recourselab.group_counterfactuals.paper.exact_max_coverage` and
:func:`~recourselab.group_counterfactuals.paper.exact_min_max_cost` (tested).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pulp

from .._mip import Deadline, binary, continuous, solve, time_limit_message


class _OutOfTime(Exception):
    """The deadline passed while a MIP was being built (no solve is started)."""


_BUILD_CHUNK = 1_000  # variables or constraints added between two looks at the deadline while a model is built


def _stop_if_expired(deadline: Deadline | None, done: int) -> None:
    """Raise :class:`_OutOfTime` if the deadline has passed (looked at every ``_BUILD_CHUNK`` steps)."""
    if deadline is not None and done % _BUILD_CHUNK == 0 and deadline.expired:
        raise _OutOfTime


def _add_assignment_constraints(prob, rows, cols, k, prefix, deadline=None):
    """Variables r (one per allowed pair) and u (one per useful candidate); Eqs. (1)-(4).

    Building a model with millions of pairs takes minutes in PuLP, time CBC's
    own limit does not count, so the deadline is checked every ``_BUILD_CHUNK``
    pairs and :class:`_OutOfTime` raised once it has passed.
    """
    r = []
    for t, (i, j) in enumerate(zip(rows.tolist(), cols.tolist(), strict=True)):
        _stop_if_expired(deadline, t)
        r.append(binary(prob, f"r_{i}_{j}"))
    used = np.unique(cols)
    u = {int(j): binary(prob, f"u_{j}") for j in used}
    prob += (pulp.lpSum(u.values()) <= k, f"{prefix}1_at_most_k")
    breaks = np.flatnonzero(np.diff(rows)) + 1
    for b, block in enumerate(np.split(np.arange(len(rows)), breaks)):
        _stop_if_expired(deadline, b)
        if len(block):
            prob += (pulp.lpSum(r[t] for t in block) <= 1, f"{prefix}2_one_cf_{rows[block[0]]}")
    for t, j in enumerate(cols.tolist()):
        _stop_if_expired(deadline, t)
        prob += (r[t] <= u[j], f"{prefix}3_{t}")
    return r, u, used


def _solve_by(prob: pulp.LpProblem, deadline: Deadline) -> tuple[str, bool]:
    """Solve with CBC in the time left before the deadline; no solve once it has passed."""
    left = deadline.remaining()
    if left <= 0:
        return "time limit", False
    return solve(prob, left)


def _mip_max_coverage(C, k, d, deadline):
    """Eqs. (1)-(4) with r only for pairs within d; returns (selected, status, message)."""
    rows, cols = np.nonzero(C <= d)  # row-major: rows ascending
    if len(rows) == 0:
        return [], "optimal", None
    if deadline.expired:  # not even worth building the model
        return [], "time limit", time_limit_message(deadline.seconds, False)
    prob = pulp.LpProblem("FACEGroup_max_coverage", pulp.LpMaximize)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=DeprecationWarning, module="pulp")
            r, u, used = _add_assignment_constraints(prob, rows, cols, k, "eq", deadline)
            prob += pulp.lpSum(r)
    except _OutOfTime:
        return [], "time limit", time_limit_message(deadline.seconds, False)
    status, has_solution = _solve_by(prob, deadline)
    selected = [j for j in used.tolist() if has_solution and (u[j].varValue or 0) > 0.5]
    message = time_limit_message(deadline.seconds, has_solution) if status == "time limit" else None
    return selected, status, message


def _mip_min_max_cost(C, k, need, deadline, upper=math.inf):
    """Minimise d s.t. Eqs. (1)-(4), (6), (7); returns (selected, status, message).

    ``r`` exists only for pairs with a finite cost ``<= upper``, where ``upper``
    is the radius of a known selection (e.g. the greedy's): an optimal
    selection has radius ``<= upper``, so it assigns no factual beyond it, and
    leaving those pairs out changes no optimum while it shrinks the model.
    """
    if deadline.expired:  # not even worth building the model
        return [], "time limit", time_limit_message(deadline.seconds, False)
    rows, cols = np.nonzero(C <= upper)
    keep = np.isfinite(C[rows, cols])
    rows, cols = rows[keep], cols[keep]
    reach = C.min(axis=1)
    lower = float(np.partition(reach, need - 1)[need - 1])
    prob = pulp.LpProblem("FACEGroup_min_max_cost", pulp.LpMinimize)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=DeprecationWarning, module="pulp")
            radius = continuous(prob, "d", lower)  # the need-th smallest reach is a valid lower bound
            prob += radius
            r, u, used = _add_assignment_constraints(prob, rows, cols, k, "eq", deadline)
            breaks = np.flatnonzero(np.diff(rows)) + 1
            costs = C[rows, cols]
            for b, block in enumerate(np.split(np.arange(len(rows)), breaks)):
                _stop_if_expired(deadline, b)
                if len(block):
                    expr = pulp.lpSum(float(costs[t]) * r[t] for t in block)
                    prob += (expr <= radius, f"eq6_cost_{rows[block[0]]}")
            prob += (pulp.lpSum(r) >= need, "eq7_coverage")
    except _OutOfTime:
        return [], "time limit", time_limit_message(deadline.seconds, False)
    status, has_solution = _solve_by(prob, deadline)
    selected = [j for j in used.tolist() if has_solution and (u[j].varValue or 0) > 0.5]
    message = time_limit_message(deadline.seconds, has_solution) if status == "time limit" else None
    return selected, status, message

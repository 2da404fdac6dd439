"""FACEGroup: a few counterfactuals that explain a whole group.

FACEGroup :cite:p:`fragkathoulas2025facegroup` asks for a *small* set ``S`` of
counterfactuals, chosen among observed favourable instances ``X'``, that serves a
whole group ``X`` of unfavourably treated factuals. Everything here works on one
cost matrix ``C`` of shape ``(n_factuals, n_candidates)``: ``C[x, j]`` is the cost
of moving factual ``x`` to candidate ``j`` (e.g. a shortest-path cost on the
feasibility graph) and ``np.inf`` means that ``j`` is not reachable from ``x``.

With :math:`\\operatorname{cost}(x, S) = \\min_{j \\in S} C[x, j]` a factual is
*covered* by ``S`` within a threshold ``d`` when
:math:`\\operatorname{cost}(x, S) \\le d`, and the cost of a set is the largest
cost among the factuals it covers. The paper's two problems:

* **Problem 1, cost-constrained** (:func:`max_coverage`): with at most ``k``
  counterfactuals, cover as many factuals as possible within cost ``d``
  (maximum coverage; lazy greedy with the :math:`1 - 1/e` guarantee, or the
  MIP of Eqs. (1)-(4));
* **Problem 2, coverage-constrained** (:func:`min_max_cost`): with at most ``k``
  counterfactuals, cover at least a share ``c`` of the factuals at the smallest
  possible maximum cost (a partial k-supplier problem; farthest-first greedy with
  a binary search on the radius, or the MIP of Eqs. (1)-(4), (6), (7)).

Both have a *local* version that explains each subgroup (weakly connected
component of the feasibility graph) separately
(:func:`max_coverage_by_component`, :func:`min_max_cost_by_component`) and a way
to assemble the global answer from the local ones
(:func:`combine_max_coverage`, :func:`combine_min_max_cost` with
:func:`allocate_by_dp`).

All functions return a :class:`GroupCounterfactuals`. MIPs are solved with PuLP
and its bundled CBC, always with a time limit; a run stopped by the limit is
reported with status ``"time limit"`` (and a warning), never as optimal.
``time_limit`` bounds the *whole call*, also where a function solves several
MIPs (one per component, or one per table entry in
:func:`combine_min_max_cost`): each solve gets the time left, and once it has
run out no further MIP is started and the best solution so far is returned.
The bound can be overrun by one solve's excess: building and starting the
last model is not counted by CBC, and CBC checks its limit only between the
steps of its search, so the first LP of a large model can take longer (a
Problem 2 model on a 100 x 100 matrix took 3 s under a 1 s limit). A
function never starts another MIP after the limit has passed.
"""

from __future__ import annotations

import heapq
import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pulp
from scipy import sparse
from tqdm.auto import tqdm

from .._mip import Deadline, binary, check_time_limit, continuous, solve, time_limit_message
from .._validation import check_cost_matrix, check_int, check_labels, check_real, check_rng, plain
from ..counterfactuals.recourse import NO_COUNTERFACTUAL as _NONE

__all__ = [
    "GroupCounterfactuals",
    "max_coverage",
    "min_max_cost",
    "max_coverage_by_component",
    "min_max_cost_by_component",
    "combine_max_coverage",
    "combine_min_max_cost",
    "allocate_by_dp",
]

METHODS = ("greedy", "mip")
STATUSES = ("optimal", "time limit", "infeasible", "greedy")
# factual rows per chunk when scanning C for finite entries across components
_CELLS_PER_CHUNK = 2_000_000


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class GroupCounterfactuals:
    """A selected set of group counterfactuals and how it serves the factuals.

    Attributes
    ----------
    selected : ndarray of int
        Column indices of ``C`` of the chosen counterfactuals: in the order the
        greedy chose them, ascending for the MIP and for
        :func:`combine_min_max_cost`.
    assignment : ndarray of int, shape (n_rows,)
        For each factual (row of ``C``) the column of the cheapest selected
        counterfactual that covers it, ties to the lower column index;
        :data:`~recourselab.counterfactuals.NO_COUNTERFACTUAL` when the factual
        is not covered (or lies outside ``in_scope``): a value numpy refuses as
        an index, so ``candidates[assignment]`` cannot pick a row by mistake.
    coverage : int
        Number of covered factuals, ``(assignment >= 0).sum()``.
    cost : float
        Largest cost among the covered factuals,
        ``max(C[x, assignment[x]])``; 0.0 when nothing is covered, except for
        Problem 2 without a selection (infeasible, or a MIP stopped before it
        found one), where it is ``inf``.
    status : str
        ``"optimal"`` (MIP proven optimal), ``"time limit"`` (MIP stopped by its
        time limit: best solution found, not proven), ``"infeasible"`` (the
        requested coverage cannot be reached, or the greedy could not reach it)
        or ``"greedy"``.
    runtime : float
        Wall-clock seconds (``time.perf_counter``).
    problem : str
        ``"max_coverage"`` (Problem 1) or ``"min_max_cost"`` (Problem 2).
    parameters : dict
        The arguments that define the instance (``k``, ``d`` or ``c``,
        ``method`` ...), as plain Python values.
    assigned_cost : ndarray of float, shape (n_rows,)
        ``C[x, assignment[x]]`` for covered factuals, ``inf`` otherwise.
    in_scope : ndarray of bool, shape (n_rows,)
        Factuals the result is about: all rows for a global result, the rows of
        one component for a local one (see :func:`max_coverage_by_component`).

    Notes
    -----
    For Problem 1 a factual is covered when its cheapest selected
    counterfactual costs at most ``d``. For Problem 2 the *radius* of ``S`` is
    the smallest cost within which ``S`` covers the required number of
    factuals (the ``need``-th smallest :math:`\\operatorname{cost}(x, S)`); the
    covered factuals are those within the radius, so ``cost`` is the radius and
    ``coverage`` can exceed ``need`` when several factuals tie at the radius.
    Arrays are read-only.
    """

    selected: np.ndarray
    assignment: np.ndarray
    coverage: int
    cost: float
    status: str
    runtime: float
    problem: str
    parameters: dict
    assigned_cost: np.ndarray
    in_scope: np.ndarray

    @property
    def n_factuals(self) -> int:
        """Number of factuals the result is about (rows of ``C`` in scope)."""
        return int(np.count_nonzero(self.in_scope))

    @property
    def coverage_share(self) -> float:
        """``coverage / n_factuals`` (0.0 when there are no factuals in scope)."""
        n = self.n_factuals
        return self.coverage / n if n else 0.0

    @property
    def covered(self) -> np.ndarray:
        """Boolean mask of the covered factuals, ``assignment >= 0``."""
        return self.assignment >= 0

    def to_frame(self) -> pd.DataFrame:
        """One row per selected counterfactual: how many factuals it serves and at what cost.

        Returns
        -------
        pandas.DataFrame
            Columns ``candidate`` (column of ``C``), ``covered`` (factuals
            assigned to it), ``max_cost`` and ``mean_cost`` of their moves (NaN
            for a selected counterfactual that serves nobody, e.g. because every
            factual it reaches has a cheaper selected one).
        """
        sel = np.asarray(self.selected, dtype=int)
        mask = self.assignment >= 0
        assigned = self.assignment[mask]
        costs = self.assigned_cost[mask]
        position = {int(j): i for i, j in enumerate(sel)}
        slot = np.fromiter((position[int(j)] for j in assigned), dtype=int, count=len(assigned))
        covered = np.bincount(slot, minlength=len(sel))
        total = np.bincount(slot, weights=costs, minlength=len(sel))
        biggest = np.full(len(sel), -np.inf)
        np.maximum.at(biggest, slot, costs)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(covered > 0, total / np.maximum(covered, 1), np.nan)
        return pd.DataFrame(
            {
                "candidate": sel,
                "covered": covered,
                "max_cost": np.where(covered > 0, biggest, np.nan),
                "mean_cost": mean,
            }
        )

    def __repr__(self) -> str:
        sel = self.selected.tolist()
        shown = str(sel) if len(sel) <= 10 else str(sel[:10])[:-1] + ", ...]"
        return (
            f"GroupCounterfactuals(problem={self.problem!r}, selected={shown}, "
            f"coverage={self.coverage}/{self.n_factuals}, cost={self.cost:.4g}, status={self.status!r})"
        )


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    a.setflags(write=False)
    return a


def _cheapest(C: np.ndarray, selected) -> tuple[np.ndarray, np.ndarray]:
    """Cost of and column of each factual's cheapest selected candidate (ties: lower column)."""
    n = C.shape[0]
    sel = np.unique(np.asarray(selected, dtype=int))  # ascending: argmin's first hit = lower column
    if len(sel) == 0:
        return np.full(n, np.inf), np.full(n, _NONE, dtype=np.int64)
    block = C[:, sel]
    arg = np.argmin(block, axis=1)
    best = block[np.arange(n), arg]
    col = np.where(np.isfinite(best), sel[arg], _NONE)
    return best, col


def _build(C, order, covered, best, col, *, status, start, problem, parameters, cost=None):
    covered = covered & (col >= 0)
    assignment = np.where(covered, col, _NONE)
    assigned_cost = np.where(covered, best, np.inf)
    coverage = int(np.count_nonzero(covered))
    if cost is None:
        cost = float(assigned_cost[covered].max()) if coverage else 0.0
    return GroupCounterfactuals(
        selected=_frozen(np.asarray(order, dtype=int).reshape(-1)),
        assignment=_frozen(assignment.astype(np.int64)),
        coverage=coverage,
        cost=float(cost),
        status=status,
        runtime=time.perf_counter() - start,
        problem=problem,
        parameters=dict(parameters),
        assigned_cost=_frozen(assigned_cost.astype(float)),
        in_scope=_frozen(np.ones(C.shape[0], dtype=bool)),
    )


def _result_within(C, order, d, **kw) -> GroupCounterfactuals:
    """Problem 1: factuals whose cheapest selected candidate costs <= d are covered."""
    best, col = _cheapest(C, order)
    return _build(C, order, best <= d, best, col, problem="max_coverage", **kw)


def _radius(best: np.ndarray, need: int) -> float:
    """The need-th smallest cost(x, S): the smallest radius at which S covers need factuals."""
    if need <= 0:
        return 0.0
    if np.count_nonzero(np.isfinite(best)) < need:
        return math.inf
    return float(np.partition(best, need - 1)[need - 1])


def _result_radius(C, order, need, **kw) -> GroupCounterfactuals:
    """Problem 2: factuals within the radius of the selection are covered."""
    best, col = _cheapest(C, order)
    r = _radius(best, need)
    covered = best <= r if math.isfinite(r) else np.isfinite(best)
    return _build(C, order, covered, best, col, problem="min_max_cost", **kw)


def _lift(local: GroupCounterfactuals, rows, cols, n_rows, extra) -> GroupCounterfactuals:
    """Map a result on C[rows][:, cols] back to the global row and column indices."""
    assignment = np.full(n_rows, _NONE, dtype=np.int64)
    if len(cols):
        assignment[rows] = np.where(local.assignment >= 0, cols[np.maximum(local.assignment, 0)], _NONE)
    assigned_cost = np.full(n_rows, np.inf)
    assigned_cost[rows] = local.assigned_cost
    in_scope = np.zeros(n_rows, dtype=bool)
    in_scope[rows] = True
    return GroupCounterfactuals(
        selected=_frozen(cols[np.asarray(local.selected, dtype=int)]),
        assignment=_frozen(assignment),
        coverage=local.coverage,
        cost=local.cost,
        status=local.status,
        runtime=local.runtime,
        problem=local.problem,
        parameters={**local.parameters, **extra},
        assigned_cost=_frozen(assigned_cost),
        in_scope=_frozen(in_scope),
    )


# --------------------------------------------------------------------------- validation


def _check_k(k, n_candidates: int | None) -> int:
    k = check_int(k, "k")
    if k < 1:
        raise ValueError(f"k={k} must be at least 1; it is the number of counterfactuals to select.")
    if n_candidates is not None and k > n_candidates:
        raise ValueError(
            f"k={k} is larger than the {n_candidates} candidates (columns of C); use k <= {n_candidates}, "
            "which already allows selecting every candidate."
        )
    return k


def _check_d(d) -> float:
    value = check_real(d, "d")
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"d={d!r} must be a finite cost threshold >= 0 (a factual is covered within cost d).")
    return value


def _check_c(c) -> float:
    value = check_real(c, "c")
    if not 0 < value <= 1:
        raise ValueError(f"c={c!r} must lie in (0, 1]; it is the share of factuals to cover.")
    return value


def _check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(f"method={method!r} is not supported; use 'greedy' or 'mip'.")
    return method


def _need(c: float, n: int) -> int:
    """Factuals to cover for a share c of n (the 1e-9 absorbs round-off: 0.07 * 100 = 7.000000000000001)."""
    return max(1, math.ceil(c * n - 1e-9))


def _components(C: np.ndarray, factual_component, candidate_component):
    """Validate component labels; return [(label, rows, cols)] for components holding factuals."""
    n, m = C.shape
    labels_by_name = {}
    for name, labels, size, what in (
        ("factual_component", factual_component, n, "factual rows"),
        ("candidate_component", candidate_component, m, "candidate columns"),
    ):
        a = np.asarray(labels)
        if a.ndim != 1 or len(a) != size:
            raise ValueError(
                f"{name} has shape {a.shape} but C has {size} {what}; give one component label per "
                f"{what[:-1]} of C."
            )
        check_labels(labels, name, size, what=what[:-1])
        labels_by_name[name] = a
    fc, cc = labels_by_name["factual_component"], labels_by_name["candidate_component"]
    try:
        labels, codes = np.unique(np.concatenate([fc, cc]), return_inverse=True)
    except TypeError:
        raise TypeError("factual_component and candidate_component must hold labels of one sortable type.") from None
    fcode, ccode = codes[:n], codes[n:]
    chunk = max(1, _CELLS_PER_CHUNK // m)
    for start in range(0, n, chunk):
        block = C[start:start + chunk]
        bad = np.isfinite(block) & (fcode[start:start + chunk, None] != ccode[None, :])
        if bad.any():
            i, j = np.argwhere(bad)[0]
            i += start
            raise ValueError(
                f"C[{i}, {j}] = {C[i, j]} is finite but factual {i} is in component {plain(fc[i])!r} and "
                f"candidate {j} in component {plain(cc[j])!r}; costs across components must be np.inf "
                "(unreachable). "
                "Check the component labels or the cost matrix."
            )
    order_f = np.argsort(fcode, kind="stable")
    order_c = np.argsort(ccode, kind="stable")
    f_starts = np.searchsorted(fcode[order_f], np.arange(len(labels) + 1))
    c_starts = np.searchsorted(ccode[order_c], np.arange(len(labels) + 1))
    out = []
    for code, label in enumerate(labels):
        rows = order_f[f_starts[code]:f_starts[code + 1]]
        if len(rows) == 0:
            continue  # candidates only: nothing to explain there
        cols = order_c[c_starts[code]:c_starts[code + 1]]
        out.append((plain(label), rows, cols))
    return out


# --------------------------------------------------------------------------- MIP plumbing


def _model_pairs(mask: np.ndarray):
    """Pairs (x, j) that get an r variable, in row-major order (rows ascending)."""
    rows, cols = np.nonzero(mask)
    return rows, cols


class _OutOfTime(Exception):
    """The deadline passed while a MIP was being built (no solve is started)."""


_BUILD_CHUNK = 1_000  # variables or constraints added between two looks at the deadline while a model is built


def _check_building(deadline: Deadline | None, done: int) -> None:
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
        _check_building(deadline, t)
        r.append(binary(prob, f"r_{i}_{j}"))
    used = np.unique(cols)
    u = {int(j): binary(prob, f"u_{j}") for j in used}
    prob += (pulp.lpSum(u.values()) <= k, f"{prefix}1_at_most_k")
    breaks = np.flatnonzero(np.diff(rows)) + 1
    for b, block in enumerate(np.split(np.arange(len(rows)), breaks)):
        _check_building(deadline, b)
        if len(block):
            prob += (pulp.lpSum(r[t] for t in block) <= 1, f"{prefix}2_one_cf_{rows[block[0]]}")
    for t, j in enumerate(cols.tolist()):
        _check_building(deadline, t)
        prob += (r[t] <= u[j], f"{prefix}3_{t}")
    return r, u, used


# --------------------------------------------------------------------------- Problem 1


class _LazyCoverage:
    """Lazy greedy for maximum coverage on the sparse sets {x : C[x, j] <= d}.

    Keys are ``(-gain, total cost of the newly covered, label)``; as the covered
    set grows a candidate's key can only grow (its newly covered set shrinks, so
    its gain falls or, when the gain is unchanged, the set and its cost are the
    same), so a stale key is a lower bound and a fresh key at the top of the
    heap is the exact greedy choice (Minoux's lazy evaluation).
    """

    def __init__(self, C: np.ndarray, d: float, labels=None):
        n, m = C.shape
        mask = C <= d
        rows, cols = np.nonzero(mask)  # row-major; tocsc keeps every stored entry, zero costs included
        by_row = sparse.csr_array(
            (C[rows, cols], cols, np.concatenate(([0], np.cumsum(np.count_nonzero(mask, axis=1))))), shape=(n, m)
        )
        by_col = by_row.tocsc()  # rows ascending inside each column
        self.A = sparse.csc_array((np.ones(by_col.nnz, dtype=bool), by_col.indices, by_col.indptr), shape=(n, m))
        self.indptr, self.indices = self.A.indptr, self.A.indices
        self.pair_cost = by_col.data  # cost of each stored pair, aligned with A.indices
        labels = np.arange(m) if labels is None else np.asarray(labels)
        gains = np.diff(self.indptr)
        # the totals are sequential sums in stored order (a cumulative sum), here and on
        # re-evaluation, so the same set always gives bit-identical totals and ties
        totals = [float(self.pair_cost[lo:hi].cumsum()[-1]) if hi > lo else 0.0
                  for lo, hi in zip(self.indptr[:-1].tolist(), self.indptr[1:].tolist(), strict=True)]
        self.uncovered = np.ones(n, dtype=bool)
        self.n_coverable = int(np.count_nonzero(np.diff(by_row.indptr)))
        self.n_covered = 0
        self.round = 0
        self.heap = [(-int(gains[j]), totals[j], int(labels[j]), int(j), 0) for j in np.flatnonzero(gains)]
        heapq.heapify(self.heap)

    def peek(self):
        """The fresh best key ``(-gain, total, label, j, round)``, or None if nothing adds coverage."""
        if self.n_covered == self.n_coverable:
            return None
        heap, indptr, indices, pair_cost, uncovered = self.heap, self.indptr, self.indices, self.pair_cost, \
            self.uncovered
        while heap:
            top = heap[0]
            if top[4] == self.round:
                return top
            j = top[3]
            lo, hi = indptr[j], indptr[j + 1]
            new = pair_cost[lo:hi][uncovered[indices[lo:hi]]]
            if new.size == 0:
                heapq.heappop(heap)
                continue
            heapq.heapreplace(heap, (-new.size, float(new.cumsum()[-1]), top[2], j, self.round))
        return None

    def take(self) -> int:
        """Commit the current best (call :meth:`peek` first); return its local column."""
        _, _, _, j, _ = heapq.heappop(self.heap)
        rows = self.indices[self.indptr[j]:self.indptr[j + 1]]
        newly = rows[self.uncovered[rows]]
        self.uncovered[newly] = False
        self.n_covered += len(newly)
        self.round += 1
        return j


def _greedy_max_coverage(C, k, d, progress) -> list[int]:
    engine = _LazyCoverage(C, d)
    chosen: list[int] = []
    with tqdm(total=k, disable=not progress, desc="lazy greedy", unit="CF") as bar:
        while len(chosen) < k and engine.peek() is not None:
            chosen.append(engine.take())
            bar.update()
    return chosen


def _solve_by(prob: pulp.LpProblem, deadline: Deadline) -> tuple[str, bool]:
    """Solve with CBC in the time left before the deadline; no solve once it has passed."""
    left = deadline.remaining()
    if left <= 0:
        return "time limit", False
    return solve(prob, left)


def _mip_max_coverage(C, k, d, deadline):
    """Eqs. (1)-(4) with r only for pairs within d; returns (selected, status, message)."""
    rows, cols = _model_pairs(C <= d)
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


def _max_coverage_core(C, k, d, method, deadline, progress, parameters):
    start = time.perf_counter()
    if method == "greedy":
        order, status, message = _greedy_max_coverage(C, k, d, progress), "greedy", None
    else:
        order, status, message = _mip_max_coverage(C, k, d, deadline)
    res = _result_within(C, order, d, status=status, start=start, parameters=parameters)
    return res, message


def max_coverage(C, k, d, *, method="greedy", time_limit=60.0, progress=False) -> GroupCounterfactuals:
    """Problem 1 (cost-constrained): at most ``k`` counterfactuals covering the most factuals within cost ``d``.

    .. math::

        \\max_{S \\subseteq X',\\ |S| \\le k}\\ \\bigl|\\{x \\in X : \\min_{j \\in S} C[x, j] \\le d\\}\\bigr|

    Parameters
    ----------
    C : ndarray of shape (n_factuals, n_candidates)
        Costs, ``np.inf`` where a candidate is unreachable; finite entries >= 0.
        Dense only (a sparse matrix would read missing entries as cost 0).
    k : int
        Largest number of counterfactuals, 1 <= k <= n_candidates.
    d : float
        Cost threshold (>= 0): a factual is covered by a candidate it reaches at
        cost <= d.
    method : {"greedy", "mip"}, default "greedy"
        ``"greedy"``: lazy greedy (Eq. 5), coverage >= (1 - 1/e) x optimum.
        ``"mip"``: Eqs. (1)-(4) solved with CBC.
    time_limit : float, default 60.0
        Seconds for the whole call (ignored by the greedy). Building the model
        stops once it has run out (status ``"time limit"``, empty selection);
        CBC gets the time left after the model is written and is stopped if
        it overruns, so the call ends within about ``1.1 time_limit + 2`` s.
    progress : bool, default False
        Progress bar over the greedy's steps (ignored by the MIP).

    Returns
    -------
    GroupCounterfactuals
        ``problem="max_coverage"``; each covered factual is assigned its
        cheapest selected counterfactual within ``d``.

    Warns
    -----
    UserWarning
        When the MIP stops at its time limit (status ``"time limit"``).

    Notes
    -----
    *Greedy.* Each step adds the candidate with the largest marginal gain in
    coverage; ties go to the lower total cost of the newly covered factuals,
    then to the lower column index. The coverage sets ``{x : C[x, j] <= d}`` are
    the columns of a SciPy CSC boolean matrix, and gains are re-evaluated
    lazily: a priority queue holds possibly stale gains, which can only
    overstate the true gain because coverage is submodular, and the top entry
    is re-evaluated until it is fresh. The result is exactly the plain
    greedy's. The greedy stops at ``k`` counterfactuals, when everything
    coverable is covered, or when no candidate adds coverage; it never pads
    ``S`` with useless candidates.

    *MIP.* Binary ``r[x, j]`` (``x`` assigned to ``j``) exists only for the
    pairs with ``C[x, j] <= d`` and ``u[j]`` (``j`` selected) only for
    candidates in such a pair (the paper's reduction). ``selected`` is
    ``{j : u[j] > 0.5}`` in ascending order (it may include a candidate that
    ends up serving nobody); the assignment is recomputed from ``C``, which can
    only cover at least as many factuals as the MIP counted. If no pair is
    within ``d`` the empty selection is returned as optimal without calling
    the solver.

    Examples
    --------
    >>> import numpy as np
    >>> inf = np.inf
    >>> C = np.array([[1.0, 4.0, inf],
    ...               [2.0, 1.0, inf],
    ...               [inf, 2.0, 1.0],
    ...               [inf, inf, 2.0]])
    >>> res = max_coverage(C, k=2, d=2.0)
    >>> res.selected.tolist(), res.coverage, res.cost   # three columns tie at gain 2: lowest total cost, index
    ([0, 2], 4, 2.0)
    >>> res.assignment.tolist()
    [0, 0, 2, 2]
    >>> res.to_frame()
       candidate  covered  max_cost  mean_cost
    0          0        2       2.0        1.5
    1          2        2       2.0        1.5
    """
    C = check_cost_matrix(C)
    k = _check_k(k, C.shape[1])
    d = _check_d(d)
    method = _check_method(method)
    time_limit = check_time_limit(time_limit)
    parameters = {"k": k, "d": d, "method": method}
    if method == "mip":
        parameters["time_limit"] = time_limit
    res, message = _max_coverage_core(C, k, d, method, Deadline(time_limit), progress, parameters)
    if message:
        warnings.warn(message, stacklevel=2)
    return res


# --------------------------------------------------------------------------- Problem 2


class _FarthestFirst:
    """The farthest-first procedure of :func:`min_max_cost` at any radius, with runs cached.

    The steps taken at a radius do not depend on ``k`` or ``need`` (they only
    decide when to stop), so one run per radius, extended on demand, answers
    every ``(k, need)`` query at that radius. A run keeps, for every candidate,
    the number and total cost of the uncovered factuals within ``r`` (the
    gain) and the number of those not reached by any chosen candidate, updated
    as factuals change state, so a whole run costs O(n m) however large ``k``.
    """

    def __init__(self, C: np.ndarray, priority=None):
        self.C = C
        self.reach = C.min(axis=1) if C.shape[1] else np.full(C.shape[0], np.inf)
        self.priority = priority
        self.runs: dict[float, dict] = {}

    def _start(self, r: float) -> dict:
        C = self.C
        within = C <= r
        gain = within.sum(axis=0)
        total = np.where(within, C, 0.0).sum(axis=0)
        if self.priority is None:
            first = int(np.lexsort((np.arange(C.shape[1]), total, -gain))[0])
        else:  # uniform among the candidates covering someone: the one with the smallest random priority
            useful = np.flatnonzero(gain > 0)
            first = int(useful[np.argmin(self.priority[useful])])
        run = {
            "S": [],
            "covs": [],
            "covered": np.zeros(C.shape[0], dtype=bool),
            "dist": np.full(C.shape[0], np.inf),
            "eligible": self.reach <= r,
            "gain": gain,  # uncovered factuals within r of each candidate
            "total": total,  # ... and their total cost
            "unreached": gain.copy(),  # ... of which no chosen candidate reaches (dist = inf)
            "stuck": False,
        }
        self._open(run, first, r)
        return run

    def _open(self, run: dict, j: int, r: float) -> None:
        C, covered, dist = self.C, run["covered"], run["dist"]
        column = C[:, j]
        newly = np.flatnonzero((column <= r) & ~covered)
        if len(newly):
            rows = C[newly]
            w = rows <= r
            run["gain"] -= w.sum(axis=0)
            run["total"] -= np.where(w, rows, 0.0).sum(axis=0)
            run["unreached"] -= w[np.isinf(dist[newly])].sum(axis=0)
        # uncovered factuals that become reachable from the chosen set (no longer at distance inf)
        seen = np.flatnonzero(np.isfinite(column) & np.isinf(dist) & ~covered & (column > r))
        if len(seen):
            run["unreached"] -= (C[seen] <= r).sum(axis=0)
        covered[newly] = True
        np.minimum(dist, column, out=dist)
        run["S"].append(int(j))
        run["covs"].append(int(np.count_nonzero(covered)))

    def _step(self, run: dict, r: float) -> None:
        open_rows = np.flatnonzero(run["eligible"] & ~run["covered"])
        if len(open_rows) == 0:
            run["stuck"] = True
            return
        # the uncovered factuals farthest from the chosen set, among those with a candidate within r
        # (ties taken together; typically all those at inf); open the candidate within r of one of
        # them that covers the most uncovered factuals within r (ties: lower total cost, lower column)
        dist = run["dist"][open_rows]
        farthest = dist.max()
        if np.isinf(farthest):
            cands = np.flatnonzero(run["unreached"] > 0)
        else:
            far = open_rows[dist == farthest]
            cands = np.flatnonzero((self.C[far] <= r).any(axis=0))
        j = int(cands[np.lexsort((cands, run["total"][cands], -run["gain"][cands]))[0]])
        self._open(run, j, r)

    def run(self, r: float, k: int, need: int) -> tuple[list[int], int]:
        """Selection and coverage of the procedure at radius r stopped by k and need."""
        run = self.runs.get(r)
        if run is None:
            run = self.runs[r] = self._start(r)
        while run["covs"][-1] < need and len(run["S"]) < k and not run["stuck"]:
            self._step(run, r)
        covs = run["covs"][:k]
        t = next((i for i, cov in enumerate(covs) if cov >= need), len(covs) - 1)
        return run["S"][: t + 1], covs[t]


def _greedy_min_max_cost(ff: _FarthestFirst, values: np.ndarray, k: int, need: int, progress: bool):
    """Binary search over the radii ``values``; returns (selection, reached need?)."""
    reach = ff.reach
    lower = float(np.partition(reach, need - 1)[need - 1])  # no radius below this covers need factuals
    lo, hi = int(np.searchsorted(values, lower)), len(values) - 1
    steps = max(1, math.ceil(math.log2(hi - lo + 1)) + 1) if hi >= lo else 1
    with tqdm(total=steps, disable=not progress, desc="radius search", unit="radius") as bar:
        while lo < hi:
            mid = (lo + hi) // 2
            _, cov = ff.run(float(values[mid]), k, need)
            if cov >= need:
                hi = mid
            else:
                lo = mid + 1
            bar.update()
        # the procedure need not be monotone in r: make sure the radius found works, else scan upward
        i = lo
        while i < len(values):
            S, cov = ff.run(float(values[i]), k, need)
            if cov >= need:
                return S, True
            i += 1
    S, _ = ff.run(float(values[-1]), k, need)
    return S, False


def _mip_min_max_cost(C, k, need, deadline, upper=math.inf):
    """Minimise d s.t. Eqs. (1)-(4), (6), (7); returns (selected, status, message).

    ``r`` exists only for pairs with a finite cost ``<= upper``, where ``upper``
    is the radius of a known selection (e.g. the greedy's): an optimal
    selection has radius ``<= upper``, so it assigns no factual beyond it, and
    leaving those pairs out changes no optimum while it shrinks the model.
    """
    if deadline.expired:  # not even worth building the model
        return [], "time limit", time_limit_message(deadline.seconds, False)
    rows, cols = _model_pairs(C <= upper)
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
                _check_building(deadline, b)
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


def _min_max_cost_core(C, k, need, method, deadline, random_state, progress, parameters, ff=None, values=None):
    """Problem 2 with an explicit need; returns (result, warning message or None)."""
    start = time.perf_counter()
    n = C.shape[0]
    reach = C.min(axis=1) if C.shape[1] else np.full(n, np.inf)
    n_reach = int(np.count_nonzero(np.isfinite(reach)))
    if n_reach < need:
        res = _build(C, [], np.zeros(n, bool), np.full(n, np.inf), np.full(n, _NONE), status="infeasible",
                     start=start, problem="min_max_cost", parameters=parameters, cost=math.inf)
        share = f"c={parameters['c']:g} of {n} factuals" if "c" in parameters else f"{n} factuals"
        return res, (f"only {n_reach} of the {n} factuals reach any candidate, fewer than the {need} "
                     f"needed for coverage {share}; lower c or provide more candidates (status 'infeasible').")
    if method == "greedy":
        if ff is None:
            priority = None if random_state is None else check_rng(random_state).permutation(C.shape[1])
            ff = _FarthestFirst(C, priority)
        if values is None:
            values = np.unique(C[np.isfinite(C)])
        order, reached = _greedy_min_max_cost(ff, values, k, need, progress)
        if reached:
            return _result_radius(C, order, need, status="greedy", start=start, parameters=parameters), None
        res = _result_radius(C, order, need, status="infeasible", start=start, parameters=parameters)
        return res, (f"the greedy could not cover {need} factuals with k={k} counterfactuals at any radius (best: "
                     f"{res.coverage} at radius {res.cost:g}); status 'infeasible'. The instance may still be "
                     "feasible: try method='mip' or a larger k.")
    # the greedy's radius (one farthest-first search, fast next to the MIP) bounds the optimum from above
    upper, fallback = math.inf, []
    if not deadline.expired:
        greedy_order, reached = _greedy_min_max_cost(_FarthestFirst(C), np.unique(C[np.isfinite(C)]), k, need, False)
        if reached:
            upper, fallback = _radius(_cheapest(C, greedy_order)[0], need), greedy_order
    order, status, message = _mip_min_max_cost(C, k, need, deadline, upper)
    if status == "time limit" and not order and fallback:
        # stopped before CBC found a solution of its own: the greedy's is the best known one
        order = fallback
        message = (time_limit_message(deadline.seconds, True).replace("its best solution so far", "the greedy's "
                   "selection (the MIP found none in time)"))
    if status == "infeasible":
        res = _build(C, [], np.zeros(n, bool), np.full(n, np.inf), np.full(n, _NONE), status="infeasible",
                     start=start, problem="min_max_cost", parameters=parameters, cost=math.inf)
        return res, (f"no {k} counterfactuals cover {need} factuals at any cost (the MIP is infeasible); "
                     "raise k or lower c (status 'infeasible').")
    res = _result_radius(C, order, need, status=status, start=start, parameters=parameters)
    if status == "time limit" and not order:
        res = _build(C, [], np.zeros(n, bool), np.full(n, np.inf), np.full(n, _NONE), status="time limit",
                     start=start, problem="min_max_cost", parameters=parameters, cost=math.inf)
    return res, message


def min_max_cost(C, k, c, *, method="greedy", time_limit=60.0, random_state=None,
                 progress=False) -> GroupCounterfactuals:
    """Problem 2 (coverage-constrained): at most ``k`` counterfactuals covering a share ``c`` at the least max cost.

    With ``need = ceil(c * n_factuals)`` the problem is

    .. math::

        \\min_{S \\subseteq X',\\ |S| \\le k}\\ r(S), \\qquad
        r(S) = \\text{the need-th smallest of } \\min_{j \\in S} C[x, j] \\text{ over } x \\in X,

    i.e. the smallest radius within which ``S`` covers ``need`` factuals (a
    partial k-supplier problem).

    Parameters
    ----------
    C : ndarray of shape (n_factuals, n_candidates)
        Costs, ``np.inf`` where unreachable; finite entries >= 0; dense only.
    k : int
        Largest number of counterfactuals, 1 <= k <= n_candidates.
    c : float
        Share of factuals to cover, 0 < c <= 1.
    method : {"greedy", "mip"}, default "greedy"
    time_limit : float, default 60.0
        Seconds for the whole call (ignored by the greedy): the MIP's model is
        built, written and solved within it (see :func:`max_coverage`). If CBC
        has no solution of its own when time runs out, the greedy's selection
        is returned, with status ``"time limit"``.
    random_state : None, int or numpy.random.Generator, default None
        Greedy only. None: the first counterfactual is the candidate covering
        the most factuals within the radius (ties: lower total cost, then lower
        column). Otherwise it is drawn uniformly among the candidates covering
        at least one factual within the radius, the paper's "arbitrary" first
        choice (one random priority order is drawn per call, so the choice is
        consistent across the radii of the binary search).
    progress : bool, default False
        Progress bar over the greedy's binary search (ignored by the MIP).

    Returns
    -------
    GroupCounterfactuals
        ``problem="min_max_cost"``; ``cost`` is the radius ``r(S)`` and the
        covered factuals are those within it (``coverage >= need``), each
        assigned its cheapest selected counterfactual. ``parameters["need"]``
        records ``need``.

    Warns
    -----
    UserWarning
        When the instance is infeasible (fewer than ``need`` factuals reach any
        candidate; the MIP is infeasible; or the greedy cannot reach ``need``
        with ``k`` counterfactuals at any radius), and when the MIP stops at
        its time limit.

    Notes
    -----
    *Infeasible.* If fewer than ``need`` factuals reach any candidate the
    result is empty with ``cost = inf`` and status ``"infeasible"`` (no
    exception). If the greedy fails at every radius, the result is the
    selection it found at the largest radius, with its coverage and cost, and
    status ``"infeasible"``; the MIP may still find a feasible selection.

    *Greedy* (paper Sec. 3.2, after Gonzalez's farthest-first 2-approximation
    for k-center). For a radius ``r``:

    1. open the candidate covering the most factuals within ``r`` (ties: lower
       total cost of those factuals, then lower column);
    2. among the uncovered factuals that reach some candidate within ``r``,
       take those *farthest from the chosen set*, i.e. with the largest
       :math:`\\min_{j \\in S} C[x, j]`; ``inf`` (reached by no chosen
       candidate) counts as farthest, and all factuals tied at the largest
       distance are taken together;
    3. open, among the candidates within ``r`` of one of them, the one covering
       the most uncovered factuals within ``r`` (same ties), and cover every
       factual within ``r`` of it;
    4. repeat 2-3 until ``need`` factuals are covered, ``k`` candidates are
       open, or no uncovered factual has a candidate within ``r``.

    A binary search over the sorted distinct finite costs (from the need-th
    smallest cheapest cost upward) finds the smallest ``r`` at which this
    reaches ``need``; since the procedure need not be monotone in ``r``, a
    failing result is followed by a scan upward. The answer's ``cost`` is the
    radius of the selection found, which can be below that ``r``.

    In FACEGroup the centres (candidates ``X'``) and the points (factuals
    ``X``) are different sets, so "the counterfactual farthest from those
    already chosen" is read as *factual-driven* farthest-first, as in Hochbaum
    and Shmoys' algorithm for the k-supplier problem: find the factual worst
    served by the chosen set and open a candidate that serves it. Ties are
    taken together because with partial reachability many factuals are at
    distance ``inf`` at once; picking one of them by index made the greedy
    miss feasible selections far more often (on random instances, 18 of 60
    against 3 of 60). Hochbaum and Shmoys' 3-approximation (and Gonzalez's 2
    for k-center) needs a metric and opening the *nearest* candidate; graph
    path costs are directed and not a metric, and we open the most-covering
    candidate, so no constant-factor guarantee is claimed: the greedy's cost
    is an upper bound on the optimum, which the MIP gives.

    *MIP.* Minimise ``d`` subject to Eqs. (1)-(4), (6)
    :math:`\\sum_j C[x, j]\\, r_{xj} \\le d` for every ``x`` (each ``x`` has at
    most one ``r = 1``, so this is its assigned cost), and (7)
    :math:`\\sum r \\ge need`, with ``r`` only for finite pairs and the need-th
    smallest cheapest cost as a lower bound on ``d``. ``selected`` is
    ``{j : u[j] > 0.5}``, ascending; ``cost`` is recomputed from ``C`` and equals
    the MIP optimum when the status is ``"optimal"`` (up to CBC's tolerances,
    about 1e-6: costs that differ by less may be taken as equal).

    Examples
    --------
    >>> import numpy as np
    >>> inf = np.inf
    >>> C = np.array([[1.0, 4.0, inf],
    ...               [2.0, 1.0, inf],
    ...               [inf, 3.0, 1.0],
    ...               [inf, inf, 3.0]])
    >>> res = min_max_cost(C, k=2, c=0.75, method="mip")
    >>> res.selected.tolist(), res.cost, res.coverage, res.status
    ([0, 2], 2.0, 3, 'optimal')
    >>> res = min_max_cost(C, k=2, c=1.0)
    >>> res.selected.tolist(), res.cost, res.coverage
    ([0, 2], 3.0, 4)
    """
    C = check_cost_matrix(C)
    k = _check_k(k, C.shape[1])
    c = _check_c(c)
    method = _check_method(method)
    time_limit = check_time_limit(time_limit)
    check_rng(random_state)  # validate early, also where the MIP ignores it
    need = _need(c, C.shape[0])
    parameters = {"k": k, "c": c, "need": need, "method": method}
    if method == "mip":
        parameters["time_limit"] = time_limit
    else:
        parameters["random_first"] = random_state is not None
    res, message = _min_max_cost_core(C, k, need, method, Deadline(time_limit), random_state, progress, parameters)
    if message:
        warnings.warn(message, stacklevel=2)
    return res


# --------------------------------------------------------------------------- local versions


def _unsolved_message(time_limit: float, labels: list, n_components: int) -> str:
    shown = labels if len(labels) <= 10 else labels[:10] + ["..."]
    return (f"time_limit={time_limit:g} s (for the whole call) ran out before the MIPs of {len(labels)} of the "
            f"{n_components} components were started ({', '.join(map(repr, shown))}); they get an empty selection "
            "(status 'time limit'). Raise time_limit or use method='greedy'.")


def max_coverage_by_component(C, factual_component, candidate_component, k, d, *, method="greedy",
                              time_limit=60.0, progress=False) -> dict:
    """Local Problem 1: counterfactuals for each subgroup (component) separately.

    Parameters
    ----------
    C : ndarray of shape (n_factuals, n_candidates)
        Costs as in :func:`max_coverage`; must be ``inf`` between different
        components.
    factual_component : array-like of shape (n_factuals,)
        Component label of each factual (e.g. the weakly connected component
        of the feasibility graph).
    candidate_component : array-like of shape (n_candidates,)
        Component label of each candidate.
    k : int
        Largest number of counterfactuals *per component* (>= 1; capped at the
        component's number of candidates).
    d : float
        Cost threshold, as in :func:`max_coverage`.
    method : {"greedy", "mip"}, default "greedy"
        As in :func:`max_coverage`.
    time_limit : float, default 60.0
        Seconds for the *whole call* (ignored by the greedy): each component's
        MIP gets the time left. Once it has run out no further MIP is started,
        and the components not yet solved get an empty selection with status
        ``"time limit"`` (one warning names them).
    progress : bool, default False
        Progress bar over components.

    Returns
    -------
    dict
        ``{label: GroupCounterfactuals}`` for every component that holds
        factuals, in label order. Indices are *global*: ``selected`` are
        columns of ``C`` and ``assignment`` has one entry per row of ``C``
        (``NO_COUNTERFACTUAL`` outside the component); ``in_scope`` marks the component's rows,
        so ``n_factuals`` and ``coverage_share`` refer to the subgroup.
        Components with candidates but no factuals are skipped.

    Raises
    ------
    ValueError
        If a finite cost links a factual and a candidate of different
        components, or the labels do not match the shape of ``C``.

    Examples
    --------
    >>> import numpy as np
    >>> inf = np.inf
    >>> C = np.array([[1.0, 2.0, inf], [3.0, 1.0, inf], [inf, inf, 1.0]])
    >>> local = max_coverage_by_component(C, [0, 0, 1], [0, 0, 1], k=1, d=2.0)
    >>> {g: (r.selected.tolist(), r.coverage, r.n_factuals) for g, r in local.items()}
    {0: ([1], 2, 2), 1: ([2], 1, 1)}
    """
    C = check_cost_matrix(C)
    k = _check_k(k, None)
    d = _check_d(d)
    method = _check_method(method)
    time_limit = check_time_limit(time_limit)
    deadline = Deadline(time_limit)
    out, unsolved = {}, []
    for label, rows, cols in tqdm(_components(C, factual_component, candidate_component), disable=not progress,
                                  desc="components", unit="component"):
        sub = C[np.ix_(rows, cols)]
        parameters = {"k": k, "d": d, "method": method}
        if method == "mip":
            parameters["time_limit"] = time_limit
        expired = method == "mip" and deadline.expired
        local, message = _max_coverage_core(sub, min(k, len(cols)), d, method, deadline, False, parameters)
        if expired and local.status == "time limit":
            unsolved.append(label)
        elif message:
            warnings.warn(f"component {label!r}: {message}", stacklevel=2)
        out[label] = _lift(local, rows, cols, C.shape[0], {"component": label})
    if unsolved:
        warnings.warn(_unsolved_message(time_limit, unsolved, len(out)), stacklevel=2)
    return out


def min_max_cost_by_component(C, factual_component, candidate_component, k, c, *, method="greedy",
                              time_limit=60.0, random_state=None, progress=False) -> dict:
    """Local Problem 2: for each component, at most ``k`` counterfactuals covering a share ``c`` of it.

    Parameters
    ----------
    C, factual_component, candidate_component
        As in :func:`max_coverage_by_component`.
    k : int
        Largest number of counterfactuals per component (>= 1; capped at the
        component's number of candidates).
    c : float
        Share of *each component's* factuals to cover, 0 < c <= 1.
    method, random_state
        As in :func:`min_max_cost` (one random generator is shared by the
        components, in label order).
    time_limit : float, default 60.0
        Seconds for the *whole call*, as in :func:`max_coverage_by_component`;
        a component not solved in time gets an empty selection, cost ``inf``
        and status ``"time limit"``.
    progress : bool, default False
        Progress bar over components.

    Returns
    -------
    dict
        ``{label: GroupCounterfactuals}`` with global indices, as in
        :func:`max_coverage_by_component`; ``parameters["need"]`` is the
        component's own need.

    Examples
    --------
    >>> import numpy as np
    >>> inf = np.inf
    >>> C = np.array([[1.0, 2.0, inf], [3.0, 1.0, inf], [inf, inf, 4.0]])
    >>> local = min_max_cost_by_component(C, [0, 0, 1], [0, 0, 1], k=1, c=1.0)
    >>> {g: (r.selected.tolist(), r.cost) for g, r in local.items()}
    {0: ([1], 2.0), 1: ([2], 4.0)}
    """
    C = check_cost_matrix(C)
    k = _check_k(k, None)
    c = _check_c(c)
    method = _check_method(method)
    time_limit = check_time_limit(time_limit)
    checked = check_rng(random_state)  # validate, also where the MIP ignores it
    rng = checked if (method == "greedy" and random_state is not None) else None
    deadline = Deadline(time_limit)
    out, unsolved = {}, []
    for label, rows, cols in tqdm(_components(C, factual_component, candidate_component), disable=not progress,
                                  desc="components", unit="component"):
        sub = C[np.ix_(rows, cols)]
        need = _need(c, len(rows))
        parameters = {"k": k, "c": c, "need": need, "method": method}
        if method == "mip":
            parameters["time_limit"] = time_limit
        else:
            parameters["random_first"] = rng is not None
        k_local = max(1, min(k, len(cols)))
        expired = method == "mip" and deadline.expired
        local, message = _min_max_cost_core(sub, k_local, need, method, deadline, rng, False, parameters)
        if expired and local.status == "time limit":
            unsolved.append(label)
        elif message:
            warnings.warn(f"component {label!r}: {message}", stacklevel=2)
        out[label] = _lift(local, rows, cols, C.shape[0], {"component": label})
    if unsolved:
        warnings.warn(_unsolved_message(time_limit, unsolved, len(out)), stacklevel=2)
    return out


# --------------------------------------------------------------------------- combining local versions


def combine_max_coverage(C, factual_component, candidate_component, k, d) -> GroupCounterfactuals:
    """Global Problem 1 from the local greedies: one greedy per component, interleaved.

    The paper's combination (Sec. 3.1): take one greedy step in every
    component, commit the step with the best marginal gain (ties: lower total
    cost of the newly covered factuals, then lower global column), advance
    only that component's greedy, and repeat until ``k`` counterfactuals are
    chosen or no step adds coverage. Components share no factuals, so a
    choice in one never changes the gains in another, and the result is the
    same selection, in the same order, as the global
    ``max_coverage(C, k, d, method="greedy")``.

    Parameters
    ----------
    C, factual_component, candidate_component
        As in :func:`max_coverage_by_component`.
    k : int
        Largest total number of counterfactuals, 1 <= k <= n_candidates.
    d : float
        Cost threshold (>= 0).

    Returns
    -------
    GroupCounterfactuals
        Global result (``status="greedy"``); ``parameters["combined"]`` is
        True and ``parameters["n_components"]`` the number of components with
        factuals.

    Examples
    --------
    >>> import numpy as np
    >>> inf = np.inf
    >>> C = np.array([[1.0, 2.0, inf], [3.0, 1.0, inf], [inf, inf, 1.0]])
    >>> res = combine_max_coverage(C, [0, 0, 1], [0, 0, 1], k=2, d=2.0)
    >>> res.selected.tolist() == max_coverage(C, k=2, d=2.0).selected.tolist() == [1, 2]
    True
    """
    start = time.perf_counter()
    C = check_cost_matrix(C)
    k = _check_k(k, C.shape[1])
    d = _check_d(d)
    comps = _components(C, factual_component, candidate_component)
    engines = [_LazyCoverage(C[np.ix_(rows, cols)], d, labels=cols) for _, rows, cols in comps]
    proposals = [engine.peek() for engine in engines]
    order: list[int] = []
    while len(order) < k:
        live = [i for i, p in enumerate(proposals) if p is not None]
        if not live:
            break
        best = min(live, key=lambda i: proposals[i][:3])
        engines[best].take()
        order.append(proposals[best][2])  # the global column (the engine's label)
        proposals[best] = engines[best].peek()
    parameters = {"k": k, "d": d, "method": "greedy", "combined": True, "n_components": len(comps)}
    return _result_within(C, order, d, status="greedy", start=start, parameters=parameters)


def allocate_by_dp(tables, k: int, need: int):
    """Split ``k`` counterfactuals and ``need`` covered factuals across components at the least max cost.

    Solves

    .. math::

        \\min \\max_i T_i[k_i, n_i] \\quad \\text{s.t.} \\quad \\sum_i k_i \\le k,\\ \\sum_i n_i \\ge need,

    over ``0 <= k_i < T_i.shape[0]`` and ``0 <= n_i < T_i.shape[1]``, by the
    dynamic programme :math:`F(1..i, k, n) = \\min_{k', n'} \\max(F(1..i-1,
    k - k', n - n'), T_i[k', n'])` with the coverage index capped at ``need``.
    Each component contributes its entry (use ``T_i[0, 0] = 0`` so that a
    component can be skipped).

    Parameters
    ----------
    tables : sequence of 2-d arrays
        ``tables[i][k', n']``: the least cost at which component ``i`` covers
        at least ``n'`` of its factuals with ``k'`` counterfactuals (``inf``
        if impossible).
    k : int
        Counterfactuals to distribute (>= 0).
    need : int
        Factuals to cover in total (>= 0).

    Returns
    -------
    allocation : list of (int, int) or None
        ``(k_i, n_i)`` per component; among optimal allocations one with the
        fewest counterfactuals. None when no allocation has a finite cost.
    value : float
        The optimal ``max_i T_i[k_i, n_i]`` (``inf`` when infeasible).

    Notes
    -----
    Costs combine by ``max`` because the FACEGroup cost of a set is the
    largest cost over the covered factuals (see :func:`combine_min_max_cost`).
    Time ``O(m (k need)(K N))`` for ``m`` tables of shape at most ``(K, N)``.

    Examples
    --------
    >>> import numpy as np
    >>> inf = np.inf
    >>> T1 = np.array([[0, inf, inf], [0, 1.0, 3.0], [0, 1.0, 1.0]])
    >>> T2 = np.array([[0, inf], [0, 2.0]])
    >>> allocate_by_dp([T1, T2], k=2, need=3)
    ([(1, 2), (1, 1)], 3.0)
    >>> allocate_by_dp([T1, T2], k=3, need=3)
    ([(2, 2), (1, 1)], 2.0)
    """
    if isinstance(tables, np.ndarray) and tables.ndim == 2:
        raise TypeError("tables must be a sequence of 2-d arrays, one per component; wrap a single table in a list.")
    tables = [np.asarray(t, dtype=float) for t in tables]
    if not tables:
        raise ValueError("tables is empty; give one cost table per component.")
    for i, t in enumerate(tables):
        if t.ndim != 2 or t.shape[0] < 1 or t.shape[1] < 1:
            raise ValueError(f"tables[{i}] has shape {t.shape}; each table must be 2-d, indexed [k', n'].")
        if np.isnan(t).any():
            raise ValueError(f"tables[{i}] has NaN entries; use np.inf for an impossible (k', n').")
    k = check_int(k, "k")
    need = check_int(need, "need")
    if k < 0 or need < 0:
        raise ValueError(f"k={k} and need={need} must be >= 0.")
    G = np.full((k + 1, need + 1), np.inf)
    G[0, 0] = -np.inf  # identity of max: no component yet
    choices = []
    for T in tables:
        new = np.full_like(G, np.inf)
        ck = np.full(G.shape, -1, dtype=int)
        cn = np.full(G.shape, -1, dtype=int)
        cprev = np.full(G.shape, -1, dtype=int)
        for kk in range(min(T.shape[0] - 1, k) + 1):
            for nn in range(T.shape[1]):
                t = T[kk, nn]
                if not t < np.inf:
                    continue
                vals = np.maximum(G[: k + 1 - kk], t)  # sources with kappa + kk <= k
                split = max(0, need - nn)
                if split > 0:  # nu + nn < need: one-to-one shift
                    src = vals[:, :split]
                    dst = new[kk:, nn:need]
                    better = src < dst
                    dst[better] = src[better]
                    ck[kk:, nn:need][better] = kk
                    cn[kk:, nn:need][better] = nn
                    cprev[kk:, nn:need][better] = np.broadcast_to(np.arange(split), src.shape)[better]
                tail = vals[:, split:]  # nu + nn >= need: all land on "need"
                arg = np.argmin(tail, axis=1)
                low = tail[np.arange(len(tail)), arg]
                better = low < new[kk:, need]
                new[kk:, need][better] = low[better]
                ck[kk:, need][better] = kk
                cn[kk:, need][better] = nn
                cprev[kk:, need][better] = (split + arg)[better]
        choices.append((ck, cn, cprev))
        G = new
    kappa = int(np.argmin(G[:, need]))
    value = float(G[kappa, need])
    if not value < np.inf:
        return None, math.inf
    allocation = []
    nu = need
    for ck, cn, cprev in reversed(choices):
        kk, nn, prev = int(ck[kappa, nu]), int(cn[kappa, nu]), int(cprev[kappa, nu])
        allocation.append((kk, nn))
        kappa, nu = kappa - kk, prev
    allocation.reverse()
    return allocation, value


def _component_table(sub, k, need, method, deadline, base_parameters):
    """Table T[k', n'] of least radii for one component and the selections that achieve them.

    ``k'`` runs up to ``min(k, candidates)`` and ``n'`` up to ``min(need,
    factuals that reach any candidate)``; ``T[k', 0] = 0`` and ``T[0, n' > 0] =
    inf``. Returns the table, ``{(k', n'): selection}`` (local columns) and the
    statuses of the MIP entries (``"time limit"`` also for an entry left
    unsolved because the deadline had passed).
    """
    n_i, m_i = sub.shape
    reach = sub.min(axis=1) if m_i else np.full(n_i, np.inf)
    n_cap = min(int(np.count_nonzero(np.isfinite(reach))), need)
    k_cap = min(k, m_i)
    T = np.full((k_cap + 1, n_cap + 1), np.inf)
    T[:, 0] = 0.0
    chosen: dict[tuple[int, int], list[int]] = {(kk, 0): [] for kk in range(k_cap + 1)}
    statuses: list[str] = []
    if n_cap == 0 or k_cap == 0:
        return T, chosen, statuses
    lower = np.sort(reach[np.isfinite(reach)])  # lower[n'-1]: no selection covers n' factuals below it
    if method == "greedy":
        _greedy_table(sub, T, chosen, lower)
    else:
        _mip_table(sub, T, chosen, statuses, lower, deadline, base_parameters)
    return T, chosen, statuses


def _greedy_table(sub, T, chosen, lower) -> None:
    """Fill T with the farthest-first greedy of :func:`min_max_cost`, one radius search per entry.

    Each entry is the binary search of :func:`min_max_cost` for ``(k', n')``,
    narrowed by the monotonicity the search assumes anyway: the threshold
    radius for ``n'`` is at least the one for ``n' - 1`` and at most the one
    for ``k' - 1``. Runs are cached per radius and shared by all entries, and
    an entry never exceeds the entry for ``k' - 1`` (fewer counterfactuals are
    allowed).
    """
    k_cap, n_cap = T.shape[0] - 1, T.shape[1] - 1
    ff = _FarthestFirst(sub)
    values = np.unique(sub[np.isfinite(sub)])
    top = len(values) - 1
    threshold = np.full(T.shape, -1, dtype=int)
    for kk in range(1, k_cap + 1):
        floor = 0
        for nn in range(1, n_cap + 1):
            lo = max(floor, int(np.searchsorted(values, lower[nn - 1])))
            hi = int(threshold[kk - 1, nn]) if threshold[kk - 1, nn] >= 0 else top
            hi = max(hi, lo)
            if ff.run(float(values[hi]), kk, nn)[1] < nn:
                hi = top
                if hi < lo or ff.run(float(values[hi]), kk, nn)[1] < nn:
                    break  # the greedy cannot cover nn (nor more) with kk counterfactuals
            step = 1  # gallop up from the threshold for nn - 1, which is usually close, then bisect
            while lo < hi and ff.run(float(values[min(lo + step - 1, hi)]), kk, nn)[1] < nn:
                lo = min(lo + step, hi)
                step *= 2
            hi = min(lo + step - 1, hi)
            while lo < hi:
                mid = (lo + hi) // 2
                if ff.run(float(values[mid]), kk, nn)[1] >= nn:
                    hi = mid
                else:
                    lo = mid + 1
            threshold[kk, nn] = floor = lo
            selection, _ = ff.run(float(values[lo]), kk, nn)
            value = _radius(_cheapest(sub, selection)[0], nn)
            if kk > 1 and T[kk - 1, nn] <= value:
                value, selection = T[kk - 1, nn], chosen[(kk - 1, nn)]
            T[kk, nn] = value
            chosen[(kk, nn)] = list(selection)
    # entries the greedy could not reach with kk may still be reached with fewer (never, with a
    # monotone procedure; kept for safety)
    for kk in range(2, k_cap + 1):
        for nn in range(1, n_cap + 1):
            if T[kk - 1, nn] < T[kk, nn]:
                T[kk, nn], chosen[(kk, nn)] = T[kk - 1, nn], chosen[(kk - 1, nn)]


def _mip_table(sub, T, chosen, statuses, lower, deadline, base_parameters) -> None:
    """Fill T with proven MIP optima, skipping solves whose answer is already proven.

    An entry is solved with the MIP of :func:`min_max_cost` unless a solution
    at hand (the one for ``k' - 1`` counterfactuals, or the one for ``n' - 1``
    when it covers ``n'`` factuals within its radius) is provably optimal: its
    radius equals a lower bound, the ``n'``-th smallest cheapest cost or the
    proven optimum for ``n' - 1``. Once ``n'`` is proven out of reach with
    ``k'`` counterfactuals, larger ``n'`` are not tried. The row ``k' = 1``
    is exact without a solver. Each solve gets the
    time left before ``deadline``; once it has passed no MIP is started, and
    an entry that is not proven keeps the best selection at hand, the one for
    ``n' - 1`` at the radius it needs to cover ``n'`` included (inf when there
    is none).
    """
    k_cap, n_cap = T.shape[0] - 1, T.shape[1] - 1
    proven = np.zeros(T.shape, dtype=bool)
    proven[:, 0] = True
    # k' = 1 needs no solver: {j} covers n' factuals at the n'-th smallest cost of column j
    by_column = np.sort(sub, axis=0)[:n_cap]
    for nn in range(1, n_cap + 1):
        j = int(np.argmin(by_column[nn - 1]))  # ties: the lower column
        if np.isfinite(by_column[nn - 1, j]):
            T[1, nn], chosen[(1, nn)] = by_column[nn - 1, j], [j]
        proven[1, nn] = True
    for kk in range(2, k_cap + 1):
        prev = None  # (radius, selection, cost(x, selection) of every factual) of the entry (kk, nn - 1)
        for nn in range(1, n_cap + 1):
            options = []
            if kk > 1 and np.isfinite(T[kk - 1, nn]):  # fewer counterfactuals are allowed
                options.append((T[kk - 1, nn], chosen[(kk - 1, nn)]))
            if prev is not None and np.count_nonzero(prev[2] <= prev[0]) >= nn:  # (kk, nn - 1) already covers nn
                options.append((prev[0], prev[1]))
            best = min(options, key=lambda o: o[0]) if options else None
            bound = lower[nn - 1]
            if proven[kk, nn - 1]:
                bound = max(bound, T[kk, nn - 1])  # OPT(kk, nn) >= OPT(kk, nn - 1)
            is_proven = best is not None and best[0] <= bound
            if not is_proven and deadline.expired:
                statuses.append("time limit")  # left unsolved: the best at hand, not proven
            elif not is_proven:
                res, _ = _min_max_cost_core(sub, kk, nn, "mip", deadline, None, False, base_parameters)
                statuses.append(res.status)
                if res.status == "infeasible" and best is None:
                    break  # nn (hence more) factuals are out of reach with kk counterfactuals
                if res.status != "infeasible" and res.selected.size and (best is None or res.cost < best[0]):
                    best = (res.cost, res.selected.tolist())
                is_proven = res.status == "optimal"
            if not is_proven and prev is not None:
                # unproven (time limit): the (kk, nn - 1) selection still covers nn at a larger radius
                radius = _radius(prev[2], nn)
                if radius < (math.inf if best is None else best[0]):
                    best = (radius, prev[1])
            if best is None:
                prev = None
                continue
            T[kk, nn] = best[0]
            proven[kk, nn] = is_proven
            chosen[(kk, nn)] = list(best[1])
            prev = (best[0], best[1], _cheapest(sub, best[1])[0])


def combine_min_max_cost(C, factual_component, candidate_component, k, c, *, method="greedy", time_limit=60.0,
                         progress=False) -> GroupCounterfactuals:
    """Global Problem 2 from local solutions: allocate counterfactuals and coverage across components.

    For every component ``i``, ``F(i, k', n')`` is the least radius at which
    ``k'`` counterfactuals cover ``n'`` of its factuals, computed by
    :func:`min_max_cost` on the component's sub-matrix with ``method``
    (``F(i, k', 0) = 0``, ``F(i, 0, n' > 0) = inf``; ``k'`` up to
    ``min(k, component's candidates)``, ``n'`` up to the component's factuals
    that reach any candidate). :func:`allocate_by_dp` then finds the split
    ``(k_i, n_i)`` with ``sum k_i <= k`` and ``sum n_i >= need`` minimising
    ``max_i F(i, k_i, n_i)``, and the result is the union of the component
    selections of that split.

    Parameters
    ----------
    C, factual_component, candidate_component
        As in :func:`max_coverage_by_component`.
    k : int
        Largest total number of counterfactuals, 1 <= k <= n_candidates.
    c : float
        Share of *all* factuals to cover, 0 < c <= 1
        (``need = ceil(c * n_factuals)``).
    method : {"greedy", "mip"}, default "greedy"
        How the tables ``F(i, k', n')`` are computed.
    time_limit : float, default 60.0
        Seconds for the *whole call* (ignored by the greedy): the table
        entries are solved one after another, each MIP getting the time left.
        Once it has run out no further MIP is started; every entry not yet
        proven keeps the best selection at hand (or none), and the allocation
        is made from these tables, with status ``"time limit"``.
    progress : bool, default False
        Progress bar over components.

    Returns
    -------
    GroupCounterfactuals
        Global result, ``selected`` ascending. Status ``"greedy"``; for the
        MIP ``"optimal"`` when every table entry was proven (optimal or
        infeasible), else ``"time limit"`` with a warning (an empty selection
        with cost ``inf`` if the entries found by then reach no split);
        ``"infeasible"`` (with a warning, empty selection, cost ``inf``) when
        no split reaches ``need``. ``parameters["allocation"]`` maps each
        component label to its ``(k_i, n_i)`` (None without a split).

    Notes
    -----
    *Our reading of the paper's recursion.* The paper writes
    :math:`F(1..i, k, n) = \\min \\{F(1..i-1, k-k', n-n') + F(i, k', n')\\}`
    with :math:`k', n' \\ge 1`. The objective ``cost(X, S)`` is a *maximum*
    over factuals, so the cost of a union of per-component selections is the
    largest component radius, not their sum: we combine with ``max``. We also
    allow ``k' = 0`` and ``n' = 0``, so that partial coverage (``c < 1``) may
    leave a component out entirely. With exact tables (``method="mip"``) the
    result's cost equals the global MIP optimum of :func:`min_max_cost`: every
    global selection splits into per-component selections whose radii are at
    most its own, and conversely. The paper's separate rule for full coverage
    (``c = 1``: start from each component's minimum number of
    counterfactuals, then give the rest to the most expensive component) is
    the special case of the same programme in which every ``n_i`` is the
    number of factuals of component ``i``.

    *Tables.* A component has up to ``min(k, m_i) x min(need, n_i)`` entries.
    With the MIP the row ``k' = 1`` is exact without a solver (one
    counterfactual ``j`` covers ``n'`` factuals at the ``n'``-th smallest
    cost of column ``j``); every other entry is a CBC solve unless its
    optimum is already proven by a solution at hand (the one for ``k' - 1``, or the one for
    ``n' - 1`` when it covers ``n'``, whose radius meets a lower bound), so
    keep the MIP for small components: for the global optimum alone, one
    :func:`min_max_cost` MIP on all of ``C`` is usually much faster (on a
    40 x 40 matrix with one component, ``k = 5`` and ``c = 0.9``: 129 solves
    and minutes, against one solve in about 2 s). A ``time_limit`` that runs
    out while the tables are filled leaves a feasible but often poor
    allocation. The greedy entries run the
    farthest-first procedure of :func:`min_max_cost` with its radius search,
    started from the neighbouring entries' radii (the threshold for ``n'`` is
    at least the one for ``n' - 1`` and at most the one for ``k' - 1`` when the
    procedure is monotone) and with runs shared across entries; an entry is
    never worse than the entry for ``k' - 1``. On instances where the
    procedure is not monotone in the radius an entry can differ from a
    separate call of :func:`min_max_cost` (it remains a feasible selection).

    Examples
    --------
    >>> import numpy as np
    >>> inf = np.inf
    >>> C = np.array([[1.0, 2.0, inf], [3.0, 1.0, inf], [inf, inf, 4.0]])
    >>> res = combine_min_max_cost(C, [0, 0, 1], [0, 0, 1], k=2, c=2 / 3, method="mip")
    >>> res.selected.tolist(), res.cost, res.parameters["allocation"]
    ([0, 1], 1.0, {0: (2, 2), 1: (0, 0)})
    """
    start = time.perf_counter()
    C = check_cost_matrix(C)
    k = _check_k(k, C.shape[1])
    c = _check_c(c)
    method = _check_method(method)
    time_limit = check_time_limit(time_limit)
    deadline = Deadline(time_limit)
    comps = _components(C, factual_component, candidate_component)
    need = _need(c, C.shape[0])
    parameters = {"k": k, "c": c, "need": need, "method": method, "combined": True, "n_components": len(comps)}
    if method == "mip":
        parameters["time_limit"] = time_limit
    tables, chosen, statuses = [], [], []
    for label, rows, cols in tqdm(comps, disable=not progress, desc="components", unit="component"):
        T, sol, st = _component_table(C[np.ix_(rows, cols)], k, need, method, deadline,
                                      {"k": k, "method": method, "component": label})
        tables.append(T)
        chosen.append(sol)
        statuses.extend(st)
    allocation, value = allocate_by_dp(tables, k, need)
    n = C.shape[0]
    timed_out = "time limit" in statuses
    if allocation is None:
        parameters["allocation"] = None
        res = _build(C, [], np.zeros(n, bool), np.full(n, np.inf), np.full(n, _NONE),
                     status="time limit" if timed_out else "infeasible",
                     start=start, problem="min_max_cost", parameters=parameters, cost=math.inf)
        if timed_out:  # entries left unsolved may hold a split: not proven infeasible
            warnings.warn(f"the component MIPs stopped at the time limit (time_limit={time_limit:g} s for the whole "
                          f"call) before finding a split of k={k} counterfactuals that covers {need} factuals; "
                          "the selection is empty (status 'time limit'). Raise time_limit or use method='greedy'.",
                          stacklevel=2)
        else:
            warnings.warn(f"no split of k={k} counterfactuals across the {len(comps)} components covers {need} "
                          f"factuals (c={c:g}); status 'infeasible'. Raise k or lower c"
                          + (", or try method='mip'." if method == "greedy" else "."), stacklevel=2)
        return res
    parameters["allocation"] = {label: alloc for (label, _, _), alloc in zip(comps, allocation, strict=True)}
    selected = np.sort(np.concatenate(
        [cols[np.asarray(sol[alloc], dtype=int)]
         for (_, _, cols), sol, alloc in zip(comps, chosen, allocation, strict=True)]
        + [np.zeros(0, dtype=int)]
    )).astype(int)
    if method == "greedy":
        status = "greedy"
    elif not timed_out:
        status = "optimal"
    else:
        status = "time limit"
        warnings.warn(f"the component MIPs stopped at the time limit (time_limit={time_limit:g} s for the whole "
                      "call) before every table entry was proven; the allocation uses the best solutions found "
                      "(status 'time limit'). Raise time_limit for a proven optimum.", stacklevel=2)
    return _result_radius(C, selected, need, status=status, start=start, parameters=parameters)

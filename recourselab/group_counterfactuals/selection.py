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

The literal algorithms, plain loops over the paper's steps, are in
:mod:`recourselab.group_counterfactuals.paper`; the engines here give the same
answers (tested). Both functions return a :class:`GroupCounterfactuals`. MIPs
are solved with PuLP and its bundled CBC, always with a time limit; a run stopped
by the limit is reported with status ``"time limit"`` (and a warning), never as
optimal.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._mip import Deadline, check_time_limit, time_limit_message
from .._validation import check_choice, check_cost_matrix, check_int, check_number, check_rng
from ..counterfactuals.nearest import NO_COUNTERFACTUAL as _NONE
from ._exact import _mip_max_coverage, _mip_min_max_cost
from ._greedy import _FarthestFirst, _greedy_max_coverage, _greedy_min_max_cost

__all__ = ["GroupCounterfactuals", "max_coverage", "min_max_cost"]

METHODS = ("greedy", "mip")
STATUSES = ("optimal", "time limit", "infeasible", "greedy")


# --------------------------------------------------------------------------- result


@dataclass(frozen=True, eq=False)
class GroupCounterfactuals:
    """A selected set of group counterfactuals and how it serves the factuals.

    Attributes
    ----------
    selected : ndarray of int
        Column indices of ``C`` of the chosen counterfactuals: in the order the
        greedy chose them, ascending for the MIP.
    assignment : ndarray of int, shape (n_rows,)
        For each factual (row of ``C``) the column of the cheapest selected
        counterfactual that covers it, ties to the lower column index;
        :data:`~recourselab.counterfactuals.NO_COUNTERFACTUAL` when the factual
        is not covered: a value numpy refuses as
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
    advice : str
        Always ``"relaxation"``: the selection is a burden measure on the costs
        ``C`` it was given (on the feasibility graph, feasible path costs), so a
        selected counterfactual is reachable through feasible steps but its
        end-to-end move is not checked against an advice policy (whole levels,
        advised directions, plausible changes; see :meth:`Encoder.actionable
        <recourselab.features.Encoder.actionable>`). To select among actionable
        moves only, set ``C[~encoder.actionable_pairs(Z_factuals, Z_candidates)]
        = np.inf`` first; ``C`` alone cannot show that, so the label stays.

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
    advice: str = "relaxation"

    @property
    def n_factuals(self) -> int:
        """Number of factuals (rows of ``C``)."""
        return len(self.assignment)

    @property
    def coverage_share(self) -> float:
        """``coverage / n_factuals``."""
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


# --------------------------------------------------------------------------- arguments


def _k(k, n_candidates: int) -> int:
    """``k``: an integer from 1 to the number of candidates."""
    k = check_int(k, "k", minimum=1)
    if k > n_candidates:
        raise ValueError(
            f"k={k} is larger than the {n_candidates} candidates (columns of C); use k <= {n_candidates}, "
            "which already allows selecting every candidate."
        )
    return k


def _need(c: float, n: int) -> int:
    """Factuals to cover for a share c of n (the 1e-9 absorbs round-off: 0.07 * 100 = 7.000000000000001)."""
    return max(1, math.ceil(c * n - 1e-9))


# --------------------------------------------------------------------------- Problem 1


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
        ``"greedy"``: lazy greedy (Eq. 5), coverage >= (1 - 1/e) x optimum;
        it selects what :func:`~recourselab.group_counterfactuals.paper.greedy_max_coverage`
        selects, in the same order.
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
    k = _k(k, C.shape[1])
    d = check_number(d, "d", minimum=0.0)
    method = check_choice(method, "method", METHODS)
    time_limit = check_time_limit(time_limit)
    parameters = {"k": k, "d": d, "method": method}
    if method == "mip":
        parameters["time_limit"] = time_limit
    res, message = _max_coverage_core(C, k, d, method, Deadline(time_limit), progress, parameters)
    if message:
        warnings.warn(message, stacklevel=2)
    return res


# --------------------------------------------------------------------------- Problem 2


def _empty(C, status, start, parameters) -> GroupCounterfactuals:
    """Problem 2 without a selection: nobody covered, cost ``inf``."""
    n = C.shape[0]
    return _build(C, [], np.zeros(n, bool), np.full(n, np.inf), np.full(n, _NONE), status=status, start=start,
                  problem="min_max_cost", parameters=parameters, cost=math.inf)


def _min_max_cost_greedy(C, k, need, random_state, progress, parameters, start):
    """Farthest-first with a radius search; returns (result, warning message or None)."""
    priority = None if random_state is None else check_rng(random_state).permutation(C.shape[1])
    order, reached = _greedy_min_max_cost(_FarthestFirst(C, priority), np.unique(C[np.isfinite(C)]), k, need,
                                          progress)
    if reached:
        return _result_radius(C, order, need, status="greedy", start=start, parameters=parameters), None
    res = _result_radius(C, order, need, status="infeasible", start=start, parameters=parameters)
    return res, (f"the greedy could not cover {need} factuals with k={k} counterfactuals at any radius (best: "
                 f"{res.coverage} at radius {res.cost:g}); status 'infeasible'. The instance may still be "
                 "feasible: try method='mip' or a larger k.")


def _reach_bound(C, k: int) -> int:
    """An upper bound on the factuals any ``k`` candidates cover together, at any cost.

    A selection covers a factual only through a finite entry of one of its
    columns, so ``k`` columns cover at most the sum of their finite counts, and
    at most the factuals with any finite entry: the smaller of the sum of the
    ``k`` largest column counts and that number. When the bound is below
    ``need`` no selection covers ``need`` factuals and Problem 2 is infeasible
    (the converse need not hold: the columns can overlap).
    """
    per_column = np.count_nonzero(np.isfinite(C), axis=0)
    top = int(np.partition(per_column, per_column.size - k)[per_column.size - k:].sum())
    return min(top, int(np.count_nonzero(np.isfinite(C).any(axis=1))))


def _min_max_cost_mip(C, k, need, deadline, parameters, start):
    """The MIP, bounded by the greedy's radius; returns (result, warning message or None)."""
    bound = _reach_bound(C, k)
    if bound < need:  # infeasible by a count: neither the greedy nor the model is needed
        return _empty(C, "infeasible", start, parameters), (
            f"no {k} counterfactuals cover {need} factuals at any cost (the {k} candidates reaching the most "
            f"factuals reach {bound} together at most); raise k or lower c (status 'infeasible').")
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
        return _empty(C, "infeasible", start, parameters), (
            f"no {k} counterfactuals cover {need} factuals at any cost (the MIP is infeasible); "
            "raise k or lower c (status 'infeasible').")
    if status == "time limit" and not order:
        return _empty(C, "time limit", start, parameters), message
    return _result_radius(C, order, need, status=status, start=start, parameters=parameters), message


def _min_max_cost_core(C, k, need, method, deadline, random_state, progress, parameters):
    """Problem 2 with an explicit need; returns (result, warning message or None)."""
    start = time.perf_counter()
    n = C.shape[0]
    n_reach = int(np.count_nonzero(np.isfinite(C.min(axis=1))))
    if n_reach < need:
        share = f"c={parameters['c']:g} of {n} factuals" if "c" in parameters else f"{n} factuals"
        return _empty(C, "infeasible", start, parameters), (
            f"only {n_reach} of the {n} factuals reach any candidate, fewer than the {need} "
            f"needed for coverage {share}; lower c or provide more candidates (status 'infeasible').")
    if method == "greedy":
        return _min_max_cost_greedy(C, k, need, random_state, progress, parameters, start)
    return _min_max_cost_mip(C, k, need, deadline, parameters, start)


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
    Before building its model the MIP counts: if the ``k`` candidates reaching
    the most factuals reach fewer than ``need`` together (counting overlaps
    twice), no selection can cover ``need`` and the result is the MIP's
    infeasible one (empty, ``cost = inf``), reached at once.

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

    Under our reading of the paper's "the counterfactual farthest from those
    already chosen" (its centres ``X'`` and points ``X`` are different sets),
    farthest-first is *factual-driven*, as in Hochbaum and Shmoys' k-supplier
    algorithm: find the factuals worst served by the chosen set and open a
    candidate that serves one of them. Path costs are directed and not a
    metric, and we open the most-covering candidate, so no constant-factor
    guarantee is claimed: the greedy's cost is an upper bound on the optimum,
    which the MIP gives. With ``random_state=None`` the greedy selects what
    :func:`~recourselab.group_counterfactuals.paper.greedy_min_max_cost`
    selects, in the same order.

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
    k = _k(k, C.shape[1])
    c = check_number(c, "c", minimum=0.0, strict_minimum=True, maximum=1.0)
    method = check_choice(method, "method", METHODS)
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

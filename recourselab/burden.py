"""Burden metrics of FACEGroup: minimum resources, AUC scores, saturation points, attribute change frequency.

All metrics take a cost matrix ``C`` (factuals x candidates, ``inf`` = not
reachable), typically from :meth:`FeasibilityGraph.costs
<recourselab.graph.FeasibilityGraph.costs>`. Following the paper
:cite:p:`fragkathoulas2025facegroup`, coverage is measured over the
**coverable** factuals only: those with at least one reachable candidate. How
many factuals are not coverable at all is itself a burden, and every result
reports it.

* :func:`minimum_resources`: :math:`k_0`, the fewest counterfactuals covering
  every coverable factual (a set cover; exact MIP or greedy), and :math:`d_0`,
  the smallest cost threshold at which full coverage is possible (closed form:
  the largest cheapest-candidate cost).
* :func:`kauc`, :func:`dauc`, :func:`cauc`: areas under the coverage-over-cost,
  coverage-over-k and cost-over-k curves, normalised to [0, 1], with their
  saturation points.
* :func:`attribute_change_frequency`: how often each feature changes between a
  factual and its assigned counterfactual.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pulp

from .features import Encoder, _check_matrix
from .groupcf import _binary, _check_cost_matrix, _solve, max_coverage, min_max_cost

__all__ = [
    "MinimumResources",
    "minimum_resources",
    "minimum_resources_table",
    "cost_grid",
    "k_grid",
    "nice_values",
    "AUCResult",
    "kauc",
    "dauc",
    "cauc",
    "auc_table",
    "attribute_change_frequency",
    "group_vs_individual_cost",
]


def _coverable(C: np.ndarray) -> np.ndarray:
    return np.isfinite(C).any(axis=1)


@dataclass(frozen=True)
class MinimumResources:
    """The minimum resources for full coverage of the coverable factuals.

    Attributes
    ----------
    k0 : int
        Fewest counterfactuals that together reach every coverable factual
        (0 when no factual is coverable).
    d0 : float
        Smallest cost threshold at which every coverable factual can be
        covered when k is unlimited: the largest cost of a factual's cheapest
        candidate (0 when no factual is coverable).
    selected : ndarray of int
        A set of ``k0`` candidates achieving full coverage.
    n_factuals, n_coverable : int
    status : str
        ``"optimal"`` (exact set cover), ``"greedy"`` (an upper bound on k0)
        or ``"time limit"``.
    """

    k0: int
    d0: float
    selected: np.ndarray
    n_factuals: int
    n_coverable: int
    status: str

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"factuals": self.n_factuals, "coverable": self.n_coverable, "k0": self.k0,
                              "d0": self.d0, "status": self.status}])


def _set_cover_mip(reach: np.ndarray, time_limit: float):
    """Fewest columns of the boolean matrix ``reach`` hitting every row (rows all coverable)."""
    problem = pulp.LpProblem("k0_set_cover", pulp.LpMinimize)
    columns = np.flatnonzero(reach.any(axis=0))
    u = {int(j): _binary(problem, f"u_{j}") for j in columns}
    problem += pulp.lpSum(u.values())
    for x in range(reach.shape[0]):
        problem += pulp.lpSum(u[int(j)] for j in np.flatnonzero(reach[x])) >= 1
    status, has_solution = _solve(problem, time_limit)
    selected = np.array(sorted(j for j, var in u.items() if has_solution and (var.value() or 0) > 0.5), dtype=int)
    if status == "optimal":
        return selected, "optimal"
    if not has_solution:  # stopped before any cover was found: fall back to the greedy cover
        costs = np.where(reach, 1.0, np.inf)
        selected = np.sort(max_coverage(costs, k=costs.shape[1], d=1.0, method="greedy").selected)
    warnings.warn(f"the k0 set-cover MIP stopped at its time limit (time_limit={time_limit:g} s); "
                  "k0 is an upper bound. Raise time_limit for the exact value.", stacklevel=3)
    return selected, "time limit"


def minimum_resources(C, *, method: str = "mip", time_limit: float = 60.0) -> MinimumResources:
    """k0 and d0: the fewest counterfactuals and the lowest cost threshold for full coverage.

    .. math::

        k_0 = \\min\\{k : \\exists S, |S| \\le k, \\operatorname{coverage}(X, S) = |X|\\}, \\qquad
        d_0 = \\max_{x \\in X} \\min_{x' \\in X'} \\operatorname{cost}(x, x')

    over the coverable factuals :math:`X`. :math:`k_0` is a minimum set cover
    (exact with ``method="mip"``, an upper bound with ``method="greedy"``);
    :math:`d_0` needs no search: with unlimited counterfactuals every factual
    takes its cheapest candidate.

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs, ``inf`` = not reachable.
    method : {"mip", "greedy"}, default "mip"
    time_limit : float, default 60
        Seconds for the MIP; a time-limited result says so in ``status``.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, np.inf, 3.0], [np.inf, 2.0, 0.5], [np.inf, np.inf, np.inf]])
    >>> r = minimum_resources(C)
    >>> r.k0, r.d0, r.n_coverable
    (1, 1.0, 2)
    """
    C = _check_cost_matrix(C)
    if method not in ("mip", "greedy"):
        raise ValueError(f"method={method!r} is not one of ('mip', 'greedy').")
    coverable = _coverable(C)
    n_cov = int(coverable.sum())
    if n_cov == 0:
        return MinimumResources(0, 0.0, np.array([], dtype=int), len(C), 0, "optimal")
    d0 = float(np.min(C[coverable], axis=1).max())
    reach = np.isfinite(C[coverable])
    if method == "greedy":
        result = max_coverage(C[coverable], k=C.shape[1], d=float(np.max(C[np.isfinite(C)])), method="greedy")
        selected, status = np.sort(result.selected), "greedy"
    else:
        selected, status = _set_cover_mip(reach, time_limit)
    return MinimumResources(int(selected.size), d0, selected, len(C), n_cov, status)


def minimum_resources_table(C, groups, subgroups=None, *, method: str = "mip", time_limit: float = 60.0) -> pd.DataFrame:
    """k0 and d0 per group and, optionally, per subgroup within each group (FACEGroup's Tables 1 and 5).

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
    groups : array-like of shape (n_factuals,)
        Group of each factual (e.g. sex).
    subgroups : array-like of shape (n_factuals,), optional
        Subgroup of each factual (e.g. its weakly connected component).

    Returns
    -------
    pandas.DataFrame
        Rows ``(group, "all")`` and, with subgroups, ``(group, subgroup)`` for
        subgroups that have coverable factuals; columns factuals, coverable, k0,
        d0, status.
    """
    C = _check_cost_matrix(C)
    groups = np.asarray(groups)
    if groups.shape != (len(C),):
        raise ValueError(f"groups has shape {groups.shape}; give one label per factual ({len(C)}).")
    if subgroups is not None:
        subgroups = np.asarray(subgroups)
        if subgroups.shape != (len(C),):
            raise ValueError(f"subgroups has shape {subgroups.shape}; give one label per factual ({len(C)}).")
    rows = []
    for g in pd.unique(groups):
        members = groups == g
        rows.append({"group": g, "subgroup": "all",
                     **minimum_resources(C[members], method=method, time_limit=time_limit).to_frame().iloc[0]})
        if subgroups is None:
            continue
        for s in pd.unique(subgroups[members]):
            inside = members & (subgroups == s)
            if not _coverable(C[inside]).any():
                continue
            rows.append({"group": g, "subgroup": s,
                         **minimum_resources(C[inside], method=method, time_limit=time_limit).to_frame().iloc[0]})
    return pd.DataFrame(rows).set_index(["group", "subgroup"])


def cost_grid(C, n: int = 12, *, start: float | None = None, stop: float | None = None) -> np.ndarray:
    """``n`` evenly spaced cost thresholds from ``start`` (default: the smallest positive finite cost)
    to ``stop`` (default: the largest finite cost, the paper's "maximum possible cost")."""
    C = _check_cost_matrix(C)
    finite = C[np.isfinite(C)]
    if finite.size == 0:
        raise ValueError("C has no finite cost: no factual can reach any candidate.")
    positive = finite[finite > 0]
    lo = float(positive.min()) if start is None and positive.size else float(start or 0.0)
    hi = float(finite.max()) if stop is None else float(stop)
    if int(n) < 2 or not hi >= lo:
        raise ValueError(f"cost_grid needs n >= 2 and stop >= start; got n={n}, start={lo}, stop={hi}.")
    return np.linspace(lo, hi, int(n))


def k_grid(k_max: int, n: int = 12) -> np.ndarray:
    """Up to ``n`` evenly spaced integers from 1 to ``k_max`` (duplicates removed)."""
    if int(k_max) < 1:
        raise ValueError(f"k_max={k_max} must be at least 1.")
    return np.unique(np.round(np.linspace(1, int(k_max), max(int(n), 1))).astype(int))


def nice_values(lo: float, hi: float, n: int = 4, *, integer: bool = False) -> np.ndarray:
    """``n`` evenly spaced parameter values from ``lo`` with a "nice" step (FACEGroup's choice).

    The raw step (hi - lo) / (n - 1) is rounded *up* to a nice number: one
    significant digit for decimals (0.633 -> 0.7), or one of 1, 2, 3, 4, 5, 7, 10
    times a power of ten for integers; the values are ``lo + i * step``, so the
    last one can exceed ``hi`` slightly. This reproduces the grids of the
    paper's Table 2 (d = 0.1, 0.8, 1.5, 2.2 for costs up to 2; k = 1, 5, 9, 13
    for k0 = 13).

    Examples
    --------
    >>> nice_values(0.1, 2.0).round(6).tolist()
    [0.1, 0.8, 1.5, 2.2]
    >>> nice_values(1, 13, integer=True).tolist()
    [1, 5, 9, 13]
    """
    lo, hi, n = float(lo), float(hi), int(n)
    if not np.isfinite([lo, hi]).all() or hi <= lo or n < 2:
        raise ValueError(f"nice_values needs finite lo < hi and n >= 2; got lo={lo}, hi={hi}, n={n}.")
    raw = (hi - lo) / (n - 1)
    power = 10.0 ** np.floor(np.log10(raw))
    if integer:
        step = max(1.0, min(m * power for m in (1, 2, 3, 4, 5, 7, 10) if m * power >= raw - 1e-12))
        return (np.round(lo) + step * np.arange(n)).astype(int)
    step = np.ceil(raw / power - 1e-9) * power
    return lo + step * np.arange(n)


@dataclass(frozen=True)
class AUCResult:
    """An AUC burden score with its curve and saturation point.

    Attributes
    ----------
    metric : {"kAUC", "dAUC", "cAUC"}
    parameter : float
        The fixed k (kAUC), d (dAUC) or c (cAUC).
    score : float
        Normalised area in [0, 1]: higher is better for kAUC and dAUC, lower
        is better for cAUC.
    saturation : float
        sp: smallest grid value at which the curve reaches its best value
        (cost for kAUC, k for dAUC and cAUC).
    best : float
        That best value: maximum coverage share (kAUC, dAUC) or minimum cost (cAUC).
    curve : pandas.DataFrame
        The grid and the curve's values.
    """

    metric: str
    parameter: float
    score: float
    saturation: float
    best: float
    curve: pd.DataFrame

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"metric": self.metric, "parameter": self.parameter, "score": self.score,
                              "saturation": self.saturation, "best": self.best}])


def _normalised_area(x: np.ndarray, y: np.ndarray, ideal_height: float) -> float:
    """Trapezoid area of y over x divided by ideal_height * (x range); the mean height if x is one point."""
    if ideal_height <= 0:
        return 0.0
    if len(x) == 1 or x[-1] == x[0]:
        return float(y[0] / ideal_height)
    return float(np.trapezoid(y, x) / (ideal_height * (x[-1] - x[0])))


def _grid(values, name, *, integer=False) -> np.ndarray:
    grid = np.asarray(values, dtype=float).ravel()
    if grid.size == 0 or not np.isfinite(grid).all() or (np.diff(grid) <= 0).any():
        raise ValueError(f"{name}={grid.tolist()} must be a non-empty, strictly increasing list of finite numbers.")
    if integer and (grid < 1).any() or integer and not np.all(grid == np.round(grid)):
        raise ValueError(f"{name}={grid.tolist()} must hold integers >= 1.")
    return grid.astype(int) if integer else grid


def kauc(C, k: int, d_grid=None, *, method: str = "greedy", time_limit: float = 60.0) -> AUCResult:
    """kAUC(k): coverage of the best k counterfactuals as the cost threshold d grows.

    .. math:: \\mathrm{kAUC}(k) = \\frac{1}{d_{max} - d_{min}} \\int_{d_{min}}^{d_{max}}
              \\operatorname{coverage}(X, S_{k,d})\\, \\mathrm{d}d

    with coverage as a share of the coverable factuals, so the ideal (full
    coverage at every threshold) scores 1. The integral is a trapezoid over
    ``d_grid`` (default :func:`cost_grid` with 12 points, as in the paper).
    ``saturation`` is sp(k): the smallest threshold on the grid reaching the
    highest coverage. :math:`S_{k,d}` comes from
    :func:`~recourselab.groupcf.max_coverage` with ``method``.
    """
    C = _check_cost_matrix(C)
    C_cov = C[_coverable(C)]
    grid = _grid(cost_grid(C) if d_grid is None else d_grid, "d_grid")
    if len(C_cov) == 0:
        raise ValueError("no factual can reach any candidate; kAUC is undefined.")
    k_used = min(int(k), C_cov.shape[1])  # more than every candidate adds nothing
    share = np.array([max_coverage(C_cov, k_used, d, method=method, time_limit=time_limit).coverage
                      for d in grid]) / len(C_cov)
    best = share.max()
    return AUCResult("kAUC", k, _normalised_area(grid, share, 1.0), float(grid[np.argmax(share >= best)]),
                     float(best), pd.DataFrame({"d": grid, "coverage": share}))


def dauc(C, d: float, k_values=None, *, method: str = "greedy", time_limit: float = 60.0) -> AUCResult:
    """dAUC(d): coverage within cost d as the number of counterfactuals k grows.

    The trapezoid of the coverage share over ``k_values`` (default
    ``k_grid(k0, 12)`` with k0 from a greedy set cover), normalised so full
    coverage for every k scores 1. ``saturation`` is sp(d): the fewest
    counterfactuals on the grid reaching the highest coverage.
    """
    C = _check_cost_matrix(C)
    C_cov = C[_coverable(C)]
    if len(C_cov) == 0:
        raise ValueError("no factual can reach any candidate; dAUC is undefined.")
    if k_values is None:
        k_values = k_grid(minimum_resources(C_cov, method="greedy").k0)
    grid = _grid(k_values, "k_values", integer=True)
    share = np.array([max_coverage(C_cov, min(int(k), C_cov.shape[1]), d, method=method,
                                   time_limit=time_limit).coverage for k in grid]) / len(C_cov)
    best = share.max()
    return AUCResult("dAUC", d, _normalised_area(grid, share, 1.0), float(grid[np.argmax(share >= best)]),
                     float(best), pd.DataFrame({"k": grid, "coverage": share}))


def cauc(C, c: float, k_values=None, *, cost_ceiling: float | None = None, method: str = "greedy",
         time_limit: float = 60.0) -> AUCResult:
    """cAUC(c): the smallest maximum cost reaching coverage c, as the number of counterfactuals grows.

    For each k in ``k_values`` (default ``k_grid(k0, 25)``, the paper's 25
    points), :func:`~recourselab.groupcf.min_max_cost` gives the least radius
    covering a share c of the coverable factuals; where k is too small to reach
    c, the curve holds ``inf`` and the area counts it as ``cost_ceiling``
    (default: the largest finite cost). The trapezoid area is divided by
    ``cost_ceiling`` times the k range, so lower is better and 1 means "never
    reachable". ``best`` is the least cost over the k that reach c, and
    ``saturation`` is sp(c): the fewest counterfactuals on the grid achieving
    it (``inf`` and NaN when no k on the grid reaches c).
    """
    C = _check_cost_matrix(C)
    if not 0 < c <= 1:
        raise ValueError(f"c={c!r} must lie in (0, 1].")
    C_cov = C[_coverable(C)]
    if len(C_cov) == 0:
        raise ValueError("no factual can reach any candidate; cAUC is undefined.")
    ceiling = float(np.max(C_cov[np.isfinite(C_cov)])) if cost_ceiling is None else float(cost_ceiling)
    if k_values is None:
        k_values = k_grid(minimum_resources(C_cov, method="greedy").k0, 25)
    grid = _grid(k_values, "k_values", integer=True)
    costs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # infeasible small k are expected here
        for k in grid:
            result = min_max_cost(C_cov, min(int(k), C_cov.shape[1]), c, method=method, time_limit=time_limit)
            costs.append(result.cost if result.status != "infeasible" else np.inf)
    costs = np.array(costs, dtype=float)
    feasible = np.isfinite(costs)
    # the area scores an unreachable coverage at the ceiling; the best value and
    # saturation point are taken over the k that reach it
    score = _normalised_area(grid, np.minimum(costs, ceiling), ceiling)
    best = float(costs[feasible].min()) if feasible.any() else np.inf
    saturation = float(grid[np.argmax(feasible & (costs <= best))]) if feasible.any() else np.nan
    return AUCResult("cAUC", c, score, saturation, best, pd.DataFrame({"k": grid, "cost": costs}))


def auc_table(C, groups, *, k_values, d_values, c_values, d_grid=None, method: str = "greedy") -> pd.DataFrame:
    """FACEGroup's Table 2 for several groups: kAUC, dAUC, cAUC with saturation points and best values.

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
    groups : array-like of shape (n_factuals,)
    k_values, d_values, c_values : sequences
        The fixed parameters of each metric (the paper uses four of each).
    d_grid : sequence, optional
        Shared cost grid for kAUC (default :func:`cost_grid` of the whole C),
        so the groups are integrated over the same thresholds.

    Returns
    -------
    pandas.DataFrame
        Indexed by (metric, parameter), with columns (group, score / saturation / best).
    """
    C = _check_cost_matrix(C)
    groups = np.asarray(groups)
    if groups.shape != (len(C),):
        raise ValueError(f"groups has shape {groups.shape}; give one label per factual ({len(C)}).")
    d_grid = cost_grid(C) if d_grid is None else d_grid
    frames = {}
    for g in pd.unique(groups):
        Cg = C[groups == g]
        rows = [kauc(Cg, int(k), d_grid, method=method).to_frame() for k in k_values]
        rows += [dauc(Cg, float(d), method=method).to_frame() for d in d_values]
        rows += [cauc(Cg, float(c), method=method).to_frame() for c in c_values]
        frames[g] = pd.concat(rows).set_index(["metric", "parameter"])
    return pd.concat(frames, axis=1)


def attribute_change_frequency(encoder: Encoder, Z_factual, Z_candidates, assignment, *, groups=None,
                               atol: float = 1e-9) -> pd.DataFrame:
    """ACF: the share of covered factuals whose assigned counterfactual changes each feature.

    .. math:: \\mathrm{ACF}(X, S, A) = \\frac{1}{|X_{cov}|} \\sum_{x \\in X_{cov}} (1 - \\delta(x_A, x'_A))

    where :math:`x'` is the factual's assigned counterfactual (its cheapest
    selected candidate, e.g. ``GroupCounterfactuals.assignment``). We average
    over the *covered* factuals :math:`X_{cov}`; an uncovered factual has no
    counterfactual whose changes could be counted.

    Parameters
    ----------
    encoder : Encoder
    Z_factual : array of shape (n_factuals, n_columns)
    Z_candidates : array of shape (n_candidates, n_columns)
    assignment : array of int, shape (n_factuals,)
        Candidate position per factual, -1 = uncovered.
    groups : array-like, optional
        Subgroup label per factual; one row per subgroup (e.g. per component).

    Returns
    -------
    pandas.DataFrame
        One row per group (or a single row "all"), one column per feature, plus
        ``covered`` (number of covered factuals).
    """
    if not isinstance(encoder, Encoder):
        raise TypeError(f"encoder must be a fitted recourselab Encoder, got {type(encoder).__name__}.")
    A = _check_matrix(Z_factual, "Z_factual", encoder.n_columns)
    B = _check_matrix(Z_candidates, "Z_candidates", encoder.n_columns)
    assignment = np.asarray(assignment)
    if assignment.shape != (len(A),):
        raise ValueError(f"assignment has shape {assignment.shape}; give one entry per factual ({len(A)}).")
    if assignment.size and (assignment.max() >= len(B) or assignment.min() < -1):
        raise ValueError("assignment holds positions outside the candidates (or below -1).")
    groups = np.full(len(A), "all", dtype=object) if groups is None else np.asarray(groups)
    if groups.shape != (len(A),):
        raise ValueError(f"groups has shape {groups.shape}; give one label per factual ({len(A)}).")
    covered = assignment >= 0
    changed = np.zeros((len(A), len(encoder.feature_names)), dtype=bool)
    if covered.any():
        changed[covered] = encoder.feature_distances(A[covered], B[assignment[covered]]) > atol
    frame = pd.DataFrame(changed[covered], columns=encoder.feature_names)
    frame["group"] = groups[covered]
    table = frame.groupby("group", sort=False).mean()
    table.insert(0, "covered", frame.groupby("group", sort=False).size())
    return table


def group_vs_individual_cost(C, k_values, *, method: str = "mip", time_limit: float = 60.0) -> pd.DataFrame:
    """The price of explaining a group with k counterfactuals instead of one per person (FACEGroup's Fig. 5).

    For each k: find the largest coverage k counterfactuals can reach at any
    cost (:func:`~recourselab.groupcf.max_coverage` with d = the largest finite
    cost), choose k counterfactuals reaching that coverage at the least
    largest cost (:func:`~recourselab.groupcf.min_max_cost`), and compare the
    mean cost of the served factuals under that group solution with the mean of
    their own cheapest candidates (FACE's individual counterfactuals, a lower
    bound).

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs over coverable factuals (rows with no finite entry are ignored).
    k_values : sequence of int
    method : {"mip", "greedy"}, default "mip"

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``served``, ``group mean cost``, ``individual mean cost``,
        ``extra cost (%)``.
    """
    C = _check_cost_matrix(C)
    C = C[_coverable(C)]
    if len(C) == 0:
        raise ValueError("no factual can reach any candidate; there is nothing to compare.")
    grid = _grid(k_values, "k_values", integer=True)
    largest = float(C[np.isfinite(C)].max())
    individual = C.min(axis=1)
    rows = []
    for k in grid:
        k_used = min(int(k), C.shape[1])
        reach = max_coverage(C, k_used, largest, method=method, time_limit=time_limit)
        group = min_max_cost(C, k_used, reach.coverage / len(C), method=method, time_limit=time_limit)
        served = group.assignment >= 0
        group_mean, own_mean = float(group.assigned_cost[served].mean()), float(individual[served].mean())
        rows.append({"k": int(k), "served": int(served.sum()), "group mean cost": group_mean,
                     "individual mean cost": own_mean,
                     "extra cost (%)": 100 * (group_mean / own_mean - 1) if own_mean > 0 else 0.0})
    return pd.DataFrame(rows)

"""The AUC burden scores of FACEGroup (kAUC, dAUC, cAUC), their grids, and one shared scale for groups.

* :func:`kauc`, :func:`dauc`, :func:`cauc`: areas under the coverage-over-cost,
  coverage-over-k and cost-over-k curves, normalised to [0, 1], with their
  saturation points (the reading of the paper's Sec. 4 the book adopts: each
  area is divided by its ideal, full coverage over the whole grid, or the cost
  ceiling over the whole k range). The literal versions are
  :func:`recourselab.group_counterfactuals.paper.kauc`,
  :func:`~recourselab.group_counterfactuals.paper.dauc` and
  :func:`~recourselab.group_counterfactuals.paper.cauc`.
* :func:`cost_grid`, :func:`k_grid`, :func:`nice_values`: the grids.

Comparing groups needs **one scale**: :func:`auc_table` integrates every group
over the same grids and divides cAUC by the same cost ceiling, and states them
in its output. Normalising each group by its own largest cost would make cAUC
blind to a difference in cost level (a group whose costs are all doubled would
score the same), which is exactly the difference a burden audit looks for.
Scores rest on the costs given (feasible path costs), not on advice:
``advice="relaxation"``.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import (
    check_array,
    check_choice,
    check_cost_matrix,
    check_int,
    check_integers,
    check_labels,
    check_number,
    plain,
)
from ._greedy import _FarthestFirst, _greedy_min_max_cost
from .burden import _budget, _count_grid, _coverable, _increasing, _time_left, minimum_resources
from .selection import _cheapest, _need, _radius, max_coverage, min_max_cost

__all__ = ["cost_grid", "k_grid", "nice_values", "AUCResult", "kauc", "dauc", "cauc", "auc_table"]


def cost_grid(C, n: int = 12, *, start: float | None = None, stop: float | None = None) -> np.ndarray:
    """``n`` evenly spaced cost thresholds from ``start`` to ``stop``, the grid of kAUC.

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs, ``inf`` = not reachable; at least one finite cost.
    n : int, default 12
        Number of thresholds (the paper uses 12), at least 2.
    start : float, optional
        Finite and >= 0; default the smallest positive finite cost (0 when
        every finite cost is 0).
    stop : float, optional
        Finite and >= ``start``; default the largest finite cost (the paper's
        "maximum possible cost").

    Returns
    -------
    ndarray
        ``n`` increasing thresholds, or the single threshold ``start`` when
        ``start == stop`` (e.g. every finite cost is the same).

    Examples
    --------
    >>> import numpy as np
    >>> cost_grid(np.array([[0.0, 2.0], [np.inf, 4.0]]), 3).tolist()
    [2.0, 3.0, 4.0]
    """
    C = check_cost_matrix(C)
    n = check_int(n, "n", minimum=2)
    finite = C[np.isfinite(C)]
    if finite.size == 0:
        raise ValueError("C has no finite cost: no factual can reach any candidate.")
    positive = finite[finite > 0]
    if start is None:
        lo = float(positive.min()) if positive.size else 0.0
    else:
        lo = check_number(start, "start", minimum=0.0)
    hi = float(finite.max()) if stop is None else check_number(stop, "stop", minimum=0.0)
    if hi < lo:
        raise ValueError(f"stop={hi:g} is below start={lo:g}; give stop >= start.")
    if hi == lo:
        return np.array([lo])
    return np.linspace(lo, hi, n)


def k_grid(k_max: int, n: int = 12) -> np.ndarray:
    """Up to ``n`` evenly spaced integers from 1 to ``k_max`` (rounded, duplicates removed): a grid of k.

    Parameters
    ----------
    k_max : int
        Largest k, at least 1 (typically k0).
    n : int, default 12
        Number of points before duplicates are removed, at least 2 (the
        paper uses 12 for dAUC and 25 for cAUC).

    Examples
    --------
    >>> k_grid(30, 4).tolist()
    [1, 11, 20, 30]
    """
    k_max = check_int(k_max, "k_max", minimum=1)
    n = check_int(n, "n", minimum=2)
    return np.unique(np.round(np.linspace(1, k_max, n)).astype(int))


def nice_values(lo: float, hi: float, n: int = 4, *, integer: bool = False) -> np.ndarray:
    """``n`` evenly spaced parameter values from ``lo`` with a "nice" step (FACEGroup's choice).

    The raw step (hi - lo) / (n - 1) is rounded *up* to a nice number: one
    significant digit for decimals (0.633 -> 0.7), or one of 1, 2, 3, 4, 5, 7, 10
    times a power of ten for integers; the values are ``lo + i * step``, so the
    last one can exceed ``hi`` slightly. This reproduces the grids of the
    paper's Table 2 (d = 0.1, 0.8, 1.5, 2.2 for costs up to 2; k = 1, 5, 9, 13
    for k0 = 13).

    Parameters
    ----------
    lo, hi : float
        Finite, ``lo < hi``.
    n : int, default 4
        Number of values, at least 2.
    integer : bool, default False
        Integer values (for k) instead of decimals.

    Examples
    --------
    >>> nice_values(0.1, 2.0).round(6).tolist()
    [0.1, 0.8, 1.5, 2.2]
    >>> nice_values(1, 13, integer=True).tolist()
    [1, 5, 9, 13]
    """
    lo, hi, n = check_number(lo, "lo"), check_number(hi, "hi"), check_int(n, "n", minimum=2)
    if hi <= lo:
        raise ValueError(f"nice_values needs lo < hi; got lo={lo:g}, hi={hi:g}.")
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
    advice : str
        Always ``"relaxation"``: a burden measure on the costs ``C`` given
        (feasible path costs), not on moves checked against an advice policy.
    """

    metric: str
    parameter: float
    score: float
    saturation: float
    best: float
    curve: pd.DataFrame
    advice: str = "relaxation"

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"metric": self.metric, "parameter": self.parameter, "score": self.score,
                              "saturation": self.saturation, "best": self.best}])


def _normalised_area(x: np.ndarray, y: np.ndarray, ideal_height: float) -> float:
    """Trapezoid area of y over x divided by ideal_height * (x range); y[0] / ideal_height if x is one point."""
    if len(x) == 1:
        return float(y[0] / ideal_height)
    return float(np.trapezoid(y, x) / (ideal_height * (x[-1] - x[0])))


def _threshold_grid(values, name: str) -> np.ndarray:
    """A grid of cost thresholds: finite, >= 0, strictly increasing (bools are not costs)."""
    if np.asarray(values).dtype.kind == "b":
        raise TypeError(f"{name} holds bools; give cost thresholds (numbers).")
    grid = check_array(values, name, minimum=0.0)
    _increasing(grid, name)
    return grid


def _default_ceiling(C: np.ndarray) -> float:
    largest = float(C[np.isfinite(C)].max())
    if largest <= 0:
        raise ValueError("every finite cost in C is 0, so the default cost_ceiling (the largest finite cost) "
                         "is 0 and cannot scale cAUC; pass cost_ceiling > 0.")
    return largest


def _share(c, name: str = "c") -> float:
    """A share of the coverable factuals to cover, in (0, 1]."""
    return check_number(c, name, minimum=0.0, strict_minimum=True, maximum=1.0)


def _ceiling(cost_ceiling) -> float:
    """The cost ceiling of cAUC: finite and > 0."""
    return check_number(cost_ceiling, "cost_ceiling", minimum=0.0, strict_minimum=True)


def kauc(C, k: int, d_grid=None, *, method: str = "greedy", time_limit: float = 60.0) -> AUCResult:
    """kAUC(k): coverage of the best k counterfactuals as the cost threshold d grows.

    .. math:: \\mathrm{kAUC}(k) = \\frac{1}{d_{max} - d_{min}} \\int_{d_{min}}^{d_{max}}
              \\operatorname{coverage}(X, S_{k,d})\\, \\mathrm{d}d

    with coverage as a share of the coverable factuals, so the ideal (full
    coverage at every threshold) scores 1. The integral is a trapezoid over
    ``d_grid`` (default :func:`cost_grid` of this ``C`` with 12 points, as in
    the paper). ``saturation`` is sp(k): the smallest threshold on the grid
    reaching the highest coverage. :math:`S_{k,d}` comes from
    :func:`~recourselab.group_counterfactuals.max_coverage` with ``method``.

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs, ``inf`` = not reachable.
    k : int
        Number of counterfactuals, at least 1 (more than the candidates counts
        as all of them).
    d_grid : sequence of float, optional
        Strictly increasing, finite cost thresholds >= 0. To compare groups,
        give every group the same grid (:func:`auc_table` does): the default
        depends on the costs of the ``C`` given.
    method : {"greedy", "mip"}, default "greedy"
    time_limit : float, default 60
        Seconds for the whole call with ``method="mip"`` (one MIP per
        threshold, each given the time left); TimeoutError when it runs out
        before the curve is complete.
    """
    C = check_cost_matrix(C)
    k = check_int(k, "k", minimum=1)
    C_cov = C[_coverable(C)]
    grid = _threshold_grid(cost_grid(C) if d_grid is None else d_grid, "d_grid")
    if len(C_cov) == 0:
        raise ValueError("no factual can reach any candidate; kAUC is undefined.")
    k_used = min(k, C_cov.shape[1])  # more than every candidate adds nothing
    deadline = _budget(method, time_limit)
    share = np.array([max_coverage(C_cov, k_used, float(d), method=method,
                                   time_limit=_time_left(deadline, f"threshold d={float(d):g}")).coverage
                      for d in grid]) / len(C_cov)
    best = share.max()
    return AUCResult("kAUC", k, _normalised_area(grid, share, 1.0), float(grid[np.argmax(share >= best)]),
                     float(best), pd.DataFrame({"d": grid, "coverage": share}))


def dauc(C, d: float, k_values=None, *, method: str = "greedy", time_limit: float = 60.0) -> AUCResult:
    """dAUC(d): coverage within cost d as the number of counterfactuals k grows.

    .. math:: \\mathrm{dAUC}(d) = \\frac{1}{k_{max} - k_{min}} \\int_{k_{min}}^{k_{max}}
              \\operatorname{coverage}(X, S_{k,d})\\, \\mathrm{d}k

    The trapezoid of the coverage share (of the coverable factuals) over
    ``k_values``, normalised so full coverage for every k scores 1.
    ``saturation`` is sp(d): the fewest counterfactuals on the grid reaching
    the highest coverage.

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs, ``inf`` = not reachable.
    d : float
        Cost threshold, finite and >= 0.
    k_values : sequence of int, optional
        The grid of k: strictly increasing integers >= 1. Default
        ``k_grid(k0, 12)`` with k0 from a greedy set cover of *this* ``C``; to
        compare groups give every group the same grid (:func:`auc_table` does).
    method : {"greedy", "mip"}, default "greedy"
    time_limit : float, default 60
        Seconds for the whole call with ``method="mip"`` (each MIP gets the
        time left); TimeoutError when it runs out before the curve is complete.
    """
    C = check_cost_matrix(C)
    d = check_number(d, "d", minimum=0.0)
    C_cov = C[_coverable(C)]
    if len(C_cov) == 0:
        raise ValueError("no factual can reach any candidate; dAUC is undefined.")
    if k_values is None:
        k_values = k_grid(minimum_resources(C_cov, method="greedy").k0)
    grid = _count_grid(k_values, "k_values")
    deadline = _budget(method, time_limit)
    share = np.array([max_coverage(C_cov, min(int(k), C_cov.shape[1]), d, method=method,
                                   time_limit=_time_left(deadline, f"k={int(k)}")).coverage
                      for k in grid]) / len(C_cov)
    best = share.max()
    return AUCResult("dAUC", d, _normalised_area(grid, share, 1.0), float(grid[np.argmax(share >= best)]),
                     float(best), pd.DataFrame({"k": grid, "coverage": share}))


def _greedy_costs(C: np.ndarray, c: float, ks: list[int]) -> list[float]:
    """``min_max_cost(C, k, c).cost`` of the greedy for each k (inf where it fails), from one shared search.

    The farthest-first runs at a radius do not depend on k (k only stops them), so one search
    object serves every k: the same answers as calling ``min_max_cost`` once per k, without
    redoing each radius. Every row of ``C`` is coverable.
    """
    need = _need(c, C.shape[0])
    search, radii = _FarthestFirst(C), np.unique(C[np.isfinite(C)])
    costs = []
    for k in ks:
        order, reached = _greedy_min_max_cost(search, radii, k, need, False)
        costs.append(_radius(_cheapest(C, order)[0], need) if reached else np.inf)
    return costs


def cauc(C, c: float, k_values=None, *, cost_ceiling: float | None = None, method: str = "greedy",
         time_limit: float = 60.0) -> AUCResult:
    """cAUC(c): the smallest maximum cost reaching coverage c, as the number of counterfactuals grows.

    With :math:`r_c(k)` the least radius within which k counterfactuals cover a
    share c of the coverable factuals (:func:`~recourselab.group_counterfactuals.min_max_cost`;
    :math:`\\infty` where k is too small) and :math:`\\bar d` = ``cost_ceiling``,

    .. math:: \\mathrm{cAUC}(c) = \\frac{1}{\\bar d\\,(k_{max} - k_{min})}
              \\int_{k_{min}}^{k_{max}} \\min(r_c(k), \\bar d)\\, \\mathrm{d}k,

    a trapezoid over ``k_values``. Lower is better: 0 means coverage c at cost
    0 for every k, 1 means c is never reached (or only at the ceiling or
    above). The ideal it is measured against is the ceiling held over the
    whole k range, so the score is in units of the ceiling: two groups are
    comparable only with the **same** ceiling (and the same k grid). With
    each group's own largest cost as its ceiling, a group whose costs were all
    doubled would get the very same score. :func:`auc_table` shares both.

    ``best`` is the least cost over the k that reach c, and ``saturation`` is
    sp(c): the fewest counterfactuals on the grid achieving it (``inf`` and NaN
    when no k on the grid reaches c).

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs, ``inf`` = not reachable.
    c : float
        Share of the coverable factuals to cover, in (0, 1].
    k_values : sequence of int, optional
        The grid of k: strictly increasing integers >= 1. Default
        ``k_grid(k0, 25)`` (the paper's 25 points) with k0 from a greedy set
        cover of *this* ``C``.
    cost_ceiling : float, optional
        Finite and > 0. Default: the largest finite cost in *this* ``C``
        (an error if that is 0).
    method : {"greedy", "mip"}, default "greedy"
    time_limit : float, default 60
        Seconds for the whole call with ``method="mip"`` (each MIP gets the
        time left); TimeoutError when it runs out before the curve is complete.

    Examples
    --------
    Under one ceiling, doubling every cost doubles the score (no point is capped here):

    >>> import numpy as np
    >>> C = np.array([[1.0, 2.0], [2.0, 1.0]])
    >>> cauc(C, 1.0, [1, 2], cost_ceiling=8.0).score, cauc(2 * C, 1.0, [1, 2], cost_ceiling=8.0).score
    (0.1875, 0.375)
    """
    C = check_cost_matrix(C)
    c = _share(c)
    ceiling = None if cost_ceiling is None else _ceiling(cost_ceiling)
    C_cov = C[_coverable(C)]
    if len(C_cov) == 0:
        raise ValueError("no factual can reach any candidate; cAUC is undefined.")
    if ceiling is None:
        ceiling = _default_ceiling(C_cov)
    if k_values is None:
        k_values = k_grid(minimum_resources(C_cov, method="greedy").k0, 25)
    grid = _count_grid(k_values, "k_values")
    deadline = _budget(method, time_limit)
    costs, limited = [], []
    if method == "greedy":
        costs = _greedy_costs(C_cov, c, [min(int(k), C_cov.shape[1]) for k in grid])
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # infeasible small k are expected here; time limits are reported below
            for k in grid:
                result = min_max_cost(C_cov, min(int(k), C_cov.shape[1]), c, method=method,
                                      time_limit=_time_left(deadline, f"k={int(k)}"))
                costs.append(result.cost if result.status != "infeasible" else np.inf)
                if result.status == "time limit":
                    limited.append(int(k))
    if limited:
        warnings.warn(f"cAUC: the MIP stopped at the time limit for k = {limited}; those costs are the best found, "
                      "not proven minimal, so the score may be too high. Raise time_limit.", stacklevel=2)
    costs = np.array(costs, dtype=float)
    feasible = np.isfinite(costs)
    # the area scores an unreachable coverage at the ceiling; the best value and
    # saturation point are taken over the k that reach it
    score = _normalised_area(grid, np.minimum(costs, ceiling), ceiling)
    best = float(costs[feasible].min()) if feasible.any() else np.inf
    saturation = float(grid[np.argmax(feasible & (costs <= best))]) if feasible.any() else np.nan
    return AUCResult("cAUC", c, score, saturation, best, pd.DataFrame({"k": grid, "cost": costs}))


_SCALE = "shared scale"  # the top column label of auc_table's grid and normalisation columns


def _describe(symbol: str, grid: np.ndarray) -> str:
    if len(grid) == 1:
        return f"{symbol}: 1 point, {grid[0]:.3g}"
    return f"{symbol}: {len(grid)} points, {grid[0]:.3g}–{grid[-1]:.3g}"


def auc_table(C, groups, *, k_values, d_values, c_values, d_grid=None, k_grid_dauc=None, k_grid_cauc=None,
              cost_ceiling: float | None = None, method: str = "greedy") -> pd.DataFrame:
    """FACEGroup's Table 2 for several groups, on one scale: kAUC, dAUC, cAUC with saturation points and best values.

    Every group is scored against the **same** grids and the **same** cost
    ceiling, computed once from the whole ``C`` unless given:

    * kAUC integrates coverage over ``d_grid`` (default :func:`cost_grid` of
      the whole ``C``: 12 thresholds from its smallest positive to its largest
      finite cost) and is divided by full coverage over that range;
    * dAUC integrates coverage over ``k_grid_dauc`` (default
      ``k_grid(k_max, 12)``) and is divided by full coverage over that range;
    * cAUC integrates the least cost reaching coverage c over ``k_grid_cauc``
      (default ``k_grid(k_max, 25)``), capped at ``cost_ceiling`` (default:
      the largest finite cost in the whole ``C``), and is divided by the
      ceiling times the k range (see :func:`cauc`);

    where ``k_max`` is the largest k0 among the groups (each from a greedy set
    cover, an upper bound on the exact k0), so every group can reach full
    coverage within the range; the paper's grids likewise run to the larger
    group's k0 (k = 1, 5, 9, 13 for k0 = 9 and 12).

    A shared scale is what lets a difference in cost level show: if each
    group's cAUC were divided by its own largest cost, doubling one group's
    costs would leave its score unchanged, and a c = 1 score near 1 would only
    say that full coverage costs about the group's *own* largest cost. Coverage
    shares (kAUC, dAUC) remain shares of each group's own coverable factuals.

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs, ``inf`` = not reachable.
    groups : array-like of shape (n_factuals,)
        Group of each factual; no missing labels (None, NaN). Every group
        needs at least one coverable factual (else its AUCs are undefined:
        leave it out and report it, e.g. with :func:`minimum_resources_table`).
    k_values : sequence of int
        The fixed k of kAUC (the paper uses four values in [1, k0]).
    d_values : sequence of float
        The fixed cost thresholds d of dAUC, finite and >= 0.
    c_values : sequence of float
        The fixed coverage shares c of cAUC, in (0, 1].
    d_grid : sequence of float, optional
        Shared cost grid of kAUC.
    k_grid_dauc, k_grid_cauc : sequence of int, optional
        Shared grids of k for dAUC and cAUC (strictly increasing integers >= 1).
    cost_ceiling : float, optional
        Shared ceiling of cAUC, finite and > 0.
    method : {"greedy", "mip"}, default "greedy"
        Algorithm for each point of each curve.

    Returns
    -------
    pandas.DataFrame
        Indexed by (metric, parameter), with columns (group, score / saturation
        / best) and two columns stating the scale of each row:
        ``("shared scale", "grid")`` (e.g. ``"k: 12 points, 1–13"``) and
        ``("shared scale", "normalised by")`` (e.g. ``"cost ceiling 2.37 × k
        range"``). ``attrs`` holds the same for programs: ``"d_grid"``,
        ``"k_grid_dauc"``, ``"k_grid_cauc"`` (tuples) and ``"cost_ceiling"``
        (float), and ``"advice"``: ``"relaxation"`` (burden on the costs given).

    Raises
    ------
    ValueError
        For missing group labels, a group with no coverable factual, or
        parameters or grids out of range; TypeError for fractional k.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 3.0], [3.0, 1.0], [2.0, np.inf], [np.inf, 2.0]])
    >>> table = auc_table(C, ["a", "a", "b", "b"], k_values=[1], d_values=[2.0], c_values=[1.0], cost_ceiling=4.0)
    >>> table.loc[("cAUC", 1.0), [("a", "score"), ("b", "score")]].tolist()
    [0.5, 0.75]
    >>> table.loc[("cAUC", 1.0), "shared scale"].tolist()
    ['k: 2 points, 1–2', 'cost ceiling 4 × k range']
    >>> table.attrs["k_grid_cauc"], table.attrs["cost_ceiling"]
    ((1, 2), 4.0)
    """
    C = check_cost_matrix(C)
    groups = check_labels(groups, "groups", len(C), what="factual")
    ks = check_integers(k_values, "k_values").ravel()
    if (ks < 1).any():
        i = int(np.flatnonzero(ks < 1)[0])
        raise ValueError(f"k_values[{i}]={ks[i]} must be at least 1 (a number of counterfactuals).")
    ds = [check_number(d, f"d_values[{i}]", minimum=0.0)
          for i, d in enumerate(np.asarray(d_values, dtype=object).ravel())]
    cs = [_share(c, f"c_values[{i}]") for i, c in enumerate(np.asarray(c_values, dtype=object).ravel())]
    if len(ks) + len(ds) + len(cs) == 0:
        raise ValueError("k_values, d_values and c_values are all empty; give the parameters of at least one metric.")
    check_choice(method, "method", ("greedy", "mip"))
    d_grid = _threshold_grid(cost_grid(C) if d_grid is None else d_grid, "d_grid")
    if k_grid_dauc is not None:
        k_grid_dauc = _count_grid(k_grid_dauc, "k_grid_dauc")
    if k_grid_cauc is not None:
        k_grid_cauc = _count_grid(k_grid_cauc, "k_grid_cauc")
    ceiling = _default_ceiling(C) if cost_ceiling is None else _ceiling(cost_ceiling)
    labels = [plain(g) for g in pd.unique(groups)]
    if _SCALE in labels:
        raise ValueError(f"groups holds the label {_SCALE!r}, which auc_table uses for its scale columns; "
                         "rename that group.")
    coverable = _coverable(C)
    members = {g: groups == g for g in labels}
    for g, m in members.items():
        if not coverable[m].any():
            raise ValueError(f"groups: group {g!r} has no coverable factual (none of its {int(m.sum())} factuals "
                             "reaches a candidate), so its AUCs are undefined; leave it out of C and groups and "
                             "report it separately (minimum_resources_table counts it).")
    if k_grid_dauc is None or k_grid_cauc is None:
        k_max = max(minimum_resources(C[m & coverable], method="greedy").k0 for m in members.values())
        k_grid_dauc = k_grid(k_max, 12) if k_grid_dauc is None else k_grid_dauc
        k_grid_cauc = k_grid(k_max, 25) if k_grid_cauc is None else k_grid_cauc
    frames = {}
    for g, m in members.items():
        Cg = C[m]
        rows = [kauc(Cg, k, d_grid, method=method).to_frame() for k in ks]
        rows += [dauc(Cg, d, k_grid_dauc, method=method).to_frame() for d in ds]
        rows += [cauc(Cg, c, k_grid_cauc, cost_ceiling=ceiling, method=method).to_frame() for c in cs]
        frames[g] = pd.concat(rows).set_index(["metric", "parameter"])
    table = pd.concat(frames, axis=1)
    table[(_SCALE, "grid")] = ([_describe("d", d_grid)] * len(ks) + [_describe("k", k_grid_dauc)] * len(ds)
                               + [_describe("k", k_grid_cauc)] * len(cs))
    table[(_SCALE, "normalised by")] = (["full coverage × d range"] * len(ks) + ["full coverage × k range"] * len(ds)
                                        + [f"cost ceiling {ceiling:.4g} × k range"] * len(cs))
    # tuples, not arrays: pandas compares attrs when it combines frames, and arrays have no truth value
    table.attrs.update({"d_grid": tuple(float(d) for d in d_grid), "k_grid_dauc": tuple(int(k) for k in k_grid_dauc),
                        "k_grid_cauc": tuple(int(k) for k in k_grid_cauc), "cost_ceiling": ceiling,
                        "advice": "relaxation"})
    return table

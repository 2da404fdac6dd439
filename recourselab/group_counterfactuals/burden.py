"""Burden metrics of FACEGroup: minimum resources, attribute change frequency, group against individual cost.

All metrics take a cost matrix ``C`` (factuals x candidates, ``inf`` = not
reachable), typically from :meth:`FeasibilityGraph.costs
<recourselab.group_counterfactuals.FeasibilityGraph.costs>`. Following the paper
:cite:p:`fragkathoulas2025facegroup`, coverage is measured over the
**coverable** factuals only: those with at least one reachable candidate. How
many factuals are not coverable at all is itself a burden, and every result
reports it.

* :func:`minimum_resources`: :math:`k_0`, the fewest counterfactuals covering
  every coverable factual (a set cover; exact MIP or greedy), and :math:`d_0`,
  the smallest cost threshold at which full coverage is possible (closed form:
  the largest cheapest-candidate cost); :func:`minimum_resources_table` per
  group and subgroup.
* :func:`attribute_change_frequency`: how often each feature changes between a
  factual and its assigned counterfactual.
* :func:`group_vs_individual_cost`: the price of k group counterfactuals
  against one per person.

The AUC scores are in the module ``auc``. Every
result is a burden measure on the costs it is given (feasible path costs on the
feasibility graph), not advice: it says so with ``advice="relaxation"`` (a field,
or ``attrs["advice"]`` of a table).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pulp

from .._mip import Deadline, binary, check_time_limit, solve
from .._validation import check_array, check_choice, check_cost_matrix, check_integers, check_labels, plain
from ..counterfactuals.nearest import NO_COUNTERFACTUAL
from ..features import Encoder, check_encoder
from .selection import max_coverage, min_max_cost

__all__ = [
    "MinimumResources",
    "minimum_resources",
    "minimum_resources_table",
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
    advice : str
        Always ``"relaxation"``: k0 and d0 are burden measures on the costs
        ``C`` they are given (on the feasibility graph, feasible path costs),
        not on moves checked against an advice policy (see
        :class:`~recourselab.group_counterfactuals.GroupCounterfactuals`).
    """

    k0: int
    d0: float
    selected: np.ndarray
    n_factuals: int
    n_coverable: int
    status: str
    advice: str = "relaxation"

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame([{"factuals": self.n_factuals, "coverable": self.n_coverable, "k0": self.k0,
                              "d0": self.d0, "status": self.status}])


def _set_cover_mip(reach: np.ndarray, time_limit: float):
    """Fewest columns of the boolean matrix ``reach`` hitting every row (rows all coverable)."""
    problem = pulp.LpProblem("k0_set_cover", pulp.LpMinimize)
    columns = np.flatnonzero(reach.any(axis=0))
    u = {int(j): binary(problem, f"u_{j}") for j in columns}
    problem += pulp.lpSum(u.values())
    for x in range(reach.shape[0]):
        problem += pulp.lpSum(u[int(j)] for j in np.flatnonzero(reach[x])) >= 1
    status, has_solution = solve(problem, time_limit)
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
    takes its cheapest candidate. The literal definitions are
    :func:`recourselab.group_counterfactuals.paper.minimum_resources`.

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
    C = check_cost_matrix(C)
    check_choice(method, "method", ("mip", "greedy"))
    time_limit = check_time_limit(time_limit)
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


def minimum_resources_table(C, groups, subgroups=None, *, method: str = "mip",
                            time_limit: float = 60.0) -> pd.DataFrame:
    """k0 and d0 per group and, optionally, per subgroup within each group (FACEGroup's Tables 1 and 5).

    Every row is on the same absolute scale: k0 counts counterfactuals and d0
    is a cost in the units of ``C``, with no per-group normalisation or grid,
    so the rows compare directly (a group whose costs are all doubled shows a
    doubled d0). Each row describes the row's *coverable* factuals only; read
    k0 and d0 next to ``coverable``: a group nobody in it can help has k0 = 0
    and d0 = 0 because no resources can serve it, which is the heaviest burden,
    not the lightest.

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
    groups : array-like of shape (n_factuals,)
        Group of each factual (e.g. sex); no missing labels (None, NaN).
    subgroups : array-like of shape (n_factuals,), optional
        Subgroup of each factual (e.g. its weakly connected component); no
        missing labels.
    method : {"mip", "greedy"}, default "mip"
        How k0 is found (see :func:`minimum_resources`).
    time_limit : float, default 60
        Seconds for the whole table: each set-cover MIP gets the time left, and
        rows reached after it has run out are reported with status
        ``"not solved"`` (k0 and d0 NaN) and a warning.

    Returns
    -------
    pandas.DataFrame
        Rows ``(group, "all")`` and, with subgroups, ``(group, subgroup)`` for
        subgroups that have coverable factuals; columns factuals, coverable, k0,
        d0, status. ``attrs["advice"]`` is ``"relaxation"``: burden on the
        costs given (see :class:`MinimumResources`).

    Raises
    ------
    ValueError
        If ``groups`` or ``subgroups`` do not hold one label per factual, or
        hold a missing label (None or NaN), which grouping would drop silently.
    """
    C = check_cost_matrix(C)
    groups = check_labels(groups, "groups", len(C), what="factual")
    if subgroups is not None:
        subgroups = check_labels(subgroups, "subgroups", len(C), what="factual")
    check_choice(method, "method", ("mip", "greedy"))
    deadline = _budget(method, time_limit)
    unsolved = []

    def row(group, subgroup, members):
        if deadline is not None and deadline.expired:
            unsolved.append((group, subgroup))
            return {"group": group, "subgroup": subgroup, "factuals": int(members.sum()),
                    "coverable": int(_coverable(C[members]).sum()), "k0": np.nan, "d0": np.nan,
                    "status": "not solved"}
        left = deadline.remaining() if deadline is not None else 60.0
        return {"group": group, "subgroup": subgroup,
                **minimum_resources(C[members], method=method, time_limit=left).to_frame().iloc[0]}

    rows = []
    for g in pd.unique(groups):
        members = groups == g
        rows.append(row(plain(g), "all", members))
        if subgroups is None:
            continue
        for s in pd.unique(subgroups[members]):
            inside = members & (subgroups == s)
            if not _coverable(C[inside]).any():
                continue
            rows.append(row(plain(g), plain(s), inside))
    if unsolved:
        warnings.warn(f"time_limit={time_limit!r} s ran out before {len(unsolved)} row(s) of the table "
                      f"(first {unsolved[0]}); they have status 'not solved'. Raise time_limit or use "
                      "method='greedy'.", stacklevel=2)
    table = pd.DataFrame(rows).set_index(["group", "subgroup"])
    table.attrs["advice"] = "relaxation"
    return table


def _budget(method: str, time_limit) -> Deadline | None:
    """One time budget for a call that may solve several MIPs (None for greedy, which needs none)."""
    time_limit = check_time_limit(time_limit)
    return Deadline(time_limit) if method == "mip" else None


def _time_left(deadline: Deadline | None, what: str) -> float:
    """Seconds for the next MIP; TimeoutError once the call's time_limit is spent (a partial curve means nothing)."""
    if deadline is None:
        return 60.0  # unused by greedy
    if deadline.expired:
        raise TimeoutError(
            f"time_limit={deadline.seconds:g} s ran out before {what}; the call solves one MIP per grid point. "
            "Raise time_limit, use a coarser grid, or use method='greedy'."
        )
    return deadline.remaining()


def _increasing(grid: np.ndarray, name: str) -> None:
    if grid.size == 0 or (np.diff(grid) <= 0).any():
        raise ValueError(f"{name}={grid.tolist()} must be a non-empty, strictly increasing list.")


def _count_grid(values, name: str) -> np.ndarray:
    """A grid of numbers of counterfactuals: integers >= 1, strictly increasing."""
    grid = check_integers(values, name).ravel()
    if (grid < 1).any():
        i = int(np.flatnonzero(grid < 1)[0])
        raise ValueError(f"{name}[{i}]={grid[i]}: {name} must hold integers >= 1 (numbers of counterfactuals).")
    _increasing(grid, name)
    return grid


def attribute_change_frequency(encoder: Encoder, Z_factual, Z_candidates, assignment, *, groups=None,
                               atol: float = 1e-9) -> pd.DataFrame:
    """ACF: the share of covered factuals whose assigned counterfactual changes each feature.

    .. math:: \\mathrm{ACF}(X, S, A) = \\frac{1}{|X_{cov}|} \\sum_{x \\in X_{cov}} (1 - \\delta(x_A, x'_A))

    where :math:`x'` is the factual's assigned counterfactual (its cheapest
    selected candidate, e.g. ``GroupCounterfactuals.assignment``). We average
    over the *covered* factuals :math:`X_{cov}`; an uncovered factual has no
    counterfactual whose changes could be counted. Each group's row is a share
    of that group's covered factuals (the ``covered`` column gives the
    denominator); a group with no covered factual keeps its row, with
    ``covered`` 0 and NaN shares, rather than disappearing from the comparison.

    Parameters
    ----------
    encoder : Encoder
    Z_factual : array of shape (n_factuals, n_columns)
    Z_candidates : array of shape (n_candidates, n_columns)
    assignment : array of int, shape (n_factuals,)
        Candidate position per factual;
        :data:`~recourselab.counterfactuals.NO_COUNTERFACTUAL` (what
        ``GroupCounterfactuals.assignment`` holds) or -1 = uncovered.
    groups : array-like, optional
        Subgroup label per factual (no missing labels); one row per subgroup
        (e.g. per component).
    atol : float, default 1e-9
        A feature counts as changed when its distance exceeds ``atol``.

    Returns
    -------
    pandas.DataFrame
        One row per group, in order of first appearance (or a single row
        "all"), one column per feature, plus ``covered`` (number of covered
        factuals). ``attrs["advice"]`` is ``"relaxation"``: the changes are those
        of the moves to the assigned counterfactuals, feasible moves not checked
        against an advice policy.
    """
    check_encoder(encoder)
    A = check_array(Z_factual, "Z_factual", ndim=2, width=encoder.n_columns)
    B = check_array(Z_candidates, "Z_candidates", ndim=2, width=encoder.n_columns)
    assignment = check_integers(assignment, "assignment")
    if assignment.shape != (len(A),):
        raise ValueError(f"assignment has shape {assignment.shape}; give one entry per factual ({len(A)}).")
    outside = (assignment >= len(B)) | ((assignment < -1) & (assignment != NO_COUNTERFACTUAL))
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise ValueError(f"assignment[{i}]={assignment[i]} is outside the candidates (positions 0 to {len(B) - 1}); "
                         "mark an uncovered factual with NO_COUNTERFACTUAL (or -1).")
    if groups is None:
        groups = np.full(len(A), "all", dtype=object)
    else:
        groups = check_labels(groups, "groups", len(A), what="factual")
    covered = assignment >= 0
    changed = np.zeros((len(A), len(encoder.feature_names)), dtype=bool)
    if covered.any():
        changed[covered] = encoder.feature_distances(A[covered], B[assignment[covered]]) > atol
    frame = pd.DataFrame(changed[covered], columns=encoder.feature_names)
    frame["group"] = groups[covered]
    table = frame.groupby("group", sort=False).mean()
    table.insert(0, "covered", frame.groupby("group", sort=False).size())
    table = table.reindex(pd.Index([plain(g) for g in pd.unique(groups)], name="group"))
    table["covered"] = table["covered"].fillna(0).astype(int)
    table.attrs["advice"] = "relaxation"
    return table


def group_vs_individual_cost(C, k_values, *, method: str = "mip", time_limit: float = 60.0) -> pd.DataFrame:
    """The price of explaining a group with k counterfactuals instead of one per person (FACEGroup's Fig. 5).

    For each k: find the largest coverage k counterfactuals can reach at any
    cost (:func:`~recourselab.group_counterfactuals.max_coverage` with d = the largest finite
    cost), choose k counterfactuals reaching that coverage at the least
    largest cost (:func:`~recourselab.group_counterfactuals.min_max_cost`), and compare the
    mean cost of the served factuals under that group solution with the mean of
    their own cheapest candidates (FACE's individual counterfactuals, a lower
    bound).

    Parameters
    ----------
    C : array of shape (n_factuals, n_candidates)
        Costs over coverable factuals (rows with no finite entry are ignored).
    k_values : sequence of int
        Strictly increasing integers >= 1.
    method : {"mip", "greedy"}, default "mip"
    time_limit : float, default 60
        Seconds for the whole call with ``method="mip"`` (each MIP gets the
        time left); TimeoutError when it runs out before the curve is complete.

    Returns
    -------
    pandas.DataFrame
        Columns ``k``, ``served``, ``group mean cost``, ``individual mean cost``,
        ``extra cost (%)``; ``attrs["advice"]`` is ``"relaxation"`` (costs as given).
    """
    C = check_cost_matrix(C)
    check_choice(method, "method", ("mip", "greedy"))
    C = C[_coverable(C)]
    if len(C) == 0:
        raise ValueError("no factual can reach any candidate; there is nothing to compare.")
    grid = _count_grid(k_values, "k_values")
    largest = float(C[np.isfinite(C)].max())
    individual = C.min(axis=1)
    deadline = _budget(method, time_limit)
    rows = []
    for k in grid:
        k_used = min(int(k), C.shape[1])
        reach = max_coverage(C, k_used, largest, method=method, time_limit=_time_left(deadline, f"k={int(k)}"))
        group = min_max_cost(C, k_used, reach.coverage / len(C), method=method,
                             time_limit=_time_left(deadline, f"k={int(k)}"))
        served = group.assignment >= 0
        group_mean, own_mean = float(group.assigned_cost[served].mean()), float(individual[served].mean())
        rows.append({"k": int(k), "served": int(served.sum()), "group mean cost": group_mean,
                     "individual mean cost": own_mean,
                     "extra cost (%)": 100 * (group_mean / own_mean - 1) if own_mean > 0 else 0.0})
    table = pd.DataFrame(rows)
    table.attrs["advice"] = "relaxation"
    return table

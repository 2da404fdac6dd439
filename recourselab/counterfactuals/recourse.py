"""Counterfactuals among observed data points: the nearest feasible favourable neighbours.

The simplest recourse that is certain to be realistic is a *real* person who got
the favourable decision and whom the applicant could become by allowed moves.
:func:`nearest_counterfactuals` finds, for every applicant, the cheapest such
people under the :class:`~recourselab.features.Encoder`'s actionability and
costs; :func:`describe_changes` turns one move into a readable table.

This is the data-point restriction that FACE :cite:p:`poyiadzi2020face` and
FACEGroup :cite:p:`fragkathoulas2025facegroup` also use, without their graph of
small steps: here a move is judged only by its end points.

For a **linear** model there is a second generator that is not limited to
observed people: :func:`linear_recourse` moves each row to the model's
boundary by the cheapest weighted move that the same actionability model
allows (the weighted projection onto a half-space inside a box), or by the
paper's inverse-classification MIP :cite:p:`haldar2022raguel` with steps.
Both generators take the :class:`~recourselab.features.Encoder`, so every
recourse they return passes :meth:`Encoder.feasible
<recourselab.features.Encoder.feasible>`.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd
import pulp
from tqdm.auto import tqdm

from .._mip import Deadline, check_time_limit, continuous, solve
from .._validation import check_labels
from ..features import Encoder, check_encoded, check_encoder
from . import _linear

__all__ = [
    "NO_COUNTERFACTUAL",
    "NearestCounterfactuals",
    "nearest_counterfactuals",
    "describe_changes",
    "recourse_by_group",
    "coverage_by_group",
    "LinearRecourse",
    "linear_recourse",
]

#: Position stored where a factual has no (or fewer than ``k``) counterfactuals. It is the
#: smallest int64, so using it as an index raises IndexError instead of silently picking the
#: last row, as -1 would.
NO_COUNTERFACTUAL = int(np.iinfo(np.int64).min)

# factual rows per chunk: the (chunk, n_candidates) cost and mask matrices stay small
_CELLS_PER_CHUNK = 2_000_000


@dataclass(frozen=True)
class NearestCounterfactuals:
    """The ``k`` cheapest (feasible) counterfactuals of each factual row.

    Attributes
    ----------
    index : ndarray of int64, shape (n_factuals, k)
        Row positions in the candidate array, cheapest first;
        :data:`NO_COUNTERFACTUAL` where there are fewer than ``k`` admissible
        candidates (a value numpy refuses as an index, so it cannot select a
        row by mistake).
    cost : ndarray of float, shape (n_factuals, k)
        Cost of each move; ``inf`` where there is no counterfactual.
    n_feasible : ndarray of int, shape (n_factuals,)
        Number of admissible candidates for each factual (all candidates when
        ``feasible_only`` is False).
    feasible_only : bool
        Whether moves had to respect the encoder's actionability.
    norm : str
        ``"l1"`` or ``"l2"`` (see :meth:`~recourselab.features.Encoder.cost`).
    """

    index: np.ndarray
    cost: np.ndarray
    n_feasible: np.ndarray
    feasible_only: bool
    norm: str

    @property
    def best_index(self) -> pd.arrays.IntegerArray:
        """Position of the cheapest counterfactual of each factual; ``<NA>`` where there is none.

        A pandas nullable integer array: indexing a numpy array with it works
        when every factual has a counterfactual and raises otherwise, so an
        absent counterfactual can never pick a row by mistake. Select first,
        e.g. ``candidates[res.best_index[res.has_recourse].to_numpy()]``.
        """
        first = self.index[:, 0]
        absent = first == NO_COUNTERFACTUAL
        return pd.arrays.IntegerArray(np.where(absent, 0, first), absent)

    @property
    def best_cost(self) -> np.ndarray:
        """Cost of the cheapest counterfactual of each factual (``inf`` = none)."""
        return self.cost[:, 0]

    @property
    def has_recourse(self) -> np.ndarray:
        """True where at least one admissible counterfactual exists."""
        return self.n_feasible > 0

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (factual, rank) with the candidate position, cost and ``found`` flag.

        Every factual keeps its ``k`` rows, so people without recourse stay in
        the table: their ``candidate`` is ``<NA>``, their ``cost`` is ``inf``
        and ``found`` is False.
        """
        n, k = self.index.shape
        flat = self.index.ravel()
        absent = flat == NO_COUNTERFACTUAL
        return pd.DataFrame(
            {
                "factual": np.repeat(np.arange(n), k),
                "rank": np.tile(np.arange(1, k + 1), n),
                "candidate": pd.arrays.IntegerArray(np.where(absent, 0, flat), absent),
                "cost": self.cost.ravel(),
                "found": ~absent,
            }
        )


def nearest_counterfactuals(
    Z_factual,
    Z_candidates,
    encoder: Encoder,
    *,
    n_neighbors: int = 1,
    weights: Mapping[str, float] | None = None,
    norm: str = "l1",
    feasible_only: bool = True,
    progress: bool = False,
) -> NearestCounterfactuals:
    """For each factual row, the ``n_neighbors`` cheapest candidate rows it may move to.

    Candidates are typically the observed rows the model decides favourably.
    The cost of a move is :meth:`Encoder.cost <recourselab.features.Encoder.cost>`;
    with ``feasible_only`` a candidate is admissible only when the move respects
    every feature's actionability (:meth:`Encoder.feasible_pairs
    <recourselab.features.Encoder.feasible_pairs>`).

    .. math::

        x^{cf}(x) = \\arg\\min_{x' \\in \\mathcal{C},\\ x \\to x' \\text{ feasible}} \\operatorname{cost}(x, x')

    Parameters
    ----------
    Z_factual : array of shape (n, n_columns)
        Encoded rows that need recourse.
    Z_candidates : array of shape (m, n_columns)
        Encoded rows that may serve as counterfactuals.
    encoder : Encoder
        Fitted encoder that produced both arrays.
    n_neighbors : int, default 1
        How many counterfactuals to return per factual (1 <= n_neighbors <= m).
    weights : mapping, optional
        Per-feature cost weights overriding the specs' ``weight``.
    norm : {"l1", "l2"}, default "l1"
    feasible_only : bool, default True
        False gives the unconstrained nearest neighbours, for comparison.
    progress : bool, default False
        Show a progress bar over chunks of factual rows.

    Returns
    -------
    NearestCounterfactuals

    Notes
    -----
    Costs come from SciPy's ``cdist`` and feasibility from a
    broadcast comparison of the constrained columns, both on chunks of factual
    rows, so memory stays bounded and there is no Python loop over pairs.

    Examples
    --------
    >>> import pandas as pd
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous")]
    >>> frame = pd.DataFrame({"age": [30, 20, 40], "debt": [5, 0, 4]})
    >>> enc = Encoder(specs).fit(frame)
    >>> Z = enc.transform(frame)
    >>> res = nearest_counterfactuals(Z[:1], Z[1:], enc)
    >>> res.best_index.tolist()   # the 20-year-old is closer but younger: infeasible
    [1]
    >>> nearest_counterfactuals(Z[2:], Z[:2], enc).best_index.tolist()   # the 40-year-old cannot get younger
    [<NA>]
    """
    check_encoder(encoder)
    A = check_encoded(Z_factual, "Z_factual", encoder.n_columns)
    B = check_encoded(Z_candidates, "Z_candidates", encoder.n_columns)
    if len(B) == 0:
        raise ValueError("Z_candidates is empty; there is no one to compare with.")
    if not isinstance(n_neighbors, (int, np.integer)) or isinstance(n_neighbors, bool):
        raise TypeError(f"n_neighbors={n_neighbors!r} must be an integer.")
    if not 1 <= n_neighbors <= len(B):
        raise ValueError(f"n_neighbors={n_neighbors} must lie between 1 and the {len(B)} candidates.")
    if norm not in ("l1", "l2"):
        raise ValueError(f"norm={norm!r} is not supported; use 'l1' or 'l2'.")
    k = int(n_neighbors)
    index = np.full((len(A), k), NO_COUNTERFACTUAL, dtype=np.int64)
    cost = np.full((len(A), k), np.inf)
    n_feasible = np.zeros(len(A), dtype=int)
    chunk = max(1, _CELLS_PER_CHUNK // len(B))
    starts = range(0, len(A), chunk)
    for start in tqdm(starts, disable=not progress, desc="factuals", unit="chunk"):
        block = slice(start, start + chunk)
        C = encoder.pairwise_cost(A[block], B, weights=weights, norm=norm)
        if feasible_only:
            C[~encoder.feasible_pairs(A[block], B)] = np.inf
        n_feasible[block] = np.isfinite(C).sum(axis=1)
        top = np.argpartition(C, k - 1, axis=1)[:, :k] if k < len(B) else np.tile(np.arange(len(B)), (len(C), 1))
        top_cost = np.take_along_axis(C, top, axis=1)
        order = np.lexsort((top, top_cost), axis=1)  # by cost, ties by candidate position
        top = np.take_along_axis(top, order, axis=1)
        top_cost = np.take_along_axis(top_cost, order, axis=1)
        top[~np.isfinite(top_cost)] = NO_COUNTERFACTUAL
        index[block], cost[block] = top, top_cost
    return NearestCounterfactuals(index, cost, n_feasible, bool(feasible_only), norm)


def describe_changes(
    encoder: Encoder,
    z_from,
    z_to,
    *,
    weights: Mapping[str, float] | None = None,
    only_changed: bool = True,
) -> pd.DataFrame:
    """A readable table of one move: each feature's value before and after, and its cost.

    Parameters
    ----------
    encoder : Encoder
        Fitted encoder.
    z_from, z_to : array of shape (n_columns,)
        The encoded factual and counterfactual.
    weights : mapping, optional
        Per-feature cost weights overriding the specs' ``weight``.
    only_changed : bool, default True
        Keep only the features that change.

    Returns
    -------
    pandas.DataFrame
        Columns ``feature``, ``from``, ``to``, ``change`` (signed difference in
        the feature's unit, steps for ordinal features, "changed" for
        categories), ``unit``, ``cost`` (the feature's weighted L1 share) and
        ``allowed`` (False where the move breaks the feature's actionability).
    """
    check_encoder(encoder)
    a = check_encoded(z_from, "z_from", encoder.n_columns)
    b = check_encoded(z_to, "z_to", encoder.n_columns)
    if len(a) != 1 or len(b) != 1:
        raise ValueError(f"describe_changes takes one row each; got {len(a)} and {len(b)} rows.")
    before = encoder.inverse_transform(a).iloc[0]
    after = encoder.inverse_transform(b).iloc[0]
    share = encoder.feature_distances(a, b)[0] * encoder.weight_vector(weights)
    broken = encoder.violations(a, b).iloc[0]
    rows = []
    for f, spec in enumerate(encoder.specs_):
        old, new = before[spec.name], after[spec.name]
        changed = bool(old != new) if spec.kind != "continuous" else not np.isclose(float(old), float(new))
        if only_changed and not changed:
            continue
        if spec.kind == "continuous":
            change = float(new) - float(old)
        elif spec.kind in ("ordinal", "binary"):
            levels = encoder.levels_[spec.name]
            steps = levels.index(new) - levels.index(old)
            change = f"{steps:+d} level{'s' if abs(steps) != 1 else ''}" if steps else "0"
        else:
            change = "changed" if changed else ""
        rows.append(
            {
                "feature": spec.name,
                "from": old,
                "to": new,
                "change": change,
                "unit": spec.unit,
                "cost": float(share[f]),
                "allowed": not bool(broken[spec.name]),
            }
        )
    return pd.DataFrame(rows, columns=["feature", "from", "to", "change", "unit", "cost", "allowed"])


def _costs_and_groups(cost, groups):
    """Validated 1-d float costs (``inf`` = no recourse) and group labels of the same length."""
    cost = np.asarray(cost, dtype=float)
    groups = np.asarray(groups)
    if cost.ndim != 1 or groups.shape != cost.shape:
        raise ValueError(f"cost has shape {cost.shape} and groups has shape {groups.shape}; give two 1-d arrays "
                         "of the same length.")
    if np.isnan(cost).any():
        raise ValueError("cost has NaN values; use inf for 'no recourse'.")
    if np.isneginf(cost).any() or (cost < 0).any():
        raise ValueError(f"cost has negative values (first at position {int(np.flatnonzero(cost < 0)[0])}); "
                         "a recourse cost is >= 0 (inf = no recourse).")
    check_labels(groups, "groups", len(cost), what="individual")
    return cost, groups


def recourse_by_group(cost, groups) -> pd.DataFrame:
    """Per group: how many need recourse, the share who have any, and what it costs them.

    The cost columns are computed over the members **with** recourse only, so
    two groups' medians compare different subsets of their members: a group in
    which more people have (expensive) recourse can show the higher median and
    still be the better-off group. ``coverage_by_group`` compares costs over
    all members instead.

    Parameters
    ----------
    cost : array-like of float, shape (n,)
        Recourse cost per individual (e.g. ``NearestCounterfactuals.best_cost``);
        ``inf`` means no recourse was found.
    groups : array-like, shape (n,)
        Group label per individual.

    Returns
    -------
    pandas.DataFrame
        Indexed by group, columns ``n`` (individuals), ``with_recourse``
        (share with a finite cost), ``median_cost`` and ``mean_cost`` (over
        those with recourse; NaN when nobody in the group has any).

    Examples
    --------
    >>> recourse_by_group([1.0, 3.0, float("inf"), 2.0], ["a", "a", "a", "b"])
           n  with_recourse  median_cost  mean_cost
    group
    a      3       0.666667          2.0        2.0
    b      1       1.000000          2.0        2.0
    """
    cost, groups = _costs_and_groups(cost, groups)
    frame = pd.DataFrame({"group": groups, "cost": np.where(np.isfinite(cost), cost, np.nan)})
    table = frame.groupby("group").agg(
        n=("cost", "size"),
        with_recourse=("cost", lambda c: c.notna().mean()),
        median_cost=("cost", "median"),
        mean_cost=("cost", "mean"),
    )
    return table


def coverage_by_group(cost, groups, budgets) -> pd.DataFrame:
    """Share of each group whose recourse costs at most each budget (the group's coverage curve).

    For a group :math:`G` and a budget :math:`c`,

    .. math::

        \\operatorname{cov}_G(c) = \\frac{|\\{i \\in G : \\operatorname{cost}_i \\le c\\}|}{|G|},

    where people without recourse (cost ``inf``) count in the denominator and
    never in the numerator, even for ``c = inf``. Unlike the cost columns of
    :func:`recourse_by_group`, nothing is conditioned on having recourse: a
    higher curve means a larger share of the group can reach the favourable
    decision within the budget, so the comparison of two groups at a budget is
    a comparison of like with like.

    Parameters
    ----------
    cost : array-like of float, shape (n,)
        Recourse cost per individual; ``inf`` means no recourse.
    groups : array-like, shape (n,)
        Group label per individual.
    budgets : array-like of float, shape (m,)
        Budgets :math:`c \\ge 0` (``inf`` gives the share with any recourse; a single number is one budget).

    Returns
    -------
    pandas.DataFrame
        One row per budget (index ``budget``, in the order given), one column
        per group (sorted), values in [0, 1].

    Examples
    --------
    >>> coverage_by_group([1.0, 3.0, float("inf"), 2.0], ["a", "a", "a", "b"], [0, 2, float("inf")])
    group          a    b
    budget
    0.0     0.000000  0.0
    2.0     0.333333  1.0
    inf     0.666667  1.0
    """
    cost, groups = _costs_and_groups(cost, groups)
    if isinstance(budgets, (str, bytes)):
        raise TypeError(f"budgets={budgets!r} must be numbers, e.g. np.linspace(0, 5, 21).")
    raw = np.asarray(budgets)
    if raw.dtype == bool or not (np.issubdtype(raw.dtype, np.number)):
        raise TypeError(f"budgets must be numbers (got dtype {raw.dtype}), e.g. np.linspace(0, 5, 21).")
    budgets = raw.astype(float)
    if budgets.ndim == 0:
        budgets = budgets[None]
    if budgets.ndim != 1 or budgets.size == 0:
        raise ValueError(f"budgets has shape {raw.shape}; give a non-empty 1-d array of budgets.")
    if np.isnan(budgets).any():
        raise ValueError(f"budgets has NaN values (first at position {int(np.flatnonzero(np.isnan(budgets))[0])}); "
                         "give numbers >= 0 (inf = any cost).")
    if (budgets < 0).any():
        first = int(np.flatnonzero(budgets < 0)[0])
        raise ValueError(f"budgets[{first}] = {budgets[first]:g} is negative; a budget is >= 0 (a cost is never "
                         "negative).")
    labels = sorted(pd.unique(groups).tolist(), key=str)
    finite = np.isfinite(cost)
    shares = {}
    for label in labels:
        member_cost = np.sort(cost[(groups == label) & finite])
        size = int(np.count_nonzero(groups == label))
        shares[label] = np.searchsorted(member_cost, budgets, side="right") / size
    table = pd.DataFrame(shares, index=pd.Index(budgets, name="budget"))
    table.columns.name = "group"
    return table


# --------------------------------------------------------------------------- recourse to a linear boundary

LINEAR_STATUSES = ("favourable", "projected", "optimal", "time limit", "not solved", "infeasible")


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
        ``"projected"`` (closed form), ``"optimal"`` / ``"time limit"`` (MIP:
        proven, or the best found when the call's time limit ran out),
        ``"not solved"`` (MIP: the time limit ran out before this row) or
        ``"infeasible"`` (no move the actionability model allows reaches the
        favourable side).
    margin : ndarray, shape (n,)
        :math:`a^\\top x + b` of the original rows.
    objective : ndarray, shape (n,)
        The MIP's weighted-L1 objective :math:`\\sum_j \\sqrt{w_j} |\\Delta_j|`
        (NaN for the closed form and for rows not solved).
    method : str
    runtime : float
        Wall-clock seconds.
    """

    X_cf: object
    cost: np.ndarray
    delta: np.ndarray
    status: np.ndarray
    margin: np.ndarray
    objective: np.ndarray
    method: str
    runtime: float

    @property
    def has_recourse(self) -> np.ndarray:
        """True where the row is favourable or has a counterfactual."""
        return np.isfinite(self.cost)

    def to_frame(self) -> pd.DataFrame:
        """One row per input row: margin, favourable side, cost, status and number of changed features."""
        index = self.X_cf.index if isinstance(self.X_cf, pd.DataFrame) else None
        missing = np.isnan(self.delta).any(axis=1)
        changed = pd.arrays.IntegerArray(np.count_nonzero(np.nan_to_num(self.delta) != 0, axis=1), missing)
        return pd.DataFrame(
            {"margin": self.margin, "favourable": self.margin >= 0, "cost": self.cost,
             "status": self.status, "n_changed": changed},
            index=index,
        )

    def __repr__(self) -> str:
        statuses = pd.Series(self.status).value_counts().to_dict()
        return f"LinearRecourse(method={self.method!r}, n={len(self.cost)}, statuses={statuses})"


def _frozen(a) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


def _mip_steps(steps, problem: _linear.LinearProblem) -> np.ndarray:
    """Step sizes per column for the MIP: the user's, or one level of each ordinal/binary encoded column."""
    columns = problem.columns
    step = np.full(len(columns), np.nan) if steps is None else _linear.per_feature(steps, "steps", columns,
                                                                                   fill=np.nan)
    if problem.encoder is not None:
        level = _linear.level_steps(problem.encoder)
        for j in np.flatnonzero(~np.isnan(level)):
            if np.isnan(step[j]):
                step[j] = level[j]
            elif not (step[j] > 0 and abs(step[j] / level[j] - round(step[j] / level[j])) < 1e-9):
                raise ValueError(
                    f"steps[{j}] = {step[j]:g} for the level-valued column {columns[j]!r}; it must be a whole number "
                    f"of levels ({level[j]:g} each), or NaN for one level."
                )
    for j in np.flatnonzero(problem.usable):
        if not (np.isnan(step[j]) or (np.isfinite(step[j]) and step[j] > 0)):
            raise ValueError(f"steps[{j}] = {step[j]:g} for {columns[j]!r}; steps must be > 0 (NaN = continuous).")
    return step


def linear_recourse(X, coef, intercept, weights=None, *, encoder: Encoder | None = None, immutable=None,
                    bounds=None, steps=None, method: str = "closed_form", time_limit: float = 60.0,
                    progress: bool = False) -> LinearRecourse:
    """Cheapest allowed move of every row to the favourable side of a linear classifier.

    A row is favourable when :math:`a^\\top x + b \\ge 0`; it then costs 0.
    Otherwise its counterfactual :math:`x' = x + \\Delta` minimises the
    weighted Euclidean cost :math:`\\sqrt{\\sum_j w_j \\Delta_j^2}` subject to
    :math:`a^\\top x' + b \\ge 0` and the **actionability box**
    :math:`l_j(x) \\le x'_j \\le u_j(x)`:

    * with ``encoder`` (rows in the encoder's encoded space), the box comes from
      the feature specs: immutable features and the one-hot columns of
      categorical features stay fixed, ``increase`` features may only rise and
      ``decrease`` features only fall (the bound sits at the row's current
      value), and every encoded column stays in [0, 1], the encoder's range of
      valid values (ordinal and binary features between their first and last
      level);
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
      :math:`\\Delta = -(a^\\top x + b)\\, W^{-1} a / (a^\\top W^{-1} a)`, of cost
      :math:`|a^\\top x + b| / \\sqrt{\\sum_{j\\ \\text{mutable}} a_j^2 / w_j}`.
      Ordinal and binary features are treated as continuous inside their
      range (a relaxation: the point may lie between two levels).
    * ``"mip"``: the paper's inverse classification :cite:p:`haldar2022raguel`:
      integer numbers of ``steps`` per feature (with an encoder, one level of
      every ordinal and binary feature by default; NaN = continuous), the same
      box, and the weighted-L1 proxy objective (see Notes). One MIP per
      unfavourable row, solved by CBC; ``time_limit`` bounds the whole call.

    Rows that no allowed move can bring to the favourable side get cost
    ``inf``, NaN counterfactuals and status ``"infeasible"``; nothing ever
    breaks the box.

    Parameters
    ----------
    X : array or DataFrame of shape (n, d)
        Numeric features; with ``encoder``, encoded rows
        (``encoder.transform(frame)``; a DataFrame must have the encoder's
        column names).
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
        Step sizes for ``method="mip"`` (NaN = continuous).
    method : {"closed_form", "mip"}
    time_limit : float, default 60
        Seconds for the whole call with ``method="mip"``: rows still waiting
        when it runs out get status ``"not solved"`` (NaN cost), and a row
        whose solve it stops keeps its best solution (status ``"time limit"``).
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
    (``objective``). Its L2 cost is therefore at least the closed form's (the
    projection is the L2 optimum over the box), and equal to it when a single
    feature can move.

    Examples
    --------
    The RAGUEL paper's Example 1 (loan amount and duration; favourable when
    duration >= 2 x amount):

    >>> import numpy as np
    >>> X = np.array([[3.5, 6], [2, 1], [4, 4], [5, 4]])
    >>> res = linear_recourse(X, coef=[-2, 1], intercept=0, weights=[0.5, 1.0])
    >>> res.cost.round(2).tolist()
    [0.33, 1.0, 1.33, 2.0]
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
    if method not in ("closed_form", "mip"):
        raise ValueError(f"method={method!r} is not supported; use 'closed_form' or 'mip'.")
    problem = _linear.parse_problem(X, coef, intercept, weights, encoder=encoder, immutable=immutable, bounds=bounds)
    A = problem.A
    n, d = A.shape
    objective = np.full(n, np.nan)
    if method == "closed_form":
        if steps is not None:
            raise ValueError(
                "steps are only used by method='mip'; the closed form is the continuous projection. "
                "Pass method='mip' for integer steps, or drop steps."
            )
        delta, cost, s, reachable = _linear.closed_form(problem)
        status = np.where(s >= 0, "favourable", np.where(reachable, "projected", "infeasible")).astype(object)
    else:
        time_limit = check_time_limit(time_limit)
        step = _mip_steps(steps, problem)
        s = _linear.margin(A, problem.coef, problem.intercept)
        status = np.where(s >= 0, "favourable", "not solved").astype(object)
        delta = np.zeros((n, d))
        cost = np.zeros(n)
        rows = np.flatnonzero(s < 0)
        delta[rows] = np.nan
        cost[rows] = np.nan
        usable = problem.usable
        lower, upper = problem.box.bounds(A)
        w = problem.weights
        sqrt_w = np.sqrt(np.where(usable, w, 1.0))
        deadline = Deadline(time_limit)
        for i in tqdm(rows, disable=not progress, desc="rows", unit="row"):
            if deadline.expired:
                break
            st_i, dl, obj = _recourse_mip(A[i], s[i], problem.coef, usable, sqrt_w, step, lower[i], upper[i],
                                          deadline.remaining(), int(i), problem.slack)
            status[i] = st_i
            if dl is None:
                cost[i] = np.inf if st_i == "infeasible" else np.nan
            else:
                delta[i] = dl
                cost[i] = float(np.sqrt(np.sum(np.where(usable, w, 0.0) * dl * dl)))
                objective[i] = obj
        unsolved = int(np.count_nonzero((status == "not solved") | ((status == "time limit") & np.isnan(cost))))
        limited = int(np.count_nonzero((status == "time limit") & np.isfinite(cost)))
        if unsolved or limited:
            warnings.warn(
                f"time_limit={time_limit:g} s ran out: {limited} row(s) keep the best counterfactual found "
                f"(status 'time limit', not proven optimal) and {unsolved} row(s) have none (NaN cost). "
                "Raise time_limit, or use method='closed_form'.", stacklevel=2)
    infeasible = int(np.count_nonzero(status == "infeasible"))
    if infeasible and method == "mip":
        warnings.warn(
            f"{infeasible} rows cannot reach the favourable side with the allowed moves and steps "
            "(status 'infeasible', cost inf).", stacklevel=2)
    X_cf = A + delta
    if problem.index is not None:
        X_cf = pd.DataFrame(X_cf, index=problem.index, columns=X.columns)
    return LinearRecourse(
        X_cf=X_cf if isinstance(X_cf, pd.DataFrame) else _frozen(X_cf),
        cost=_frozen(cost), delta=_frozen(delta), status=_frozen(status.astype(str)),
        margin=_frozen(s), objective=_frozen(objective), method=method,
        runtime=time.perf_counter() - start,
    )


def _bounded(prob, name, low, up, cat):
    low = None if not np.isfinite(low) else float(low)
    up = None if not np.isfinite(up) else float(up)
    if hasattr(prob, "add_variable"):  # PuLP >= 3.3
        return prob.add_variable(name, low, up, cat=cat)
    return pulp.LpVariable(name, low, up, cat=cat)


def _recourse_mip(x, s, a, usable, sqrt_w, step, lower, upper, time_limit, row, slack):
    """One row's inverse classification: min sum sqrt(w)|delta| s.t. a.(x + delta) + b >= slack, steps, box.

    The slack keeps the point on the favourable side in the model's own arithmetic; a row that reaches the
    boundary but not the slack is solved against the boundary itself.
    """
    prob = pulp.LpProblem(f"recourse_row_{row}", pulp.LpMinimize)
    moves, absval, scale = {}, {}, {}
    slack = _linear.SLACK
    for j in np.flatnonzero(usable):
        if np.isnan(step[j]):
            moves[j] = _bounded(prob, f"d_{j}", lower[j] - x[j], upper[j] - x[j], "Continuous")
            scale[j] = 1.0
        else:
            lo = math.ceil((lower[j] - x[j]) / step[j] - slack) if np.isfinite(lower[j]) else -np.inf
            hi = math.floor((upper[j] - x[j]) / step[j] + slack) if np.isfinite(upper[j]) else np.inf
            moves[j] = _bounded(prob, f"n_{j}", min(lo, 0), max(hi, 0), "Integer")
            scale[j] = float(step[j])
        absval[j] = continuous(prob, f"t_{j}", 0.0)
        prob += (absval[j] >= scale[j] * moves[j], f"abs_pos_{j}")
        prob += (absval[j] >= -scale[j] * moves[j], f"abs_neg_{j}")
    if not moves:
        return "infeasible", None, math.nan
    prob += pulp.lpSum(float(sqrt_w[j]) * absval[j] for j in moves)
    reach = sum(abs(a[j]) * ((upper[j] - x[j]) if a[j] > 0 else (x[j] - lower[j])) for j in moves)
    goal = slack - float(s) if reach >= slack - float(s) else -float(s)
    prob += (pulp.lpSum(float(a[j]) * scale[j] * moves[j] for j in moves) >= goal, "favourable")
    status, has = solve(prob, max(time_limit, 0.01))
    if not has:
        return status, None, math.nan
    delta = np.zeros(len(x))
    for j, var in moves.items():
        value = var.value() or 0.0
        delta[j] = scale[j] * (round(value) if not np.isnan(step[j]) else value)
    # a continuous value a hair past its bound (CBC's rounding) is put back on the bound
    delta = np.clip(delta, lower - x, upper - x)
    # CBC reports continuous values to about 7 digits: nudge continuous moves that still have room in the
    # helpful direction until the point reaches its goal (the nudge is of the order of that rounding)
    for j in sorted((j for j in moves if np.isnan(step[j])), key=lambda c: -abs(a[c])):
        short = goal - float(np.dot(a, delta))
        if short <= 0:
            break
        room = (upper[j] - x[j] - delta[j]) if a[j] > 0 else (delta[j] - (lower[j] - x[j]))
        if room > 0:
            delta[j] += np.sign(a[j]) * min(short / abs(a[j]) * (1 + 1e-12), room)
    return status, delta, float(np.sum(sqrt_w * np.abs(delta)))

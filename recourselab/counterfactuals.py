"""Counterfactuals among observed data points: the nearest feasible favourable neighbours.

The simplest recourse that is certain to be realistic is a *real* person who got
the favourable decision and whom the applicant could become by allowed moves.
:func:`nearest_counterfactuals` finds, for every applicant, the cheapest such
people under the :class:`~recourselab.features.Encoder`'s actionability and
costs; :func:`describe_changes` turns one move into a readable table.

This is the data-point restriction that FACE :cite:p:`poyiadzi2020face` and
FACEGroup :cite:p:`fragkathoulas2025facegroup` also use, without their graph of
small steps: here a move is judged only by its end points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .features import Encoder, _check_matrix

__all__ = ["NearestCounterfactuals", "nearest_counterfactuals", "describe_changes", "recourse_by_group"]

# factual rows per chunk: the (chunk, n_candidates) cost and mask matrices stay small
_CELLS_PER_CHUNK = 2_000_000


@dataclass(frozen=True)
class NearestCounterfactuals:
    """The ``k`` cheapest (feasible) counterfactuals of each factual row.

    Attributes
    ----------
    index : ndarray of int, shape (n_factuals, k)
        Row positions in the candidate array, cheapest first; -1 where there
        are fewer than ``k`` admissible candidates.
    cost : ndarray of float, shape (n_factuals, k)
        Cost of each move; ``inf`` where ``index`` is -1.
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
    def best_index(self) -> np.ndarray:
        """Position of the cheapest counterfactual of each factual (-1 = none)."""
        return self.index[:, 0]

    @property
    def best_cost(self) -> np.ndarray:
        """Cost of the cheapest counterfactual of each factual (``inf`` = none)."""
        return self.cost[:, 0]

    @property
    def has_recourse(self) -> np.ndarray:
        """True where at least one admissible counterfactual exists."""
        return self.n_feasible > 0

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (factual, rank) with the candidate position and cost."""
        n, k = self.index.shape
        frame = pd.DataFrame(
            {
                "factual": np.repeat(np.arange(n), k),
                "rank": np.tile(np.arange(1, k + 1), n),
                "candidate": self.index.ravel(),
                "cost": self.cost.ravel(),
            }
        )
        return frame[frame["candidate"] >= 0].reset_index(drop=True)


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
    """
    if not isinstance(encoder, Encoder):
        raise TypeError(f"encoder must be a fitted recourselab Encoder, got {type(encoder).__name__}.")
    encoder._require_fitted()
    A = _check_matrix(Z_factual, "Z_factual", encoder.n_columns)
    B = _check_matrix(Z_candidates, "Z_candidates", encoder.n_columns)
    if len(B) == 0:
        raise ValueError("Z_candidates is empty; there is no one to compare with.")
    if not isinstance(n_neighbors, (int, np.integer)) or isinstance(n_neighbors, bool):
        raise TypeError(f"n_neighbors={n_neighbors!r} must be an integer.")
    if not 1 <= n_neighbors <= len(B):
        raise ValueError(f"n_neighbors={n_neighbors} must lie between 1 and the {len(B)} candidates.")
    if norm not in ("l1", "l2"):
        raise ValueError(f"norm={norm!r} is not supported; use 'l1' or 'l2'.")
    k = int(n_neighbors)
    index = np.full((len(A), k), -1, dtype=int)
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
        top[~np.isfinite(top_cost)] = -1
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
    if not isinstance(encoder, Encoder):
        raise TypeError(f"encoder must be a fitted recourselab Encoder, got {type(encoder).__name__}.")
    encoder._require_fitted()
    a = _check_matrix(z_from, "z_from", encoder.n_columns)
    b = _check_matrix(z_to, "z_to", encoder.n_columns)
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


def recourse_by_group(cost, groups) -> pd.DataFrame:
    """Per group: how many need recourse, the share who have any, and what it costs them.

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
    cost = np.asarray(cost, dtype=float)
    groups = np.asarray(groups)
    if cost.ndim != 1 or groups.shape != cost.shape:
        raise ValueError(f"cost has shape {cost.shape} and groups has shape {groups.shape}; give two 1-d arrays "
                         "of the same length.")
    if np.isnan(cost).any():
        raise ValueError("cost has NaN values; use inf for 'no recourse'.")
    frame = pd.DataFrame({"group": groups, "cost": np.where(np.isfinite(cost), cost, np.nan)})
    table = frame.groupby("group").agg(
        n=("cost", "size"),
        with_recourse=("cost", lambda c: c.notna().mean()),
        median_cost=("cost", "median"),
        mean_cost=("cost", "mean"),
    )
    return table

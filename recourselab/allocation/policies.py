"""The two allocation policies of the paper: the optimal 0-1 knapsack (lending) and greedy (admissions).

A policy maps utilities :math:`v_i`, requested amounts :math:`w_i` and a budget :math:`r` to an
allocation :math:`Y \\in \\{0, 1\\}^n` with :math:`\\sum_i w_i y_i \\le r`; the decision maker's
utility is separable, :math:`U(Y) = \\sum_{i: y_i = 1} v_i` :cite:p:`segal2024luck`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._validation import check_aligned
from ._checks import check_capacity, check_policy, check_values, check_weights, policy_weights

__all__ = ["Allocation", "knapsack", "greedy", "allocate"]

# Largest dynamic-programming table (applicants x capacity cells) a knapsack may build.
MAX_TABLE_CELLS = 500_000_000


@dataclass(frozen=True)
class Allocation:
    """The decision of an allocation policy.

    Attributes
    ----------
    selected : ndarray of bool, shape (n,)
        Who gets the resource.
    utility : float
        Total utility :math:`U(Y) = \\sum_{i: y_i = 1} v_i` of the selected set.
    capacity : int
        The budget (knapsack) or the number of slots (greedy).
    policy : str
        ``"knapsack"`` or ``"greedy"``.
    values : ndarray of float, shape (n,)
        The individual utilities the policy saw.
    weights : ndarray of int, shape (n,)
        The requested amounts (ones for the greedy policy).
    """

    selected: np.ndarray
    utility: float
    capacity: int
    policy: str
    values: np.ndarray = field(repr=False, default=None)
    weights: np.ndarray = field(repr=False, default=None)

    @property
    def selected_index(self) -> np.ndarray:
        """Positions of the selected applicants."""
        return np.flatnonzero(self.selected)

    @property
    def used(self) -> int:
        """Amount of the resource given out."""
        return int(self.weights[self.selected].sum()) if self.weights is not None else int(self.selected.sum())

    def to_frame(self) -> pd.DataFrame:
        """One row per applicant: utility, requested amount, selected."""
        return pd.DataFrame(
            {"value": self.values, "weight": self.weights, "selected": self.selected},
            index=pd.RangeIndex(len(self.selected), name="applicant"),
        )


def knapsack_solve(v: np.ndarray, w: np.ndarray, r: int) -> tuple[np.ndarray, float]:
    """Forward DP keeping a boolean 'take' table; ties resolved towards leaving later items out."""
    n = len(v)
    useful = (v > 0) & (w <= r)
    R = int(min(r, w[useful].sum()))
    if n * (R + 1) > MAX_TABLE_CELLS:
        raise ValueError(
            f"capacity={r} with {n} applicants needs a {n} x {R + 1} table; express the resource in coarser "
            "units (e.g. credit in hundreds instead of units) so that n * capacity stays below "
            f"{MAX_TABLE_CELLS:,}."
        )
    row = np.zeros(R + 1)
    take = np.zeros((n, R + 1), dtype=bool)
    for i in np.flatnonzero(useful):
        wi, vi = int(w[i]), float(v[i])
        candidate = row[: R + 1 - wi] + vi            # value of taking i at capacities wi..R
        better = candidate > row[wi:]                 # strictly better: ties leave i out
        take[i, wi:] = better
        row[wi:] = np.where(better, candidate, row[wi:])
    selected = np.zeros(n, dtype=bool)
    c = R
    for i in range(n - 1, -1, -1):
        if take[i, c]:
            selected[i] = True
            c -= int(w[i])
    return selected, float(v[selected].sum())


def knapsack(values, weights, capacity) -> Allocation:
    """The optimal 0-1 knapsack allocation, by dynamic programming over integer weights.

    .. math:: \\max_{Y \\in \\{0, 1\\}^n} \\sum_i v_i y_i \\quad \\text{s.t.} \\quad \\sum_i w_i y_i \\le r

    The resource is discretised: weights and capacity are whole units (the
    paper divides German Credit amounts by 100 and rounds, so one unit is 100 DM).
    The table :math:`V[i, c]` (best utility of applicants :math:`< i` within
    capacity :math:`c`) has :math:`n \\times (r + 1)` cells, so the time is
    :math:`O(n r)` (pseudo-polynomial). Applicants with a non-positive utility are
    dropped: they are never selected, since including them cannot increase
    :math:`U`. The capacity is capped at the total weight of the positive
    applicants (beyond it every one of them fits).

    Ties between optimal allocations are broken deterministically: the set is
    reconstructed from the last applicant to the first, and an applicant is
    selected only when doing so is *strictly* better than every allocation of
    the earlier applicants within the remaining capacity. Among equally good
    allocations, later applicants are therefore left out (the indicator vector
    read backwards from applicant :math:`n` is lexicographically smallest).

    Parameters
    ----------
    values : array of float, shape (n,)
        Individual utilities :math:`v_i` (finite).
    weights : array of int, shape (n,)
        Requested amounts :math:`w_i`, integers >= 0.
    capacity : int
        Budget :math:`r` >= 0.

    Returns
    -------
    Allocation

    Examples
    --------
    The paper's Table 1 (lending, budget 6): applicant 1 is refused although
    their probability and utility are the highest.

    >>> res = knapsack([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6)
    >>> res.selected.astype(int).tolist(), round(res.utility, 3)
    ([0, 1, 1, 1], 1.55)
    """
    check_aligned(values, "values", weights=weights)
    v = check_values(values)
    w = check_weights(weights, len(v))
    r = check_capacity(capacity)
    selected, total = knapsack_solve(v, w, r)
    return Allocation(selected, total, r, "knapsack", v, w)


def greedy_order(v: np.ndarray) -> np.ndarray:
    """Applicants by decreasing utility, ties by lower index."""
    return np.lexsort((np.arange(len(v)), -v))


def greedy(values, capacity) -> Allocation:
    """The greedy allocation of unit slots: best utility first while it is positive and slots remain.

    Every applicant asks for one slot (:math:`w_i = 1`). Applicants are taken in
    order of decreasing utility, ties by lower index, as long as the utility is
    positive and fewer than ``capacity`` are selected — the optimal policy for
    unit weights.

    Parameters
    ----------
    values : array of float, shape (n,)
    capacity : int
        Number of slots (>= 0).

    Returns
    -------
    Allocation

    Examples
    --------
    The paper's Table 2 (admissions, G = 1, C = 0.6): with 2 or 3 slots the
    same two applicants are admitted, because applicant 3's utility is 0.

    >>> greedy([0.2, 0.1, 0.0, -0.1], 2).selected.astype(int).tolist()
    [1, 1, 0, 0]
    >>> greedy([0.2, 0.1, 0.0, -0.1], 3).selected.astype(int).tolist()
    [1, 1, 0, 0]
    """
    v = check_values(values)
    r = check_capacity(capacity)
    order = greedy_order(v)
    chosen = order[:r]
    chosen = chosen[v[chosen] > 0]
    selected = np.zeros(len(v), dtype=bool)
    selected[chosen] = True
    return Allocation(selected, float(v[selected].sum()), r, "greedy", v, np.ones(len(v), dtype=np.int64))


def allocate(values, weights, capacity, policy: str = "knapsack") -> Allocation:
    """Run an allocation policy: ``"knapsack"`` (:func:`knapsack`) or ``"greedy"`` (:func:`greedy`).

    For the greedy policy ``weights`` must be None or all ones (one slot each).

    Examples
    --------
    >>> allocate([0.2, 0.1, 0.0, -0.1], None, 2, policy="greedy").selected_index.tolist()
    [0, 1]
    """
    policy = check_policy(policy)
    if policy == "knapsack":
        return knapsack(values, weights, capacity)
    v = check_values(values)
    policy_weights("greedy", weights, len(v))
    return greedy(v, capacity)

"""Counterfactual explanations of an allocation (Section 5): the utility and the prediction counterfactual.

The minimal **utility counterfactual** :math:`v'_i` is the smallest utility that gets applicant
:math:`i` selected, the **prediction counterfactual** :math:`m'_i = S_\\theta^{-1}(v'_i)` the
probability that gives it :cite:p:`segal2024luck`. For the knapsack policy every applicant's
:math:`v'_i` comes from one prefix and one suffix dynamic programme (:math:`O(n r)` in all instead
of :math:`O(n^2 r)` for re-solving two knapsacks per applicant, as
:func:`~recourselab.allocation.utility_ce_naive` of ``paper.py`` does), and the tables for the
largest budget answer every smaller one (the paper's appendix, note 1).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._validation import check_aligned, check_probabilities
from ._checks import (
    check_capacities,
    check_capacity,
    check_eps,
    check_policy,
    check_pool,
    check_targets,
    check_utilities,
    check_utility,
    check_values,
    policy_weights,
    scalar_or_array,
)
from .policies import MAX_TABLE_CELLS, greedy_order

__all__ = ["utility_ce", "prediction_ce", "prediction_cost", "prediction_ce_matrix"]

# Rows of a suffix table kept in memory at once by the leave-one-out programme (32 MB of float64);
# longer pools are processed in blocks recomputed from checkpoints (see _leave_one_out).
_BLOCK_CELLS = 4_000_000
# From this capacity on, max-plus queries loop over contiguous slices instead of building a matrix.
_SLICE_LOOP_FROM = 1024


def add_item(row: np.ndarray, wi: int, vi: float) -> np.ndarray:
    """One knapsack DP step on a value row (capacities 0..R): the row with one more item available."""
    if vi <= 0 or wi >= len(row):
        return row
    new = row.copy()
    if wi == 0:
        new += vi
    else:
        np.maximum(row[wi:], row[:-wi] + vi, out=new[wi:])
    return new


def _maxplus_at(f: np.ndarray, b: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """max_{0 <= c <= q} f[c] + b[q - c] for each query q (-inf for q < 0).

    Small capacities: one (queries x capacity) matrix built from a sliding window
    over the reversed ``b`` (in chunks of bounded memory). Large capacities: one
    vectorised pass per query over contiguous slices, which then costs less than
    building the matrix (measured in benchmarks/allocation.py's setting).
    """
    out = np.full(len(queries), -np.inf)
    ok = queries >= 0
    if not ok.any():
        return out
    q = queries[ok]
    top = int(q.max())
    if top >= _SLICE_LOOP_FROM or len(q) < 8:
        out[ok] = [(f[: t + 1] + b[t::-1]).max() for t in q.tolist()]
        return out
    padded = np.concatenate([b[top::-1], np.full(top, -np.inf)])    # padded[k] = b[top - k], -inf past b[0]
    window = np.lib.stride_tricks.sliding_window_view(padded, top + 1)  # window[top - t][c] = b[t - c]
    head = f[: top + 1]
    found = np.empty(len(q))
    step = max(1, _BLOCK_CELLS // 4 // (top + 1))
    for s in range(0, len(q), step):
        found[s:s + step] = (window[top - q[s:s + step]] + head).max(axis=1)
    out[ok] = found
    return out


def _leave_one_out(v: np.ndarray, w: np.ndarray, R: int, queries: Callable[[int], np.ndarray]) -> list:
    """L_i(q) = U*([n] \\ i, q) for each i and each q in queries(i), from prefix and suffix tables.

    F[i] (items < i) is swept forward one row at a time; B[i + 1] (items > i) is
    computed backwards. To bound memory on long pools, B is kept only at block
    boundaries (blocks of k = _BLOCK_CELLS // (R + 1) rows) and each block's rows
    are recomputed from its checkpoint when the forward sweep reaches it: at most
    k + n / k rows are held, for at most 3n DP row updates instead of 2n.
    """
    n = len(v)
    k = max(1, _BLOCK_CELLS // (R + 1))          # rows per block
    ends = list(range(k, n, k)) + [n]            # block [s, e) needs B[s + 1 .. e]
    boundaries = set(ends)
    checkpoint = {}
    first = {}
    row = np.zeros(R + 1)                        # B[n]
    for j in range(n, 0, -1):                    # row == B[j]
        if j in boundaries:
            checkpoint[j] = row
        if j <= ends[0]:
            first[j] = row
        row = add_item(row, int(w[j - 1]), float(v[j - 1]))
    results = []
    f = np.zeros(R + 1)                          # F[0]
    start = 0
    for end in ends:
        if start == 0:
            suffix = first
        else:
            suffix = {end: checkpoint[end]}
            for j in range(end - 1, start, -1):
                suffix[j] = add_item(suffix[j + 1], int(w[j]), float(v[j]))
        for i in range(start, end):
            results.append(_maxplus_at(f, suffix[i + 1], queries(i)))
            f = add_item(f, int(w[i]), float(v[i]))
        start = end
    return results


def _knapsack_thresholds(v: np.ndarray, w: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """t[j, i] = U*([n]\\i, caps[j]) - U*([n]\\i, caps[j] - w_i); inf where w_i > caps[j]."""
    positive = v > 0
    R = int(min(caps.max(), w[positive].sum()))
    if len(v) * (R + 1) > MAX_TABLE_CELLS:
        raise ValueError(
            f"capacity={int(caps.max())} with {len(v)} applicants means {len(v)} x {R + 1} DP cells; express the "
            "resource in coarser units so that n * capacity stays below "
            f"{MAX_TABLE_CELLS:,}."
        )
    unique, inverse = np.unique(caps, return_inverse=True)
    K = len(unique)
    top = np.minimum(unique, R)                  # beyond R every positive applicant fits: L is flat

    def queries(i):
        short = unique - w[i]
        return np.concatenate([top, np.where(short < 0, -1, np.minimum(short, R))])

    loo = np.array(_leave_one_out(v, w, R, queries))          # (n, 2K)
    t = loo[:, :K] - loo[:, K:]                               # -inf in the second half -> +inf
    t[~np.isfinite(t)] = np.inf
    return t.T[inverse]                                       # (n_caps, n)


def _greedy_thresholds(v: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """t[j, i]: the r-th best positive utility among the others (0 if a slot would stay free); inf for r = 0."""
    n = len(v)
    order = greedy_order(v)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    ranked = np.append(np.maximum(v[order], 0.0), 0.0)           # positive utilities, then zeros
    r = caps[:, None]
    inside = (v[None, :] > 0) & (rank[None, :] < r)             # selected at this capacity
    index = np.minimum(r - 1 + inside, n)
    t = ranked[np.maximum(index, 0)]
    return np.where(r == 0, np.inf, t)


def utility_ce(values, weights, capacity, *, policy: str = "knapsack", eps: float = 1e-6) -> np.ndarray:
    """The minimal utility that gets each applicant selected, for every applicant at once (Section 5).

    **Knapsack.** The paper's minimal utility counterfactual of a refused
    applicant :math:`i` is

    .. math:: v'_i = U^*([n], r) - U^*([n] \\setminus i,\\ r - w_i) + \\varepsilon ,

    the optimum minus the best allocation of the others in what is left once
    :math:`i` is in. We compute it as
    :math:`U^*([n] \\setminus i, r) - U^*([n] \\setminus i, r - w_i) + \\varepsilon`,
    which is the same number when :math:`i` is refused (then
    :math:`U^*([n], r) = U^*([n] \\setminus i, r)`), and for a selected applicant
    is the threshold their utility must stay above to remain selected (the
    paper's literal formula would return :math:`v_i + \\varepsilon` for them).
    With a prefix table :math:`F[i][c]` (best value of applicants :math:`< i`)
    and a suffix table :math:`B[i][c]` (applicants :math:`\\ge i`),

    .. math:: U^*([n] \\setminus i, q) = \\max_{0 \\le c \\le q} F[i][c] + B[i + 1][q - c],

    so all :math:`n` counterfactuals take :math:`O(n r)` time, not the
    :math:`O(n^2 r)` of re-solving one knapsack per applicant
    (:func:`utility_ce_naive`). Applicants with non-positive utility are
    ignored by the policy and so by the tables. If :math:`w_i > r` the applicant
    can never be selected: ``inf``.

    **Greedy.** With all :math:`r` slots taken by others,
    :math:`v'_i = \\min_{j: y_j = 1} v_j + \\varepsilon`; with a slot free,
    :math:`v'_i = \\varepsilon` (the paper's two cases). For a selected applicant
    the rule is applied to the greedy allocation of the others, i.e. with
    :math:`i` removed and the next applicant in line moved up. ``capacity = 0``
    gives ``inf``.

    The margin :math:`\\varepsilon` makes the counterfactual strict: with
    utility :math:`v'_i` the applicant is in *every* optimal allocation, so the
    result does not depend on tie-breaking.

    Parameters
    ----------
    values : array of float, shape (n,)
        Current individual utilities.
    weights : array of int, shape (n,), or None
        Requested amounts (knapsack); None or ones for the greedy policy.
    capacity : int
    policy : {"knapsack", "greedy"}
    eps : float, default 1e-6

    Returns
    -------
    ndarray of float, shape (n,)

    Examples
    --------
    >>> v = [0.8, 0.625, 0.5, 0.425]
    >>> utility_ce(v, [4, 3, 2, 1], 6, eps=1e-9).round(6).tolist()   # Table 1: applicant 1 needs 1.05
    [1.05, 0.375, 0.175, 0.175]
    >>> utility_ce([0.2, 0.1, 0.0, -0.1], None, 2, policy="greedy", eps=1e-9).round(6).tolist()   # Table 2
    [0.0, 0.0, 0.1, 0.1]
    """
    check_aligned(values, "values", weights=weights)
    policy = check_policy(policy)
    v = check_values(values)
    w = policy_weights(policy, weights, len(v))
    caps = np.array([check_capacity(capacity)])
    return thresholds(v, w, caps, policy)[0] + check_eps(eps)


def thresholds(v: np.ndarray, w: np.ndarray, caps: np.ndarray, policy: str) -> np.ndarray:
    """t[j, i]: the utility applicant i must exceed to be selected under budget caps[j] (inputs validated)."""
    return _knapsack_thresholds(v, w, caps) if policy == "knapsack" else _greedy_thresholds(v, caps)


def prediction_ce(v_prime, utility, weights=None):
    """The prediction counterfactual :math:`m' = S_\\theta^{-1}(v')` of utility counterfactuals.

    Because :math:`S_\\theta` increases, an applicant gets the utility
    :math:`v'` exactly when their predicted probability reaches :math:`m'`.
    Values above 1 mean that no probability is enough under the current
    budget and competition; they are kept (the paper's appendix, note 2), and
    ``inf`` (can never be selected) stays ``inf``.

    Parameters
    ----------
    v_prime : float or array
        Utility counterfactuals (e.g. from :func:`utility_ce`).
    utility : LendingUtility or AdmissionUtility
    weights : array, optional
        Requested amounts (needed by the lending utility).

    Examples
    --------
    >>> from recourselab.allocation import LendingUtility
    >>> u = LendingUtility(G1=0.05, G2=1, C=0.2)
    >>> v = utility_ce([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6, eps=1e-9)
    >>> prediction_ce(v, u, [4, 3, 2, 1]).round(6).tolist()
    [0.925, 0.557143, 0.383333, 0.3]
    """
    check_aligned(v_prime, "v_prime", weights=weights)
    utility = check_utility(utility)
    return utility.probability(check_utilities(v_prime, "v_prime"), weights)


def prediction_cost(m, m_prime):
    """The paper's recourse cost in probability space: :math:`|M(x) - m'|`, 0 when :math:`M(x) \\ge m'`.

    ``m`` are probabilities in [0, 1]; ``m_prime`` are prediction
    counterfactuals (>= 0; above 1 or ``inf`` is allowed and gives that cost).

    Examples
    --------
    >>> prediction_cost([0.8, 0.9], [0.925, 0.5]).round(3).tolist()
    [0.125, 0.0]
    """
    check_aligned(m, "m", m_prime=m_prime)
    m = check_probabilities(m, "m", ndim=None)
    m_prime = check_targets(m_prime, "m_prime")
    if m.shape != m_prime.shape and m.ndim and m_prime.ndim:
        raise ValueError(f"m has shape {m.shape} but m_prime has shape {m_prime.shape}; give one target per "
                         "probability.")
    return scalar_or_array(np.maximum(m_prime - m, 0.0))


def prediction_ce_matrix(proba, weights, capacities, *, policy: str, utility, eps: float = 1e-6) -> np.ndarray:
    """Prediction counterfactuals of every applicant under each of several budgets.

    Row :math:`j` is :func:`prediction_ce` of :func:`utility_ce` at capacity
    ``capacities[j]``, the population and the utility being fixed (as in the
    paper's experiments, where only the budget varies). An applicant's
    counterfactual depends on the others only, not on their own probability.

    For the knapsack policy the prefix and suffix tables are built **once**,
    for the largest capacity: a row :math:`F[i][\\cdot]` over capacities
    :math:`0..r_{max}` already holds the optimum for every smaller capacity
    (the paper's appendix, note 1), so each further budget costs only the
    :math:`O(r)` combination per applicant, and repeated budgets are computed
    once. The greedy policy is a closed form (order statistics of the sorted
    utilities), vectorised over budgets and applicants.

    Parameters
    ----------
    proba : array of float, shape (n,)
        Predicted probabilities :math:`M(x_i)`, in [0, 1].
    weights : array of int, shape (n,), or None
        Requested amounts (knapsack); None for the greedy policy.
    capacities : array of int, shape (n_capacities,)
    policy : {"knapsack", "greedy"}
    utility : LendingUtility or AdmissionUtility
    eps : float, default 1e-6

    Returns
    -------
    ndarray of float, shape (n_capacities, n)

    Examples
    --------
    >>> from recourselab.allocation import AdmissionUtility
    >>> u = AdmissionUtility(G=1, C=0.6)
    >>> prediction_ce_matrix([0.8, 0.7, 0.6, 0.5], None, [2, 3], policy="greedy", utility=u, eps=1e-9).round(6)
    array([[0.6, 0.6, 0.7, 0.7],
           [0.6, 0.6, 0.6, 0.6]])
    """
    check_aligned(proba, "proba", weights=weights)
    utility = check_utility(utility)
    policy = check_policy(policy)
    p = check_pool(proba)
    w = policy_weights(policy, weights, len(p))
    caps = check_capacities(capacities)
    eps = check_eps(eps)
    values = check_values(utility.value(p, None if weights is None else w), "utility.value(proba)")
    v_prime = thresholds(values, w, caps, policy) + eps
    if weights is None:
        return utility.probability(v_prime, None)
    return utility.probability(v_prime, np.broadcast_to(w.astype(float), v_prime.shape))

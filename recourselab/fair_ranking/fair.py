"""FA*IR, the fair top-k ranking of :cite:t:`zehlike2017fair`: the table of minimum protected counts, its
multiple-testing adjustment, and the re-ranking.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binom

from .._validation import check_aligned, check_array, check_choice, check_int, check_mask, check_number, check_positions

__all__ = ["fair_minimum_table", "fair_adjusted_alpha", "fair_rerank"]


def _fair_params(k, p, alpha):
    k = check_int(k, "k")
    if k < 1:
        raise ValueError(f"k={k} must be >= 1 (the length of the ranking to build).")
    p = check_number(p, "p")
    if not 0 < p < 1:
        raise ValueError(f"p={p!r} must lie strictly between 0 and 1: the target minimum protected proportion.")
    alpha = check_number(alpha, "alpha")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} must lie strictly between 0 and 1 (the significance level).")
    return k, p, alpha


def _mtable(k, p, alpha):
    m = binom.ppf(alpha, np.arange(1, k + 1), p)
    return np.maximum(np.nan_to_num(m, nan=0.0), 0).astype(int)


def fair_minimum_table(k, p, alpha) -> np.ndarray:
    """FA*IR's table of minimum protected counts :cite:p:`zehlike2017fair` (unadjusted).

    .. math:: m(i) = F^{-1}(\\alpha;\\, i, p), \\qquad i = 1, \\dots, k ,

    the :math:`\\alpha`-quantile of the binomial distribution: a prefix of
    length :math:`i` with fewer than :math:`m(i)` protected records would be
    rejected by a one-sided binomial test at level :math:`\\alpha`.

    Parameters
    ----------
    k : int >= 1
    p : float in (0, 1)
        Target minimum proportion of protected records.
    alpha : float in (0, 1)

    Returns
    -------
    ndarray of int, shape (k,)
        ``m[i - 1]`` for prefix length ``i``.

    Examples
    --------
    >>> fair_minimum_table(20, 0.25, 0.1).tolist()
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3]
    """
    k, p, alpha = _fair_params(k, p, alpha)
    return _mtable(k, p, alpha)


def _fail_probability(m: np.ndarray, p: float) -> float:
    """Probability that a random ranking (each position protected w.p. p) fails the table.

    Exact dynamic programme over the protected count. Like fairsearchcore,
    positions 1..k-1 are tested (its auxiliary table skips the last position).
    """
    k = len(m)
    dist = np.zeros(k + 1)
    dist[0] = 1.0
    for i in range(1, k):
        new = dist * (1 - p)
        new[1:] += dist[:-1] * p
        dist = new
        dist[: m[i - 1]] = 0.0
    success = float(dist.sum())
    return 0.0 if success == 0 else 1.0 - success


def fair_adjusted_alpha(k, p, alpha) -> float:
    """FA*IR's corrected significance level for testing every prefix (multiple-testing adjustment).

    Testing each of the k prefixes at level :math:`\\alpha` rejects a truly
    random (fair) ranking more often than :math:`\\alpha`. The failure
    probability of a table — the chance that a ranking whose positions are
    independently protected with probability :math:`p` falls below
    :math:`m(i)` somewhere — is computed exactly by a dynamic programme over
    the protected count, and :math:`\\alpha_c` is found by bisection on
    :math:`[0, \\alpha]` with the stopping rule of the reference
    implementation (fairsearchcore): bisect on the failure probability; stop
    when the tables at the bracket ends differ by one protected record in
    total (or the bracket is narrower than 1e-12) and return the end whose
    failure probability is closest to :math:`\\alpha` (ties: the lower end);
    when the tables at the lower end, midpoint and upper end differ by one
    record each, return the closest of the three.

    The failure probability tests positions 1..k-1, and the chosen table is
    the one closest to :math:`\\alpha`, which can fail slightly more often
    than :math:`\\alpha` (0.105 in the first example below), as in the
    reference implementation, whose published values this reproduces.

    Returns
    -------
    float
        :math:`\\alpha_c \\le \\alpha`; use ``fair_minimum_table(k, p, alpha_c)``.

    Examples
    --------
    >>> fair_adjusted_alpha(20, 0.25, 0.1)
    0.078125
    >>> fair_minimum_table(20, 0.25, fair_adjusted_alpha(20, 0.25, 0.1)).tolist()
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2]
    """
    k, p, alpha = _fair_params(k, p, alpha)

    def boundary(a):
        m = _mtable(k, p, a)
        return a, _fail_probability(m, p), int(m.sum())

    lo, hi = boundary(0.0), boundary(alpha)
    mid = boundary(alpha / 2)
    while lo[2] < hi[2] and mid[1] != alpha:
        if mid[1] < alpha:
            lo = mid
        elif mid[1] > alpha:
            hi = mid
        mid = boundary((lo[0] + hi[0]) / 2)
        if hi[2] - lo[2] == 1 or hi[0] - lo[0] <= 1e-12:
            best = lo if abs(lo[1] - alpha) <= abs(hi[1] - alpha) else hi
            return float(round(best[0], 15))
        if hi[2] - mid[2] == 1 and mid[2] - lo[2] == 1:
            d_lo, d_hi, d_mid = abs(lo[1] - alpha), abs(hi[1] - alpha), abs(mid[1] - alpha)
            if d_mid <= d_hi and d_mid <= d_lo:
                return float(round(mid[0], 15))
            if d_lo <= d_mid and d_lo <= d_hi:
                return float(round(lo[0], 15))
            return float(round(hi[0], 15))
    return float(round(mid[0], 15))


def _as_order(values, n: int, kind: str) -> np.ndarray:
    """Row positions best first, from an order (a permutation) or from scores (higher first) or costs."""
    if kind == "order":
        if np.ndim(values) != 1 or len(values) != n:
            raise ValueError(f"scores_or_order has shape {np.shape(values)} but protected has {n} entries; give "
                             "one per row.")
        arr = np.asarray(values)
        if arr.dtype.kind == "f" and np.isfinite(arr).all() and np.array_equal(arr, np.round(arr)):
            values = arr.astype(np.int64)  # whole floats are fine; fractional positions are not rounded
        order = check_positions(values, "scores_or_order", n)
        if not np.array_equal(np.sort(order), np.arange(n)):
            raise ValueError("scores_or_order with kind='order' must be a permutation of the row positions 0..n-1; "
                             "pass kind='score' or kind='cost' for values.")
        return order
    v = check_array(values, "scores_or_order", length=n, length_of="rows (one per entry of protected)")
    return np.lexsort((np.arange(n), -v if kind == "score" else v))


def fair_rerank(scores_or_order, protected, *, p=None, alpha=0.1, k=None, adjust=True, kind="order") -> np.ndarray:
    """FA*IR top-k re-ranking :cite:p:`zehlike2017fair`.

    At each position :math:`i = 1, \\dots, k`: if fewer than :math:`m(i)`
    protected records have been placed, take the best remaining protected
    record; otherwise take the best remaining record overall. When one side
    runs out, the other fills the list (the table can then fail; with
    enough protected records the output satisfies it at every prefix).

    Parameters
    ----------
    scores_or_order : array, shape (n,)
        With ``kind="order"`` (default) a ranking: row positions, best first
        (e.g. ``np.argsort(cost)`` or ``raguel(...).initial_order``). With
        ``kind="score"`` one score per row, higher is better; with
        ``kind="cost"`` one cost per row, lower is better (ties: row position).
    protected : array of bool or 0/1, shape (n,)
        Per row (original row order, not rank order).
    p : float in (0, 1), optional
        Target minimum protected proportion; default: the share of protected rows.
    alpha : float in (0, 1), default 0.1
    k : int, optional
        Length of the output (default n).
    adjust : bool, default True
        Use the multiple-testing adjusted :math:`\\alpha_c`
        (:func:`fair_adjusted_alpha`); otherwise the raw table.
    kind : {"order", "score", "cost"}

    Returns
    -------
    ndarray of int, shape (k,)
        Row positions, best first.

    Examples
    --------
    >>> fair_rerank(list(range(10)), [0] * 7 + [1] * 3, p=0.3, alpha=0.1, adjust=False).tolist()
    [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]
    """
    prot = check_mask(protected, "protected", meaning="True = protected, per row")
    n = prot.size
    if n == 0:
        raise ValueError("protected is empty; give one flag per row.")
    kind = check_choice(kind, "kind", ("order", "score", "cost"))
    if kind != "order":  # values per row: a Series must carry protected's index (an order holds positions)
        check_aligned(protected, "protected", scores_or_order=scores_or_order)
    order = _as_order(scores_or_order, n, kind)
    if p is None:
        p = float(prot.mean())
    k = n if k is None else k
    k, p, alpha = _fair_params(k, p, alpha)
    if k > n:
        raise ValueError(f"k={k} is larger than the {n} records; use k <= {n}.")
    a = fair_adjusted_alpha(k, p, alpha) if adjust else alpha
    m = _mtable(k, p, a)
    pro = order[prot[order]].tolist()
    non = order[~prot[order]].tolist()
    rank = np.empty(n, dtype=int)
    rank[order] = np.arange(n)
    out, ip, inn = [], 0, 0
    for i in range(k):
        if ip < len(pro) and (ip < m[i] or inn >= len(non) or rank[pro[ip]] < rank[non[inn]]):
            out.append(pro[ip])
            ip += 1
        else:
            out.append(non[inn])
            inn += 1
    return np.asarray(out, dtype=int)

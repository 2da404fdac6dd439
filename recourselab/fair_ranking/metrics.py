"""Ranking-quality metrics rND, rKL and rRD of :cite:t:`yang2017measuring`.

Each compares the protected share of the top 10, 20, ... records with the
overall share, discounted by :math:`1/\\log_2 i` and normalised by the most
unfair ranking, so 0 is proportional and 1 maximally unfair.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_int, check_mask

__all__ = ["rnd", "rkl", "rrd", "ranking_metrics"]

_KL_EPS = 1e-12  # replaces a zero probability inside a logarithm of rKL


def _metric_setup(protected_in_order, cutoff):
    arr = check_mask(protected_in_order, "protected_in_order", meaning="True = protected, in rank order")
    if arr.size == 0:
        raise ValueError("protected_in_order is empty; give one flag per ranked record (1-d).")
    cutoff = check_int(cutoff, "cutoff")
    N = arr.size
    if cutoff < 2:
        raise ValueError(f"cutoff={cutoff} must be >= 2 (the discount 1/log2(i) is infinite at i = 1).")
    if cutoff > N:
        raise ValueError(f"cutoff={cutoff} is larger than the ranking ({N} records); use cutoff <= {N}.")
    S = int(arr.sum())
    if S == 0 or S == N:
        raise ValueError(
            f"protected_in_order has a single value ({'all' if S == N else 'no'} records protected); the metrics "
            "compare a protected group with the rest."
        )
    cuts = np.arange(cutoff, N + 1, cutoff)
    return np.cumsum(arr)[cuts - 1].astype(float), cuts.astype(float), float(S), float(N)


def _raw(measure, c, i, S, N):
    disc = 1.0 / np.log2(i)
    if measure == "rND":
        terms = np.abs(c / i - S / N)
    elif measure == "rRD":
        rest = i - c
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(rest > 0, c / np.where(rest > 0, rest, 1.0), 0.0)
        overall = S / (N - S) if N > S else 0.0
        terms = np.abs(ratio - overall)
    else:
        P1 = c / i
        Q1 = S / N
        P = np.stack([P1, 1 - P1])
        Q = np.array([Q1, 1 - Q1])[:, None]
        terms = np.sum(P * (np.log(np.maximum(P, _KL_EPS)) - np.log(np.maximum(Q, _KL_EPS))), axis=0)
    return float(np.sum(disc * terms))


def _normalised(measure, protected_in_order, cutoff):
    c, i, S, N = _metric_setup(protected_in_order, cutoff)
    raw = _raw(measure, c, i, S, N)
    bottom = np.maximum(0.0, i - (N - S))  # all protected at the bottom
    top = np.minimum(i, S)  # all protected at the top
    Z = max(_raw(measure, bottom, i, S, N), _raw(measure, top, i, S, N))
    return 0.0 if Z <= 0 else float(min(raw / Z, 1.0))  # only rRD can exceed its Z (see rrd)


def rnd(protected_in_order, cutoff=10) -> float:
    """Normalised discounted difference rND :cite:p:`yang2017measuring`.

    .. math:: \\mathrm{rND} = \\frac{1}{Z} \\sum_{i = 10, 20, \\dots}^{N}
              \\frac{1}{\\log_2 i} \\left| \\frac{S^+_i}{i} - \\frac{S^+}{N} \\right|

    with :math:`S^+_i` the protected count in the top :math:`i`. :math:`Z` is
    the unnormalised value of the most unfair ranking with the same
    :math:`N` and :math:`S^+`: the larger of "all protected at the bottom"
    and "all protected at the top" (both are computed). 0 for a ranking whose
    every cut-off has the overall share, 1 at the worst case; 0 as well when
    the only cut-off is the whole list (:math:`N < 2c`).

    Parameters
    ----------
    protected_in_order : array of bool or 0/1, shape (N,)
        Whether each record, in rank order (best first), is protected.
    cutoff : int, default 10
        Step of the cut-offs :math:`i = c, 2c, \\dots \\le N`.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> rnd([1, 0, 0, 1, 0, 0, 1, 0, 0, 0] * 3), rnd([1] * 10 + [0] * 20)
    (0.0, 1.0)
    """
    return _normalised("rND", protected_in_order, cutoff)


def rkl(protected_in_order, cutoff=10) -> float:
    """Normalised discounted KL-divergence rKL :cite:p:`yang2017measuring`.

    .. math:: \\mathrm{rKL} = \\frac{1}{Z} \\sum_{i} \\frac{1}{\\log_2 i}
              D_{KL}(P_i \\,\\|\\, Q), \\quad
              P_i = \\left(\\tfrac{S^+_i}{i}, \\tfrac{S^-_i}{i}\\right), \\;
              Q = \\left(\\tfrac{S^+}{N}, \\tfrac{S^-}{N}\\right)

    A zero probability inside a logarithm is replaced by 1e-12 (its term is
    then 0, the limit of :math:`P \\log P`); nothing else is smoothed.
    :math:`Z` as in :func:`rnd`.

    Parameters
    ----------
    protected_in_order : array of bool or 0/1, shape (N,)
        Whether each record, in rank order (best first), is protected.
    cutoff : int, default 10
        Step of the cut-offs :math:`i = c, 2c, \\dots \\le N`.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> rkl([1, 0, 0, 1, 0, 0, 1, 0, 0, 0] * 3), rkl([1] * 10 + [0] * 20)
    (0.0, 1.0)
    """
    return _normalised("rKL", protected_in_order, cutoff)


def rrd(protected_in_order, cutoff=10) -> float:
    """Normalised discounted ratio rRD :cite:p:`yang2017measuring`.

    .. math:: \\mathrm{rRD} = \\frac{1}{Z} \\sum_{i} \\frac{1}{\\log_2 i}
              \\left| \\frac{S^+_i}{S^-_i} - \\frac{S^+}{S^-} \\right|

    A ratio with a zero denominator (no non-protected record in the top
    :math:`i`) counts as 0, as in the authors' FairRank code. :math:`Z` as in
    :func:`rnd`. Meant for a protected minority.

    Because of the zero-denominator convention the all-protected-on-top
    ranking looks milder than, e.g., one non-protected record followed by
    all the protected ones, so for rRD (unlike rND and rKL, whose worst case
    is always one of the two extremes — checked by enumeration) a ranking
    can exceed :math:`Z`; the value is then capped at 1.

    Parameters
    ----------
    protected_in_order : array of bool or 0/1, shape (N,)
        Whether each record, in rank order (best first), is protected.
    cutoff : int, default 10
        Step of the cut-offs :math:`i = c, 2c, \\dots \\le N`.

    Returns
    -------
    float in [0, 1]

    Examples
    --------
    >>> rrd([1, 0, 0, 1, 0, 0, 1, 0, 0, 0] * 3), rrd([1] * 10 + [0] * 20)
    (0.0, 1.0)
    """
    return _normalised("rRD", protected_in_order, cutoff)


def ranking_metrics(protected_in_order, cutoff=10) -> dict:
    """rKL, rND and rRD of a ranking (see :func:`rkl`, :func:`rnd`, :func:`rrd`).

    Returns
    -------
    dict
        ``{"rKL": ..., "rND": ..., "rRD": ...}`` (``pd.Series(...)`` for a table).

    Examples
    --------
    >>> {k: round(v, 3) for k, v in ranking_metrics([1] * 10 + [0] * 20).items()}
    {'rKL': 1.0, 'rND': 1.0, 'rRD': 1.0}
    """
    return {name: _normalised(name, protected_in_order, cutoff) for name in ("rKL", "rND", "rRD")}



"""Fairness of a set and of a ranking: Definitions 3.1-3.4 of :cite:t:`haldar2022raguel`.

Fair representation of a set (:func:`fair_representation`) and of every
prefix of a ranking (:func:`ranked_fair_representation`); the recourse
fairness ratio rho (:func:`recourse_fairness_ratio`, Eqs. 1 and 4) of a set
and of every prefix (:func:`ranked_recourse_fairness`); and the best rho one
more record can give a prefix (:func:`best_ratio_with_one_more`).
"""

from __future__ import annotations

import math
import warnings
from typing import NamedTuple

import numpy as np

from .._validation import check_array, check_labels
from ._common import (
    RHO_SLACK,
    band_ok,
    check_below,
    check_beta,
    check_tolerance,
    costs_and_groups,
    group_codes,
    protected_codes,
    protected_list,
    rho_of,
    shares_p,
    warn_absent,
)

__all__ = ["RankedCheck", "fair_representation", "ranked_fair_representation", "recourse_fairness_ratio",
           "best_ratio_with_one_more", "ranked_recourse_fairness", "prefix_rho"]


class RankedCheck(NamedTuple):
    """Result of a ranked fairness check.

    Attributes
    ----------
    per_prefix : ndarray of bool, shape (n,)
        ``per_prefix[k - 1]``: the prefix of length ``k`` passes (length 1 always does).
    fair : bool
        Every prefix passes.
    value : ndarray
        The checked quantity per prefix: protected share(s) (shape (n,) for one
        protected label, (n, labels) for several) or the recourse fairness ratio rho.
    """

    per_prefix: np.ndarray
    fair: bool
    value: np.ndarray


def fair_representation(groups, protected_group, tolerance=1 / 3, *, p) -> bool:
    """Definition 3.1: does a set represent the protected group(s) fairly?

    .. math:: |p_S - p| \\le \\alpha, \\qquad \\alpha = p \\cdot t ,

    with :math:`p_S` the protected share of the set and :math:`p` the share in
    the **whole population** — which the set alone cannot tell, so ``p`` is a
    required keyword (compute it once on the population, e.g.
    ``np.mean(all_groups == "F")``). With several protected labels each is
    checked against its own share: the set is fair when every label is
    inside its band (the paper's extension to more than two groups).

    Parameters
    ----------
    groups : array-like of labels
        Group label of every member of the set (may be a single value).
    protected_group : label or list of labels
    tolerance : float in (0, 1], default 1/3
    p : float, or sequence/dict with one share per protected label
        Population share(s) of the protected label(s).

    Returns
    -------
    bool

    Examples
    --------
    >>> fair_representation(["M", "F", "M", "M", "M"], "F", p=0.3)   # 20% is inside 30% +- 10%
    True
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # "F" does not occur in the set: a warning asks whether it is misspelt
    ...     fair_representation(["M", "M", "M", "M", "M"], "F", p=0.3)
    False
    """
    t = check_tolerance(tolerance)
    wanted = protected_list(protected_group)
    pv = shares_p(p, wanted)
    arr = check_labels(groups, "groups", what="member")
    if arr.size == 0:
        raise ValueError("groups is empty; give the labels of a non-empty set (1-d).")
    counts = np.array([np.count_nonzero(arr == w) for w in wanted], dtype=float)
    warn_absent([w for w, c in zip(wanted, counts, strict=True) if c == 0], arr.tolist())
    return bool(band_ok(counts, arr.size, pv, pv * t))


def ranked_fair_representation(order_groups, protected_group, tolerance=1 / 3, p=None) -> RankedCheck:
    """Definition 3.2: fair representation of every prefix of a ranking.

    Every prefix of length :math:`k \\ge 2` must satisfy Definition 3.1
    (:func:`fair_representation`); a single record is "un-ranked" and always
    fair. Vectorised with cumulative counts.

    Parameters
    ----------
    order_groups : array-like of labels, shape (n,)
        Group labels in rank order (best first).
    protected_group : label or list of labels
    tolerance : float in (0, 1], default 1/3
    p : float, sequence or dict, optional
        Population share(s); default: the shares in ``order_groups``, i.e.
        the ranking is the whole population.

    Returns
    -------
    RankedCheck
        ``(per_prefix, fair, value)`` with ``value`` the protected share of
        each prefix.

    Examples
    --------
    >>> check = ranked_fair_representation(["M", "F", "M", "F"], "F", 1 / 2)
    >>> check.per_prefix.tolist(), check.fair
    ([True, True, True, True], True)
    >>> ranked_fair_representation(["M", "M", "F", "F"], "F", 1 / 2).per_prefix.tolist()
    [True, False, True, True]
    """
    t = check_tolerance(tolerance)
    arr = check_labels(order_groups, "order_groups", what="ranked record")
    if arr.size == 0:
        raise ValueError("order_groups is empty; give the labels of a non-empty ranking (1-d).")
    wanted = protected_list(protected_group)
    if p is None:
        _, labels = group_codes(arr, arr.size, "order_groups")
        protected_codes(wanted, labels)
        pv = np.array([np.mean(arr == w) for w in wanted])
    else:
        pv = shares_p(p, wanted)
    hits = np.stack([arr == w for w in wanted], axis=1).astype(float)
    warn_absent([w for w, h in zip(wanted, hits.T, strict=True) if not h.any()], arr.tolist())
    cum = np.cumsum(hits, axis=0)
    k = np.arange(1, arr.size + 1, dtype=float)[:, None]
    ok = band_ok(cum, k, pv, pv * t)
    ok[0] = True
    share = cum / k
    return RankedCheck(ok, bool(ok.all()), share[:, 0] if len(wanted) == 1 else share)


def recourse_fairness_ratio(costs, groups, *, between=None) -> float:
    """The group-level recourse fairness ratio rho (Eqs. 1 and 4).

    .. math:: \\rho = \\frac{\\min_g \\mu_g}{\\max_g \\mu_g}, \\qquad
              \\mu_g = \\text{mean recourse cost of group } g ,

    for two or more groups: 1 when every group's mean is the same, near 0
    when one group pays far more. By convention :math:`\\rho = 1` when every
    mean is 0.

    With more than two groups (six races, say) the default compares the
    cheapest and the dearest of all of them, whichever they are; to ask about
    one group against a chosen reference, name the pair: ``between=(group,
    reference)`` leaves every other group's records out.

    Parameters
    ----------
    costs : array of float >= 0, shape (n,)
    groups : array of labels, shape (n,), with at least two distinct values
    between : pair of labels, optional
        The two groups to compare; both must be present. A group with fewer
        than 30 records draws a warning (its mean is too noisy to read alone).

    Returns
    -------
    float

    Warns
    -----
    UserWarning
        With ``between``, when a named group has fewer than 30 records.

    Examples
    --------
    The paper's Table 3 (DC3, initial data: single 7.688, married 5.837):

    >>> round(recourse_fairness_ratio([7.688, 5.837], ["single", "married"]), 3)
    0.759

    Three groups: the default takes the extremes, ``between`` the named pair.

    >>> import numpy as np
    >>> costs, races = np.repeat([1.0, 2.0, 4.0], 30), np.repeat(["a", "b", "c"], 30)
    >>> recourse_fairness_ratio(costs, races), recourse_fairness_ratio(costs, races, between=("a", "b"))
    (0.25, 0.5)
    """
    c, codes, labels = costs_and_groups(costs, groups)
    if between is not None:
        c, codes, labels = _restrict_to_pair(c, codes, labels, between)
    G = len(labels)
    return rho_of(np.bincount(codes, weights=c, minlength=G), np.bincount(codes, minlength=G).astype(float))


SMALL_GROUP = 30  # fewer records than this in a named group: its mean cost is too noisy to read alone


def _restrict_to_pair(c, codes, labels, between):
    """The records of the two groups named in ``between`` (errors name what is missing)."""
    if isinstance(between, (str, bytes)) or len(between) != 2:
        raise ValueError(f"between={between!r} must name two groups, e.g. between=('African-American', "
                         "'Caucasian').")
    labels = list(labels)
    missing = [g for g in between if g not in labels]
    if missing or between[0] == between[1]:
        raise ValueError(f"between={tuple(between)!r} must name two different groups present in groups; the groups "
                         f"are {labels}.")
    wanted = [labels.index(g) for g in between]
    keep = np.isin(codes, wanted)
    for g, code in zip(between, wanted, strict=True):
        n = int((codes == code).sum())
        if n < SMALL_GROUP:
            records = f"{n} record{'s' if n != 1 else ''}"
            warnings.warn(f"group {g!r} has {records}; a mean cost of fewer than {SMALL_GROUP} is too noisy to read "
                          "alone.", stacklevel=3)
    return c[keep], np.searchsorted(wanted if wanted[0] < wanted[1] else wanted[::-1], codes[keep]), \
        sorted(between, key=labels.index)


def best_ratio_with_one_more(costs, groups, added_group, *, below: float) -> float:
    """The largest rho that adding one member of ``added_group``, with a cost in [0, ``below``), can give.

    This is the question RAGUEL with ``beta`` asks when it extends a prefix:
    is there any candidate of the group the prefix needs whose (modified)
    cost lets the prefix keep :math:`\\rho \\ge 1 - \\beta`? Adding cost
    :math:`c` to group :math:`g` moves only its mean,
    :math:`\\mu_g(c) = (S_g + c) / (n_g + 1)`, upward and linearly. With
    :math:`m \\le M` the smallest and largest mean of the other groups,
    :math:`\\rho(c) = \\min(\\mu_g, m) / \\max(\\mu_g, M)` rises while
    :math:`\\mu_g < m`, is flat at :math:`m / M` between them and falls once
    :math:`\\mu_g > M`; so its supremum over the interval is its value at one
    of the ends or where :math:`\\mu_g` reaches :math:`m` or :math:`M` (each
    clipped to the interval), and no search over costs is needed. At
    ``below`` itself the value is a supremum (the candidate must stay
    strictly below: it overtakes the applicant whose cost is ``below``).

    Parameters
    ----------
    costs : array of float >= 0, shape (n,)
        Costs of the records already in the prefix.
    groups : array of labels, shape (n,)
    added_group : label
        The group of the record to add (it may be absent from ``groups``).
    below : float > 0
        The added cost lies in ``[0, below)``.

    Returns
    -------
    float
        The supremum of :func:`recourse_fairness_ratio` over the added cost;
        NaN if the prefix and the new record hold a single group.

    Examples
    --------
    Two applicants of group "a" with costs 1 and 3 (mean 2): a "b" record
    can match that mean only with a cost of 2, so below 1.5 the best is 1.5 / 2.

    >>> best_ratio_with_one_more([1.0, 3.0], ["a", "a"], "b", below=1.5)
    0.75
    >>> best_ratio_with_one_more([1.0, 3.0], ["a", "a"], "b", below=5.0)
    1.0
    """
    below = check_below(below)
    prefix = check_labels(groups, "groups")
    costs_in = check_array(costs, "costs", ndim=None, minimum=0.0, allow_empty=True).reshape(-1)
    if costs_in.size != prefix.size:
        raise ValueError(f"costs has {costs_in.size} entries but groups has {prefix.size}; give one cost per "
                         "record of the prefix.")
    all_groups = np.append(prefix, np.array([added_group], dtype=object))
    check_labels(all_groups, "groups and added_group")
    if len(set(all_groups.tolist())) < 2:
        return math.nan  # one group: rho is not defined
    # the prefix and the new record together (a cost of 0 stands in for the new one)
    c, codes, labels = costs_and_groups(np.append(costs_in, 0.0), all_groups)
    c, g = c[:-1], int(codes[-1])
    sums = np.bincount(codes[:-1], weights=c, minlength=len(labels)).astype(float)
    counts = np.bincount(codes[:-1], minlength=len(labels)).astype(float)
    others = [sums[h] / counts[h] for h in range(len(labels)) if h != g and counts[h] > 0]
    if not others:
        return math.nan
    k = counts[g] + 1
    points = [0.0, below] + [min(max(mu * k - sums[g], 0.0), below) for mu in (min(others), max(others))]

    def rho_with(cost):
        s2, c2 = sums.copy(), counts.copy()
        s2[g] += cost
        c2[g] += 1
        return rho_of(s2, c2)

    return max(rho_with(point) for point in points)


def ranked_recourse_fairness(costs_in_order, groups_in_order, beta) -> RankedCheck:
    """Definition 3.4: rho >= 1 - beta for every prefix of a ranking.

    Each prefix's rho is computed over the groups present in it; a prefix
    with a single group (in particular a single record) has rho = 1 by the
    paper's singleton convention. Vectorised with cumulative sums.

    Parameters
    ----------
    costs_in_order : array of float, shape (n,)
        Recourse costs in rank order.
    groups_in_order : array of labels, shape (n,)
    beta : float in [0, 1]

    Returns
    -------
    RankedCheck
        ``(per_prefix, fair, value)`` with ``value`` the rho of every prefix.

    Examples
    --------
    >>> check = ranked_recourse_fairness([1.0, 2.0, 1.5, 2.0], ["M", "F", "M", "F"], beta=0.3)
    >>> check.value.round(3).tolist(), check.fair
    ([1.0, 0.5, 0.625, 0.625], False)
    """
    b = check_beta(beta, required=True)
    rho = prefix_rho(costs_in_order, groups_in_order)
    ok = rho >= 1 - b - RHO_SLACK
    return RankedCheck(ok, bool(ok.all()), rho)


def prefix_rho(costs_in_order, groups_in_order) -> np.ndarray:
    """The recourse fairness ratio rho of every prefix of a ranking (no threshold).

    The ``value`` of :func:`ranked_recourse_fairness`, without its ``beta``:
    entry ``k - 1`` is rho of the top ``k``, over the groups present in it
    (1 for a prefix with a single group, by the paper's singleton convention).

    >>> prefix_rho([1.0, 2.0, 1.5, 2.0], ["M", "F", "M", "F"]).round(3).tolist()
    [1.0, 0.5, 0.625, 0.625]
    """
    c, codes, labels = costs_and_groups(costs_in_order, groups_in_order, "costs_in_order", "groups_in_order")
    n, G = c.size, len(labels)
    onehot = np.zeros((n, G))
    onehot[np.arange(n), codes] = 1.0
    counts = np.cumsum(onehot, axis=0)
    sums = np.cumsum(onehot * c[:, None], axis=0)
    present = counts > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    hi = np.where(present, means, -np.inf).max(axis=1)
    lo = np.where(present, means, np.inf).min(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where((present.sum(axis=1) < 2) | (hi <= 0), 1.0, lo / np.where(hi > 0, hi, 1.0))



"""Recourse-aware fair ranking: recourse costs to a boundary, fairness checks, RAGUEL and RAGUEL-Block.

RAGUEL :cite:p:`haldar2022raguel` ranks records by their **recourse cost** (the
weighted distance to the favourable side of a linear classifier) and re-ranks
them so that every prefix of the list represents the protected group fairly,
by suggesting small, readable modifications (one attribute at a time, cheapest
recourse weight first) that move under-represented records up. This module
holds the whole chapter:

* recourse costs to a linear boundary come from
  :func:`~recourselab.counterfactuals.linear_recourse` (which lives next to the
  package's other recourse generator and is re-exported here);
* fairness of a set or a ranking (:func:`fair_representation`,
  :func:`ranked_fair_representation`, :func:`recourse_fairness_ratio`,
  :func:`ranked_recourse_fairness`), Definitions 3.1-3.4 of the paper;
* the re-rankings: :func:`raguel` (Algorithm 1) and :func:`raguel_block`
  (Algorithm 2);
* ranking-quality metrics rND, rKL, rRD :cite:p:`yang2017measuring`
  (:func:`rnd`, :func:`rkl`, :func:`rrd`, :func:`ranking_metrics`);
* the FA*IR baseline :cite:p:`zehlike2017fair` (:func:`fair_minimum_table`,
  :func:`fair_adjusted_alpha`, :func:`fair_rerank`).

**Reading of the lost formulas** (the book's design, §5). A set or prefix
:math:`S` represents a protected group fairly when
:math:`|p_S - p| \\le \\alpha` with :math:`\\alpha = p\\,t` for a tolerance
:math:`t \\in (0, 1]` (default 1/3: with :math:`p = 30\\%` the band is
30 % ± 10 %), where :math:`p` is the group's share in the **whole population**.
The recourse fairness ratio is
:math:`\\rho = \\min_g \\mu_g / \\max_g \\mu_g` over the groups' mean recourse
costs, and group-level recourse fairness is :math:`\\rho \\ge 1 - \\beta`.
Comparisons of a share with its band use a slack of 1e-9, so that 4 of 10
lies inside 30 % ± 10 % despite rounding.

Two refinements of the paper's algorithms are documented where they apply:
:func:`raguel` appends a record as is where *no* choice of group could make
the prefix fair (e.g. every prefix of length 2 when p = 0.3), instead of
giving up; :func:`raguel_block` reads Eq. 3 as "the block's rho does not
decrease" and optionally (``beta``) also accepts swaps that keep the block
recourse-fair by Definition 3.4.

Costs are those of the paper's Example 1, under the book's one actionability
model: with a linear classifier :math:`f(x) = a^\\top x + b` (favourable when
:math:`f(x) \\ge 0`) and recourse weights :math:`w`, the cost of an
unfavourable row is the weighted Euclidean length of its cheapest move to the
favourable side that the actionability box allows (the closed form of
:func:`~recourselab.counterfactuals.linear_recourse`). Without binding bounds
this is the distance to the hyperplane,

.. math:: \\operatorname{cost}(x) = \\frac{\\max(0, -(a^\\top x + b))}
          {\\sqrt{\\sum_{j \\text{ mutable}} a_j^2 / w_j}} ,

and 0 on the favourable side. With ``encoder=`` every cost, every
modification and every re-ranked profile follows the feature specs
(immutable and categorical features stay fixed, monotone features move only
their way, ordinal features move by whole levels), so ``X_new`` passes
:meth:`Encoder.feasible <recourselab.features.Encoder.feasible>` against
``X``. Rows that no allowed move brings to the favourable side (cost inf)
have no mean cost, so RAGUEL refuses them with a message saying how to set
them aside. All sums run column by column in a fixed order, so a row's cost
is bit-for-bit the same whether it is computed alone or inside a batch.
"""

from __future__ import annotations

import itertools
import math
import numbers
import time
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy.stats import binom

from .._validation import check_int, check_labels, check_real
from ..counterfactuals import _linear
from ..counterfactuals.recourse import LinearRecourse, linear_recourse  # noqa: F401  (re-exported for convenience)

__all__ = [
    "RankedCheck",
    "fair_representation",
    "ranked_fair_representation",
    "recourse_fairness_ratio",
    "best_ratio_with_one_more",
    "ranked_recourse_fairness",
    "RaguelResult",
    "raguel",
    "RaguelBlockResult",
    "raguel_block",
    "CostRerankResult",
    "rerank_by_cost",
    "rnd",
    "rkl",
    "rrd",
    "ranking_metrics",
    "fair_minimum_table",
    "fair_adjusted_alpha",
    "fair_rerank",
]

_SLACK = 1e-9  # share-versus-band comparisons and bound room: absorbs rounding (0.4 - 0.3 > 0.1 in floats)
_RHO_SLACK = 1e-12  # rho comparisons
_KL_EPS = 1e-12  # replaces a zero probability inside a logarithm of rKL
_COMBO_CACHE = 1 << 14  # attribute combinations kept in memory per problem


# --------------------------------------------------------------------------- small helpers


def _frozen(a) -> np.ndarray:
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


def _check_tolerance(tolerance) -> float:
    t = check_real(tolerance, "tolerance")
    if not 0 < t <= 1:
        raise ValueError(
            f"tolerance={tolerance!r} must lie in (0, 1]; the band is p*(1 - t) to p*(1 + t) around the "
            "protected share p (the paper's default is t = 1/3)."
        )
    return t


def _check_beta(beta) -> float | None:
    if beta is None:
        return None
    b = check_real(beta, "beta")
    if not 0 <= b <= 1:
        raise ValueError(f"beta={beta!r} must lie in [0, 1]; recourse fairness asks for rho >= 1 - beta.")
    return b


def _groups(groups, n: int, name: str = "groups", *, single_ok: bool = False):
    """Integer codes and the sorted labels (Python objects) of a label array of length n."""
    arr = np.asarray(groups)
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(f"{name} has shape {arr.shape}; give one label per row ({n}).")
    if n == 0:
        raise ValueError(f"{name} is empty; give at least one row.")
    check_labels(groups, name, n)
    try:
        codes, labels = pd.factorize(arr, sort=True)
    except TypeError:
        codes, labels = pd.factorize(arr, sort=False)
    labels = list(np.asarray(labels).tolist())
    if len(labels) < 2 and not single_ok:
        raise ValueError(
            f"{name} has a single value ({labels[0]!r}); fairness compares at least two groups. "
            "Pass the group label of every row (e.g. gender or marital status)."
        )
    return codes.astype(np.int64), labels


def _protected_codes(protected, labels: list, name: str = "protected_group") -> list[int]:
    if isinstance(protected, (list, tuple, set, frozenset, np.ndarray, pd.Index, pd.Series)):
        wanted = list(np.asarray(list(protected)).tolist())
        if not wanted:
            raise ValueError(f"{name} is empty; name at least one protected group label.")
    else:
        wanted = [protected.item() if isinstance(protected, np.generic) else protected]
    lookup = {lab: i for i, lab in enumerate(labels)}
    codes = []
    for w in wanted:
        if w not in lookup:
            raise ValueError(f"{name}={w!r} is not a label of groups; labels are {labels}.")
        if lookup[w] not in codes:
            codes.append(lookup[w])
    return codes


def _protected_list(protected) -> list:
    if isinstance(protected, (list, tuple, set, frozenset, np.ndarray, pd.Index, pd.Series)):
        out = list(np.asarray(list(protected)).tolist())
        if not out:
            raise ValueError("protected_group is empty; name at least one protected group label.")
        return out
    return [protected.item() if isinstance(protected, np.generic) else protected]


def _shares_p(p, wanted: list) -> np.ndarray:
    """The global share of each protected label from a float, a sequence or a dict."""
    if p is None:
        raise TypeError("p is required: the protected group's share in the whole population.")
    if isinstance(p, dict):
        missing = [w for w in wanted if w not in p]
        if missing:
            raise ValueError(f"p gives no share for protected labels {missing}.")
        vals = np.array([float(p[w]) for w in wanted])
    elif np.isscalar(p):
        if len(wanted) != 1:
            raise ValueError(f"p={p!r} is one number but protected_group has {len(wanted)} labels; "
                             "give one share each.")
        vals = np.array([float(p)])
    else:
        vals = np.asarray(p, dtype=float).reshape(-1)
        if len(vals) != len(wanted):
            raise ValueError(f"p has {len(vals)} entries but protected_group has {len(wanted)} labels.")
    if not ((vals > 0) & (vals <= 1)).all():
        raise ValueError(f"p={p!r} must lie in (0, 1]: the protected share in the whole population.")
    return vals


def _band_ok(count, k, p, alpha):
    """|count/k - p| <= alpha (+ slack) for every protected label (last axis)."""
    return np.all(np.abs(count / k - p) <= alpha + _SLACK, axis=-1)


def _rho(sums, counts) -> float:
    """min/max of the present groups' mean costs; NaN with fewer than two groups; 1 when all means are 0."""
    lo = hi = None
    present = 0
    for s, c in zip(sums, counts, strict=True):
        if c > 0:
            mu = float(s) / float(c)
            present += 1
            if lo is None or mu < lo:
                lo = mu
            if hi is None or mu > hi:
                hi = mu
    if present < 2:
        return math.nan
    return 1.0 if hi <= 0 else lo / hi


def _rho_interval(sums, counts, g: int, q: float):
    """Costs c for which adding one member of group g with cost c keeps rho >= q (an interval, or None).

    With the other present groups' means between m and M, rho after the
    addition is min(mu, m) / max(mu, M) for the new mean mu of group g, which
    is >= q exactly when q*M <= mu <= m/q (and m >= q*M).
    """
    m = M = None
    for h, (s, c) in enumerate(zip(sums, counts, strict=True)):
        if h == g or c <= 0:
            continue
        mu = float(s) / float(c)
        if m is None or mu < m:
            m = mu
        if M is None or mu > M:
            M = mu
    if m is None:
        return -math.inf, math.inf
    if m < q * M - _RHO_SLACK * max(M, 1.0):
        return None
    mu_hi = math.inf if q <= 0 else m / q
    k = float(counts[g]) + 1
    return q * M * k - float(sums[g]), mu_hi * k - float(sums[g])


def _violation(counts, size, P, p, alpha) -> float:
    """Total distance of the protected shares outside their bands (0 = fair)."""
    v = 0.0
    for g, pg, ag in zip(P, p, alpha, strict=True):
        d = abs(counts[g] / size - pg) - ag - _SLACK
        if d > 0:
            v += d
    return v


# --------------------------------------------------------------------------- fairness of a set and a ranking


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
    t = _check_tolerance(tolerance)
    wanted = _protected_list(protected_group)
    pv = _shares_p(p, wanted)
    arr = np.asarray(groups)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"groups has shape {arr.shape}; give the labels of a non-empty set (1-d).")
    check_labels(groups, "groups", what="member")
    counts = np.array([np.count_nonzero(arr == w) for w in wanted], dtype=float)
    absent = [w for w, c in zip(wanted, counts, strict=True) if c == 0]
    if absent:
        # a set may well lack a protected group (its share is then 0), but a misspelt label looks the same
        warnings.warn(f"protected_group label(s) {absent} do not occur in groups (whose labels are "
                      f"{sorted(map(str, set(arr.tolist())))[:6]}); their share in the set is 0. If a label is "
                      "misspelt, fix it.", stacklevel=2)
    return bool(_band_ok(counts, arr.size, pv, pv * t))


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
    t = _check_tolerance(tolerance)
    arr = np.asarray(order_groups)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"order_groups has shape {arr.shape}; give the labels of a non-empty ranking (1-d).")
    wanted = _protected_list(protected_group)
    if p is None:
        _, labels = _groups(arr, arr.size, "order_groups")
        _protected_codes(wanted, labels)
        pv = np.array([np.mean(arr == w) for w in wanted])
    else:
        pv = _shares_p(p, wanted)
    hits = np.stack([arr == w for w in wanted], axis=1).astype(float)
    cum = np.cumsum(hits, axis=0)
    k = np.arange(1, arr.size + 1, dtype=float)[:, None]
    ok = _band_ok(cum, k, pv, pv * t)
    ok[0] = True
    share = cum / k
    return RankedCheck(ok, bool(ok.all()), share[:, 0] if len(wanted) == 1 else share)


def _costs_groups(costs, groups, costs_name="costs", groups_name="groups"):
    c = np.asarray(costs, dtype=float).reshape(-1) if np.ndim(costs) else np.array([float(costs)])
    if c.size == 0:
        raise ValueError(f"{costs_name} is empty.")
    if np.isnan(c).any():
        raise ValueError(f"{costs_name} has NaN entries (first at {int(np.flatnonzero(np.isnan(c))[0])}).")
    if np.isinf(c).any():
        raise ValueError(
            f"{costs_name} has infinite entries (first at {int(np.flatnonzero(np.isinf(c))[0])}): rows without "
            "recourse have no mean cost; drop them or give them a finite cost."
        )
    if (c < 0).any():
        raise ValueError(f"{costs_name} has negative entries; recourse costs are >= 0.")
    codes, labels = _groups(groups, c.size, groups_name)
    return c, codes, labels


def recourse_fairness_ratio(costs, groups) -> float:
    """The group-level recourse fairness ratio rho (Eqs. 1 and 4).

    .. math:: \\rho = \\frac{\\min_g \\mu_g}{\\max_g \\mu_g}, \\qquad
              \\mu_g = \\text{mean recourse cost of group } g ,

    for two or more groups: 1 when every group's mean is the same, near 0
    when one group pays far more. By convention :math:`\\rho = 1` when every
    mean is 0.

    Parameters
    ----------
    costs : array of float >= 0, shape (n,)
    groups : array of labels, shape (n,), with at least two distinct values

    Returns
    -------
    float

    Examples
    --------
    The paper's Table 3 (DC3, initial data: single 7.688, married 5.837):

    >>> round(recourse_fairness_ratio([7.688, 5.837], ["single", "married"]), 3)
    0.759
    """
    c, codes, labels = _costs_groups(costs, groups)
    G = len(labels)
    return _rho(np.bincount(codes, weights=c, minlength=G), np.bincount(codes, minlength=G).astype(float))


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
    below = float(below) if isinstance(below, numbers.Real) and not isinstance(below, bool) else math.nan
    if not (math.isfinite(below) and below > 0):
        raise ValueError(f"below={below!r} must be a positive finite cost (the added cost lies in [0, below)).")
    all_groups = np.append(np.asarray(groups, dtype=object).reshape(-1), np.array([added_group], dtype=object))
    if len(pd.unique(all_groups)) < 2:
        return math.nan  # one group: rho is not defined
    # validate the prefix and the new record together (a cost of 0 stands in for the new one)
    c, codes, labels = _costs_groups(np.append(np.asarray(costs, dtype=float).reshape(-1), 0.0), all_groups)
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
        return _rho(s2, c2)

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
    b = _check_beta(beta)
    if b is None:
        raise TypeError("beta is required: prefixes must satisfy rho >= 1 - beta.")
    c, codes, labels = _costs_groups(costs_in_order, groups_in_order, "costs_in_order", "groups_in_order")
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
        rho = np.where((present.sum(axis=1) < 2) | (hi <= 0), 1.0, lo / np.where(hi > 0, hi, 1.0))
    ok = rho >= 1 - b - _RHO_SLACK
    return RankedCheck(ok, bool(ok.all()), rho)


# --------------------------------------------------------------------------- the modification engine


class _Engine:
    """Rows, boundary and actionability: recourse costs and the cheapest readable modification of a row.

    Costs are those of :func:`~recourselab.counterfactuals.linear_recourse`'s
    closed form: the weighted projection onto the favourable half-space inside
    the row's actionability box, computed by the same code, so a modified
    row's cost equals ``linear_recourse`` on that row bit for bit.

    Modifiable attributes ``F`` are the usable features (not fixed, nonzero
    coefficient), sorted by recourse weight (ties: column order). A
    modification is a combination ``C`` of them (in the order A, B, C, AB, AC,
    BC, ABC: by size, then lexicographic in weight order) and a number of
    iterations ``n``: each attribute of ``C`` moves ``min(n, cap_j)`` steps in
    the direction of ``sign(a_j)``, where ``cap_j`` is how many steps fit
    inside its box (at most ``max_steps``; 0 where the actionability model
    forbids that direction).

    *Why a bisection finds the fewest iterations.* Moving an attribute one step
    in the direction that raises the margin never raises the cost: the new
    row's box is the old one cut at the new value, and the old optimum, with
    that attribute raised to the new value if it fell short of it, is still
    admissible and no farther away. So for a fixed combination the cost is
    non-increasing in ``n``, and the smallest ``n`` reaching a target is found
    by bisection, for all combinations of a chunk at once (vectorised), then
    confirmed by exact evaluation of the modified row.
    """

    _TOL = 1e-9  # relative leniency of the vectorised search; exact evaluation decides

    def __init__(self, problem, steps, max_steps):
        self.problem = problem
        self.slack = problem.slack  # counterfactuals aim this far inside the favourable side
        A, coef, w = problem.A, problem.coef, problem.weights
        self.A, self.coef, self.b, self.columns = A, coef, problem.intercept, problem.columns
        usable = problem.usable
        U = np.flatnonzero(usable)  # column order: the order every projection uses
        if U.size == 0:
            raise ValueError(
                "no mutable feature has a nonzero coefficient, so no modification can change a recourse cost; "
                "check coef, immutable and the encoder's actionability."
            )
        self.U = U
        self.F = U[np.lexsort((U, w[U]))]  # ascending recourse weight, ties by column order
        for j in self.F:
            if not (np.isfinite(steps[j]) and steps[j] > 0):
                raise ValueError(
                    f"steps[{j}] = {steps[j]:g} for the mutable feature {self.columns[j]!r}; RAGUEL moves attributes "
                    "in steps, which must be > 0 and finite."
                )
        self.m = self.F.size
        self.pos_in_U = np.searchsorted(U, self.F)  # where each attribute of F sits among the U columns
        self.sign = np.sign(coef[self.F])
        self.step = steps[self.F]
        self.signed_step = self.sign * self.step
        self.rate = np.abs(coef[self.F]) * self.step  # margin gained per step
        self.proj_rate = coef[U] ** 2 / w[U]
        self.max_steps = max_steps
        self.margin0 = _linear.margin(A, coef, self.b)
        self.room0 = problem.box.room(A, coef)[:, U]
        self.cost0 = self._costs(self.margin0, self.room0)
        self._cached = None
        if (1 << self.m) - 1 <= _COMBO_CACHE:
            self._cached = list(self._chunks())
        # features that can still move the margin at the start; their rates bound every later cost from below
        self._sqrt_rate_pos = np.sqrt((self.room0 > 0) @ self.proj_rate)
        self._rate_all = float(self.proj_rate.sum())
        # plain-Python copies for cost_of (one row at a time)
        box = problem.box
        self.nz = [int(j) for j in np.flatnonzero(coef)]
        self.coef_list = [float(coef[j]) for j in self.nz]
        factor = w[U] / np.abs(coef[U])
        self._box_rows = [(int(j), bool(box.fixed[j] or box.rises_only[j]), bool(box.fixed[j] or box.falls_only[j]),
                           float(box.lower0[j]), float(box.upper0[j]), float(f), float(abs(coef[j])))
                          for j, f in zip(U, factor, strict=True)]
        self._up = {int(j): bool(coef[j] > 0) for j in U}
        self._rate_py = [float(r) for r in self.proj_rate]
        self._lam0 = _linear.breakpoints(self.room0, coef[U], w[U])
        # breakpoint lost per step of each attribute, in U order (the projection's columns)
        self._lam_per_step = np.zeros(len(U))
        self._lam_per_step[self.pos_in_U] = self.step * w[self.F] / np.abs(coef[self.F])
        self._precompute()

    # -- costs
    def _costs(self, s, room_U) -> np.ndarray:
        lam = _linear.breakpoints(room_U, self.coef[self.U], self.problem.weights[self.U])
        return _linear.projection(s, lam, self.proj_rate, room_U * np.abs(self.coef[self.U]), self.slack)[0]

    def cost_of(self, x) -> float:
        """Exact cost of one (modified) row, as linear_recourse computes it (bit for bit).

        The same arithmetic as :func:`recourselab._linear.projection` in the
        same order, in plain Python floats: a single row is called for often
        (every exact check of a modification) and numpy's per-call overhead
        would dominate.
        """
        x = [float(v) for v in x]
        s = self.b
        for j, a in zip(self.nz, self.coef_list, strict=True):
            s += x[j] * a
        if not s < 0:
            return 0.0
        lam, gain = [], []
        for j, rises, falls, lo0, hi0, factor, abs_a in self._box_rows:
            v = x[j]
            lo = v if rises else lo0
            hi = v if falls else hi0
            lo, hi = min(lo, v), max(hi, v)
            room = max(hi - v if self._up[j] else v - lo, 0.0)
            lam.append(room * factor if room > 0 else 0.0)
            gain.append(room * abs_a)
        need0 = -s
        need = need0 + self.slack
        m = len(lam)
        order = sorted(range(m), key=lam.__getitem__)
        L = [lam[i] for i in order]
        tail = [0.0] * m
        t = 0.0
        for k in range(m - 1, -1, -1):
            t = t + self._rate_py[order[k]]
            tail[k] = t
        head = 0.0
        star = math.inf
        for k in range(m):
            reached = head + L[k] * tail[k]
            if reached >= need:
                star = min(max((need - head) / tail[k], 0.0), L[k])
                break
            if k == m - 1 and reached >= need0 * (1 - 1e-12):  # short of the slack: every feature at its bound
                star = min(max((need - head) / tail[k], 0.0), L[k])
            head = head + gain[order[k]]
        if math.isinf(star):
            return math.inf
        total = 0.0
        for r, lj in zip(self._rate_py, lam, strict=True):
            step = min(star, lj)
            total = total + r * step * step
        return math.sqrt(total)

    def caps(self, rows) -> np.ndarray:
        """Steps that fit inside the box, per row (or rows) and modifiable attribute, at most max_steps."""
        return self._caps[rows].astype(float)

    def _precompute(self) -> None:
        """Caps of every row (int32) and the lowest cost any modification reaches (a lenient prefilter)."""
        room_F = self.room0[:, self.pos_in_U]
        with np.errstate(invalid="ignore", over="ignore"):
            cap = np.floor(room_F / self.step + _linear.SLACK)
        cap = np.where(np.isnan(cap), self.max_steps, cap)
        self._caps = np.clip(cap, 0, self.max_steps).astype(np.int32)
        # every attribute moved as far as allowed: no modification reaches a lower cost
        moved = self._caps * self.step
        s = self.margin0 + self._caps @ self.rate
        room = self.room0.copy()
        room[:, self.pos_in_U] = np.maximum(room[:, self.pos_in_U] - moved, 0.0)
        self.min_cost = self._costs(s, room) * (1 - self._TOL) - 1e-12  # lenient: exact checks decide

    # -- combinations
    def _chunks(self):
        """Boolean combination matrices in the paper's order (by size, then lexicographic).

        The single attributes come first in a chunk of their own (most
        modifications need one attribute, and the search then stops before
        the larger combinations); the rest follow in chunks of up to 4096,
        which the search handles in one vectorised batch each.
        """
        if self._cached is not None:
            yield from self._cached
            return
        m = self.m
        yield np.eye(m, dtype=bool)
        it = itertools.chain.from_iterable(itertools.combinations(range(m), size) for size in range(2, m + 1))
        while True:
            block = list(itertools.islice(it, 4096))
            if not block:
                return
            K = np.zeros((len(block), m), dtype=bool)
            sizes = np.fromiter((len(c) for c in block), dtype=int, count=len(block))
            members = np.fromiter(itertools.chain.from_iterable(block), dtype=int, count=int(sizes.sum()))
            K[np.repeat(np.arange(len(block)), sizes), members] = True
            yield K

    # -- evaluation and search
    def evaluate(self, row, combo, n, caps):
        """Modified row, its exact cost and the steps per attribute of `combo` after n iterations."""
        x = self.A[row].copy()
        eff = np.minimum(n, caps[combo])
        cols = self.F[combo]
        x[cols] = x[cols] + self.signed_step[combo] * eff
        return x, self.cost_of(x), eff

    def _approx_costs(self, row, K, n, caps):
        """Cost of row after n[i] iterations of combination K[i] (vectorised over combinations)."""
        moved = np.minimum(n[:, None], caps[None, :]) * K  # steps per attribute (F order)
        s = self.margin0[row] + moved @ self.rate
        room = np.repeat(self.room0[row][None, :], len(K), axis=0)
        room[:, self.pos_in_U] = np.maximum(room[:, self.pos_in_U] - moved * self.step, 0.0)
        return self._costs(s, room)

    def _linear(self, rows, K, top_ok):
        """Closed-form search for rows x combinations, exact where the box does not bind (the common case).

        Along a combination's moves the margin grows linearly (until an
        attribute reaches its cap) and, while the unbounded projection stays
        inside the box, the box cost *is* that projection's cost
        ``-s(n) / sqrt(R)``. So the smallest ``n`` with cost <= ``top_ok`` has a
        closed form, and it is the answer when the projection at that ``n``
        fits the box (every breakpoint at or above the multiplier). Returns,
        each of shape (len(rows), len(K)): ``n`` (a lower bound on the answer
        in any case), ``sure`` (``n`` is the answer and ``cost`` its cost),
        ``cost`` and ``hopeless`` (even the lower bound exceeds the largest
        move: no ``n`` reaches ``top_ok``).
        """
        rows = np.atleast_1d(rows)
        caps = self._caps[rows].astype(float)  # (r, m)
        Kf = K.astype(float)
        gain = Kf @ self.rate  # (k,)
        nmax = np.max(np.where(K[None, :, :], caps[:, None, :], 0.0), axis=2)  # (r, k)
        nmin = np.min(np.where(K[None, :, :], caps[:, None, :], np.inf), axis=2)
        s0 = self.margin0[rows][:, None]
        need = -np.asarray(top_ok, dtype=float).reshape(-1, 1) * self._sqrt_rate_pos[rows][:, None] - s0
        n = np.maximum(np.ceil(need / gain[None, :]), 1.0)
        hopeless = n > nmax
        s = s0 + n * gain[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            star = np.maximum(-s, 0.0) / self._rate_all
            KU = np.zeros((len(K), len(self.U)))
            KU[:, self.pos_in_U] = Kf
            lam = self._lam0[rows][:, None, :] - n[:, :, None] * (KU * self._lam_per_step)[None, :, :]
            fits = (lam >= star[:, :, None] * (1 + 1e-12)).all(axis=2)
            cost = np.maximum(-s, 0.0) / np.sqrt(self._rate_all)
        all_room = (self.room0[rows] > 0).all(axis=1)[:, None]  # then the lower bound's rate is the full one
        sure = all_room & fits & (n <= nmin) & ~hopeless
        return n, sure, cost, hopeless

    def find_first(self, rows, T, *, strict, c_lo=None, c_hi=None, accept=None):
        """The first of ``rows`` (in order) that :meth:`find` can modify: ``(position, result)`` or None.

        ``c_lo``, ``c_hi`` are arrays aligned with ``rows`` (default
        unbounded); ``accept(c, position)`` is the exact extra condition. Rows
        are skipped at once when even moving every attribute as far as allowed
        cannot reach ``min(T, c_hi)``, or when their cost is already below
        ``c_lo`` (moves only lower a cost).
        """
        rows = np.asarray(rows, dtype=np.int64)
        k = len(rows)
        if k == 0:
            return None
        c_lo = np.full(k, -np.inf) if c_lo is None else np.asarray(c_lo, dtype=float)
        c_hi = np.full(k, np.inf) if c_hi is None else np.asarray(c_hi, dtype=float)
        top = np.minimum(T, c_hi)
        hi_ok = top + self._TOL * (1.0 + np.abs(top))
        lo_ok = np.where(np.isfinite(c_lo), c_lo - self._TOL * (1.0 + np.abs(c_lo)), -np.inf)
        maybe = (self.min_cost[rows] <= hi_ok) & (self.cost0[rows] >= lo_ok)
        start, batch = 0, 4
        if maybe[0]:  # the usual case: the first candidate works, with no need to screen the others
            acc = None if accept is None else (lambda c: accept(c, 0))
            res = self.find(int(rows[0]), T, strict=strict, c_lo=float(c_lo[0]), c_hi=float(c_hi[0]), accept=acc)
            if res is not None:
                return 0, res
            start = 1
        while start < k:
            stop = min(k, start + batch)
            block = np.arange(start, stop)[maybe[start:stop]]
            if block.size and self._cached is not None and np.isfinite(lo_ok[block]).any():
                # a lenient screen of the whole batch: a row stays when some combination is unsure or
                # lands in [c_lo, c_hi] by the closed form (a window is what makes most rows fail)
                c0 = self.cost0[rows[block]]
                keep = (c0 <= hi_ok[block]) & (c0 >= lo_ok[block])  # qualifies without a move
                for K in self._cached:
                    n, sure, cost, hopeless = self._linear(rows[block], K, hi_ok[block])
                    keep |= ((~sure & ~hopeless) | (sure & (cost >= lo_ok[block][:, None]))).any(axis=1)
                block = block[keep]
            for i in block.tolist():
                acc = None if accept is None else (lambda c, i=i: accept(c, i))
                res = self.find(int(rows[i]), T, strict=strict, c_lo=float(c_lo[i]), c_hi=float(c_hi[i]),
                                accept=acc)
                if res is not None:
                    return i, res
            start, batch = stop, batch * 4
        return None

    def find(self, row, T, *, strict, c_lo=-np.inf, c_hi=np.inf, accept=None):
        """The first (combination, smallest n) whose new cost c satisfies the conditions, or None.

        Conditions: ``c < T`` (strict) or ``c <= T``, and ``accept(c)``
        (``c_lo <= c <= c_hi`` is the interval ``accept`` describes, used to
        narrow the search). Returns ``(x_new, cost_new, columns, steps)``; no
        move at all when the row already qualifies.
        """

        def ok(c):
            if strict:
                if not c < T:
                    return False
            elif not c <= T:
                return False
            return accept is None or accept(c)

        c0 = float(self.cost0[row])
        if ok(c0):
            return self.A[row].copy(), c0, np.zeros(0, dtype=int), np.zeros(0, dtype=int)
        if c0 < c_lo or c_lo > T or (strict and c_lo >= T):  # moves only lower the cost; empty window
            return None
        caps = self.caps(row)
        top = min(T, c_hi)
        hi_ok = top + self._TOL * (1.0 + abs(top))
        lo_ok = c_lo - self._TOL * (1.0 + abs(c_lo)) if np.isfinite(c_lo) else -np.inf
        for K in self._chunks():
            nmax = np.where(K, caps[None, :], 0.0).max(axis=1)
            live = nmax >= 1
            if not live.any():
                continue
            Kl, nmax = K[live], nmax[live]
            # smallest n in [1, nmax] with cost(n) <= top (leniently), for all combinations at once: in closed
            # form where the box does not bind; otherwise a search from the closed form's lower bound
            first, sure, c_sure, hopeless = (a[0] for a in self._linear(np.array([row]), Kl, np.array([hi_ok])))
            passes = sure & (c_sure >= lo_ok)
            # the searches are needed only for the combinations before the first closed-form candidate (the
            # paper's order decides), unless that candidate fails its exact check
            split = int(np.argmax(passes)) if passes.any() else len(Kl)
            for part in (np.arange(split + 1 if split < len(Kl) else split), np.arange(split + 1, len(Kl))):
                if part.size == 0:
                    continue
                found = self._try(row, Kl[part], nmax[part], first[part], sure[part], c_sure[part], hopeless[part],
                                  caps, hi_ok, lo_ok, ok)
                if found is not None:
                    return found
        return None

    def _try(self, row, Kl, nmax, first, sure, c_sure, hopeless, caps, hi_ok, lo_ok, ok):
        """Search and exactly check combinations ``Kl`` of one row, in order; the first that qualifies, or None."""
        n = np.where(sure, first, 0.0)
        c_n = np.where(sure, c_sure, np.inf)
        todo = np.flatnonzero(~sure & ~hopeless)
        if todo.size:
            Kt, nmax_t = Kl[todo], nmax[todo]
            first_t = np.clip(first[todo] - 1, 1, nmax_t)
            both = self._approx_costs(row, np.concatenate([Kt, Kt]), np.concatenate([nmax_t, first_t]), caps)
            c_last, c_first = both[:len(Kt)], both[len(Kt):]
            reach = c_last <= hi_ok
            todo, Kt, nmax_t, first_t, c_first, c_last = (todo[reach], Kt[reach], nmax_t[reach], first_t[reach],
                                                          c_first[reach], c_last[reach])
            if todo.size:
                n_t = self._smallest_good(row, Kt, first_t, c_first, nmax_t, c_last, caps, hi_ok)
                n[todo] = n_t
                c_n[todo] = self._approx_costs(row, Kt, n_t, caps) if np.isfinite(lo_ok) else 0.0
        # costs only fall with n: below c_lo at the smallest n means never in the window
        keep = (n >= 1) & (c_n >= lo_ok)
        for idx in np.flatnonzero(keep).tolist():
            combo = np.flatnonzero(Kl[idx])
            # closed form: one step fewer leaves even the unbounded projection's cost (a lower bound of the
            # box cost) above the target, so only rounding at n itself needs an exact look
            found = self._verify(row, combo, int(n[idx]), int(nmax[idx]), caps, ok, down=not sure[idx])
            if found is not None:
                return found
        return None

    def _smallest_good(self, row, K, lo, c_lo, hi, c_hi, caps, limit):
        """Smallest n in [lo, hi] with cost(n) <= limit, per combination (cost(hi) <= limit is known).

        The cost falls with n, nearly linearly while the same features sit on
        their bounds, so a guess by linear interpolation between a bad and a
        good n usually lands on the answer; each round evaluates the guess and
        the number just below it, and every other round bisects instead, so
        the search never takes more than about twice the rounds of a bisection.
        """
        n = np.where(c_lo <= limit, lo, hi).astype(float)
        bad, good = lo.astype(float), hi.astype(float)
        c_bad, c_good = c_lo.copy(), c_hi.copy()
        open_ = c_lo > limit
        rounds = 0
        while True:
            active = open_ & (good - bad > 1)
            if not active.any():
                break
            idx = np.flatnonzero(active)
            b, g, cb, cg = bad[idx], good[idx], c_bad[idx], c_good[idx]
            if rounds % 2 == 0:
                with np.errstate(invalid="ignore", divide="ignore"):
                    frac = np.where(np.isfinite(cb) & (cb > cg), (cb - limit) / (cb - cg), 0.5)
                guess = np.clip(np.ceil(b + frac * (g - b)), b + 1, g - 1)
            else:
                guess = np.floor((b + g) / 2)
            K2 = np.concatenate([K[idx], K[idx]])
            costs = self._approx_costs(row, K2, np.concatenate([guess - 1, guess]), caps)
            below, at = costs[:len(idx)], costs[len(idx):]
            ok_below, ok_at = below <= limit, at <= limit
            # guess - 1 good: the answer is at most guess - 1; guess good only: it is guess; neither: above guess
            good[idx] = np.where(ok_below, guess - 1, np.where(ok_at, guess, g))
            c_good[idx] = np.where(ok_below, below, np.where(ok_at, at, cg))
            bad[idx] = np.where(ok_below, b, np.where(ok_at, guess - 1, guess))
            c_bad[idx] = np.where(ok_below, cb, np.where(ok_at, below, at))
            rounds += 1
        return np.where(open_, good, n)

    def _verify(self, row, combo, n, nmax, caps, ok, *, down=True):
        """Exact check of the searched n (and its neighbours: rounding), smallest qualifying n first."""
        x, c, eff = self.evaluate(row, combo, n, caps)
        if ok(c):
            for _ in range(3 if down else 0):
                if n <= 1:
                    break
                x2, c2, eff2 = self.evaluate(row, combo, n - 1, caps)
                if not ok(c2):
                    break
                n, x, c, eff = n - 1, x2, c2, eff2
            return x, c, self.F[combo], eff.astype(int)
        for k in range(n + 1, min(nmax, n + 3) + 1):
            x, c, eff = self.evaluate(row, combo, k, caps)
            if ok(c):
                return x, c, self.F[combo], eff.astype(int)
        return None


def _default_steps(problem, steps) -> np.ndarray:
    """RAGUEL's step sizes: the user's, or with an encoder one level (ordinal/binary) and 1% of the range.

    For a continuous feature stored as integers (months, DM) the default is
    1% of the range rounded to a whole number of units (at least one), so that
    a modified profile reads in the feature's own units.
    """
    columns = problem.columns
    encoder = problem.encoder
    if steps is None:
        if encoder is None:
            raise TypeError("steps is required without an encoder: give the step size of every mutable feature.")
        out = np.full(len(columns), 0.01)  # 1% of each continuous feature's range
        for spec in encoder.specs_:
            lo, hi = encoder.ranges_.get(spec.name, (0.0, 0.0))
            if spec.kind == "continuous" and hi > lo and pd.api.types.is_integer_dtype(encoder.dtypes_[spec.name]):
                out[encoder.slices_[spec.name].start] = max(1.0, round(0.01 * (hi - lo))) / (hi - lo)
    else:
        out = _linear.per_feature(steps, "steps", columns, fill=np.nan)
    if encoder is not None:
        level = _linear.level_steps(encoder)
        for j in np.flatnonzero(~np.isnan(level)):
            if steps is None or np.isnan(out[j]):
                out[j] = level[j]
            elif not (out[j] > 0 and abs(out[j] / level[j] - round(out[j] / level[j])) < 1e-9):
                raise ValueError(
                    f"steps[{j}] = {out[j]:g} for the level-valued column {columns[j]!r}; it must be a whole number "
                    f"of levels ({level[j]:g} each) so that the profile stays on a level."
                )
    return out


def _setup_rerank(X, groups, coef, intercept, weights, steps, protected_group, immutable, bounds, tolerance,
                  max_steps, encoder):
    problem = _linear.parse_problem(X, coef, intercept, weights, encoder=encoder, immutable=immutable, bounds=bounds)
    steps = _default_steps(problem, steps)
    max_steps = check_int(max_steps, "max_steps")
    if max_steps < 1:
        raise ValueError(f"max_steps={max_steps} must be >= 1 (iterations allowed per attribute combination).")
    t = _check_tolerance(tolerance)
    n = problem.A.shape[0]
    codes, labels = _groups(groups, n)
    P = np.array(_protected_codes(protected_group, labels), dtype=int)
    counts = np.bincount(codes, minlength=len(labels))
    p = counts[P] / n
    engine = _Engine(problem, steps, max_steps)
    stuck = np.flatnonzero(~np.isfinite(engine.cost0))
    if stuck.size:
        raise ValueError(
            f"{stuck.size} of {n} rows (first positions {stuck[:5].tolist()}) cannot reach the favourable side with "
            "any move the actionability model allows (recourse cost inf), so group mean costs are undefined. Rank "
            "the others: keep = np.isfinite(linear_recourse(X, coef, intercept, weights, encoder=...).cost), and "
            "report the rows without recourse separately."
        )
    rank0 = np.lexsort((np.arange(n), engine.cost0))  # ascending cost, ties by row index
    return problem, engine, codes, labels, P, p, p * t, t, rank0


def _interventions(records, problem, engine, cost_new) -> pd.DataFrame:
    """One line per (modified row, changed column); with an encoder, also the readable values."""
    A, columns = problem.A, problem.columns
    F = list(engine.F)
    encoder = problem.encoder
    rows = []
    for y, cols, eff in records:
        x_new = A[y].copy()
        for j, k in zip(cols.tolist(), eff.tolist(), strict=True):
            x_new[j] += engine.signed_step[F.index(j)] * k
        if encoder is not None:
            readable = encoder.inverse_transform(np.vstack([A[y], x_new]))
        for j, k in zip(cols.tolist(), eff.tolist(), strict=True):
            if k == 0:
                continue
            line = {"row": int(y), "feature": columns[j], "before": float(A[y, j]), "after": float(x_new[j]),
                    "steps": int(k), "cost_before": float(engine.cost0[y]), "cost_after": float(cost_new[y])}
            if encoder is not None:
                name = encoder.spec_of_column(int(j)).name
                line["value_before"], line["value_after"] = readable[name].iloc[0], readable[name].iloc[1]
            rows.append(line)
    names = ["row", "feature", "before", "after", "steps", "cost_before", "cost_after"]
    if encoder is not None:
        names[4:4] = ["value_before", "value_after"]
    return pd.DataFrame(rows, columns=names)


def _as_like(X_new, X, index):
    if index is None:
        return _frozen(X_new)
    return pd.DataFrame(X_new, index=index, columns=X.columns)


# --------------------------------------------------------------------------- RAGUEL (Algorithm 1)


@dataclass(frozen=True, eq=False)
class RaguelResult:
    """A recourse-aware re-ranking and the interventions that produce it.

    Attributes
    ----------
    order : ndarray of int, shape (n,)
        Row positions, best first.
    X_new : ndarray or DataFrame, shape (n, d)
        Rows after modification, in the original row order (float).
    cost, cost_new : ndarray, shape (n,)
        Closed-form recourse cost of every row before and after modification.
    changed : ndarray of bool, shape (n,)
        Rows that were modified.
    interventions : DataFrame
        One line per (modified row, changed feature): ``row``, ``feature``,
        ``before``, ``after``, ``steps`` (number of steps), ``cost_before``,
        ``cost_after``.
    exit_at : int or None
        Output position from which the exit strategy copied the rest of the
        initial ranking unchanged, or None.
    unattainable : ndarray of int
        Output positions (0-based) whose prefix no choice of group could make
        fair, where the next row was appended as is (see :func:`raguel`).
    groups : ndarray, shape (n,)
        Group label of every row (original order).
    protected_group : tuple
        Protected labels.
    p : dict
        Population share of each protected label.
    tolerance : float
    beta : float or None
    runtime : float
    """

    order: np.ndarray
    X_new: object
    cost: np.ndarray
    cost_new: np.ndarray
    changed: np.ndarray
    interventions: pd.DataFrame
    exit_at: int | None
    unattainable: np.ndarray
    groups: np.ndarray
    protected_group: tuple
    p: dict
    tolerance: float
    beta: float | None
    runtime: float

    @property
    def initial_order(self) -> np.ndarray:
        """The ranking by initial cost (ties by row position)."""
        return np.lexsort((np.arange(len(self.cost)), self.cost))

    @property
    def rho_before(self) -> float:
        """Recourse fairness ratio of the whole population before modification."""
        return recourse_fairness_ratio(self.cost, self.groups)

    @property
    def rho_after(self) -> float:
        """Recourse fairness ratio of the whole population after modification."""
        return recourse_fairness_ratio(self.cost_new, self.groups)

    @property
    def n_changed(self) -> int:
        return int(np.count_nonzero(self.changed))

    def to_frame(self) -> pd.DataFrame:
        """One line per output position: row, group, costs, and the prefix's share, fairness and rho."""
        g = self.groups[self.order]
        rep = ranked_fair_representation(g, list(self.protected_group), self.tolerance,
                                         p=[self.p[k] for k in self.protected_group])
        rho = ranked_recourse_fairness(self.cost_new[self.order], g, 0.0 if self.beta is None else self.beta)
        frame = pd.DataFrame({
            "position": np.arange(len(self.order)), "row": self.order, "group": g,
            "cost": self.cost[self.order], "cost_new": self.cost_new[self.order],
            "changed": self.changed[self.order],
        })
        if len(self.protected_group) == 1:
            frame["share"] = rep.value
        else:
            for i, lab in enumerate(self.protected_group):
                frame[f"share[{lab}]"] = rep.value[:, i]
        frame["fair"] = rep.per_prefix
        frame["rho"] = rho.value
        frame["copied"] = frame["position"] >= (len(self.order) if self.exit_at is None else self.exit_at)
        return frame

    def __repr__(self) -> str:
        head = self.order[:10].tolist()
        shown = str(head) if len(self.order) <= 10 else str(head)[:-1] + ", ...]"
        return (f"RaguelResult(order={shown}, changed={self.n_changed}, exit_at={self.exit_at}, "
                f"rho {self.rho_before:.3f} -> {self.rho_after:.3f})")


def raguel(X, groups, *, coef, intercept, weights=None, steps=None, protected_group, encoder=None, immutable=None,
           bounds=None, tolerance=1 / 3, beta=None, max_steps=10_000) -> RaguelResult:
    """RAGUEL (Algorithm 1): re-rank by recourse cost so that every prefix is fair, by modifying records.

    Reading implemented:

    1. Rank rows by their closed-form recourse cost (:func:`~recourselab.counterfactuals.linear_recourse`),
       ascending, ties by row position.
    2. Build the output :math:`S` one position at a time. Let :math:`x` be
       the best remaining row. If :math:`S + [x]` satisfies fair
       representation (Definition 3.1 on the prefix; prefixes of length 1
       always do, and the earlier prefixes already do), append :math:`x`.
    3. Otherwise scan the remaining rows below :math:`x`, in rank order, for
       the first row :math:`y` whose group makes :math:`S + [y]` fair and that
       can be **modified** so that its new cost is strictly below
       :math:`x`'s (so it outranks :math:`x`) — and, with ``beta``, so that
       :math:`S + [y']` also satisfies :math:`\\rho \\ge 1 - \\beta`
       (Definition 3.4, :math:`\\rho` over the groups present in the prefix,
       with the current costs). Append :math:`y'`; :math:`x` stays first in
       line.
    4. A modification tries the modifiable attributes (mutable, nonzero
       coefficient) in ascending recourse weight (ties: column order), one at
       a time, then pairs, triples, ... (A, B, C, AB, AC, BC, ABC); each
       attribute of the combination moves one step per iteration in the
       direction that raises :math:`a^\\top x + b` (the sign of
       :math:`a_j`), staying within ``bounds`` (an attribute at its bound
       stays there while the others go on) for at most ``max_steps``
       iterations, and stepping stops once the row reaches the favourable
       side (cost 0: it never goes further past the boundary than the step
       that crosses it). The first combination that reaches the goal is applied,
       with the fewest iterations. The number of iterations is computed in
       closed form (the margin grows piecewise linearly with them) and
       checked exactly, which gives the same answer as stepping one at a time.
    5. **Exit strategy**: if some group would make the prefix fair but no row
       of it can be modified enough, append the rest of the ranking as is
       (``exit_at``) and stop.

    *Refinement (documented choice).* When no group at all could make
    :math:`S + [\\cdot]` fair — e.g. with :math:`p = 0.3` and :math:`t = 1/3`
    no prefix of length 2 is fair, since its share is 0, 1/2 or 1 — no
    record can help, so :math:`x` is appended as is and the position is
    listed in ``unattainable`` instead of ending the re-ranking. When
    ``exit_at`` is None every prefix of length >= 2 is therefore fair or
    unattainable (tested); for :math:`p = 1/2, t = 1/2` every prefix is
    attainable.

    *More than two groups.* ``protected_group`` may list several labels; a prefix
    is fair when each listed label's share is within its own band
    :math:`p_g(1 \\pm t)` (the paper's Section 3.6), and :math:`\\rho` is
    min over max of all groups' means (Eq. 4).

    Parameters
    ----------
    X : array or DataFrame of shape (n, d)
        The records (all of them: shares ``p`` are computed on ``groups``);
        with ``encoder``, encoded rows (``encoder.transform(frame)``).
    groups : array of labels, shape (n,)
    coef, intercept : linear classifier, favourable when ``coef @ x + intercept >= 0``
    weights : recourse weights, optional
        > 0 on mutable features (see
        :func:`~recourselab.counterfactuals.linear_recourse`); default: the
        specs' weights with an encoder, else 1.
    steps : float, array or dict, optional
        Step size of every modifiable attribute (> 0). Required without an
        encoder; with one, the default is one level for ordinal and binary
        features (a given step must be a whole number of levels) and 1% of the
        range for continuous ones (a whole number of units, at least one, for
        integer-valued features).
    protected_group : label or list of labels
    encoder : Encoder, optional
        The fitted encoder of ``X``: the actionability model of every cost and
        modification (see the module docstring).
    immutable : columns that cannot change, optional
    bounds : (lower, upper) or dict {feature: (lower, upper)}, optional
    tolerance : float in (0, 1], default 1/3
    beta : float in [0, 1], optional
        Also require :math:`\\rho \\ge 1 - \\beta` of the prefix when a row is modified.
    max_steps : int, default 10000
        Largest number of iterations per attribute combination.

    Returns
    -------
    RaguelResult
        The output order is the order of construction: a modified row's new
        cost is below the row it overtook, and costs after modification are
        the closed form on the modified rows.

    Examples
    --------
    The paper's Example 1 (Table 2): Chiara lowers her loan amount from 4 to
    3.45 (cost 1.33 -> 0.97) and moves up to rank 2.

    >>> import numpy as np
    >>> X = np.array([[3.5, 6], [2, 1], [4, 4], [5, 4]])
    >>> res = raguel(X, ["M", "M", "F", "F"], coef=[-2, 1], intercept=0, weights=[0.5, 1.0],
    ...              steps=[0.05, 1], protected_group="F", tolerance=1 / 2)
    >>> res.order.tolist(), round(float(res.X_new[2, 0]), 2), round(float(res.cost_new[2]), 2)
    ([0, 2, 1, 3], 3.45, 0.97)
    """
    start = time.perf_counter()
    beta = _check_beta(beta)
    problem, engine, codes, labels, P, p, alpha, t, rank0 = _setup_rerank(
        X, groups, coef, intercept, weights, steps, protected_group, immutable, bounds, tolerance, max_steps, encoder)
    A, index = problem.A, problem.index
    n, G = A.shape[0], len(labels)
    gr = codes[rank0]
    minc = engine.min_cost[rank0]
    cost_cur = engine.cost0.copy()
    alive = np.ones(n, dtype=bool)
    cnt = np.zeros(G)
    csum = np.zeros(G)
    pc = np.zeros(len(P))  # protected counts in S
    is_p = np.full(G, -1)
    is_p[P] = np.arange(len(P))
    out: list[int] = []
    records, new_rows = [], {}
    unattainable: list[int] = []
    exit_at = None
    q = None if beta is None else 1 - beta
    p_list, a_list = p.tolist(), alpha.tolist()

    def fair_with(g, k):
        for i in range(len(p_list)):
            c = pc[i] + (1 if is_p[g] == i else 0)
            if abs(c / k - p_list[i]) > a_list[i] + _SLACK:
                return False
        return True

    def append(row, g, c):
        out.append(int(row))
        cnt[g] += 1
        csum[g] += c
        if is_p[g] >= 0:
            pc[is_p[g]] += 1

    head = 0
    while head < n:
        if not alive[head]:
            head += 1
            continue
        x, gx, k = int(rank0[head]), int(gr[head]), len(out) + 1
        if k == 1 or fair_with(gx, k):
            append(x, gx, cost_cur[x])
            alive[head] = False
            head += 1
            continue
        fix = [g for g in range(G) if g != gx and fair_with(g, k)]
        if not fix:
            unattainable.append(k - 1)
            append(x, gx, cost_cur[x])
            alive[head] = False
            head += 1
            continue
        T = float(cost_cur[x])
        found = None
        wanted = np.zeros(G, dtype=bool)
        wanted[fix] = True
        pos, chunk = head + 1, 256
        while pos < n and found is None:
            end = min(n, pos + chunk)
            cand = np.flatnonzero(alive[pos:end] & wanted[gr[pos:end]] & (minc[pos:end] < T)) + pos
            if q is None:
                hit = engine.find_first(rank0[cand], T, strict=True)
            else:
                lo, hi = np.full(len(cand), -np.inf), np.full(len(cand), np.inf)
                usable = np.ones(len(cand), dtype=bool)
                for gy in np.unique(gr[cand]).tolist():
                    iv = _rho_interval(csum, cnt, gy, q)
                    sel = gr[cand] == gy
                    if iv is None or iv[0] >= min(T, iv[1]):  # no admissible new cost below T
                        usable[sel] = False
                    else:
                        lo[sel], hi[sel] = iv
                # moves only lower a cost: rows already below the window cannot get into it
                usable &= cost_cur[rank0[cand]] >= lo - 1e-9 * (1 + np.abs(lo))
                cand, lo, hi = cand[usable], lo[usable], hi[usable]

                def accept(c, i, cand=cand):
                    gy = int(gr[cand[i]])
                    s2, c2 = csum.copy(), cnt.copy()
                    s2[gy] += c
                    c2[gy] += 1
                    rho = _rho(s2, c2)
                    return math.isnan(rho) or rho >= q - _RHO_SLACK

                hit = engine.find_first(rank0[cand], T, strict=True, c_lo=lo, c_hi=hi, accept=accept)
            if hit is not None:
                r = int(cand[hit[0]])
                found = (r, int(rank0[r]), int(gr[r]), hit[1])
            pos, chunk = end, chunk * 2
        if found is None:
            exit_at = len(out)
            out.extend(rank0[head:][alive[head:]].tolist())
            break
        r, y, gy, (x_new, c_new, cols, eff) = found
        alive[r] = False
        if len(cols):
            new_rows[y] = x_new
            cost_cur[y] = c_new
            records.append((y, cols, eff))
        append(y, gy, cost_cur[y])
    X_new = A.copy()
    changed = np.zeros(n, dtype=bool)
    for y, xr in new_rows.items():
        X_new[y] = xr
        changed[y] = True
    return RaguelResult(
        order=_frozen(np.asarray(out, dtype=int)), X_new=_as_like(X_new, X, index),
        cost=_frozen(engine.cost0), cost_new=_frozen(cost_cur), changed=_frozen(changed),
        interventions=_interventions(records, problem, engine, cost_cur), exit_at=exit_at,
        unattainable=_frozen(np.asarray(unattainable, dtype=int)),
        groups=_frozen(np.asarray(labels, dtype=object)[codes]),
        protected_group=tuple(labels[i] for i in P), p={labels[i]: float(v) for i, v in zip(P, p, strict=True)},
        tolerance=t, beta=beta, runtime=time.perf_counter() - start,
    )


# --------------------------------------------------------------------------- RAGUEL-Block (Algorithm 2)


@dataclass(frozen=True, eq=False)
class RaguelBlockResult(RaguelResult):
    """A block-based recourse-aware re-ranking (RAGUEL-Block).

    All the fields of :class:`RaguelResult` (``exit_at`` is the first output
    position of the first block copied as is, ``unattainable`` is empty), and:

    Attributes
    ----------
    block : ndarray of int, shape (n,)
        Block of every output position.
    block_sizes : ndarray of int
    blocks_unfair_before, blocks_unfair_after : int
        Blocks failing Definition 3.1 in the initial ranking and after re-ranking.
    block_rho_before, block_rho_after : ndarray of float
        rho of every block before (initial blocks, initial costs) and after
        (final blocks, new costs); NaN for a block with a single group.
    exited_blocks : ndarray of int
        Blocks whose correction stopped on the exit strategy (copied as they stood).
    swaps : DataFrame
        One line per accepted swap: ``block``, ``out_row`` (moved down to the
        next block), ``in_row`` (moved up, possibly modified), ``cost_before``
        and ``cost_after`` of ``in_row``, ``rho_before`` and ``rho_after`` of
        the block (NaN before: the block had one group). Without ``beta``,
        ``rho_after >= rho_before``; with it, ``rho_after >= min(rho_before, 1 - beta)``.
    """

    block: np.ndarray = None
    block_sizes: np.ndarray = None
    blocks_unfair_before: int = 0
    blocks_unfair_after: int = 0
    block_rho_before: np.ndarray = None
    block_rho_after: np.ndarray = None
    exited_blocks: np.ndarray = None
    swaps: pd.DataFrame = None
    _share_before: np.ndarray = None
    _share_after: np.ndarray = None
    _fair_before: np.ndarray = None
    _fair_after: np.ndarray = None

    def to_frame(self) -> pd.DataFrame:
        """One line per block: size, protected share and fairness before/after, rho before/after, swaps."""
        nb = len(self.block_sizes)
        frame = pd.DataFrame({"block": np.arange(nb), "size": self.block_sizes})
        for when, share in (("before", self._share_before), ("after", self._share_after)):
            if len(self.protected_group) == 1:
                frame[f"share_{when}"] = share[:, 0]
            else:
                for i, lab in enumerate(self.protected_group):
                    frame[f"share_{when}[{lab}]"] = share[:, i]
        frame["fair_before"] = self._fair_before
        frame["fair_after"] = self._fair_after
        frame["rho_before"] = self.block_rho_before
        frame["rho_after"] = self.block_rho_after
        frame["swaps"] = np.bincount(self.swaps["block"].to_numpy(dtype=int), minlength=nb) if len(self.swaps) else 0
        frame["exited"] = np.isin(np.arange(nb), self.exited_blocks)
        return frame

    def __repr__(self) -> str:
        return (f"RaguelBlockResult(blocks={len(self.block_sizes)}, swaps={len(self.swaps)}, changed={self.n_changed}, "
                f"unfair blocks {self.blocks_unfair_before} -> {self.blocks_unfair_after}, "
                f"rho {self.rho_before:.3f} -> {self.rho_after:.3f})")


def _block_sizes(n, n_blocks, block_size):
    if (n_blocks is None) == (block_size is None):
        raise ValueError(
            f"give exactly one of n_blocks and block_size (got n_blocks={n_blocks!r}, block_size={block_size!r})."
        )
    if block_size is not None:
        b = check_int(block_size, "block_size")
        if not 2 <= b <= n:
            raise ValueError(f"block_size={b} must lie in [2, {n}] (the number of rows); a block needs two records.")
        sizes = [b] * (n // b) + ([n % b] if n % b else [])
    else:
        k = check_int(n_blocks, "n_blocks")
        if not 1 <= k <= n // 2:
            raise ValueError(f"n_blocks={k} must lie in [1, {n // 2}] so that every block holds at least two records.")
        b = n // k
        sizes = [b] * (k - 1) + [n - b * (k - 1)]
    return np.asarray(sizes, dtype=int)


def _block_stats(block_of_pos, order, codes, cost, G, P, nb, sizes):
    """Per block: protected shares, fair flags (Def. 3.1) and rho."""
    key = block_of_pos * G + codes[order]
    counts = np.bincount(key, minlength=nb * G).reshape(nb, G).astype(float)
    sums = np.bincount(key, weights=cost[order], minlength=nb * G).reshape(nb, G)
    share = counts[:, P] / sizes[:, None]
    rho = np.array([_rho(sums[i], counts[i]) for i in range(nb)])
    return share, rho


def raguel_block(X, groups, *, coef, intercept, weights=None, steps=None, protected_group, n_blocks=None,
                 block_size=None, encoder=None, immutable=None, bounds=None, tolerance=1 / 3, max_steps=10_000,
                 beta=None) -> RaguelBlockResult:
    """RAGUEL-Block (Algorithm 2): fair representation and recourse fairness block by block.

    Reading implemented:

    1. Rank rows by closed-form recourse cost (ties by row position) and cut
       the ranking into consecutive blocks: ``block_size`` rows each (the last
       block takes the remainder), or ``n_blocks`` equal blocks (the last
       takes the remainder). Give exactly one of the two.
    2. For each block :math:`B_i` but the last, while :math:`B_i` fails fair
       representation (Definition 3.1 on the block as a set, against the
       population shares): choose the swap of groups (out: over-represented
       :math:`o`, in: under-represented :math:`u`) that most reduces the
       block's distance to its bands — for two groups the only one; move
       :math:`B_i`'s lowest-ranked member :math:`z` of :math:`o` to the
       front of :math:`B_{i+1}`; take the highest-ranked member :math:`y` of
       :math:`u` in :math:`B_{i+1}` that can be modified (same attribute
       order as :func:`raguel`, fewest steps) until its cost is at most the
       largest cost remaining in :math:`B_i` (so it belongs there) **and** the
       block's :math:`\\rho` does not decrease. The last condition is our
       reading of Eq. 3, whose purpose (Theorem 3.5) is that a swap improves
       recourse fairness: we check it directly,
       :math:`\\rho(B_i \\setminus \\{z\\} \\cup \\{y'\\}) \\ge \\rho(B_i)`; a
       block with a single group has no :math:`\\rho` and any swap is
       accepted (the theorem's trivial case). The minimal modification meeting
       both conditions is computed in closed form (the allowed costs form an
       interval) and checked exactly.
    3. If no member of :math:`u` in :math:`B_{i+1}` works, the move is undone
       and the block is copied as it stands (exit strategy, ``exited_blocks``);
       the next block is processed.

    *Blocks whose rho is already near 1.* The costs inside a block of a
    cost-sorted list are close, so a block's :math:`\\rho` is typically
    0.999+; "rho must not decrease" then leaves a window of admissible costs
    for :math:`y'` narrower than one step, and most swaps are refused (see
    ``benchmarks/ranking.py``). With ``beta`` (an extension, default None =
    the strict reading above) a swap is also accepted when the block stays
    recourse-fair by Definition 3.4, :math:`\\rho(B_i') \\ge 1 - \\beta` —
    Algorithm 2's "until ... Definition 3.4" — i.e. the threshold becomes
    :math:`\\min(\\rho(B_i), 1 - \\beta)`.

    Records move at most once, by one block: a row moved down is not moved
    again, and candidates come only from the next block. Blocks are kept
    sorted by current cost (ties by initial rank). Each swap costs O(b) for a
    block of b rows, so the whole pass is O(n b).

    Parameters
    ----------
    X, groups, coef, intercept, weights, steps, protected_group, encoder, immutable, bounds, tolerance, max_steps
        As in :func:`raguel`.
    n_blocks : int, optional
    block_size : int, optional
    beta : float in [0, 1], optional
        Also accept swaps that keep the block's rho >= 1 - beta (see above).

    Returns
    -------
    RaguelBlockResult

    Examples
    --------
    Example 1 with blocks of two (the paper's Section 3.4): Chiara lowers
    her loan amount until she belongs to the first block (cost 1/3, Abdul's).

    >>> import numpy as np
    >>> X = np.array([[3.5, 6], [2, 1], [4, 4], [5, 4]])
    >>> res = raguel_block(X, ["M", "M", "F", "F"], coef=[-2, 1], intercept=0, weights=[0.5, 1.0],
    ...                    steps=[0.05, 1], protected_group="F", tolerance=1 / 2, block_size=2)
    >>> res.order.tolist(), round(float(res.X_new[2, 0]), 2), res.blocks_unfair_before, res.blocks_unfair_after
    ([0, 2, 1, 3], 2.5, 2, 0)
    """
    start = time.perf_counter()
    beta = _check_beta(beta)
    problem, engine, codes, labels, P, p, alpha, t, rank0 = _setup_rerank(
        X, groups, coef, intercept, weights, steps, protected_group, immutable, bounds, tolerance, max_steps, encoder)
    A, index = problem.A, problem.index
    n, G = A.shape[0], len(labels)
    sizes = _block_sizes(n, n_blocks, block_size)
    nb = len(sizes)
    starts = np.concatenate(([0], np.cumsum(sizes)))
    rank_of = np.empty(n, dtype=np.int64)
    rank_of[rank0] = np.arange(n)
    cost_cur = engine.cost0.copy()
    min_cost = engine.min_cost
    moved = np.zeros(n, dtype=bool)
    new_rows, records, swaps, exited = {}, [], [], []
    out_parts = []

    P_list, p_list, a_list = P.tolist(), p.tolist(), alpha.tolist()
    cur = rank0[starts[0]:starts[1]].copy()
    for i in range(nb):
        last = i == nb - 1
        if not last:
            nxt = rank0[starts[i + 1]:starts[i + 2]].copy()
            size = len(cur)
            # state of B_i and B_{i+1}, updated in place: a swap writes y over z in B_i and z over y in B_{i+1}
            gcur, ccur, mov = codes[cur], cost_cur[cur], moved[cur].copy()
            cnt = np.bincount(gcur, minlength=G).astype(float).tolist()
            sm = np.bincount(gcur, weights=ccur, minlength=G).tolist()
            movable_cnt = np.bincount(gcur[~mov], minlength=G).tolist()
            gnxt, mc_nxt = codes[nxt], min_cost[nxt]
            avail = np.ones(len(nxt), dtype=bool)
            avail_cnt = np.bincount(gnxt, minlength=G).tolist()
            while True:
                V = _violation(cnt, size, P_list, p_list, a_list)
                if V <= 0:
                    break
                pairs = []
                for o in range(G):
                    if movable_cnt[o] == 0:
                        continue
                    for u in range(G):
                        if u == o or avail_cnt[u] == 0:
                            continue
                        cnt[o] -= 1
                        cnt[u] += 1
                        dv = _violation(cnt, size, P_list, p_list, a_list) - V
                        cnt[o] += 1
                        cnt[u] -= 1
                        if dv < -_SLACK:
                            pairs.append((dv, int(o not in P_list), o, u))
                pairs.sort()
                rho_before = _rho(sm, cnt)
                threshold = rho_before if beta is None else min(rho_before, 1 - beta)
                done = False
                for _, _, o, u in pairs:
                    # z: the lowest-ranked movable member of o, i.e. the highest (cost, initial rank)
                    elig = np.flatnonzero((gcur == o) & ~mov)
                    ce = ccur[elig]
                    tied = elig[ce == ce.max()]
                    zi = int(tied[np.argmax(rank_of[cur[tied]])]) if len(tied) > 1 else int(tied[0])
                    z, cz = int(cur[zi]), float(ccur[zi])
                    ccur[zi] = -np.inf
                    T = float(ccur.max())  # the largest cost remaining in B_i
                    ccur[zi] = cz
                    sums_r, cnt_r = list(sm), list(cnt)
                    sums_r[o] -= cz
                    cnt_r[o] -= 1
                    if math.isnan(rho_before):  # a single group in B_i: any swap improves (Theorem 3.5)
                        iv, accept = (-np.inf, np.inf), None
                    else:
                        iv = _rho_interval(sums_r, cnt_r, u, threshold)
                        if iv is None or iv[0] > min(T, iv[1]):  # no admissible cost for y' in B_i
                            continue

                        def accept(c, i_, u=u, sums_r=sums_r, cnt_r=cnt_r, q=threshold):
                            s2, c2 = list(sums_r), list(cnt_r)
                            s2[u] += c
                            c2[u] += 1
                            rho = _rho(s2, c2)
                            return (not math.isnan(rho)) and rho >= q - _RHO_SLACK
                    cand = np.flatnonzero((gnxt == u) & avail & (mc_nxt <= min(T, iv[1])))
                    if np.isfinite(iv[0]):  # moves only lower a cost: rows below the window cannot get into it
                        cand = cand[cost_cur[nxt[cand]] >= iv[0] - 1e-9 * (1 + abs(iv[0]))]
                    if cand.size == 0:
                        continue
                    hit = engine.find_first(nxt[cand], T, strict=False, c_lo=np.full(len(cand), iv[0]),
                                            c_hi=np.full(len(cand), iv[1]), accept=accept)
                    if hit is None:
                        continue
                    yi = int(cand[hit[0]])
                    y = int(nxt[yi])
                    x_new, c_new, cols, eff = hit[1]
                    if len(cols):
                        new_rows[y] = x_new
                        records.append((y, cols, eff))
                    before_y = float(cost_cur[y])
                    cost_cur[y] = c_new
                    moved[y] = moved[z] = True
                    cur[zi], gcur[zi], ccur[zi], mov[zi] = y, u, c_new, True
                    nxt[yi], gnxt[yi], avail[yi] = z, o, False
                    movable_cnt[o] -= 1
                    avail_cnt[u] -= 1
                    sm, cnt = sums_r, cnt_r
                    sm[u] += c_new
                    cnt[u] += 1
                    swaps.append((i, z, y, before_y, c_new, rho_before, _rho(sm, cnt)))
                    done = True
                    break
                if not done:
                    exited.append(i)
                    break
        cur = cur[np.lexsort((rank_of[cur], cost_cur[cur]))]  # blocks sorted by current cost
        out_parts.append(cur)
        if not last:
            cur = nxt
    order = np.concatenate(out_parts).astype(int)
    block_of_pos = np.repeat(np.arange(nb), sizes)
    share_b, rho_b = _block_stats(block_of_pos, rank0, codes, engine.cost0, G, P, nb, sizes)
    share_a, rho_a = _block_stats(block_of_pos, order, codes, cost_cur, G, P, nb, sizes)
    fair_b = np.all(np.abs(share_b - p) <= alpha + _SLACK, axis=1)
    fair_a = np.all(np.abs(share_a - p) <= alpha + _SLACK, axis=1)
    X_new = A.copy()
    changed = np.zeros(n, dtype=bool)
    for y, xr in new_rows.items():
        X_new[y] = xr
        changed[y] = True
    swaps_df = pd.DataFrame(swaps, columns=["block", "out_row", "in_row", "cost_before", "cost_after",
                                            "rho_before", "rho_after"])
    return RaguelBlockResult(
        order=_frozen(order), X_new=_as_like(X_new, X, index), cost=_frozen(engine.cost0),
        cost_new=_frozen(cost_cur), changed=_frozen(changed),
        interventions=_interventions(records, problem, engine, cost_cur),
        exit_at=int(starts[exited[0]]) if exited else None, unattainable=_frozen(np.zeros(0, dtype=int)),
        groups=_frozen(np.asarray(labels, dtype=object)[codes]), protected_group=tuple(labels[i] for i in P),
        p={labels[i]: float(v) for i, v in zip(P, p, strict=True)}, tolerance=t, beta=beta,
        runtime=time.perf_counter() - start,
        block=_frozen(block_of_pos), block_sizes=_frozen(sizes),
        blocks_unfair_before=int(np.count_nonzero(~fair_b)), blocks_unfair_after=int(np.count_nonzero(~fair_a)),
        block_rho_before=_frozen(rho_b), block_rho_after=_frozen(rho_a),
        exited_blocks=_frozen(np.asarray(exited, dtype=int)), swaps=swaps_df,
        _share_before=_frozen(share_b), _share_after=_frozen(share_a),
        _fair_before=_frozen(fair_b), _fair_after=_frozen(fair_a),
    )


# --------------------------------------------------------------------------- re-ranking from given per-row costs


@dataclass(frozen=True, eq=False)
class CostRerankResult:
    """A fair-representation re-ranking of given per-row recourse costs (:func:`rerank_by_cost`).

    No record is modified: every cost stays what was given, and a record
    moved up (``promoted``) keeps its cost, which is higher than that of the
    record it overtook. ``gap`` says by how much: the cost reduction it would
    need to earn its position on cost alone (what RAGUEL achieves by
    modifying the record, which needs a linear model).

    Attributes
    ----------
    order : ndarray of int, shape (n,)
        Row positions, best first.
    cost : ndarray, shape (n,)
        The given costs (original row order).
    promoted : ndarray of bool, shape (n,)
        Rows placed above a cheaper record to keep a prefix fair.
    gap : ndarray, shape (n,)
        For a promoted row, its cost minus the cost of the record it
        overtook (>= 0); 0 for every other row.
    exit_at : int or None
        Output position from which the rest of the cost ranking was copied
        unchanged, because no remaining record of a needed group existed (or,
        with ``beta``, none kept the prefix's rho), or None.
    unattainable : ndarray of int
        Output positions whose prefix no choice of group could make fair.
    groups : ndarray, shape (n,)
    protected_group : tuple
    p : dict
        Population share of each protected label.
    tolerance : float
    beta : float or None
    """

    order: np.ndarray
    cost: np.ndarray
    promoted: np.ndarray
    gap: np.ndarray
    exit_at: int | None
    unattainable: np.ndarray
    groups: np.ndarray
    protected_group: tuple
    p: dict
    tolerance: float
    beta: float | None

    @property
    def initial_order(self) -> np.ndarray:
        """The ranking by cost (ties by row position)."""
        return np.lexsort((np.arange(len(self.cost)), self.cost))

    @property
    def n_promoted(self) -> int:
        return int(np.count_nonzero(self.promoted))

    @property
    def rho(self) -> float:
        """Recourse fairness ratio of the whole population: a re-ranking without modifications cannot change it."""
        return recourse_fairness_ratio(self.cost, self.groups)

    def check(self, order=None) -> pd.DataFrame:
        """Fair representation and prefix rho of ``order`` (default: the re-ranking) and of the cost ranking.

        Returns
        -------
        pandas.DataFrame
            One line per ranking (``"by cost"``, ``"re-ranked"``): share of
            prefixes that represent the protected group(s) fairly, with
            ``beta`` the share of prefixes with rho >= 1 - beta, the smallest
            rho of a prefix holding two groups or more, and the population rho
            (the same on both lines).
        """
        p = [self.p[k] for k in self.protected_group]
        lines = {}
        for name, o in (("by cost", self.initial_order), ("re-ranked", self.order if order is None else order)):
            o = np.asarray(o)
            g = self.groups[o]
            rep = ranked_fair_representation(g, list(self.protected_group), self.tolerance, p=p)
            rr = ranked_recourse_fairness(self.cost[o], g, 0.0 if self.beta is None else self.beta)
            first = np.sort(pd.Series(np.arange(len(g))).groupby(pd.factorize(g)[0]).min().to_numpy())
            mixed = np.arange(len(g)) >= first[1]  # prefixes holding two groups or more (rho is defined)
            line = {"fair prefixes": float(rep.per_prefix.mean())}
            if self.beta is not None:
                line["recourse-fair prefixes"] = float(rr.per_prefix.mean())
            line["min prefix rho"] = float(rr.value[mixed].min()) if mixed.any() else math.nan
            line["population rho"] = self.rho
            lines[name] = line
        return pd.DataFrame(lines).T

    def to_frame(self) -> pd.DataFrame:
        """One line per output position: row, group, cost, promoted, gap, and the prefix's share, fairness and rho."""
        g = self.groups[self.order]
        rep = ranked_fair_representation(g, list(self.protected_group), self.tolerance,
                                         p=[self.p[k] for k in self.protected_group])
        rho = ranked_recourse_fairness(self.cost[self.order], g, 0.0 if self.beta is None else self.beta)
        frame = pd.DataFrame({"position": np.arange(len(self.order)), "row": self.order, "group": g,
                              "cost": self.cost[self.order], "promoted": self.promoted[self.order],
                              "gap": self.gap[self.order]})
        if len(self.protected_group) == 1:
            frame["share"] = rep.value
        else:
            for i, lab in enumerate(self.protected_group):
                frame[f"share[{lab}]"] = rep.value[:, i]
        frame["fair"] = rep.per_prefix
        frame["rho"] = rho.value
        return frame

    def __repr__(self) -> str:
        head = self.order[:10].tolist()
        shown = str(head) if len(self.order) <= 10 else str(head)[:-1] + ", ...]"
        return f"CostRerankResult(order={shown}, promoted={self.n_promoted}, exit_at={self.exit_at})"


def rerank_by_cost(costs, groups, *, protected_group, tolerance=1 / 3, beta=None) -> CostRerankResult:
    """Recourse-aware ranking from any per-row recourse cost: RAGUEL's walk, with promotion instead of modification.

    RAGUEL (:func:`raguel`) needs a linear classifier twice: for the closed-form
    cost of every row, and for the **modification** that lowers an
    under-represented record's cost just enough to outrank the record ahead
    of it. With any other model (a tree ensemble behind
    :class:`~recourselab.adapters.EncodedModel`) a per-row cost is still
    available, e.g. the cost of the nearest feasible counterfactual
    (:func:`~recourselab.counterfactuals.nearest_counterfactuals`), but a
    modification that reaches a chosen lower cost is not: the cost of a moved
    record would have to be searched again for every trial step. This
    function keeps what carries over:

    1. rank rows by the given cost, ascending, ties by row position;
    2. build the output one position at a time exactly as :func:`raguel`
       does (Definition 3.1 on each prefix, the same refinement for
       unattainable prefixes, the same exit strategy);
    3. where a prefix needs a record of another group, **promote** the first
       remaining record of a group that makes it fair (with ``beta``: the first
       whose own cost also keeps the prefix's :math:`\\rho \\ge 1 - \\beta`),
       with its cost unchanged, and record its ``gap``: its cost minus the
       cost of the record it overtakes, the reduction RAGUEL would have
       obtained by changing its features.

    Without modifications no cost changes, so the population's recourse
    fairness ratio :math:`\\rho` is the same before and after; only the
    prefixes' representation and their :math:`\\rho` change. The gaps say
    what a lender would have to make cheaper (by advice, a subsidy or a
    changed model) for the fair ranking to also be a ranking by cost.

    Parameters
    ----------
    costs : array of float >= 0, shape (n,)
        One finite recourse cost per row (0 for rows already favoured); rows
        without recourse (inf) have no place in a ranking by cost: drop them
        or give them a cost.
    groups : array of labels, shape (n,)
    protected_group : label or list of labels
    tolerance : float in (0, 1], default 1/3
        Fair representation band :math:`p(1 \\pm t)` around each protected
        label's population share.
    beta : float in [0, 1], optional
        Also require :math:`\\rho \\ge 1 - \\beta` of the prefix when a row is promoted.

    Returns
    -------
    CostRerankResult

    Examples
    --------
    Three men with low costs, then two women; women are 40% of the records,
    so with t = 1/2 every prefix needs a share between 20% and 60%; the first woman
    overtakes a man whose cost is 0.3 lower:

    >>> res = rerank_by_cost([0.1, 0.2, 0.3, 0.5, 0.9], ["M", "M", "M", "F", "F"], protected_group="F",
    ...                      tolerance=1 / 2)
    >>> res.order.tolist(), res.gap.round(2).tolist()
    ([0, 3, 1, 2, 4], [0.0, 0.0, 0.0, 0.3, 0.0])
    """
    t = _check_tolerance(tolerance)
    beta = _check_beta(beta)
    c, codes, labels = _costs_groups(costs, groups)
    P = _protected_codes(protected_group, labels)
    n, G = c.size, len(labels)
    p = np.array([np.mean(codes == g) for g in P])
    alpha = p * t
    rank0 = np.lexsort((np.arange(n), c))
    gr = codes[rank0]
    members = [rank0[gr == g] for g in range(G)]  # each group's rows in rank order
    pointer = np.zeros(G, dtype=int)
    alive = np.ones(n, dtype=bool)
    cnt, csum, pc = np.zeros(G), np.zeros(G), np.zeros(len(P))
    is_p = np.full(G, -1)
    is_p[P] = np.arange(len(P))
    q = None if beta is None else 1 - beta
    out: list[int] = []
    promoted = np.zeros(n, dtype=bool)
    gap = np.zeros(n)
    unattainable: list[int] = []
    exit_at = None

    def fair_with(g, k):
        for i in range(len(P)):
            count = pc[i] + (1 if is_p[g] == i else 0)
            if abs(count / k - p[i]) > alpha[i] + _SLACK:
                return False
        return True

    def append(row, g):
        out.append(int(row))
        alive[row] = False
        cnt[g] += 1
        csum[g] += c[row]
        if is_p[g] >= 0:
            pc[is_p[g]] += 1

    def next_alive(g):
        while pointer[g] < len(members[g]) and not alive[members[g][pointer[g]]]:
            pointer[g] += 1
        return pointer[g]

    head = 0
    while head < n:
        x = int(rank0[head])
        if not alive[x]:
            head += 1
            continue
        gx, k = int(codes[x]), len(out) + 1
        if k == 1 or fair_with(gx, k):
            append(x, gx)
            head += 1
            continue
        fix = [g for g in range(G) if g != gx and fair_with(g, k)]
        if not fix:
            unattainable.append(k - 1)
            append(x, gx)
            head += 1
            continue
        best = None  # (rank position, row)
        for g in fix:
            start = next_alive(g)
            rows = members[g][start:]
            rows = rows[alive[rows]]
            if q is not None and len(rows):
                iv = _rho_interval(csum, cnt, g, q)
                if iv is None:
                    continue
                rows = rows[(c[rows] >= iv[0] - 1e-9 * (1 + abs(iv[0]))) & (c[rows] <= iv[1])]
            if len(rows):
                y = int(rows[0])
                position = int(np.searchsorted(c[rank0], c[y], side="left"))
                while int(rank0[position]) != y:  # ties: rank0 orders them by row position
                    position += 1
                if best is None or position < best[0]:
                    best = (position, y)
        if best is None:
            exit_at = len(out)
            rest = rank0[head:]
            out.extend(int(r) for r in rest[alive[rest]])
            break
        y = best[1]
        promoted[y] = True
        gap[y] = max(c[y] - c[x], 0.0)
        append(y, int(codes[y]))
    return CostRerankResult(
        order=_frozen(np.asarray(out, dtype=int)), cost=_frozen(c), promoted=_frozen(promoted), gap=_frozen(gap),
        exit_at=exit_at, unattainable=_frozen(np.asarray(unattainable, dtype=int)),
        groups=_frozen(np.asarray(labels, dtype=object)[codes]), protected_group=tuple(labels[i] for i in P),
        p={labels[i]: float(v) for i, v in zip(P, p, strict=True)}, tolerance=t, beta=beta)


# --------------------------------------------------------------------------- ranking-quality metrics


def _metric_setup(protected_in_order, cutoff):
    arr = np.asarray(protected_in_order)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"protected_in_order has shape {arr.shape}; give one flag per ranked record (1-d).")
    if arr.dtype != bool:
        values = set(np.unique(arr).tolist())
        if not values <= {0, 1}:
            raise ValueError(f"protected_in_order must be boolean or 0/1 (1 = protected); found {sorted(values)[:5]}.")
        arr = arr.astype(bool)
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


# --------------------------------------------------------------------------- FA*IR


def _fair_params(k, p, alpha):
    k = check_int(k, "k")
    if k < 1:
        raise ValueError(f"k={k} must be >= 1 (the length of the ranking to build).")
    p = check_real(p, "p")
    if not 0 < p < 1:
        raise ValueError(f"p={p!r} must lie strictly between 0 and 1: the target minimum protected proportion.")
    alpha = check_real(alpha, "alpha")
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

    Notes
    -----
    Two properties of the reference are replicated on purpose so that the
    published values reproduce (e.g. 0.078125 for k = 20, p = 0.25,
    alpha = 0.1, and 0.0796875 for k = 30, p = 0.3, alpha = 0.15): the
    failure probability tests positions 1..k-1 (not the last position), and
    the chosen table is the *closest* to :math:`\\alpha`, which can fail
    slightly more often than :math:`\\alpha` (0.105 in the first example).

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
    prot = np.asarray(protected)
    if prot.ndim != 1:
        raise ValueError(f"protected has shape {prot.shape}; give one flag per row.")
    n = prot.size
    if prot.dtype == object and pd.isna(prot).any():
        raise ValueError(f"protected has missing flags (first at row {int(np.flatnonzero(pd.isna(prot))[0])}); "
                         "give True/False (or 1/0) for every row.")
    if prot.dtype != bool:
        values = set(np.unique(prot).tolist())
        if not values <= {0, 1}:
            raise ValueError(f"protected must be boolean or 0/1 (1 = protected); found {sorted(values)[:5]}.")
        prot = prot.astype(bool)
    values = np.asarray(scores_or_order)
    if values.shape != (n,):
        raise ValueError(f"scores_or_order has shape {values.shape} but protected has {n} entries; give one per row.")
    if kind == "order":
        if values.dtype.kind not in "iu":
            as_float = values.astype(float) if values.dtype.kind in "fb" else None
            if as_float is None or values.dtype.kind == "b" or not np.array_equal(as_float, np.round(as_float)):
                raise TypeError(f"scores_or_order={values.tolist()[:6]}... must hold integer row positions with "
                                "kind='order' (fractional positions are not rounded); pass kind='score' or "
                                "kind='cost' for values.")
        order = values.astype(int)
        if not np.array_equal(np.sort(order), np.arange(n)):
            raise ValueError("scores_or_order with kind='order' must be a permutation of the row positions 0..n-1; "
                             "pass kind='score' or kind='cost' for values.")
    elif kind in ("score", "cost"):
        v = values.astype(float)
        if np.isnan(v).any():
            raise ValueError(f"scores_or_order has NaN {kind}s.")
        order = np.lexsort((np.arange(n), -v if kind == "score" else v))
    else:
        raise ValueError(f"kind={kind!r} is not supported; use 'order', 'score' or 'cost'.")
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

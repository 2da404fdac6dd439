"""Private helpers of the fair-ranking lesson: argument checks built on :mod:`recourselab._validation`,
group codes, the fair-representation band and the recourse fairness ratio rho on running sums.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from .._validation import check_aligned, check_array, check_labels, check_number, plain

SLACK = 1e-9  # share-versus-band comparisons and bound room: absorbs rounding (0.4 - 0.3 > 0.1 in floats)
RHO_SLACK = 1e-12  # rho comparisons
_LABEL_TYPES = (list, tuple, set, frozenset, np.ndarray, pd.Index, pd.Series)


def frozen(a) -> np.ndarray:
    """A read-only copy (results never share memory with the caller or with each other)."""
    a = np.array(a, copy=True)
    a.setflags(write=False)
    return a


# --------------------------------------------------------------------------- scalar arguments


def check_tolerance(tolerance) -> float:
    """The tolerance t of the band p(1 +- t): a number in (0, 1]."""
    t = check_number(tolerance, "tolerance")
    if not 0 < t <= 1:
        raise ValueError(
            f"tolerance={plain(tolerance)!r} must lie in (0, 1]; the band is p*(1 - t) to p*(1 + t) around the "
            "protected share p (the paper's default is t = 1/3)."
        )
    return t


def check_beta(beta, *, required: bool = False) -> float | None:
    """beta of rho >= 1 - beta: a number in [0, 1], or None (no recourse constraint) unless required."""
    if beta is None:
        if required:
            raise TypeError("beta is required: prefixes must satisfy rho >= 1 - beta.")
        return None
    b = check_number(beta, "beta")
    if not 0 <= b <= 1:
        raise ValueError(f"beta={plain(beta)!r} must lie in [0, 1]; recourse fairness asks for rho >= 1 - beta.")
    return b


def check_actionable(actionable, encoder) -> bool:
    """``actionable``: None (True with an encoder, False without), True or False; True needs the encoder."""
    if actionable is None:
        return encoder is not None
    if not isinstance(actionable, (bool, np.bool_)):
        raise TypeError(f"actionable={actionable!r} must be True or False (or None: True with an encoder).")
    if actionable and encoder is None:
        raise ValueError("actionable=True needs the encoder: the advice policy (directions, caps, whole levels) "
                         "lives in its feature specs. Pass encoder=..., or actionable=False.")
    return bool(actionable)


# --------------------------------------------------------------------------- group labels


def group_codes(groups, n: int | None = None, name: str = "groups", *, single_ok: bool = False):
    """Integer codes and the sorted labels (Python objects) of one label per row.

    Labels go through :func:`~recourselab._validation.check_labels` (no None or
    NaN, no mix of strings and numbers, so 1 and "1" are never merged).
    """
    labels_in = check_labels(groups, name, n)
    if labels_in.size == 0:
        raise ValueError(f"{name} is empty; give at least one row.")
    try:
        codes, labels = pd.factorize(labels_in, sort=True)
    except TypeError:  # labels of one kind that do not sort (e.g. tuples and numbers)
        codes, labels = pd.factorize(labels_in, sort=False)
    labels = [plain(v) for v in labels]
    if len(labels) < 2 and not single_ok:
        raise ValueError(
            f"{name} has a single value ({labels[0]!r}); fairness compares at least two groups. "
            "Pass the group label of every row (e.g. gender or marital status)."
        )
    return codes.astype(np.int64), labels


def protected_list(protected, name: str = "protected_group") -> list:
    """The protected label(s) as a list of plain Python values (one label or a sequence of labels)."""
    if isinstance(protected, _LABEL_TYPES):
        out = [plain(v) for v in protected]
        if not out:
            raise ValueError(f"{name} is empty; name at least one protected group label.")
    else:
        out = [plain(protected)]
    check_labels(out, name, what="label")
    return out


def protected_codes(protected, labels: list, name: str = "protected_group") -> list[int]:
    """Codes (positions in ``labels``) of the protected label(s); an unknown label is an error."""
    lookup = {lab: i for i, lab in enumerate(labels)}
    codes = []
    for w in protected_list(protected, name):
        if w not in lookup:
            raise ValueError(f"{name}={w!r} is not a label of groups; labels are {labels}.")
        if lookup[w] not in codes:
            codes.append(lookup[w])
    return codes


def warn_absent(absent: list, present) -> None:
    """A protected label that never occurs: its share is 0, but a misspelt label looks the same."""
    if absent:
        warnings.warn(f"protected_group label(s) {absent} do not occur in groups (whose labels are "
                      f"{sorted(map(str, set(present)))[:6]}); their share is 0. If a label is misspelt, fix it.",
                      stacklevel=3)


def shares_p(p, wanted: list) -> np.ndarray:
    """The population share of each protected label from a number, a sequence or a dict keyed by label."""
    if p is None:
        raise TypeError("p is required: the protected group's share in the whole population.")
    if isinstance(p, dict):
        missing = [w for w in wanted if w not in p]
        if missing:
            raise ValueError(f"p gives no share for protected labels {missing}.")
        vals = np.array([check_number(p[w], f"p[{w!r}]") for w in wanted])
    elif np.ndim(p) == 0:
        vals = np.array([check_number(p, "p")])
        if len(wanted) != 1:
            raise ValueError(f"p={plain(p)!r} is one number but protected_group has {len(wanted)} labels; "
                             "give one share each.")
    else:
        vals = check_array(p, "p", length=len(wanted), length_of="protected labels")
    if not ((vals > 0) & (vals <= 1)).all():
        raise ValueError(f"p={plain(p)!r} must lie in (0, 1]: the protected share in the whole population.")
    return vals


def costs_and_groups(costs, groups, costs_name="costs", groups_name="groups"):
    """Finite costs >= 0 (one per row), with the codes and labels of the rows' groups (Series: one index)."""
    check_aligned(costs, costs_name, **{groups_name: groups})
    c = check_array(costs, costs_name, ndim=None, allow_inf=True, allow_empty=True)
    if c.ndim > 1:
        raise ValueError(f"{costs_name} has shape {c.shape}; give one cost per row (1-d).")
    c = c.reshape(-1)
    if c.size == 0:
        raise ValueError(f"{costs_name} is empty; give one cost per row.")
    if np.isinf(c).any():
        raise ValueError(
            f"{costs_name}[{int(np.flatnonzero(np.isinf(c))[0])}] is infinite: rows without recourse have no mean "
            "cost; drop them or give them a finite cost."
        )
    c = check_array(c, costs_name, minimum=0.0)
    codes, labels = group_codes(groups, c.size, groups_name)
    return c, codes, labels


# --------------------------------------------------------------------------- the band and rho


def band_ok(count, k, p, alpha):
    """``|count/k - p| <= alpha`` (+ slack) for every protected label (last axis)."""
    return np.all(np.abs(count / k - p) <= alpha + SLACK, axis=-1)


def rho_of(sums, counts) -> float:
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


def rho_interval(sums, counts, g: int, q: float):
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
    if m < q * M - RHO_SLACK * max(M, 1.0):
        return None
    mu_hi = math.inf if q <= 0 else m / q
    k = float(counts[g]) + 1
    return q * M * k - float(sums[g]), mu_hi * k - float(sums[g])


def violation(counts, size, P, p, alpha) -> float:
    """Total distance of the protected shares outside their bands (0 = fair)."""
    v = 0.0
    for g, pg, ag in zip(P, p, alpha, strict=True):
        d = abs(counts[g] / size - pg) - ag - SLACK
        if d > 0:
            v += d
    return v


class PrefixState:
    """The running prefix S of a re-ranking walk (Algorithm 1): counts, cost sums and protected counts.

    ``fair_with(g, k)`` asks Definition 3.1 of S plus one member of group g
    (``k = |S| + 1``); ``fixes(gx, k)`` lists the other groups that would make it
    fair; ``append`` adds a row.
    """

    def __init__(self, n_groups: int, P, p, alpha):
        self.cnt = np.zeros(n_groups)
        self.csum = np.zeros(n_groups)
        self.pc = np.zeros(len(P))  # protected counts in S
        self.is_p = np.full(n_groups, -1)
        self.is_p[np.asarray(P, dtype=int)] = np.arange(len(P))
        self.p, self.alpha = [float(v) for v in p], [float(v) for v in alpha]
        self.out: list[int] = []

    def fair_with(self, g: int, k: int) -> bool:
        pc, p, alpha, mine = self.pc, self.p, self.alpha, self.is_p[g]
        for i in range(len(p)):
            c = pc[i] + (1 if mine == i else 0)
            if abs(c / k - p[i]) > alpha[i] + SLACK:
                return False
        return True

    def fixes(self, gx: int, k: int) -> list[int]:
        return [g for g in range(len(self.cnt)) if g != gx and self.fair_with(g, k)]

    def append(self, row: int, g: int, cost: float) -> None:
        self.out.append(int(row))
        self.cnt[g] += 1
        self.csum[g] += cost
        if self.is_p[g] >= 0:
            self.pc[self.is_p[g]] += 1

    def keeps_rho(self, g: int, cost: float, q: float) -> bool:
        """Does S plus a member of group g with this cost have rho >= q (or a single group)?"""
        s2, c2 = self.csum.copy(), self.cnt.copy()
        s2[g] += cost
        c2[g] += 1
        rho = rho_of(s2, c2)
        return math.isnan(rho) or rho >= q - RHO_SLACK


def check_below(below) -> float:
    """``below`` of :func:`best_ratio_with_one_more`: a positive finite cost."""
    b = check_number(below, "below")
    if not b > 0:
        raise ValueError(f"below={b!r} must be a positive finite cost (the added cost lies in [0, below)).")
    return b

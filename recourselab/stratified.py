"""Permutation tests of a mean gap between two groups, overall or within strata, situation testing's shuffles,
and two groups' shares within strata with their intervals.

:func:`stratified_gap_test` compares the mean of a value (e.g. a recourse cost) between two groups like
with like: within each stratum (e.g. household role) the gap of the group means is taken, the pooled
statistic is their mean weighted by the stratum's size, and its reference shuffles the group labels
*within* each stratum, so every shuffle keeps how many of each group each stratum holds. With one
stratum it is the ordinary two-sided permutation test of a mean gap.

:func:`shuffled_st_shares` is what :func:`~recourselab.report.audit_model` uses for situation testing's
chance level: the share of refused members of the protected group that
:func:`~recourselab.situation_testing.situation_testing` (ST, default options) flags, for many
relabellings of the same rows. The distance leaves the group labels out, so a relabelling only changes
who is searched for among each person's neighbours: one ordering of every row by distance serves every
shuffle.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._validation import check_aligned_all, check_int, check_labels, check_mask, check_seed, plain
from .situation_testing.distance import as_frame, transform
from .situation_testing.testing import wald_ci

__all__ = ["stratified_gap_test", "shuffled_st_shares", "newcombe_interval", "shares_by_stratum"]


def _check_two_groups(labels, group, reference) -> None:
    """``group`` and ``reference`` must be two different labels that occur in ``labels``."""
    present = set(pd.unique(labels))
    for name, value in (("group", group), ("reference", reference)):
        if value not in present:
            raise ValueError(f"{name}={plain(value)!r} is not among the labels {sorted(map(str, present))}; "
                             "name a label that occurs.")
    if group == reference:
        raise ValueError(f"group and reference are both {plain(group)!r}; name two different labels.")


def _check_confidence(confidence) -> None:
    """A two-sided coverage strictly between 0 and 1 (not a bool)."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating, np.integer)) \
            or not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r} must be a number strictly between 0 and 1, e.g. 0.95.")


def _pooled_gap(values, labels, codes, n_strata, group, reference):
    """Per stratum: (gap of the group means, size) where both groups are present; and the size-weighted mean."""
    gaps, sizes = [], []
    for s in range(n_strata):
        here = codes == s
        a, b = values[here & (labels == group)], values[here & (labels == reference)]
        if len(a) and len(b):
            gaps.append(a.mean() - b.mean())
            sizes.append(len(a) + len(b))
    if not gaps:
        return float("nan"), gaps, sizes
    return float(np.average(gaps, weights=sizes)), gaps, sizes


def stratified_gap_test(values, labels, strata=None, *, group, reference, n_shuffles: int = 2000,
                        random_state: int = 0) -> dict:
    """Two-sided permutation test of the gap of two groups' means, with labels shuffled within strata.

    The statistic is :math:`T = \\sum_s w_s (\\bar v_{s,\\mathrm{group}} - \\bar v_{s,\\mathrm{reference}})`,
    the within-stratum gaps weighted by :math:`w_s = n_s / \\sum n`, where :math:`n_s` counts the stratum's
    members of the two groups; strata holding only one of the two groups carry no gap and are left out
    (their count is returned). The p value is :math:`(1 + \\#\\{|T^*| \\ge |T|\\}) / (1 + \\text{shuffles})`.

    Parameters
    ----------
    values : array of float, shape (n,)
        Finite values (e.g. the costs of the moves found).
    labels : array, shape (n,)
        Each value's group; values of neither ``group`` nor ``reference`` are left out.
    strata : array, shape (n,), optional
        Each value's stratum (any hashable labels, no missing value). None: one stratum (the plain test).
    group, reference : label
        The two groups compared; the gap is ``group`` minus ``reference``.
    n_shuffles : int, default 2000
    random_state : int or numpy Generator, default 0

    Returns
    -------
    dict
        ``gap`` (pooled), ``p`` (two-sided), ``n_shuffles``, ``strata`` (per stratum kept: ``stratum``,
        ``n_group``, ``n_reference``, ``gap``, ``weight``) and ``strata_left_out``.

    Examples
    --------
    >>> r = stratified_gap_test([1., 2., 3., 4.], ["a", "b", "a", "b"], ["x", "x", "y", "y"], group="a",
    ...                         reference="b", n_shuffles=99)
    >>> r["gap"], len(r["strata"])
    (-1.0, 2)
    """
    values = np.asarray(values, dtype=float)
    labels = np.asarray(labels, dtype=object)
    if values.ndim != 1 or labels.shape != values.shape:
        raise ValueError(f"values and labels must be 1-d of one length, got shapes {values.shape} and "
                         f"{labels.shape}; give one label per value.")
    if not np.isfinite(values).all():
        raise ValueError("values holds NaN or infinite entries; keep only the finite ones (e.g. the costs of the "
                         "moves found) and the labels beside them.")
    if strata is None:
        strata = np.zeros(len(values), dtype=np.int64)
    strata = pd.Series(np.asarray(strata, dtype=object))
    if len(strata) != len(values) or strata.isna().any():
        raise ValueError(f"strata must give one stratum per value ({len(values)}) with none missing, got "
                         f"{len(strata)} entries, {int(strata.isna().sum())} missing; fill or drop them first.")
    _check_two_groups(labels, group, reference)
    n_shuffles = check_int(n_shuffles, "n_shuffles", minimum=1)
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(
        check_seed(random_state, "random_state"))
    two = np.isin(labels, [group, reference])
    values, labels = values[two], labels[two]
    names, codes = np.unique(strata.to_numpy()[two].astype(str), return_inverse=True)
    observed, gaps, sizes = _pooled_gap(values, labels, codes, len(names), group, reference)
    blocks = [np.flatnonzero(codes == s) for s in range(len(names))]
    null = np.empty(n_shuffles)
    shuffled = labels.copy()
    for i in range(n_shuffles):
        for rows in blocks:
            shuffled[rows] = labels[rows[rng.permutation(len(rows))]]
        null[i] = _pooled_gap(values, shuffled, codes, len(names), group, reference)[0]
    p = float((np.sum(np.abs(null) >= abs(observed) - 1e-12) + 1) / (n_shuffles + 1)) if np.isfinite(observed) \
        else float("nan")
    kept, table = 0, []
    for s, name in enumerate(names):
        here = codes == s
        n_g, n_r = int((here & (labels == group)).sum()), int((here & (labels == reference)).sum())
        if n_g and n_r:
            table.append({"stratum": name, "n_group": n_g, "n_reference": n_r, "gap": float(gaps[kept]),
                          "weight": float(sizes[kept] / sum(sizes))})
            kept += 1
    return {"gap": observed, "p": p, "n_shuffles": n_shuffles, "strata": table,
            "strata_left_out": len(names) - kept}


# ------------------------------------------------------------------ situation testing under relabellings
_FAST_ROWS = 2000  # above, each shuffle's rows² cumulative counts cost more than rerunning ST (benchmarks, part 6)


def _flags(order_refused, order_labels, labels, k, alpha):
    """ST's flag (significant) for every row of the protected group (labels True), in row order."""
    same = order_labels == labels[:, None]               # candidates of the row's own group (control)
    other = ~same                                         # candidates of the other group (test)
    in_control = same & (np.cumsum(same, axis=1) <= k)
    in_test = other & (np.cumsum(other, axis=1) <= k)
    neg_c = (order_refused & in_control).sum(axis=1).astype(float)[labels]
    neg_t = (order_refused & in_test).sum(axis=1).astype(float)[labels]
    low, _ = wald_ci(neg_c / float(k), neg_t / float(k), np.full(len(neg_c), float(k)), alpha)
    return low > 0.0


def _st_orderings(Z):
    """Every row's other rows by (L1 distance of the range-normalised rows, rounded to 12 decimals; row)."""
    T, _, _ = transform(as_frame(np.asarray(Z), "Z"), None, None, "range", "factual")
    n = len(T)
    dist = np.zeros((n, n))
    for j in range(T.shape[1]):  # summed column by column, as the neighbour search does: ties fall alike
        dist += np.abs(T[:, j, None] - T[None, :, j])
    key = np.round(dist, 12)
    np.fill_diagonal(key, np.inf)  # the complainant is never its own neighbour
    return np.lexsort((np.broadcast_to(np.arange(n), (n, n)), key), axis=1)[:, :n - 1]


def shuffled_st_shares(Z, protected, decisions, *, k: int, n_shuffles: int, random_state=0,
                       alpha: float = 0.05, within=None) -> np.ndarray:
    """The share of refused protected rows that ST flags, for ``n_shuffles`` random relabellings of the rows.

    Each shuffle permutes ``protected`` and runs k-NN situation testing (no counterfactuals, the reference
    being every unprotected row, range-normalised L1 distance on ``Z``, ties to the lower row, τ = 0) as
    ``situation_testing(Z, shuffled, decisions, k=k, reference=~shuffled)`` would; the result is the same
    number (the tests check it). Up to 2,000 rows one ordering of every row's neighbours, computed once,
    serves all shuffles; above, ST is rerun per shuffle.

    With ``within``, only those rows' labels are permuted, among themselves (every other row keeps its
    label and still serves as a neighbour), and the share counts the refused protected rows among them:
    the reference for a share read inside one stratum, such as one household role, where the labels are
    unrelated to the other columns only inside it.

    Parameters
    ----------
    Z : array of float, shape (n, p)
        The rows (numeric; the protected attribute left out).
    protected : array of bool, shape (n,)
    decisions : array of 0/1, shape (n,)
        1 = favourable.
    k : int
    n_shuffles : int
    random_state : int or numpy Generator, default 0
        The permutations are ``random_state.permutation(protected[within])`` in turn (all rows by default).
    alpha : float, default 0.05
    within : array of bool, shape (n,), optional
        The rows whose labels are shuffled and whose refused protected rows are counted; default all.

    Returns
    -------
    ndarray of float, shape (n_shuffles,)
        NaN for a shuffle that leaves no refused protected row to count.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> Z = rng.random((60, 2))
    >>> protected, decisions = rng.random(60) < 0.5, (rng.random(60) < 0.5).astype(int)
    >>> shuffled_st_shares(Z, protected, decisions, k=5, n_shuffles=3, within=Z[:, 0] < 0.5).shape
    (3,)
    """
    from .situation_testing import situation_testing

    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 2 or not np.isfinite(Z).all():
        raise ValueError(f"Z must be a 2-d array of finite numbers, got shape {Z.shape}"
                         f"{'' if Z.ndim != 2 else ' with NaN or infinite entries'}; encode and impute the rows first.")
    protected, decisions = np.asarray(protected), np.asarray(decisions)
    if protected.shape != (len(Z),) or decisions.shape != (len(Z),):
        raise ValueError(f"protected and decisions must give one entry per row of Z ({len(Z)}), got shapes "
                         f"{protected.shape} and {decisions.shape}.")
    if protected.dtype != bool:
        raise ValueError(f"protected must be boolean (True = the protected group), got dtype {protected.dtype}; "
                         "pass e.g. X['sex'] == 'Female'.")
    if not np.isin(decisions, [0, 1]).all():
        raise ValueError(f"decisions must be 0 (refused) or 1 (favourable), got values "
                         f"{sorted(map(str, pd.unique(decisions)))[:5]}; map the model's labels to 0/1 first.")
    decisions = decisions.astype(int)
    if within is None:
        within = np.ones(len(Z), dtype=bool)
    within = np.asarray(within)
    if within.shape != (len(Z),) or within.dtype != bool:
        raise ValueError(f"within must be a boolean array with one entry per row of Z ({len(Z)}), got shape "
                         f"{within.shape} and dtype {within.dtype}; pass e.g. X['relationship'] != 'Husband'.")
    counted = (decisions == 0) & within  # refused rows inside the shuffled set
    k = check_int(k, "k", minimum=1)
    n_shuffles = check_int(n_shuffles, "n_shuffles", minimum=0)
    rng = random_state if isinstance(random_state, np.random.Generator) else np.random.default_rng(
        check_seed(random_state, "random_state"))

    def relabelled():
        prot = protected.copy()
        prot[within] = rng.permutation(protected[within])
        return prot

    if len(Z) > _FAST_ROWS:
        out = []
        for _ in range(n_shuffles):
            prot = relabelled()
            res = situation_testing(Z, prot, decisions, k=k, reference=~prot, alpha=alpha)
            mine = counted[prot]
            out.append(float(res["significant"].to_numpy()[mine].mean()) if mine.any() else float("nan"))
        return np.array(out)
    order = _st_orderings(Z)
    order_refused = (decisions == 0)[order]
    shares = []
    for _ in range(n_shuffles):
        prot = relabelled()
        mine = counted[prot]
        shares.append(float(_flags(order_refused, prot[order], prot, k, alpha)[mine].mean()) if mine.any()
                      else float("nan"))
    return np.array(shares)


def newcombe_interval(successes_a, n_a, successes_b, n_b, *, confidence=0.95):
    """Newcombe's hybrid score interval for the difference of two shares, ``k_a/n_a - k_b/n_b``.

    Method 10 of Newcombe (1998): with ``p = k/n`` and Wilson's score interval ``(l, u)`` for each share,
    ``l, u = (p + z^2/(2n) -/+ z sqrt(p(1-p)/n + z^2/(4n^2))) / (1 + z^2/n)``, the difference ``d = p_a - p_b``
    has the interval ``(d - sqrt((p_a-l_a)^2 + (u_b-p_b)^2), d + sqrt((u_a-p_a)^2 + (p_b-l_b)^2))``,
    ``z`` the two-sided normal quantile for ``confidence``. It stays inside [-1, 1] and works with zero counts.

    Parameters
    ----------
    successes_a, n_a, successes_b, n_b : int
        Counts for the two groups, ``0 <= successes <= n`` and ``n >= 1``.
    confidence : float, default 0.95
        Two-sided coverage, in (0, 1).

    Returns
    -------
    tuple of float
        ``(lower, upper)`` for ``p_a - p_b``.

    References
    ----------
    Newcombe, R. G. (1998). Interval estimation for the difference between independent proportions:
    comparison of eleven methods. Statistics in Medicine 17, 873-890.
    """
    from scipy.stats import binomtest
    counts = {}
    for name, k, n in (("successes_a", successes_a, n_a), ("successes_b", successes_b, n_b)):
        n_name = "n_" + name[-1]
        n = check_int(n, n_name, minimum=1)
        k = check_int(k, name, minimum=0)
        if k > n:
            raise ValueError(f"{name}={k} is larger than {n_name}={n}; pass at most {n_name} successes.")
        counts[name[-1]] = (k, n)
    _check_confidence(confidence)

    def wilson(k, n):  # scipy's Wilson score interval (no continuity correction)
        ci = binomtest(k, n).proportion_ci(confidence_level=float(confidence), method="wilson")
        return k / n, ci.low, ci.high

    (p1, l1, u1), (p2, l2, u2) = wilson(*counts["a"]), wilson(*counts["b"])
    d = p1 - p2
    return float(d - np.hypot(p1 - l1, u2 - p2)), float(d + np.hypot(u1 - p1, p2 - l2))


def shares_by_stratum(found, labels, strata=None, *, group, reference, confidence=0.95) -> pd.DataFrame:
    """Two groups' shares of a yes/no outcome within each stratum and overall, each with its interval.

    For every stratum and for all rows together ("all"), each group's count ``n``, its successes
    ``found``, the share ``found / n`` with Wilson's score interval, and the difference of the shares,
    ``group`` minus ``reference``, with Newcombe's hybrid score interval (:func:`newcombe_interval`).
    The intervals are unadjusted for the number of strata. A stratum without one of the groups gets
    NaN for that group and for the difference.

    Parameters
    ----------
    found : array of bool or 0/1, shape (n,)
        The outcome per row (e.g. a move found for a refused person); no missing value.
    labels : array, shape (n,)
        Each row's group; rows of neither ``group`` nor ``reference`` are left out.
    strata : array, shape (n,), optional
        Each row's stratum (any labels, none missing). None: only the row "all".
    group, reference : label
        The two groups compared; the difference is ``group`` minus ``reference``.
    confidence : float, default 0.95
        Two-sided coverage of every interval, in (0, 1).

    Returns
    -------
    DataFrame
        One row per stratum (sorted by label), then ``"all"``; columns ``(group, "n")``,
        ``(group, "found")``, ``(group, "share")``, ``(group, "low")``, ``(group, "high")``, the same for
        ``reference``, and ``("difference", "share" | "low" | "high")``.

    Examples
    --------
    >>> t = shares_by_stratum([1, 0, 1, 1], ["a", "a", "b", "b"], ["x", "x", "x", "y"], group="a", reference="b")
    >>> float(t.loc["all", ("difference", "share")]), int(t.loc["y", ("a", "n")])
    (-0.5, 0)
    """
    from scipy.stats import binomtest

    check_aligned_all(found=found, labels=labels, strata=strata)
    found = check_mask(found, "found", meaning="True = the outcome happened")
    labels = check_labels(labels, "labels", len(found))
    strata = None if strata is None else check_labels(strata, "strata", len(found))
    if strata is not None and (strata == "all").any():
        raise ValueError("strata holds the label 'all', the name of the overall row; rename that stratum "
                         "(e.g. strata.replace('all', 'all (stratum)')).")
    _check_two_groups(labels, group, reference)
    _check_confidence(confidence)

    def one_group(k, n):
        if n == 0:
            return {"n": 0, "found": 0, "share": np.nan, "low": np.nan, "high": np.nan}
        ci = binomtest(k, n).proportion_ci(confidence_level=float(confidence), method="wilson")
        return {"n": n, "found": k, "share": k / n, "low": ci.low, "high": ci.high}

    names = [] if strata is None else sorted(pd.unique(strata[np.isin(labels, [group, reference])]),
                                              key=lambda v: (str(type(v)), v))
    rows = {}
    for name, here in [(v, strata == v) for v in names] + [("all", np.ones(len(found), bool))]:
        counts = [(int((found & here & (labels == g)).sum()), int((here & (labels == g)).sum()))
                  for g in (group, reference)]
        row = {(g, key): value for g, (k, n) in zip((group, reference), counts, strict=True)
               for key, value in one_group(k, n).items()}
        if counts[0][1] and counts[1][1]:
            low, high = newcombe_interval(*counts[0], *counts[1], confidence=confidence)
            row |= {("difference", "share"): row[(group, "share")] - row[(reference, "share")],
                    ("difference", "low"): low, ("difference", "high"): high}
        else:
            row |= {("difference", key): np.nan for key in ("share", "low", "high")}
        rows[name] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.columns = pd.MultiIndex.from_tuples(table.columns)
    table.index.name = "stratum"
    return table

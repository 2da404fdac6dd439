"""Counterfactual situation testing written literally :cite:p:`alvarez2023cst,thanh2011knn`, to be read.

The paper's notation: ``D`` the rows (each ``x`` a list of attribute values), ``D_CF`` their
counterfactuals (row c of ``D_CF`` is row c of ``D`` under do(A := 0)), ``a`` the protected flags
(``a[i]`` true for the protected group), ``y_hat`` the decisions (1 = favourable, 0 = negative),
``c`` a complainant (a row position), ``k`` the group size, ``d(x, x')`` the distance of Eq. (6),
τ (``tau``) the minimum deviation, α (``alpha``) the significance level. Equations and algorithms
are the paper's (Section 3 and Appendix B). Slow but exact; the engine
(:func:`~recourselab.situation_testing.build_groups`,
:func:`~recourselab.situation_testing.situation_testing`) gives the same groups and numbers,
which the tests check.
"""

import math
from statistics import NormalDist

__all__ = ["ranges", "distance", "top_k", "wald_interval", "situation_test", "counterfactual_fairness"]


def ranges(D, categorical):
    """max(X_i) − min(X_i) of every numeric attribute over the rows ``D``: the denominators of Eq. (6).

    A categorical attribute gets 0 (its overlap distance needs no range).

    Examples
    --------
    >>> ranges([[10.0, "a"], [30.0, "b"], [20.0, "a"]], [False, True])
    [20.0, 0.0]
    """
    spread = []
    for i, is_categorical in enumerate(categorical):
        values = [x[i] for x in D]
        spread.append(0.0 if is_categorical else max(values) - min(values))
    return spread


def distance(x, x_prime, spread, categorical):
    """Eq. (6): the mean over the ``|X|`` attributes of the per-attribute distances d_i(x_i, x'_i).

    .. math:: d(x, x') = \\frac{1}{|X|} \\sum_{i=1}^{|X|} d_i(x_i, x'_i)

    A numeric (continuous, ordinal or interval) attribute adds the normalised
    Manhattan distance ``md = |x_i − x'_i| / (max(X_i) − min(X_i))``, ``spread[i]``
    being that range (an attribute with range 0 separates no one). A
    categorical attribute adds the overlap distance ol: under our reading 1 when
    x_i ≠ x'_i and 0 when they are equal (the paper prints the reverse, which
    would put equal people far apart). Pass standard deviations as ``spread``
    for the authors' normalisation.

    Examples
    --------
    >>> distance([10.0, "a"], [20.0, "b"], [20.0, 0.0], [False, True])   # (10/20 + 1) / 2
    0.75
    """
    total = 0.0
    for x_i, x_prime_i, spread_i, is_categorical in zip(x, x_prime, spread, categorical, strict=True):
        if is_categorical:
            total += 0.0 if x_i == x_prime_i else 1.0  # ol(x_i, x'_i), under our reading
        elif spread_i > 0:
            total += abs(x_i - x_prime_i) / spread_i  # md(x_i, x'_i)
    return total / len(x)  # Eq. (6): the mean over the attributes


def top_k(t, D, candidates, k, spread, categorical):
    """Alg. 2 (get_top_k), Eqs. (2)-(3): the k ``candidates`` nearest the search centre ``t``.

    Every candidate's distance d(t, x_i) (Eq. 6), then a sort by ascending
    distance; the first k are the group (rank_d(t, x_i) ≤ k). The paper leaves
    ties open; here distances equal to 12 decimals are the same distance
    (floating-point noise is not a difference) and the lower row comes first,
    the engine's rule. Alg. 2 asks for k + 1 neighbours and removes the centre
    for the control group; leaving the complainant out of ``candidates`` gives
    the same group (and k members even when the complainant has exact
    duplicates).

    Examples
    --------
    >>> D = [[0.0], [0.1], [0.5], [0.1]]
    >>> top_k([0.0], D, [1, 2, 3], 2, [0.5], [False])   # rows 1 and 3 tie at 0.2: the lower row first
    [1, 3]
    """
    ranked = []
    for i in candidates:
        d_i = distance(t, D[i], spread, categorical)  # Eq. (6)
        ranked.append((round(d_i, 12), i))
    ranked.sort()  # Alg. 2: sort idx by the distance (ties: the lower row first)
    return [i for _, i in ranked[:k]]  # Eqs. (2)-(3): rank_d(t, x_i) <= k


def wald_interval(p_c, p_t, n, alpha=0.05):
    """Eq. (5) under our reading: the one-sided Wald interval Δp ± w_α for Δp = p_c − p_t.

    .. math:: w_\\alpha = z_{1-\\alpha} \\sqrt{\\frac{p_c(1 - p_c) + p_t(1 - p_t)}{n}}

    The paper prints the two variances subtracted and z_{α/2}; a difference of
    independent proportions has the *sum* of their variances, and the paper's
    Tables 2 and 3 reproduce with the one-sided quantile z = 1.645 (α = 5 %),
    which matches the one-sided test Δp > τ. ``n`` is the group size: k, or
    k + 1 when the search centres are counted.

    Examples
    --------
    >>> [round(v, 2) for v in wald_interval(13 / 16, 0.0, 16)]   # the paper's Table 2, complainant 55
    [0.65, 0.97]
    """
    z = NormalDist().inv_cdf(1 - alpha)  # 1.645 for alpha = 0.05
    w = z * math.sqrt((p_c * (1 - p_c) + p_t * (1 - p_t)) / n)  # Eq. (5), the variances added
    delta_p = p_c - p_t
    return delta_p - w, delta_p + w


def situation_test(D, a, y_hat, c, k, D_CF=None, y_hat_CF=None, categorical=None, include_centers=False,
                   tau=0.0, alpha=0.05, spread=None):
    """Alg. 1 (run_CST) for one complainant c: ST without ``D_CF``, CST with it.

    The control group is the k protected rows nearest x_c (Eq. 2), c left out;
    the test group the k non-protected rows nearest the test centre (Eq. 3):
    x_c^CF for CST, x_c itself for ST. p_c and p_t are the shares of negative
    decisions in the groups (Eq. 4); with ``include_centers`` the centres'
    decisions ŷ_c and ŷ_c^CF (ŷ_c for ST) join them and the groups have
    k + 1 members. There is potential discrimination when Δp > τ (Def. 3.4);
    it is significant when the interval of Eq. (5) lies above τ (Def. 3.5).
    ``categorical`` flags the categorical attributes (default: those holding
    text); ``spread`` the denominators of Eq. (6) (default: the ranges over D).

    Returns
    -------
    dict
        ``control``, ``test`` (row positions), ``p_c``, ``p_t``, ``delta_p``,
        ``ci_low``, ``ci_high``, ``discrimination`` and ``significant``.

    Examples
    --------
    >>> D = [[0.0], [0.1], [0.2], [0.0], [0.1], [0.2]]
    >>> result = situation_test(D, [1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 0], c=2, k=2)
    >>> result["control"], result["test"], result["delta_p"]
    ([1, 0], [5, 4], 0.5)
    """
    if categorical is None:
        categorical = [any(isinstance(x[i], str) for x in D) for i in range(len(D[0]))]
    if spread is None:
        spread = ranges(D, categorical)
    D_c = [i for i in range(len(D)) if a[i]]  # Alg. 1: the protected (control) search space
    D_t = [i for i in range(len(D)) if not a[i]]  # the non-protected (test) search space
    t = D[c] if D_CF is None else D_CF[c]  # Def. 3.3: the test search centre, x_c or x_c^CF
    control = top_k(D[c], D, [i for i in D_c if i != c], k, spread, categorical)  # Eq. (2), Alg. 1 res_1
    test = top_k(t, D, D_t, k, spread, categorical)  # Eq. (3), Alg. 1 res_2
    negative_c = sum(1 for i in control if y_hat[i] == 0)  # Eq. (4)
    negative_t = sum(1 for i in test if y_hat[i] == 0)
    n = k
    if include_centers:  # Sec. 3.2: the search centres counted, a denominator of k + 1
        centre_decision = y_hat[c] if D_CF is None else y_hat_CF[c]
        negative_c += 1 if y_hat[c] == 0 else 0
        negative_t += 1 if centre_decision == 0 else 0
        n = k + 1
    p_c, p_t = negative_c / n, negative_t / n
    ci_low, ci_high = wald_interval(p_c, p_t, n, alpha)  # Eq. (5)
    return {"control": control, "test": test, "p_c": p_c, "p_t": p_t, "delta_p": p_c - p_t,
            "ci_low": ci_low, "ci_high": ci_high,
            "discrimination": p_c - p_t > tau,  # Def. 3.4
            "significant": ci_low > tau}  # Def. 3.5: the interval excludes τ (one-sided)


def counterfactual_fairness(y_hat_c, y_hat_CF_c):
    """Counterfactual fairness :cite:p:`kusner2017counterfactual` for one complainant: refused, favoured as x_c^CF.

    The comparison of the two search centres alone (Sec. 3.2): a violation
    when ŷ_c = 0 and ŷ_c^CF = 1.

    Examples
    --------
    >>> counterfactual_fairness(0, 1), counterfactual_fairness(0, 0)
    (True, False)
    """
    return y_hat_c == 0 and y_hat_CF_c == 1

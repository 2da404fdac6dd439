"""Robust recourse in binary allocation problems, written as the paper states it :cite:p:`segal2024luck`.

Plain loops in the paper's notation: n applicants with utilities v_i = S_θ(M(x_i)) and requests w_i,
a budget r, an allocation Y ∈ {0, 1}^n worth U(Y) = Σ_{i: y_i = 1} v_i, a margin ε that breaks ties.
This file is for reading; the package's engine computes the same numbers faster, and
``tests/allocation/test_paper.py`` checks that both agree on small random instances.
"""

import math

import numpy as np

__all__ = ["knapsack", "greedy", "utility_ce", "utility_ce_naive", "S", "prediction_ce", "rho_robust_recourse"]


def knapsack(v, w, r):
    """The optimal 0-1 knapsack policy (Section 4.1), by the textbook dynamic programme (footnote 6).

    ``V[i][c]`` is the best utility of applicants 1..i within the budget c. Reading the choices back
    from applicant n to 1, applicant i is taken only when that is *strictly* better, so among equally
    good allocations the later applicants are left out (the engine breaks ties the same way); an
    applicant with v_i <= 0 is never taken (Section 4.1 removes them).

    Returns the allocation Y (a list of 0/1) and its utility U(Y).

    >>> Y, U = knapsack([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6)   # Table 1
    >>> Y, round(U, 2)
    ([0, 1, 1, 1], 1.55)
    """
    n = len(v)
    V = [[0.0] * (r + 1)]                              # V[0][c] = 0: nobody to choose from
    for i in range(1, n + 1):
        V.append(list(V[i - 1]))
        for c in range(w[i - 1], r + 1):
            take = V[i - 1][c - w[i - 1]] + v[i - 1]
            if take > V[i][c]:                         # V[i][c] = max(V[i-1][c], V[i-1][c - w_i] + v_i)
                V[i][c] = take
    Y, c = [0] * n, r
    for i in range(n, 0, -1):                          # read the choices back
        if V[i][c] != V[i - 1][c]:
            Y[i - 1] = 1
            c -= w[i - 1]
    return Y, sum(v[i] for i in range(n) if Y[i])


def greedy(v, r):
    """The greedy policy (Section 4.2): best utility first, while it is positive and places remain.

    Every applicant asks for one place (w_i = 1); ties go to the lower index.

    >>> greedy([0.2, 0.1, 0.0, -0.1], 3)[0]   # Table 2, r = 3: applicant 3 adds nothing
    [1, 1, 0, 0]
    """
    Y = [0] * len(v)
    for i in sorted(range(len(v)), key=lambda i: (-v[i], i)):
        if sum(Y) == r or v[i] <= 0:                   # no place left, or U would not increase
            break
        Y[i] = 1
    return Y, sum(v[i] for i in range(len(v)) if Y[i])


def utility_ce(v, w, r, i, policy="knapsack", eps=1e-6):
    """Applicant i's minimal utility counterfactual v'_i (Section 5, step 1), by re-running the policy.

    Knapsack (Lemma 1, in the form its proof computes it, with i placed last):
    v'_i = V[n-1][r] - V[n-1][r - w_i] + ε, the others' optimum minus their optimum in what is left
    once i's request is granted; ``inf`` when w_i > r (i can never be included). Greedy (the paper's
    two cases): the smallest selected utility + ε when all r places are taken, else ε.

    Under our reading, both rules are applied to the allocation of the *others*: for a refused
    applicant it is the current one (the proof's note, U(Y*([n], r)) = V[n-1][r]), and for a
    selected applicant the result is the utility they must keep to stay selected (the paper
    defines v'_i for refused applicants only; this is the book's extension).

    >>> utility_ce([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6, 0, eps=0.0)   # Table 1: 1.55 - 0.5
    1.05
    """
    v_o = [v[j] for j in range(len(v)) if j != i]       # the others, i left out ("placed last")
    if policy == "knapsack":
        w_o = [w[j] for j in range(len(v)) if j != i]
        if w[i] > r:
            return math.inf
        return knapsack(v_o, w_o, r)[1] - knapsack(v_o, w_o, r - w[i])[1] + eps    # Lemma 1
    if r == 0:
        return math.inf
    Y, _ = greedy(v_o, r)
    if sum(Y) == r:                                    # all places taken: beat the weakest admitted
        return min(v_o[j] for j in range(len(v_o)) if Y[j]) + eps
    return eps                                         # a place is free: any positive utility


def utility_ce_naive(values, weights, capacity, *, policy="knapsack", eps=1e-6):
    """Every applicant's utility counterfactual, by :func:`~recourselab.allocation.paper.utility_ce` one by one.

    Two knapsacks (or one greedy allocation) per applicant: O(n² r) time, against O(n r) for the
    engine's prefix/suffix programme (:func:`recourselab.allocation.utility_ce`), which gives the
    same numbers. ``weights`` may be None for the greedy policy.

    >>> utility_ce_naive([0.8, 0.625, 0.5, 0.425], [4, 3, 2, 1], 6, eps=1e-9).round(6).tolist()
    [1.05, 0.375, 0.175, 0.175]
    """
    v = [float(x) for x in values]                     # plain Python numbers: the loops read them fastest
    w = None if weights is None else [int(x) for x in weights]
    return np.array([utility_ce(v, w, int(capacity), i, policy, eps) for i in range(len(v))])


def S(m, w_i, theta):
    """The individual utility u = S_θ(M) of the two use cases.

    Lending, θ = {G1, G2, C} (Eq. 1): u = M (w G1 + G2) - (1 - M) C w, computed as
    M (w (G1 + C) + G2) - C w (the paper's rearrangement); admissions, θ = {G, C} (Eq. 2): u = M G - C.

    >>> round(S(0.8, 4, {"G1": 0.05, "G2": 1, "C": 0.2}), 6)   # Table 1, applicant 1
    0.8
    """
    if "G1" in theta:
        return m * (w_i * (theta["G1"] + theta["C"]) + theta["G2"]) - theta["C"] * w_i
    return m * theta["G"] - theta["C"]


def prediction_ce(v_prime, w_i, theta):
    """The prediction counterfactual m' = S_θ^{-1}(v') (Section 5, step 2).

    S_θ increases with M, so it can be inverted; a value above 1 means that no probability is enough
    (the paper's appendix, note 2), and ``inf`` stays ``inf``.

    >>> round(prediction_ce(1.05, 4, {"G1": 0.05, "G2": 1, "C": 0.2}), 6)   # applicant 1 needs 0.925
    0.925
    """
    if "G1" in theta:
        return (v_prime + theta["C"] * w_i) / (w_i * (theta["G1"] + theta["C"]) + theta["G2"])
    return (v_prime + theta["C"]) / theta["G"]


def rho_robust_recourse(m_i, w_i, sample, n, rho, policy="knapsack", random_state=None, eps=1e-6):
    """Algorithm 1: the ρ-robust prediction counterfactual m_ρ by Monte Carlo (Section 6.1).

    ``sample(rng)`` draws one allocation problem (r_j, X_j, θ_j) ~ D: a budget, the other applicants
    as a list of (M(x), w) pairs, and the utility's parameters θ. Applicant i (probability m_i,
    request w_i) joins each sampled pool; the result is the ⌈ρ n⌉-th smallest of the n prediction
    counterfactuals (ρ = 0 is read as the smallest). The last line of Algorithm 1, the feature
    counterfactual x' = E(M, i, m_ρ), is :func:`recourselab.allocation.feature_ce`.

    ``random_state`` seeds ``numpy.random.default_rng``. Returns m_ρ and the n sampled m'_j.

    >>> def sample(rng):   # 5 others, between 1 and 5 places
    ...     return int(rng.integers(1, 6)), [(0.9, 1), (0.8, 1), (0.7, 1), (0.6, 1), (0.55, 1)], {"G": 2, "C": 1}
    >>> m_rho, m_primes = rho_robust_recourse(0.5, 1, sample, 200, 0.7, "greedy", random_state=0)
    >>> round(m_rho, 4)
    0.8
    """
    rng = np.random.default_rng(random_state)
    m_primes = []
    for j in range(1, n + 1):  # noqa: B007                        # Alg. 1, line 1: for j from 1 to n
        r_j, X_j, theta_j = sample(rng)                            # line 2: (r_j, X_j, θ_j) ~ D
        v = [S(m, w, theta_j) for m, w in X_j] + [S(m_i, w_i, theta_j)]
        w = [w for m, w in X_j] + [w_i]
        v_prime = utility_ce(v, w, r_j, len(v) - 1, policy, eps)   # line 3: utility-CE of i
        m_primes.append(prediction_ce(v_prime, w_i, theta_j))      # line 4: m'_j = S_θj^-1(v'_j)
    ranked = sorted(m_primes)                                      # line 6
    k = max(1, math.ceil(rho * n - 1e-12))                         # ⌈ρ n⌉ (0.7 · 10 is 7.000000000000001)
    return ranked[k - 1], m_primes                                 # line 7: sorted[⌈ρ n⌉], counted from 1

"""RAGUEL :cite:p:`haldar2022raguel`, the ranking metrics :cite:p:`yang2017measuring` and FA*IR
:cite:p:`zehlike2017fair`, written literally: plain loops, the papers' notation, the line of each algorithm.

For reading; the package's engines give the same answers (``tests/fair_ranking/test_paper.py``). Where the
RAGUEL paper lost its formulas, we follow our reading (the book's design notes): a set represents the
protected group fairly when ``|p_S - p| <= alpha`` with ``alpha = p t``; rho is min over max of the groups' mean
recourse costs; Eq. (3) is "a swap may not lower the block's rho". Costs are the weighted distance of Eq. (2)
to a linear boundary a.x + b >= 0, inside the bounds (no feature specs here: see ``raguel(encoder=...)``).
"""

import itertools
import math

__all__ = ["cost", "modify", "fair", "rho", "raguel", "raguel_block", "rkl_rnd_rrd", "fair_table", "fair_rerank"]

SLACK = 1e-9  # a share on the edge of its band counts as inside (0.4 - 0.3 > 0.1 in floats)


def cost(x, *, a, b, w, lower, upper, immutable=()):
    """Recourse cost of x, Eq. (2): the least sqrt(sum_j w_j (x'_j - x_j)^2) with a.x' + b >= 0, x' in the box.

    Under our reading of "inverse classification with bounds": every feature j moves by lam a_j / w_j for one
    multiplier lam until it reaches its bound (at lam_j); lam grows until the margin is reached, aiming 1e-9
    of the model's scale inside (as the package does).

    >>> round(cost([4, 4], a=[-2, 1], b=0, w=[0.5, 1], lower=[-math.inf] * 2, upper=[math.inf] * 2), 2)
    1.33
    """
    s = b
    for j in range(len(a)):
        if a[j] != 0:
            s += x[j] * a[j]  # the margin a.x + b
    if not s < 0:
        return 0.0
    lam, gain, rate = [], [], []  # per movable feature: bound reached at lam_j, margin then gained, a_j^2 / w_j
    for j in range(len(a)):
        if a[j] != 0 and j not in immutable:
            room = max(max(upper[j], x[j]) - x[j] if a[j] > 0 else x[j] - min(lower[j], x[j]), 0.0)
            lam.append(room * (w[j] / abs(a[j])) if room > 0 else 0.0)
            gain.append(room * abs(a[j]))
            rate.append(a[j] * a[j] / w[j])
    need = -s + 1e-9 * (1 + abs(b) + sum(abs(v) for v in a))
    order = sorted(range(len(lam)), key=lam.__getitem__)
    tail = list(itertools.accumulate([rate[i] for i in reversed(order)]))[::-1]  # slope beyond each breakpoint
    head, star = 0.0, math.inf
    for k, i in enumerate(order):
        if head + lam[i] * tail[k] >= need or k == len(order) - 1 and head + lam[i] * tail[k] >= -s * (1 - 1e-12):
            star = min(max((need - head) / tail[k], 0.0), lam[i])  # lam* (short of the aim: all at their bounds)
            break
        head = head + gain[i]
    if star == math.inf:  # no move inside the box reaches the boundary
        return math.inf
    return math.sqrt(sum(r * min(star, lj) * min(star, lj) for r, lj in zip(rate, lam, strict=True)))


def modify(x, ok, *, a, b, w, steps, lower, upper, immutable=(), max_steps=10_000):
    """Alg. 1, line 9: modify x into x' until ok(cost(x')); return (x', cost) or None.

    Attributes in ascending recourse weight (ties: column order), one at a time, then pairs, triples, ...
    (A, B, C, AB, AC, BC, ABC); each moves one step per iteration towards the boundary, within its bound.

    >>> kw = dict(a=[-2, 1], b=0, w=[0.5, 1], steps=[0.05, 1], lower=[-9, -9], upper=[9, 9])
    >>> [round(v, 2) for v in modify([4.0, 4.0], lambda c: c < 1.0, **kw)[0]]
    [3.45, 4.0]
    """
    box = dict(a=a, b=b, w=w, lower=lower, upper=upper, immutable=immutable)
    if ok(cost(x, **box)):
        return list(x), cost(x, **box)
    A = sorted((j for j in range(len(a)) if a[j] != 0 and j not in immutable), key=lambda j: (w[j], j))
    room = {j: max(upper[j] - x[j], 0.0) if a[j] > 0 else max(x[j] - lower[j], 0.0) for j in A}
    cap = {j: max_steps if room[j] == math.inf else min(math.floor(room[j] / steps[j] + SLACK), max_steps) for j in A}
    for size in range(1, len(A) + 1):
        for C in itertools.combinations(A, size):
            for n in range(1, max(cap[j] for j in C) + 1):
                x_ = list(x)
                for j in C:
                    x_[j] = x[j] + (math.copysign(1.0, a[j]) * steps[j]) * min(n, cap[j])
                c = cost(x_, **box)
                if ok(c):
                    return x_, c
                if c == 0:  # on the favourable side: further steps change nothing
                    break
    return None


def fair(S, p, t):
    """Definition 3.1 under our reading: ``|p_S - p| <= alpha = p t`` for every protected label (p: label -> share).

    >>> fair(["M", "F", "M", "M", "M"], {"F": 0.3}, 1 / 3), fair(["M"] * 5, {"F": 0.3}, 1 / 3)
    (True, False)
    """
    return all(abs(sum(g == lab for g in S) / len(S) - p[lab]) <= p[lab] * t + SLACK for lab in p)


def rho(costs, groups):
    """Eqs. (1) and (4): min over max of the groups' mean recourse costs (NaN with one group, 1 if all are 0).

    >>> round(rho([7.688, 5.837], ["single", "married"]), 3)
    0.759
    """
    sums, counts = {}, {}
    for c, g in zip(costs, groups, strict=True):
        sums[g], counts[g] = sums.get(g, 0.0) + c, counts.get(g, 0) + 1
    means = [sums[g] / counts[g] for g in sums]
    return math.nan if len(means) < 2 else 1.0 if max(means) <= 0 else min(means) / max(means)


def raguel(X, groups, p, *, t=1 / 3, beta=None, **model):
    """Algorithm 1 (Recourse-Aware Re-Ranking): walk down the ranking by cost, repairing unfair prefixes.

    Our refinement: where no group could make the prefix fair (e.g. a prefix of two when p = 0.3), x is
    appended as is.

    Parameters
    ----------
    X : list of rows; groups : list of labels, one per row
    p : dict
        Population share of each protected label.
    t : float
        Tolerance of Definition 3.1 (alpha = p t).
    beta : float, optional
        Also require rho >= 1 - beta of the prefix where a row is modified (line 9 cites
        Definition 3.4; we check that one prefix, Definition 3.3's set).
    **model
        a, b (the boundary a.x + b >= 0), w (recourse weights), steps, lower, upper, immutable, max_steps.

    Returns
    -------
    order, X', costs after modification, and the position where the exit strategy copied the rest (or None).

    Examples
    --------
    >>> kw = dict(a=[-2, 1], b=0, w=[0.5, 1], steps=[0.05, 1], lower=[-9, -9], upper=[9, 9])
    >>> out = raguel([[3.5, 6], [2, 1], [4, 4], [5, 4]], ["M", "M", "F", "F"], {"F": 0.5}, t=1 / 2, **kw)
    >>> out[0], round(out[1][2][0], 2), round(out[2][2], 2)
    ([0, 2, 1, 3], 3.45, 0.97)
    """
    box = {k: v for k, v in model.items() if k not in ("steps", "max_steps")}
    c = [cost(x, **box) for x in X]
    L = sorted(range(len(X)), key=lambda i: (c[i], i))  # the ranking by recourse cost, ties by position
    S, X_new = [], [list(x) for x in X]  # line 2
    while L:  # line 3: x is the best record not yet placed
        x, labels, before = L[0], [groups[i] for i in S], [c[i] for i in S]
        if not S or fair(labels + [groups[x]], p, t):  # line 4: S + [x] satisfies Definition 3.2
            S.append(L.pop(0))  # line 5
            continue
        helps = {g for g in groups if g != groups[x] and fair(labels + [g], p, t)}
        if not helps:  # no record could make this prefix fair: append x as is
            S.append(L.pop(0))
            continue
        for y in L[1:]:  # line 7
            if groups[y] not in helps:  # line 8
                continue

            def ok(cy, gy=groups[y], T=c[x], before=before, labels=labels):
                r = rho(before + [cy], labels + [gy])  # y' outranks x; with beta, rho >= 1 - beta for S + [y']
                return cy < T and (beta is None or math.isnan(r) or r >= 1 - beta - 1e-12)

            found = modify(X[y], ok, **model)  # line 9
            if found:
                X_new[y], c[y] = found
                L.remove(y)
                S.append(y)  # line 10
                break  # line 11
        else:  # the exit strategy: copy the rest of the ranking as is
            return S + L, X_new, c, len(S)
    return S, X_new, c, None


def raguel_block(X, groups, p, *, size, t=1 / 3, beta=None, **model):
    """Algorithm 2 (Block-Based Re-ranking): make each block of ``size`` records represent the groups fairly.

    Under our reading of Eq. (3), a swap must not lower the block's rho (with beta: not below min(rho, 1 - beta));
    candidates come from the next block only, and a record moves once. Arguments as in :func:`raguel`.

    Returns
    -------
    order, X' and the costs after modification (each block sorted by cost, ties by initial rank).

    Examples
    --------
    >>> kw = dict(a=[-2, 1], b=0, w=[0.5, 1], steps=[0.05, 1], lower=[-9, -9], upper=[9, 9])
    >>> out = raguel_block([[3.5, 6], [2, 1], [4, 4], [5, 4]], ["M", "M", "F", "F"], {"F": 0.5}, size=2, t=1 / 2, **kw)
    >>> out[0], round(out[1][2][0], 2)
    ([0, 2, 1, 3], 2.5)
    """
    box = {k: v for k, v in model.items() if k not in ("steps", "max_steps")}
    c = [cost(x, **box) for x in X]
    L = sorted(range(len(X)), key=lambda i: (c[i], i))
    rank = {i: r for r, i in enumerate(L)}
    B = [L[i:i + size] for i in range(0, len(L), size)]  # the blocks B_1, B_2, ... of the ranking
    X_new, moved = [list(x) for x in X], set()

    def outside(members):  # how far the block's protected shares lie outside their bands (0: Definition 3.1)
        return sum(max(abs(sum(groups[j] == g for j in members) / size - p[g]) - p[g] * t - SLACK, 0.0) for g in p)

    for i in range(len(B) - 1):  # line 2
        while outside(B[i]) > 0:  # line 3
            swaps = []  # (out group o, in group u) that bring B_i closer to its bands (only counts matter)
            for o, u in itertools.permutations(sorted(set(groups)), 2):
                z_ = [j for j in B[i] if groups[j] == o and j not in moved]
                y_ = [j for j in B[i + 1] if groups[j] == u and j not in moved]
                d = outside([j for j in B[i] if j != z_[0]] + [y_[0]]) - outside(B[i]) if z_ and y_ else 0.0
                if d < -SLACK:
                    swaps.append((d, o not in p, o, u))
            for _, _, o, u in sorted(swaps):
                z = max((j for j in B[i] if groups[j] == o and j not in moved), key=lambda j: (c[j], rank[j]))
                T = max(c[j] for j in B[i] if j != z)  # y' must cost at most this to belong to B_i
                rest = [j for j in B[i] if j != z]
                r0 = rho([c[j] for j in B[i]], [groups[j] for j in B[i]])
                floor = r0 if beta is None else min(r0, 1 - beta)

                def ok(cy, rest=rest, u=u, T=T, r0=r0, floor=floor):  # Eq. (3): the block's rho does not decrease
                    r = rho([c[j] for j in rest] + [cy], [groups[j] for j in rest] + [u])
                    return cy <= T and (math.isnan(r0) or r >= floor - 1e-12)

                found = None
                for y in B[i + 1]:  # line 5: the highest ranked y of u in B_{i+1} that can be modified
                    if groups[y] == u and y not in moved:
                        found = modify(X[y], ok, **model)  # line 7
                        if found:
                            break
                if found:  # lines 4 and 8: z moves down to B_{i+1}, y' up into B_i
                    X_new[y], c[y] = found
                    moved |= {y, z}
                    B[i][B[i].index(z)], B[i + 1][B[i + 1].index(y)] = y, z
                    break
            else:  # no swap works: the block stays as it is (exit strategy)
                break
        B[i].sort(key=lambda j: (c[j], rank[j]))
    B[-1].sort(key=lambda j: (c[j], rank[j]))
    return [j for block in B for j in block], X_new, c


def rkl_rnd_rrd(protected, cutoff=10):
    """rKL, rND and rRD of a ranking (``protected``: 1 for a protected record, best first), normalised by Z.

    Z is the larger value of the two extreme rankings (all protected at the bottom, or at the top); a zero
    denominator in rRD counts as 0, and rRD is capped at 1 (with that convention it can exceed Z).

    >>> rkl_rnd_rrd([1, 0, 0, 1, 0, 0, 1, 0, 0, 0] * 3)
    {'rKL': 0.0, 'rND': 0.0, 'rRD': 0.0}
    """
    N, S = len(protected), sum(protected)

    def raw(ranking):
        out = {"rKL": 0.0, "rND": 0.0, "rRD": 0.0}
        for i in range(cutoff, N + 1, cutoff):  # the cut-offs 10, 20, ...
            s = sum(ranking[:i])  # S+_i, protected records in the top i
            P, Q = s / i, S / N
            out["rKL"] += sum(u * (math.log(max(u, 1e-12)) - math.log(v)) for u, v in ((P, Q), (1 - P, 1 - Q))) \
                / math.log2(i)
            out["rND"] += abs(P - Q) / math.log2(i)
            out["rRD"] += abs((s / (i - s) if i > s else 0.0) - S / (N - S)) / math.log2(i)
        return out

    value, worst = raw(protected), [raw([0] * (N - S) + [1] * S), raw([1] * S + [0] * (N - S))]
    return {m: min(value[m] / max(z[m] for z in worst), 1.0) if max(z[m] for z in worst) > 0 else 0.0
            for m in value}


def fair_table(k, p, alpha):
    """FA*IR's minimum protected counts m(i) = F^{-1}(alpha; i, p), i = 1..k (the binomial's alpha-quantile).

    >>> fair_table(20, 0.25, 0.1)
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 3]
    """
    m = []
    for i in range(1, k + 1):
        j, F = 0, (1 - p) ** i  # F = P[Bin(i, p) <= j]
        while F < alpha:
            j += 1
            F += math.comb(i, j) * p ** j * (1 - p) ** (i - j)
        m.append(j)
    return m


def fair_rerank(order, protected, k, p, alpha):
    """FA*IR (its Algorithm 2, unadjusted table): at position i take the best protected record when fewer than
    m(i) are placed, else the best record; ``order`` is the given ranking (row positions, best first).

    >>> fair_rerank(list(range(10)), [0] * 7 + [1] * 3, 10, 0.3, 0.1)
    [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]
    """
    m = fair_table(k, p, alpha)
    P0, N0 = [r for r in order if protected[r]], [r for r in order if not protected[r]]
    out = []
    for i in range(k):
        if P0 and (sum(protected[r] for r in out) < m[i] or not N0 or order.index(P0[0]) < order.index(N0[0])):
            out.append(P0.pop(0))
        else:
            out.append(N0.pop(0))
    return out

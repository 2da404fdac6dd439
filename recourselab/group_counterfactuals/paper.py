"""FACE and FACEGroup written literally :cite:p:`poyiadzi2020face,fragkathoulas2025facegroup`, to be read.

The papers' notation: ``Z`` the encoded people, ε the largest step, ``X`` the factuals (rows of ``C``),
``X'`` the candidates (columns), ``C[x][x']`` = cost(x, x') (``math.inf``: not reachable), ``S`` the
chosen counterfactuals, ``k`` their number, ``d`` a cost threshold, ``need`` = ``⌈c |X|⌉`` factuals to cover.
Sections and equations are the FACEGroup paper's. Slow but exact; the engines agree (tested).
"""

import heapq
import itertools
import math


def feasibility_graph(Z, epsilon, feasible, h):
    """The feasibility graph G_U (Sec. 2): the edges i -> j and their weights W_ij.

    An edge is a feasible step of length at most ε. Under our reading (the paper
    prints density times cost) the weight is the one of the FACEGroup authors'
    code: the squared length over p̃ at the midpoint, p̃ a Gaussian KDE
    (bandwidth h) divided by its mean over Z. (FACE's own KDE weight is the
    length times a decreasing function of the density.)

    Examples
    --------
    >>> W = feasibility_graph([[0.0], [0.3], [1.0]], 0.5, lambda z, z2: True, h=0.5)
    >>> sorted(W), round(W[(0, 1)], 4)
    ([(0, 1), (1, 0)], 0.0795)
    """
    def p(point):  # the Gaussian KDE up to its constant factor, which cancels in p̃
        return sum(math.exp(-sum((a - b) ** 2 for a, b in zip(point, z, strict=True)) / (2 * h * h)) for z in Z)

    mean_p = sum(p(z) for z in Z) / len(Z)
    W = {}
    for i, z_i in enumerate(Z):
        for j, z_j in enumerate(Z):
            if i == j:
                continue
            length = math.sqrt(sum((a - b) ** 2 for a, b in zip(z_i, z_j, strict=True)))
            if length <= epsilon and feasible(z_i, z_j):  # Sec. 2: a feasible transition within ε
                midpoint = [(a + b) / 2 for a, b in zip(z_i, z_j, strict=True)]
                W[(i, j)] = length ** 2 / (p(midpoint) / mean_p)  # the authors' code's density weight
    return W


def shortest_paths(W, n, source):
    """Dijkstra from one node (Sec. 3): ``dist`` (cheapest sum of weights; inf if unreached), ``previous`` nodes.

    Examples
    --------
    >>> shortest_paths({(0, 1): 2.0, (1, 2): 1.0, (0, 2): 5.0}, 3, 0)
    ([0.0, 2.0, 3.0], [None, 0, 1])
    """
    out = {i: [(j, w) for (a, j), w in W.items() if a == i] for i in range(n)}  # the edges out of each node
    dist, previous, done = [math.inf] * n, [None] * n, [False] * n
    dist[source] = 0.0
    queue = [(0.0, source)]
    while queue:
        d_u, u = heapq.heappop(queue)
        if done[u]:
            continue
        done[u] = True
        for v, w in out[u]:
            if d_u + w < dist[v]:
                dist[v], previous[v] = d_u + w, u
                heapq.heappush(queue, (dist[v], v))
    return dist, previous


def face(W, n, sources, targets):
    """FACE: per source x, ``(x', cost, path)`` to the cheapest reachable target (ties: first listed).

    ``(None, inf, [])`` when no target is reachable.

    Examples
    --------
    >>> face({(0, 1): 2.0, (1, 2): 1.0, (0, 2): 5.0}, 3, [0], [2])
    [(2, 3.0, [0, 1, 2])]
    """
    out = []
    for x in sources:
        dist, previous = shortest_paths(W, n, x)
        x_prime = min(targets, key=lambda t: dist[t])
        if dist[x_prime] == math.inf:
            out.append((None, math.inf, []))
            continue
        path = [x_prime]
        while path[-1] != x:
            path.append(previous[path[-1]])
        out.append((x_prime, dist[x_prime], path[::-1]))
    return out


def greedy_max_coverage(C, k, d):
    """FACEGroup's greedy for Problem 1 (Sec. 3.1, Eq. 5): S_t = S_{t-1} ∪ {the x' covering most}.

    Under our reading of Eq. (5) (printed as a sum of two coverages) each step adds
    the x' covering the most factuals not yet covered within d (ties: lower total
    cost of those, then lower index), until ``|S| = k`` or nobody new can be covered.

    Examples
    --------
    >>> inf = float("inf")
    >>> greedy_max_coverage([[1, 4, inf], [2, 1, inf], [inf, 2, 1], [inf, inf, 2]], k=2, d=2)
    [0, 2]
    """
    X, X_prime = range(len(C)), range(len(C[0]))
    S, covered = [], set()
    while len(S) < k:  # Sec. 3.1: until |S_t| = k ...
        best = None
        for x_prime in X_prime:
            new = [x for x in X if x not in covered and C[x][x_prime] <= d]
            key = (-len(new), sum(C[x][x_prime] for x in new), x_prime)
            if new and (best is None or key < best):
                best = key
        if best is None:  # ... or until every coverable factual is covered
            break
        S.append(best[2])
        covered |= {x for x in X if C[x][best[2]] <= d}
    return S


def greedy_min_max_cost(C, k, need):
    """The book's greedy for Problem 2 (Sec. 3.2), a heuristic, not the paper's farthest-first over X'.

    Farthest-first from the factuals at a radius r, and a search on r. A run at r
    opens the x' covering most within r; then, until ``need`` are covered or
    ``k`` open, it takes the uncovered factuals farthest
    from S (largest cost(x, S), ∞ included, ties together) that some x' reaches
    within r, and opens the x' within r of one of them covering most new factuals
    (ties as in :func:`greedy_max_coverage`). The radii searched are the finite
    costs from the need-th smallest cheapest cost up; as a run need not be
    monotone in r, they are then scanned upward. None when no radius works.

    Examples
    --------
    >>> greedy_min_max_cost([[1, 3], [3, 1]], k=1, need=2)
    [0]
    """
    X, X_prime = range(len(C)), range(len(C[0]))

    def key(x_prime, covered, r):  # more newly covered factuals first, then cheaper, then lower index
        new = [x for x in X if x not in covered and C[x][x_prime] <= r]
        return -len(new), sum(C[x][x_prime] for x in new), x_prime

    def farthest_first(r):
        S = [min(X_prime, key=lambda x_prime: key(x_prime, set(), r))]  # the first counterfactual
        covered = {x for x in X if C[x][S[0]] <= r}  # every factual within r of it
        while len(covered) < need and len(S) < k:
            open_ = [x for x in X if x not in covered and min(C[x]) <= r]
            if not open_:
                break
            cost_to_S = {x: min(C[x][x_prime] for x_prime in S) for x in open_}  # cost(x, S)
            far = [x for x in open_ if cost_to_S[x] == max(cost_to_S.values())]  # the farthest from S
            reaching = [x_prime for x_prime in X_prime if any(C[x][x_prime] <= r for x in far)]
            S.append(min(reaching, key=lambda x_prime: key(x_prime, covered, r)))
            covered |= {x for x in X if C[x][S[-1]] <= r}
        return S, len(covered)

    reach = sorted(min(row) for row in C)  # each factual's cheapest cost
    if reach[need - 1] == math.inf:
        return None
    radii = sorted({c for row in C for c in row if c < math.inf})
    lo, hi = radii.index(reach[need - 1]), len(radii) - 1
    while lo < hi:  # binary search on r
        mid = (lo + hi) // 2
        if farthest_first(radii[mid])[1] >= need:
            hi = mid
        else:
            lo = mid + 1
    for r in radii[lo:]:
        S, covered = farthest_first(r)
        if covered >= need:
            return S
    return None


def exact_max_coverage(C, k, d):
    """Problem 1 by enumeration (the optimum of the MIP, Eqs. (1)-(4)): best coverage within d, and an S.

    Examples
    --------
    >>> inf = float("inf")
    >>> exact_max_coverage([[1, inf, inf], [1, 1, inf], [inf, inf, 1]], k=2, d=1)
    (3, [0, 2])
    """
    best = (-1, None)
    for S in itertools.combinations(range(len(C[0])), min(k, len(C[0]))):
        coverage = sum(1 for row in C if min(row[x_prime] for x_prime in S) <= d)  # coverage(X, S) within d
        if coverage > best[0]:
            best = (coverage, list(S))
    return best


def exact_min_max_cost(C, k, need):
    """Problem 2 by enumeration (the MIP's optimum, Eqs. (1)-(4), (6), (7)): the least radius, and an S.

    The radius of S is the need-th smallest cost(x, S); ``(inf, None)`` if none covers ``need``.

    Examples
    --------
    >>> exact_min_max_cost([[1, 3], [3, 1]], k=1, need=2)
    (3, [0])
    """
    best = (math.inf, None)
    for S in itertools.combinations(range(len(C[0])), min(k, len(C[0]))):
        cost_x_S = sorted(min(row[x_prime] for x_prime in S) for row in C)  # cost(x, S) for every x
        if cost_x_S[need - 1] < best[0]:  # the need-th smallest: the radius at which S covers need
            best = (cost_x_S[need - 1], list(S))
    return best


def minimum_resources(C):
    """k0 and d0 (Sec. 4) over the coverable factuals: the fewest counterfactuals and the least cost for all.

    Examples
    --------
    >>> inf = float("inf")
    >>> minimum_resources([[1.0, inf, 3.0], [inf, 2.0, 0.5], [inf, inf, inf]])
    (1, 1.0)
    """
    X = [row for row in C if min(row) < math.inf]  # the coverable factuals
    if not X:
        return 0, 0.0
    X_prime = range(len(C[0]))
    for k0 in range(1, len(C[0]) + 1):  # k0 = min{k : some S with |S| <= k covers every x}
        if any(all(min(row[x_prime] for x_prime in S) < math.inf for row in X)
               for S in itertools.combinations(X_prime, k0)):
            break
    d0 = max(min(row) for row in X)  # d0 = min{d : ...}: with S = X' each x takes its cheapest x'
    return k0, d0


def _area(grid, curve, ideal):
    """The trapezoid area of ``curve`` over ``grid``, by ``ideal`` held over the grid (one point: value / ideal)."""
    if len(grid) == 1:
        return curve[0] / ideal
    total = sum((grid[i + 1] - grid[i]) * (curve[i] + curve[i + 1]) / 2 for i in range(len(grid) - 1))
    return total / (ideal * (grid[-1] - grid[0]))


def kauc(C, k, d_grid):
    """kAUC(k) (Sec. 4): coverage(X, S_{k,d}) over the cost grid, as a share of full coverage's area.

    X: the coverable factuals; S_{k,d} exact. Default grid: 12 costs, smallest positive to largest.

    Examples
    --------
    >>> kauc([[1.0, 3.0], [3.0, 1.0]], 1, [1.0, 3.0])
    0.75
    """
    X = [row for row in C if min(row) < math.inf]
    curve = [exact_max_coverage(X, k, d)[0] / len(X) for d in d_grid]
    return _area(d_grid, curve, 1.0)


def dauc(C, d, k_grid):
    """dAUC(d) (Sec. 4): coverage(X, S_{k,d}) over the grid of k (default: 12 from 1 to k0), by full coverage's.

    Examples
    --------
    >>> dauc([[1.0, 3.0], [3.0, 1.0]], 1.0, [1, 2])
    0.75
    """
    X = [row for row in C if min(row) < math.inf]
    curve = [exact_max_coverage(X, k, d)[0] / len(X) for k in k_grid]
    return _area(k_grid, curve, 1.0)


def cauc(C, c, k_grid, ceiling):
    """cAUC(c) (Sec. 4): the least radius covering c over the grid of k (default: 25 from 1 to k0), by the ceiling's.

    A k that cannot reach c, or only above the ceiling, scores the ceiling.

    Examples
    --------
    >>> cauc([[1.0, 3.0], [3.0, 1.0]], 1.0, [1, 2], ceiling=4.0)
    0.5
    """
    X = [row for row in C if min(row) < math.inf]
    need = max(1, math.ceil(c * len(X) - 1e-9))  # ⌈c |X|⌉ (the 1e-9 absorbs round-off)
    curve = [min(exact_min_max_cost(X, k, need)[0], ceiling) for k in k_grid]
    return _area(k_grid, curve, ceiling)

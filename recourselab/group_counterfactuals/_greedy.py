"""The greedy engines of FACEGroup's two problems: lazy greedy coverage and farthest-first with a radius search.

Private: :func:`~recourselab.group_counterfactuals.max_coverage` and
:func:`~recourselab.group_counterfactuals.min_max_cost` call them. The literal
versions they are tested against are
:func:`~recourselab.group_counterfactuals.paper.greedy_max_coverage` and
:func:`~recourselab.group_counterfactuals.paper.greedy_min_max_cost`.
"""

from __future__ import annotations

import heapq
import math

import numpy as np
from scipy import sparse
from tqdm.auto import tqdm

# --------------------------------------------------------------------------- Problem 1


class _LazyCoverage:
    """Lazy greedy for maximum coverage on the sparse sets {x : C[x, j] <= d}.

    Keys are ``(-gain, total cost of the newly covered, column)``; as the covered
    set grows a candidate's key can only grow (its newly covered set shrinks, so
    its gain falls or, when the gain is unchanged, the set and its cost are the
    same), so a stale key is a lower bound and a fresh key at the top of the
    heap is the exact greedy choice (Minoux's lazy evaluation).
    """

    def __init__(self, C: np.ndarray, d: float):
        n, m = C.shape
        mask = C <= d
        rows, cols = np.nonzero(mask)  # row-major; tocsc keeps every stored entry, zero costs included
        by_row = sparse.csr_array(
            (C[rows, cols], cols, np.concatenate(([0], np.cumsum(np.count_nonzero(mask, axis=1))))), shape=(n, m)
        )
        by_col = by_row.tocsc()  # rows ascending inside each column
        self.A = sparse.csc_array((np.ones(by_col.nnz, dtype=bool), by_col.indices, by_col.indptr), shape=(n, m))
        self.indptr, self.indices = self.A.indptr, self.A.indices
        self.pair_cost = by_col.data  # cost of each stored pair, aligned with A.indices
        gains = np.diff(self.indptr)
        # the totals are sequential sums in stored order (a cumulative sum), here and on
        # re-evaluation, so the same set always gives bit-identical totals and ties
        totals = [float(self.pair_cost[lo:hi].cumsum()[-1]) if hi > lo else 0.0
                  for lo, hi in zip(self.indptr[:-1].tolist(), self.indptr[1:].tolist(), strict=True)]
        self.uncovered = np.ones(n, dtype=bool)
        self.n_coverable = int(np.count_nonzero(np.diff(by_row.indptr)))
        self.n_covered = 0
        self.round = 0
        self.heap = [(-int(gains[j]), totals[j], int(j), int(j), 0) for j in np.flatnonzero(gains)]
        heapq.heapify(self.heap)

    def peek(self):
        """The fresh best key ``(-gain, total, label, j, round)``, or None if nothing adds coverage."""
        if self.n_covered == self.n_coverable:
            return None
        heap, indptr, indices, pair_cost, uncovered = self.heap, self.indptr, self.indices, self.pair_cost, \
            self.uncovered
        while heap:
            top = heap[0]
            if top[4] == self.round:
                return top
            j = top[3]
            lo, hi = indptr[j], indptr[j + 1]
            new = pair_cost[lo:hi][uncovered[indices[lo:hi]]]
            if new.size == 0:
                heapq.heappop(heap)
                continue
            heapq.heapreplace(heap, (-new.size, float(new.cumsum()[-1]), top[2], j, self.round))
        return None

    def take(self) -> int:
        """Commit the current best (call :meth:`peek` first); return its local column."""
        _, _, _, j, _ = heapq.heappop(self.heap)
        rows = self.indices[self.indptr[j]:self.indptr[j + 1]]
        newly = rows[self.uncovered[rows]]
        self.uncovered[newly] = False
        self.n_covered += len(newly)
        self.round += 1
        return j


def _greedy_max_coverage(C, k, d, progress) -> list[int]:
    engine = _LazyCoverage(C, d)
    chosen: list[int] = []
    with tqdm(total=k, disable=not progress, desc="lazy greedy", unit="CF") as bar:
        while len(chosen) < k and engine.peek() is not None:
            chosen.append(engine.take())
            bar.update()
    return chosen


# --------------------------------------------------------------------------- Problem 2


class _FarthestFirst:
    """The farthest-first procedure of :func:`min_max_cost` at any radius, with runs cached.

    The steps taken at a radius do not depend on ``k`` or ``need`` (they only
    decide when to stop), so one run per radius, extended on demand, answers
    every ``(k, need)`` query at that radius. A run keeps, for every candidate,
    the number and total cost of the uncovered factuals within ``r`` (the
    gain) and the number of those not reached by any chosen candidate, updated
    as factuals change state, so a whole run costs O(n m) however large ``k``.
    """

    def __init__(self, C: np.ndarray, priority=None):
        self.C = C
        self.reach = C.min(axis=1) if C.shape[1] else np.full(C.shape[0], np.inf)
        self.priority = priority
        self.runs: dict[float, dict] = {}

    def _start(self, r: float) -> dict:
        C = self.C
        within = C <= r
        gain = within.sum(axis=0)
        total = np.where(within, C, 0.0).sum(axis=0)
        if self.priority is None:
            first = int(np.lexsort((np.arange(C.shape[1]), total, -gain))[0])
        else:  # uniform among the candidates covering someone: the one with the smallest random priority
            useful = np.flatnonzero(gain > 0)
            first = int(useful[np.argmin(self.priority[useful])])
        run = {
            "S": [],
            "covs": [],
            "covered": np.zeros(C.shape[0], dtype=bool),
            "dist": np.full(C.shape[0], np.inf),
            "eligible": self.reach <= r,
            "gain": gain,  # uncovered factuals within r of each candidate
            "total": total,  # ... and their total cost
            "unreached": gain.copy(),  # ... of which no chosen candidate reaches (dist = inf)
            "stuck": False,
        }
        self._open(run, first, r)
        return run

    def _open(self, run: dict, j: int, r: float) -> None:
        C, covered, dist = self.C, run["covered"], run["dist"]
        column = C[:, j]
        newly = np.flatnonzero((column <= r) & ~covered)
        if len(newly):
            rows = C[newly]
            w = rows <= r
            run["gain"] -= w.sum(axis=0)
            run["total"] -= np.where(w, rows, 0.0).sum(axis=0)
            run["unreached"] -= w[np.isinf(dist[newly])].sum(axis=0)
        # uncovered factuals that become reachable from the chosen set (no longer at distance inf)
        seen = np.flatnonzero(np.isfinite(column) & np.isinf(dist) & ~covered & (column > r))
        if len(seen):
            run["unreached"] -= (C[seen] <= r).sum(axis=0)
        covered[newly] = True
        np.minimum(dist, column, out=dist)
        run["S"].append(int(j))
        run["covs"].append(int(np.count_nonzero(covered)))

    def _step(self, run: dict, r: float) -> None:
        open_rows = np.flatnonzero(run["eligible"] & ~run["covered"])
        if len(open_rows) == 0:
            run["stuck"] = True
            return
        # the uncovered factuals farthest from the chosen set, among those with a candidate within r
        # (ties taken together; typically all those at inf); open the candidate within r of one of
        # them that covers the most uncovered factuals within r (ties: lower total cost, lower column)
        dist = run["dist"][open_rows]
        farthest = dist.max()
        if np.isinf(farthest):
            cands = np.flatnonzero(run["unreached"] > 0)
        else:
            far = open_rows[dist == farthest]
            cands = np.flatnonzero((self.C[far] <= r).any(axis=0))
        j = int(cands[np.lexsort((cands, run["total"][cands], -run["gain"][cands]))[0]])
        self._open(run, j, r)

    def run(self, r: float, k: int, need: int) -> tuple[list[int], int]:
        """Selection and coverage of the procedure at radius r stopped by k and need."""
        run = self.runs.get(r)
        if run is None:
            run = self.runs[r] = self._start(r)
        while run["covs"][-1] < need and len(run["S"]) < k and not run["stuck"]:
            self._step(run, r)
        covs = run["covs"][:k]
        t = next((i for i, cov in enumerate(covs) if cov >= need), len(covs) - 1)
        return run["S"][: t + 1], covs[t]


def _greedy_min_max_cost(ff: _FarthestFirst, values: np.ndarray, k: int, need: int, progress: bool):
    """Binary search over the radii ``values``; returns (selection, reached need?)."""
    reach = ff.reach
    lower = float(np.partition(reach, need - 1)[need - 1])  # no radius below this covers need factuals
    lo, hi = int(np.searchsorted(values, lower)), len(values) - 1
    steps = max(1, math.ceil(math.log2(hi - lo + 1)) + 1) if hi >= lo else 1
    with tqdm(total=steps, disable=not progress, desc="radius search", unit="radius") as bar:
        while lo < hi:
            mid = (lo + hi) // 2
            _, cov = ff.run(float(values[mid]), k, need)
            if cov >= need:
                hi = mid
            else:
                lo = mid + 1
            bar.update()
        # the procedure need not be monotone in r: make sure the radius found works, else scan upward
        i = lo
        while i < len(values):
            S, cov = ff.run(float(values[i]), k, need)
            if cov >= need:
                return S, True
            i += 1
    S, _ = ff.run(float(values[-1]), k, need)
    return S, False

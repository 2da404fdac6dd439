"""RAGUEL-Block (Algorithm 2 of :cite:t:`haldar2022raguel`): fair representation and recourse fairness block by
block.

The literal algorithm, for reading, is :func:`recourselab.fair_ranking.paper.raguel_block`;
this engine gives the same result (tested).
"""

from __future__ import annotations

import math
import time

import numpy as np
import pandas as pd

from .._validation import check_int
from ._common import RHO_SLACK, SLACK, check_beta, frozen, rho_interval, rho_of, violation
from ._problem import Setup, common_fields, modified_rows, setup_rerank
from .results import RaguelBlockResult

__all__ = ["raguel_block"]


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
        b, r = divmod(n, k)
        sizes = [b + 1] * r + [b] * (k - r)  # sizes differ by at most one (the paper: "all blocks are equal")
    return np.asarray(sizes, dtype=int)


def _block_stats(block_of_pos, order, codes, cost, G, P, nb, sizes):
    """Per block: protected shares and rho."""
    key = block_of_pos * G + codes[order]
    counts = np.bincount(key, minlength=nb * G).reshape(nb, G).astype(float)
    sums = np.bincount(key, weights=cost[order], minlength=nb * G).reshape(nb, G)
    share = counts[:, P] / sizes[:, None]
    rho = np.array([rho_of(sums[i], counts[i]) for i in range(nb)])
    return share, rho


class _Pair:
    """Block B_i (``cur``) and the next block B_{i+1} (``nxt``) while B_i is repaired, updated in place.

    A swap writes y over z in B_i and z over y in B_{i+1}. Per member of B_i:
    group ``gcur``, current cost ``ccur``, ``mov`` (moved once already, so it
    stays); per group: counts ``cnt``, cost sums ``sm``, movable members
    ``movable_cnt``. Per member of B_{i+1}: group ``gnxt``, lowest reachable
    cost ``mc_nxt``, ``avail`` (not yet swapped); per group ``avail_cnt``.
    """

    def __init__(self, cur, nxt, codes, cost_cur, moved, min_cost, G):
        self.cur, self.nxt = cur, nxt
        self.gcur, self.ccur, self.mov = codes[cur], cost_cur[cur], moved[cur].copy()
        self.cnt = np.bincount(self.gcur, minlength=G).astype(float).tolist()
        self.sm = np.bincount(self.gcur, weights=self.ccur, minlength=G).tolist()
        self.movable_cnt = np.bincount(self.gcur[~self.mov], minlength=G).tolist()
        self.gnxt, self.mc_nxt = codes[nxt], min_cost[nxt]
        self.avail = np.ones(len(nxt), dtype=bool)
        self.avail_cnt = np.bincount(self.gnxt, minlength=G).tolist()

    def swap_pairs(self, V, P, p, alpha):
        """(out group o, in group u) swaps that reduce the block's distance to its bands, best first.

        Sorted by the new distance, then protected out-groups last, then by
        codes; for two groups there is at most one.
        """
        G, size, pairs = len(self.cnt), len(self.cur), []
        for o in range(G):
            if self.movable_cnt[o] == 0:
                continue
            for u in range(G):
                if u == o or self.avail_cnt[u] == 0:
                    continue
                self.cnt[o] -= 1
                self.cnt[u] += 1
                dv = violation(self.cnt, size, P, p, alpha) - V
                self.cnt[o] += 1
                self.cnt[u] -= 1
                if dv < -SLACK:
                    pairs.append((dv, int(o not in P), o, u))
        pairs.sort()
        return [(o, u) for _, _, o, u in pairs]

    def pick_z(self, o, rank_of):
        """The lowest-ranked movable member of group o (highest current cost, then initial rank), and T.

        T is the largest cost remaining in B_i without it: a candidate must
        get to T or below to belong to B_i.
        """
        elig = np.flatnonzero((self.gcur == o) & ~self.mov)
        ce = self.ccur[elig]
        tied = elig[ce == ce.max()]
        zi = int(tied[np.argmax(rank_of[self.cur[tied]])]) if len(tied) > 1 else int(tied[0])
        cz = float(self.ccur[zi])
        self.ccur[zi] = -np.inf
        T = float(self.ccur.max())
        self.ccur[zi] = cz
        return zi, cz, T

    def swap(self, zi, yi, o, u, c_new, sums_r, cnt_r):
        """Put y (position yi of B_{i+1}, new cost c_new) in z's place and z in y's."""
        y, z = int(self.nxt[yi]), int(self.cur[zi])
        self.cur[zi], self.gcur[zi], self.ccur[zi], self.mov[zi] = y, u, c_new, True
        self.nxt[yi], self.gnxt[yi], self.avail[yi] = z, o, False
        self.movable_cnt[o] -= 1
        self.avail_cnt[u] -= 1
        self.sm, self.cnt = sums_r, cnt_r
        self.sm[u] += c_new
        self.cnt[u] += 1


class _BlockPass:
    """Algorithm 2's pass over the blocks, with the state it keeps (costs, moved rows, swaps, exits)."""

    def __init__(self, setup: Setup, sizes, beta):
        self.engine, self.codes, self.rank0 = setup.engine, setup.codes, setup.rank0
        n = len(setup.rank0)
        self.rank_of = np.empty(n, dtype=np.int64)
        self.rank_of[setup.rank0] = np.arange(n)
        self.cost_cur = setup.engine.cost0.copy()
        self.moved = np.zeros(n, dtype=bool)
        self.G = len(setup.labels)
        self.P, self.p, self.alpha = setup.P.tolist(), setup.p.tolist(), setup.alpha.tolist()
        self.sizes, self.beta = sizes, beta
        self.new_rows, self.records, self.swaps, self.exited = {}, [], [], []

    def run(self) -> np.ndarray:
        """Repair every block but the last (Alg. 2, line 2), sort each by current cost; the output order."""
        starts = np.concatenate(([0], np.cumsum(self.sizes)))
        nb, parts = len(self.sizes), []
        cur = self.rank0[starts[0]:starts[1]].copy()
        for i in range(nb):
            nxt = None
            if i < nb - 1:
                nxt = self.rank0[starts[i + 1]:starts[i + 2]].copy()
                self.repair(i, _Pair(cur, nxt, self.codes, self.cost_cur, self.moved, self.engine.min_cost, self.G))
            cur = cur[np.lexsort((self.rank_of[cur], self.cost_cur[cur]))]  # blocks sorted by current cost
            parts.append(cur)
            cur = nxt
        return np.concatenate(parts).astype(int)

    def repair(self, i: int, pair: _Pair) -> None:
        """While B_i fails Definition 3.1 (line 3), make the best admissible swap; none: exit for this block."""
        while True:
            V = violation(pair.cnt, len(pair.cur), self.P, self.p, self.alpha)
            if V <= 0:
                return
            rho_before = rho_of(pair.sm, pair.cnt)
            threshold = rho_before if self.beta is None else min(rho_before, 1 - self.beta)
            if not any(self.try_swap(i, pair, o, u, rho_before, threshold)
                       for o, u in pair.swap_pairs(V, self.P, self.p, self.alpha)):
                self.exited.append(i)
                return

    def try_swap(self, i, pair: _Pair, o, u, rho_before, threshold) -> bool:
        """Lines 4-8 for one (o, u): move z down, bring up the first y of u that can be modified into B_i.

        y' must cost at most T (it belongs to B_i) and keep the block's rho at
        or above ``threshold`` (our reading of Eq. 3; with a single group in
        B_i any swap is accepted, Theorem 3.5's trivial case).
        """
        zi, cz, T = pair.pick_z(o, self.rank_of)
        sums_r, cnt_r = list(pair.sm), list(pair.cnt)
        sums_r[o] -= cz
        cnt_r[o] -= 1
        if math.isnan(rho_before):
            iv, accept = (-np.inf, np.inf), None
        else:
            iv = rho_interval(sums_r, cnt_r, u, threshold)
            if iv is None or iv[0] > min(T, iv[1]):  # no admissible cost for y' in B_i
                return False

            def accept(c, i_, u=u, sums_r=sums_r, cnt_r=cnt_r, q=threshold):
                s2, c2 = list(sums_r), list(cnt_r)
                s2[u] += c
                c2[u] += 1
                rho = rho_of(s2, c2)
                return (not math.isnan(rho)) and rho >= q - RHO_SLACK
        cand = self.candidates(pair, u, T, iv)
        if cand.size == 0:
            return False
        hit = self.engine.find_first(pair.nxt[cand], T, strict=False, c_lo=np.full(len(cand), iv[0]),
                                     c_hi=np.full(len(cand), iv[1]), accept=accept)
        if hit is None:
            return False
        self.record_swap(i, pair, zi, int(cand[hit[0]]), o, u, hit[1], sums_r, cnt_r, rho_before)
        return True

    def candidates(self, pair: _Pair, u, T, iv) -> np.ndarray:
        """Positions in B_{i+1} of available members of u that may reach a cost in [iv[0], min(T, iv[1])]."""
        cand = np.flatnonzero((pair.gnxt == u) & pair.avail & (pair.mc_nxt <= min(T, iv[1])))
        if np.isfinite(iv[0]):  # moves only lower a cost: rows below the window cannot get into it
            cand = cand[self.cost_cur[pair.nxt[cand]] >= iv[0] - 1e-9 * (1 + abs(iv[0]))]
        return cand

    def record_swap(self, i, pair: _Pair, zi, yi, o, u, hit, sums_r, cnt_r, rho_before) -> None:
        y, z = int(pair.nxt[yi]), int(pair.cur[zi])
        x_new, c_new, cols, eff = hit
        if len(cols):
            self.new_rows[y] = x_new
            self.records.append((y, cols, eff))
        before_y = float(self.cost_cur[y])
        self.cost_cur[y] = c_new
        self.moved[y] = self.moved[z] = True
        pair.swap(zi, yi, o, u, c_new, sums_r, cnt_r)
        self.swaps.append((i, z, y, before_y, c_new, rho_before, rho_of(pair.sm, pair.cnt)))


def raguel_block(X, groups, *, coef, intercept, weights=None, steps=None, protected_group, n_blocks=None,
                 block_size=None, encoder=None, immutable=None, bounds=None, tolerance=1 / 3, max_steps=10_000,
                 beta=None, actionable=None) -> RaguelBlockResult:
    """RAGUEL-Block (Algorithm 2): fair representation and recourse fairness block by block.

    Reading implemented:

    1. Rank rows by closed-form recourse cost (ties by row position) and cut
       the ranking into consecutive blocks: ``block_size`` rows each (the last
       block takes the remainder), or ``n_blocks`` blocks as equal as they can
       be (sizes differ by at most one, the larger first, as
       ``np.array_split``). Give exactly one of the two.
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

    *Advice.* Modifications follow the same rules as :func:`raguel`'s (result
    ``advice``, per row ``actionable``; ``cost_basis`` is always the relaxed
    closed form).

    Records move at most once, by one block: a row moved down is not moved
    again, and candidates come only from the next block. Blocks are kept
    sorted by current cost (ties by initial rank). Each swap costs O(b) for a
    block of b rows, so the whole pass is O(n b).

    Parameters
    ----------
    X, groups, coef, intercept, weights, steps, protected_group, encoder, immutable, bounds, tolerance, max_steps
        As in :func:`raguel`.
    actionable : bool, optional
        As in :func:`raguel`: with an encoder (default) every modification is
        advice a person could follow (whole levels and units, advised
        directions, within ``max_change``); ``actionable=False`` is the
        relaxation. The costs are the relaxed closed form either way.
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
    beta = check_beta(beta)
    setup = setup_rerank(X, groups, coef=coef, intercept=intercept, weights=weights, steps=steps,
                         protected_group=protected_group, immutable=immutable, bounds=bounds, tolerance=tolerance,
                         max_steps=max_steps, encoder=encoder, actionable=actionable)
    n, G = len(setup.rank0), len(setup.labels)
    sizes = _block_sizes(n, n_blocks, block_size)
    blocks = _BlockPass(setup, sizes, beta)
    order = blocks.run()
    nb = len(sizes)
    block_of_pos = np.repeat(np.arange(nb), sizes)
    share_b, rho_b = _block_stats(block_of_pos, setup.rank0, setup.codes, setup.engine.cost0, G, setup.P, nb, sizes)
    share_a, rho_a = _block_stats(block_of_pos, order, setup.codes, blocks.cost_cur, G, setup.P, nb, sizes)
    fair_b = np.all(np.abs(share_b - setup.p) <= setup.alpha + SLACK, axis=1)
    fair_a = np.all(np.abs(share_a - setup.p) <= setup.alpha + SLACK, axis=1)
    X_new, changed = modified_rows(setup.problem.A, blocks.new_rows)
    swaps = pd.DataFrame(blocks.swaps, columns=["block", "out_row", "in_row", "cost_before", "cost_after",
                                                "rho_before", "rho_after"])
    starts = np.concatenate(([0], np.cumsum(sizes)))
    return RaguelBlockResult(
        order=frozen(order), exit_at=int(starts[blocks.exited[0]]) if blocks.exited else None,
        unattainable=frozen(np.zeros(0, dtype=int)),
        **common_fields(setup, X, X_new, changed, blocks.cost_cur, blocks.records, beta, start),
        block=frozen(block_of_pos), block_sizes=frozen(sizes),
        blocks_unfair_before=int(np.count_nonzero(~fair_b)), blocks_unfair_after=int(np.count_nonzero(~fair_a)),
        block_rho_before=frozen(rho_b), block_rho_after=frozen(rho_a),
        exited_blocks=frozen(np.asarray(blocks.exited, dtype=int)), swaps=swaps,
        _share_before=frozen(share_b), _share_after=frozen(share_a), _fair_before=frozen(fair_b),
        _fair_after=frozen(fair_a),
    )

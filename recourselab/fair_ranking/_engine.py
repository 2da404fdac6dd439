"""The modification engine of RAGUEL and RAGUEL-Block: recourse costs and the cheapest readable modification.

Private. The literal version of the search (combinations in the paper's
order, one step at a time) is :func:`recourselab.fair_ranking.paper.modify`;
tests check that both give the same modification.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..counterfactuals import _linear

_COMBO_CACHE = 1 << 14  # attribute combinations kept in memory per problem
_PRUNE_CACHE_M = 20  # the pruned search keeps all combinations of up to this many attributes
_MEET_M = 26  # up to this many movable attributes a row's band is checked by meeting in the middle (2^13 sums)
_MEET_MIN_M = 10  # from this many: below, the 2^m combinations' band search costs less than the check


class Engine:
    """Rows, boundary and actionability: recourse costs and the cheapest readable modification of a row.

    Costs are those of :func:`~recourselab.counterfactuals.linear_recourse`'s
    closed form: the weighted projection onto the favourable half-space inside
    the row's actionability box, computed by the same code, so a modified
    row's cost equals ``linear_recourse`` on that row bit for bit.

    Modifiable attributes ``F`` are the usable features (not fixed, nonzero
    coefficient) that advice may move in the direction that raises the
    margin (``advice_room > 0``; all of them without ``advice_room``), sorted
    by recourse weight (ties: column order). A
    modification is a combination ``C`` of them (in the order A, B, C, AB, AC,
    BC, ABC: by size, then lexicographic in weight order) and a number of
    iterations ``n``: each attribute of ``C`` moves ``min(n, cap_j)`` steps in
    the direction of ``sign(a_j)``, where ``cap_j`` is how many steps fit
    inside its box and within ``advice_room`` (at most ``max_steps``; 0 where
    the actionability model forbids that direction), and with ``advice_room``
    short of the first level its spec never advises (:meth:`_never_caps`).

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
    prune = True  # leave out combinations that overshoot a cost window (tests turn it off to compare)

    def __init__(self, problem, steps, max_steps, advice_room=None):
        self.problem = problem
        self.slack = problem.slack  # counterfactuals aim this far inside the favourable side
        A, coef, w = problem.A, problem.coef, problem.weights
        self.A, self.coef, self.b, self.columns = A, coef, problem.intercept, problem.columns
        U = np.flatnonzero(problem.usable)  # column order: the order every projection uses
        if U.size == 0:
            raise ValueError(
                "no mutable feature has a nonzero coefficient, so no modification can change a recourse cost; "
                "check coef, immutable and the encoder's actionability."
            )
        self.U = U
        self.proj_rate = coef[U] ** 2 / w[U]
        self.max_steps = max_steps
        self.margin0 = _linear.margin(A, coef, self.b)
        self.room0 = problem.box.room(A, coef)[:, U]
        self.cost0 = self._costs(self.margin0, self.room0)
        self._attributes(steps, advice_room)
        self._cached = None
        if (1 << self.m) - 1 <= _COMBO_CACHE:
            self._cached = list(self._chunks())
        # features that can still move the margin at the start; their rates bound every later cost from below
        self._sqrt_rate_pos = np.sqrt((self.room0 > 0) @ self.proj_rate)
        self._rate_all = float(self.proj_rate.sum())
        self._plain_copies()
        self._lam0 = _linear.breakpoints(self.room0, coef[U], w[U])
        # breakpoint lost per step of each attribute, in U order (the projection's columns)
        self._lam_per_step = np.zeros(len(U))
        self._lam_per_step[self.pos_in_U] = self.step * w[self.F] / np.abs(coef[self.F])
        self._precompute(advice_room)

    def _attributes(self, steps, advice_room) -> None:
        """The modifiable attributes F in the paper's order, their steps and the margin each step gains."""
        U, coef, w = self.U, self.coef, self.problem.weights
        movable = U if advice_room is None else U[advice_room[U] > 0]
        self.F = movable[np.lexsort((movable, w[movable]))]  # ascending recourse weight, ties by column order
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

    def _plain_copies(self) -> None:
        """Plain-Python copies of the box and the rates for :meth:`cost_of` (one row at a time)."""
        box, coef, w, U = self.problem.box, self.coef, self.problem.weights, self.U
        self.nz = [int(j) for j in np.flatnonzero(coef)]
        self.coef_list = [float(coef[j]) for j in self.nz]
        factor = w[U] / np.abs(coef[U])
        self._box_rows = [(int(j), bool(box.fixed[j] or box.rises_only[j]), bool(box.fixed[j] or box.falls_only[j]),
                           float(box.lower0[j]), float(box.upper0[j]), float(f), float(abs(coef[j])))
                          for j, f in zip(U, factor, strict=True)]
        self._up = {int(j): bool(coef[j] > 0) for j in U}
        self._rate_py = [float(r) for r in self.proj_rate]

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

    def _precompute(self, advice_room) -> None:
        """Caps of every row (int32) and the lowest cost any modification reaches (a lenient prefilter)."""
        room_F = self.room0[:, self.pos_in_U]
        with np.errstate(invalid="ignore", over="ignore"):
            cap = np.floor(room_F / self.step + _linear.SLACK)
            if advice_room is not None:  # the plausible change advice may ask for, in whole steps
                cap = np.minimum(cap, np.floor(advice_room[self.F] / self.step + _linear.SLACK))
                cap = np.minimum(cap, self._never_caps())
        cap = np.where(np.isnan(cap), self.max_steps, cap)
        self._caps = np.clip(cap, 0, self.max_steps).astype(np.int32)
        # every attribute moved as far as allowed: no modification reaches a lower cost
        moved = self._caps * self.step
        s = self.margin0 + self._caps @ self.rate
        room = self.room0.copy()
        room[:, self.pos_in_U] = np.maximum(room[:, self.pos_in_U] - moved, 0.0)
        self.min_cost = self._costs(s, room) * (1 - self._TOL) - 1e-12  # lenient: exact checks decide

    def _never_caps(self) -> np.ndarray:
        """Per row and attribute, the steps before the first level its spec never advises (inf where none).

        An attribute moves one step at a time, so a level in ``never_advise_levels`` stops it on the level
        before (the modification does not jump over it); the row's own level never stops it.
        """
        encoder = self.problem.encoder
        out = np.full((len(self.A), self.m), np.inf)
        for i, j in enumerate(self.F):
            spec = encoder.spec_of_column(int(j))
            if spec.kind != "ordinal" or not spec.never_advise_levels:
                continue
            levels = encoder.levels_[spec.name]
            per_level = 1.0 / max(len(levels) - 1, 1)
            own = np.round(self.A[:, j] / per_level)
            stride = round(self.step[i] / per_level)  # a step is a whole number of levels
            for level in spec.never_advise_levels:
                gap = (levels.index(level) - own) * self.sign[i]
                hits = (gap > 0) & (np.mod(gap, stride) == 0)
                out[:, i] = np.where(hits, np.minimum(out[:, i], gap // stride - 1), out[:, i])
        return out

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
        if m == 0:  # nothing advice may move: no modification
            return
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

    def _closed_form_search(self, rows, K, top_ok):
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
                    n, sure, cost, hopeless = self._closed_form_search(rows[block], K, hi_ok[block])
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
        chunks, lattice = self._chunks(), None
        if self.prune and np.isfinite(c_lo):
            keep = self._not_overshooting(row, caps, c_lo, ok)
            if not (caps[keep] >= 1).any():  # every combination that moves at all overshoots the window
                return None
            if self.m <= _PRUNE_CACHE_M:
                chunks = self._chunk_list()
                if keep.size < self.m:  # the combinations of the kept attributes, in the same order
                    dropped = np.setdiff1d(np.arange(self.m), keep)
                    chunks = (K[~K[:, dropped].any(axis=1)] for K in chunks)
            elif keep.size < self.m:
                chunks = self._sub_chunks(keep)
            lattice = self._lattice_band(top, c_lo, ok)
            if lattice is not None and not self._band_reachable(row, caps, *lattice):
                return None  # no combination lands in the band at any n: every one would be dropped below
        for K in chunks:
            nmax = np.where(K, caps[None, :], 0.0).max(axis=1)
            live = nmax >= 1
            if lattice is not None:
                live &= self._lands_in_band(row, K, nmax, caps, *lattice)
            if not live.any():
                continue
            Kl, nmax = K[live], nmax[live]
            # smallest n in [1, nmax] with cost(n) <= top (leniently), for all combinations at once: in closed
            # form where the box does not bind; otherwise a search from the closed form's lower bound
            searched = self._closed_form_search(np.array([row]), Kl, np.array([hi_ok]))
            first, sure, c_sure, hopeless = (a[0] for a in searched)
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

    def _not_overshooting(self, row, caps, c_lo, ok) -> np.ndarray:
        """Attributes (F positions) whose single step does not already overshoot the cost window from below.

        *Why the others can be left out.* One step of attribute ``j`` alone
        brings the row to cost ``c_j``. Any combination containing ``j``, after
        any ``n >= 1`` iterations, moves ``j`` at least that step and other
        attributes in directions that never raise the cost (see the class
        docstring), so its cost is at most ``c_j``. When ``c_j < c_lo`` and the
        condition rejects ``c_j`` (with a margin for rounding), it rejects every
        lower cost too: ``accept`` describes rho >= q, and below the window rho
        only falls as the cost falls. So no combination containing ``j``
        qualifies, at any n: the search drops them all and keeps the paper's
        order among the rest. Attributes that cannot move (cap 0) are kept.
        """
        movable = np.flatnonzero(caps >= 1)
        single = np.zeros((movable.size, self.m), dtype=bool)
        single[np.arange(movable.size), movable] = True
        # one step of each attribute alone, all at once (the vectorised cost agrees with the exact one far inside
        # the allowance below)
        c = self._approx_costs(row, single, np.ones(movable.size), caps)
        c_up = c + self._TOL * (1.0 + np.abs(c))  # at least the cost of any combination containing j
        drop = {int(j) for j, cu in zip(movable, c_up, strict=True) if cu < c_lo and not ok(float(cu))}
        return np.asarray([j for j in range(self.m) if j not in drop], dtype=int)

    def _lattice_band(self, top, c_lo, ok):
        """Margins ``[A, B)`` outside which a modified row cannot qualify, or None when the bound does not apply.

        Every cost is at least ``-s / sqrt(R)`` (``s`` the margin, ``R`` the
        projection rate of all usable features: the box only adds cost), and
        a row with ``s >= 0`` costs 0. So with ``h`` just above the window's top,
        a margin below ``A`` costs more than ``h`` and one at or above ``B``
        costs 0; when the condition rejects both 0 and ``h`` (and, being
        rho >= q, every cost above ``h``: below ``T`` rho only falls as the cost
        rises past the window), only margins in ``[A, B)`` can qualify.
        """
        h = top * (1 + 1e-7) + 1e-12
        if not c_lo > 0 or ok(0.0) or ok(h):
            return None
        return -h * (1 + 1e-9) * math.sqrt(self._rate_all), 0.0

    def _band_reachable(self, row, caps, A, B) -> bool:
        """Whether some combination, after some number of iterations, has its margin in ``[A, B)``.

        *Why this is enough to skip the row.* A combination's margin rises with the
        iterations, so it lands in the band at the first iteration that reaches ``A``
        (what :meth:`_lands_in_band` asks) exactly when some iteration's margin is in
        the band. After ``n`` iterations the margin is ``s0`` plus a subset sum of
        ``v_j(n) = rate_j * min(n, cap_j)``; for each ``n`` the sums of the two halves of
        the attributes are met in the middle (sorted, then one search per sum), so the
        question costs about ``n_max * 2^(m/2)`` operations, not ``2^m`` per
        combination. The band is widened by more than :meth:`_lands_in_band`'s own
        allowance for rounding, so a combination that method keeps is never missed.
        Too few attributes (under ``_MEET_MIN_M``, where searching the combinations costs
        less) or too many (over ``_MEET_M``): answered True (no pruning).
        """
        move = np.flatnonzero(caps >= 1)
        if move.size == 0:
            return False
        if not _MEET_MIN_M <= move.size <= _MEET_M:
            return True   # few attributes: the combinations' own band search is cheaper than this question
        s0 = float(self.margin0[row])
        tol = 1e-9 * (1.0 + abs(s0) + float(np.abs(self.coef) @ np.abs(self.A[row])) + float(caps @ self.rate))
        lo, hi = A - 2 * tol - s0, B + 2 * tol - s0
        n = np.arange(1, int(caps[move].max()) + 1, dtype=float)
        v = self.rate[move][None, :] * np.minimum(n[:, None], caps[move][None, :])  # (iterations, attributes)
        half = move.size // 2

        def subset_sums(cols):  # every subset's sum per iteration, the empty subset first
            sums = np.zeros((len(n), 1))
            for c in cols:
                sums = np.concatenate([sums, sums + v[:, [c]]], axis=1)
            return sums

        left, right = subset_sums(range(half)), subset_sums(range(half, move.size))
        right_sorted = np.sort(right, axis=1)
        right_nonempty = np.sort(right[:, 1:], axis=1) if right.shape[1] > 1 else right[:, :0]
        for i in range(len(n)):
            # a nonempty left subset with any right one; or the empty left one with a nonempty right one
            for lefts, rights in ((left[i, 1:], right_sorted[i]), (left[i, :1], right_nonempty[i])):
                if lefts.size == 0 or rights.size == 0:
                    continue
                first = np.searchsorted(rights, lo - lefts, side="left")   # smallest right >= lo - left
                if (first < rights.size).any() and (rights[np.minimum(first, rights.size - 1)] < hi - lefts)[
                        first < rights.size].any():
                    return True
        return False

    def _lands_in_band(self, row, K, nmax, caps, A, B):
        """Combinations of ``K`` whose margin, at the first iteration that reaches ``A``, is below ``B``.

        The margin grows with the iterations, so a combination that never
        reaches ``A`` never qualifies (cost above the window at every n), and
        one whose first margin at or above ``A`` is already ``>= B`` jumps from
        above the window to cost 0 (and stays there). Smallest n from the
        linear bound, else by bisection, vectorised over the combinations.
        """
        s0 = float(self.margin0[row])
        # the exact margin of a modified row is summed another way: allow for its rounding
        tol = 1e-9 * (1.0 + abs(s0) + float(np.abs(self.coef) @ np.abs(self.A[row])) + float(caps @ self.rate))
        A, B = A - tol, B + tol
        # the usual case first: one iteration already takes the margin to B or beyond (from above the window to 0)
        out = np.zeros(len(K), dtype=bool)
        todo = np.flatnonzero(s0 + K @ (self.rate * (caps >= 1)) < B)
        if todo.size:
            out[todo] = self._band_search(K[todo], nmax[todo], caps, s0, A, B)
        return out

    def _band_search(self, K, nmax, caps, s0, A, B):
        """:meth:`_lands_in_band` for combinations whose first iteration leaves the margin below B."""
        capK = np.where(K, caps[None, :], 0.0)

        def margin(n, idx):
            return s0 + np.minimum(n[:, None], capK[idx]) @ self.rate

        every = np.arange(len(K))
        hi = np.maximum(nmax, 1.0)
        reach = margin(hi, every) >= A
        # the margin grows at most by the combination's full gain per iteration: n1 below is a lower bound on the
        # answer, and the answer itself when the margin at n1 reaches A (the usual case: no attribute capped yet)
        gain = K @ self.rate
        with np.errstate(divide="ignore", invalid="ignore"):
            n1 = np.clip(np.ceil((A - s0) / gain), 1.0, hi)
        n1 = np.where(np.isfinite(n1), n1, 1.0)
        s_n1 = margin(n1, every)
        at_n1 = (s_n1 >= A) & (margin(n1 - 1, every) < A)  # checked: the division rounds
        hi = np.where(reach & at_n1, n1, hi)
        lo = np.where(at_n1, n1 - 1, np.where(s_n1 < A, n1, 0.0))  # s(lo) < A (or lo = 0); s(hi) >= A where reach
        s_hi = np.where(at_n1, s_n1, np.nan)
        open_ = np.flatnonzero(reach & ~at_n1 & (hi - lo > 1))
        while open_.size:
            mid = np.floor((lo[open_] + hi[open_]) / 2)
            up = margin(mid, open_) >= A
            hi[open_] = np.where(up, mid, hi[open_])
            lo[open_] = np.where(up, lo[open_], mid)
            open_ = open_[hi[open_] - lo[open_] > 1]
        rest = np.flatnonzero(reach & ~at_n1)
        s_hi[rest] = margin(hi[rest], rest)
        return reach & (s_hi < B)

    def _chunk_list(self):
        """All combination chunks, kept after the first call (the pruned search visits them for many rows)."""
        if self._cached is not None:
            return self._cached
        if getattr(self, "_all_chunks", None) is None:
            self._all_chunks = list(self._chunks())
        return self._all_chunks

    def _sub_chunks(self, keep):
        """Combinations of the attributes ``keep`` only, in the paper's order (a subsequence of :meth:`_chunks`)."""
        m, keep = self.m, [int(j) for j in keep]
        it = itertools.chain.from_iterable(itertools.combinations(keep, size) for size in range(1, len(keep) + 1))
        while True:
            block = list(itertools.islice(it, 4096))
            if not block:
                return
            K = np.zeros((len(block), m), dtype=bool)
            for i, c in enumerate(block):
                K[i, list(c)] = True
            yield K

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


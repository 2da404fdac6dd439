"""RAGUEL (Algorithm 1 of :cite:t:`haldar2022raguel`): re-rank by recourse cost so that every prefix is fair.

The literal algorithm, for reading, is :func:`recourselab.fair_ranking.paper.raguel`;
this engine gives the same result (tested) with an indexed, vectorised search.
"""

from __future__ import annotations

import time

import numpy as np

from ._common import PrefixState, check_beta, frozen, rho_interval
from ._problem import Setup, common_fields, modified_rows, setup_rerank
from .results import RaguelResult

__all__ = ["raguel"]


class _Walk(PrefixState):
    """Algorithm 1's walk down the initial ranking, with the state it keeps.

    ``rank0`` is the initial ranking (row positions); position ``head`` is
    the best row not yet placed; ``alive`` marks the rank positions not yet
    placed. Each step either appends the row at ``head`` (lines 4-5, or an
    unattainable prefix) or :meth:`search`-es below it for a row of a group
    that makes the prefix fair and that can be modified to outrank it
    (lines 6-11), or exits (copies the rest).
    """

    def __init__(self, setup: Setup, beta):
        super().__init__(len(setup.labels), setup.P, setup.p, setup.alpha)
        self.engine, self.rank0 = setup.engine, setup.rank0
        self.gr = setup.codes[setup.rank0]  # group of every rank position
        self.minc = setup.engine.min_cost[setup.rank0]  # the lowest cost a modification can reach, by position
        self.cost_cur = setup.engine.cost0.copy()
        self.alive = np.ones(len(setup.rank0), dtype=bool)
        self.q = None if beta is None else 1 - beta
        self.records, self.new_rows, self.unattainable = [], {}, []
        self.exit_at = None

    def run(self) -> None:
        n, head = len(self.rank0), 0
        while head < n:
            if not self.alive[head]:
                head += 1
                continue
            x, gx, k = int(self.rank0[head]), int(self.gr[head]), len(self.out) + 1
            fair = k == 1 or self.fair_with(gx, k)
            fix = [] if fair else self.fixes(gx, k)
            if fair or not fix:  # Alg. 1, lines 4-5; or no group could make the prefix fair (unattainable)
                if not fair:
                    self.unattainable.append(k - 1)
                self.place(head)
                head += 1
                continue
            found = self.search(head, float(self.cost_cur[x]), fix)  # lines 6-9
            if found is None:  # the exit strategy: copy the rest of the ranking as it is
                self.exit_at = len(self.out)
                self.out.extend(self.rank0[head:][self.alive[head:]].tolist())
                return
            self.place(*found)  # line 10: y' takes the place, x stays first in line

    def place(self, r: int, hit=None) -> None:
        """Append the row at rank position r, modified by ``hit = (x_new, cost, columns, steps)`` if given."""
        y = int(self.rank0[r])
        self.alive[r] = False
        if hit is not None and len(hit[2]):
            x_new, c_new, cols, eff = hit
            self.new_rows[y] = x_new
            self.cost_cur[y] = c_new
            self.records.append((y, cols, eff))
        self.append(y, int(self.gr[r]), self.cost_cur[y])

    def search(self, head: int, T: float, fix: list[int]):
        """The first row below ``head`` of a group in ``fix`` that can be modified to cost < T: (position, hit).

        Rows are scanned in rank order, in chunks that double in size (most
        searches end near the top). With beta, the new cost must also keep
        the prefix's rho >= 1 - beta (Alg. 1, line 9, "until Definition 3.4").
        """
        n = len(self.rank0)
        wanted = np.zeros(len(self.cnt), dtype=bool)
        wanted[fix] = True
        pos, chunk = head + 1, 256
        while pos < n:
            end = min(n, pos + chunk)
            segment = slice(pos, end)
            cand = np.flatnonzero(self.alive[segment] & wanted[self.gr[segment]] & (self.minc[segment] < T)) + pos
            found = self._first_modifiable(cand, T)
            if found is not None:
                return found
            pos, chunk = end, chunk * 2
        return None

    def _first_modifiable(self, cand: np.ndarray, T: float):
        """The first of the rank positions ``cand`` whose row can be modified to qualify: (position, hit)."""
        if self.q is None:
            hit = self.engine.find_first(self.rank0[cand], T, strict=True)
        else:
            cand, lo, hi = self._beta_window(cand, T)
            gr, q = self.gr, self.q

            def accept(c, i, cand=cand):
                return self.keeps_rho(int(gr[cand[i]]), c, q)

            hit = self.engine.find_first(self.rank0[cand], T, strict=True, c_lo=lo, c_hi=hi, accept=accept)
        return None if hit is None else (int(cand[hit[0]]), hit[1])

    def _beta_window(self, cand: np.ndarray, T: float):
        """The candidates whose group admits a new cost below T keeping rho >= q, and that cost window [lo, hi]."""
        lo, hi = np.full(len(cand), -np.inf), np.full(len(cand), np.inf)
        usable = np.ones(len(cand), dtype=bool)
        for gy in np.unique(self.gr[cand]).tolist():
            iv = rho_interval(self.csum, self.cnt, gy, self.q)
            sel = self.gr[cand] == gy
            if iv is None or iv[0] > iv[1] or iv[0] >= T:  # no admissible new cost in [lo, hi] below T
                usable[sel] = False
            else:
                lo[sel], hi[sel] = iv
        # moves only lower a cost: rows already below the window cannot get into it
        usable &= self.cost_cur[self.rank0[cand]] >= lo - 1e-9 * (1 + np.abs(lo))
        return cand[usable], lo[usable], hi[usable]


def raguel(X, groups, *, coef, intercept, weights=None, steps=None, protected_group, encoder=None, immutable=None,
           bounds=None, tolerance=1 / 3, beta=None, max_steps=10_000, actionable=None) -> RaguelResult:
    """RAGUEL (Algorithm 1): re-rank by recourse cost so that every prefix is fair, by modifying records.

    Reading implemented:

    1. Rank rows by their closed-form recourse cost (the relaxed
       :func:`~recourselab.counterfactuals.linear_recourse`, see ``cost_basis``
       of the result), ascending, ties by row position.
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
       coefficient, and with ``actionable`` only those advice may move that
       way) in ascending recourse weight (ties: column order), one at a time,
       then pairs, triples, ... (A, B, C, AB, AC, BC, ABC); each attribute of
       the combination moves one step per iteration in the direction that
       raises :math:`a^\\top x + b` (the sign of :math:`a_j`), staying within
       ``bounds`` and the actionability box (and with ``actionable`` within
       its spec's ``max_change``; an attribute at its limit stays there while
       the others go on) for at most ``max_steps`` iterations, and stepping
       stops once the row reaches the favourable side. The first combination
       that reaches the goal is applied, with the fewest iterations. The
       number of iterations is computed in closed form (the margin grows
       piecewise linearly with them) and checked exactly, which gives the
       same answer as stepping one at a time
       (:func:`recourselab.fair_ranking.paper.modify`).
    5. **Exit strategy**: if some group would make the prefix fair but no row
       of it can be modified enough, append the rest of the ranking as is
       (``exit_at``) and stop.

    *Refinement (documented choice).* When no group at all could make
    :math:`S + [\\cdot]` fair — e.g. with :math:`p = 0.3` and :math:`t = 1/3`
    no prefix of length 2 is fair, since its share is 0, 1/2 or 1 — no
    record can help, so :math:`x` is appended as is and the position is
    listed in ``unattainable`` instead of ending the re-ranking.

    *More than two groups.* ``protected_group`` may list several labels; a prefix
    is fair when each listed label's share is within its own band
    :math:`p_g(1 \\pm t)` (the paper's Section 3.6), and :math:`\\rho` is
    min over max of all groups' means (Eq. 4).

    *Advice.* With an encoder the modifications are actionable by default:
    whole levels of ordinal and binary features and whole units of features
    stored as integers, only in the direction the spec lets advice move a
    feature, never a feature advice may not move (``advise="never"``),
    within each spec's ``max_change``, and never into a level the spec never
    advises (``never_advise_levels``: an ordinal attribute stops on the level
    before one, as it moves a step at a time); every modification is re-checked with
    :meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`
    (result ``advice``, per row ``actionable``). ``actionable=False`` lets
    modifications go wherever the actionability box allows (a relaxation).
    The costs that rank the rows and define rho are the relaxed closed form
    either way (``cost_basis``).

    Parameters
    ----------
    X : array or DataFrame of shape (n, d)
        The records (all of them: shares ``p`` are computed on ``groups``);
        with ``encoder``, encoded rows (``encoder.transform(frame)``).
    groups : array of labels, shape (n,)
        A Series paired with a DataFrame ``X`` must share its index.
    coef, intercept : linear classifier, favourable when ``coef @ x + intercept >= 0``
    weights : recourse weights, optional
        > 0 on mutable features; default: the specs' weights with an encoder, else 1.
    steps : float, array or dict, optional
        Step size of every modifiable attribute (> 0). Required without an
        encoder; with one, the default is one level for ordinal and binary
        features (a given step must be a whole number of levels) and 1% of the
        range for continuous ones (a whole number of units, at least one, for
        integer-valued features, which actionable advice requires).
    protected_group : label or list of labels
    encoder : Encoder, optional
        The fitted encoder of ``X``: the actionability model of every cost and
        modification, and the advice policy of actionable modifications.
    immutable : columns that cannot change, optional
    bounds : (lower, upper) or dict {feature: (lower, upper)}, optional
    tolerance : float in (0, 1], default 1/3
    beta : float in [0, 1], optional
        Also require :math:`\\rho \\ge 1 - \\beta` of the prefix when a row is modified.
    max_steps : int, default 10000
        Largest number of iterations per attribute combination.
    actionable : bool, optional
        Default: True with an encoder, False without one (True needs it).

    Returns
    -------
    RaguelResult
        The output order is the order of construction: a modified row's new
        cost is below the row it overtook, and costs after modification are
        the closed form on the modified rows.

    Examples
    --------
    The paper's Example 1 (Table 2): Chiara lowers her loan amount from 4 to
    3.45 (cost 1.33 -> 0.97) and moves up to rank 2. Without an encoder there
    is no advice policy to check the move against, so it is labelled a
    relaxation (the steps of $50 are the paper's).

    >>> import numpy as np
    >>> X = np.array([[3.5, 6], [2, 1], [4, 4], [5, 4]])
    >>> res = raguel(X, ["M", "M", "F", "F"], coef=[-2, 1], intercept=0, weights=[0.5, 1.0],
    ...              steps=[0.05, 1], protected_group="F", tolerance=1 / 2)
    >>> res.order.tolist(), round(float(res.X_new[2, 0]), 2), round(float(res.cost_new[2]), 2), res.advice
    ([0, 2, 1, 3], 3.45, 0.97, 'relaxation')
    """
    start = time.perf_counter()
    beta = check_beta(beta)
    setup = setup_rerank(X, groups, coef=coef, intercept=intercept, weights=weights, steps=steps,
                         protected_group=protected_group, immutable=immutable, bounds=bounds, tolerance=tolerance,
                         max_steps=max_steps, encoder=encoder, actionable=actionable)
    walk = _Walk(setup, beta)
    walk.run()
    X_new, changed = modified_rows(setup.problem.A, walk.new_rows)
    return RaguelResult(order=frozen(np.asarray(walk.out, dtype=int)), exit_at=walk.exit_at,
                        unattainable=frozen(np.asarray(walk.unattainable, dtype=int)),
                        **common_fields(setup, X, X_new, changed, walk.cost_cur, walk.records, beta, start))

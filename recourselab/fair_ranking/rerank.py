"""Re-ranking from given per-row costs: RAGUEL's walk, with promotion instead of modification."""

from __future__ import annotations

import numpy as np

from ._common import PrefixState, check_beta, check_tolerance, costs_and_groups, frozen, protected_codes, rho_interval
from .results import CostRerankResult

__all__ = ["rerank_by_cost"]


class _PromotionWalk(PrefixState):
    """Algorithm 1's walk over given costs: where a prefix needs another group, promote its next member."""

    def __init__(self, c, codes, P, p, alpha, beta):
        super().__init__(int(codes.max()) + 1, P, p, alpha)
        n = c.size
        self.c, self.codes = c, codes
        self.rank0 = np.lexsort((np.arange(n), c))
        self.c_sorted = c[self.rank0]
        gr = codes[self.rank0]
        self.members = [self.rank0[gr == g] for g in range(len(self.cnt))]  # each group's rows in rank order
        self.pointer = np.zeros(len(self.cnt), dtype=int)
        self.alive = np.ones(n, dtype=bool)  # by row
        self.q = None if beta is None else 1 - beta
        self.promoted, self.gap = np.zeros(n, dtype=bool), np.zeros(n)
        self.unattainable, self.exit_at = [], None

    def run(self) -> None:
        head, n = 0, self.c.size
        while head < n:
            x = int(self.rank0[head])
            if not self.alive[x]:
                head += 1
                continue
            gx, k = int(self.codes[x]), len(self.out) + 1
            fair = k == 1 or self.fair_with(gx, k)
            fix = [] if fair else self.fixes(gx, k)
            if fair or not fix:
                if not fair:
                    self.unattainable.append(k - 1)
                self.take(x)
                head += 1
                continue
            y = self.next_needed(fix)
            if y is None:  # the exit strategy
                self.exit_at = len(self.out)
                rest = self.rank0[head:]
                self.out.extend(int(r) for r in rest[self.alive[rest]])
                return
            self.promoted[y] = True
            self.gap[y] = max(self.c[y] - self.c[x], 0.0)
            self.take(y)

    def take(self, row: int) -> None:
        self.alive[row] = False
        self.append(row, int(self.codes[row]), self.c[row])

    def next_needed(self, fix: list[int]):
        """The best-ranked remaining row of a group in ``fix`` (with beta: whose cost keeps rho >= 1 - beta)."""
        best = None  # (rank position, row)
        for g in fix:
            y = self._first_of(g)
            if y is None:
                continue
            position = int(np.searchsorted(self.c_sorted, self.c[y], side="left"))
            while int(self.rank0[position]) != y:  # ties: rank0 orders them by row position
                position += 1
            if best is None or position < best[0]:
                best = (position, y)
        return None if best is None else best[1]

    def _first_of(self, g: int):
        """Group g's best-ranked remaining row (with beta: inside the cost window that keeps rho >= q)."""
        members = self.members[g]
        while self.pointer[g] < len(members) and not self.alive[members[self.pointer[g]]]:
            self.pointer[g] += 1
        if self.q is None:
            return int(members[self.pointer[g]]) if self.pointer[g] < len(members) else None
        rows = members[self.pointer[g]:]
        rows = rows[self.alive[rows]]
        if not len(rows):
            return None
        iv = rho_interval(self.csum, self.cnt, g, self.q)
        if iv is None:
            return None
        c = self.c
        rows = rows[(c[rows] >= iv[0] - 1e-9 * (1 + abs(iv[0]))) & (c[rows] <= iv[1])]
        return int(rows[0]) if len(rows) else None


def rerank_by_cost(costs, groups, *, protected_group, tolerance=1 / 3, beta=None) -> CostRerankResult:
    """Recourse-aware ranking from any per-row recourse cost: RAGUEL's walk, with promotion instead of modification.

    RAGUEL (:func:`raguel`) needs a linear classifier twice: for the closed-form
    cost of every row, and for the **modification** that lowers an
    under-represented record's cost just enough to outrank the record ahead
    of it. With any other model (a tree ensemble behind
    :class:`~recourselab.adapters.EncodedModel`) a per-row cost is still
    available, e.g. the cost of the nearest feasible counterfactual
    (:func:`~recourselab.counterfactuals.nearest_counterfactuals`), but a
    modification that reaches a chosen lower cost is not: the cost of a moved
    record would have to be searched again for every trial step. This
    function keeps what carries over:

    1. rank rows by the given cost, ascending, ties by row position;
    2. build the output one position at a time exactly as :func:`raguel`
       does (Definition 3.1 on each prefix, the same refinement for
       unattainable prefixes, the same exit strategy);
    3. where a prefix needs a record of another group, **promote** the first
       remaining record of a group that makes it fair (with ``beta``: the first
       whose own cost also keeps the prefix's :math:`\\rho \\ge 1 - \\beta`),
       with its cost unchanged, and record its ``gap``: its cost minus the
       cost of the record it overtakes, the reduction RAGUEL would have
       obtained by changing its features.

    The ranking is as actionable as the costs it is given: this function
    computes no move and checks none. Costs of actionable counterfactuals
    (e.g. :func:`~recourselab.counterfactuals.nearest_counterfactuals`, whose
    targets are actionable by default) rank applicants by what advice costs;
    relaxed costs (a continuous projection) rank them by a burden measure,
    and a page that shows such a ranking says so.

    Without modifications no cost changes, so the population's recourse
    fairness ratio :math:`\\rho` is the same before and after; only the
    prefixes' representation and their :math:`\\rho` change. The gaps say
    what a lender would have to make cheaper (by advice, a subsidy or a
    changed model) for the fair ranking to also be a ranking by cost.

    Parameters
    ----------
    costs : array of float >= 0, shape (n,)
        One finite recourse cost per row (0 for rows already favoured); rows
        without recourse (inf) have no place in a ranking by cost: drop them
        or give them a cost.
    groups : array of labels, shape (n,)
    protected_group : label or list of labels
    tolerance : float in (0, 1], default 1/3
        Fair representation band :math:`p(1 \\pm t)` around each protected
        label's population share.
    beta : float in [0, 1], optional
        Also require :math:`\\rho \\ge 1 - \\beta` of the prefix when a row is promoted.

    Returns
    -------
    CostRerankResult

    Examples
    --------
    Three men with low costs, then two women; women are 40% of the records,
    so with t = 1/2 every prefix needs a share between 20% and 60%; the first woman
    overtakes a man whose cost is 0.3 lower:

    >>> res = rerank_by_cost([0.1, 0.2, 0.3, 0.5, 0.9], ["M", "M", "M", "F", "F"], protected_group="F",
    ...                      tolerance=1 / 2)
    >>> res.order.tolist(), res.gap.round(2).tolist()
    ([0, 3, 1, 2, 4], [0.0, 0.0, 0.0, 0.3, 0.0])
    """
    t = check_tolerance(tolerance)
    beta = check_beta(beta)
    c, codes, labels = costs_and_groups(costs, groups)
    P = protected_codes(protected_group, labels)
    p = np.array([np.mean(codes == g) for g in P])
    walk = _PromotionWalk(c, codes, P, p, p * t, beta)
    walk.run()
    return CostRerankResult(
        order=frozen(np.asarray(walk.out, dtype=int)), cost=frozen(c), promoted=frozen(walk.promoted),
        gap=frozen(walk.gap), exit_at=walk.exit_at, unattainable=frozen(np.asarray(walk.unattainable, dtype=int)),
        groups=frozen(np.asarray(labels, dtype=object)[codes]), protected_group=tuple(labels[i] for i in P),
        p={labels[i]: float(v) for i, v in zip(P, p, strict=True)}, tolerance=t, beta=beta)

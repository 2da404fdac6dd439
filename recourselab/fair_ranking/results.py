"""The results of the re-rankings: :class:`RaguelResult`, :class:`RaguelBlockResult` and :class:`CostRerankResult`."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .fairness import ranked_fair_representation, ranked_recourse_fairness, recourse_fairness_ratio

__all__ = ["RaguelResult", "RaguelBlockResult", "CostRerankResult"]


@dataclass(frozen=True, eq=False)
class RaguelResult:
    """A recourse-aware re-ranking and the interventions that produce it.

    Attributes
    ----------
    order : ndarray of int, shape (n,)
        Row positions, best first.
    X_new : ndarray or DataFrame, shape (n, d)
        Rows after modification, in the original row order (float).
    cost, cost_new : ndarray, shape (n,)
        Closed-form recourse cost of every row before and after modification.
    changed : ndarray of bool, shape (n,)
        Rows that were modified.
    interventions : DataFrame
        One line per (modified row, changed feature): ``row``, ``feature``,
        ``before``, ``after``, ``steps`` (number of steps), ``cost_before``,
        ``cost_after``; with an encoder also ``value_before``,
        ``value_after`` (readable) and ``actionable``.
    exit_at : int or None
        Output position from which the exit strategy copied the rest of the
        initial ranking unchanged, or None.
    unattainable : ndarray of int
        Output positions (0-based) whose prefix no choice of group could make
        fair, where the next row was appended as is (see :func:`raguel`).
    groups : ndarray, shape (n,)
        Group label of every row (original order).
    protected_group : tuple
        Protected labels.
    p : dict
        Population share of each protected label.
    tolerance : float
    beta : float or None
    advice : str
        What the modifications are. ``"actionable"``: every modification
        passes :meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`
        (whole levels and units, only the directions advice may take, within
        each spec's ``max_change``): advice a person could follow.
        ``"relaxation"``: some modification does not (``actionable=False``
        lets RAGUEL move whatever the actionability box allows), or there is
        no encoder, hence no advice policy to check the moves against.
    actionable : pandas BooleanArray, shape (n,)
        Per row (original order), whether its modification passes
        :meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`;
        ``<NA>`` for rows not modified and without an encoder.
    cost_basis : str
        What ``cost`` and ``cost_new`` measure, and hence the ranking and
        rho: always ``"relaxation"``, the closed-form weighted projection
        onto the boundary inside the actionability box (features may stop
        between levels, move in any feasible direction and beyond any
        ``max_change``). A burden measure compared across groups, not the
        cost of advice; the modifications themselves are labelled by
        ``advice``.
    runtime : float
    """

    order: np.ndarray
    X_new: object
    cost: np.ndarray
    cost_new: np.ndarray
    changed: np.ndarray
    interventions: pd.DataFrame
    exit_at: int | None
    unattainable: np.ndarray
    groups: np.ndarray
    protected_group: tuple
    p: dict
    tolerance: float
    beta: float | None
    advice: str
    actionable: pd.arrays.BooleanArray
    cost_basis: str
    runtime: float

    @property
    def initial_order(self) -> np.ndarray:
        """The ranking by initial cost (ties by row position)."""
        return np.lexsort((np.arange(len(self.cost)), self.cost))

    @property
    def rho_before(self) -> float:
        """Recourse fairness ratio of the whole population before modification."""
        return recourse_fairness_ratio(self.cost, self.groups)

    @property
    def rho_after(self) -> float:
        """Recourse fairness ratio of the whole population after modification."""
        return recourse_fairness_ratio(self.cost_new, self.groups)

    @property
    def n_changed(self) -> int:
        return int(np.count_nonzero(self.changed))

    def to_frame(self) -> pd.DataFrame:
        """One line per output position: row, group, costs, changed, actionable, and the prefix's share, fairness
        and rho."""
        g = self.groups[self.order]
        rep = ranked_fair_representation(g, list(self.protected_group), self.tolerance,
                                         p=[self.p[k] for k in self.protected_group])
        rho = ranked_recourse_fairness(self.cost_new[self.order], g, 0.0 if self.beta is None else self.beta)
        frame = pd.DataFrame({
            "position": np.arange(len(self.order)), "row": self.order, "group": g,
            "cost": self.cost[self.order], "cost_new": self.cost_new[self.order],
            "changed": self.changed[self.order], "actionable": self.actionable[self.order],
        })
        if len(self.protected_group) == 1:
            frame["share"] = rep.value
        else:
            for i, lab in enumerate(self.protected_group):
                frame[f"share[{lab}]"] = rep.value[:, i]
        frame["fair"] = rep.per_prefix
        frame["rho"] = rho.value
        frame["copied"] = frame["position"] >= (len(self.order) if self.exit_at is None else self.exit_at)
        return frame

    def __repr__(self) -> str:
        head = self.order[:10].tolist()
        shown = str(head) if len(self.order) <= 10 else str(head)[:-1] + ", ...]"
        return (f"RaguelResult(order={shown}, changed={self.n_changed}, advice={self.advice!r}, "
                f"exit_at={self.exit_at}, rho {self.rho_before:.3f} -> {self.rho_after:.3f})")




@dataclass(frozen=True, eq=False)
class RaguelBlockResult(RaguelResult):
    """A block-based recourse-aware re-ranking (RAGUEL-Block).

    All the fields of :class:`RaguelResult` (``exit_at`` is the first output
    position of the first block copied as is, ``unattainable`` is empty), and:

    Attributes
    ----------
    block : ndarray of int, shape (n,)
        Block of every output position.
    block_sizes : ndarray of int
    blocks_unfair_before, blocks_unfair_after : int
        Blocks failing Definition 3.1 in the initial ranking and after re-ranking.
    block_rho_before, block_rho_after : ndarray of float
        rho of every block before (initial blocks, initial costs) and after
        (final blocks, new costs); NaN for a block with a single group.
    exited_blocks : ndarray of int
        Blocks whose correction stopped on the exit strategy (copied as they stood).
    swaps : DataFrame
        One line per accepted swap: ``block``, ``out_row`` (moved down to the
        next block), ``in_row`` (moved up, possibly modified), ``cost_before``
        and ``cost_after`` of ``in_row``, ``rho_before`` and ``rho_after`` of
        the block (NaN before: the block had one group). Without ``beta``,
        ``rho_after >= rho_before``; with it, ``rho_after >= min(rho_before, 1 - beta)``.
    """

    block: np.ndarray = None
    block_sizes: np.ndarray = None
    blocks_unfair_before: int = 0
    blocks_unfair_after: int = 0
    block_rho_before: np.ndarray = None
    block_rho_after: np.ndarray = None
    exited_blocks: np.ndarray = None
    swaps: pd.DataFrame = None
    _share_before: np.ndarray = None
    _share_after: np.ndarray = None
    _fair_before: np.ndarray = None
    _fair_after: np.ndarray = None

    def to_frame(self) -> pd.DataFrame:
        """One line per block: size, protected share and fairness before/after, rho before/after, swaps."""
        nb = len(self.block_sizes)
        frame = pd.DataFrame({"block": np.arange(nb), "size": self.block_sizes})
        for when, share in (("before", self._share_before), ("after", self._share_after)):
            if len(self.protected_group) == 1:
                frame[f"share_{when}"] = share[:, 0]
            else:
                for i, lab in enumerate(self.protected_group):
                    frame[f"share_{when}[{lab}]"] = share[:, i]
        frame["fair_before"] = self._fair_before
        frame["fair_after"] = self._fair_after
        frame["rho_before"] = self.block_rho_before
        frame["rho_after"] = self.block_rho_after
        frame["swaps"] = np.bincount(self.swaps["block"].to_numpy(dtype=int), minlength=nb) if len(self.swaps) else 0
        frame["exited"] = np.isin(np.arange(nb), self.exited_blocks)
        return frame

    def __repr__(self) -> str:
        return (f"RaguelBlockResult(blocks={len(self.block_sizes)}, swaps={len(self.swaps)}, changed={self.n_changed}, "
                f"advice={self.advice!r}, unfair blocks {self.blocks_unfair_before} -> {self.blocks_unfair_after}, "
                f"rho {self.rho_before:.3f} -> {self.rho_after:.3f})")




@dataclass(frozen=True, eq=False)
class CostRerankResult:
    """A fair-representation re-ranking of given per-row recourse costs (:func:`rerank_by_cost`).

    The ranking is as actionable as the costs it was given: nothing here
    computes or checks a move (pass the costs of actionable counterfactuals
    for a ranking by what advice costs, relaxed costs for a burden measure).
    No record is modified: every cost stays what was given, and a record
    moved up (``promoted``) keeps its cost, which is higher than that of the
    record it overtook. ``gap`` says by how much: the cost reduction it would
    need to earn its position on cost alone (what RAGUEL achieves by
    modifying the record, which needs a linear model).

    Attributes
    ----------
    order : ndarray of int, shape (n,)
        Row positions, best first.
    cost : ndarray, shape (n,)
        The given costs (original row order).
    promoted : ndarray of bool, shape (n,)
        Rows placed above a cheaper record to keep a prefix fair.
    gap : ndarray, shape (n,)
        For a promoted row, its cost minus the cost of the record it
        overtook (>= 0); 0 for every other row.
    exit_at : int or None
        Output position from which the rest of the cost ranking was copied
        unchanged, because no remaining record of a needed group existed (or,
        with ``beta``, none kept the prefix's rho), or None.
    unattainable : ndarray of int
        Output positions whose prefix no choice of group could make fair.
    groups : ndarray, shape (n,)
    protected_group : tuple
    p : dict
        Population share of each protected label.
    tolerance : float
    beta : float or None
    """

    order: np.ndarray
    cost: np.ndarray
    promoted: np.ndarray
    gap: np.ndarray
    exit_at: int | None
    unattainable: np.ndarray
    groups: np.ndarray
    protected_group: tuple
    p: dict
    tolerance: float
    beta: float | None

    @property
    def initial_order(self) -> np.ndarray:
        """The ranking by cost (ties by row position)."""
        return np.lexsort((np.arange(len(self.cost)), self.cost))

    @property
    def n_promoted(self) -> int:
        return int(np.count_nonzero(self.promoted))

    @property
    def rho(self) -> float:
        """Recourse fairness ratio of the whole population: a re-ranking without modifications cannot change it."""
        return recourse_fairness_ratio(self.cost, self.groups)

    def check(self, order=None) -> pd.DataFrame:
        """Fair representation and prefix rho of ``order`` (default: the re-ranking) and of the cost ranking.

        Returns
        -------
        pandas.DataFrame
            One line per ranking (``"by cost"``, ``"re-ranked"``): share of
            prefixes that represent the protected group(s) fairly, with
            ``beta`` the share of prefixes with rho >= 1 - beta, the smallest
            rho of a prefix holding two groups or more, and the population rho
            (the same on both lines).
        """
        p = [self.p[k] for k in self.protected_group]
        lines = {}
        for name, o in (("by cost", self.initial_order), ("re-ranked", self.order if order is None else order)):
            o = np.asarray(o)
            g = self.groups[o]
            rep = ranked_fair_representation(g, list(self.protected_group), self.tolerance, p=p)
            rr = ranked_recourse_fairness(self.cost[o], g, 0.0 if self.beta is None else self.beta)
            first = np.sort(pd.Series(np.arange(len(g))).groupby(pd.factorize(g)[0]).min().to_numpy())
            mixed = np.arange(len(g)) >= first[1]  # prefixes holding two groups or more (rho is defined)
            line = {"fair prefixes": float(rep.per_prefix.mean())}
            if self.beta is not None:
                line["recourse-fair prefixes"] = float(rr.per_prefix.mean())
            line["min prefix rho"] = float(rr.value[mixed].min()) if mixed.any() else math.nan
            line["population rho"] = self.rho
            lines[name] = line
        return pd.DataFrame(lines).T

    def to_frame(self) -> pd.DataFrame:
        """One line per output position: row, group, cost, promoted, gap, and the prefix's share, fairness and rho."""
        g = self.groups[self.order]
        rep = ranked_fair_representation(g, list(self.protected_group), self.tolerance,
                                         p=[self.p[k] for k in self.protected_group])
        rho = ranked_recourse_fairness(self.cost[self.order], g, 0.0 if self.beta is None else self.beta)
        frame = pd.DataFrame({"position": np.arange(len(self.order)), "row": self.order, "group": g,
                              "cost": self.cost[self.order], "promoted": self.promoted[self.order],
                              "gap": self.gap[self.order]})
        if len(self.protected_group) == 1:
            frame["share"] = rep.value
        else:
            for i, lab in enumerate(self.protected_group):
                frame[f"share[{lab}]"] = rep.value[:, i]
        frame["fair"] = rep.per_prefix
        frame["rho"] = rho.value
        return frame

    def __repr__(self) -> str:
        head = self.order[:10].tolist()
        shown = str(head) if len(self.order) <= 10 else str(head)[:-1] + ", ...]"
        return f"CostRerankResult(order={shown}, promoted={self.n_promoted}, exit_at={self.exit_at})"



"""FACE's individual counterfactuals on the feasibility graph, and whether they are advice."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse.csgraph import dijkstra

from .._validation import check_choice, check_number, check_probabilities
from ..counterfactuals.nearest import NO_COUNTERFACTUAL
from ..features import Encoder, check_encoder
from .graph import COSTS, FeasibilityGraph, node_positions

__all__ = ["FaceCounterfactuals", "face_counterfactuals"]

ADVICE = ("actionable", "relaxation")


@dataclass(frozen=True)
class FaceCounterfactuals:
    """FACE's individual counterfactuals: for each source, the cheapest admissible reachable target.

    Attributes
    ----------
    sources : ndarray of int
        The factual nodes.
    target : ndarray of int
        Chosen counterfactual node per source;
        :data:`~recourselab.counterfactuals.NO_COUNTERFACTUAL` where no target
        is reachable (a value numpy refuses as an index, so it cannot select a
        node by mistake).
    cost : ndarray of float
        Its cost (``inf`` when none).
    paths : list of ndarray
        Node sequence from source to target along the cheapest path by
        the graph's weights (empty when none).
    cost_type : str
    advice : {"actionable", "relaxation"}
        ``"actionable"``: every target found passes the encoder's advice policy
        (:meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`:
        whole levels, advised directions, plausible changes) as a move from its
        source, so the result can be shown as advice. ``"relaxation"``: the
        targets are only *feasible* (reachable through feasible steps); the
        advice policy was not imposed, and the ``actionable`` column says which
        rows happen to pass it.
    actionable : ndarray of bool or None
        Per source: is the move from the source to its target actionable
        (False where no target was found)? None when no encoder was known.

    Notes
    -----
    The advice is the end-to-end move from a source to its target (an observed
    person); the path is the route of feasible steps that reaches it.
    """

    sources: np.ndarray
    target: np.ndarray
    cost: np.ndarray
    paths: list
    cost_type: str
    advice: str = "relaxation"
    actionable: np.ndarray | None = None

    @property
    def found(self) -> np.ndarray:
        """True where the source reaches a target."""
        return self.target != NO_COUNTERFACTUAL

    def to_frame(self) -> pd.DataFrame:
        """One row per source: target (``<NA>`` when none), cost, number of steps, found, actionable.

        ``actionable`` is ``<NA>`` throughout when no encoder was known.
        """
        found = self.found
        actionable = (pd.array([pd.NA] * len(found), dtype="boolean") if self.actionable is None
                      else self.actionable)
        return pd.DataFrame({
            "source": self.sources,
            "target": pd.arrays.IntegerArray(np.where(found, self.target, 0).astype(np.int64), ~found),
            "cost": self.cost,
            "steps": [max(len(p) - 1, 0) for p in self.paths],
            "found": found,
            "actionable": actionable,
        })


def _admissible_targets(graph, targets, log_density_min, proba, min_proba) -> np.ndarray:
    """FACE's density and confidence thresholds on the candidate targets."""
    if log_density_min is not None:
        if graph.log_density is None:
            raise ValueError("log_density_min needs a graph built with weighting='kde'.")
        log_density_min = check_number(log_density_min, "log_density_min", allow_inf=True)
        targets = targets[graph.log_density[targets] >= log_density_min]
        if targets.size == 0:
            raise ValueError(f"log_density_min={log_density_min} leaves no admissible target; lower it.")
    if min_proba is not None:
        if proba is None:
            raise ValueError("min_proba needs proba, the favourable-class probability of every node.")
        min_proba = check_number(min_proba, "min_proba", minimum=0.0, maximum=1.0)
        proba = check_probabilities(proba, "proba", length=graph.n_nodes, length_of="nodes")
        targets = targets[proba[targets] >= min_proba]
        if targets.size == 0:
            raise ValueError(f"min_proba={min_proba} leaves no admissible target; lower it.")
    return targets


def _paths(graph, sources, target, cost) -> list:
    """The cheapest path (by the graph's weights; by hops for ``cost="hops"``) from each source to its target."""
    _, predecessors = dijkstra(graph.adjacency, directed=True, indices=sources, unweighted=(cost == "hops"),
                               return_predecessors=True)
    paths = []
    for row, t in enumerate(target):
        if t == NO_COUNTERFACTUAL:
            paths.append(np.array([], dtype=int))
            continue
        path = [int(t)]
        while path[-1] != sources[row]:
            path.append(int(predecessors[row, path[-1]]))
        paths.append(np.array(path[::-1]))
    return paths


def face_counterfactuals(graph: FeasibilityGraph, sources, targets, *, cost: str = "path",
                         log_density_min: float | None = None, proba=None, min_proba: float | None = None,
                         actionable: bool = False, encoder: Encoder | None = None) -> FaceCounterfactuals:
    """FACE :cite:p:`poyiadzi2020face`: each source's cheapest reachable target and the path to it.

    The literal version, Dijkstra from each source, is
    :func:`recourselab.group_counterfactuals.paper.face`.

    Parameters
    ----------
    graph : FeasibilityGraph
    sources : array-like of int or bool mask
        Factual nodes (e.g. the applicants the model refuses).
    targets : array-like of int or bool mask
        Admissible counterfactual nodes (e.g. predicted favourable, possibly
        with a probability threshold applied by the caller).
    cost : {"path", "hops", "l2"}, default "path"
        See :meth:`FeasibilityGraph.costs`.
    log_density_min : float, optional
        With ``weighting="kde"``: keep only targets whose log relative density
        is at least this (FACE's density threshold; 0 = the mean density).
    proba : array of shape (n_nodes,), optional
        The model's probability of the favourable outcome for every node.
    min_proba : float, optional
        With ``proba``: keep only targets predicted favourable with at least this
        probability (FACE's confidence threshold).
    actionable : bool, default False
        True: each source may only take a target whose end-to-end move passes
        the encoder's advice policy (:meth:`Encoder.actionable
        <recourselab.features.Encoder.actionable>`), and the result is labelled
        ``advice="actionable"``. False (the default): every reachable target is
        admissible, and the result is labelled ``advice="relaxation"``. The
        default is the relaxation because FACE's targets are observed people,
        who rarely differ from a refused person only where advice may move
        them: on the book's German Credit test set no refused applicant reaches
        an actionable target (every reachable approved applicant differs in at
        least one feature the advice policy never moves, such as age or credit
        history), so restricting by default would leave nobody with a FACE
        counterfactual. Ask for ``actionable=True`` wherever a target is shown
        as advice.
    encoder : Encoder, optional
        The encoder whose advice policy applies; default the graph's own
        (``graph.encoder``). Needed for ``actionable=True``; without any, the
        ``actionable`` column is unknown (``<NA>``).

    Returns
    -------
    FaceCounterfactuals

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from recourselab.features import Encoder, FeatureSpec
    >>> from recourselab.group_counterfactuals import build_feasibility_graph
    >>> frame = pd.DataFrame({"savings": [0.0, 0.4, 0.2, 0.0], "age": [30, 30, 31, 70]})
    >>> enc = Encoder([FeatureSpec("savings", "continuous", "increase"),
    ...                FeatureSpec("age", "continuous", "increase", advise="never")]).fit(frame)
    >>> graph = build_feasibility_graph(enc.transform(frame), 1.1, encoder=enc, weighting="distance")
    >>> relaxed = face_counterfactuals(graph, [0], [1, 2], cost="l2")
    >>> relaxed.advice, relaxed.target.tolist(), relaxed.actionable.tolist()   # row 2 is a year older
    ('relaxation', [2], [False])
    >>> advice = face_counterfactuals(graph, [0], [1, 2], cost="l2", actionable=True)
    >>> advice.advice, advice.target.tolist(), advice.actionable.tolist()
    ('actionable', [1], [True])
    """
    if not isinstance(graph, FeasibilityGraph):
        raise TypeError(f"graph must be a FeasibilityGraph, got {type(graph).__name__}.")
    sources = node_positions(sources, graph.n_nodes, "sources")
    targets = node_positions(targets, graph.n_nodes, "targets")
    check_choice(cost, "cost", COSTS)
    check_choice(actionable, "actionable", (False, True))
    encoder = graph.encoder if encoder is None else check_encoder(encoder)
    if encoder is not None and encoder.n_columns != graph.Z.shape[1]:
        raise ValueError(f"encoder has {encoder.n_columns} encoded columns but the graph's nodes have "
                         f"{graph.Z.shape[1]}; give the encoder the graph was built with.")
    if actionable and encoder is None:
        raise ValueError("actionable=True needs an encoder (the graph was built without one): pass encoder=, or "
                         "actionable=False for feasible targets (a relaxation).")
    targets = _admissible_targets(graph, targets, log_density_min, proba, min_proba)
    C = graph.costs(sources, targets, cost=cost)
    if actionable:
        C = np.where(encoder.actionable_pairs(graph.Z[sources], graph.Z[targets]), C, np.inf)
    best = np.argmin(C, axis=1)
    best_cost = C[np.arange(len(sources)), best]
    target = np.where(np.isfinite(best_cost), targets[best], NO_COUNTERFACTUAL).astype(np.int64)
    passes = None
    if encoder is not None:
        found = target != NO_COUNTERFACTUAL
        passes = np.zeros(len(sources), dtype=bool)
        if found.any():
            passes[found] = encoder.actionable(graph.Z[sources[found]], graph.Z[target[found]])
    return FaceCounterfactuals(sources, target, best_cost, _paths(graph, sources, target, cost), cost,
                               "actionable" if actionable else "relaxation", passes)

"""The feasibility graph of FACE and FACEGroup, and FACE's individual counterfactuals.

Nodes are encoded instances (rows of ``Z``). A directed edge ``i -> j`` exists
when the two rows are at most ``epsilon`` apart (Euclidean distance in encoded
units) and the move from ``i`` to ``j`` respects every feature's actionability
(:meth:`Encoder.feasible <recourselab.features.Encoder.feasible>`). A
counterfactual of a factual ``x`` is then any node reachable from ``x`` by a
path of such small, allowed steps :cite:p:`poyiadzi2020face,fragkathoulas2025facegroup`.

Everything is sparse: one radius query of a neighbour index finds the pairs
within ``epsilon``, feasibility is checked on the edge list in vectorised
chunks, and reachability, shortest paths and components come from
``scipy.sparse.csgraph``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components, dijkstra, shortest_path
from scipy.spatial.distance import cdist
from scipy.special import logsumexp
from sklearn.neighbors import KernelDensity, NearestNeighbors
from tqdm.auto import tqdm

from .features import Encoder, _check_matrix

__all__ = [
    "WEIGHTINGS",
    "COSTS",
    "FeasibilityGraph",
    "build_feasibility_graph",
    "connectivity_by_epsilon",
    "choose_epsilon",
    "FaceCounterfactuals",
    "face_counterfactuals",
]

WEIGHTINGS = ("kde", "distance", "hops")
COSTS = ("path", "hops", "l2")
# guard of the authors' weight formula, applied to a density relative to its mean
_DENSITY_GUARD = 1e-8
_EDGE_CHUNK = 4096  # edges per chunk when evaluating midpoint densities
_SOURCE_CELLS = 5_000_000  # (sources x nodes) cells per shortest-path chunk


@dataclass(frozen=True)
class FeasibilityGraph:
    """A fitted feasibility graph (see :func:`build_feasibility_graph`).

    Attributes
    ----------
    adjacency : scipy.sparse.csr_matrix, shape (n, n)
        Edge weights; ``adjacency[i, j]`` stored means the edge ``i -> j``
        exists (explicit zeros are edges between identical rows).
    lengths : scipy.sparse.csr_matrix, shape (n, n)
        Euclidean length of each edge, same sparsity as ``adjacency``.
    Z : ndarray, shape (n, n_columns)
        The encoded nodes.
    epsilon : float
    weighting : str
    bandwidth : float or None
        KDE bandwidth used for ``weighting="kde"``.
    log_density : ndarray or None
        Log of each node's KDE density relative to the mean node density
        (``weighting="kde"`` only).
    """

    adjacency: csr_matrix
    lengths: csr_matrix
    Z: np.ndarray
    epsilon: float
    weighting: str
    bandwidth: float | None = None
    log_density: np.ndarray | None = field(default=None, repr=False)

    @property
    def n_nodes(self) -> int:
        return self.adjacency.shape[0]

    @property
    def n_edges(self) -> int:
        return int(self.adjacency.nnz)

    def components(self) -> np.ndarray:
        """Weakly connected component label of every node (labels 0..m-1, largest first)."""
        _, labels = connected_components(self.adjacency, directed=True, connection="weak")
        # relabel by decreasing size so label 0 is the largest component (ties: lowest node)
        sizes = np.bincount(labels)
        first = np.full(sizes.size, self.n_nodes)
        np.minimum.at(first, labels, np.arange(self.n_nodes))
        order = np.lexsort((first, -sizes))
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        return rank[labels]

    def connectivity(self) -> dict:
        """Statistics for choosing epsilon: edges, components, singletons, largest component."""
        labels = self.components()
        sizes = np.bincount(labels)
        return {
            "epsilon": self.epsilon,
            "nodes": self.n_nodes,
            "edges": self.n_edges,
            "mean out-degree": self.n_edges / max(self.n_nodes, 1),
            "components": int(sizes.size),
            "singletons (share)": float(np.mean(sizes[labels] == 1)),
            "largest component (share)": float(sizes.max() / self.n_nodes),
            "component sizes": sorted(sizes.tolist(), reverse=True),
        }

    def costs(self, sources, targets, *, cost: str = "path", progress: bool = False) -> np.ndarray:
        """Cost of reaching each target from each source; ``inf`` when unreachable.

        Parameters
        ----------
        sources, targets : array-like of int
            Node indices.
        cost : {"path", "hops", "l2"}
            ``"path"``: total edge weight of the cheapest path (Dijkstra);
            ``"hops"``: number of edges on the shortest path (breadth-first);
            ``"l2"``: Euclidean distance between the two nodes, for reachable pairs.
        progress : bool
            Progress bar over chunks of sources.

        Returns
        -------
        ndarray, shape (len(sources), len(targets))
        """
        sources = self._check_nodes(sources, "sources")
        targets = self._check_nodes(targets, "targets")
        if cost not in COSTS:
            raise ValueError(f"cost={cost!r} is not one of {COSTS}.")
        unweighted = cost != "path"
        # run the searches from the smaller side (on the reversed graph when that is the targets)
        reverse = len(targets) < len(sources)
        graph = self.adjacency.T.tocsr() if reverse else self.adjacency
        starts, ends = (targets, sources) if reverse else (sources, targets)
        out = np.empty((len(starts), len(ends)))
        chunk = max(1, _SOURCE_CELLS // max(self.n_nodes, 1))
        blocks = range(0, len(starts), chunk)
        for begin in tqdm(blocks, disable=not progress, desc="shortest paths", unit="chunk"):
            block = starts[begin:begin + chunk]
            dist = shortest_path(graph, method="D", directed=True, unweighted=unweighted, indices=block)
            out[begin:begin + chunk] = dist[:, ends]
        if reverse:
            out = out.T
        if cost == "l2":
            out = np.where(np.isfinite(out), cdist(self.Z[sources], self.Z[targets]), np.inf)
        return out

    def to_networkx(self) -> nx.DiGraph:
        """The graph as a :class:`networkx.DiGraph` with ``weight`` and ``length`` edge attributes."""
        graph = nx.DiGraph()
        graph.add_nodes_from(range(self.n_nodes))
        A, L = self.adjacency.tocoo(), self.lengths.tocsr()
        lengths = np.asarray(L[A.row, A.col]).ravel()
        graph.add_edges_from(
            (int(i), int(j), {"weight": float(w), "length": float(d)})
            for i, j, w, d in zip(A.row, A.col, A.data, lengths)
        )
        return graph

    def _check_nodes(self, nodes, name: str) -> np.ndarray:
        return _check_nodes(nodes, self.n_nodes, name)


def _check_nodes(nodes, n_nodes: int, name: str) -> np.ndarray:
    """Node positions from an index array or a boolean mask, validated."""
    nodes = np.asarray(nodes)
    if nodes.dtype == bool:
        if nodes.shape != (n_nodes,):
            raise ValueError(f"{name} as a mask must have one entry per node ({n_nodes}), got {nodes.shape}.")
        nodes = np.flatnonzero(nodes)
    nodes = nodes.astype(int, copy=False).ravel()
    if nodes.size == 0:
        raise ValueError(f"{name} is empty; give at least one node index.")
    if nodes.min() < 0 or nodes.max() >= n_nodes:
        raise ValueError(f"{name} holds node indices outside 0..{n_nodes - 1}.")
    return nodes


def _kde_bandwidth(train: np.ndarray, bandwidth) -> float:
    if isinstance(bandwidth, str):
        if bandwidth not in ("scott", "silverman"):
            raise ValueError(f"bandwidth={bandwidth!r} must be 'scott', 'silverman' or a positive number.")
        # the library's rule of thumb (Scott 1992): n**(-1/(d+4)); the data are already scaled to [0, 1]
        return float(KernelDensity(bandwidth=bandwidth).fit(train).bandwidth_)
    h = float(bandwidth)
    if not h > 0:
        raise ValueError(f"bandwidth={bandwidth!r} must be 'scott', 'silverman' or a positive number.")
    return h


def _relative_log_density(Z, rows, cols, bandwidth, max_kde_points, random_state):
    """Log KDE density at each edge's midpoint and at each node, relative to the mean node density.

    Uses the identity ||(a+b)/2 - x||^2 = ||a-x||^2/2 + ||b-x||^2/2 - ||a-b||^2/4, so the
    Gaussian kernel at a midpoint factorises into per-endpoint terms: one dense
    (nodes x training points) matrix, then one dot product per edge. Exact for
    the Gaussian kernel (it equals scikit-learn's ``KernelDensity.score_samples``
    up to the shared normalising constant, which cancels in the relative density).
    """
    rng = np.random.default_rng(random_state)
    train = Z if len(Z) <= max_kde_points else Z[rng.choice(len(Z), max_kde_points, replace=False)]
    h = _kde_bandwidth(train, bandwidth)
    sq = (Z ** 2).sum(1)[:, None] + (train ** 2).sum(1)[None, :] - 2.0 * Z @ train.T
    half = -np.maximum(sq, 0.0) / (4.0 * h * h)  # half of the Gaussian exponent
    peak = half.max(axis=1)
    A = np.exp(half - peak[:, None])
    node = logsumexp(2.0 * half, axis=1)  # log sum_k exp(-||z - x_k||^2 / 2h^2)
    mean_node = logsumexp(node) - np.log(len(node))
    mid = np.empty(len(rows))
    for start in range(0, len(rows), _EDGE_CHUNK):
        r, c = rows[start:start + _EDGE_CHUNK], cols[start:start + _EDGE_CHUNK]
        dots = np.einsum("ij,ij->i", A[r], A[c])
        gap = ((Z[r] - Z[c]) ** 2).sum(1)
        block = mid[start:start + _EDGE_CHUNK]  # a view: writes land in mid
        with np.errstate(divide="ignore"):
            block[:] = np.log(dots) + peak[r] + peak[c] + gap / (8.0 * h * h)
        # Each dropped (underflowed) term is below 1e-308 in the shifted scale, so a
        # sum above 1e-280 is exact to machine precision; below it (a bandwidth much
        # smaller than the steps), evaluate those midpoints directly.
        lost = dots < 1e-280
        if lost.any():
            points = (Z[r[lost]] + Z[c[lost]]) / 2.0
            block[lost] = logsumexp(-cdist(points, train, "sqeuclidean") / (2.0 * h * h), axis=1)
    return mid - mean_node, node - mean_node, h


def _radius_pairs(Z: np.ndarray, epsilon: float):
    """All ordered pairs (i, j), i != j, with ||z_i - z_j|| <= epsilon, and their distances.

    The neighbour index proposes the pairs (with a hair of slack, because its
    distances may come from the expanded formula ||a||^2 + ||b||^2 - 2ab);
    distances are then recomputed exactly as ||z_i - z_j|| and cut at epsilon.
    """
    slack = epsilon * (1 + 1e-9) + 1e-12
    index = NearestNeighbors(radius=slack).fit(Z)
    pairs = index.radius_neighbors_graph(Z, radius=slack, mode="connectivity", sort_results=False).tocoo()
    rows, cols = pairs.row[pairs.row != pairs.col], pairs.col[pairs.row != pairs.col]
    dist = np.empty(rows.size)
    for start in range(0, rows.size, 200_000):
        r, c = rows[start:start + 200_000], cols[start:start + 200_000]
        dist[start:start + 200_000] = np.sqrt(((Z[r] - Z[c]) ** 2).sum(1))
    keep = dist <= epsilon
    return rows[keep], cols[keep], dist[keep]


def build_feasibility_graph(
    Z,
    epsilon: float,
    *,
    encoder: Encoder | None = None,
    weighting: str = "kde",
    bandwidth="scott",
    max_kde_points: int = 2000,
    random_state=0,
) -> FeasibilityGraph:
    """Build the directed feasibility graph of FACE / FACEGroup on encoded rows.

    An edge ``i -> j`` exists when :math:`\\lVert z_i - z_j \\rVert_2 \\le \\varepsilon`
    and, if an encoder is given, the move ``i -> j`` is feasible. Its weight is

    * ``"distance"``: :math:`\\lVert z_i - z_j \\rVert`;
    * ``"hops"``: 1;
    * ``"kde"``: :math:`\\lVert z_i - z_j \\rVert^2 / (\\tilde p((z_i + z_j)/2) + 10^{-8})`,
      where :math:`\\tilde p` is a Gaussian kernel density estimate divided by
      its mean over the nodes.

    The KDE weight makes paths through dense regions *cheaper*, which is FACE's
    intent :cite:p:`poyiadzi2020face` and what the FACEGroup authors' code
    computes; the FACEGroup paper's text writes the weight as the plain product
    of density and cost, which would make dense paths *dearer*, so we follow
    FACE. We divide the density by its mean over the nodes: raw Gaussian
    densities in 30+ encoded dimensions are around :math:`10^{-18}`, so the
    authors' :math:`10^{-8}` guard would otherwise dominate and silently turn the
    weight into plain squared distance.

    Parameters
    ----------
    Z : array of shape (n, n_columns)
        Encoded rows (e.g. :meth:`Encoder.transform <recourselab.features.Encoder.transform>`).
    epsilon : float
        Largest step, in encoded Euclidean units; must be > 0.
    encoder : Encoder, optional
        When given, only feasible moves become edges; without it the graph is
        symmetric (every pair within epsilon in both directions).
    weighting : {"kde", "distance", "hops"}, default "kde"
    bandwidth : "scott", "silverman" or float, default "scott"
        KDE bandwidth (scikit-learn's rules of thumb on the encoded data).
    max_kde_points : int, default 2000
        The density is estimated from at most this many rows (a random sample
        when ``n`` is larger, drawn with ``random_state``); its evaluation at
        every edge midpoint is exact for that estimate.
    random_state : int or numpy.random.Generator, default 0

    Returns
    -------
    FeasibilityGraph

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0.0, 0.0], [0.1, 0.0], [0.2, 0.0], [1.0, 1.0]])
    >>> g = build_feasibility_graph(Z, 0.15, weighting="distance")
    >>> g.n_edges, g.components().tolist()
    (4, [0, 0, 0, 1])
    """
    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 2 or len(Z) == 0:
        raise ValueError(f"Z has shape {Z.shape}; give a non-empty 2-d array of encoded rows.")
    Z = _check_matrix(Z, "Z", Z.shape[1]) if encoder is None else _check_matrix(Z, "Z", encoder.n_columns)
    try:
        epsilon = float(epsilon)
    except (TypeError, ValueError):
        raise TypeError(f"epsilon={epsilon!r} must be a number.") from None
    if not np.isfinite(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon={epsilon!r} must be a positive number (a largest step in encoded units).")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting={weighting!r} is not one of {WEIGHTINGS}.")
    if encoder is not None and not isinstance(encoder, Encoder):
        raise TypeError(f"encoder must be a fitted recourselab Encoder or None, got {type(encoder).__name__}.")
    if int(max_kde_points) < 2:
        raise ValueError(f"max_kde_points={max_kde_points!r} must be at least 2.")

    rows, cols, dist = _radius_pairs(Z, epsilon)
    if rows.size == 0 and len(Z) > 1:
        nearest = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(Z)[0][:, 1]
        raise ValueError(
            f"epsilon={epsilon} leaves all {len(Z)} nodes without an edge; the median nearest-neighbour "
            f"distance is {np.median(nearest):.3g}. Choose a larger epsilon (see connectivity_by_epsilon)."
        )
    if encoder is not None and rows.size:
        keep = np.empty(rows.size, dtype=bool)
        for start in range(0, rows.size, 200_000):  # bounded gathers of edge end points
            r, c = rows[start:start + 200_000], cols[start:start + 200_000]
            keep[start:start + 200_000] = encoder.feasible(Z[r], Z[c])
        rows, cols, dist = rows[keep], cols[keep], dist[keep]

    bandwidth_used, log_density = None, None
    if weighting == "distance":
        weights = dist
    elif weighting == "hops":
        weights = np.ones_like(dist)
    else:
        # a midpoint is shared by i->j and j->i: evaluate each unordered pair once
        lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
        pair_key = lo.astype(np.int64) * len(Z) + hi
        unique_keys, inverse = np.unique(pair_key, return_inverse=True)
        mid_log, log_density, bandwidth_used = _relative_log_density(
            Z, unique_keys // len(Z), unique_keys % len(Z), bandwidth, int(max_kde_points), random_state
        )
        weights = dist ** 2 / (np.exp(mid_log[inverse]) + _DENSITY_GUARD)

    shape = (len(Z), len(Z))
    adjacency = csr_matrix((weights, (rows, cols)), shape=shape)
    lengths = csr_matrix((dist, (rows, cols)), shape=shape)
    return FeasibilityGraph(adjacency, lengths, Z, epsilon, weighting, bandwidth_used, log_density)


def connectivity_by_epsilon(Z, epsilons, *, encoder: Encoder | None = None, sources=None,
                            targets=None) -> pd.DataFrame:
    """Connectivity of the feasibility graph for several epsilons, from one neighbour query.

    For each epsilon: number of edges, number of weakly connected components,
    share of singleton nodes and share of nodes in the largest component (the
    statistics FACEGroup plots to choose epsilon, its Fig. 2). With
    ``sources`` and ``targets`` (row positions, e.g. refused and approved
    individuals) also the number of sources with a feasible path to some
    target, ``"coverable sources"``, found by one breadth-first search per
    epsilon on the reversed graph from a virtual node joined to every target;
    :func:`choose_epsilon` picks epsilon from it.

    Returns
    -------
    pandas.DataFrame
        One row per epsilon, in increasing order.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0.0], [0.1], [0.2], [0.9]])
    >>> table = connectivity_by_epsilon(Z, [0.15, 0.8], sources=[0], targets=[2, 3])
    >>> table[["epsilon", "components", "coverable sources"]].values.tolist()
    [[0.15, 2.0, 1.0], [0.8, 1.0, 1.0]]
    """
    Z = np.asarray(Z, dtype=float)
    epsilons = np.sort(np.asarray(epsilons, dtype=float).ravel())
    if epsilons.size == 0 or not (epsilons > 0).all() or not np.isfinite(epsilons).all():
        raise ValueError(f"epsilons={epsilons.tolist()} must be a non-empty list of positive numbers.")
    Z = _check_matrix(Z, "Z", Z.shape[1] if encoder is None else encoder.n_columns)
    if (sources is None) != (targets is None):
        raise ValueError("give sources and targets together (row positions), or neither.")
    if sources is not None:
        sources, targets = _check_nodes(sources, len(Z), "sources"), _check_nodes(targets, len(Z), "targets")
    rows, cols, dist = _radius_pairs(Z, float(epsilons[-1]))
    if encoder is not None and rows.size:
        keep = encoder.feasible(Z[rows], Z[cols])
        rows, cols, dist = rows[keep], cols[keep], dist[keep]
    n = len(Z)
    out = []
    for eps in epsilons:
        inside = dist <= eps
        graph = csr_matrix((np.ones(inside.sum()), (rows[inside], cols[inside])), shape=(n, n))
        n_comp, labels = connected_components(graph, directed=True, connection="weak")
        sizes = np.bincount(labels)
        row = {
            "epsilon": float(eps),
            "edges": int(inside.sum()),
            "components": int(n_comp),
            "singletons (share)": float(np.mean(sizes[labels] == 1)),
            "largest component (share)": float(sizes.max() / n),
        }
        if sources is not None:
            # reversed edges (a move i -> j becomes j -> i) plus a virtual node n pointing at every target:
            # the nodes it reaches are exactly those with a feasible path to some target
            reverse = csr_matrix((np.ones(inside.sum() + len(targets)),
                                  (np.concatenate([cols[inside], np.full(len(targets), n)]),
                                   np.concatenate([rows[inside], targets]))), shape=(n + 1, n + 1))
            reaches = np.zeros(n + 1, dtype=bool)
            reaches[breadth_first_order(reverse, n, directed=True, return_predecessors=False)] = True
            row["coverable sources"] = int(reaches[sources].sum())
        out.append(row)
    return pd.DataFrame(out)


def choose_epsilon(connectivity: pd.DataFrame) -> float:
    """FACEGroup's rule: the smallest epsilon after which no further source becomes coverable.

    Parameters
    ----------
    connectivity : DataFrame
        :func:`connectivity_by_epsilon`'s output computed with ``sources`` and ``targets``.

    Examples
    --------
    >>> import pandas as pd
    >>> choose_epsilon(pd.DataFrame({"epsilon": [1.0, 1.5, 2.0], "coverable sources": [3, 7, 7]}))
    1.5
    """
    if not isinstance(connectivity, pd.DataFrame) or "coverable sources" not in connectivity.columns:
        raise ValueError("connectivity must come from connectivity_by_epsilon(..., sources=..., targets=...) "
                         "(it needs the 'coverable sources' column).")
    table = connectivity.sort_values("epsilon", kind="stable")
    best = table["coverable sources"].max()
    return float(table.loc[table["coverable sources"] == best, "epsilon"].iloc[0])


@dataclass(frozen=True)
class FaceCounterfactuals:
    """FACE's individual counterfactuals: for each source, the cheapest reachable target.

    Attributes
    ----------
    sources : ndarray of int
        The factual nodes.
    target : ndarray of int
        Chosen counterfactual node per source (-1 = no reachable target).
    cost : ndarray of float
        Its cost (``inf`` when none).
    paths : list of ndarray
        Node sequence from source to target along the cheapest path by
        the graph's weights (empty when none).
    cost_type : str
    """

    sources: np.ndarray
    target: np.ndarray
    cost: np.ndarray
    paths: list
    cost_type: str

    def to_frame(self) -> pd.DataFrame:
        """One row per source: target, cost, number of steps."""
        return pd.DataFrame({
            "source": self.sources,
            "target": self.target,
            "cost": self.cost,
            "steps": [max(len(p) - 1, 0) for p in self.paths],
        })


def face_counterfactuals(graph: FeasibilityGraph, sources, targets, *, cost: str = "path",
                         log_density_min: float | None = None, proba=None,
                         min_proba: float | None = None) -> FaceCounterfactuals:
    """FACE :cite:p:`poyiadzi2020face`: each source's cheapest reachable target and the path to it.

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

    Returns
    -------
    FaceCounterfactuals
    """
    if not isinstance(graph, FeasibilityGraph):
        raise TypeError(f"graph must be a FeasibilityGraph, got {type(graph).__name__}.")
    sources = graph._check_nodes(sources, "sources")
    targets = graph._check_nodes(targets, "targets")
    if log_density_min is not None:
        if graph.log_density is None:
            raise ValueError("log_density_min needs a graph built with weighting='kde'.")
        targets = targets[graph.log_density[targets] >= log_density_min]
        if targets.size == 0:
            raise ValueError(f"log_density_min={log_density_min} leaves no admissible target; lower it.")
    if min_proba is not None:
        if proba is None:
            raise ValueError("min_proba needs proba, the favourable-class probability of every node.")
        proba = np.asarray(proba, dtype=float)
        if proba.shape != (graph.n_nodes,):
            raise ValueError(f"proba has shape {proba.shape}; give one probability per node ({graph.n_nodes}).")
        targets = targets[proba[targets] >= min_proba]
        if targets.size == 0:
            raise ValueError(f"min_proba={min_proba} leaves no admissible target; lower it.")
    C = graph.costs(sources, targets, cost=cost)
    best = np.argmin(C, axis=1)
    best_cost = C[np.arange(len(sources)), best]
    target = np.where(np.isfinite(best_cost), targets[best], -1)
    # paths along the graph's weights (hops for cost="hops")
    _, predecessors = dijkstra(graph.adjacency, directed=True, indices=sources,
                               unweighted=(cost == "hops"), return_predecessors=True)
    paths = []
    for row, t in enumerate(target):
        if t < 0:
            paths.append(np.array([], dtype=int))
            continue
        path = [int(t)]
        while path[-1] != sources[row]:
            path.append(int(predecessors[row, path[-1]]))
        paths.append(np.array(path[::-1]))
    return FaceCounterfactuals(sources, target, best_cost, paths, cost)

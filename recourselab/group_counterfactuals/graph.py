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

import numbers
import warnings
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

from ..counterfactuals.recourse import NO_COUNTERFACTUAL
from ..features import Encoder, check_encoded, check_encoder

__all__ = [
    "WEIGHTINGS",
    "COSTS",
    "FeasibilityGraph",
    "build_feasibility_graph",
    "connectivity_by_epsilon",
    "choose_epsilon",
    "EpsilonChoice",
    "FaceCounterfactuals",
    "face_counterfactuals",
]

WEIGHTINGS = ("kde", "distance", "hops")
COSTS = ("path", "hops", "l2")
# Range of the KDE weights: at most the smallest normal float below (so the cheapest edges keep full
# precision) and at most the largest float divided by 2**32 above (so no path sum can overflow to inf).
_LOG_WEIGHT_MIN = float(np.log(np.finfo(float).tiny))
_LOG_WEIGHT_MAX = float(np.log(np.finfo(float).max) - 32 * np.log(2.0))
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
    log_weight_scale : float
        Natural log of the common factor applied to every KDE weight so that
        all of them fit in float64 (0.0, i.e. no factor, unless
        :func:`build_feasibility_graph` warned): ``adjacency`` holds
        :math:`e^{s} \\lVert z_i - z_j \\rVert^2 / \\tilde p` with
        :math:`s` = ``log_weight_scale``. A common factor changes no
        shortest path or FACE choice, only the unit of ``"path"`` costs.
    n_capped_weights : int
        KDE weights too large to store even after that factor, set to the
        largest storable weight (0 unless :func:`build_feasibility_graph`
        warned); paths through such edges can tie.
    """

    adjacency: csr_matrix
    lengths: csr_matrix
    Z: np.ndarray
    epsilon: float
    weighting: str
    bandwidth: float | None = None
    log_density: np.ndarray | None = field(default=None, repr=False)
    log_weight_scale: float = 0.0
    n_capped_weights: int = 0

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
        sources, targets : array-like of int or bool mask
            Node indices (integers, or floats holding whole numbers such as
            ``2.0``; a fractional, NaN or infinite index is an error, never
            truncated), or a boolean mask with one entry per node.
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
        # (an empty fancy index returns a sparse matrix, not an empty array)
        lengths = np.asarray(L[A.row, A.col]).ravel() if A.nnz else np.empty(0)
        graph.add_edges_from(
            (int(i), int(j), {"weight": float(w), "length": float(d)})
            for i, j, w, d in zip(A.row, A.col, A.data, lengths, strict=True)
        )
        return graph

    def _check_nodes(self, nodes, name: str) -> np.ndarray:
        return _check_nodes(nodes, self.n_nodes, name)


def _check_nodes(nodes, n_nodes: int, name: str) -> np.ndarray:
    """Node positions from an index array or a boolean mask, validated.

    Integer indices are used as given. Float indices are accepted only when
    every value is a whole number (``2.0``, as arithmetic on index arrays
    produces); ``2.7``, NaN and inf are rejected, never truncated.
    """
    try:
        nodes = np.asarray(nodes)
    except ValueError as err:  # ragged nesting
        raise TypeError(f"{name} must be an array of node indices or a boolean mask: {err}") from None
    if nodes.dtype == bool:
        if nodes.shape != (n_nodes,):
            raise ValueError(f"{name} as a mask must have one entry per node ({n_nodes}), got {nodes.shape}.")
        nodes = np.flatnonzero(nodes)
    nodes = nodes.ravel()
    if nodes.size == 0:
        raise ValueError(f"{name} is empty; give at least one node index.")
    if nodes.dtype.kind == "f":
        bad = ~np.isfinite(nodes) | (nodes != np.round(nodes))
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name}[{first}]={float(nodes[first])!r} is not a node index; give whole numbers in "
                f"0..{n_nodes - 1} (indices are never rounded or truncated)."
            )
    elif nodes.dtype.kind not in "iu":
        raise TypeError(
            f"{name} must hold integer node indices or be a boolean mask, got dtype {nodes.dtype} "
            f"(e.g. {nodes[0]!r})."
        )
    if nodes.min() < 0 or nodes.max() >= n_nodes:
        raise ValueError(f"{name} holds node indices outside 0..{n_nodes - 1}.")
    return nodes.astype(np.intp, copy=False)


def _check_bandwidth(bandwidth):
    """``bandwidth`` validated: 'scott', 'silverman', or a positive finite number (returned as float)."""
    if isinstance(bandwidth, str):
        if bandwidth not in ("scott", "silverman"):
            raise ValueError(f"bandwidth={bandwidth!r} must be 'scott', 'silverman' or a positive number.")
        return bandwidth
    if isinstance(bandwidth, bool) or not isinstance(bandwidth, numbers.Real):
        raise TypeError(f"bandwidth={bandwidth!r} must be 'scott', 'silverman' or a positive number.")
    h = float(bandwidth)
    if not (np.isfinite(h) and h > 0):
        raise ValueError(f"bandwidth={bandwidth!r} must be 'scott', 'silverman' or a positive finite number.")
    return h


def _kde_bandwidth(train: np.ndarray, bandwidth) -> float:
    bandwidth = _check_bandwidth(bandwidth)
    if isinstance(bandwidth, str):
        # the library's rule of thumb (Scott 1992): n**(-1/(d+4)); the data are already scaled to [0, 1]
        return float(KernelDensity(bandwidth=bandwidth).fit(train).bandwidth_)
    return bandwidth


def _kde_weights(dist, log_density_mid):
    """FACE's density weight :math:`d^2 / p(\\text{midpoint})`, computed in log space.

    Parameters
    ----------
    dist : ndarray
        Edge lengths :math:`d \\ge 0`.
    log_density_mid : ndarray
        Log density at each edge's midpoint, on any scale (raw, or relative
        to the mean node density): a constant added to it multiplies every
        weight by the same factor, which changes no shortest path.

    Returns
    -------
    weights : ndarray
        :math:`e^{s} d^2 / p`, from :math:`\\log w = 2 \\log d - \\log p + s`;
        0 for zero-length edges (identical rows).
    log_scale : float
        :math:`s`: 0 when every weight fits in float64 as it is; otherwise the
        one common shift that centres the weights' log range in float64's,
        so none overflows or underflows.
    n_capped : int
        Weights that did not fit even then (their log range is wider than
        float64's, about 1,400 nats): the smallest weights are kept exact
        (cheapest paths use them) and these largest ones are set to the
        largest weight a path sum can hold without overflow (about 4e298).
    """
    dist = np.asarray(dist, dtype=float)
    log_p = np.asarray(log_density_mid, dtype=float)
    weights = np.zeros(dist.shape)
    step = dist > 0
    if not step.any():
        return weights, 0.0, 0
    # +inf where a density underflowed to 0: an edge through empty space, capped below
    log_w = 2.0 * np.log(dist[step]) - log_p[step]
    finite = log_w[np.isfinite(log_w)]
    lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)
    if _LOG_WEIGHT_MIN <= lo and hi <= _LOG_WEIGHT_MAX:
        shift = 0.0
    elif hi - lo <= _LOG_WEIGHT_MAX - _LOG_WEIGHT_MIN:
        shift = 0.5 * (_LOG_WEIGHT_MIN + _LOG_WEIGHT_MAX) - 0.5 * (lo + hi)  # centre the range in the window
    else:
        shift = _LOG_WEIGHT_MIN - lo
    log_w = log_w + shift
    capped = log_w > _LOG_WEIGHT_MAX
    weights[step] = np.exp(np.minimum(log_w, _LOG_WEIGHT_MAX))
    return weights, float(shift), int(capped.sum())


def _relative_log_density(Z, rows, cols, bandwidth, max_kde_points, random_state):
    """Log KDE density at each edge's midpoint and at each node, relative to the mean node density.

    Uses the identity ||(a+b)/2 - x||^2 = ||a-x||^2/2 + ||b-x||^2/2 - ||a-b||^2/4, so the
    Gaussian kernel at a midpoint factorises into per-endpoint terms: one dense
    (nodes x training points) matrix, then one dot product per edge. Exact for
    the Gaussian kernel: it equals the plain sum over training points, which is
    scikit-learn's ``KernelDensity.score_samples`` up to the shared normalising
    constant (it cancels in the relative density) when that estimator evaluates
    every kernel (e.g. ``leaf_size`` >= the number of training points). With its
    default tree, scikit-learn prunes on bounds that can overstate densities
    far below the peak by many orders of magnitude (by up to e^39 at German
    Credit edge midpoints with h = 0.0966).
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
    * ``"kde"``: :math:`\\lVert z_i - z_j \\rVert^2 / \\tilde p((z_i + z_j)/2)`,
      where :math:`\\tilde p = p / \\bar p` is a Gaussian kernel density
      estimate :math:`p` divided by its mean :math:`\\bar p` over the nodes;
      0 for an edge between identical rows.

    The KDE weight makes paths through dense regions *cheaper*, which is FACE's
    intent :cite:p:`poyiadzi2020face` and what the FACEGroup authors' code
    computes; the FACEGroup paper's text writes the weight as the plain product
    of density and cost, which would make dense paths *dearer*, so we follow
    FACE. The authors' code computes :math:`d^2 / (p + 10^{-8})` with
    scikit-learn's raw density :math:`p`. That additive guard is not
    scale-free: whether it matters depends on the density's scale, which
    swings by hundreds of orders of magnitude with the bandwidth and the
    number of encoded columns (:math:`p` carries the factor
    :math:`(2\\pi h^2)^{-D/2}`). Dividing every weight by the same number
    changes no shortest path, so we drop the guard and divide by
    :math:`\\bar p` instead, which only fixes the unit: a weight is the
    squared step length of a step whose midpoint is as dense as an average
    node. The weight is computed in log space,
    :math:`\\log w = 2 \\log d - \\log \\tilde p`, so neither a tiny density
    nor a tiny bandwidth overflows. At the authors' bandwidths both formulas
    choose the same paths wherever their guard is negligible, provided the
    densities are evaluated exactly: scikit-learn's tree-based
    ``KernelDensity``, which the authors call with its defaults, can overstate
    densities far below the peak by many orders of magnitude. If the weights
    still span more than float64 can hold, all of them are multiplied by one
    common factor (recorded in the graph's ``log_weight_scale``,
    with a warning), and if even that is not enough the largest are capped
    (counted in ``n_capped_weights``, with a warning):
    use a larger bandwidth then.

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
        KDE bandwidth (scikit-learn's rules of thumb on the encoded data), or
        a positive finite number (the FACEGroup authors use 0.0966 for German
        Credit on their encoding).
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
    if encoder is not None:
        check_encoder(encoder)
    Z = np.asarray(Z, dtype=float)
    if Z.ndim != 2 or len(Z) == 0:
        raise ValueError(f"Z has shape {Z.shape}; give a non-empty 2-d array of encoded rows.")
    Z = check_encoded(Z, "Z", Z.shape[1]) if encoder is None else check_encoded(Z, "Z", encoder.n_columns)
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon={epsilon!r} must be a number (a largest step in encoded units).")
    epsilon = float(epsilon)
    if not np.isfinite(epsilon) or epsilon <= 0:
        raise ValueError(f"epsilon={epsilon!r} must be a positive number (a finite largest step in encoded units).")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting={weighting!r} is not one of {WEIGHTINGS}.")
    if isinstance(max_kde_points, bool) or not isinstance(max_kde_points, numbers.Integral):
        raise TypeError(f"max_kde_points={max_kde_points!r} must be an integer (a number of rows).")
    if max_kde_points < 2:
        raise ValueError(f"max_kde_points={max_kde_points!r} must be at least 2.")
    bandwidth = _check_bandwidth(bandwidth)
    try:
        np.random.default_rng(random_state)
    except (TypeError, ValueError) as err:
        raise TypeError(f"random_state={random_state!r} must be an int or a numpy Generator: {err}") from None

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

    bandwidth_used, log_density, log_scale, n_capped = None, None, 0.0, 0
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
        weights, log_scale, n_capped = _kde_weights(dist, mid_log[inverse])
        if n_capped:
            warnings.warn(
                f"build_feasibility_graph: with bandwidth={bandwidth_used:.3g} and epsilon={epsilon:g} the KDE "
                f"weights d^2/p span more than float64 can hold; {n_capped} of {weights.size} edge weights were "
                "capped at the largest storable value, so paths through those edges may tie (see "
                "graph.n_capped_weights). Use a larger bandwidth (e.g. 'scott') or a smaller epsilon.",
                stacklevel=2,
            )
        elif log_scale:
            warnings.warn(
                f"build_feasibility_graph: with bandwidth={bandwidth_used:.3g} and epsilon={epsilon:g} the KDE "
                f"weights d^2/p would over- or underflow float64; all of them were multiplied by "
                f"exp({log_scale:.4g}) (graph.log_weight_scale). Shortest paths and FACE's choices are unchanged; "
                "'path' costs are in this unit. A larger bandwidth avoids the rescaling.",
                stacklevel=2,
            )

    shape = (len(Z), len(Z))
    adjacency = csr_matrix((weights, (rows, cols)), shape=shape)
    lengths = csr_matrix((dist, (rows, cols)), shape=shape)
    return FeasibilityGraph(adjacency, lengths, Z, epsilon, weighting, bandwidth_used, log_density,
                            log_scale, n_capped)


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
        One row per epsilon, in increasing order. With ``sources``,
        ``table.attrs["n_sources"]`` holds their number, so that
        :func:`choose_epsilon` can tell when every source is coverable.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0.0], [0.1], [0.2], [0.9]])
    >>> table = connectivity_by_epsilon(Z, [0.15, 0.8], sources=[0], targets=[2, 3])
    >>> table[["epsilon", "components", "coverable sources"]].values.tolist()
    [[0.15, 2.0, 1.0], [0.8, 1.0, 1.0]]
    """
    Z = np.asarray(Z, dtype=float)
    raw = np.asarray(epsilons).ravel()
    if raw.dtype == bool or raw.dtype.kind not in "iuf":
        raise TypeError(f"epsilons={raw.tolist()!r} must be a list of numbers (largest steps in encoded units).")
    epsilons = np.sort(raw.astype(float))
    if epsilons.size == 0 or not (epsilons > 0).all() or not np.isfinite(epsilons).all():
        raise ValueError(f"epsilons={epsilons.tolist()} must be a non-empty list of positive finite numbers.")
    if encoder is not None:
        check_encoder(encoder)
    Z = check_encoded(Z, "Z", Z.shape[1] if encoder is None else encoder.n_columns)
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
    table = pd.DataFrame(out)
    if sources is not None:
        table.attrs["n_sources"] = len(sources)
    return table


@dataclass(frozen=True)
class EpsilonChoice:
    """The epsilon :func:`choose_epsilon` picked, and whether FACEGroup's criterion holds there.

    Attributes
    ----------
    epsilon : float
        The chosen epsilon (pass ``choice.epsilon`` to :func:`build_feasibility_graph`).
    criterion_met : bool
        True when the grid shows that no further source becomes coverable
        beyond ``epsilon``: a larger epsilon on the grid covers no more, or
        every source is already coverable. False when the count of coverable
        sources was still rising at the largest epsilon tried, or is zero on
        the whole grid; then ``epsilon`` is only the best the grid offers.
    reason : str
        One sentence saying why, with the numbers.
    coverable : int
        Coverable sources at ``epsilon``.
    n_sources : int or None
        Number of sources, when the table records it.
    largest_epsilon : float
        The largest epsilon of the grid.
    """

    epsilon: float
    criterion_met: bool
    reason: str
    coverable: int
    n_sources: int | None
    largest_epsilon: float

    def to_frame(self) -> pd.DataFrame:
        """The choice as a one-row table."""
        return pd.DataFrame([{
            "epsilon": self.epsilon, "criterion met": self.criterion_met, "coverable sources": self.coverable,
            "sources": self.n_sources, "largest epsilon tried": self.largest_epsilon, "reason": self.reason,
        }])


def choose_epsilon(connectivity: pd.DataFrame) -> EpsilonChoice:
    """FACEGroup's rule: the smallest epsilon after which no further source becomes coverable.

    The grid can only show that the count of coverable sources has stopped
    growing if a larger epsilon on it covers no more (or every source is
    covered). When the largest count is first reached at the largest epsilon
    tried, the criterion is unverified, and the count is likely still rising:
    the function then warns and returns that epsilon with
    ``criterion_met=False``; extend the grid. It does the same when no source
    is coverable anywhere on the grid.

    Parameters
    ----------
    connectivity : DataFrame
        :func:`connectivity_by_epsilon`'s output computed with ``sources`` and ``targets``.

    Returns
    -------
    EpsilonChoice
        ``epsilon``, ``criterion_met``, ``reason``, ``coverable``,
        ``n_sources``, ``largest_epsilon``; ``to_frame()`` for a table.

    Warns
    -----
    UserWarning
        When the criterion is not met on the grid.

    Examples
    --------
    >>> import pandas as pd
    >>> choice = choose_epsilon(pd.DataFrame({"epsilon": [1.0, 1.5, 2.0], "coverable sources": [3, 7, 7]}))
    >>> choice.epsilon, choice.criterion_met
    (1.5, True)
    """
    if not isinstance(connectivity, pd.DataFrame) or "coverable sources" not in connectivity.columns:
        raise ValueError("connectivity must come from connectivity_by_epsilon(..., sources=..., targets=...) "
                         "(it needs the 'coverable sources' column).")
    if connectivity.empty:
        raise ValueError("connectivity has no rows; give connectivity_by_epsilon at least one epsilon.")
    table = connectivity.sort_values("epsilon", kind="stable")
    eps, counts = table["epsilon"].to_numpy(dtype=float), table["coverable sources"].to_numpy()
    n_sources = connectivity.attrs.get("n_sources")
    best = counts.max()
    first = int(np.flatnonzero(counts == best)[0])
    epsilon, largest = float(eps[first]), float(eps[-1])
    if best == 0:
        met = False
        reason = (f"no source is coverable at any epsilon up to {largest:g}, the largest tried; "
                  "extend the grid to larger epsilons")
    elif n_sources is not None and best == n_sources:
        met = True
        reason = f"all {n_sources} sources are coverable from epsilon={epsilon:g} on"
    elif largest > epsilon:
        met = True
        reason = (f"{best} sources are coverable from epsilon={epsilon:g} on, and no more up to {largest:g}, "
                  "the largest tried")
    else:
        met = False
        before = f" (up from {counts[first - 1]} at {eps[first - 1]:g})" if first else ""
        of = f" of {n_sources}" if n_sources is not None else ""
        reason = (f"the number of coverable sources is still rising at the largest epsilon tried, "
                  f"{largest:g}: {best}{of}{before}; extend the grid beyond {largest:g} until it stops rising")
    if not met:
        warnings.warn(f"choose_epsilon: FACEGroup's criterion (no further source becomes coverable) is unmet: "
                      f"{reason}. Returning epsilon={epsilon:g}.", stacklevel=2)
    return EpsilonChoice(epsilon, met, reason, int(best), None if n_sources is None else int(n_sources), largest)


@dataclass(frozen=True)
class FaceCounterfactuals:
    """FACE's individual counterfactuals: for each source, the cheapest reachable target.

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
    """

    sources: np.ndarray
    target: np.ndarray
    cost: np.ndarray
    paths: list
    cost_type: str

    @property
    def found(self) -> np.ndarray:
        """True where the source reaches a target."""
        return self.target != NO_COUNTERFACTUAL

    def to_frame(self) -> pd.DataFrame:
        """One row per source: target (``<NA>`` when none), cost, number of steps, found."""
        found = self.found
        return pd.DataFrame({
            "source": self.sources,
            "target": pd.arrays.IntegerArray(np.where(found, self.target, 0).astype(np.int64), ~found),
            "cost": self.cost,
            "steps": [max(len(p) - 1, 0) for p in self.paths],
            "found": found,
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
        if isinstance(log_density_min, bool) or not isinstance(log_density_min, numbers.Real):
            raise TypeError(f"log_density_min={log_density_min!r} must be a number (a log relative density).")
        if np.isnan(log_density_min):
            raise ValueError("log_density_min=nan must be a number (a log relative density; 0 = the mean density).")
        targets = targets[graph.log_density[targets] >= log_density_min]
        if targets.size == 0:
            raise ValueError(f"log_density_min={log_density_min} leaves no admissible target; lower it.")
    if min_proba is not None:
        if proba is None:
            raise ValueError("min_proba needs proba, the favourable-class probability of every node.")
        if isinstance(min_proba, bool) or not isinstance(min_proba, numbers.Real):
            raise TypeError(f"min_proba={min_proba!r} must be a probability (a number in [0, 1]).")
        if not 0 <= min_proba <= 1:
            raise ValueError(f"min_proba={min_proba!r} must be a probability in [0, 1].")
        proba = np.asarray(proba, dtype=float)
        if proba.shape != (graph.n_nodes,):
            raise ValueError(f"proba has shape {proba.shape}; give one probability per node ({graph.n_nodes}).")
        outside = ~((proba >= 0) & (proba <= 1))  # also catches NaN
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            raise ValueError(
                f"proba[{i}]={float(proba[i])!r} is not a probability; give values in [0, 1] for every node."
            )
        targets = targets[proba[targets] >= min_proba]
        if targets.size == 0:
            raise ValueError(f"min_proba={min_proba} leaves no admissible target; lower it.")
    C = graph.costs(sources, targets, cost=cost)
    best = np.argmin(C, axis=1)
    best_cost = C[np.arange(len(sources)), best]
    target = np.where(np.isfinite(best_cost), targets[best], NO_COUNTERFACTUAL).astype(np.int64)
    # paths along the graph's weights (hops for cost="hops")
    _, predecessors = dijkstra(graph.adjacency, directed=True, indices=sources,
                               unweighted=(cost == "hops"), return_predecessors=True)
    paths = []
    for row, t in enumerate(target):
        if t == NO_COUNTERFACTUAL:
            paths.append(np.array([], dtype=int))
            continue
        path = [int(t)]
        while path[-1] != sources[row]:
            path.append(int(predecessors[row, path[-1]]))
        paths.append(np.array(path[::-1]))
    return FaceCounterfactuals(sources, target, best_cost, paths, cost)

"""The feasibility graph of FACE and FACEGroup.

Nodes are encoded instances (rows of ``Z``). A directed edge ``i -> j`` exists
when the two rows are at most ``epsilon`` apart (Euclidean distance in encoded
units) and the move from ``i`` to ``j`` respects every feature's actionability
(:meth:`Encoder.feasible <recourselab.features.Encoder.feasible>`). A
counterfactual of a factual ``x`` is then any node reachable from ``x`` by a
path of such small, allowed steps :cite:p:`poyiadzi2020face,fragkathoulas2025facegroup`.
The literal construction, a loop over pairs, is
:func:`recourselab.group_counterfactuals.paper.feasibility_graph`.

Everything here is sparse: one radius query of a neighbour index finds the pairs
within ``epsilon``, feasibility is checked on the edge list in vectorised
chunks, and reachability, shortest paths and components come from
``scipy.sparse.csgraph``.
"""

from __future__ import annotations

import dataclasses
import warnings
from dataclasses import dataclass, field

import networkx as nx
import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, shortest_path
from scipy.spatial.distance import cdist
from scipy.special import logsumexp
from sklearn.neighbors import KernelDensity, NearestNeighbors
from tqdm.auto import tqdm

from .._validation import check_array, check_choice, check_int, check_mask, check_number, check_positions, check_rng
from ..features import Encoder, check_encoder

__all__ = ["FeasibilityGraph", "build_feasibility_graph"]

WEIGHTINGS = ("kde", "distance", "hops")
COSTS = ("path", "hops", "l2")
# Range of the KDE weights: at most the smallest normal float below (so the cheapest edges keep full
# precision) and at most the largest float divided by 2**32 above (so no path sum can overflow to inf).
_LOG_WEIGHT_MIN = float(np.log(np.finfo(float).tiny))
_LOG_WEIGHT_MAX = float(np.log(np.finfo(float).max) - 32 * np.log(2.0))
_EDGE_CHUNK = 4096  # edges per chunk when evaluating midpoint densities
_PAIR_CHUNK = 200_000  # edges per chunk when gathering end points
_SOURCE_CELLS = 5_000_000  # (sources x nodes) cells per shortest-path chunk
_KDE_CELLS = 4_000_000  # (nodes x KDE training points) cells per block of the density's dense step


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
    encoder : Encoder or None
        The encoder whose feasible moves are the edges (None for a graph built
        without one); :func:`~recourselab.group_counterfactuals.face_counterfactuals`
        checks its targets against the encoder's advice policy.
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
    encoder: Encoder | None = field(default=None, repr=False)

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
            Node indices (integers: a float index, even ``2.0``, is an error,
            never rounded), or a boolean mask with one entry per node.
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
        sources, targets = node_positions(sources, self.n_nodes, "sources"), node_positions(targets, self.n_nodes,
                                                                                           "targets")
        check_choice(cost, "cost", COSTS)
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

    def restrict(self, epsilon: float) -> FeasibilityGraph:
        """The graph at a smaller epsilon: the edges at most ``epsilon`` long, with their weights.

        Whether an edge exists and what it weighs do not depend on the epsilon the
        graph was built with (the KDE weight uses node densities only), so this is
        the graph :func:`build_feasibility_graph` builds at ``epsilon`` (unless its
        KDE weights had to be rescaled, ``log_weight_scale != 0``: then the unit of
        the weights may differ), without a new neighbour query. Sweep epsilon by
        building once at the largest value and restricting.

        Parameters
        ----------
        epsilon : float
            Largest step, > 0 and at most the graph's own ``epsilon``.

        Examples
        --------
        >>> import numpy as np
        >>> g = build_feasibility_graph(np.array([[0.0], [0.1], [0.3]]), 0.25, weighting="hops")
        >>> g.n_edges, g.restrict(0.15).n_edges
        (4, 2)
        """
        epsilon = check_number(epsilon, "epsilon", minimum=0.0, strict_minimum=True)
        if epsilon > self.epsilon:
            raise ValueError(f"epsilon={epsilon:g} is above the graph's epsilon={self.epsilon:g}; restrict can only "
                             "drop edges. Build the graph at the largest epsilon you need.")
        L, A = self.lengths.tocoo(), self.adjacency.tocoo()
        if not (np.array_equal(L.row, A.row) and np.array_equal(L.col, A.col)):  # same edges, same order
            raise ValueError("the graph's lengths and adjacency hold different edges; build it with "
                             "build_feasibility_graph.")
        keep = L.data <= epsilon
        edges = (L.row[keep], L.col[keep])
        return dataclasses.replace(self, adjacency=csr_matrix((A.data[keep], edges), shape=A.shape),
                                   lengths=csr_matrix((L.data[keep], edges), shape=L.shape), epsilon=epsilon)

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


def node_positions(nodes, n_nodes: int, name: str) -> np.ndarray:
    """Node positions from integer indices or a boolean mask with one entry per node.

    Indices go through the shared checks: a float index (``2.0`` included) is a
    TypeError, never rounded; an index outside ``0..n_nodes-1`` or an empty
    selection is a ValueError.
    """
    try:
        array = np.asarray(nodes.to_numpy() if hasattr(nodes, "to_numpy") else nodes)
    except ValueError:  # ragged nesting
        raise TypeError(f"{name} must be a list of node indices or a boolean mask, not a ragged list.") from None
    if array.dtype == bool:
        nodes = np.flatnonzero(check_mask(array, name, n_nodes, meaning="True = use this node"))
    return check_positions(nodes, name, n_nodes, allow_empty=False).astype(np.intp, copy=False)


def _bandwidth(bandwidth):
    """``bandwidth``: 'scott', 'silverman', or a positive finite number (returned as float)."""
    if isinstance(bandwidth, str):
        return check_choice(bandwidth, "bandwidth", ("scott", "silverman"))
    return check_number(bandwidth, "bandwidth", minimum=0.0, strict_minimum=True)


def _kde_bandwidth(train: np.ndarray, bandwidth) -> float:
    if isinstance(bandwidth, str):
        # the library's rule of thumb (Scott 1992): n**(-1/(d+4)); the data are already scaled to [0, 1]
        return float(KernelDensity(bandwidth=bandwidth).fit(train).bandwidth_)
    return bandwidth


def _kde_weights(dist, log_density_mid):
    """The density weight of the FACEGroup authors' code :math:`d^2 / p(\\text{midpoint})`, computed in log space.

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


def _kernel_factors(Z, train, h):
    """Per node: the shifted kernel factors ``A``, their shift ``peak`` and the node's log density.

    ``half[i, k] = -||z_i - x_k||^2 / (4 h^2)`` (half of the Gaussian exponent),
    ``peak[i] = max_k half[i, k]``, ``A[i, k] = exp(half[i, k] - peak[i])`` and
    ``node[i] = log sum_k exp(2 half[i, k])``. Every quantity is row-wise, so the
    dense (nodes x training points) exponent is formed in blocks of rows
    (``_KDE_CELLS`` cells at a time) and only ``A`` is kept whole: the build
    holds one float64 matrix of that shape, not the several the one-shot
    formula held at once (squared distances, exponents, ``A``, their doubles).
    """
    n, m = len(Z), len(train)
    A, peak, node = np.empty((n, m)), np.empty(n), np.empty(n)
    train_sq = (train ** 2).sum(1)
    step = max(1, _KDE_CELLS // max(m, 1))
    for start in range(0, n, step):
        block = Z[start:start + step]
        sq = (block ** 2).sum(1)[:, None] + train_sq[None, :] - 2.0 * block @ train.T
        half = -np.maximum(sq, 0.0) / (4.0 * h * h)  # half of the Gaussian exponent
        peak[start:start + step] = top = half.max(axis=1)
        A[start:start + step] = np.exp(half - top[:, None])
        node[start:start + step] = logsumexp(2.0 * half, axis=1)  # log sum_k exp(-||z - x_k||^2 / 2h^2)
    return A, peak, node


def _relative_log_density(Z, rows, cols, bandwidth, max_kde_points, random_state):
    """Log KDE density at each edge's midpoint and at each node, relative to the mean node density.

    Uses the identity ||(a+b)/2 - x||^2 = ||a-x||^2/2 + ||b-x||^2/2 - ||a-b||^2/4, so the
    Gaussian kernel at a midpoint factorises into per-endpoint terms: one dense
    (nodes x training points) matrix (:func:`_kernel_factors`, built in blocks of
    rows), then one dot product per edge (in blocks of edges). Exact for
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
    A, peak, node = _kernel_factors(Z, train, h)
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


def _immutable_blocks(Z: np.ndarray, encoder: Encoder | None) -> np.ndarray | None:
    """A block label per row: rows share a block when every immutable discrete feature has the same level.

    A feasible move never changes an immutable feature, so pairs need only be searched inside a
    block. Only discrete features are used: their encoded levels are exact, so equal levels give
    equal numbers (a continuous immutable feature is left to :meth:`Encoder.feasible`'s tolerance).
    None when there is no such feature.
    """
    if encoder is None:
        return None
    columns = [np.arange(encoder.slices_[s.name].start, encoder.slices_[s.name].stop) for s in encoder.specs_
               if s.actionability == "immutable" and s.kind != "continuous"]
    if not columns:
        return None
    return np.unique(Z[:, np.concatenate(columns)], axis=0, return_inverse=True)[1].ravel()


def _pairs_in_blocks(Z: np.ndarray, epsilon: float, encoder: Encoder | None):
    """:func:`_radius_pairs`, searched inside the blocks of :func:`_immutable_blocks` (all rows if none)."""
    labels = _immutable_blocks(Z, encoder)
    if labels is None:
        return _radius_pairs(Z, epsilon)
    found = [(np.empty(0, dtype=int), np.empty(0, dtype=int), np.empty(0))]
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        if members.size > 1:
            rows, cols, dist = _radius_pairs(Z[members], epsilon)
            found.append((members[rows], members[cols], dist))
    rows, cols, dist = (np.concatenate(parts) for parts in zip(*found, strict=True))
    return rows, cols, dist


def _feasible_edges(Z: np.ndarray, epsilon: float, encoder: Encoder | None):
    """Step 1: the ordered pairs within epsilon whose move is feasible, and their lengths."""
    rows, cols, dist = _pairs_in_blocks(Z, epsilon, encoder)
    if rows.size == 0 and len(Z) > 1:
        nearest = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(Z)[0][:, 1]
        if nearest.min() <= epsilon:  # pairs within epsilon exist, but each changes an immutable feature
            return rows, cols, dist
        raise ValueError(
            f"epsilon={epsilon} leaves all {len(Z)} nodes without an edge; the median nearest-neighbour "
            f"distance is {np.median(nearest):.3g}. Choose a larger epsilon (see connectivity_by_epsilon)."
        )
    if encoder is not None and rows.size:
        keep = np.empty(rows.size, dtype=bool)
        for start in range(0, rows.size, _PAIR_CHUNK):  # bounded gathers of edge end points
            r, c = rows[start:start + _PAIR_CHUNK], cols[start:start + _PAIR_CHUNK]
            keep[start:start + _PAIR_CHUNK] = encoder.feasible(Z[r], Z[c])
        rows, cols, dist = rows[keep], cols[keep], dist[keep]
    return rows, cols, dist


def _kde_edge_weights(Z, rows, cols, dist, bandwidth, max_kde_points, random_state):
    """Step 2 for ``weighting="kde"``: the authors' density weights, the node densities, bandwidth, scale, caps."""
    # a midpoint is shared by i->j and j->i: evaluate each unordered pair once
    lo, hi = np.minimum(rows, cols), np.maximum(rows, cols)
    unique_keys, inverse = np.unique(lo.astype(np.int64) * len(Z) + hi, return_inverse=True)
    mid_log, log_density, h = _relative_log_density(Z, unique_keys // len(Z), unique_keys % len(Z), bandwidth,
                                                    max_kde_points, random_state)
    weights, log_scale, n_capped = _kde_weights(dist, mid_log[inverse])
    return weights, log_density, h, log_scale, n_capped


def _warn_kde_scale(h: float, epsilon: float, n_edges: int, log_scale: float, n_capped: int) -> None:
    """Step 3: say when the KDE weights had to be rescaled or capped to fit in float64."""
    if n_capped:
        warnings.warn(
            f"build_feasibility_graph: with bandwidth={h:.3g} and epsilon={epsilon:g} the KDE "
            f"weights d^2/p span more than float64 can hold; {n_capped} of {n_edges} edge weights were "
            "capped at the largest storable value, so paths through those edges may tie (see "
            "graph.n_capped_weights). Use a larger bandwidth (e.g. 'scott') or a smaller epsilon.",
            stacklevel=3,
        )
    elif log_scale:
        warnings.warn(
            f"build_feasibility_graph: with bandwidth={h:.3g} and epsilon={epsilon:g} the KDE "
            f"weights d^2/p would over- or underflow float64; all of them were multiplied by "
            f"exp({log_scale:.4g}) (graph.log_weight_scale). Shortest paths and FACE's choices are unchanged; "
            "'path' costs are in this unit. A larger bandwidth avoids the rescaling.",
            stacklevel=3,
        )


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
    intent :cite:p:`poyiadzi2020face`. Under our reading of the FACEGroup paper,
    whose text writes the weight as the plain product of density and cost (which
    would make dense paths *dearer*), we follow FACE. Dividing every weight by
    the same :math:`\\bar p` changes no shortest path; it only fixes the unit: a
    weight is the squared length of a step whose midpoint is as dense as an
    average node. The weight is computed in log space,
    :math:`\\log w = 2 \\log d - \\log \\tilde p`, so neither a tiny density nor
    a tiny bandwidth overflows; if the weights still span more than float64 can
    hold, all of them are multiplied by one common factor (``log_weight_scale``,
    with a warning), and if even that is not enough the largest are capped
    (``n_capped_weights``, with a warning): use a larger bandwidth then.

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
    Z = check_array(Z, "Z", ndim=2, width=None if encoder is None else encoder.n_columns)
    epsilon = check_number(epsilon, "epsilon", minimum=0.0, strict_minimum=True)
    check_choice(weighting, "weighting", WEIGHTINGS)
    max_kde_points = check_int(max_kde_points, "max_kde_points", minimum=2)
    bandwidth = _bandwidth(bandwidth)
    check_rng(random_state)

    rows, cols, dist = _feasible_edges(Z, epsilon, encoder)
    kde = (None, None, 0.0, 0)  # log densities, bandwidth, log scale, capped weights
    if weighting == "distance":
        weights = dist
    elif weighting == "hops":
        weights = np.ones_like(dist)
    else:
        weights, *kde = _kde_edge_weights(Z, rows, cols, dist, bandwidth, max_kde_points, random_state)
        _warn_kde_scale(kde[1], epsilon, weights.size, kde[2], kde[3])
    log_density, h, log_scale, n_capped = kde
    shape = (len(Z), len(Z))
    return FeasibilityGraph(csr_matrix((weights, (rows, cols)), shape=shape), csr_matrix((dist, (rows, cols)),
                            shape=shape), Z, epsilon, weighting, h, log_density, log_scale, n_capped, encoder)

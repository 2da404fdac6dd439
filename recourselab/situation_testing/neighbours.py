"""The control and test groups of k-NN situation testing, for every complainant at once.

The control group of complainant c is the k protected rows nearest c (c excluded); the
test group is the k reference rows nearest the test centre: c's own row (ST) or c's
counterfactual row (CST) :cite:p:`alvarez2023cst,thanh2011knn`. Distances are the L1
distances of the rows rescaled by :func:`.situation_distance_transform`; one
``scipy.spatial.cKDTree`` per search space answers the queries in chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.spatial import cKDTree
from tqdm.auto import tqdm

from .._validation import check_aligned, check_bool, check_int, check_mask
from .distance import as_frame, bitwise_distances, check_options, match_cf, transform

__all__ = ["Groups", "build_groups"]

MEANING = {
    "protected": "True or 1 = in the protected group",
    "reference": "True or 1 = in the reference group",
    "y_hat": "decisions: 1 = favourable, 0 = refused",
    "y_hat_cf": "decisions on the counterfactual rows: 1 = favourable, 0 = refused",
}

# Queries per chunk: bounds the memory of one chunk's candidate arrays (roughly 100 bytes per candidate, so
# 20,000 queries with k = 15 need some tens of MB) and is the unit of work handed to joblib.
_CHUNK_SIZE = 20_000
# Neighbours fetched beyond k are chosen by a pilot of about _PILOT queries: enough that the rows tied at the
# k-th distance are among them for 90% of the pilot (at most _MAX_SPARE), so the radius query is needed only
# for the few queries whose ties spill over. Each spare neighbour costs time in many dimensions, each spill a
# second search: the pilot balances the two for the data at hand.
_PILOT = 1000
_MAX_SPARE = 32
# Cells (see _CellTrees): a column of the rescaled rows with at most _KEY_LEVELS distinct values may split the
# search space into cells, as long as the cells hold _MIN_CELL_ROWS rows on average.
_KEY_LEVELS = 8
_MIN_CELL_ROWS = 500


@dataclass(frozen=True)
class Groups:
    """Control and test groups of every complainant (row positions in X).

    Attributes
    ----------
    complainants : ndarray of int, shape (m,)
        Row positions of the complainants (the protected rows).
    control : ndarray of int, shape (m, k)
        The k protected rows nearest the complainant (the complainant excluded).
    test : ndarray of int, shape (m, k)
        The k reference rows nearest the test centre.
    k : int
    """

    complainants: np.ndarray
    control: np.ndarray
    test: np.ndarray
    k: int

    def to_frame(self) -> pd.DataFrame:
        """One row per complainant (by row position): the positions of its control and test groups.

        Examples
        --------
        >>> import numpy as np
        >>> g = Groups(np.array([0]), np.array([[1, 2]]), np.array([[3, 4]]), 2)
        >>> g.to_frame()
                    control    test
        complainant
        0            [1, 2]  [3, 4]
        """
        return pd.DataFrame({"control": [list(map(int, row)) for row in self.control],
                             "test": [list(map(int, row)) for row in self.test]},
                            index=pd.Index(self.complainants.astype(int), name="complainant"))


def build_groups(X, protected, *, k: int, X_cf=None, reference=None, categorical=None, normalize: str = "range",
                 cf_scaling: str = "factual", ties: str = "row", n_jobs=None, chunk_size=None,
                 progress: bool = False) -> Groups:
    """The control and test groups of k-NN situation testing for every complainant.

    Parameters
    ----------
    X : pandas.DataFrame or array of shape (n, p)
        Decision-relevant attributes of every individual.
    protected : array of bool or 0/1, shape (n,)
        Membership of the protected group; every protected row is a complainant
        and the protected rows form the control search space.
    k : int
        Group size (a Python or numpy integer >= 1; a float such as ``2.0`` is
        refused, never rounded).
    X_cf : like X, optional
        Counterfactual rows: the test centre of complainant ``i`` is
        ``X_cf[i]`` (CST); without it the test centre is ``X[i]`` (ST).
    reference : array of bool, shape (n,), optional
        The test search space; default: the non-protected rows. For an
        intersectional test (e.g. non-white women) pass the rows of the
        reference intersection (white men).
    categorical : list of str, optional
        See :func:`situation_distance_transform`.
    normalize : {"range", "std"}, default "range"
        The spread that divides numeric differences (see
        :func:`situation_distance_transform`): the paper's range, or the
        standard deviation of the authors' code.
    cf_scaling : {"factual", "refit"}, default "factual"
        Measure counterfactual rows with the factual ruler (the paper), or
        re-fit the normalisation on ``X_cf`` first (the authors' code); see
        :func:`situation_distance_transform`.
    ties : {"row", "bitwise"}, default "row"
        How candidates at the same distance are ordered. ``"row"``: distances
        that agree to 12 decimals are ties, and the lower row position comes
        first, so the groups are reproducible and do not depend on rounding
        noise. ``"bitwise"``: distances are computed as the authors' code does
        (centred normalised values, differences summed attribute by attribute)
        and compared bit for bit, so candidates tied in exact arithmetic are
        ordered by rounding noise, and among bit-identical distances the higher
        row position comes first (the authors' heap). Use it only to reproduce
        their published numbers.
    n_jobs : int, optional
        Parallel jobs for the neighbour searches, through joblib (threads by
        default: the KD-tree queries release the GIL). None means one job, or
        what an enclosing ``joblib.parallel_config`` sets; -1 means all cores.
        Complainants are independent given the search trees, so the same call
        runs on a Dask cluster with ``joblib.parallel_config(backend="dask")``
        (install ``recourselab[dask]``). The groups never depend on it.
    chunk_size : int, optional
        Complainants per job (default 20,000): bounds the memory of one job
        (roughly ``chunk_size * (k + 2) * 100`` bytes) and sets the grain of the
        parallel work. The groups never depend on it.
    progress : bool, default False
        Show a tqdm progress bar (one step per chunk of each search), useful
        above some 10^5 rows.

    Returns
    -------
    Groups

    Notes
    -----
    With ``ties="row"`` the groups are those of the literal search
    :func:`recourselab.situation_testing.paper.top_k` (every candidate's
    distance, a stable sort), which the tests check.

    One ``scipy.spatial.cKDTree`` per search space answers the queries in the
    tree's leaf order, fetching a few neighbours beyond k (as many as a pilot
    of 1,000 queries shows are needed to see the ties) and asking for every
    row within the k-th distance only where the ties spill over. On a
    synthetic loan table with a million rows (about 450,000 complainants, three
    columns) ST takes seconds on one core, and time grows about linearly with
    the rows (``benchmarks/situation_testing.py``). With many columns that
    vary independently any KD-tree slows down (the curse of dimensionality):
    measure on a sample first.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.5], [0.0], [0.2], [0.9]])
    >>> groups = build_groups(X, [1, 1, 1, 0, 0, 0], k=1)
    >>> groups.control.ravel().tolist(), groups.test.ravel().tolist()
    ([1, 0, 1], [3, 3, 4])
    """
    check_options(normalize, cf_scaling, ties)
    check_execution(n_jobs, chunk_size, progress)
    check_aligned(X, "X", protected=protected, X_cf=X_cf)
    check_aligned(X, "X", reference=reference)
    frame = as_frame(X, "X")
    frame_cf = match_cf(frame, X_cf)
    protected = check_mask(protected, "protected", len(frame), meaning=MEANING["protected"])
    reference = None if reference is None else check_mask(reference, "reference", len(frame),
                                                           meaning=MEANING["reference"])
    return build(frame, protected, k, frame_cf, reference, categorical, normalize, cf_scaling, ties, n_jobs,
                 chunk_size, progress)


def check_execution(n_jobs, chunk_size, progress) -> None:
    """Validate the keyword arguments that say how the neighbour search runs (not what it computes)."""
    if n_jobs is not None and check_int(n_jobs, "n_jobs") == 0:
        raise ValueError("n_jobs=0 runs nothing; give None (one job, or what an enclosing joblib.parallel_config "
                         "sets), a positive integer (that many parallel jobs) or a negative one (-1 = all cores, "
                         "-2 = all but one).")
    if chunk_size is not None:
        check_int(chunk_size, "chunk_size", minimum=1)
    check_bool(progress, "progress")


def check_spaces(protected: np.ndarray, reference, k) -> tuple[np.ndarray, int]:
    """The reference mask (default: the non-protected rows) and k, checked against the two search spaces."""
    if protected.all() or not protected.any():
        raise ValueError(
            f"protected has a single value ({'all' if protected.all() else 'no'} rows protected); "
            "situation testing compares a protected group with a reference group."
        )
    if reference is None:
        reference = ~protected
    elif not reference.any():
        raise ValueError("reference selects no rows; the test search space must hold at least k rows.")
    if (reference & protected).any():
        raise ValueError("reference and protected overlap; a row cannot be in both search spaces.")
    k = check_int(k, "k", minimum=1)
    m = int(protected.sum())
    if k > m - 1:
        raise ValueError(f"k={k} is larger than the control search space: {m} protected rows, {m - 1} besides the "
                         f"complainant. Use k <= {m - 1}.")
    if k > reference.sum():
        raise ValueError(f"k={k} is larger than the test search space ({int(reference.sum())} reference rows). "
                         f"Use k <= {int(reference.sum())}.")
    return reference, k


def build(frame: pd.DataFrame, protected: np.ndarray, k, frame_cf, reference, categorical, normalize: str = "range",
          cf_scaling: str = "factual", ties: str = "row", n_jobs=None, chunk_size=None,
          progress: bool = False) -> Groups:
    """:func:`build_groups` on checked frames (0..n-1 index) and masks: the spaces, the transform, two searches."""
    if len(frame) == 0:
        raise ValueError("X has 0 rows; situation testing needs a protected and a reference group.")
    reference, k = check_spaces(protected, reference, k)
    T, T_cf, raw = transform(frame, frame_cf, categorical, normalize, cf_scaling, bitwise=ties == "bitwise")
    complainants = np.flatnonzero(protected)
    centres = T[complainants] if T_cf is None else T_cf[complainants]
    reference_rows = np.flatnonzero(reference)
    control_order = test_order = None
    if raw is not None:
        kinds, R, R_cf = raw
        R_centres = R[complainants] if R_cf is None else R_cf[complainants]
        control_order = (kinds, R[complainants], R[complainants])   # the search space is the complainants
        test_order = (kinds, R_centres, R[reference_rows])
    size = _CHUNK_SIZE if chunk_size is None else chunk_size
    with tqdm(total=2 * -(-len(complainants) // size), disable=not progress, desc="situation testing",
              unit="chunk") as bar:
        control = _k_nearest(complainants, T[complainants], T[complainants], k, exclude=complainants,
                             bitwise=control_order, n_jobs=n_jobs, chunk_size=size, bar=bar)
        test = _k_nearest(reference_rows, T[reference_rows], centres, k, bitwise=test_order, n_jobs=n_jobs,
                          chunk_size=size, bar=bar)
    return Groups(complainants, control, test, k)


def _sequential_l1(T_query, columns, candidates):
    """L1 distances from each query row to its candidate rows, summed column by column in column order.

    This is the exact floating-point sum scikit-learn's KD-tree computes for the manhattan metric
    (``d = 0; d += |x_j - y_j|`` for j = 0, 1, ...), which the tie rule (distances rounded to 12
    decimals) was defined on. ``columns`` are the columns of the search space (contiguous copies);
    ``candidates`` is an (m, c) array of row positions in it, or a flat array aligned with
    ``T_query`` (one candidate per query row).
    """
    flat = candidates.ndim == 1
    total = np.zeros(candidates.shape)
    for j, column in enumerate(columns):
        q = T_query[:, j] if flat else T_query[:, j, None]
        total += np.abs(q - column[candidates])
    return total


def _spare_neighbours(tree, columns, pilot, need):
    """How many neighbours beyond ``need`` to fetch: enough for the ties of 90% of the ``pilot`` queries (>= 1)."""
    n_space = len(columns[0])
    fetch = min(need + _MAX_SPARE, n_space)
    if fetch == need:
        return 0
    _, found = tree.query(pilot, k=fetch, p=1)
    dist = _sequential_l1(pilot, columns, found.reshape(len(pilot), fetch))
    kth = np.partition(dist, need - 1, axis=1)[:, need - 1]
    tied = (dist <= (kth * (1 + 1e-9) + 1e-12)[:, None]).sum(axis=1) - need   # rows tied beyond the need-th
    return int(min(np.quantile(tied, 0.9) + 1, fetch - need))


def _chunk_nearest(tree, columns, space_rows, T_query, ids, k, exclude, bitwise, spare):
    """The k nearest rows for the queries ``ids`` (positions in the query array; one chunk): see :func:`_k_nearest`.

    One cKDTree query fetches k + 1 + ``spare`` neighbours; their distances are recomputed with
    :func:`_sequential_l1`, the radius is the (k + 1)-th of them (k-th without ``exclude``) with the
    same hair of slack as always, and a query whose fetched neighbours all lie within the radius (ties
    may spill over) is answered by a radius query instead (:func:`_spilled_nearest`). The survivors
    are ordered by (distance rounded to 12 decimals, row), or with ``bitwise`` by (the authors'
    unrounded distance, higher row first).
    """
    m, n_space = len(T_query), len(columns[0])
    need = min(k + (exclude is not None), n_space)   # the neighbour whose distance sets the radius
    fetch = min(need + spare, n_space)
    _, found = tree.query(T_query, k=fetch, p=1)
    found = found.reshape(m, fetch)
    dist = _sequential_l1(T_query, columns, found)
    kth = np.partition(dist, need - 1, axis=1)[:, need - 1]
    radius = kth * (1 + 1e-9) + 1e-12       # a hair of slack: every row tied at the k-th distance is in
    # a row left out by the query is at least as far as the farthest fetched one, up to rounding noise
    spill = (dist.max(axis=1) <= radius * (1 + 1e-9) + 1e-12) & (fetch < n_space)
    out = np.full((m, k), -1, dtype=np.int64)
    done = np.flatnonzero(~spill)
    if len(done):
        rows = space_rows[found[done]]
        invalid = dist[done] > radius[done, None]
        if exclude is not None:
            invalid |= rows == exclude[done, None]
        if bitwise is None:
            key = np.round(dist[done], 12)
            key[invalid] = np.inf
            order = np.lexsort((rows, key), axis=1)[:, :k]
        else:
            kinds, R_query, R_space = bitwise
            key = bitwise_distances(kinds, R_query, R_space, np.repeat(ids[done], fetch),
                                    found[done].ravel()).reshape(len(done), fetch)
            key[invalid] = np.inf
            order = np.lexsort((-rows, key), axis=1)[:, :k]
        # an invalid candidate among the first k cannot happen (>= k rows lie within the radius): -1 reports it
        out[done] = np.where(np.take_along_axis(invalid, order, axis=1), -1, np.take_along_axis(rows, order, axis=1))
    spilled = np.flatnonzero(spill)
    if len(spilled):
        out[spilled] = _spilled_nearest(tree, columns, space_rows, T_query[spilled], ids[spilled], k, need,
                                        radius[spilled], None if exclude is None else exclude[spilled], bitwise)
    return out


def _spilled_nearest(tree, columns, space_rows, T_query, ids, k, need, radius, exclude, bitwise):
    """The k nearest rows for queries whose ties spill over the fetched neighbours: every row within the radius."""
    # every row within the radius (wider by the noise between the tree's sums and ours) ...
    balls = tree.query_ball_point(T_query, r=radius * (1 + 1e-9) + 1e-12, p=1, return_sorted=False)
    counts = np.array([len(b) for b in balls])
    query = np.repeat(np.arange(len(T_query)), counts)
    local = np.concatenate([np.asarray(b, dtype=np.int64) for b in balls])
    dist = _sequential_l1(T_query[query], columns, local)
    # ... whose sums set the (k + 1)-th distance exactly as the reference's query does
    by_distance = np.lexsort((dist, query))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    kth = dist[by_distance[starts + need - 1]]
    keep = dist <= kth[query] * (1 + 1e-9) + 1e-12
    rows = space_rows[local]
    if exclude is not None:
        keep &= rows != exclude[query]
    query, rows, dist, local = query[keep], rows[keep], dist[keep], local[keep]
    if bitwise is None:
        order = np.lexsort((rows, np.round(dist, 12), query))
    else:
        kinds, R_query, R_space = bitwise
        order = np.lexsort((-rows, bitwise_distances(kinds, R_query, R_space, ids[query], local), query))
    query, rows = query[order], rows[order]
    starts = np.searchsorted(query, np.arange(len(T_query)))
    rank = np.arange(len(query)) - starts[query]
    take = rank < k
    block = np.full((len(T_query), k), -1, dtype=np.int64)
    block[query[take], rank[take]] = rows[take]
    return block


def _key_columns(T_space):
    """Columns of the rescaled rows to split the search space on (see :class:`_CellTrees`); none: one tree.

    The candidates are the columns with at most ``_KEY_LEVELS`` distinct values (a category's one-hot columns,
    a yes/no, a small count). They are taken greedily, the largest step between two of a column's values first
    (rows that differ there are far apart, so a query rarely has to look into another cell), while the cells
    hold ``_MIN_CELL_ROWS`` rows on average.
    """
    n = len(T_space)
    budget = n // _MIN_CELL_ROWS
    candidates = []
    for j in range(T_space.shape[1]):
        column = T_space[:, j]
        if len(np.unique(column[::max(1, n // 1000)])) > _KEY_LEVELS:
            continue   # a sample already shows too many values: skip the full count
        values = np.unique(column)
        if 1 < len(values) <= _KEY_LEVELS:
            candidates.append((-np.diff(values).min(), j))
    key, code = [], np.zeros(n, dtype=np.int64)
    for _, j in sorted(candidates):
        cells, joined = _split_cells(code, T_space[:, j])
        if len(cells) > budget or len(key) == T_space.shape[1] - 1:   # one column at least stays in the trees
            break
        key.append(j)
        code = joined
    return key


def _split_cells(code, column):
    """The cells (numbered from 0) of rows that share a cell of ``code`` and a value of ``column``, and each row's."""
    values, inverse = np.unique(column, return_inverse=True)
    cells, joined = np.unique(code * len(values) + inverse.ravel(), return_inverse=True)
    return cells, joined.ravel()


def _cells(T, key):
    """The distinct values of the ``key`` columns (one row per cell) and each row's cell."""
    code = np.zeros(len(T), dtype=np.int64)
    for j in key:
        code = _split_cells(code, T[:, j])[1]
    _, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    return T[np.ix_(first, key)], inverse.ravel()


class _CellTrees:
    """One ``cKDTree`` per cell of the rows that agree on the ``key`` columns, queried like one cKDTree (L1).

    Why: ``cKDTree`` splits a node on the column that spreads most, so a one-hot or yes/no column (spread 1/(2p)
    or 1/p, but every change a full step) is split late and a query wades through rows of other categories. On
    the benchmark's ten-column lender table the tree queries took about 2.5 times longer in one tree than in one
    tree per cell, and the three situation-testing calls 1.5 times longer (benchmarks/situation_testing.py).

    The answer is the same: within a cell the key columns are constant, so the L1 distance of a
    query to a row of cell c is the cell's ``bound`` (the L1 distance of the key columns) plus the distance on
    the other columns, and a cell whose bound exceeds a query's current k-th distance holds none of its k
    nearest. Each group of queries with the same key values visits the cells by increasing bound and stops at
    the first one that no query of the group can reach.
    """

    def __init__(self, T, key):
        self.key = list(key)
        self.rest = [j for j in range(T.shape[1]) if j not in set(self.key)]
        self.n = len(T)
        self.cells, inverse = _cells(T, self.key)
        by_cell = np.argsort(inverse, kind="stable")
        edges = np.searchsorted(inverse[by_cell], np.arange(len(self.cells) + 1))
        self.members = [by_cell[edges[c]:edges[c + 1]] for c in range(len(self.cells))]
        self.trees = [cKDTree(np.ascontiguousarray(T[np.ix_(rows, self.rest)]), balanced_tree=False)
                      for rows in self.members]
        # the rows in the trees' leaf order, cell by cell (the order in which to ask self-queries)
        self.indices = np.concatenate([rows[tree.indices] for rows, tree in zip(self.members, self.trees, strict=True)])

    def _groups(self, T_query):
        """Per set of queries with the same key values: their positions and each cell's bound."""
        values, inverse = _cells(T_query, self.key)
        for g in range(len(values)):
            bound = np.zeros(len(self.cells))
            for j in range(len(self.key)):
                bound += np.abs(self.cells[:, j] - values[g, j])
            yield np.flatnonzero(inverse == g), bound

    def query(self, T_query, k, p=1):
        """The k nearest rows of every query (distances, positions), as ``cKDTree.query(T_query, k, p=1)``."""
        m = len(T_query)
        dist, found = np.full((m, k), np.inf), np.full((m, k), self.n, dtype=np.int64)
        for rows, bound in self._groups(T_query):
            rest = T_query[np.ix_(rows, self.rest)]
            d, f = dist[rows], found[rows]
            for c in np.argsort(bound, kind="stable"):
                reach = d[:, -1] * (1 + 1e-9) + 1e-12 - bound[c]   # slack as elsewhere: rounding noise
                active = np.flatnonzero(reach >= 0)
                if not len(active):
                    break   # no query of the group reaches this cell, nor any farther one
                size = len(self.members[c])
                dd, ff = self.trees[c].query(rest[active], k=min(k, size), p=1,
                                             distance_upper_bound=reach[active].max() * (1 + 1e-9) + 1e-12)
                dd, ff = dd.reshape(len(active), -1), ff.reshape(len(active), -1)
                hit = np.isfinite(dd[:, 0])   # some row of the cell closer than the k-th so far
                active, dd, ff = active[hit], dd[hit], ff[hit]
                ff = np.where(ff < size, self.members[c][np.minimum(ff, size - 1)], self.n)
                D = np.concatenate([d[active], dd + bound[c]], axis=1)
                F = np.concatenate([f[active], ff], axis=1)
                best = np.argsort(D, axis=1, kind="stable")[:, :k]
                d[active], f[active] = np.take_along_axis(D, best, axis=1), np.take_along_axis(F, best, axis=1)
            dist[rows], found[rows] = d, f
        return dist, found

    def query_ball_point(self, T_query, r, p=1, return_sorted=False):
        """Every row within ``r[i]`` of query i (positions, unsorted), as ``cKDTree.query_ball_point``."""
        r = np.broadcast_to(np.asarray(r, dtype=float), (len(T_query),))
        parts = [[] for _ in range(len(T_query))]
        for rows, bound in self._groups(T_query):
            for c in np.flatnonzero(bound <= r[rows].max() * (1 + 1e-9) + 1e-12):
                reach = r[rows] * (1 + 1e-9) + 1e-12 - bound[c]
                active = rows[reach >= 0]
                balls = self.trees[c].query_ball_point(T_query[np.ix_(active, self.rest)],
                                                       r=reach[reach >= 0] * (1 + 1e-9) + 1e-12, p=1)
                for i, ball in zip(active, balls, strict=True):
                    parts[i].append(self.members[c][np.asarray(ball, dtype=np.int64)])
        return [np.concatenate(b) if b else np.zeros(0, dtype=np.int64) for b in parts]


def _search_tree(T_space):
    """One ``cKDTree`` over the space, or one per cell when some columns take few values (:class:`_CellTrees`)."""
    key = _key_columns(T_space)
    return _CellTrees(T_space, key) if key else cKDTree(T_space, balanced_tree=False)


def _query_order(tree, T_space, T_query):
    """An order of the queries in which consecutive ones visit the same nodes (it changes no answer)."""
    if T_query is T_space or (T_query.shape == T_space.shape and np.array_equal(T_query, T_space)):
        return tree.indices
    order = cKDTree(T_query, balanced_tree=False).indices
    if isinstance(tree, _CellTrees):   # and the queries of one cell together
        order = order[np.argsort(_cells(T_query[order], tree.key)[1], kind="stable")]
    return order


def _k_nearest(space_rows, T_space, T_query, k, exclude=None, bitwise=None, *, n_jobs=None, chunk_size=None,
               bar=None):
    """For each query, the k nearest rows of the space by L1, ties broken by lower row position.

    The rows kept are those of the definition: every row within the query's
    k-th L1 distance (plus a hair of slack, so every row tied there is in),
    ordered by (distance rounded to 12 decimals, row position), the first k.
    ``exclude`` gives, per query, a row position to leave out (the complainant
    itself); the radius is then set by the (k + 1)-th neighbour. ``space_rows``
    are the row positions of the search space, in increasing order.

    ``bitwise`` is ``(kinds, R_query, R_space)`` for :func:`.bitwise_distances`:
    the candidates (all within a hair of the k-th distance) are then ordered by
    the distances the authors' code computes, the higher row first among exact
    ties.

    Queries are answered in chunks of ``chunk_size`` (memory stays bounded),
    handed to joblib with ``n_jobs`` (threads by default; any joblib backend,
    such as Dask's, through ``joblib.parallel_config``). One
    ``scipy.spatial.cKDTree`` serves every chunk; each chunk fetches a few
    neighbours beyond k and asks the tree for every row within the radius only
    when the ties spill over them. ``bar`` is a tqdm bar advanced by one per
    chunk.
    """
    m = len(T_query)
    T_space = np.ascontiguousarray(T_space, dtype=float)
    T_query = np.ascontiguousarray(T_query, dtype=float)
    tree = _search_tree(T_space)
    columns = [np.ascontiguousarray(T_space[:, j]) for j in range(T_space.shape[1])]
    # Queries in the tree's leaf order: consecutive queries visit the same nodes, which keeps them in the
    # cache (about 2.5 times faster on a million rows). The order does not change any query's answer.
    order = _query_order(tree, T_space, T_query)
    spare = _spare_neighbours(tree, columns, T_query[order[::max(1, m // _PILOT)]],
                              min(k + (exclude is not None), len(T_space)))
    size = _CHUNK_SIZE if chunk_size is None else chunk_size
    chunks = [order[s:s + size] for s in range(0, m, size)]
    tasks = (delayed(_chunk_nearest)(tree, columns, space_rows, T_query[ids], ids, k,
                                     None if exclude is None else exclude[ids], bitwise, spare) for ids in chunks)
    out = np.full((m, k), -1, dtype=np.int64)
    parallel = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")
    for ids, part in zip(chunks, parallel(tasks), strict=True):
        out[ids] = part
        if bar is not None:
            bar.update(1)
    if (out < 0).any():  # cannot happen when the space has >= k rows besides the excluded one
        raise RuntimeError("a neighbour group came out short; please report this with the data.")
    return out

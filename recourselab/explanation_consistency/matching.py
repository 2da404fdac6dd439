"""Counterfactual partners by label-stratified matching (the paper's Algorithm 1) and the label-group baselines.

:func:`match_counterfactuals` pairs every person with the nearest person of the other group with the same
true label, on the standardised financial features; :func:`label_group_baselines` gives every row the mean
of its own (label, group) cell, the baseline both members of a pair are explained against (Principle 1).
The literal version of the matching is :func:`recourselab.explanation_consistency.paper.label_stratified_matching`.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.spatial import cKDTree

from .._validation import check_aligned, check_number, check_table, is_integer, plain
from ._inputs import cell_counts, encode_groups, feature_names, group_codes, labels, row_index

__all__ = ["MatchResult", "match_counterfactuals", "counterfactual_rows", "label_group_means",
           "label_group_baselines"]

_TIE_RTOL = 1e-9           # distances equal up to this relative rounding count as ties in matching
_TIE_ATOL = 1e-12


@dataclass(frozen=True)
class MatchResult:
    """Counterfactual partners found by :func:`match_counterfactuals`.

    Attributes
    ----------
    index : ndarray of int, shape (n,)
        Position (0-based row number, not pandas label) of each row's partner in
        the pool; -1 when unmatched.
    distance : ndarray of float, shape (n,)
        Distance to the partner on the standardised financial features; NaN
        when unmatched.
    matched : ndarray of bool, shape (n,)
    nearest_distance : ndarray of float, shape (n,)
        Distance to the nearest candidate before the threshold ``tau`` is
        applied (so rejected matches can be inspected).
    tau : float or None
        The distance threshold used (None: no threshold).
    n_unmatched_by_tau : int
        Rows whose nearest candidate lay farther than ``tau``.
    group_values : tuple
        The two values of the protected attribute; the first is coded 0.
    group : ndarray of int, shape (n,)
        Each row's group code (0/1); its partner belongs to ``1 - group``.
    financial : tuple
        The financial features matched on.
    pool_size : int
        Number of rows in the pool the positions refer to.
    """

    index: np.ndarray
    distance: np.ndarray
    matched: np.ndarray
    nearest_distance: np.ndarray
    tau: float | None
    n_unmatched_by_tau: int
    group_values: tuple
    group: np.ndarray = field(repr=False)
    financial: tuple = ()
    pool_size: int = 0
    row_index: pd.Index = field(default=None, repr=False)

    @property
    def coverage(self) -> float:
        """Share of rows that found a partner."""
        return float(self.matched.mean()) if len(self.matched) else float("nan")

    @property
    def partner_group(self) -> np.ndarray:
        """The group value of each row's partner (the opposite group)."""
        return np.asarray(self.group_values)[1 - self.group]

    def to_frame(self) -> pd.DataFrame:
        """One row per matched-for row: partner position, distance, matched flag, nearest distance."""
        return pd.DataFrame(
            {"match_index": self.index, "distance": self.distance, "matched": self.matched,
             "nearest_distance": self.nearest_distance},
            index=self.row_index,
        )


def _financial_list(financial) -> list:
    if financial is None:
        raise TypeError("financial=None; name the merit-based features to match on (column names, or positions "
                        "for an array).")
    if isinstance(financial, (str, numbers.Integral)):
        financial = [financial]
    financial = list(financial)
    if not financial:
        raise ValueError("financial is empty; name the merit-based features to match on.")
    return financial


def _financial_matrix(X, financial, name: str) -> tuple[np.ndarray, tuple]:
    """The financial columns of X as a float matrix (errors name the column) and their labels."""
    financial = _financial_list(financial)
    if isinstance(X, pd.DataFrame):
        repeated = [f for i, f in enumerate(financial) if f in financial[:i]]
        if repeated:
            raise ValueError(f"financial names {repeated} more than once; a repeated feature would count twice in "
                             "the matching distance. Name each feature once.")
        missing = [f for f in financial if f not in X.columns]
        if missing:
            raise ValueError(f"financial feature(s) {missing} are not columns of {name}; columns are "
                             f"{list(X.columns)}.")
        return np.ascontiguousarray(check_table(X[financial], name)), tuple(financial)
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{name}={X!r}; give a table of numbers (a 2-d array or a DataFrame).")
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise ValueError(f"{name} has shape {arr.shape}; give a 2-d table (rows = people, columns = features).")
    d = arr.shape[1]
    if not all(is_integer(f) for f in financial):
        raise TypeError(f"financial={financial} must be column positions 0..{d - 1} when {name} is an array (use a "
                        "DataFrame to select columns by name).")
    positions = np.asarray(financial, dtype=np.int64)
    outside = [int(f) for f in positions if not 0 <= f < d]
    if outside:
        raise ValueError(f"financial={financial} names column positions {outside} outside 0..{d - 1} of {name}.")
    if len(set(positions.tolist())) != len(positions):
        raise ValueError(f"financial={financial} names a column more than once; a repeated feature would count "
                         "twice in the matching distance. Name each feature once.")
    F = check_table(pd.DataFrame(arr[:, positions], columns=positions.tolist()).infer_objects(), name)
    return np.ascontiguousarray(F), tuple(int(f) for f in positions)


def _distances(Zq: np.ndarray, Zc: np.ndarray) -> np.ndarray:
    """Euclidean distances, summed column by column (a fixed order, so equal inputs give equal outputs)."""
    acc = np.zeros(np.broadcast_shapes(Zq.shape, Zc.shape)[:-1])
    for j in range(Zq.shape[-1]):
        acc += (Zq[..., j] - Zc[..., j]) ** 2
    return np.sqrt(acc)


def _nearest_stable(Zq: np.ndarray, Zs: np.ndarray, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Nearest row of ``Zs`` for each query; ties (up to rounding) go to the lowest pool position.

    Identical pool rows always tie, so only the first of each (the lowest
    position) enters the tree; on data with many duplicates (one-hot
    categories, zero capital gains) this keeps the tie search short.
    """
    _, first = np.unique(Zs, axis=0, return_index=True)
    first.sort()
    Zs, positions = Zs[first], positions[first]
    tree = cKDTree(Zs)
    k = min(4, len(Zs))
    d_kd, j = tree.query(Zq, k=k)
    d_kd, j = d_kd.reshape(len(Zq), k), j.reshape(len(Zq), k)
    reach = d_kd[:, 0] * (1 + 2 * _TIE_RTOL) + 2 * _TIE_ATOL   # a superset of every possible tie
    exact = _distances(Zq[:, None, :], Zs[j])
    exact[d_kd > reach[:, None]] = np.inf
    best = exact.min(axis=1)
    tie = exact <= best[:, None] * (1 + _TIE_RTOL) + _TIE_ATOL
    pos = np.where(tie, positions[j], np.iinfo(np.int64).max)
    choice = pos.argmin(axis=1)
    out_pos = pos[np.arange(len(Zq)), choice]
    out_dist = exact[np.arange(len(Zq)), choice]
    more = np.flatnonzero((d_kd[:, -1] <= reach) & (k < len(Zs)))  # all k candidates tied: look further
    for r in more:
        cand = np.asarray(tree.query_ball_point(Zq[r], reach[r]), dtype=np.int64)
        dist = _distances(Zq[r][None, :], Zs[cand])
        ties = dist <= dist.min() * (1 + _TIE_RTOL) + _TIE_ATOL
        pick = cand[ties][np.argmin(positions[cand[ties]])]
        out_pos[r], out_dist[r] = positions[pick], _distances(Zq[r][None, :], Zs[pick][None, :])[0]
    return out_pos, out_dist


def _reference_data(read, own, y, a, X_ref, y_ref, groups_ref, suffix: str):
    """The data a computation refers to: ``(X_ref, y_ref, groups_ref)`` when all three are given, else X itself.

    ``read(X, name)`` turns a table into the matrix the caller needs and ``own``
    is that matrix for X. Returns the reference matrix, its labels, the two
    group values, the reference rows' group codes, X's group codes (in the
    reference's coding) and the name of the groups argument for messages.
    """
    names = (f"X_{suffix}", f"y_{suffix}", f"groups_{suffix}")
    given = [v is not None for v in (X_ref, y_ref, groups_ref)]
    if any(given) and not all(given):
        raise ValueError(f"give {', '.join(names[:2])} and {names[2]} together (features, labels and groups), "
                         "or none of them to use X itself.")
    if not any(given):
        values, codes = group_codes(a, "groups")
        return own, y, values, codes, codes, "groups"
    check_aligned(X_ref, names[0], **{names[1]: y_ref, names[2]: groups_ref})
    M_ref = read(X_ref, names[0])
    y_r = labels(y_ref, names[1], len(M_ref))
    values, codes_ref = group_codes(labels(groups_ref, names[2], len(M_ref)), names[2])
    return M_ref, y_r, values, codes_ref, encode_groups(a, values, "groups", names[2]), names[2]


def _check_tau(tau) -> float | None:
    if tau is None:
        return None
    tau = check_number(tau, "tau", minimum=0.0)
    return tau if tau > 0 else None   # the paper's "if tau > 0": 0 means no threshold


def _empty_stratum(yp, ap_codes, values, label, g: int, n_rows: int, pool_groups: str) -> ValueError:
    counts = cell_counts(yp, ap_codes, values)
    label = plain(label)
    return ValueError(
        f"a group with no rows for a label: the pool has no rows with label y={label!r} in group "
        f"{pool_groups}={values[1 - g]!r}, so the {n_rows} row(s) with y={label!r}, groups={values[g]!r} cannot be "
        f"matched. Pool counts by (label, group): {counts}. Use a larger pool or merge labels."
    )


def match_counterfactuals(X, y, groups, financial, *, tau=None, X_pool=None, y_pool=None,
                          groups_pool=None) -> MatchResult:
    """Label-stratified nearest-neighbour counterfactuals (the paper's Definition 2 and Algorithm 1).

    Row :math:`i` is matched to the pool row of the *other* group with the
    *same* label that is nearest on the standardised financial features,

    .. math:: \\tilde x_i = x_{j^*}, \\quad
              j^* = \\operatorname{argmin}_{j:\\, a_j = 1 - a_i,\\; y_j = y_i}
              \\lVert z_{\\mathcal F}(x_i) - z_{\\mathcal F}(x_j) \\rVert_2 ,

    where :math:`a_j \\in \\{0, 1\\}` is the group code of row :math:`j` (from
    ``groups``, or ``groups_pool`` for the pool) and :math:`z_{\\mathcal F}`
    standardises the financial columns with the pool's mean and standard
    deviation (a constant column is left unscaled).
    The pool is the training data; by default it is ``X`` itself. One KD-tree
    per (label, group) stratum of the pool answers all queries. Distances equal
    up to rounding (relative 1e-9) are ties and go to the lowest pool position.
    The literal loop is :func:`~recourselab.explanation_consistency.paper.label_stratified_matching`.

    Parameters
    ----------
    X : pandas.DataFrame or 2-d array
        Rows to find partners for. Only the financial columns are used, and
        they must be numeric.
    y : array of shape (n,)
        True labels (any values; matching stays within a label; none missing).
    groups : array of shape (n,)
        Each row's group: a protected attribute with two values (any two, e.g.
        "female"/"male"; none missing).
    financial : list of column names (DataFrame) or column positions (array)
        The merit-based features :math:`\\mathcal F` to match on.
    tau : float, optional
        Reject partners farther than ``tau`` (in standardised units). None or 0
        means no threshold, as in the paper's "if τ > 0" rule.
    X_pool, y_pool, groups_pool : optional
        The pool to draw partners from (all three or none), e.g. the training
        fold when ``X`` is a test fold. Positions in the result refer to it.

    Returns
    -------
    MatchResult

    Raises
    ------
    ValueError
        If a needed (label, group) stratum of the pool is empty (the paper marks
        those rows unmatched; an empty stratum is usually a mistake, so it is an
        error here), if the pool's groups (``groups_pool``, or ``groups``
        without a pool) have other than two values, or if a financial feature
        is missing.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [1.1], [2.2]])
    >>> m = match_counterfactuals(X, y=[1, 1, 1, 1], groups=["f", "f", "m", "m"], financial=[0])
    >>> m.index.tolist(), m.coverage
    ([2, 3, 0, 1], 1.0)
    """
    check_aligned(X, "X", y=y, groups=groups)
    F, names = _financial_matrix(X, financial, "X")
    n = len(F)
    y = labels(y, "y", n)
    a = labels(groups, "groups", n)
    Fp, yp, values, ap_codes, a_codes, pool_groups = _reference_data(
        lambda table, name: _financial_matrix(table, financial, name)[0], F, y, a, X_pool, y_pool, groups_pool, "pool")
    tau = _check_tau(tau)
    mu = Fp.mean(axis=0)
    sd = Fp.std(axis=0)
    sd[sd == 0] = 1.0
    Zp, Zq = (Fp - mu) / sd, (F - mu) / sd
    index = np.full(n, -1, dtype=np.int64)
    nearest = np.full(n, np.nan)
    for label in pd.unique(y):
        for g in (0, 1):
            rows = np.flatnonzero((y == label) & (a_codes == g))
            if len(rows) == 0:
                continue
            stratum = np.flatnonzero((yp == label) & (ap_codes == 1 - g))
            if len(stratum) == 0:
                raise _empty_stratum(yp, ap_codes, values, label, g, len(rows), pool_groups)
            index[rows], nearest[rows] = _nearest_stable(Zq[rows], Zp[stratum], stratum)
    matched = np.ones(n, dtype=bool) if tau is None else nearest <= tau
    return MatchResult(index=np.where(matched, index, -1), distance=np.where(matched, nearest, np.nan),
                       matched=matched, nearest_distance=nearest, tau=tau, n_unmatched_by_tau=int((~matched).sum()),
                       group_values=values, group=a_codes, financial=names, pool_size=len(Fp),
                       row_index=row_index(X, n))


def counterfactual_rows(match: MatchResult, X_pool, *, columns=None) -> np.ndarray:
    """The matched partners' full feature rows, NaN rows where unmatched.

    Parameters
    ----------
    match : MatchResult
    X_pool : DataFrame or 2-d array
        The pool the match was made against (``X`` itself by default); every
        column must be numeric.
    columns : list of str, optional
        The column order of the rows returned (e.g. the columns of the ``X``
        the partners are compared with): a DataFrame ``X_pool`` is aligned to
        it by name, so partners and factuals line up even when the pool's
        columns come in another order.

    Returns
    -------
    ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 5.0], [2.0, 6.0], [1.1, 7.0], [2.2, 8.0]])
    >>> m = match_counterfactuals(X, [0, 0, 0, 0], [0, 0, 1, 1], [0], tau=0.5)
    >>> counterfactual_rows(m, X)[:, 1].tolist()
    [7.0, 8.0, 5.0, 6.0]
    """
    if not isinstance(match, MatchResult):
        raise TypeError(f"match must be a MatchResult from match_counterfactuals, got {type(match).__name__}.")
    Xp = check_table(X_pool, "X_pool", columns=columns)
    if len(Xp) != match.pool_size:
        raise ValueError(f"X_pool has {len(Xp)} rows but the match was made against a pool of {match.pool_size}; "
                         "pass the same pool (X itself when no pool was given).")
    out = np.full((len(match.index), Xp.shape[1]), np.nan)
    out[match.matched] = Xp[match.index[match.matched]]
    return out


def _empty_cell(y, codes, values, label, g: int, where: str, groups: str) -> ValueError:
    return ValueError(
        f"a group with no rows for a label: {where}no rows with label y={plain(label)!r} in group "
        f"{groups}={values[g]!r}, so that (label, group) baseline is undefined. Counts by (label, group): "
        f"{cell_counts(y, codes, values)}."
    )


def label_group_means(X, y, groups) -> pd.DataFrame:
    """The label-group means :math:`b_{y,a}`: the average feature row of every (label, group) cell.

    Parameters
    ----------
    X : DataFrame or 2-d array, all columns numeric
    y : array of shape (n,)
    groups : array of shape (n,) with two values

    Returns
    -------
    pandas.DataFrame
        Indexed by (label, group), one column per feature.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [2.0], [4.0], [6.0], [1.0], [3.0]])
    >>> label_group_means(X, [0, 0, 1, 1, 1, 0], ["f", "m", "f", "m", "m", "f"])["x0"].tolist()
    [1.5, 2.0, 4.0, 3.5]
    """
    check_aligned(X, "X", y=y, groups=groups)
    M = check_table(X, "X")
    n = len(M)
    y = labels(y, "y", n)
    values, codes = group_codes(labels(groups, "groups", n), "groups")
    rows, keys = [], []
    for label in sorted(pd.unique(y).tolist(), key=lambda v: (str(type(v)), v)):
        for g in (0, 1):
            cell = (y == label) & (codes == g)
            if not cell.any():
                raise _empty_cell(y, codes, values, label, g, "", "groups")
            rows.append(M[cell].mean(axis=0))
            keys.append((label, values[g]))
    return pd.DataFrame(rows, index=pd.MultiIndex.from_tuples(keys, names=["label", "group"]),
                        columns=list(feature_names(X, M.shape[1])))


def label_group_baselines(X, y, groups, *, X_fit=None, y_fit=None, groups_fit=None) -> np.ndarray:
    """Each row's integrated-gradients baseline: the mean of its own (label, group) cell.

    The means are computed on the fit data (default ``X`` itself; for a test
    fold pass the training fold) and assigned to every row of ``X`` by its
    own label and group. Following the paper's consistent-baseline principle,
    the *factual's* baseline is used for both members of a pair.

    Parameters
    ----------
    X : DataFrame or 2-d array, all columns numeric
    y, groups : arrays of shape (n,)
        True labels and each row's group (two values).
    X_fit, y_fit, groups_fit : optional
        Data to compute the means on (all three or none); a DataFrame
        ``X_fit`` is aligned to a DataFrame ``X`` by column name.

    Returns
    -------
    ndarray of shape (n, d)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [2.0], [4.0], [6.0]])
    >>> label_group_baselines(X, [0, 0, 0, 0], [0, 0, 1, 1]).ravel().tolist()
    [1.0, 1.0, 5.0, 5.0]
    """
    check_aligned(X, "X", y=y, groups=groups)
    M = check_table(X, "X")
    n = len(M)
    y = labels(y, "y", n)
    a = labels(groups, "groups", n)
    columns = [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None
    Mf, yf, values, codes_f, codes, fit_groups = _reference_data(
        lambda table, name: check_table(table, name, columns=columns), M, y, a, X_fit, y_fit, groups_fit, "fit")
    if Mf.shape[1] != M.shape[1]:
        raise ValueError(f"X_fit has {Mf.shape[1]} columns but X has {M.shape[1]}; use the same features.")
    out = np.empty_like(M)
    for label in pd.unique(y):
        for g in (0, 1):
            rows = (y == label) & (codes == g)
            if not rows.any():
                continue
            cell = (yf == label) & (codes_f == g)
            if not cell.any():
                raise _empty_cell(yf, codes_f, values, label, g, "the fit data has ", fit_groups)
            out[rows] = Mf[cell].mean(axis=0)
    return out

"""Situation testing (ST), counterfactual situation testing (CST) and counterfactual fairness (CF).

For every member of a protected group (a *complainant*) situation testing
builds two groups of similar people and compares how often each was refused
:cite:p:`thanh2011knn`:

* the **control group**: the k protected people most similar to the complainant;
* the **test group**: the k non-protected people most similar to a *test centre*.

In k-NN ST the test centre is the complainant's own profile (ceteris paribus:
"the same person, only of the other group"). In k-NN CST
:cite:p:`alvarez2023cst` it is the complainant's **counterfactual** profile from a
structural causal model (mutatis mutandis: "the person they would have been",
see :class:`~recourselab.scm.AdditiveNoiseSCM`). A complainant shows potential
discrimination when the control group's refusal rate exceeds the test group's,
:math:`\\Delta p = p_c - p_t > \\tau`, and the claim is statistically significant
when a Wald confidence interval for :math:`\\Delta p` lies above :math:`\\tau`.

Similarity is the distance of the paper's Eq. (6): the mean over attributes of
the range-normalised absolute difference (numeric and ordinal attributes) or
the overlap distance (categorical attributes, 1 if different). Columns are
rescaled so that this distance is exactly the L1 distance of the rescaled rows,
and one KD-tree per search space answers every complainant's query at once.

Three options reproduce the authors' published code instead of the paper's
definitions (the defaults follow the paper): ``normalize="std"`` divides numeric
differences by the standard deviation instead of the range;
``cf_scaling="refit"`` first re-standardises the counterfactual columns on their
own statistics, as the authors' code does when it re-fits its scaler on the
counterfactual data; and ``ties="bitwise"`` orders candidates at the same
distance as their code does (by the last bits of the floating-point distance,
the later row first among exact ties). With all three, every count of the
authors' results files for the paper's k is reproduced exactly
(``experiments/cst_authors.py``); the first two suffice on data without tied
distances.

Input conventions. ``protected`` and ``reference`` are masks (bool, or 0/1 with
1 = member); ``y_hat`` and ``y_hat_cf`` are decisions (1 = favourable, 0 =
refused). A missing entry (None, NaN) in any of them is an error, never a
silently dropped row. ``k`` is a Python or numpy integer (a float such as
``2.0`` is rejected, as scikit-learn does). Numeric attributes must be finite.
pandas inputs given next to a DataFrame ``X`` must carry ``X``'s index (rows are
matched by position, so a reordered Series would silently pair the wrong rows);
pass ``.to_numpy()`` to match by position on purpose.
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.neighbors import KDTree

__all__ = [
    "situation_distance_transform",
    "Groups",
    "build_groups",
    "wald_ci",
    "situation_testing",
    "counterfactual_fairness",
]


def situation_distance_transform(X, X_cf=None, *, categorical=None, normalize: str = "range",
                                 cf_scaling: str = "factual"):
    """Rescale columns so that the L1 distance between rows equals the paper's Eq. (6).

    .. math:: d(x, x') = \\frac{1}{p} \\sum_{j=1}^{p} d_j(x_j, x'_j), \\quad
              d_j = \\frac{|x_j - x'_j|}{\\max_j - \\min_j} \\text{ (numeric)}, \\quad
              d_j = \\mathbb{1}[x_j \\ne x'_j] \\text{ (categorical)}

    Numeric columns are divided by ``p * range`` (range over ``X``);
    categorical columns become one-hot columns worth ``1 / (2p)`` each, so a
    change of category adds exactly ``1 / p``. With ``normalize="std"`` the
    numeric divisor is ``p * sd`` instead, :math:`\\mathrm{sd}_j` being the
    population standard deviation of column j over ``X`` (what the authors'
    code computes with scikit-learn's ``StandardScaler``).

    With ``cf_scaling="refit"`` every numeric counterfactual value v is first
    mapped to :math:`c_j + (v - c'_j)\\, s_j / s'_j`, where :math:`(c_j, s_j)`
    are the centre and spread of column j over ``X`` and :math:`(c'_j, s'_j)`
    those over all rows of ``X_cf`` (centre and spread are the minimum and the
    range for ``normalize="range"``, the mean and the standard deviation for
    ``"std"``). This is what normalising the counterfactual data with a scaler
    re-fitted on it does: each data set is measured with its own ruler, so a
    counterfactual shift common to many rows is partly undone. The paper's
    definition, ``"factual"`` (default), measures counterfactual rows with the
    factual data's ruler.

    Parameters
    ----------
    X : pandas.DataFrame or array of shape (n, p)
        The decision-relevant attributes (not the protected attribute, not the
        decision). Numeric values must be finite. The columns of an array are
        named ``x0, x1, ...``; an object array (such as ``frame.to_numpy()`` of
        a frame with numbers and labels) gets each column's type inferred as a
        frame's would be, so it gives the same transform as the frame.
    X_cf : same type and shape as X, optional
        Counterfactual rows, rescaled with X's ranges and categories (a
        DataFrame must have X's index and columns).
    categorical : str or list of str, optional
        Columns to treat as categorical; default: the non-numeric columns. An
        object column that holds numbers is treated as categorical with a
        warning (pass ``categorical`` or convert the column to say which).
    normalize : {"range", "std"}, default "range"
        The spread that divides numeric differences: the range (the paper's
        Eq. 6) or the population standard deviation (the authors' code).
    cf_scaling : {"factual", "refit"}, default "factual"
        How counterfactual rows are measured: with the factual data's ruler
        (the paper) or after re-fitting the normalisation on ``X_cf`` (the
        authors' code); ``"refit"`` needs ``X_cf``. A counterfactual column
        with zero spread maps every value to the factual centre, as a
        re-fitted ``StandardScaler`` does.

    Returns
    -------
    T, T_cf : ndarray
        ``T_cf`` is None when ``X_cf`` is None.

    Raises
    ------
    ValueError
        On missing or infinite values (naming the column and the first row), a
        mismatch between X and X_cf, unknown ``categorical`` columns, an
        unknown ``normalize`` or ``cf_scaling``, or ``cf_scaling="refit"``
        without ``X_cf``.

    Examples
    --------
    >>> import pandas as pd
    >>> X = pd.DataFrame({"salary": [10.0, 20.0, 30.0], "job": ["a", "b", "a"]})
    >>> T, _ = situation_distance_transform(X)
    >>> float(abs(T[0] - T[1]).sum())   # (10/20 + 1) / 2
    0.75
    >>> T, _ = situation_distance_transform(X, normalize="std")
    >>> round(float(abs(T[0] - T[1]).sum()), 4)   # (10/8.165 + 1) / 2, sd = sqrt(200/3)
    1.1124
    """
    normalize, cf_scaling, _ = _check_options(normalize, cf_scaling)
    _check_aligned(X, X_cf, "X_cf")
    frame, frame_cf = _as_frame(X, "X"), None if X_cf is None else _as_frame(X_cf, "X_cf")
    T, T_cf, _ = _transform(frame, frame_cf, categorical, normalize, cf_scaling)
    return T, T_cf


def _transform(frame, frame_cf, categorical, normalize, cf_scaling, bitwise=False):
    """The rescaled rows T, T_cf of :func:`situation_distance_transform`, and with ``bitwise`` the raw values.

    The raw values R, R_cf (one column per attribute) are what the authors'
    code measures: centred normalised numbers (x - centre) / spread, the
    counterfactual ones on X_cf's own centre and spread with ``"refit"``, and
    category codes. :func:`_bitwise_distances` sums their differences.
    """
    if cf_scaling == "refit" and frame_cf is None:
        raise ValueError("cf_scaling='refit' re-fits the normalisation on the counterfactual rows, but X_cf is not "
                         "given; pass X_cf (CST), or leave cf_scaling='factual' (the default) for ST.")
    if frame_cf is not None:
        if list(frame_cf.columns) != list(frame.columns) or frame_cf.shape != frame.shape:
            raise ValueError(
                f"X_cf has shape {frame_cf.shape} and columns {list(frame_cf.columns)}, but X has shape "
                f"{frame.shape} and columns {list(frame.columns)}; give one counterfactual row per factual row "
                "with the same columns."
            )
    p = frame.shape[1]
    if p == 0:
        raise ValueError("X has no columns; give the decision-relevant attributes.")
    if len(frame) == 0:
        raise ValueError("X has 0 rows; give at least one individual.")
    categorical = _categorical_columns(frame, categorical)
    blocks, blocks_cf, raw, raw_cf = [], [], [], []
    for column in frame.columns:
        values = frame[column]
        if values.isna().any():
            raise ValueError(f"column {column!r} of X has missing values (first in row {_first_row(values.isna())}); "
                             "impute or drop them first.")
        if frame_cf is not None and frame_cf[column].isna().any():
            raise ValueError(f"column {column!r} of X_cf has missing values (first in row "
                             f"{_first_row(frame_cf[column].isna())}); give a complete counterfactual row per row.")
        if column in categorical:
            pool = values if frame_cf is None else pd.concat([values, frame_cf[column]])
            levels = pd.unique(pool)
            index = pd.Index(levels)
            one_hot = np.zeros((len(frame), len(levels)))
            one_hot[np.arange(len(frame)), index.get_indexer(values)] = 1.0 / (2 * p)
            blocks.append(one_hot)
            if bitwise:
                raw.append(index.get_indexer(values).astype(float))
            if frame_cf is not None:
                cf = np.zeros((len(frame), len(levels)))
                cf[np.arange(len(frame)), index.get_indexer(frame_cf[column])] = 1.0 / (2 * p)
                blocks_cf.append(cf)
                if bitwise:
                    raw_cf.append(index.get_indexer(frame_cf[column]).astype(float))
            continue
        numbers_ = _finite_numbers(values, column, "X")
        centre, spread = _centre_and_spread(numbers_, normalize)
        scale = 1.0 / (p * spread) if spread > 0 else 0.0  # a constant column never separates anyone
        blocks.append((numbers_ * scale)[:, None])
        if bitwise:
            raw.append((numbers_ - centre) / spread if spread > 0 else np.zeros(len(frame)))
        if frame_cf is not None:
            cf_numbers = _finite_numbers(frame_cf[column], column, "X_cf")
            if cf_scaling == "refit":
                cf_centre, cf_spread = _centre_and_spread(cf_numbers, normalize)
                if bitwise:  # what a scaler re-fitted on X_cf returns (all zeros for a constant column)
                    raw_cf.append((cf_numbers - cf_centre) / cf_spread if cf_spread > 0 else np.zeros(len(frame)))
                cf_numbers = (centre + (cf_numbers - cf_centre) * (spread / cf_spread) if cf_spread > 0
                              else np.full_like(cf_numbers, centre))
            elif bitwise:
                raw_cf.append((cf_numbers - centre) / spread if spread > 0 else np.zeros(len(frame)))
            blocks_cf.append((cf_numbers * scale)[:, None])
    T = np.hstack(blocks)
    T_cf = np.hstack(blocks_cf) if frame_cf is not None else None
    if not bitwise:
        return T, T_cf, None
    kinds = np.array([column in categorical for column in frame.columns])
    R = np.column_stack(raw)
    return T, T_cf, (kinds, R, np.column_stack(raw_cf) if frame_cf is not None else None)


def _bitwise_distances(kinds, R_query, R_space, query, rows):
    """Eq. (6) for the pairs (query[i], rows[i]), summed attribute by attribute as the authors' code does.

    ``kinds`` flags the categorical attributes (overlap distance on codes);
    numeric attributes add the absolute difference of their centred normalised
    values. Nothing is rounded: distances equal in exact arithmetic may differ
    in the last bits, and that difference orders them.
    """
    total = np.zeros(len(query))
    for j, categorical in enumerate(kinds):
        a, b = R_query[query, j], R_space[rows, j]
        total += (a != b) if categorical else np.abs(a - b)
    return total / len(kinds)


_NORMALIZE = ("range", "std")
_CF_SCALING = ("factual", "refit")
_TIES = ("row", "bitwise")


def _check_options(normalize, cf_scaling, ties="row") -> tuple[str, str, str]:
    if not isinstance(normalize, str) or normalize not in _NORMALIZE:
        raise ValueError(f"normalize={normalize!r} must be 'range' (the paper's Eq. 6: differences divided by the "
                         "column's range) or 'std' (divided by its standard deviation, as the authors' code does).")
    if not isinstance(cf_scaling, str) or cf_scaling not in _CF_SCALING:
        raise ValueError(f"cf_scaling={cf_scaling!r} must be 'factual' (counterfactual rows measured with the "
                         "factual data's ruler, the paper's definition) or 'refit' (the normalisation re-fitted on "
                         "the counterfactual data, as the authors' code does).")
    if not isinstance(ties, str) or ties not in _TIES:
        raise ValueError(f"ties={ties!r} must be 'row' (distances equal to 12 decimals are ties, the lower row "
                         "first: reproducible) or 'bitwise' (distances compared bit for bit, the later row first "
                         "among exact ties, as the authors' code does).")
    return normalize, cf_scaling, ties


def _centre_and_spread(values: np.ndarray, normalize: str) -> tuple[float, float]:
    """(minimum, range) or (mean, population standard deviation) of a column."""
    if normalize == "range":
        low = float(values.min())
        return low, float(values.max()) - low
    return float(values.mean()), float(values.std())


def _first_row(flags: pd.Series) -> int:
    return int(np.flatnonzero(flags.to_numpy())[0])


def _finite_numbers(values: pd.Series, column, name: str) -> np.ndarray:
    """A numeric column as floats; infinite values (and non-numbers in X_cf) are errors naming the column."""
    if not pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        raise ValueError(f"column {column!r} is numeric in X but not in {name} (dtype {values.dtype}); give "
                         "numbers in both, or name the column in categorical.")
    numbers_ = values.to_numpy(dtype=float)
    bad = ~np.isfinite(numbers_)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"column {column!r} of {name} has infinite values (first in row {i}: {numbers_[i]}); the "
                         "distance needs finite numbers: cap or drop those rows.")
    return numbers_


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, (bool, np.bool_))


def _categorical_columns(frame: pd.DataFrame, categorical) -> list:
    """The columns the distance treats as categorical: ``categorical`` if given, else the non-numeric ones.

    An object column that holds numbers (only, or mixed with other values) is
    ambiguous: it is treated as categorical, with a warning that names it.
    """
    if categorical is not None:
        categorical = [categorical] if isinstance(categorical, (str, numbers.Integral)) else list(categorical)
        unknown = [c for c in categorical if c not in frame.columns]
        if unknown:
            raise ValueError(f"categorical names columns that X lacks: {unknown}; columns are {list(frame.columns)}.")
        return categorical
    chosen, guessed, as_text = [], [], []
    for c in frame.columns:
        column = frame[c]
        if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
            continue
        chosen.append(c)
        values = column.dropna().to_numpy()
        if pd.api.types.is_bool_dtype(column) or not len(values):
            continue
        if column.dtype == object and any(_is_number(v) for v in values):
            guessed.append(c)
        elif all(isinstance(v, str) for v in values) and \
                pd.to_numeric(pd.Series(values), errors="coerce").notna().all():
            as_text.append(c)   # e.g. np.array([[1, "a"]]) turns the number 1 into the text "1"
    if guessed:
        warnings.warn(
            f"columns {guessed[:10]} of X have dtype object and hold numbers (only, or mixed with other values); "
            "they are treated as categorical (a change of value counts 1/p, whatever its size). Convert them "
            "with pandas.to_numeric if they are numbers, or pass categorical=[...] to say so explicitly.",
            stacklevel=3,
        )
    if as_text:
        warnings.warn(
            f"columns {as_text[:10]} of X hold numbers written as text (a numpy array of numbers and labels "
            "without dtype=object stores every value as text); they are treated as categorical. Pass a "
            "DataFrame or an object array to keep numbers as numbers, or categorical=[...] to say so explicitly.",
            stacklevel=3,
        )
    return chosen


def _as_frame(X, name):
    """``X`` as a frame with a 0..n-1 index; an object array gets per-column types as a frame would have."""
    if isinstance(X, pd.DataFrame):
        return X.reset_index(drop=True)
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"{name} has shape {array.shape}; give a 2-d table (rows = people).")
    frame = pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])])
    # An object array (e.g. DataFrame.to_numpy() of mixed columns) holds numbers and labels side by side:
    # infer each column's type, so numbers are distances, not categories, exactly as in the frame.
    return frame.infer_objects() if array.dtype == object else frame


def _check_aligned(X, other, name: str):
    """A pandas companion of a DataFrame X must have X's index: rows are matched by position.

    (A length mismatch is left to the shape checks, which report it better.)
    """
    if isinstance(X, pd.DataFrame) and isinstance(other, (pd.Series, pd.DataFrame)) \
            and len(other) == len(X) and not other.index.equals(X.index):
        raise ValueError(
            f"{name} has a different index from X ({name}'s first labels {list(other.index[:3])}, X's "
            f"{list(X.index[:3])}); rows are matched by position, so give {name} X's index (e.g. "
            f"{name}.loc[X.index]) or pass {name}.to_numpy() to match by position on purpose."
        )


_MEANING = {
    "protected": "True or 1 = in the protected group",
    "reference": "True or 1 = in the reference group",
    "y_hat": "decisions: 1 = favourable, 0 = refused",
    "y_hat_cf": "decisions on the counterfactual rows: 1 = favourable, 0 = refused",
}


def _mask(values, n, name):
    mask = np.asarray(values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values)
    if mask.shape != (n,):
        raise ValueError(f"{name} has shape {mask.shape}; give one entry per row of X ({n}).")
    if mask.dtype != bool:
        missing = pd.isna(mask)
        if missing.any():
            i = int(np.flatnonzero(missing)[0])
            raise ValueError(f"{name}[{i}] is missing ({mask[i]!r}); {name} needs a boolean or 0/1 entry for "
                             f"every row ({_MEANING[name]}).")
        bad = [v for v in pd.unique(mask) if isinstance(v, str) or v not in (0, 1)]
        if bad:
            shown = sorted((_py(v) for v in bad), key=repr)[:5]
            raise ValueError(f"{name} must be boolean or 0/1 ({_MEANING[name]}); found values {shown}.")
        mask = mask.astype(bool)
    return mask


def _py(value):
    return value.item() if isinstance(value, np.generic) else value


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or k < 1:
        raise ValueError(f"k={k!r} must be an integer >= 1 (a Python or numpy int; floats such as 2.0 are "
                         "not accepted).")
    return int(k)


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


def _k_nearest(space_rows, T_space, T_query, k, exclude=None, bitwise=None):
    """For each query, the k nearest rows of the space by L1, ties broken by lower row position.

    One KD-tree query finds each query's k-th distance, one radius query (with a
    radius per query) returns
    every row within it (all tied rows included); a lexicographic sort by
    (query, distance, row) then keeps the first k per query. ``exclude`` gives,
    per query, a row position to leave out (the complainant itself), or -1.

    ``bitwise`` is a function of (query, row) pairs returning their distances
    as the authors' code computes them; those candidates (all within a hair of
    the k-th distance) are then ordered by these unrounded distances, the
    higher row first among exact ties.
    """
    m = len(T_query)
    extra = 1 if exclude is not None else 0
    tree = KDTree(T_space, metric="manhattan")
    kth, _ = tree.query(T_query, k=min(k + extra, len(T_space)))
    radius = kth[:, -1] * (1 + 1e-9) + 1e-12  # a hair of slack: every row tied at the k-th distance is in
    found, dist = tree.query_radius(T_query, r=radius, return_distance=True)
    counts = np.array([len(f) for f in found])
    query = np.repeat(np.arange(m), counts)
    rows = space_rows[np.concatenate(found)] if counts.sum() else np.array([], dtype=int)
    dist = np.concatenate(dist) if counts.sum() else np.array([])
    if exclude is not None:
        keep = rows != exclude[query]
        query, rows, dist = query[keep], rows[keep], dist[keep]
    if bitwise is None:
        # round away summation-order noise so exact ties compare equal, then sort
        order = np.lexsort((rows, np.round(dist, 12), query))
    else:
        order = np.lexsort((-rows, bitwise(query, rows), query))
    query, rows = query[order], rows[order]
    starts = np.searchsorted(query, np.arange(m))
    rank = np.arange(len(query)) - starts[query]
    take = rank < k
    out = np.full((m, k), -1, dtype=int)
    out[query[take], rank[take]] = rows[take]
    if (out < 0).any():  # cannot happen when the space has >= k rows besides the excluded one
        raise RuntimeError("a neighbour group came out short; please report this with the data.")
    return out


def build_groups(X, protected, *, k: int, X_cf=None, reference=None, categorical=None, normalize: str = "range",
                 cf_scaling: str = "factual", ties: str = "row") -> Groups:
    """The control and test groups of k-NN situation testing for every complainant.

    Parameters
    ----------
    X : pandas.DataFrame or array of shape (n, p)
        Decision-relevant attributes of every individual.
    protected : array of bool or 0/1, shape (n,)
        Membership of the protected group; every protected row is a complainant
        and the protected rows form the control search space.
    k : int
        Group size.
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

    Returns
    -------
    Groups

    Notes
    -----
    With ``ties="row"`` ties in distance are broken by the lower row position,
    which makes the groups reproducible and equal to a brute-force stable sort.
    """
    _check_options(normalize, cf_scaling, ties)
    for name, values in (("protected", protected), ("reference", reference), ("X_cf", X_cf)):
        _check_aligned(X, values, name)
    frame = _as_frame(X, "X")
    n = len(frame)
    protected = _mask(protected, n, "protected")
    reference = None if reference is None else _mask(reference, n, "reference")
    return _build_groups(frame, protected, k, _positional(X_cf), reference, categorical, normalize, cf_scaling, ties)


def _positional(table):
    """A DataFrame with a 0..n-1 index (its alignment with X was checked), else the input unchanged."""
    return table.reset_index(drop=True) if isinstance(table, pd.DataFrame) else table


def _build_groups(frame: pd.DataFrame, protected: np.ndarray, k, X_cf, reference, categorical,
                  normalize: str = "range", cf_scaling: str = "factual", ties: str = "row") -> Groups:
    n = len(frame)
    if n == 0:
        raise ValueError("X has 0 rows; situation testing needs a protected and a reference group.")
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
    k = _check_k(k)
    complainants = np.flatnonzero(protected)
    if k > len(complainants) - 1:
        raise ValueError(
            f"k={k} is larger than the control search space: {len(complainants)} protected rows, "
            f"{len(complainants) - 1} besides the complainant. Use k <= {len(complainants) - 1}."
        )
    if k > reference.sum():
        raise ValueError(
            f"k={k} is larger than the test search space ({int(reference.sum())} reference rows). "
            f"Use k <= {int(reference.sum())}."
        )
    _check_aligned(frame, X_cf, "X_cf")
    frame_cf = None if X_cf is None else _as_frame(X_cf, "X_cf")
    T, T_cf, raw = _transform(frame, frame_cf, categorical, normalize, cf_scaling, bitwise=ties == "bitwise")
    centres = T[complainants] if T_cf is None else T_cf[complainants]
    control_order = test_order = None
    if raw is not None:
        kinds, R, R_cf = raw
        R_centres = R[complainants] if R_cf is None else R_cf[complainants]

        def control_order(query, rows):
            return _bitwise_distances(kinds, R[complainants], R, query, rows)

        def test_order(query, rows):
            return _bitwise_distances(kinds, R_centres, R, query, rows)

    control = _k_nearest(complainants, T[complainants], T[complainants], k, exclude=complainants,
                         bitwise=control_order)
    reference_rows = np.flatnonzero(reference)
    test = _k_nearest(reference_rows, T[reference_rows], centres, k, bitwise=test_order)
    return Groups(complainants, control, test, k)


def wald_ci(p_c, p_t, n, alpha: float = 0.05, *, one_sided: bool = True):
    """Wald confidence interval for the difference of two proportions, Δp = p_c − p_t.

    .. math:: \\Delta p \\pm z \\sqrt{\\frac{p_c(1 - p_c) + p_t(1 - p_t)}{n}}

    The paper's Eq. (5) prints the two variances with a minus sign; the
    variance of a difference of independent proportions is their **sum**, which
    is what reproduces the paper's own Tables 2 and 3. The paper's text calls
    the interval two-sided, with :math:`z_{1-\\alpha/2}` (1.96 at α = 5 %), but
    the bounds printed in its Tables 2 and 3 need :math:`z = 1.645`, the
    one-sided quantile :math:`z_{1-\\alpha}`, which is also what the authors'
    code uses for its significance test. ``one_sided=True`` (default) follows
    the printed numbers and the one-sided alternative Δp > τ; with
    ``one_sided=False`` the interval is the two-sided one the text describes
    (wider, so fewer claims are significant).

    Parameters
    ----------
    p_c, p_t : float or array
        Refusal rates of the control and test groups.
    n : int or array
        Group size (k, or k + 1 when the search centres are counted): whole
        numbers >= 1 (a fractional size such as 15.5 is rejected).
    alpha : float, default 0.05
        Strictly between 0 and 1.
    one_sided : bool, default True

    Returns
    -------
    low, high : float or ndarray

    Examples
    --------
    >>> [round(float(v), 2) for v in wald_ci(13 / 16, 0.0, 16)]   # the paper's Table 2, complainant 55
    [0.65, 0.97]
    """
    _check_alpha(alpha)
    arrays = {}
    for name, value in (("p_c", p_c), ("p_t", p_t), ("n", n)):
        try:
            arrays[name] = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be numbers (a scalar or an array), got {value!r}.") from None
    p_c, p_t, n = arrays["p_c"], arrays["p_t"], arrays["n"]
    for name, values in (("p_c", p_c), ("p_t", p_t)):
        bad = ~((values >= 0) & (values <= 1))   # also catches NaN
        if bad.any():
            first = np.ravel(values)[int(np.flatnonzero(np.ravel(bad))[0])]
            raise ValueError(f"p_c and p_t are proportions and must lie in [0, 1]; {name} holds {first}.")
    bad = ~(np.isfinite(n) & (n >= 1) & (n == np.round(n)))
    if bad.any():
        first = np.ravel(n)[int(np.flatnonzero(np.ravel(bad))[0])]
        raise ValueError(f"n={first} must be a whole number >= 1 (the group size, k or k + 1).")
    z = norm.ppf(1 - alpha) if one_sided else norm.ppf(1 - alpha / 2)
    delta = p_c - p_t
    half = z * np.sqrt((p_c * (1 - p_c) + p_t * (1 - p_t)) / n)
    low, high = delta - half, delta + half
    return (float(low), float(high)) if low.ndim == 0 else (low, high)


def situation_testing(X, protected, y_hat, *, k: int, X_cf=None, y_hat_cf=None, include_centers: bool = False,
                      reference=None, alpha: float = 0.05, tau: float = 0.0, categorical=None,
                      normalize: str = "range", cf_scaling: str = "factual", ties: str = "row") -> pd.DataFrame:
    """k-NN situation testing for every complainant: ST without counterfactuals, CST with them.

    For complainant c with control group C and test group T,

    .. math:: p_c = \\frac{|\\{i \\in C : \\hat y_i = 0\\}|}{|C|}, \\quad
              p_t = \\frac{|\\{i \\in T : \\hat y_i = 0\\}|}{|T|}, \\quad
              \\Delta p = p_c - p_t .

    With ``include_centers`` the complainant's own decision joins the control
    group and the decision of its test centre (``y_hat_cf[c]`` for CST,
    ``y_hat[c]`` for ST) joins the test group, so both have k + 1 members:
    the paper's "CST" (with centres) rather than "CST w/o".

    Parameters
    ----------
    X : pandas.DataFrame or array of shape (n, p)
        Decision-relevant attributes (the decision maker's inputs).
    protected : array of bool or 0/1, shape (n,)
        1 = protected; every protected row is a complainant, whatever its decision.
    y_hat : array of 0/1, shape (n,)
        Decisions, 1 = favourable.
    k : int
        Size of the control and test groups.
    X_cf : like X, optional
        Counterfactual attributes of every row (e.g. from
        :meth:`AdditiveNoiseSCM.counterfactual <recourselab.scm.AdditiveNoiseSCM.counterfactual>`);
        given → CST, absent → ST.
    y_hat_cf : array of 0/1, shape (n,), optional
        Decisions on the counterfactual rows; needed with ``include_centers`` for
        CST, and meaningless without ``X_cf`` (an error).
    include_centers : bool, default False
    reference : array of bool, optional
        Test search space (default: the non-protected rows); see :func:`build_groups`.
    alpha : float, default 0.05
        Significance level of the one-sided Wald interval (:func:`wald_ci`),
        strictly between 0 and 1.
    tau : float in [0, 1), default 0.0
        The minimum deviation: the smallest difference Δp of refusal rates that
        counts as discrimination (the paper's τ ≥ 0, default 0). Δp is a
        difference of two proportions, so it lies in [-1, 1]: with τ ≥ 1
        nothing could ever be flagged, and a negative τ would flag complainants
        whose control group was refused *less* often than the test group; both
        are errors.
    categorical : list of str, optional
        Categorical columns for the distance (default: non-numeric columns).
    normalize : {"range", "std"}, default "range"
        Divide numeric differences by the column's range (the paper's Eq. 6)
        or by its standard deviation (the authors' code); see
        :func:`situation_distance_transform`.
    cf_scaling : {"factual", "refit"}, default "factual"
        Measure counterfactual rows with the factual data's ruler (the paper)
        or re-fit the normalisation on ``X_cf`` first (the authors' code);
        ``"refit"`` needs ``X_cf``.
    ties : {"row", "bitwise"}, default "row"
        Order of candidates at the same distance: the lower row first, with
        distances equal to 12 decimals counted as ties (reproducible), or the
        authors' bit-for-bit comparison (see :func:`build_groups`).

    Returns
    -------
    pandas.DataFrame
        One row per complainant (indexed like X), columns ``p_c``, ``p_t``,
        ``delta_p``, ``ci_low``, ``ci_high``, ``discrimination``
        (Δp > τ) and ``significant`` (the interval lies above τ).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [0.1], [0.2], [0.0], [0.1], [0.2]])
    >>> protected = np.array([1, 1, 1, 0, 0, 0])
    >>> y_hat = np.array([0, 0, 0, 1, 1, 0])
    >>> situation_testing(X, protected, y_hat, k=2)["delta_p"].round(2).tolist()
    [1.0, 1.0, 0.5]
    """
    for name, values in (("protected", protected), ("y_hat", y_hat), ("X_cf", X_cf), ("y_hat_cf", y_hat_cf),
                         ("reference", reference)):
        _check_aligned(X, values, name)
    _check_alpha(alpha)
    tau = _check_tau(tau)
    _check_options(normalize, cf_scaling, ties)
    if not isinstance(include_centers, (bool, np.bool_)):
        raise TypeError(f"include_centers={include_centers!r} must be True or False.")
    frame = _as_frame(X, "X")
    n = len(frame)
    y_hat = _mask(y_hat, n, "y_hat")
    if X_cf is not None:
        cf_shape = np.shape(X_cf)
        if cf_shape != frame.shape:
            raise ValueError(f"X_cf has shape {cf_shape} but X has shape {frame.shape}; give one counterfactual "
                             "row per factual row.")
    if y_hat_cf is not None:
        if X_cf is None:
            raise ValueError("y_hat_cf is given without X_cf; the decisions on counterfactual rows need the rows "
                             "(pass X_cf for CST, or drop y_hat_cf for ST).")
        y_hat_cf = _mask(y_hat_cf, n, "y_hat_cf")
    if include_centers:
        if X_cf is not None and y_hat_cf is None:
            raise ValueError("include_centers with counterfactuals needs y_hat_cf, the decisions on X_cf.")
        centre_decision = y_hat if X_cf is None else y_hat_cf
    protected = _mask(protected, n, "protected")
    reference = None if reference is None else _mask(reference, n, "reference")
    groups = _build_groups(frame, protected, k, _positional(X_cf), reference, categorical, normalize, cf_scaling,
                           ties)
    k = groups.k
    refused = ~y_hat
    neg_c = refused[groups.control].sum(axis=1).astype(float)
    neg_t = refused[groups.test].sum(axis=1).astype(float)
    size = float(k)
    if include_centers:
        neg_c += refused[groups.complainants]
        neg_t += ~centre_decision[groups.complainants]
        size += 1
    p_c, p_t = neg_c / size, neg_t / size
    low, high = wald_ci(p_c, p_t, np.full(len(p_c), size), alpha)
    index = X.index[groups.complainants] if isinstance(X, pd.DataFrame) else groups.complainants
    delta = p_c - p_t
    return pd.DataFrame(
        {"p_c": p_c, "p_t": p_t, "delta_p": delta, "ci_low": low, "ci_high": high,
         "discrimination": delta > tau, "significant": low > tau},
        index=index,
    )


def _check_alpha(alpha) -> float:
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"alpha={alpha!r} must lie strictly between 0 and 1 (a significance level, e.g. 0.05).")
    return float(alpha)


def _check_tau(tau) -> float:
    if isinstance(tau, (bool, np.bool_)) or not isinstance(tau, numbers.Real) or not (math.isfinite(tau)
                                                                                      and 0 <= tau < 1):
        raise ValueError(
            f"tau={tau!r} must lie in [0, 1): it is the minimum difference of refusal rates p_c - p_t that counts "
            "as discrimination (the paper's default is 0); p_c - p_t never exceeds 1, so tau >= 1 could flag no one."
        )
    return float(tau)


def counterfactual_fairness(y_hat, y_hat_cf) -> np.ndarray:
    """Counterfactual-fairness violations :cite:p:`kusner2017counterfactual`: refused, but favoured as a counterfactual.

    Returns a boolean array: ``True`` where the factual decision is 0 and the
    counterfactual decision is 1 (the paper's CF column).
    """
    y_hat, y_hat_cf = np.asarray(y_hat), np.asarray(y_hat_cf)
    if y_hat.shape != y_hat_cf.shape or y_hat.ndim != 1:
        raise ValueError(f"y_hat has shape {y_hat.shape} but y_hat_cf has shape {y_hat_cf.shape}; "
                         "give one factual and one counterfactual decision per row.")
    for name, values in (("y_hat", y_hat), ("y_hat_cf", y_hat_cf)):
        bad = [v for v in pd.unique(values).tolist() if isinstance(v, str) or v is None or v != v or v not in (0, 1)]
        if bad:
            raise ValueError(f"{name} must hold 0/1 decisions (1 = favourable, 0 = refused); found "
                             f"{sorted(bad, key=repr)[:5]}. A missing decision cannot be compared: drop that row.")
    return (y_hat.astype(int) == 0) & (y_hat_cf.astype(int) == 1)

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
from joblib import Parallel, delayed
from scipy.spatial import cKDTree
from scipy.stats import norm
from tqdm.auto import tqdm

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


def _check_execution(n_jobs, chunk_size, progress) -> None:
    """Validate the keyword arguments that say how the neighbour search runs (not what it computes)."""
    if n_jobs is not None and (isinstance(n_jobs, (bool, np.bool_)) or not isinstance(n_jobs, numbers.Integral)
                               or n_jobs == 0):
        raise ValueError(f"n_jobs={n_jobs!r} must be None (one job, or what an enclosing joblib.parallel_config "
                         "sets), a positive integer (that many parallel jobs) or a negative one (-1 = all cores, "
                         "-2 = all but one); 0 and non-integers are not accepted.")
    if chunk_size is not None and (isinstance(chunk_size, (bool, np.bool_))
                                   or not isinstance(chunk_size, numbers.Integral) or chunk_size < 1):
        raise ValueError(f"chunk_size={chunk_size!r} must be None (the default, {_CHUNK_SIZE:,} complainants per "
                         "chunk) or an integer >= 1: the number of complainants whose neighbours one job searches.")
    if not isinstance(progress, (bool, np.bool_)):
        raise TypeError(f"progress={progress!r} must be True or False (show a tqdm progress bar or not).")


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


# Queries per chunk: bounds the memory of one chunk's candidate arrays (roughly 100 bytes per candidate, so
# 20,000 queries with k = 15 need some tens of MB) and is the unit of work handed to joblib.
_CHUNK_SIZE = 20_000
# Neighbours fetched beyond k are chosen by a pilot of about _PILOT queries: enough that the rows tied at the
# k-th distance are among them for 90% of the pilot (at most _MAX_SPARE), so the radius query is needed only
# for the few queries whose ties spill over. Each spare neighbour costs time in many dimensions, each spill a
# second search: the pilot balances the two for the data at hand.
_PILOT = 1000
_MAX_SPARE = 32


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
    may spill over) is answered by a radius query instead. The survivors are ordered as in the
    reference: by (distance rounded to 12 decimals, row), or with ``bitwise`` by (the authors'
    unrounded distance, higher row first).
    """
    m, n_space = len(T_query), len(columns[0])
    extra = 1 if exclude is not None else 0
    need = min(k + extra, n_space)          # the neighbour whose distance sets the radius
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
            key = _bitwise_distances(kinds, R_query, R_space, np.repeat(ids[done], fetch),
                                     found[done].ravel()).reshape(len(done), fetch)
            key[invalid] = np.inf
            order = np.lexsort((-rows, key), axis=1)[:, :k]
        # an invalid candidate among the first k cannot happen (>= k rows lie within the radius): -1 reports it
        out[done] = np.where(np.take_along_axis(invalid, order, axis=1), -1, np.take_along_axis(rows, order, axis=1))
    spilled = np.flatnonzero(spill)
    if len(spilled):
        # every row within the radius (wider by the noise between the tree's sums and ours) ...
        balls = tree.query_ball_point(T_query[spilled], r=radius[spilled] * (1 + 1e-9) + 1e-12, p=1,
                                      return_sorted=False)
        counts = np.array([len(b) for b in balls])
        query = np.repeat(np.arange(len(spilled)), counts)
        local = np.concatenate([np.asarray(b, dtype=np.int64) for b in balls])
        dist = _sequential_l1(T_query[spilled][query], columns, local)
        # ... whose sums set the (k + 1)-th distance exactly as the reference's query does
        by_distance = np.lexsort((dist, query))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
        kth = dist[by_distance[starts + need - 1]]
        keep = dist <= kth[query] * (1 + 1e-9) + 1e-12
        rows = space_rows[local]
        if exclude is not None:
            keep &= rows != exclude[spilled][query]
        query, rows, dist, local = query[keep], rows[keep], dist[keep], local[keep]
        if bitwise is None:
            order = np.lexsort((rows, np.round(dist, 12), query))
        else:
            kinds, R_query, R_space = bitwise
            order = np.lexsort((-rows, _bitwise_distances(kinds, R_query, R_space, ids[spilled[query]], local),
                                query))
        query, rows = query[order], rows[order]
        starts = np.searchsorted(query, np.arange(len(spilled)))
        rank = np.arange(len(query)) - starts[query]
        take = rank < k
        block = np.full((len(spilled), k), -1, dtype=np.int64)
        block[query[take], rank[take]] = rows[take]
        out[spilled] = block
    return out


def _k_nearest_naive(space_rows, T_space, T_query, k, exclude=None, bitwise=None, **_):
    """The neighbour search as it was before the chunked cKDTree search: the reference it must equal.

    scikit-learn's ``KDTree`` (Manhattan), one k-nearest query, then one radius
    query per query row to keep every row tied at the k-th distance; the same
    orderings as :func:`_k_nearest` (distance rounded to 1e-12, then row; or
    the authors' bitwise order when ``bitwise = (kinds, R_query, R_space)``).
    Used by the tests and ``benchmarks/situation_testing.py`` only (slow:
    about 2 s per 90,000 queries at 200,000 rows).
    """
    from sklearn.neighbors import KDTree

    m = len(T_query)
    extra = 1 if exclude is not None else 0
    tree = KDTree(T_space, metric="manhattan")
    kth, _ = tree.query(T_query, k=min(k + extra, len(T_space)))
    radius = kth[:, -1] * (1 + 1e-9) + 1e-12
    found, dist = tree.query_radius(T_query, r=radius, return_distance=True)
    counts = np.array([len(f) for f in found])
    query = np.repeat(np.arange(m), counts)
    rows = space_rows[np.concatenate(found)] if counts.sum() else np.array([], dtype=int)
    dist = np.concatenate(dist) if counts.sum() else np.array([])
    if exclude is not None:
        keep = rows != exclude[query]
        query, rows, dist = query[keep], rows[keep], dist[keep]
    if bitwise is None:
        order = np.lexsort((rows, np.round(dist, 12), query))
    else:
        kinds, R_query, R_space = bitwise
        order = np.lexsort((-rows, _bitwise_distances(kinds, R_query, R_space, query,
                                                      np.searchsorted(space_rows, rows)), query))
    query, rows = query[order], rows[order]
    starts = np.searchsorted(query, np.arange(m))
    rank = np.arange(len(query)) - starts[query]
    take = rank < k
    out = np.full((m, k), -1, dtype=int)
    out[query[take], rank[take]] = rows[take]
    if (out < 0).any():
        raise RuntimeError("a neighbour group came out short; please report this with the data.")
    return out


def _k_nearest(space_rows, T_space, T_query, k, exclude=None, bitwise=None, *, n_jobs=None, chunk_size=None,
               bar=None):
    """For each query, the k nearest rows of the space by L1, ties broken by lower row position.

    The rows kept are those of the definition: every row within the query's
    k-th L1 distance (plus a hair of slack, so every row tied there is in),
    ordered by (distance rounded to 12 decimals, row position), the first k.
    ``exclude`` gives, per query, a row position to leave out (the complainant
    itself); the radius is then set by the (k + 1)-th neighbour. ``space_rows``
    are the row positions of the search space, in increasing order.

    ``bitwise`` is ``(kinds, R_query, R_space)`` for :func:`_bitwise_distances`:
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
    tree = cKDTree(T_space, balanced_tree=False)
    columns = [np.ascontiguousarray(T_space[:, j]) for j in range(T_space.shape[1])]
    # Queries in the tree's leaf order: consecutive queries visit the same nodes, which keeps them in the
    # cache (about 2.5 times faster on a million rows). The order does not change any query's answer.
    if T_query is T_space or (T_query.shape == T_space.shape and np.array_equal(T_query, T_space)):
        order = tree.indices
    else:
        order = cKDTree(T_query, balanced_tree=False).indices
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
    With ``ties="row"`` ties in distance are broken by the lower row position,
    which makes the groups reproducible and equal to a brute-force stable sort.

    One ``scipy.spatial.cKDTree`` per search space answers the queries in the
    tree's leaf order, fetching a few neighbours beyond k (as many as a pilot
    of 1,000 queries shows are needed to see the ties) and asking for every
    row within the k-th distance only where the ties spill over. On a
    synthetic loan table with a million rows (about 450,000 complainants, three
    columns) ST takes seconds on one core, and time grows about linearly with
    the rows (``benchmarks/situation_testing.py``). With many columns that
    vary independently any KD-tree slows down (the curse of dimensionality):
    measure on a sample first.
    """
    _check_options(normalize, cf_scaling, ties)
    _check_execution(n_jobs, chunk_size, progress)
    for name, values in (("protected", protected), ("reference", reference), ("X_cf", X_cf)):
        _check_aligned(X, values, name)
    frame = _as_frame(X, "X")
    n = len(frame)
    protected = _mask(protected, n, "protected")
    reference = None if reference is None else _mask(reference, n, "reference")
    return _build_groups(frame, protected, k, _positional(X_cf), reference, categorical, normalize, cf_scaling, ties,
                         n_jobs, chunk_size, progress)


def _positional(table):
    """A DataFrame with a 0..n-1 index (its alignment with X was checked), else the input unchanged."""
    return table.reset_index(drop=True) if isinstance(table, pd.DataFrame) else table


def _build_groups(frame: pd.DataFrame, protected: np.ndarray, k, X_cf, reference, categorical,
                  normalize: str = "range", cf_scaling: str = "factual", ties: str = "row", n_jobs=None,
                  chunk_size=None, progress: bool = False) -> Groups:
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
                      normalize: str = "range", cf_scaling: str = "factual", ties: str = "row", n_jobs=None,
                      chunk_size=None, progress: bool = False) -> pd.DataFrame:
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
    n_jobs, chunk_size, progress
        Parallel jobs (joblib; a Dask cluster through joblib's dask backend),
        complainants per job and a progress bar, as in :func:`build_groups`;
        the result never depends on them.

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
    _check_execution(n_jobs, chunk_size, progress)
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
                           ties, n_jobs, chunk_size, progress)
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

"""The distance of situation testing: the paper's Eq. (6) as an L1 distance on rescaled columns.

Similarity is the mean over attributes of the range-normalised absolute difference
(numeric and ordinal attributes) or the overlap distance (categorical attributes, 1 if
different) :cite:p:`alvarez2023cst,thanh2011knn`. Columns are rescaled so that this
distance is exactly the L1 distance of the rescaled rows, which lets one KD-tree per
search space answer every complainant's query at once (:mod:`.neighbours`).

Two options reproduce the authors' published code instead of the paper's definition
(the defaults follow the paper): ``normalize="std"`` divides numeric differences by the
standard deviation instead of the range, and ``cf_scaling="refit"`` re-standardises the
counterfactual columns on their own statistics first.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd

from .._validation import check_aligned, check_array, check_choice

__all__ = ["situation_distance_transform"]

NORMALIZE = ("range", "std")
CF_SCALING = ("factual", "refit")
TIES = ("row", "bitwise")


def situation_distance_transform(X, X_cf=None, *, categorical=None, normalize: str = "range",
                                 cf_scaling: str = "factual"):
    """Rescale columns so that the L1 distance between rows equals the paper's Eq. (6).

    .. math:: d(x, x') = \\frac{1}{p} \\sum_{j=1}^{p} d_j(x_j, x'_j), \\quad
              d_j = \\frac{|x_j - x'_j|}{\\max_j - \\min_j} \\text{ (numeric)}, \\quad
              d_j = \\mathbb{1}[x_j \\ne x'_j] \\text{ (categorical)}

    Numeric columns are divided by ``p * range`` (range over ``X``);
    categorical columns become one-hot columns worth ``1 / (2p)`` each, so a
    change of category adds exactly ``1 / p``. The paper prints the overlap
    term the other way round (1 for equal values); under our reading it is 1
    for different values, or equal people would be far apart. With
    ``normalize="std"`` the numeric divisor is ``p * sd`` instead,
    :math:`\\mathrm{sd}_j` being the population standard deviation of column j
    over ``X`` (what the authors' code computes with scikit-learn's
    ``StandardScaler``).

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
        Counterfactual rows, rescaled with X's ranges and categories. A
        DataFrame must have X's index and X's columns (in another order it is
        aligned by name).
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
    TypeError
        For X given as None or a string, or a numeric column of X that is not
        numeric in X_cf (or not named in ``categorical`` though it holds text).
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
    check_options(normalize, cf_scaling)
    check_aligned(X, "X", X_cf=X_cf)
    frame = as_frame(X, "X")
    frame_cf = match_cf(frame, X_cf)
    T, T_cf, _ = transform(frame, frame_cf, categorical, normalize, cf_scaling)
    return T, T_cf


def check_options(normalize, cf_scaling, ties="row") -> None:
    """The options that say what is computed: the spread, the counterfactuals' ruler, the order of ties."""
    check_choice(normalize, "normalize", NORMALIZE)
    check_choice(cf_scaling, "cf_scaling", CF_SCALING)
    check_choice(ties, "ties", TIES)


def as_frame(X, name: str) -> pd.DataFrame:
    """``X`` as a frame with a 0..n-1 index; an object array gets per-column types as a frame would have."""
    if isinstance(X, pd.DataFrame):
        return X.reset_index(drop=True)
    if X is None or isinstance(X, (str, bytes)):
        raise TypeError(f"{name}={X!r}; give a table of attributes (a DataFrame or a 2-d array, rows = people).")
    array = np.asarray(X)
    if array.ndim != 2:
        raise ValueError(f"{name} has shape {array.shape}; give a 2-d table (rows = people).")
    frame = pd.DataFrame(array, columns=[f"x{j}" for j in range(array.shape[1])])
    # An object array (e.g. DataFrame.to_numpy() of mixed columns) holds numbers and labels side by side:
    # infer each column's type, so numbers are distances, not categories, exactly as in the frame.
    return frame.infer_objects() if array.dtype == object else frame


def match_cf(frame: pd.DataFrame, X_cf):
    """X_cf as a frame with a 0..n-1 index and X's columns in X's order (aligned by name), or an error."""
    if X_cf is None:
        return None
    frame_cf = as_frame(X_cf, "X_cf")
    same_names = (len(set(frame_cf.columns)) == frame_cf.shape[1] == frame.shape[1]
                  and set(frame_cf.columns) == set(frame.columns))
    if same_names and list(frame_cf.columns) != list(frame.columns):
        frame_cf = frame_cf[list(frame.columns)]   # frames by name, never by position
    if list(frame_cf.columns) != list(frame.columns) or frame_cf.shape != frame.shape:
        raise ValueError(
            f"X_cf has shape {frame_cf.shape} and columns {list(frame_cf.columns)}, but X has shape "
            f"{frame.shape} and columns {list(frame.columns)}; give one counterfactual row per factual row "
            "with the same columns."
        )
    return frame_cf


def transform(frame, frame_cf, categorical, normalize, cf_scaling, bitwise=False):
    """The rescaled rows T, T_cf of :func:`situation_distance_transform`, and with ``bitwise`` the raw values.

    The raw values R, R_cf (one column per attribute) are what the authors'
    code measures: centred normalised numbers (x - centre) / spread, the
    counterfactual ones on X_cf's own centre and spread with ``"refit"``, and
    category codes. :func:`bitwise_distances` sums their differences.
    """
    _check_frames(frame, frame_cf, cf_scaling)
    categorical = categorical_columns(frame, categorical)
    p = frame.shape[1]
    blocks, blocks_cf, raw, raw_cf = [], [], [], []
    for column in frame.columns:
        values_cf = None if frame_cf is None else frame_cf[column]
        step = _categorical_block if column in categorical else _numeric_block
        block, block_cf, r, r_cf = step(frame[column], values_cf, column, p, normalize, cf_scaling)
        blocks.append(block)
        raw.append(r)
        if frame_cf is not None:
            blocks_cf.append(block_cf)
            raw_cf.append(r_cf)
    T = np.hstack(blocks)
    T_cf = np.hstack(blocks_cf) if frame_cf is not None else None
    if not bitwise:
        return T, T_cf, None
    kinds = np.array([column in categorical for column in frame.columns])
    return T, T_cf, (kinds, np.column_stack(raw), np.column_stack(raw_cf) if frame_cf is not None else None)


def _check_frames(frame, frame_cf, cf_scaling) -> None:
    """What the transform needs of the frames: some columns, some rows, X_cf for a refit."""
    if cf_scaling == "refit" and frame_cf is None:
        raise ValueError("cf_scaling='refit' re-fits the normalisation on the counterfactual rows, but X_cf is not "
                         "given; pass X_cf (CST), or leave cf_scaling='factual' (the default) for ST.")
    if frame.shape[1] == 0:
        raise ValueError("X has no columns; give the decision-relevant attributes.")
    if len(frame) == 0:
        raise ValueError("X has 0 rows; give at least one individual.")


def _categorical_block(values, values_cf, column, p, normalize, cf_scaling):
    """One-hot columns worth 1 / (2p) each (a change of category adds 1/p), and the category codes."""
    _check_complete(values, column, "X")
    if values_cf is not None:
        _check_complete(values_cf, column, "X_cf")
    pool = values if values_cf is None else pd.concat([values, values_cf])
    index = pd.Index(pd.unique(pool))
    rows = np.arange(len(values))

    def one_hot(codes):
        block = np.zeros((len(values), len(index)))
        block[rows, codes] = 1.0 / (2 * p)
        return block

    codes = index.get_indexer(values)
    if values_cf is None:
        return one_hot(codes), None, codes.astype(float), None
    codes_cf = index.get_indexer(values_cf)
    return one_hot(codes), one_hot(codes_cf), codes.astype(float), codes_cf.astype(float)


def _numeric_block(values, values_cf, column, p, normalize, cf_scaling):
    """The column divided by p times its spread over X, and its centred normalised values (the authors')."""
    numbers_ = _numbers(values, column, "X")
    centre, spread = _centre_and_spread(numbers_, normalize)
    scale = 1.0 / (p * spread) if spread > 0 else 0.0  # a constant column never separates anyone
    raw = (numbers_ - centre) / spread if spread > 0 else np.zeros(len(numbers_))
    if values_cf is None:
        return (numbers_ * scale)[:, None], None, raw, None
    cf_numbers = _numbers(values_cf, column, "X_cf")
    if cf_scaling == "refit":
        cf_centre, cf_spread = _centre_and_spread(cf_numbers, normalize)
        # what a scaler re-fitted on X_cf returns (all zeros for a constant column)
        raw_cf = (cf_numbers - cf_centre) / cf_spread if cf_spread > 0 else np.zeros(len(cf_numbers))
        cf_numbers = (centre + (cf_numbers - cf_centre) * (spread / cf_spread) if cf_spread > 0
                      else np.full_like(cf_numbers, centre))
    else:
        raw_cf = (cf_numbers - centre) / spread if spread > 0 else np.zeros(len(cf_numbers))
    return (numbers_ * scale)[:, None], (cf_numbers * scale)[:, None], raw, raw_cf


def _check_complete(values: pd.Series, column, name: str) -> None:
    """A categorical column without missing entries (a missing value is not a category)."""
    missing = values.isna().to_numpy()
    if missing.any():
        raise ValueError(f"{name}[{column!r}] has missing values (first at row {int(np.flatnonzero(missing)[0])}); "
                         "impute or drop them first.")


def _numbers(values: pd.Series, column, name: str) -> np.ndarray:
    """A numeric column as finite floats (NaN and inf are errors naming the column and the row)."""
    if not pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values):
        where = "is numeric in X but not in X_cf" if name == "X_cf" else "holds non-numbers"
        raise TypeError(f"column {column!r} {where} (dtype {values.dtype}); give numbers, or name the column "
                        "in categorical.")
    return check_array(values.to_numpy(dtype=float, na_value=np.nan), f"{name}[{column!r}]")


def _centre_and_spread(values: np.ndarray, normalize: str) -> tuple[float, float]:
    """(minimum, range) or (mean, population standard deviation) of a column."""
    if normalize == "range":
        low = float(values.min())
        return low, float(values.max()) - low
    return float(values.mean()), float(values.std())


def bitwise_distances(kinds, R_query, R_space, query, rows):
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


def _is_number(value) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, (bool, np.bool_))


def categorical_columns(frame: pd.DataFrame, categorical) -> list:
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
    _warn_guessed(guessed, as_text)
    return chosen


def _warn_guessed(guessed, as_text) -> None:
    if guessed:
        warnings.warn(
            f"columns {guessed[:10]} of X have dtype object and hold numbers (only, or mixed with other values); "
            "they are treated as categorical (a change of value counts 1/p, whatever its size). Convert them "
            "with pandas.to_numeric if they are numbers, or pass categorical=[...] to say so explicitly.",
            stacklevel=5,
        )
    if as_text:
        warnings.warn(
            f"columns {as_text[:10]} of X hold numbers written as text (a numpy array of numbers and labels "
            "without dtype=object stores every value as text); they are treated as categorical. Pass a "
            "DataFrame or an object array to keep numbers as numbers, or categorical=[...] to say so explicitly.",
            stacklevel=5,
        )

"""The one argument-checking layer of the package (private, not in the API reference).

Every public function validates its arguments here, so that the same mistake gets the same
error everywhere. The conventions:

* **TypeError** when an argument has the wrong *type*: a string or None where numbers are
  expected, a float where a count is (``2.0`` included: counts are never rounded), a bool
  where a number is, a model without ``predict_proba``;
* **ValueError** when the type is right but the *value* is not: NaN or inf, out of range,
  fractional entries of a count array, wrong shape or length, empty input, a label missing,
  columns that do not match, indexes that do not line up;
* every message names the argument, the offending value (or its first position) and the fix.

What is here:

* :func:`check_int`, :func:`check_integers`, :func:`check_real`, :func:`check_number`,
  :func:`check_choice`, :func:`plain`: scalar and integer-array arguments (a fractional count is
  an error, never truncated; bools are not counts);
* :func:`check_array`, :func:`check_probabilities`, :func:`check_mask`, :func:`check_positions`:
  numeric arrays, probabilities, boolean masks and row positions, with shape, length, NaN/inf
  and range checks that name the first bad entry;
* :func:`check_labels`: group labels (none missing, not a mix of numbers and strings);
* :func:`check_aligned`: pandas arguments paired by position must share one index;
* :func:`check_columns`: a DataFrame read by column *name*, never by position;
* :func:`favourable_column`: which column of ``predict_proba`` is the favourable class;
* :func:`check_seed`: an int seed for libraries that need one (jax, fairlearn);
* :func:`check_bool`: a yes/no switch; :func:`check_aligned_all`: :func:`check_aligned` with the first
  pandas argument as the reference; :func:`check_numeric_columns`, :func:`check_table` and
  :func:`align_columns`: DataFrames whose errors name the column;
* :func:`check_unit_interval`: a share or probability in [0, 1] (or (0, 1));
* :func:`check_rng`: ``random_state`` as a numpy Generator (None, an int seed
  >= 0 or a Generator; a float is never truncated to a seed);
* :func:`check_cost_matrix`: the cost matrix ``C`` of groupcf and burden;
* :func:`check_do` and :func:`restore_dtype`: interventions on a DAG and the
  dtype of the columns they change, shared by the fitted SCM
  (:class:`~recourselab.scm.AdditiveNoiseSCM`) and the synthetic worlds of
  :mod:`recourselab.datasets`, which must treat ``do`` identically.
"""

from __future__ import annotations

import math
import numbers
from typing import Mapping

import networkx as nx
import numpy as np
import pandas as pd
from scipy import sparse

__all__ = ["align_columns", "check_aligned", "check_aligned_all", "check_array", "check_bool", "check_choice",
           "check_columns", "check_cost_matrix", "check_do", "check_int", "check_integers", "check_labels",
           "check_mask", "check_number", "check_numeric_columns", "check_positions", "check_probabilities",
           "check_real", "check_rng", "check_seed", "check_table", "check_unit_interval", "favourable_column",
           "plain", "restore_dtype"]


def plain(value):
    """A numpy scalar as the plain Python value (for messages and dictionary keys)."""
    return value.item() if isinstance(value, np.generic) else value


def tidy_float(value):
    """A float as a slider shows it: 2.5, not 2.5000000000000004 (12 significant digits); anything else unchanged.

    Stepping a float slider (in the browser, or ``np.arange`` in a sweep) leaves binary rounding noise that
    a title printing the value with ``f"{d}"`` would show; 12 digits keep every value a slider can mean."""
    if isinstance(value, (float, np.floating)) and np.isfinite(value):
        return float(f"{float(value):.12g}")
    return plain(value)


def is_integer(value) -> bool:
    # bools are Integral in Python, but True as a count or a position is a mistake, not a 1
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def check_int(value, name: str, *, minimum: int | None = None) -> int:
    """An integer argument (Python or numpy): TypeError for fractional values (never truncated) and bools,
    ValueError below ``minimum``."""
    if not is_integer(value):
        raise TypeError(f"{name}={value!r} must be an integer, not {type(value).__name__} (fractional "
                        "values are not rounded)" + (f"; pass a whole number >= {minimum}." if minimum is not None
                                                     else "."))
    if minimum is not None and value < minimum:
        raise ValueError(f"{name}={int(value)} must be at least {minimum}.")
    return int(value)


def check_integers(values, name: str) -> np.ndarray:
    """An array of integer entries (positions, counts): numpy integer dtypes or Python/numpy integers, no bools."""
    array = np.asarray(values)
    if isinstance(values, (np.ndarray, pd.Series, pd.Index)) and array.dtype.kind in "iu":
        return array.astype(np.int64)
    # entry by entry, as given: numpy would turn [1, 2.5] into floats and [True, 2] into integers
    for i, v in enumerate(np.asarray(values, dtype=object).ravel()):
        if not is_integer(v):
            raise TypeError(f"{name}[{i}]={plain(v)!r} must be an integer (fractional values are not rounded, "
                            "bools are not counts); pass whole numbers, e.g. an array of dtype int.")
    return array.astype(np.int64)


def check_labels(labels, name: str, n: int | None = None, *, what: str = "row") -> np.ndarray:
    """Group labels as an object array, one per ``what``, none missing, all of one kind.

    A None or NaN label would be dropped silently by pandas' grouping, so it is an error naming the first
    missing position (and its index label for a Series) and how many are missing. Labels that mix numbers
    and strings (``1`` and ``"1"``) are an error too: pandas would keep them as two groups that print alike.
    """
    if labels is None or isinstance(labels, (str, bytes)):
        raise TypeError(f"{name}={labels!r}; give one group label per {what} (a list, array or Series).")
    values = labels.to_numpy() if isinstance(labels, (pd.Series, pd.Index)) else labels
    array = np.empty(len(values), dtype=object) if np.ndim(values) == 1 else None
    if array is not None:
        array[:] = list(values)  # as given: numpy would turn ["a", nan] into the strings "a", "nan"
    else:
        array = np.asarray(values, dtype=object)
    if array.ndim != 1 or (n is not None and array.shape != (n,)):
        expected = f"one label per {what}" + (f" ({n})" if n is not None else "")
        raise ValueError(f"{name} has shape {array.shape}; give {expected}.")
    missing = np.asarray(pd.isna(array), dtype=bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        where = f"first at position {i}"
        if isinstance(labels, pd.Series):
            where += f", index label {plain(labels.index[i])!r}"
        raise ValueError(f"{name} has missing labels (None or NaN; {where}; {int(missing.sum())} in all); give "
                         f"every {what} a label, e.g. 'unknown', so that nobody is dropped silently.")
    kinds = {"text" if isinstance(v, (str, bytes)) else "number" if isinstance(v, numbers.Number) else "other"
             for v in array}
    if len(kinds) > 1 and "text" in kinds:
        text = next(plain(v) for v in array if isinstance(v, (str, bytes)))
        other = next(plain(v) for v in array if not isinstance(v, (str, bytes)))
        raise ValueError(f"{name} mixes strings and other values (e.g. {text!r} and {other!r}), which would form "
                         f"separate groups that print alike; give every label the same type (e.g. {name}.astype(str)).")
    return array


def check_real(value, name: str) -> float:
    """A real number argument (not a bool, not a string); NaN and inf pass: callers check the range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}={plain(value)!r} must be a number.")
    return float(value)


def check_unit_interval(value, name: str, *, open_interval: bool = False) -> float:
    """A number in [0, 1] (``open_interval=True``: strictly inside); NaN, inf and bools are errors."""
    interval = "(0, 1)" if open_interval else "[0, 1]"
    number = not isinstance(value, (bool, np.bool_)) and isinstance(value, numbers.Real)
    if not number or not ((0 < value < 1) if open_interval else (0 <= value <= 1)):
        raise ValueError(f"{name}={plain(value)!r} must lie in {interval}.")
    return float(value)


def check_rng(random_state) -> np.random.Generator:
    """``random_state`` as a numpy Generator: None (fresh entropy), an int seed >= 0, or a Generator (used as is)."""
    if random_state is None or isinstance(random_state, np.random.Generator):
        return np.random.default_rng(random_state)
    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, numbers.Integral):
        raise TypeError(f"random_state={random_state!r} must be None, an int seed or a numpy.random.Generator "
                        "(floats are not truncated to a seed).")
    if random_state < 0:
        raise ValueError(f"random_state={random_state!r} must be an int >= 0 (a seed for numpy).")
    return np.random.default_rng(int(random_state))


def check_cost_matrix(C) -> np.ndarray:
    """``C`` as a dense float array of shape (n_factuals, n_candidates), costs >= 0, ``inf`` = unreachable.

    Raises
    ------
    TypeError
        For a scipy sparse matrix (a missing entry would read as cost 0) or
        entries that are not numbers.
    ValueError
        For a shape other than 2-d, no rows or no columns, NaN or negative costs.
    """
    if sparse.issparse(C):
        raise TypeError(
            "C is a scipy sparse matrix; pass a dense ndarray with np.inf for unreachable pairs "
            "(in a sparse matrix a missing entry would read as cost 0, i.e. free recourse)."
        )
    try:
        C = np.asarray(C, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"C must be a 2-d array of costs (floats, np.inf = unreachable): {err}") from None
    if C.ndim != 2:
        raise ValueError(
            f"C has shape {C.shape}; give a 2-d cost matrix of shape (n_factuals, n_candidates)."
        )
    n, m = C.shape
    if n == 0:
        raise ValueError(f"C has 0 factual rows (shape {C.shape}); there is nothing to explain (X is empty).")
    if m == 0:
        raise ValueError(
            f"C has 0 candidate columns (shape {C.shape}); there are no counterfactual candidates (X' is empty)."
        )
    low = C.min()
    if np.isnan(low):
        i, j = np.argwhere(np.isnan(C))[0]
        raise ValueError(
            f"C has NaN costs (first at row {i}, column {j}); use np.inf for an unreachable candidate."
        )
    if low < 0:
        i, j = np.argwhere(C < 0)[0]
        raise ValueError(
            f"C has negative costs (first C[{i}, {j}] = {C[i, j]}); costs must be >= 0 (np.inf = unreachable)."
        )
    return C


def check_do(do, dag: nx.DiGraph, n_rows: int) -> dict:
    """Interventions ``do`` as ``{node: float array of n_rows values}``.

    A scalar sets every row; an array-like gives one value per row. Every key
    must be a node of ``dag`` and every value a finite number.
    """
    if not isinstance(do, Mapping):
        raise TypeError(f"do must be a dict mapping node -> value (e.g. {{'gender': 0}}), got {type(do).__name__}.")
    out = {}
    for node, value in do.items():
        if node not in dag:
            raise ValueError(
                f"do names {node!r}, which is not a node of the DAG; nodes are {sorted(dag.nodes, key=str)}."
            )
        values = np.asarray(value)
        if values.ndim == 0:
            values = np.full(n_rows, values.item())
        if values.ndim != 1 or len(values) != n_rows:
            raise ValueError(
                f"do[{node!r}] has shape {np.shape(value)}; give one scalar or one value per row ({n_rows})."
            )
        try:
            values = values.astype(float)
        except (TypeError, ValueError):
            raise TypeError(f"do[{node!r}] must hold numbers, got dtype {values.dtype}.") from None
        if not np.isfinite(values).all():
            raise ValueError(f"do[{node!r}] holds NaN or infinite values; give finite numbers.")
        out[node] = values
    return out


def restore_dtype(values: np.ndarray, like: pd.Series) -> np.ndarray:
    """Keep an integer (or bool) column's dtype when every new value is a whole number (or 0/1)."""
    if pd.api.types.is_integer_dtype(like) and np.array_equal(values, np.round(values)):
        return values.astype(like.dtype)
    if pd.api.types.is_bool_dtype(like) and np.isin(values, (0.0, 1.0)).all():
        return values.astype(bool)
    return values


def check_number(value, name: str, *, minimum: float | None = None, maximum: float | None = None,
                 strict_minimum: bool = False, allow_inf: bool = False) -> float:
    """A real number (not a bool, not a string, not None) in a range; NaN is always an error, inf unless allowed.

    ``strict_minimum=True`` asks for ``value > minimum``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}={plain(value)!r} must be a number, not {type(value).__name__}.")
    value = float(value)
    if math.isnan(value) or (math.isinf(value) and not allow_inf):
        raise ValueError(f"{name}={value!r} must be a finite number.")
    if minimum is not None and (value <= minimum if strict_minimum else value < minimum):
        raise ValueError(f"{name}={value:g} must be {'>' if strict_minimum else '>='} {minimum:g}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name}={value:g} must be <= {maximum:g}.")
    return value


def check_choice(value, name: str, options) -> str:
    """One of ``options`` (compared as given; the error lists them)."""
    options = tuple(options)
    try:
        ok = value in options
    except TypeError:  # an unhashable or incomparable value
        ok = False
    if not ok:
        raise ValueError(f"{name}={plain(value)!r} is not one of {options}.")
    return value


def _entry(array: np.ndarray, name: str, position) -> str:
    """``name[i]=value`` (or ``name[i, j]=value``) for messages."""
    position = tuple(int(p) for p in np.atleast_1d(position))
    where = ", ".join(map(str, position))
    return f"{name}[{where}]={plain(array[position])!r}" if array.ndim else f"{name}={plain(array.item())!r}"


def check_array(values, name: str, *, ndim: int | None = 1, length: int | None = None, width: int | None = None,
                minimum: float | None = None, maximum: float | None = None, allow_nan: bool = False,
                allow_inf: bool = False, integer: bool = False, allow_empty: bool = False,
                length_of: str = "rows") -> np.ndarray:
    """A float array (a new one: the caller's input is never modified) with its shape and entries checked.

    Parameters
    ----------
    values : array-like, Series or DataFrame
    name : str
        The argument's name, used in every message.
    ndim : int or None, default 1
        Required number of dimensions (a scalar has 0); None accepts any.
    length, width : int, optional
        Required number of rows (entries of a 1-d array) and of columns; ``length_of`` names what
        the rows are in the message ("rows", "applicants", ...).
    minimum, maximum : float, optional
        Inclusive range of the entries.
    allow_nan, allow_inf : bool, default False
        Accept NaN entries, and infinite ones (``inf = unreachable`` in cost matrices).
    integer : bool, default False
        Entries must be whole numbers (counts, amounts in whole units); bools are refused.
    allow_empty : bool, default False
        Accept zero entries.

    Raises
    ------
    TypeError
        None, strings, booleans where ``integer``, or entries that are not numbers.
    ValueError
        Wrong shape, length or width, empty input, NaN, inf, entries out of range or fractional.
    """
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name}={values!r}; give numbers (an array{' or a scalar' if ndim in (0, None) else ''}).")
    raw = values.to_numpy() if isinstance(values, (pd.Series, pd.DataFrame, pd.Index)) else values
    raw = np.asarray(raw)
    if raw.dtype.kind in "US":
        raise TypeError(f"{name} holds strings (dtype {raw.dtype}); give numbers.")
    if raw.dtype.kind == "O":  # numpy would parse "0.3" into 0.3 without a word
        text = next((plain(v) for v in raw.ravel() if isinstance(v, (str, bytes))), None)
        if text is not None:
            raise TypeError(f"{name} must hold numbers; found {text!r} (str): convert text with pd.to_numeric "
                            "first.")
    if integer and raw.dtype.kind == "b":
        raise TypeError(f"{name} holds booleans; give whole numbers (counts or amounts), not True/False.")
    try:
        array = np.array(raw, dtype=float)
    except (TypeError, ValueError):
        bad = next((plain(v) for v in np.asarray(raw, dtype=object).ravel()
                    if not isinstance(v, numbers.Number) or isinstance(v, (bool, np.bool_))), None)
        raise TypeError(f"{name} must hold numbers; found {bad!r} ({type(bad).__name__}).") from None
    if ndim is not None and array.ndim != ndim:
        shape = {0: "a single number", 1: "a 1-d array", 2: "a 2-d table (rows by columns)"}.get(ndim, f"{ndim}-d")
        raise ValueError(f"{name} has shape {array.shape}; give {shape}.")
    if length is not None and (array.ndim == 0 or array.shape[0] != length):
        one = length_of[:-1] if length_of.endswith("s") else length_of
        raise ValueError(f"{name} has {array.shape[0] if array.ndim else 'no'} entries but there are {length} "
                         f"{length_of}; give one per {one}.")
    if width is not None and (array.ndim != 2 or array.shape[1] != width):
        raise ValueError(f"{name} has shape {array.shape}; expected {width} columns.")
    if not allow_empty and array.size == 0:
        raise ValueError(f"{name} is empty; give at least one entry.")
    if array.size and not np.isfinite(array).all():
        bad = np.isnan(array) if not allow_nan else np.zeros(array.shape, bool)
        if not allow_inf:
            bad |= np.isinf(array)
        if bad.any():
            position = np.argwhere(bad)[0] if array.ndim else ()
            what = "missing (NaN)" if np.isnan(array[tuple(position)]) else "infinite"
            raise ValueError(f"{_entry(array, name, position)} is {what}; give finite numbers (impute, cap or drop "
                             "those rows first).")
    checks = []
    if integer:
        checks.append(("is not a whole number; counts and amounts are never rounded for you",
                       np.isfinite(array) & (array != np.round(array))))
    if minimum is not None:
        checks.append((f"is below {minimum:g}", array < minimum))
    if maximum is not None:
        checks.append((f"is above {maximum:g}", array > maximum))
    for message, bad in checks:
        if np.any(bad):
            position = np.argwhere(bad)[0] if array.ndim else ()
            raise ValueError(f"{_entry(array, name, position)} {message}.")
    return array


def check_probabilities(values, name: str, **kwargs) -> np.ndarray:
    """Finite probabilities in [0, 1] (see :func:`check_array` for the keyword arguments)."""
    return check_array(values, name, minimum=0.0, maximum=1.0, **kwargs)


def check_mask(values, name: str, n: int | None = None, *, meaning: str = "True = selected") -> np.ndarray:
    """A boolean mask, one entry per row: bools or 0/1 (no NaN, no strings, no other numbers)."""
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name}={values!r}; give one True/False (or 1/0) per row ({meaning}).")
    raw = values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values
    mask = np.asarray(raw)
    if mask.ndim != 1 or (n is not None and mask.shape != (n,)):
        expected = f" ({n})" if n is not None else ""
        raise ValueError(f"{name} has shape {mask.shape}; give one entry per row{expected}.")
    if mask.dtype == bool:
        return mask.copy()
    missing = np.asarray(pd.isna(mask), dtype=bool)
    if missing.any():
        i = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{name}[{i}] is missing ({plain(mask[i])!r}); give True/False or 1/0 for every row "
                         f"({meaning}).")
    bad = [plain(v) for v in pd.unique(mask) if isinstance(v, (str, bytes)) or v not in (0, 1)]
    if bad:
        raise ValueError(f"{name} must be boolean or 0/1 ({meaning}); found values {sorted(bad, key=repr)[:5]}.")
    return mask.astype(bool)


def check_positions(values, name: str, n: int, *, allow_empty: bool = True, unique: bool = False) -> np.ndarray:
    """Integer row positions in ``0 .. n-1`` (never labels, bools or floats); optionally without repeats."""
    if values is None or isinstance(values, (str, bytes)):
        raise TypeError(f"{name}={values!r}; give integer row positions.")
    positions = check_integers(np.atleast_1d(np.asarray(values)) if np.ndim(values) == 0 else values, name)
    if positions.ndim != 1:
        raise ValueError(f"{name} has shape {positions.shape}; give a 1-d list of row positions.")
    if not allow_empty and positions.size == 0:
        raise ValueError(f"{name} is empty; give at least one row position.")
    out = (positions < 0) | (positions >= n)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        raise ValueError(f"{name}[{i}]={int(positions[i])} is not a row position (0..{n - 1}); positions count from "
                         "0 (use .get_indexer or np.flatnonzero to turn labels or masks into positions).")
    if unique and len(np.unique(positions)) != len(positions):
        values_, counts = np.unique(positions, return_counts=True)
        raise ValueError(f"{name} repeats the positions {values_[counts > 1][:5].tolist()}; each row may appear once "
                         "(drop the duplicates, e.g. np.unique).")
    return positions


def check_aligned(reference, name_reference: str, /, **others) -> None:
    """pandas arguments paired with ``reference`` by position must carry its index.

    Rows are matched by position; when both ``reference`` and another argument are pandas objects of
    the same length whose indexes differ, the pairing would be silently wrong, so this is an error
    (the fix: ``other.loc[reference.index]``, or ``.to_numpy()`` to pair by position on purpose). Lengths
    are left to the shape checks, which report them better.
    """
    if not isinstance(reference, (pd.Series, pd.DataFrame)):
        return
    for name, other in others.items():
        if isinstance(other, (pd.Series, pd.DataFrame)) and len(other) == len(reference) \
                and not other.index.equals(reference.index):
            theirs = [plain(v) for v in other.index[:3]]
            ours = [plain(v) for v in reference.index[:3]]
            raise ValueError(
                f"{name} has a different index from {name_reference} ({name}'s first labels {theirs}, "
                f"{name_reference}'s {ours}); "
                f"rows are paired by position, so give {name} the same index (e.g. {name}.loc[{name_reference}.index]) "
                f"or pass {name}.to_numpy() to pair by position on purpose."
            )


def check_columns(X, columns, name: str) -> np.ndarray:
    """A table read by column name: a DataFrame is reordered to ``columns`` (or refused), an array is taken as is.

    A DataFrame whose columns are the expected ones in another order is reordered (as scikit-learn
    would refuse it, we align it by name rather than read it by position); one with missing or unknown
    columns is an error listing them. An array cannot be checked by name and must have ``len(columns)``
    columns. Returns a float array (a copy; nothing is modified).
    """
    columns = [str(c) for c in columns]
    if isinstance(X, pd.DataFrame):
        given = [str(c) for c in X.columns]
        if given != columns:
            missing = [c for c in columns if c not in given]
            extra = [c for c in given if c not in columns]
            if missing or extra or len(given) != len(columns):
                raise ValueError(f"{name} has columns that do not match the {len(columns)} expected: missing "
                                 f"{missing[:6]}, unexpected {extra[:6]}; give a frame with exactly the expected "
                                 f"columns (e.g. {name}[encoder.feature_names_out_]).")
            X = X.set_axis(given, axis=1)[columns]
        return check_array(X, name, ndim=2, width=len(columns))
    return check_array(X, name, ndim=2, width=len(columns))


def favourable_column(model, favourable=1, name: str = "model") -> int:
    """The column of ``model.predict_proba`` that holds the favourable class ``favourable``.

    Refuses a model without ``predict_proba`` (TypeError) and one whose ``classes_`` do not include
    ``favourable`` (ValueError, listing the classes: with a label where 1 is the unfavourable outcome,
    such as a reoffending label, pass ``favourable=0``). A model without ``classes_`` is taken to have
    the classes (0, 1).
    """
    if not hasattr(model, "predict_proba"):
        raise TypeError(f"{name} {type(model).__name__} has no predict_proba; use a probabilistic classifier.")
    classes = getattr(model, "classes_", None)
    classes = [0, 1] if classes is None else [plain(c) for c in np.asarray(classes).tolist()]
    if favourable not in classes:
        raise ValueError(f"favourable={plain(favourable)!r} is not among {name}'s classes {classes}; pass the label "
                         "of the favourable outcome (e.g. favourable=0 when 1 means reoffending or default).")
    return classes.index(favourable)


def check_seed(random_state, name: str = "random_state") -> int:
    """An int seed in [0, 2**32 - 1] for libraries that need one (jax, fairlearn).

    None draws fresh entropy; a numpy Generator or RandomState is asked for one integer; an int is
    used as is; a float is refused even when whole (never truncated).
    """
    if random_state is None:
        return int(np.random.SeedSequence().generate_state(1)[0])
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**32 - 1))
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(2**32 - 1))
    if not is_integer(random_state):
        raise TypeError(f"{name}={plain(random_state)!r} must be None, an int seed or a numpy.random.Generator "
                        "(floats are not truncated to a seed).")
    if not 0 <= random_state < 2**32:
        raise ValueError(f"{name}={int(random_state)} must be an int in [0, 2**32 - 1] (a seed).")
    return int(random_state)


def check_bool(value, name: str) -> bool:
    """A flag: True or False (Python or numpy bool); anything else (1, "yes", None) is a TypeError."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}={plain(value)!r} must be True or False.")
    return bool(value)


def check_aligned_all(**arguments) -> None:
    """Every pandas argument among ``arguments`` must carry the index of the first pandas one.

    :func:`check_aligned` with the reference chosen for the caller: rows of arguments paired by
    position (two Series of flags, costs and group labels, ...) may come as arrays or as pandas
    objects in any mix, and whichever pandas argument comes first is the one the others must match.
    Arguments that are not pandas objects (arrays, lists, None) are skipped.
    """
    pandas = [(name, value) for name, value in arguments.items() if isinstance(value, (pd.Series, pd.DataFrame))]
    if len(pandas) > 1:
        (name, reference), *others = pandas
        check_aligned(reference, name, **dict(others))


def check_numeric_columns(frame: pd.DataFrame, columns, name: str, **kwargs) -> np.ndarray:
    """Columns of a DataFrame as a float array, each of a numeric dtype, then checked by :func:`check_array`.

    ``columns`` is one column name (a 1-d array is returned) or a list of them (2-d). A column of text
    is a TypeError naming it even when its entries would parse as numbers ("0.3"): numpy would turn an
    object array of numeric strings into floats without a word. ``kwargs`` go to :func:`check_array`
    (its ``ndim`` is set here).
    """
    single = not isinstance(columns, (list, tuple))
    names = [columns] if single else list(columns)
    for column in names:
        values = frame[column]
        if not (pd.api.types.is_numeric_dtype(values) or pd.api.types.is_bool_dtype(values)):
            raise TypeError(f"{name}[{column!r}] has dtype {values.dtype}; give numbers (convert text with "
                            "pd.to_numeric first).")
    return check_array(frame[names[0]] if single else frame[names], f"{name}[{columns!r}]" if single else name,
                       ndim=1 if single else 2, **kwargs)


def align_columns(X, columns, name: str):
    """A DataFrame put in the column order ``columns`` by name; any other input is returned unchanged.

    Only the header is checked (values are left to :func:`check_table` or :func:`check_array`): names
    that are missing or unknown are refused with :func:`check_columns`'s message. Use it where a frame
    may hold values :func:`check_columns` refuses on purpose (all-NaN rows that mark "no partner").
    """
    if columns is None or not isinstance(X, pd.DataFrame):
        return X
    check_columns(pd.DataFrame(np.zeros((1, X.shape[1])), columns=X.columns), columns, name)
    return X.set_axis([str(c) for c in X.columns], axis=1)[[str(c) for c in columns]]


def check_table(X, name: str, *, columns=None, allow_empty: bool = False, allow_nan: bool = False) -> np.ndarray:
    """A numeric table (rows by columns) as a new float array; for a DataFrame, errors name the column.

    A DataFrame with non-numeric columns is a TypeError listing them, and NaN or infinite values a
    ValueError naming the column and the first row (its position and index label), so that a reader
    knows which feature to impute or encode. With ``columns``, a DataFrame is aligned by name
    (:func:`align_columns`) and an array must have ``len(columns)`` columns. ``allow_empty`` accepts
    zero rows; ``allow_nan`` accepts NaN (never inf). Arrays go through :func:`check_array`.
    """
    if isinstance(X, pd.DataFrame):
        text = [plain(c) for c in X.columns
                if not (pd.api.types.is_numeric_dtype(X[c]) or pd.api.types.is_bool_dtype(X[c]))]
        if text:
            raise TypeError(f"{name} has non-numeric columns {text[:5]}; encode them as numbers first (e.g. one-hot "
                            "with pandas.get_dummies or recourselab.features.Encoder).")
        X = align_columns(X, columns, name)
        values = X.to_numpy(dtype=float, na_value=np.nan)
        bad = np.isinf(values) if allow_nan else ~np.isfinite(values)
        if bad.any():
            i, j = (int(v) for v in np.argwhere(bad)[0])
            what = "missing values (NaN)" if np.isnan(values[i, j]) else "infinite values"
            raise ValueError(f"column {plain(X.columns[j])!r} of {name} has {what} (first in row {i}, index label "
                             f"{plain(X.index[i])!r}); give finite numbers (impute, cap or drop those rows first).")
    return check_array(X, name, ndim=2, width=None if columns is None else len(columns), allow_empty=allow_empty,
                       allow_nan=allow_nan)

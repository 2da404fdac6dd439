"""Argument checks shared by several modules (private to the package, not in the API reference).

* :func:`check_int`, :func:`check_integers`, :func:`check_real`, :func:`plain`:
  scalar and integer-array arguments (a fractional count is an error, never
  truncated; bools are not counts);
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

import numbers
from typing import Mapping

import networkx as nx
import numpy as np
import pandas as pd
from scipy import sparse

__all__ = ["check_cost_matrix", "check_do", "check_int", "check_integers", "check_labels", "check_real",
           "check_rng", "check_unit_interval", "plain", "restore_dtype"]


def plain(value):
    """A numpy scalar as the plain Python value (for messages and dictionary keys)."""
    return value.item() if isinstance(value, np.generic) else value


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
    """Group labels as an object array, one per ``what``, none missing (a None or NaN label would be dropped
    silently by pandas' grouping); the error names the first missing position, its index label for a
    Series, and how many are missing."""
    array = np.asarray(labels, dtype=object)  # as given: numpy would turn ["a", nan] into the strings "a", "nan"
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

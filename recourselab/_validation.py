"""Argument checks shared by several modules (private to the package, not in the API reference).

* :func:`check_cost_matrix`: the cost matrix ``C`` of groupcf and burden;
* :func:`check_do` and :func:`restore_dtype`: interventions on a DAG and the
  dtype of the columns they change, shared by the fitted SCM
  (:class:`~recourselab.scm.AdditiveNoiseSCM`) and the synthetic worlds of
  :mod:`recourselab.datasets`, which must treat ``do`` identically.
"""

from __future__ import annotations

from typing import Mapping

import networkx as nx
import numpy as np
import pandas as pd
from scipy import sparse

__all__ = ["check_cost_matrix", "check_do", "restore_dtype"]


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

"""Argument handling shared by the modules of :mod:`recourselab.explanation_consistency` (private).

Built on :mod:`recourselab._validation`; what is here is particular to this lesson: a protected attribute
with exactly two values and their 0/1 codes, partner rows that may be all-NaN (no partner), baselines
given as one row for all, and the column names a model expects.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._validation import align_columns, check_array, check_int, check_labels, check_table, plain

EPS = 1e-8   # the paper's epsilon in g / (||g|| + eps)


def labels(values, name: str, n: int | None = None, what: str = "row") -> np.ndarray:
    """One label per row, none missing, not a mix of numbers and strings, as an array of their own dtype.

    :func:`~recourselab._validation.check_labels` validates them; the values are then returned with
    numpy's dtype (ints stay ints, so a model's ``classes_`` and predictions keep it).
    """
    check_labels(values, name, n, what=what)
    return np.asarray(values.to_numpy() if isinstance(values, (pd.Series, pd.Index)) else values)


def group_codes(a, name: str) -> tuple[tuple, np.ndarray]:
    """The two values of a binary attribute (sorted) and the 0/1 code of every entry."""
    values = pd.unique(a)
    if len(values) != 2:
        shown = sorted((plain(v) for v in values), key=str)[:6]
        raise ValueError(
            f"{name} must have exactly two values (a binary protected attribute), found {len(values)}: "
            f"{shown}. Merge categories into two groups (e.g. white vs non-white), or keep the rows of the two "
            f"groups you compare (keep = np.isin({name}, [group, reference])) before matching."
        )
    values = tuple(sorted((plain(v) for v in values), key=lambda v: (str(type(v)), v)))
    return values, (a == values[1]).astype(np.int64)


def encode_groups(a, values: tuple, name: str, source: str) -> np.ndarray:
    """The 0/1 codes of ``a`` in the coding of ``values`` (the two groups of ``source``)."""
    a = np.asarray(a)
    known = (a == values[0]) | (a == values[1])
    if not known.all():
        i = int(np.flatnonzero(~known)[0])
        raise ValueError(f"{name}[{i}]={plain(a[i])!r} is not one of the two groups {list(values)} of {source}.")
    return (a == values[1]).astype(np.int64)


def cell_counts(y, codes, values) -> dict:
    """Rows per (label, group) cell, for error messages."""
    return {(plain(lab), values[k]): int(((y == lab) & (codes == k)).sum()) for lab in pd.unique(y) for k in (0, 1)}


def feature_names(X, d: int) -> tuple:
    """The columns of a DataFrame, or x0, x1, ... for an array."""
    if isinstance(X, pd.DataFrame):
        return tuple(str(c) for c in X.columns)
    return tuple(f"x{j}" for j in range(d))


def row_index(X, n: int) -> pd.Index:
    """The index of a pandas input (kept in returned frames), else 0..n-1."""
    return X.index if isinstance(X, (pd.DataFrame, pd.Series)) else pd.RangeIndex(n)


def frame_columns(X):
    """The column names of a DataFrame (to align the arguments read beside it), else None."""
    return [str(c) for c in X.columns] if isinstance(X, pd.DataFrame) else None


def partner_matrix(X_cf, name: str, shape: tuple, reference: str = "X", columns=None) -> np.ndarray:
    """Partner rows, one per row of X: complete rows, or all-NaN rows for "no partner" (never partly missing)."""
    C = check_table(align_columns(X_cf, columns, name), name, allow_empty=True, allow_nan=True)
    if C.shape != tuple(shape):
        raise ValueError(f"{name} has shape {C.shape} but {reference} has shape {tuple(shape)}; give one partner row "
                         "per row.")
    nan = np.isnan(C)
    partial = nan.any(axis=1) & ~nan.all(axis=1)
    if partial.any():
        i = int(np.flatnonzero(partial)[0])
        raise ValueError(f"row {i} of {name} is partly missing; a partner row is either complete or all-NaN "
                         "(unmatched).")
    return C


def baseline_matrix(baselines, shape: tuple, name: str = "baselines", columns=None) -> np.ndarray:
    """One baseline per row: shape (n, d), or (d,) for one baseline shared by every row."""
    n, d = shape
    if isinstance(baselines, pd.Series) and columns is not None \
            and sorted(str(c) for c in baselines.index) == sorted(columns):   # one row named by feature
        baselines = baselines.set_axis([str(c) for c in baselines.index])[list(columns)]
    B = check_table(align_columns(baselines, columns, name), name, allow_empty=True) \
        if isinstance(baselines, pd.DataFrame) else check_array(baselines, name, ndim=None, allow_empty=True)
    if B.shape == (d,):
        B = np.broadcast_to(B, (n, d)).copy()
    if B.shape != (n, d):
        raise ValueError(f"{name} has shape {B.shape} but X has shape {tuple(shape)}; give shape ({d},) or "
                         f"({n}, {d}).")
    return B


def check_steps(steps, name: str = "steps") -> int:
    """The number of path points T of the integrated gradients (an int >= 1)."""
    return check_int(steps, name, minimum=1)

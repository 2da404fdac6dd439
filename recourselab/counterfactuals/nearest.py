"""Counterfactuals among observed people: the nearest approved people an applicant could become.

The simplest recourse that is certain to be realistic is a *real* person who
got the favourable decision and whom the applicant could become.
:func:`nearest_counterfactuals` finds, for every applicant, the cheapest such
people under the :class:`~recourselab.features.Encoder`'s costs. By default a
target must be reachable by **actionable** moves (advice a person could
follow: whole levels, the advised direction, a plausible change;
:meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`);
``actionable=False`` relaxes this to every **feasible** move (what the
actionability model allows), which is what a burden measure across groups may
count, labelled a relaxation. :func:`describe_changes` turns one move into a
readable table.

This is the data-point restriction that FACE :cite:p:`poyiadzi2020face` and
FACEGroup :cite:p:`fragkathoulas2025facegroup` also use, without their graph of
small steps: here a move is judged only by its end points. The literal version
is :func:`recourselab.counterfactuals.paper.nearest_feasible_counterfactual`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .._validation import check_bool, check_choice, check_columns, check_int
from ..features import Encoder, check_encoded, check_encoder

__all__ = ["NO_COUNTERFACTUAL", "NearestCounterfactuals", "nearest_counterfactuals", "describe_changes"]

#: Position stored where a factual has no (or fewer than ``k``) counterfactuals. It is the
#: smallest int64, so using it as an index raises IndexError instead of silently picking the
#: last row, as -1 would.
NO_COUNTERFACTUAL = int(np.iinfo(np.int64).min)

# factual rows per chunk: the (chunk, n_candidates) cost and mask matrices stay small
_CELLS_PER_CHUNK = 2_000_000

@dataclass(frozen=True)
class NearestCounterfactuals:
    """The ``k`` cheapest admissible counterfactuals of each factual row.

    Attributes
    ----------
    index : ndarray of int64, shape (n_factuals, k)
        Row positions in the candidate array, cheapest first (ties by
        position); :data:`NO_COUNTERFACTUAL` where there are fewer than ``k``
        admissible candidates (a value numpy refuses as an index, so it cannot
        select a row by mistake).
    cost : ndarray of float, shape (n_factuals, k)
        Cost of each move; ``inf`` where there is no counterfactual.
    n_feasible : ndarray of int, shape (n_factuals,)
        Number of admissible candidates for each factual: actionable ones by
        default, feasible ones with ``actionable=False``, all of them with
        ``feasible_only=False``.
    feasible_only : bool
        Whether moves had to respect the encoder's actionability at all.
    norm : str
        ``"l1"`` or ``"l2"`` (see :meth:`~recourselab.features.Encoder.cost`).
    advice : str
        ``"actionable"``: every target is reachable by actionable moves
        (:meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`),
        advice a person could follow. ``"relaxation"``: targets need only be
        feasible (or, with ``feasible_only=False``, are unconstrained), so they
        may ask for moves advice may not make (a feature never advised, the
        wrong direction, beyond a plausible change); not advice.
    actionable : ndarray of bool, shape (n_factuals, k)
        Whether each target is reachable by an actionable move (False where
        there is none); all True for found targets of an actionable result.
    """

    index: np.ndarray
    cost: np.ndarray
    n_feasible: np.ndarray
    feasible_only: bool
    norm: str
    advice: str
    actionable: np.ndarray

    @property
    def best_index(self) -> pd.arrays.IntegerArray:
        """Position of the cheapest counterfactual of each factual; ``<NA>`` where there is none.

        A pandas nullable integer array: indexing a numpy array with it works
        when every factual has a counterfactual and raises otherwise, so an
        absent counterfactual can never pick a row by mistake. Select first,
        e.g. ``candidates[res.best_index[res.has_recourse].to_numpy()]``.
        """
        first = self.index[:, 0]
        absent = first == NO_COUNTERFACTUAL
        return pd.arrays.IntegerArray(np.where(absent, 0, first), absent)

    @property
    def best_cost(self) -> np.ndarray:
        """Cost of the cheapest counterfactual of each factual (``inf`` = none)."""
        return self.cost[:, 0]

    @property
    def has_recourse(self) -> np.ndarray:
        """True where at least one admissible counterfactual exists."""
        return self.n_feasible > 0

    def to_frame(self) -> pd.DataFrame:
        """Long table: one row per (factual, rank): candidate position, cost, ``found`` and ``actionable`` flags.

        Every factual keeps its ``k`` rows, so people without recourse stay in
        the table: their ``candidate`` is ``<NA>``, their ``cost`` is ``inf``
        and ``found`` is False.
        """
        n, k = self.index.shape
        flat = self.index.ravel()
        absent = flat == NO_COUNTERFACTUAL
        return pd.DataFrame(
            {
                "factual": np.repeat(np.arange(n), k),
                "rank": np.tile(np.arange(1, k + 1), n),
                "candidate": pd.arrays.IntegerArray(np.where(absent, 0, flat), absent),
                "cost": self.cost.ravel(),
                "found": ~absent,
                "actionable": self.actionable.ravel(),
            }
        )


def _encoded_rows(Z, name: str, encoder: Encoder) -> np.ndarray:
    """Encoded rows as a float array; a DataFrame, or a Series with labels (one row), is read by column name."""
    if Z is None or isinstance(Z, (str, bytes)):
        raise TypeError(f"{name}={Z!r}; give encoded rows (encoder.transform(frame)).")
    names = [str(c) for c in encoder.feature_names_out_]
    if isinstance(Z, pd.Series) and not isinstance(Z.index, pd.RangeIndex):
        Z = Z.to_frame().T  # one row, its labels as column names
    if isinstance(Z, pd.DataFrame):
        Z = check_columns(Z, names, name)
    return check_encoded(Z, name, encoder.n_columns)


def _check_search(Z_factual, Z_candidates, encoder, n_neighbors, norm):
    """Validated factual and candidate arrays and the number of neighbours."""
    check_encoder(encoder)
    A = _encoded_rows(Z_factual, "Z_factual", encoder)
    B = _encoded_rows(Z_candidates, "Z_candidates", encoder)
    if len(B) == 0:
        raise ValueError("Z_candidates is empty; there is no one to compare with.")
    k = check_int(n_neighbors, "n_neighbors")
    if not 1 <= k <= len(B):
        raise ValueError(f"n_neighbors={k} must lie between 1 and the {len(B)} candidates.")
    check_choice(norm, "norm", ("l1", "l2"))
    return A, B, k


def _cheapest(C: np.ndarray, k: int):
    """The k cheapest finite entries of each row of C (by cost, ties by column) and their costs."""
    m = C.shape[1]
    if k == 1:
        top = np.argmin(C, axis=1)[:, None]  # the first of equal minima
    elif k < m:
        top = np.argpartition(C, k - 1, axis=1)[:, :k]
        # argpartition picks any of the entries tied at the k-th cost: there, take the first ones
        kth = np.take_along_axis(C, top, axis=1).max(axis=1)
        tied = np.isfinite(kth) & ((C <= kth[:, None]).sum(axis=1) > k)
        if tied.any():
            top[tied] = np.argsort(C[tied], axis=1, kind="stable")[:, :k]
    else:
        top = np.tile(np.arange(m), (len(C), 1))
    top_cost = np.take_along_axis(C, top, axis=1)
    order = np.lexsort((top, top_cost), axis=1)  # by cost, ties by candidate position
    top = np.take_along_axis(top, order, axis=1)
    top_cost = np.take_along_axis(top_cost, order, axis=1)
    top[~np.isfinite(top_cost)] = NO_COUNTERFACTUAL
    return top, top_cost


def nearest_counterfactuals(
    Z_factual,
    Z_candidates,
    encoder: Encoder,
    *,
    n_neighbors: int = 1,
    weights: Mapping[str, float] | None = None,
    norm: str = "l1",
    actionable: bool = True,
    feasible_only: bool = True,
    progress: bool = False,
) -> NearestCounterfactuals:
    """For each factual row, the ``n_neighbors`` cheapest candidate rows it may move to.

    Candidates are typically the observed rows the model decides favourably.
    The cost of a move is :meth:`Encoder.cost <recourselab.features.Encoder.cost>`;
    a candidate is admissible when the move is **actionable**
    (:meth:`Encoder.actionable_pairs <recourselab.features.Encoder.actionable_pairs>`:
    feasible, on whole levels, in each feature's advised direction and within
    its plausible change), the default, because the targets are advice for
    people. ``actionable=False`` admits every **feasible** move
    (:meth:`Encoder.feasible_pairs <recourselab.features.Encoder.feasible_pairs>`),
    a relaxation fit for a burden measure across groups, not for advice.

    .. math::

        x^{cf}(x) = \\arg\\min_{x' \\in \\mathcal{C},\\ x \\to x' \\text{ admissible}} \\operatorname{cost}(x, x')

    Parameters
    ----------
    Z_factual : array or DataFrame of shape (n, n_columns)
        Encoded rows that need recourse (a DataFrame is read by the encoder's
        column names).
    Z_candidates : array or DataFrame of shape (m, n_columns)
        Encoded rows that may serve as counterfactuals.
    encoder : Encoder
        Fitted encoder that produced both arrays.
    n_neighbors : int, default 1
        How many counterfactuals to return per factual (1 <= n_neighbors <= m).
    weights : mapping, optional
        Per-feature cost weights overriding the specs' ``weight``.
    norm : {"l1", "l2"}, default "l1"
    actionable : bool, default True
        True: only actionable targets (``advice="actionable"``). False:
        feasible targets (``advice="relaxation"``).
    feasible_only : bool, default True
        False ignores the specs altogether: the unconstrained nearest
        neighbours, an explanation of the model and never advice
        (``advice="relaxation"``; ``actionable`` is then not used).
    progress : bool, default False
        Show a progress bar over chunks of factual rows.

    Returns
    -------
    NearestCounterfactuals

    Notes
    -----
    Costs come from SciPy's ``cdist`` and admissibility from a broadcast
    comparison of the constrained columns, both on chunks of factual rows, so
    memory stays bounded and there is no Python loop over pairs.

    Examples
    --------
    >>> import pandas as pd
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous")]
    >>> frame = pd.DataFrame({"age": [30, 20, 40], "debt": [5, 0, 4]})
    >>> enc = Encoder(specs).fit(frame)
    >>> Z = enc.transform(frame)
    >>> res = nearest_counterfactuals(Z[:1], Z[1:], enc)
    >>> res.best_index.tolist(), res.advice   # the 20-year-old is closer but younger: not reachable
    ([1], 'actionable')
    >>> nearest_counterfactuals(Z[2:], Z[:2], enc).best_index.tolist()   # the 40-year-old cannot get younger
    [<NA>]
    """
    A, B, k = _check_search(Z_factual, Z_candidates, encoder, n_neighbors, norm)
    actionable = check_bool(actionable, "actionable")
    feasible_only = check_bool(feasible_only, "feasible_only")
    enforce = "actionable" if (feasible_only and actionable) else "feasible" if feasible_only else None
    index = np.full((len(A), k), NO_COUNTERFACTUAL, dtype=np.int64)
    cost = np.full((len(A), k), np.inf)
    n_feasible = np.zeros(len(A), dtype=int)
    chunk = max(1, _CELLS_PER_CHUNK // len(B))
    for start in tqdm(range(0, len(A), chunk), disable=not progress, desc="factuals", unit="chunk"):
        block = slice(start, start + chunk)
        C = encoder.pairwise_cost(A[block], B, weights=weights, norm=norm)
        if enforce == "actionable":
            C[~encoder.actionable_pairs(A[block], B)] = np.inf
        elif enforce == "feasible":
            C[~encoder.feasible_pairs(A[block], B)] = np.inf
        n_feasible[block] = np.isfinite(C).sum(axis=1)
        index[block], cost[block] = _cheapest(C, k)
    found = index != NO_COUNTERFACTUAL
    if enforce == "actionable":
        advisable = found
    else:  # which of the relaxed targets happen to be actionable
        rows, ranks = np.nonzero(found)
        advisable = np.zeros_like(found)
        if rows.size:
            advisable[rows, ranks] = encoder.actionable(A[rows], B[index[rows, ranks]])
    advice = "actionable" if enforce == "actionable" else "relaxation"
    return NearestCounterfactuals(index, cost, n_feasible, feasible_only, norm, advice, advisable)


def describe_changes(
    encoder: Encoder,
    z_from,
    z_to,
    *,
    weights: Mapping[str, float] | None = None,
    only_changed: bool = True,
) -> pd.DataFrame:
    """A readable table of one move: each feature's value before and after, its cost, and whether it may be advised.

    Parameters
    ----------
    encoder : Encoder
        Fitted encoder.
    z_from, z_to : array of shape (n_columns,), or a one-row DataFrame or Series
        The encoded factual and counterfactual (pandas objects are read by the
        encoder's column names).
    weights : mapping, optional
        Per-feature cost weights overriding the specs' ``weight``.
    only_changed : bool, default True
        Keep only the features that change.

    Returns
    -------
    pandas.DataFrame
        Columns ``feature``, ``from``, ``to``, ``change`` (signed difference in
        the feature's unit, steps for ordinal features, "changed" for
        categories), ``unit``, ``cost`` (the feature's weighted L1 share),
        ``allowed`` (False where the move breaks the feature's actionability:
        not feasible) and ``advice`` (why the change is not advice a person
        could follow, from :meth:`Encoder.advice_violations
        <recourselab.features.Encoder.advice_violations>`; ``""`` where it is).

    Examples
    --------
    >>> import pandas as pd
    >>> from recourselab.features import FeatureSpec, Encoder
    >>> specs = [FeatureSpec("age", "continuous", "increase", advise="never", unit="years"),
    ...          FeatureSpec("debt", "continuous", unit="k")]
    >>> enc = Encoder(specs).fit(pd.DataFrame({"age": [20, 60], "debt": [0.0, 8.0]}))
    >>> Z = enc.transform(pd.DataFrame({"age": [30, 35], "debt": [6.0, 2.0]}))
    >>> describe_changes(enc, Z[0], Z[1])[["feature", "change", "allowed", "advice"]]
      feature  change  allowed              advice
    0     age     5.0     True  not to be advised
    1    debt    -4.0     True
    """
    check_encoder(encoder)
    a = _encoded_rows(z_from, "z_from", encoder)
    b = _encoded_rows(z_to, "z_to", encoder)
    if len(a) != 1 or len(b) != 1:
        raise ValueError(f"describe_changes takes one row each; got {len(a)} and {len(b)} rows.")
    before = encoder.inverse_transform(a).iloc[0]
    after = encoder.inverse_transform(b).iloc[0]
    share = encoder.feature_distances(a, b)[0] * encoder.weight_vector(weights)
    broken = encoder.violations(a, b).iloc[0]
    reasons = encoder.advice_violations(a, b).iloc[0]
    rows = []
    for f, spec in enumerate(encoder.specs_):
        old, new = before[spec.name], after[spec.name]
        changed = bool(old != new) if spec.kind != "continuous" else not np.isclose(float(old), float(new))
        if only_changed and not changed:
            continue
        rows.append({"feature": spec.name, "from": old, "to": new, "change": _change(encoder, spec, old, new, changed),
                     "unit": spec.unit, "cost": float(share[f]), "allowed": not bool(broken[spec.name]),
                     "advice": reasons[spec.name]})
    return pd.DataFrame(rows, columns=["feature", "from", "to", "change", "unit", "cost", "allowed", "advice"])


def _change(encoder: Encoder, spec, old, new, changed: bool):
    """A feature's change in words: signed units, signed levels, or "changed" for a category."""
    if spec.kind == "continuous":
        return float(new) - float(old)
    if spec.kind in ("ordinal", "binary"):
        levels = encoder.levels_[spec.name]
        steps = levels.index(new) - levels.index(old)
        return f"{steps:+d} level{'s' if abs(steps) != 1 else ''}" if steps else "0"
    return "changed" if changed else ""

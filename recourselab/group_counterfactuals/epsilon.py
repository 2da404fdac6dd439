"""Choosing epsilon for the feasibility graph: connectivity on a grid, and FACEGroup's rule."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import breadth_first_order, connected_components

from .._validation import check_array, check_integers
from ..features import Encoder, check_encoder
from .graph import _PAIR_CHUNK, _pairs_in_blocks, node_positions

__all__ = ["connectivity_by_epsilon", "choose_epsilon", "EpsilonChoice"]


def _epsilon_grid(epsilons) -> np.ndarray:
    """``epsilons`` sorted: a non-empty list of positive finite numbers (bools are not steps)."""
    if np.asarray(epsilons).dtype == bool:
        raise TypeError(f"epsilons={np.asarray(epsilons).tolist()!r} holds booleans; give largest steps (numbers).")
    grid = np.sort(check_array(epsilons, "epsilons", minimum=0.0))
    if grid[0] == 0:
        raise ValueError("epsilons holds 0; every epsilon must be > 0 (a largest step in encoded units).")
    return grid


def _coverable_sources(n: int, rows, cols, sources, targets) -> int:
    """Sources with a path to some target: one breadth-first search on the reversed edges.

    A virtual node ``n`` points at every target; with every move ``i -> j`` reversed, the
    nodes it reaches are exactly those with a feasible path to some target.
    """
    reverse = csr_matrix((np.ones(len(rows) + len(targets)),
                          (np.concatenate([cols, np.full(len(targets), n)]), np.concatenate([rows, targets]))),
                         shape=(n + 1, n + 1))
    reaches = np.zeros(n + 1, dtype=bool)
    reaches[breadth_first_order(reverse, n, directed=True, return_predecessors=False)] = True
    return int(reaches[sources].sum())


def _connectivity_row(n: int, eps: float, rows, cols) -> dict:
    graph = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    n_comp, labels = connected_components(graph, directed=True, connection="weak")
    sizes = np.bincount(labels)
    return {
        "epsilon": float(eps),
        "edges": len(rows),
        "components": int(n_comp),
        "singletons (share)": float(np.mean(sizes[labels] == 1)),
        "largest component (share)": float(sizes.max() / n),
    }


def connectivity_by_epsilon(Z, epsilons, *, encoder: Encoder | None = None, sources=None,
                            targets=None) -> pd.DataFrame:
    """Connectivity of the feasibility graph for several epsilons, from one neighbour query.

    For each epsilon: number of edges, number of weakly connected components,
    share of singleton nodes and share of nodes in the largest component (the
    statistics FACEGroup plots to choose epsilon, its Fig. 2). With
    ``sources`` and ``targets`` (row positions, e.g. refused and approved
    individuals) also the number of sources with a feasible path to some
    target, ``"coverable sources"``, found by one breadth-first search per
    epsilon on the reversed graph from a virtual node joined to every target;
    :func:`choose_epsilon` picks epsilon from it.

    Parameters
    ----------
    Z : array of shape (n, n_columns)
        Encoded rows.
    epsilons : sequence of float
        Positive, finite largest steps (any order).
    encoder : Encoder, optional
        When given, only feasible moves are edges.
    sources, targets : array-like of int or bool mask, optional
        Given together: node indices (or masks) of the factuals and the candidates.

    Returns
    -------
    pandas.DataFrame
        One row per epsilon, in increasing order. With ``sources``,
        ``table.attrs["n_sources"]`` holds their number, so that
        :func:`choose_epsilon` can tell when every source is coverable.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0.0], [0.1], [0.2], [0.9]])
    >>> table = connectivity_by_epsilon(Z, [0.15, 0.8], sources=[0], targets=[2, 3])
    >>> table[["epsilon", "components", "coverable sources"]].values.tolist()
    [[0.15, 2.0, 1.0], [0.8, 1.0, 1.0]]
    """
    epsilons = _epsilon_grid(epsilons)
    if encoder is not None:
        check_encoder(encoder)
    Z = check_array(Z, "Z", ndim=2, width=None if encoder is None else encoder.n_columns)
    if (sources is None) != (targets is None):
        raise ValueError("give sources and targets together (row positions), or neither.")
    if sources is not None:
        sources, targets = node_positions(sources, len(Z), "sources"), node_positions(targets, len(Z), "targets")
    rows, cols, dist = _pairs_in_blocks(Z, float(epsilons[-1]), encoder)
    if encoder is not None and rows.size:
        keep = np.concatenate([encoder.feasible(Z[rows[s:s + _PAIR_CHUNK]], Z[cols[s:s + _PAIR_CHUNK]])
                               for s in range(0, rows.size, _PAIR_CHUNK)])
        rows, cols, dist = rows[keep], cols[keep], dist[keep]
    out = []
    for eps in epsilons:
        inside = dist <= eps
        row = _connectivity_row(len(Z), eps, rows[inside], cols[inside])
        if sources is not None:
            row["coverable sources"] = _coverable_sources(len(Z), rows[inside], cols[inside], sources, targets)
        out.append(row)
    table = pd.DataFrame(out)
    if sources is not None:
        table.attrs["n_sources"] = len(sources)
    return table


@dataclass(frozen=True)
class EpsilonChoice:
    """The epsilon :func:`choose_epsilon` picked, and whether FACEGroup's criterion holds there.

    Attributes
    ----------
    epsilon : float
        The chosen epsilon (pass ``choice.epsilon`` to :func:`build_feasibility_graph`).
    criterion_met : bool
        True when the grid shows that no further source becomes coverable
        beyond ``epsilon``: a larger epsilon on the grid covers no more, or
        every source is already coverable. False when the count of coverable
        sources was still rising at the largest epsilon tried, or is zero on
        the whole grid; then ``epsilon`` is only the best the grid offers.
    reason : str
        One sentence saying why, with the numbers.
    coverable : int
        Coverable sources at ``epsilon``.
    n_sources : int or None
        Number of sources, when the table records it.
    largest_epsilon : float
        The largest epsilon of the grid.
    """

    epsilon: float
    criterion_met: bool
    reason: str
    coverable: int
    n_sources: int | None
    largest_epsilon: float

    def to_frame(self) -> pd.DataFrame:
        """The choice as a one-row table."""
        return pd.DataFrame([{
            "epsilon": self.epsilon, "criterion met": self.criterion_met, "coverable sources": self.coverable,
            "sources": self.n_sources, "largest epsilon tried": self.largest_epsilon, "reason": self.reason,
        }])


def choose_epsilon(connectivity: pd.DataFrame) -> EpsilonChoice:
    """FACEGroup's rule: the smallest epsilon after which no further source becomes coverable.

    The grid can only show that the count of coverable sources has stopped
    growing if a larger epsilon on it covers no more (or every source is
    covered). When the largest count is first reached at the largest epsilon
    tried, the criterion is unverified, and the count is likely still rising:
    the function then warns and returns that epsilon with
    ``criterion_met=False``; extend the grid. It does the same when no source
    is coverable anywhere on the grid.

    Parameters
    ----------
    connectivity : DataFrame
        :func:`connectivity_by_epsilon`'s output computed with ``sources`` and ``targets``.

    Returns
    -------
    EpsilonChoice
        ``epsilon``, ``criterion_met``, ``reason``, ``coverable``,
        ``n_sources``, ``largest_epsilon``; ``to_frame()`` for a table.

    Warns
    -----
    UserWarning
        When the criterion is not met on the grid.

    Examples
    --------
    >>> import pandas as pd
    >>> choice = choose_epsilon(pd.DataFrame({"epsilon": [1.0, 1.5, 2.0], "coverable sources": [3, 7, 7]}))
    >>> choice.epsilon, choice.criterion_met
    (1.5, True)
    """
    if not isinstance(connectivity, pd.DataFrame):
        raise TypeError(f"connectivity must be the DataFrame connectivity_by_epsilon returns, got "
                        f"{type(connectivity).__name__}.")
    if "coverable sources" not in connectivity.columns:
        raise ValueError("connectivity must come from connectivity_by_epsilon(..., sources=..., targets=...) "
                         "(it needs the 'coverable sources' column).")
    if connectivity.empty:
        raise ValueError("connectivity has no rows; give connectivity_by_epsilon at least one epsilon.")
    table = connectivity.sort_values("epsilon", kind="stable")
    eps = check_array(table["epsilon"], "connectivity['epsilon']", minimum=0.0)
    counts = check_integers(table["coverable sources"].to_numpy(), "connectivity['coverable sources']")
    n_sources = connectivity.attrs.get("n_sources")
    best = counts.max()
    first = int(np.flatnonzero(counts == best)[0])
    epsilon, largest = float(eps[first]), float(eps[-1])
    if best == 0:
        met = False
        reason = (f"no source is coverable at any epsilon up to {largest:g}, the largest tried; "
                  "extend the grid to larger epsilons")
    elif n_sources is not None and best == n_sources:
        met = True
        reason = f"all {n_sources} sources are coverable from epsilon={epsilon:g} on"
    elif largest > epsilon:
        met = True
        reason = (f"{best} sources are coverable from epsilon={epsilon:g} on, and no more up to {largest:g}, "
                  "the largest tried")
    else:
        met = False
        before = f" (up from {counts[first - 1]} at {eps[first - 1]:g})" if first else ""
        of = f" of {n_sources}" if n_sources is not None else ""
        reason = (f"the number of coverable sources is still rising at the largest epsilon tried, "
                  f"{largest:g}: {best}{of}{before}; extend the grid beyond {largest:g} until it stops rising")
    if not met:
        warnings.warn(f"choose_epsilon: FACEGroup's criterion (no further source becomes coverable) is unmet: "
                      f"{reason}. Returning epsilon={epsilon:g}.", stacklevel=2)
    return EpsilonChoice(epsilon, met, reason, int(best), None if n_sources is None else int(n_sources), largest)

"""Additive-noise structural causal models: fit, abduct, intervene, counterfactuals.

A structural causal model (SCM) over a DAG writes every variable as a function
of its parents plus an exogenous noise term. With **additive noise**
:cite:p:`alvarez2023cst,karimi2021algorithmic`,

.. math:: W_j \\leftarrow f_j(W_{pa(j)}) + U_j ,

and a counterfactual follows Pearl's three steps, on every row at once:

1. **abduction** — recover each row's noise from what was observed,
   :math:`U_j = W_j - f_j(W_{pa(j)})` (the residuals of the fitted mechanisms);
2. **action** — replace the equation of each intervened node by the value
   it is set to, :math:`do(A := a)`;
3. **prediction** — walk the DAG in topological order and recompute every
   descendant of an intervened node from its counterfactual parents and its
   own abducted noise, :math:`W_j^{CF} = f_j(W^{CF}_{pa(j)}) + U_j`.

Root nodes (no parents) are exogenous: they have no mechanism to fit and are
kept as observed unless intervened on. Nodes that are not descendants of an
intervention keep their factual values.

:class:`AdditiveNoiseSCM` learns each :math:`f_j` with a scikit-learn regressor
(ordinary least squares by default) and answers counterfactual queries for a
whole data set with a handful of vectorised operations, one per node.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import networkx as nx
import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.linear_model import LinearRegression

from ._validation import check_aligned, check_array, check_do, check_int, check_number, restore_dtype

__all__ = ["AdditiveNoiseSCM"]


def _node_list(dag: nx.DiGraph) -> list:
    return sorted(dag.nodes, key=str)


def _check_dag(dag) -> nx.DiGraph:
    if not isinstance(dag, nx.DiGraph) or isinstance(dag, nx.MultiDiGraph):
        raise TypeError(
            f"dag must be a networkx.DiGraph whose nodes are column names, got {type(dag).__name__}; "
            "build one with networkx.DiGraph([('parent', 'child'), ...])."
        )
    if dag.number_of_nodes() == 0:
        raise ValueError("dag has no nodes; add the columns of the model and the edges between them.")
    loops = list(nx.selfloop_edges(dag))
    if loops:
        raise ValueError(
            f"dag has self loops {loops}; a variable cannot cause itself: remove these edges."
        )
    if not nx.is_directed_acyclic_graph(dag):
        cycle = nx.find_cycle(dag)
        path = " -> ".join(str(u) for u, _ in cycle) + f" -> {cycle[0][0]}"
        raise ValueError(
            f"dag has a cycle: {path}; a structural causal model needs a DAG: remove one of these edges."
        )
    return dag


def _check_node_keys(mapping, name: str, dag: nx.DiGraph) -> dict:
    if mapping is None:
        return {}
    if not isinstance(mapping, Mapping):
        raise TypeError(f"{name} must be a dict keyed by node, got {type(mapping).__name__}.")
    unknown = [key for key in mapping if key not in dag]
    if unknown:
        raise ValueError(
            f"{name} names {unknown}, which {'is' if len(unknown) == 1 else 'are'} not "
            f"{'a node' if len(unknown) == 1 else 'nodes'} of the DAG; nodes are {_node_list(dag)}."
        )
    return dict(mapping)


def _check_bounds(pair, name: str) -> tuple[float, float]:
    """``(low, high)`` as floats, ``None`` for an open side, ``low <= high``."""
    if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
        raise TypeError(f"{name}={pair!r} must be a pair (low, high); use None for an open side.")
    low, high = (None if v is None else check_number(v, name, allow_inf=True) for v in pair)
    low = -np.inf if low is None else low
    high = np.inf if high is None else high
    if not low <= high:
        raise ValueError(f"{name}={pair!r} has low > high; give (low, high) with low <= high.")
    return low, high


def _check_frame(frame, nodes, what: str) -> pd.DataFrame:
    """``frame`` if it holds a finite number in every row of every node's column (the frame itself, unchanged)."""
    _check_has_columns(frame, nodes, what)
    for node in nodes:
        column = frame[node]
        if not (pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)):
            raise TypeError(
                f"column {node!r} of {what} has dtype {column.dtype}; structural equations need numbers: "
                "encode it (e.g. 1 = protected) or list its levels in categories=."
            )
        check_array(column, f"{what}[{node!r}]")  # no NaN, no inf, at least one row
    return frame


def _check_has_columns(frame, nodes, what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what} must be a pandas DataFrame with one column per node, got {type(frame).__name__}.")
    missing = [node for node in nodes if node not in frame.columns]
    if missing:
        raise ValueError(f"{what} lacks the column(s) {missing} of the DAG's nodes; it has {list(frame.columns)}.")


class AdditiveNoiseSCM:
    """An additive-noise structural causal model over a DAG of data-frame columns.

    Every non-root node gets one mechanism :math:`f_j`, a regressor of the
    node on its parents; its noise is the residual
    :math:`U_j = W_j - f_j(W_{pa(j)})`. Counterfactuals follow abduction,
    action and prediction (see the module docstring) on the whole frame at
    once.

    Parameters
    ----------
    dag : networkx.DiGraph
        The causal graph; nodes are column names, an edge ``a -> b`` says
        ``a`` causes ``b``. Must be acyclic, without self loops. Columns that
        are not nodes are ignored when fitting and passed through unchanged in
        counterfactuals (e.g. the decision column).
    regressors : dict, optional
        Node -> unfitted scikit-learn regressor for that node's mechanism
        (cloned, so the given object is never fitted). Default:
        ``LinearRegression()`` for every non-root node. Root nodes have no
        mechanism and may not appear here.
    bounds : dict, optional
        Node -> ``(low, high)``, the valid range of a column; generated
        counterfactual values are clipped to it (``None`` = unbounded side).
    decimals : dict, optional
        Node -> number of decimals generated counterfactual values are
        rounded to (e.g. 0 for integer test scores, 1 for a grade point
        average recorded to one decimal). Rounding happens before clipping.
    categories : dict, optional
        Node -> its levels, for columns held as labels in the raw frame (e.g.
        ``{"sex": ["Female", "Male"]}``). Frames given to :meth:`fit`,
        :meth:`abduct` and :meth:`counterfactual` may then hold the labels
        themselves; :meth:`counterfactual` accepts labels in ``do`` and
        returns these columns as labels again, so its output goes straight
        to a model fitted on the raw frame. Inside, a node is coded by the
        position of its level in the list; as a **parent**, a node with two
        levels enters its children's mechanisms as that 0/1 code and one with
        more levels as one indicator per level after the first (no order is
        assumed); as a **non-root node** its code is modelled as a number, so
        list the levels in their order (an ordinal such as education), and
        generated values are rounded to the nearest level and clipped to the
        list. A non-root node with unordered levels is not an additive-noise
        variable; leave it out of the DAG.

    Attributes
    ----------
    dag : networkx.DiGraph
        The graph given.
    parents_ : dict
        Node -> tuple of its parents, sorted by name (the column order each
        regressor is fitted on).
    order_ : tuple
        The nodes in a deterministic topological order
        (``networkx.lexicographical_topological_sort``).
    roots_ : tuple
        The nodes without parents, in ``order_``.
    regressors_ : dict
        Non-root node -> fitted regressor.

    Notes
    -----
    **Relation to DoWhy.** ``dowhy.gcm`` implements the same
    abduction–action–prediction for invertible models:
    a ``StructuralCausalModel`` / ``InvertibleStructuralCausalModel`` whose
    nodes carry ``AdditiveNoiseModel`` mechanisms, fitted with ``gcm.fit`` and
    queried with ``gcm.counterfactual_samples``. That library is much larger
    and heavier: more mechanism types (post-nonlinear, discrete, classifier
    based), automatic assignment of mechanisms, sampling of new data, and
    uncertainty and attribution tools. RecourseLab keeps this small,
    dependency-free version because the book only needs additive noise and
    vectorised whole-data-set counterfactuals with several protected
    attributes, and because a reader can follow every line of it next to the
    chapter's equations.

    **Interventions on non-root nodes** are allowed: ``do(X := x)`` replaces
    the mechanism of ``X`` by the constant ``x`` (its noise is no longer used)
    and only ``X``'s descendants are recomputed. Intervened values are written
    as given; ``bounds`` and ``decimals`` apply to generated values only.

    Examples
    --------
    The worked example of :cite:t:`alvarez2023cst` (Appendix A):
    X1 -> X2 -> X3 and X1 -> X3, with X2 = 2·X1 + U2 and X3 = 0.5·X1 - X2 + U3
    (noises chosen uncorrelated with the parents, so least squares recovers them).

    >>> import networkx as nx, pandas as pd
    >>> dag = nx.DiGraph([("X1", "X2"), ("X1", "X3"), ("X2", "X3")])
    >>> data = pd.DataFrame({"X1": [0.0, 1.0, 2.0, 3.0], "U2": [1.0, -1.0, -1.0, 1.0],
    ...                      "U3": [-0.5, 1.5, -1.5, 0.5]})
    >>> data["X2"] = 2 * data.X1 + data.U2
    >>> data["X3"] = 0.5 * data.X1 - data.X2 + data.U3
    >>> scm = AdditiveNoiseSCM(dag).fit(data)
    >>> scm.abduct(data).round(6).to_dict("list")   # the noises U2, U3 back
    {'X2': [1.0, -1.0, -1.0, 1.0], 'X3': [-0.5, 1.5, -1.5, 0.5]}
    >>> cf = scm.counterfactual(data, do={"X1": 10.0})
    >>> cf[["X1", "X2", "X3"]].round(6).iloc[0].tolist()   # X2 = 20 + 1, X3 = 5 - 21 - 0.5
    [10.0, 21.0, -16.5]
    """

    def __init__(self, dag, *, regressors=None, bounds=None, decimals=None, categories=None):
        self.dag = _check_dag(dag)
        self.regressors = _check_node_keys(regressors, "regressors", dag)
        roots_given = [node for node in self.regressors if dag.in_degree(node) == 0]
        if roots_given:
            raise ValueError(
                f"regressors names the root node(s) {roots_given}, which have no parents and so no "
                "mechanism to fit; remove them from regressors."
            )
        for node, model in self.regressors.items():
            if not (hasattr(model, "fit") and hasattr(model, "predict")):
                raise TypeError(
                    f"regressors[{node!r}] is a {type(model).__name__}; give a scikit-learn style "
                    "regressor with fit() and predict()."
                )
        self.bounds = {node: _check_bounds(pair, f"bounds[{node!r}]")
                       for node, pair in _check_node_keys(bounds, "bounds", dag).items()}
        self.decimals = {node: check_int(places, f"decimals[{node!r}]")
                         for node, places in _check_node_keys(decimals, "decimals", dag).items()}
        self.categories = {}
        for node, levels in _check_node_keys(categories, "categories", dag).items():
            if isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable):
                raise TypeError(f"categories[{node!r}]={levels!r} must be a list of levels, e.g. ['Female', 'Male'].")
            levels = tuple(levels)
            if len(levels) < 2 or len(set(levels)) != len(levels):
                raise ValueError(f"categories[{node!r}]={list(levels)!r} must list at least two distinct levels.")
            if node in self.bounds or node in self.decimals:
                raise ValueError(f"{node!r} is categorical (categories); its values are levels, so bounds and "
                                 "decimals do not apply: remove it from those.")
            self.categories[node] = levels

    # ------------------------------------------------------------------ fitting
    def fit(self, frame: pd.DataFrame) -> "AdditiveNoiseSCM":
        """Fit one regressor per non-root node on its parents.

        Parameters
        ----------
        frame : pandas.DataFrame
            Must hold a numeric column, without NaN, for every node of the
            DAG; other columns are ignored.

        Returns
        -------
        AdditiveNoiseSCM
            ``self``, fitted.
        """
        order = tuple(nx.lexicographical_topological_sort(self.dag, key=str))
        frame = self._coded(frame, order, "frame")
        parents = {node: tuple(sorted(self.dag.predecessors(node), key=str)) for node in order}
        self.parents_ = parents
        fitted = {}
        for node in order:
            if not parents[node]:
                continue
            model = clone(self.regressors.get(node, LinearRegression()))
            model.fit(self._design(node, frame), frame[node].to_numpy(dtype=float))
            fitted[node] = model
        self.order_ = order
        self.roots_ = tuple(node for node in order if not parents[node])
        self.regressors_ = fitted
        return self

    def _check_fitted(self):
        if not hasattr(self, "regressors_"):
            raise RuntimeError("This AdditiveNoiseSCM is not fitted yet; call fit(frame) first.")

    def predict_mechanism(self, node, frame: pd.DataFrame) -> pd.Series:
        """The fitted mechanism :math:`f_j` of ``node`` evaluated on every row's parents.

        Parameters
        ----------
        node : hashable
            A non-root node.
        frame : pandas.DataFrame
            Must hold the node's parent columns.

        Returns
        -------
        pandas.Series
            One value per row, with ``frame``'s index.
        """
        self._check_fitted()
        if node not in self.dag:
            raise ValueError(f"node={node!r} is not a node of the DAG; nodes are {_node_list(self.dag)}.")
        if node not in self.regressors_:
            raise ValueError(
                f"node={node!r} is a root (no parents), so it has no mechanism; it is exogenous."
            )
        parents = self.parents_[node]
        frame = self._coded(frame, parents, "frame")
        return pd.Series(self._mechanism(node, frame), index=frame.index, name=node)

    def _coded(self, frame, nodes, what: str) -> pd.DataFrame:
        """``frame`` checked, with every categorical node among ``nodes`` replaced by its level code (a copy)."""
        cats = [node for node in nodes if node in self.categories]
        if not cats:
            return _check_frame(frame, nodes, what)
        _check_has_columns(frame, nodes, what)
        coded = frame.copy()
        for node in cats:
            coded[node] = self._codes(node, frame[node].to_numpy(), f"column {node!r} of {what}")
        return _check_frame(coded, nodes, what)

    def _codes(self, node, values: np.ndarray, where: str) -> np.ndarray:
        levels = self.categories[node]
        codes = pd.Index(levels).get_indexer(np.asarray(values, dtype=object))
        if (codes < 0).any():
            bad = pd.unique(np.asarray(values, dtype=object)[codes < 0])[:6].tolist()
            raise ValueError(f"{where} has values {bad} that are not among categories[{node!r}]={list(levels)}; "
                             "add them to the list or clean the data.")
        return codes.astype(float)

    def _coded_value(self, node, value):
        """An intervention on a categorical node: its level label(s) as code(s), a scalar staying a scalar."""
        if np.ndim(value):
            return self._codes(node, np.atleast_1d(np.asarray(value, dtype=object)), f"do[{node!r}]")
        return self._codes(node, np.array([value], dtype=object), f"do[{node!r}]")[0]

    def _labels(self, node, codes: np.ndarray, like: pd.Series) -> pd.Series:
        levels = np.empty(len(self.categories[node]), dtype=object)
        levels[:] = self.categories[node]
        index = np.clip(np.rint(codes), 0, len(levels) - 1).astype(int)
        out = pd.Series(levels[index], index=like.index, name=like.name)
        try:
            return out.astype(like.dtype)
        except (TypeError, ValueError):  # pragma: no cover - exotic dtypes keep the labels as objects
            return out

    def _design(self, node, frame: pd.DataFrame) -> np.ndarray:
        """The regressor's inputs for ``node``: its parents, a many-level categorical parent as indicators."""
        blocks = []
        for parent in self.parents_[node]:
            values = frame[parent].to_numpy(dtype=float)
            levels = self.categories.get(parent)
            if levels is not None and len(levels) > 2:
                blocks.append((values[:, None] == np.arange(1, len(levels))[None, :]).astype(float))
            else:
                blocks.append(values[:, None])
        return np.hstack(blocks)

    def _design_names(self, node) -> list:
        """Names of the columns of :meth:`_design`: the parent, or ``parent=level`` for an indicator."""
        names = []
        for parent in self.parents_[node]:
            levels = self.categories.get(parent)
            if levels is not None and len(levels) > 2:
                names.extend(f"{parent}={level}" for level in levels[1:])
            else:
                names.append(parent)
        return names

    def _mechanism(self, node, frame: pd.DataFrame) -> np.ndarray:
        return np.asarray(self.regressors_[node].predict(self._design(node, frame)), dtype=float).reshape(-1)

    # ------------------------------------------------------------------ counterfactuals
    def abduct(self, frame: pd.DataFrame) -> pd.DataFrame:
        """Abduction: each row's noise :math:`U_j = W_j - f_j(W_{pa(j)})` for every non-root node.

        Parameters
        ----------
        frame : pandas.DataFrame
            Observed rows; must hold every node's column.

        Returns
        -------
        pandas.DataFrame
            One column per non-root node (in topological order), same index
            as ``frame``. Root nodes have no noise column: they are exogenous
            and kept as observed.
        """
        self._check_fitted()
        return self._abduct(self._coded(frame, self.order_, "frame"))

    def _abduct(self, frame: pd.DataFrame) -> pd.DataFrame:
        noise = {
            node: frame[node].to_numpy(dtype=float) - self._mechanism(node, frame)
            for node in self.order_ if node in self.regressors_
        }
        return pd.DataFrame(noise, index=frame.index, columns=list(noise))

    def counterfactual(self, frame: pd.DataFrame, do: Mapping) -> pd.DataFrame:
        """Counterfactual rows under the intervention ``do``: abduction, action, prediction.

        Parameters
        ----------
        frame : pandas.DataFrame
            The factual rows; must hold every node's column. Never modified.
        do : dict
            Node -> value it is set to: a scalar for every row or an
            array-like with one value per row (used by position; a Series
            must carry ``frame``'s index, else ValueError); a level
            label for a node listed in ``categories``. Several
            nodes may be set at once, e.g. ``{"race": 0, "female": 0}``.
            Setting a non-root node replaces its mechanism (see Notes of the
            class).

        Returns
        -------
        pandas.DataFrame
            Same columns, order and index as ``frame``. Intervened nodes hold
            their new values; every other descendant of an intervened node is
            recomputed as :math:`f_j(\\text{parents}^{CF}) + U_j`, then rounded
            (``decimals``) and clipped (``bounds``); all other columns, including
            columns that are not nodes, are copied unchanged. An integer
            column keeps its dtype when all its new values are whole numbers.
            Nodes listed in ``categories`` hold labels (a generated value is
            the nearest level), so the frame has the raw columns of ``frame``.
        """
        self._check_fitted()
        raw = frame
        frame = self._coded(frame, self.order_, "frame")
        if isinstance(do, Mapping):
            check_aligned(raw, "frame", **{f"do[{node!r}]": value for node, value in do.items()})
            do = {node: self._coded_value(node, value) if node in self.categories else value
                  for node, value in do.items()}
        interventions = check_do(do, self.dag, len(frame))
        noise = self._abduct(frame)
        changed = set()
        for node in interventions:
            changed |= nx.descendants(self.dag, node)
        changed -= set(interventions)

        out = frame.copy(deep=True)
        for node, values in interventions.items():
            out[node] = restore_dtype(values, frame[node])
        for node in self.order_:
            if node not in changed:
                continue
            values = self._mechanism(node, out) + noise[node].to_numpy()
            if node in self.categories:
                values = np.clip(np.rint(values), 0, len(self.categories[node]) - 1)
            if node in self.decimals:
                values = np.round(values, self.decimals[node])
            if node in self.bounds:
                values = np.clip(values, *self.bounds[node])
            out[node] = restore_dtype(values, frame[node])
        for node in self.categories:  # back to the raw frame's labels
            out[node] = self._labels(node, out[node].to_numpy(dtype=float), raw[node])
        return out

    # ------------------------------------------------------------------ reporting
    def fitted_effects(self) -> pd.DataFrame:
        """The fitted linear coefficients of every mechanism, one row per edge.

        Only for linear regressors (those with ``coef_`` and ``intercept_``,
        such as the default ``LinearRegression``).

        Returns
        -------
        pandas.DataFrame
            Columns ``node``, ``parent``, ``coefficient`` (the direct effect
            of a one-unit change of ``parent`` on ``node``; for a parent in
            ``categories`` with more than two levels, one row
            ``parent=level`` per level after the first, the effect of that
            level against the first) and ``intercept``
            (the node's intercept, repeated on each of its rows), nodes in
            topological order, parents sorted by name.
        """
        self._check_fitted()
        nonlinear = {node: type(model).__name__ for node, model in self.regressors_.items()
                     if not hasattr(model, "coef_")}
        if nonlinear:
            raise ValueError(
                f"fitted_effects needs linear regressors with coef_; these nodes use others: {nonlinear}."
            )
        rows = []
        for node in self.order_:
            if node not in self.regressors_:
                continue
            model = self.regressors_[node]
            coef = np.asarray(model.coef_, dtype=float).reshape(-1)
            intercept = float(np.ravel(getattr(model, "intercept_", 0.0))[0])
            for parent, value in zip(self._design_names(node), coef, strict=True):
                rows.append({"node": node, "parent": parent, "coefficient": float(value),
                             "intercept": intercept})
        return pd.DataFrame(rows, columns=["node", "parent", "coefficient", "intercept"])

    def __repr__(self) -> str:
        edges = ", ".join(f"{u}->{v}" for u, v in sorted(self.dag.edges, key=str))
        return f"AdditiveNoiseSCM(dag=[{edges}])"

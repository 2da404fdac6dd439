"""Figures of the group-counterfactual lesson (feasibility graphs, connectivity, burden curves) and causal DAGs."""

from __future__ import annotations

import matplotlib.pyplot as plt
import networkx as nx
import pandas as pd
import seaborn as sns

from .._validation import check_array, check_mask, check_number, check_numeric_columns, check_positions
from .theme import DECISION_COLOURS, GROUP_COLOURS, group_palette
from .theme import group_order as _group_order

__all__ = ["plot_feasibility_graph", "plot_connectivity", "plot_attribute_change_frequency", "plot_auc_curves",
           "plot_dag"]


def plot_feasibility_graph(graph, positions, *, labels=None, favourable=None, groups=None, group_order=None,
                           path=None, ax=None, title: str | None = None, xlabel: str = "", ylabel: str = ""):
    """Draw a small feasibility graph: arrows for edges, fill for the decision, ring colour for the group.

    Parameters
    ----------
    graph : FeasibilityGraph
    positions : array of shape (n_nodes, 2)
        Where to draw each node (e.g. two readable features).
    labels : sequence of str, optional
        Node labels, one per node.
    favourable : array of bool (or 0/1), optional
        Model decision per node: filled green = favourable, white = refused.
    groups : array-like, optional
        Protected group per node, drawn as the ring colour (see :func:`group_palette`).
    group_order : sequence, optional
        Order (and colours) of the groups; it must list every group present.
    path : sequence of int, optional
        A path to highlight (e.g. a FACE counterfactual): node positions.

    Returns
    -------
    matplotlib Axes
    """
    n = _check_graph(graph)
    positions = check_array(positions, "positions", ndim=2, length=n, width=2, length_of="nodes")
    fill = ["#DDDDDD"] * n if favourable is None else [
        DECISION_COLOURS[bool(f)] for f in check_mask(favourable, "favourable", n, meaning="True = favourable")]
    if groups is None:
        ring, order = ["0.2"] * n, []
    else:
        groups, order = _group_order(groups, group_order, n=n, order_name="group_order")
        palette = group_palette(order)
        ring = [palette[g] for g in groups]
    if labels is not None and (isinstance(labels, (str, bytes)) or len(labels) != n):
        raise ValueError(f"labels must give one label per node ({n}).")
    path = None if path is None else check_positions(path, "path", n)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 5.5))
    G = graph.to_networkx()
    pos = {i: positions[i] for i in range(n)}
    _draw_graph(ax, G, pos, path, fill, ring, labels)
    ax.set(title=title or "", xlabel=xlabel, ylabel=ylabel)
    ax.tick_params(left=True, bottom=True, labelleft=True, labelbottom=True)
    ax.set_axis_on()
    handles = [plt.Line2D([], [], marker="o", ls="", markersize=10, markerfacecolor=DECISION_COLOURS[True],
                          markeredgecolor="0.3", label="favourable decision"),
               plt.Line2D([], [], marker="o", ls="", markersize=10, markerfacecolor=DECISION_COLOURS[False],
                          markeredgecolor="0.3", label="refused")]
    handles += [plt.Line2D([], [], marker="o", ls="", markersize=10, markerfacecolor="white",
                           markeredgecolor=palette[g], markeredgewidth=2.5, label=f"group {g}") for g in order]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5, frameon=False)
    return ax


def _check_graph(graph) -> int:
    if not (hasattr(graph, "n_nodes") and hasattr(graph, "to_networkx")):
        raise TypeError(f"graph is a {type(graph).__name__}; pass a FeasibilityGraph "
                        "(recourselab.group_counterfactuals.build_feasibility_graph).")
    return int(graph.n_nodes)


def _draw_graph(ax, G, pos, path, fill, ring, labels) -> None:
    """Edges (the path's in black), nodes (fill = decision, ring = group) and their labels."""
    on_path = set(zip(path[:-1], path[1:], strict=True)) if path is not None and len(path) > 1 else set()
    plain = [e for e in G.edges if e not in on_path]
    nx.draw_networkx_edges(G, pos, edgelist=plain, ax=ax, edge_color="0.55", arrows=True, arrowsize=12,
                           node_size=520, connectionstyle="arc3,rad=0.08")
    if on_path:
        nx.draw_networkx_edges(G, pos, edgelist=list(on_path), ax=ax, edge_color="black", width=2.6, arrows=True,
                               arrowsize=16, node_size=520, connectionstyle="arc3,rad=0.08")
    nx.draw_networkx_nodes(G, pos, ax=ax, node_color=fill, edgecolors=ring, linewidths=2.5, node_size=520)
    if labels is not None:
        nx.draw_networkx_labels(G, pos, labels={i: str(labels[i]) for i in range(len(fill))}, ax=ax,
                                font_size=10, font_weight="bold")


def _check_table(table, needed: set, what: str) -> pd.DataFrame:
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table is a {type(table).__name__}; pass the DataFrame {what} returns.")
    if not needed <= set(table.columns):
        raise ValueError(f"table must be a {what} frame with columns {sorted(needed)}.")
    if table.empty:
        raise ValueError("table has no rows; nothing to draw.")
    return table


def plot_connectivity(table: pd.DataFrame, *, chosen: float | None = None, ax=None, title: str | None = None):
    """Connectivity of the feasibility graph against epsilon (FACEGroup's Fig. 2).

    ``table`` is :func:`~recourselab.group_counterfactuals.connectivity_by_epsilon`'s output;
    ``chosen`` marks the epsilon used afterwards.

    Returns
    -------
    matplotlib Axes
    """
    needed = {"epsilon", "singletons (share)", "largest component (share)", "components"}
    _check_table(table, needed, "connectivity_by_epsilon()")
    for column in sorted(needed):
        check_numeric_columns(table, column, "table", allow_nan=True)
    chosen = None if chosen is None else check_number(chosen, "chosen")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(table["epsilon"], 100 * table["singletons (share)"], marker="o", color="0.35", label="singleton nodes (%)")
    ax.plot(table["epsilon"], 100 * table["largest component (share)"], marker="s", color="#009E73",
            label="nodes in the largest component (%)")
    ax.set(xlabel="epsilon (largest step, encoded units)", ylabel="share of nodes (%)", ylim=(0, 102),
           title=title or "")
    right = ax.twinx()
    right.plot(table["epsilon"], table["components"], marker="^", ls="--", color="#CC79A7", label="components")
    right.set_ylabel("weakly connected components")
    right.grid(False)
    if chosen is not None:
        ax.axvline(chosen, color="black", lw=1, ls=":")
        ax.annotate(f"chosen ε = {chosen:g}", (chosen, 95), xytext=(6, 0), textcoords="offset points", fontsize=9)
    lines = ax.get_legend_handles_labels()
    more = right.get_legend_handles_labels()
    ax.legend(lines[0] + more[0], lines[1] + more[1], loc="center right", fontsize=9)
    return ax


def plot_attribute_change_frequency(table: pd.DataFrame, *, ax=None, title: str | None = None, min_share: float = 0.0):
    """Heat map of attribute change frequency: rows = (sub)groups, columns = features (FACEGroup's Fig. 4).

    ``table`` is :func:`~recourselab.group_counterfactuals.attribute_change_frequency`'s output;
    features that never change more often than ``min_share`` (in [0, 1]) are left out.

    Returns
    -------
    matplotlib Axes
    """
    _check_table(table, {"covered"}, "attribute_change_frequency()")
    min_share = check_number(min_share, "min_share", minimum=0.0, maximum=1.0)
    shares = table.drop(columns="covered")
    check_numeric_columns(shares, list(shares.columns), "table's shares", minimum=0.0, maximum=1.0, allow_nan=True)
    shares = shares.loc[:, shares.max(axis=0) > min_share].astype(float)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(shares)))
    labels = [f"{idx} (n={n})" for idx, n in zip(shares.index, table["covered"], strict=True)]
    sns.heatmap(100 * shares, annot=True, fmt=".0f", cmap="Blues", vmin=0, vmax=100, ax=ax,
                cbar_kws={"label": "changed (% of covered)"}, yticklabels=labels)
    ax.set(xlabel="", ylabel="", title=title or "")
    ax.tick_params(axis="x", rotation=45)
    for label in ax.get_xticklabels():
        label.set_horizontalalignment("right")
    return ax


def plot_auc_curves(results: dict, *, ax=None, title: str | None = None, group_order=None):
    """The curves behind kAUC, dAUC or cAUC scores, one line per (group, parameter).

    Parameters
    ----------
    results : dict
        Group label -> list of :class:`~recourselab.group_counterfactuals.AUCResult` of one
        metric (e.g. kAUC for k = 1, 2, 3, 4); line styles tell the parameters apart.
    group_order : sequence, optional
        Order (and colours) of the groups; it must list every group of ``results``.

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(results, dict) or not results:
        raise ValueError("results is empty (or not a dict); give {group: [AUCResult, ...]}.")
    metrics = {getattr(r, "metric", None) for rs in results.values() for r in rs}
    if not metrics <= {"kAUC", "dAUC", "cAUC"}:
        raise TypeError("results must hold lists of AUCResult (from kauc, dauc or cauc).")
    if len(metrics) != 1:
        raise ValueError(f"results mixes metrics {sorted(metrics)}; plot one metric at a time.")
    metric = metrics.pop()
    if group_order is None:  # the order of the dict
        order = list(dict.fromkeys(_group_order(list(results), name="results' groups")[0].tolist()))
    else:
        order = _group_order(list(results), group_order, name="results' groups", order_name="group_order")[1]
    palette = group_palette(order)
    styles = ["-", "--", ":", "-."]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4.5))
    x_name, y_name = {"kAUC": ("d", "coverage"), "dAUC": ("k", "coverage"), "cAUC": ("k", "cost")}[metric]
    symbol = {"kAUC": "k", "dAUC": "d", "cAUC": "c"}[metric]
    for group in order:
        for i, r in enumerate(results.get(group, [])):
            y = r.curve[y_name] * (100 if y_name == "coverage" else 1)
            ax.plot(r.curve[x_name], y, ls=styles[i % len(styles)], color=palette[group], marker="o", markersize=3,
                    label=f"{group}, {symbol} = {r.parameter:.3g} (score {r.score:.2f})")
    ax.set(xlabel={"d": "cost threshold d", "k": "number of counterfactuals k"}[x_name],
           ylabel="coverage of coverable factuals (%)" if y_name == "coverage" else "smallest maximum cost",
           title=title or "")
    ax.legend(fontsize=8, ncol=2)
    return ax


def plot_dag(dag, *, positions=None, highlight=(), decision: str | None = None, inputs=(), ax=None,
             title: str | None = None):
    """Draw a causal DAG: protected attributes (``highlight``) in vermillion, the others in grey.

    Parameters
    ----------
    dag : networkx.DiGraph
    positions : dict node -> (x, y), optional
        Default: networkx's layered layout by topological generation.
    highlight : sequence
        Nodes to draw as protected attributes.
    decision : str, optional
        Name of a decision node to add, fed by ``inputs`` (drawn in green).
    inputs : sequence
        Nodes of ``dag`` that feed ``decision``.

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(dag, nx.DiGraph):
        raise TypeError(f"dag is a {type(dag).__name__}; pass a networkx.DiGraph.")
    for name, nodes in (("highlight", highlight), ("inputs", inputs)):
        unknown = [node for node in nodes if node not in dag]
        if unknown:
            raise ValueError(f"{name} names {unknown}, which are not nodes of the DAG {sorted(dag.nodes, key=str)}.")
    graph = nx.DiGraph(dag)
    if decision is not None:
        graph.add_edges_from((node, decision) for node in inputs)
    if not nx.is_directed_acyclic_graph(graph):
        raise ValueError("dag has a cycle; draw a DAG (networkx.find_cycle(dag) shows one).")
    if positions is None:
        for layer, nodes in enumerate(nx.topological_generations(graph)):
            for node in nodes:
                graph.nodes[node]["layer"] = layer
        positions = nx.multipartite_layout(graph, subset_key="layer")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    colours = [GROUP_COLOURS[0] if n in highlight else ("#009E73" if n == decision else "0.8") for n in graph.nodes]
    labels = {n: str(n).replace("_", "\n") for n in graph.nodes}  # long names wrap inside the circle
    nx.draw_networkx(graph, positions, ax=ax, labels=labels, node_color=colours, node_size=2800, font_size=9,
                     arrowsize=16, edgecolors="0.3", node_shape="o")
    ax.set_axis_off()
    ax.set_title(title or "")
    return ax

"""The book's look: one seaborn theme, fixed group colours, and the figure types the chapters share.

Call :func:`set_theme` once at the top of a chapter. Protected groups are
always drawn in the same two colours (:data:`GROUP_COLOURS`): the first level
given to :func:`group_palette` (by convention the group the audit worries
about) in vermillion, the second in blue; further levels take the rest of the
colour-blind palette.
"""

from __future__ import annotations

import textwrap
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .._validation import check_int, check_integers, check_real
from ..counterfactuals.recourse import coverage_by_group
from ..features import ACTIONABILITY

__all__ = [
    "GROUP_COLOURS",
    "set_theme",
    "group_palette",
    "plot_cost_by_group",
    "plot_coverage_curve",
    "plot_changes",
    "DECISION_COLOURS",
    "plot_feasibility_graph",
    "plot_recourse_intuition",
    "plot_connectivity",
    "plot_attribute_change_frequency",
    "plot_auc_curves",
    "plot_dag",
    "REGIME_COLOURS",
    "plot_attribution_pair",
    "plot_regime_shares",
    "plot_pfr_cec",
    "plot_flag_overlap",
    "plot_overlap_vs_chance",
]

#: Colours of the first and second protected group in every figure of the book
#: (Okabe-Ito vermillion and blue, distinguishable with colour-blindness and in grey).
GROUP_COLOURS = ("#D55E00", "#0072B2")
_MORE_COLOURS = ("#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")


def set_theme(context: str = "notebook") -> None:
    """Apply the book's seaborn theme (white grid, colour-blind palette, readable sizes)."""
    sns.set_theme(context=context, style="whitegrid", palette=list(GROUP_COLOURS + _MORE_COLOURS))
    plt.rcParams.update(
        {
            "figure.figsize": (7.0, 4.0),
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "axes.titleweight": "bold",
            "axes.titlesize": "medium",
            "legend.frameon": False,
        }
    )


def group_palette(levels: Sequence) -> dict:
    """Map group levels to colours: first level vermillion, second blue, then the rest.

    Examples
    --------
    >>> group_palette(["female", "male"])
    {'female': '#D55E00', 'male': '#0072B2'}
    """
    levels = list(dict.fromkeys(levels))
    colours = GROUP_COLOURS + _MORE_COLOURS
    if len(levels) > len(colours):
        raise ValueError(f"{len(levels)} groups is more than the {len(colours)} colours the book uses.")
    return {level: colours[i] for i, level in enumerate(levels)}


def _finite_or_raise(values, name):
    values = np.asarray(values, dtype=float)
    if np.isnan(values).any():
        raise ValueError(f"{name} has NaN values; use inf for 'no recourse'.")
    return values


def plot_cost_by_group(cost, groups, *, order: Sequence | None = None, ax=None, title: str | None = None,
                       xlabel: str = "recourse cost", ylabel: str | None = None):
    """Distribution of recourse cost per group: box plot, individual points, and the share without recourse.

    Parameters
    ----------
    cost : array-like of float
        One cost per individual; ``inf`` means no recourse was found.
    groups : array-like
        Group label per individual.
    order : sequence, optional
        Group order (and colour order, see :func:`group_palette`); default sorted.
    ax : matplotlib Axes, optional
    title, xlabel, ylabel : str, optional

    Returns
    -------
    matplotlib Axes
    """
    cost = _finite_or_raise(cost, "cost")
    group = np.asarray(groups)
    if len(cost) != len(group):
        raise ValueError(f"cost has {len(cost)} values but groups has {len(group)}.")
    order = list(order) if order is not None else sorted(pd.unique(group).tolist(), key=str)
    palette = group_palette(order)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 1.2 + 0.9 * len(order)))
    finite = np.isfinite(cost)
    frame = pd.DataFrame({"cost": cost[finite], "group": group[finite]})
    labels = {}
    for level in order:
        members = group == level
        n, none = int(members.sum()), int((members & ~finite).sum())
        labels[level] = f"{level}\n(n={n}, {none} without)" if none else f"{level}\n(n={n})"
    frame["label"] = frame["group"].map(labels)
    label_order = [labels[g] for g in order]
    label_palette = {labels[g]: palette[g] for g in order}
    sns.boxplot(data=frame, x="cost", y="label", hue="label", order=label_order, palette=label_palette,
                showfliers=False, width=0.5, ax=ax, legend=False, boxprops={"alpha": 0.35})
    sns.stripplot(data=frame, x="cost", y="label", hue="label", order=label_order, palette=label_palette,
                  size=3.5, alpha=0.7, jitter=0.18, ax=ax, legend=False)
    ax.set(xlabel=xlabel, ylabel=ylabel or "", title=title or "")
    return ax


def plot_coverage_curve(cost, groups, *, budgets=None, order: Sequence | None = None, ax=None,
                        title: str | None = None, xlabel: str = "cost budget"):
    """Share of each group whose recourse costs at most the budget, as the budget grows.

    A curve that sits lower means the group needs more effort for the same
    share of its members to reach a favourable decision.

    Returns
    -------
    matplotlib Axes
    """
    cost = _finite_or_raise(cost, "cost")
    group = np.asarray(groups)
    if len(cost) != len(group):
        raise ValueError(f"cost has {len(cost)} values but groups has {len(group)}.")
    order = list(order) if order is not None else sorted(pd.unique(group).tolist(), key=str)
    palette = group_palette(order)
    if budgets is None:
        top = np.max(cost[np.isfinite(cost)]) if np.isfinite(cost).any() else 1.0
        budgets = np.linspace(0, top, 200)
    budgets = np.asarray(budgets, dtype=float)
    coverage = coverage_by_group(cost, group, budgets)  # one row per budget, one column per group
    if ax is None:
        _, ax = plt.subplots()
    for level in order:
        size = int(np.count_nonzero(group == level))
        if size == 0:
            continue
        ax.plot(budgets, 100 * coverage[level].to_numpy(), color=palette[level], label=f"{level} (n={size})", lw=2)
    ax.set(xlabel=xlabel, ylabel="members with recourse within budget (%)", ylim=(0, 102),
           title=title or "")
    ax.legend(title="group", loc="lower right")
    return ax


def plot_changes(changes: pd.DataFrame, *, ax=None, title: str | None = None, wrap: int = 42):
    """Horizontal bars of each changed feature's cost, labelled with its old → new value.

    ``changes`` is the table returned by
    :func:`~recourselab.counterfactuals.describe_changes`. Each bar's label
    names the feature and its move (wrapped at ``wrap`` characters); bars of
    moves that break a feature's actionability are hatched and grey. A bar's
    length is the feature's weighted change (its term of the weighted L1
    cost), so the bars add up to the move's L1 cost.
    """
    needed = {"feature", "from", "to", "cost", "allowed"}
    if not isinstance(changes, pd.DataFrame) or not needed <= set(changes.columns):
        raise ValueError(f"changes must be a describe_changes() table with columns {sorted(needed)}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 0.8 + 0.55 * max(len(changes), 1)))
    if changes.empty:
        ax.text(0.5, 0.5, "no change needed", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax
    rows = changes.iloc[::-1]
    labels = []
    for _, r in rows.iterrows():
        unit = f" {r['unit']}" if isinstance(r.get("unit", ""), str) and r.get("unit") else ""
        move = textwrap.fill(f"{_fmt(r['from'])} → {_fmt(r['to'])}{unit}", wrap)
        labels.append(f"{r['feature']}\n{move}")
    colours = [GROUP_COLOURS[1] if ok else "0.6" for ok in rows["allowed"]]
    bars = ax.barh(np.arange(len(rows)), rows["cost"], color=colours)
    for bar, ok in zip(bars, rows["allowed"], strict=True):
        if not ok:
            bar.set_hatch("//")
            bar.set_edgecolor("0.3")
    ax.set_yticks(np.arange(len(rows)), labels=labels, fontsize=8.5)
    ax.set(xlabel="cost of the change (weighted, the bars add up to the L1 cost)", ylabel="", title=title or "")
    if not rows["allowed"].all():
        ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=GROUP_COLOURS[1]),
                           plt.Rectangle((0, 0), 1, 1, facecolor="0.6", hatch="//", edgecolor="0.3")],
                  labels=["allowed move", "breaks actionability"], loc="lower right", fontsize=8.5)
    return ax


def _fmt(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{value:,.1f}" if not float(value).is_integer() else f"{int(value):,}"
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    return str(value)


#: Fill colours for decisions in graph figures (kept apart from the two group colours).
DECISION_COLOURS = {True: "#009E73", False: "#FFFFFF"}


def plot_feasibility_graph(graph, positions, *, labels=None, favourable=None, groups=None, group_order=None,
                           path=None, ax=None, title: str | None = None, xlabel: str = "", ylabel: str = ""):
    """Draw a small feasibility graph: arrows for edges, fill for the decision, ring colour for the group.

    Parameters
    ----------
    graph : FeasibilityGraph
    positions : array of shape (n_nodes, 2)
        Where to draw each node (e.g. two readable features).
    labels : sequence of str, optional
        Node labels.
    favourable : array of bool, optional
        Model decision per node: filled green = favourable, white = refused.
    groups : array-like, optional
        Protected group per node, drawn as the ring colour (see :func:`group_palette`).
    path : sequence of int, optional
        A path to highlight (e.g. a FACE counterfactual).
    """
    import networkx as nx

    positions = np.asarray(positions, dtype=float)
    if positions.shape != (graph.n_nodes, 2):
        raise ValueError(f"positions has shape {positions.shape}; give (n_nodes, 2) = ({graph.n_nodes}, 2).")
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 5.5))
    G = graph.to_networkx()
    pos = {i: positions[i] for i in range(graph.n_nodes)}
    fill = ["#DDDDDD"] * graph.n_nodes if favourable is None else [DECISION_COLOURS[bool(f)] for f in favourable]
    if groups is None:
        ring = ["0.2"] * graph.n_nodes
    else:
        order = (list(group_order) if group_order is not None
                 else sorted(pd.unique(np.asarray(groups)).tolist(), key=str))
        palette = group_palette(order)
        ring = [palette[g] for g in groups]
    on_path = set(zip(path[:-1], path[1:], strict=True)) if path is not None and len(path) > 1 else set()
    plain = [e for e in G.edges if e not in on_path]
    nx.draw_networkx_edges(G, pos, edgelist=plain, ax=ax, edge_color="0.55", arrows=True, arrowsize=12,
                           node_size=520, connectionstyle="arc3,rad=0.08")
    if on_path:
        nx.draw_networkx_edges(G, pos, edgelist=list(on_path), ax=ax, edge_color="black", width=2.6, arrows=True,
                               arrowsize=16, node_size=520, connectionstyle="arc3,rad=0.08")
    nx.draw_networkx_nodes(G, pos, ax=ax, node_color=fill, edgecolors=ring, linewidths=2.5, node_size=520)
    if labels is not None:
        nx.draw_networkx_labels(G, pos, labels={i: str(labels[i]) for i in range(graph.n_nodes)}, ax=ax,
                                font_size=10, font_weight="bold")
    ax.set(title=title or "", xlabel=xlabel, ylabel=ylabel)
    ax.tick_params(left=True, bottom=True, labelleft=True, labelbottom=True)
    ax.set_axis_on()
    handles = [plt.Line2D([], [], marker="o", ls="", markersize=10, markerfacecolor=DECISION_COLOURS[True],
                          markeredgecolor="0.3", label="favourable decision"),
               plt.Line2D([], [], marker="o", ls="", markersize=10, markerfacecolor=DECISION_COLOURS[False],
                          markeredgecolor="0.3", label="refused")]
    if groups is not None:
        handles += [plt.Line2D([], [], marker="o", ls="", markersize=10, markerfacecolor="white",
                               markeredgecolor=palette[g], markeredgewidth=2.5, label=f"group {g}") for g in order]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8.5, frameon=False)
    return ax


#: Legend text of :func:`plot_recourse_intuition`'s markers (override any of them with ``labels=``).
_INTUITION_LABELS = {
    "approved": "approved (observed person)",
    "refused": "refused (observed person)",
    "factual": "the refused applicant",
    "boundary": "decision boundary (approved side shaded)",
    "blocked": "unreachable: breaks actionability",
    "nearest": "nearest counterfactual",
    "recourse": "recourse to the boundary",
    "path": "FACE path through observed people",
}
# marker colours: the colour-blind palette's colours that are neither group colours nor the decision green
_INTUITION_COLOURS = {"nearest": "#E69F00", "recourse": "#CC79A7", "path": "0.2", "blocked": "0.72"}


def _row_index(value, name: str, n: int) -> int:
    """A row position in 0..n-1 (Python or numpy integer; bools and fractions are errors, never truncated)."""
    index = check_int(value, name)
    if not 0 <= index < n:
        raise ValueError(f"{name}={index} is not a row of points; give a position in 0..{n - 1}.")
    return index


def plot_recourse_intuition(points, favourable, factual, *, boundary=None, nearest=None, recourse=None, path=None,
                            actionability=("free", "free"), labels: dict | None = None, xlabel: str = "",
                            ylabel: str = "", title: str | None = None, ax=None):
    """One refused applicant in a two-feature world: what flips the decision, and what she can actually do.

    Draws, in the units of the two features, the observed people (filled green
    = approved, white = refused, as in :func:`plot_feasibility_graph`), the
    model's linear decision boundary with its approved side shaded, the region
    the applicant cannot reach under the features' actionability (hatched), and
    up to three answers to "what would get her approved?":

    * the **nearest counterfactual** (orange ring, dashed arrow): the closest
      observed approved person, whether or not she could become them
      (:func:`~recourselab.counterfactuals.nearest_counterfactuals` with
      ``feasible_only=False``);
    * a **recourse** (purple diamond, solid arrow): the cheapest allowed move
      onto the boundary, which need not be anyone's profile
      (:func:`~recourselab.counterfactuals.linear_recourse` with ``encoder=``);
    * a **FACE path** (dark line): a chain of short allowed steps between
      observed people that ends at an approved one
      (:func:`~recourselab.group_counterfactuals.face_counterfactuals`).

    The function draws what it is given; it checks that the picture is
    consistent (the applicant is refused, the nearest counterfactual and the
    path's end are approved, the recourse and the decisions agree with the
    boundary) but not feasibility, which needs the feature specifications:
    assert that with :meth:`Encoder.feasible <recourselab.features.Encoder.feasible>`
    before drawing.

    Parameters
    ----------
    points : array-like of shape (n, 2)
        The observed people, one row each: (x, y) in the features' own units.
    favourable : array-like of bool, shape (n,)
        The model's decision for each person (True = approved).
    factual : int
        Row of the refused applicant in ``points``.
    boundary : (coef, intercept), optional
        The linear decision rule in the units of ``points``: a person is
        approved when :math:`c_x x + c_y y + b \\ge 0` with ``coef`` =
        :math:`(c_x, c_y)` and ``intercept`` = :math:`b`. Every entry of
        ``favourable`` must agree with it.
    nearest : int, optional
        Row of the nearest counterfactual (an approved person).
    recourse : array-like of shape (2,), optional
        Where the recourse lands, in the units of ``points``; on the approved
        side of ``boundary`` when both are given.
    path : sequence of int, optional
        Rows of ``points`` along a FACE path: the first is ``factual``, the
        last an approved person.
    actionability : pair of str, default ("free", "free")
        Actionability of the x and the y feature, in the words of
        :class:`~recourselab.features.FeatureSpec` ("free", "increase",
        "decrease", "immutable"). Values the applicant cannot reach are hatched:
        left of her for an x that may only increase, right of her for one that
        may only decrease, both sides for an immutable one (likewise below and
        above her for y).
    labels : dict, optional
        Legend text replacing the defaults for any of the keys
        ``"approved"``, ``"refused"``, ``"factual"``, ``"boundary"``,
        ``"blocked"``, ``"nearest"``, ``"recourse"``, ``"path"``.
    xlabel, ylabel : str
        Axis labels; name the feature and its unit.
    title : str, optional
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    TypeError
        For indices that are not integers (``2.7``, ``True``) or decisions that
        are not booleans.
    ValueError
        For malformed or non-finite coordinates, out-of-range rows, and an
        inconsistent picture (see above).

    Examples
    --------
    >>> import numpy as np
    >>> points = np.array([[1.0, 1.0], [0.0, 3.0], [1.0, 3.5]])
    >>> ax = plot_recourse_intuition(points, [False, True, True], 0, boundary=([-1.0, 1.0], -1.5),
    ...                              nearest=1, recourse=[1.0, 2.5], path=[0, 2],
    ...                              actionability=("increase", "free"), xlabel="x (units)", ylabel="y (units)")
    >>> [t.get_text() for t in ax.get_legend().get_texts()][:2]
    ['approved (observed person)', 'refused (observed person)']
    """
    try:
        points = np.array(points, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"points must be a numeric array of shape (n, 2): {err}") from None
    if points.ndim != 2 or points.shape[1] != 2 or len(points) == 0:
        raise ValueError(f"points has shape {points.shape}; give one (x, y) row per person, shape (n, 2).")
    bad = ~np.isfinite(points)
    if bad.any():
        i = int(np.argwhere(bad)[0][0])
        raise ValueError(f"points[{i}] = {points[i].tolist()} is not finite; every person needs finite coordinates.")
    n = len(points)
    favourable = np.asarray(favourable)
    if favourable.dtype != bool:
        raise TypeError(f"favourable must hold booleans (True = approved), got dtype {favourable.dtype}.")
    if favourable.shape != (n,):
        raise ValueError(f"favourable has shape {favourable.shape}; give one decision per row of points ({n}).")
    factual = _row_index(factual, "factual", n)
    if favourable[factual]:
        raise ValueError(f"factual={factual} is approved (favourable[{factual}] is True); give a refused person.")
    if nearest is not None:
        nearest = _row_index(nearest, "nearest", n)
        if not favourable[nearest]:
            raise ValueError(f"nearest={nearest} is refused; the nearest counterfactual is an approved person.")
    if recourse is not None:
        try:
            recourse = np.array(recourse, dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError(f"recourse must be a point (x, y): {err}") from None
        if recourse.shape != (2,) or not np.isfinite(recourse).all():
            raise ValueError(f"recourse={recourse.tolist()} must be one finite point (x, y).")
    if path is not None:
        path = check_integers(path, "path")
        if path.ndim != 1 or len(path) < 2:
            raise ValueError(f"path={path.tolist()} must list at least two rows, from factual to an approved person "
                             "(when FACE finds no path, pass path=None).")
        if path.min() < 0 or path.max() >= n:
            raise ValueError(f"path={path.tolist()} holds rows outside 0..{n - 1}.")
        if path[0] != factual:
            raise ValueError(f"path starts at row {path[0]}, not at factual={factual}; a FACE path starts there.")
        if not favourable[path[-1]]:
            raise ValueError(f"path ends at row {path[-1]}, who is refused; a FACE path ends at an approved person.")
    if not isinstance(actionability, (tuple, list)) or len(actionability) != 2:
        raise ValueError(f"actionability={actionability!r} must be a pair, one of {ACTIONABILITY} for x and for y.")
    for axis, word in zip("xy", actionability, strict=True):
        if word not in ACTIONABILITY:
            raise ValueError(f"actionability for {axis} is {word!r}; use one of {ACTIONABILITY}.")
    text = dict(_INTUITION_LABELS)
    if labels is not None:
        unknown = sorted(set(labels) - set(text))
        if unknown:
            raise ValueError(f"labels has unknown keys {unknown}; use some of {sorted(text)}.")
        text.update(labels)
    if boundary is not None:
        coef, intercept = _check_boundary(boundary)
        margin = points @ coef + intercept
        tol = 1e-9 * (np.abs(points) @ np.abs(coef) + abs(intercept) + 1.0)
        disagree = (favourable & (margin < -tol)) | (~favourable & (margin > tol))
        if disagree.any():
            i = int(np.flatnonzero(disagree)[0])
            raise ValueError(f"favourable[{i}]={bool(favourable[i])} but row {i} lies on the "
                             f"{'refused' if margin[i] < 0 else 'approved'} side of boundary (margin "
                             f"{margin[i]:.3g}); pass the model's decisions and that model's boundary.")
        if recourse is not None:
            r_margin = float(recourse @ coef + intercept)
            if r_margin < -1e-9 * (np.abs(recourse) @ np.abs(coef) + abs(intercept) + 1.0):
                raise ValueError(f"recourse={recourse.tolist()} lies on the refused side of boundary (margin "
                                 f"{r_margin:.3g}); a recourse must reach the approved side.")

    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 5.2))
    shown = points if recourse is None else np.vstack([points, recourse])
    low, high = shown.min(axis=0), shown.max(axis=0)
    pad = 0.08 * np.where(high > low, high - low, 1.0)
    (x0, y0), (x1, y1) = low - pad, high + pad
    ax.set(xlim=(x0, x1), ylim=(y0, y1))
    handles = {}  # legend entries by key, ordered at the end
    fx, fy = points[factual]
    blocked = {"x": [], "y": []}
    for axis, word, here, lo, hi in (("x", actionability[0], fx, x0, x1), ("y", actionability[1], fy, y0, y1)):
        if word in ("increase", "immutable"):
            blocked[axis].append((lo, here))
        if word in ("decrease", "immutable"):
            blocked[axis].append((here, hi))
    hatch = {"facecolor": "none", "hatch": "///", "edgecolor": _INTUITION_COLOURS["blocked"], "lw": 0, "zorder": 0}
    for lo, hi in blocked["x"]:
        ax.axvspan(lo, hi, **hatch)
    for lo, hi in blocked["y"]:
        ax.axhspan(lo, hi, **hatch)
    if boundary is not None:
        gx, gy = np.meshgrid(np.linspace(x0, x1, 300), np.linspace(y0, y1, 300))
        side = (coef[0] * gx + coef[1] * gy + intercept >= 0).astype(float)
        if side.any():
            ax.contourf(gx, gy, side, levels=[0.5, 1.5], colors=[DECISION_COLOURS[True]], alpha=0.12, zorder=0)
        if coef[1] != 0:
            xs = np.array([x0, x1])
            ax.plot(xs, -(coef[0] * xs + intercept) / coef[1], color="black", lw=1.6, zorder=1)
        else:
            ax.axvline(-intercept / coef[0], color="black", lw=1.6, zorder=1)
        ax.set(xlim=(x0, x1), ylim=(y0, y1))  # the line runs past the box; keep the box
        handles["boundary"] = plt.Line2D([], [], color="black", lw=1.6)
    if blocked["x"] or blocked["y"]:
        handles["blocked"] = plt.Rectangle((0, 0), 1, 1, facecolor="white", hatch="///",
                                           edgecolor=_INTUITION_COLOURS["blocked"])
    ax.scatter(*points[favourable].T, s=40, color=DECISION_COLOURS[True], edgecolors="0.25", lw=0.8, zorder=2)
    ax.scatter(*points[~favourable].T, s=40, color=DECISION_COLOURS[False], edgecolors="0.45", lw=0.8, zorder=2)
    handles["approved"] = plt.Line2D([], [], marker="o", ls="", markersize=7, markerfacecolor=DECISION_COLOURS[True],
                                     markeredgecolor="0.25")
    handles["refused"] = plt.Line2D([], [], marker="o", ls="", markersize=7, markerfacecolor=DECISION_COLOURS[False],
                                    markeredgecolor="0.45")
    if path is not None:
        colour = _INTUITION_COLOURS["path"]
        ax.plot(*points[path].T, color=colour, lw=2.2, zorder=3, solid_capstyle="round")
        for a, b in zip(path[:-1], path[1:], strict=True):
            ax.annotate("", xy=points[b], xytext=points[a], zorder=3,
                        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2.2, "shrinkA": 0, "shrinkB": 4})
        handles["path"] = plt.Line2D([], [], color=colour, lw=2.2, marker=">", markersize=6)
    if nearest is not None:
        colour = _INTUITION_COLOURS["nearest"]
        ax.annotate("", xy=points[nearest], xytext=points[factual], zorder=4,
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2, "ls": "--", "shrinkA": 6,
                                "shrinkB": 7})
        ax.scatter(*points[nearest], s=190, facecolors="none", edgecolors=colour, lw=2.2, zorder=4)
        handles["nearest"] = plt.Line2D([], [], color=colour, lw=2, ls="--", marker="o", markersize=10,
                                        markerfacecolor="none", markeredgewidth=2.2)
    if recourse is not None:
        colour = _INTUITION_COLOURS["recourse"]
        ax.annotate("", xy=recourse, xytext=points[factual], zorder=4,
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2, "shrinkA": 6, "shrinkB": 5})
        ax.scatter(*recourse, s=80, marker="D", color=colour, edgecolors="black", lw=0.8, zorder=5)
        handles["recourse"] = plt.Line2D([], [], color=colour, lw=2, marker="D", markersize=7,
                                         markeredgecolor="black")
    ax.scatter(fx, fy, s=320, marker="*", color="black", edgecolors="white", lw=0.8, zorder=6)
    handles["factual"] = plt.Line2D([], [], marker="*", ls="", markersize=15, color="black")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title or "")
    keys = [k for k in _INTUITION_LABELS if k in handles]  # the order of the defaults: data, then the answers
    ax.legend([handles[k] for k in keys], [text[k] for k in keys], loc="upper left", bbox_to_anchor=(1.01, 1.0),
              fontsize=8.5, frameon=False)
    return ax


def _check_boundary(boundary):
    """``boundary`` as (coef of shape (2,), intercept), both finite, coef not zero."""
    if not isinstance(boundary, (tuple, list)) or len(boundary) != 2:
        raise ValueError(f"boundary={boundary!r} must be a pair (coef, intercept), e.g. ([-3.0, 1.0], -2.0).")
    coef, intercept = boundary
    try:
        coef = np.array(coef, dtype=float)
    except (TypeError, ValueError) as err:
        raise TypeError(f"boundary's coef must be two numbers (c_x, c_y): {err}") from None
    if coef.shape != (2,) or not np.isfinite(coef).all() or not coef.any():
        raise ValueError(f"boundary's coef={coef.tolist()} must be two finite numbers, not both 0.")
    intercept = check_real(intercept, "boundary's intercept")
    if not np.isfinite(intercept):
        raise ValueError(f"boundary's intercept={intercept!r} must be finite.")
    return coef, intercept


def plot_connectivity(table: pd.DataFrame, *, chosen: float | None = None, ax=None, title: str | None = None):
    """Connectivity of the feasibility graph against epsilon (FACEGroup's Fig. 2).

    ``table`` is :func:`~recourselab.group_counterfactuals.connectivity_by_epsilon`'s output;
    ``chosen`` marks the epsilon used afterwards.
    """
    needed = {"epsilon", "singletons (share)", "largest component (share)", "components"}
    if not isinstance(table, pd.DataFrame) or not needed <= set(table.columns):
        raise ValueError(f"table must be a connectivity_by_epsilon() frame with columns {sorted(needed)}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.5))
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
    features that never change more often than ``min_share`` are left out.
    """
    if not isinstance(table, pd.DataFrame) or "covered" not in table.columns:
        raise ValueError("table must be an attribute_change_frequency() frame (with a 'covered' column).")
    shares = table.drop(columns="covered")
    shares = shares.loc[:, shares.max(axis=0) > min_share]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 1.2 + 0.5 * len(shares)))
    labels = [f"{idx} (n={n})" for idx, n in zip(shares.index, table["covered"], strict=True)]
    sns.heatmap(100 * shares.astype(float), annot=True, fmt=".0f", cmap="Blues", vmin=0, vmax=100, ax=ax,
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
    """
    if not results:
        raise ValueError("results is empty; give {group: [AUCResult, ...]}.")
    metrics = {r.metric for rs in results.values() for r in rs}
    if len(metrics) != 1:
        raise ValueError(f"results mixes metrics {sorted(metrics)}; plot one metric at a time.")
    metric = metrics.pop()
    order = list(group_order) if group_order is not None else list(results)
    palette = group_palette(order)
    styles = ["-", "--", ":", "-."]
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.5))
    x_name, y_name = {"kAUC": ("d", "coverage"), "dAUC": ("k", "coverage"), "cAUC": ("k", "cost")}[metric]
    symbol = {"kAUC": "k", "dAUC": "d", "cAUC": "c"}[metric]
    for group in order:
        for i, r in enumerate(results[group]):
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
    """
    import networkx as nx

    graph = nx.DiGraph(dag)
    if decision is not None:
        graph.add_edges_from((node, decision) for node in inputs)
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
    ax.margins(0.15)
    return ax


#: Colours of the four fairness regimes of explanation consistency (A fully fair ... D both unfair).
REGIME_COLOURS = {"A": "#009E73", "B": "#E69F00", "C": "#56B4E9", "D": "#D55E00"}
_REGIME_NAMES = {"A": "A: same outcome, same reasoning", "B": "B: same outcome, different reasoning",
                 "C": "C: different outcome, same reasoning", "D": "D: different outcome, different reasoning"}


def plot_attribution_pair(attributions, attributions_cf, feature_names, *, labels=("factual", "counterfactual"),
                          normalise: bool = True, top: int | None = None, ax=None, title: str | None = None):
    """Side-by-side bars of two attribution vectors (a factual and its counterfactual).

    Parameters
    ----------
    attributions, attributions_cf : array of shape (d,)
        Feature attributions (e.g. integrated gradients) of the two individuals.
    feature_names : sequence of str
        One name per feature.
    labels : pair of str
        Legend labels, drawn in the two group colours.
    normalise : bool
        Divide each vector by its L2 norm first (as the CEC score does), so the
        bars show the *direction* of the reasoning.
    top : int, optional
        Show only the ``top`` features with the largest absolute attribution in either vector.
    """
    g = np.asarray(attributions, dtype=float).ravel()
    h = np.asarray(attributions_cf, dtype=float).ravel()
    names = list(feature_names)
    if not (len(g) == len(h) == len(names)):
        raise ValueError(f"attributions ({len(g)}), attributions_cf ({len(h)}) and feature_names ({len(names)}) "
                         "must have the same length.")
    if normalise:
        g = g / (np.linalg.norm(g) + 1e-8)
        h = h / (np.linalg.norm(h) + 1e-8)
    keep = np.argsort(-np.maximum(np.abs(g), np.abs(h)), kind="stable")
    if top is not None:
        keep = keep[:top]
    frame = pd.DataFrame({"feature": [names[i] for i in keep] * 2,
                          "attribution": np.concatenate([g[keep], h[keep]]),
                          "who": [labels[0]] * len(keep) + [labels[1]] * len(keep)})
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 0.9 + 0.42 * len(keep)))
    palette = dict(zip(labels, GROUP_COLOURS, strict=False))  # two members of a pair, two colours
    sns.barplot(data=frame, y="feature", x="attribution", hue="who", palette=palette, ax=ax, orient="h")
    ax.axvline(0, color="black", lw=0.8)
    ax.set(xlabel="normalised attribution (share of the L2 norm)" if normalise else "attribution (logit units)",
           ylabel="", title=title or "")
    ax.legend(title="", loc="best", fontsize=9)
    return ax


def plot_regime_shares(shares: pd.DataFrame, *, ax=None, title: str | None = None):
    """Stacked horizontal bars of the regime shares (columns A-D, rows = models or variants).

    ``shares`` holds fractions (rows sum to 1), e.g. one
    :class:`~recourselab.explanation_consistency.RegimeResult` ``shares`` per model stacked into a frame.
    """
    if not isinstance(shares, pd.DataFrame) or not set("ABCD") <= set(shares.columns):
        raise ValueError("shares must be a DataFrame with columns 'A', 'B', 'C' and 'D' (fractions per row).")
    shares = shares[list("ABCD")].astype(float)
    if ax is None:
        _, ax = plt.subplots(figsize=(8.5, 0.9 + 0.5 * len(shares)))
    left = np.zeros(len(shares))
    rows = np.arange(len(shares))
    for regime in "ABCD":
        width = 100 * shares[regime].to_numpy()
        ax.barh(rows, width, left=left, color=REGIME_COLOURS[regime], label=_REGIME_NAMES[regime])
        for r, (start, w) in enumerate(zip(left, width, strict=True)):
            if w >= 6:
                ax.text(start + w / 2, r, f"{w:.0f}", ha="center", va="center", fontsize=9, color="black")
        left += width
    ax.set_yticks(rows, labels=[str(i) for i in shares.index])
    ax.invert_yaxis()
    ax.set(xlim=(0, 100), xlabel="share of matched individuals (%)", ylabel="", title=title or "")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    return ax


def plot_pfr_cec(frame: pd.DataFrame, *, x: str = "PFR", y: str = "CEC", label: str = "method",
                 xerr: str | None = None, yerr: str | None = None, pfr_line: float | None = None,
                 cec_line: float | None = None, palette: dict | None = None, ax=None, title: str | None = None,
                 legend: bool = True):
    """Models placed by prediction flip rate (x) and mean CEC score (y), as in the CEC paper's Fig. 4.

    One marker per row of ``frame`` (coloured by ``label``, named in the legend;
    pass the same ``palette`` to several panels to keep colours aligned).
    Optional guide lines ``pfr_line`` and ``cec_line`` split the plane into the
    four regime quadrants (low/low = A, low PFR and high CEC = B, ...). They are
    visual guides only: regimes are assigned per individual, not per model.
    """
    for column in [x, y, label] + [c for c in (xerr, yerr) if c is not None]:
        if column not in frame.columns:
            raise ValueError(f"frame has no column {column!r}; columns are {list(frame.columns)}.")
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 5))
    names = list(dict.fromkeys(frame[label]))
    if palette is None:
        palette = dict(zip(names, (GROUP_COLOURS + _MORE_COLOURS) * 2, strict=False))  # more colours than names
    missing = [n for n in names if n not in palette]
    if missing:
        raise ValueError(f"palette has no colour for {missing}.")
    for _, row in frame.iterrows():
        ax.errorbar(row[x], row[y], xerr=None if xerr is None else row[xerr], yerr=None if yerr is None else row[yerr],
                    fmt="o", ms=8, color=palette[row[label]], capsize=3, label=str(row[label]))
    x_max = max(float(frame[x].max()) * 1.35, (pfr_line or 0) * 1.5, 0.05)
    y_max = max(float(frame[y].max()) * 1.2, (cec_line or 0) * 1.5)
    ax.set(xlim=(0, x_max), ylim=(0, min(1.0, y_max)))
    if pfr_line is not None and cec_line is not None:
        ax.axvline(pfr_line, color="0.5", ls=":", lw=1)
        ax.axhline(cec_line, color="0.5", ls=":", lw=1)
        for text, (px, py) in {"A": (0.02, 0.03), "B": (0.02, 0.93), "C": (0.95, 0.03), "D": (0.95, 0.93)}.items():
            ax.text(px, py, text, transform=ax.transAxes, fontsize=13, fontweight="bold",
                    color=REGIME_COLOURS[text], alpha=0.8)
    ax.set(xlabel="prediction flip rate (share of pairs with different decisions)",
           ylabel="mean CEC score (0 = same reasoning)", title=title or "")
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    return ax


def plot_flag_overlap(flags: pd.DataFrame, *, groups=None, group_order: Sequence | None = None,
                      max_combinations: int = 12, title: str | None = None):
    """Which combinations of lenses flag the same individuals (an UpSet-style figure).

    Parameters
    ----------
    flags : DataFrame of bool
        One row per individual, one column per lens (True = flagged).
    groups : Series or array, optional
        A group label per individual; the bars are then stacked by group in the
        book's group colours.
    group_order : sequence, optional
        Order of the groups (the first is drawn in vermillion).
    max_combinations : int, default 12
        Show the most frequent combinations only (ties by fewer lenses first).

    Returns
    -------
    matplotlib.axes.Axes
        The axes of the bars (the dot matrix is a second axes below it).
    """
    if not isinstance(flags, pd.DataFrame) or flags.shape[1] == 0:
        raise ValueError("flags must be a DataFrame with one boolean column per lens.")
    if not all(pd.api.types.is_bool_dtype(flags[c]) for c in flags.columns):
        raise ValueError(f"flags must hold booleans; column dtypes are {flags.dtypes.astype(str).to_dict()}.")
    flagged = flags[flags.any(axis=1)]
    if flagged.empty:
        raise ValueError("no individual is flagged by any lens; nothing to draw.")
    group = pd.Series("all" if groups is None else np.asarray(groups), index=flags.index)
    order = list(group_order) if group_order is not None else sorted(pd.unique(group))
    palette = group_palette(order) if groups is not None else {"all": "0.4"}
    keys = pd.Series(["".join("1" if v else "0" for v in row) for row in flagged.to_numpy()], index=flagged.index)
    counts = pd.crosstab(keys, group.loc[flagged.index]).reindex(columns=order, fill_value=0)
    counts = counts.assign(_total=counts.sum(axis=1), _lenses=[k.count("1") for k in counts.index])
    counts = counts.sort_values(["_total", "_lenses"], ascending=[False, True], kind="stable").head(max_combinations)
    fig, (ax, ax_dots) = plt.subplots(2, 1, figsize=(9, 6), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    x = np.arange(len(counts))
    bottom = np.zeros(len(counts))
    for g in order:
        ax.bar(x, counts[g].to_numpy(), bottom=bottom, color=palette[g], label=str(g), width=0.7)
        bottom += counts[g].to_numpy()
    for xi, total in zip(x, counts["_total"], strict=True):
        ax.text(xi, total, str(int(total)), ha="center", va="bottom", fontsize=9)
    ax.set(ylabel="individuals", title=title or "")
    if groups is not None:
        ax.legend(title="", fontsize=9)
    lenses = list(flags.columns)
    for xi, key in zip(x, counts.index, strict=True):
        on = [j for j, v in enumerate(key) if v == "1"]
        ax_dots.scatter(np.full(len(lenses), xi), np.arange(len(lenses)), color="0.85", s=40, zorder=2)
        ax_dots.scatter(np.full(len(on), xi), on, color="black", s=40, zorder=3)
        if len(on) > 1:
            ax_dots.plot([xi, xi], [min(on), max(on)], color="black", lw=1.5, zorder=2)
    ax_dots.set_yticks(range(len(lenses)), labels=lenses)
    ax_dots.invert_yaxis()
    ax_dots.set(xticks=[], xlabel="combination of lenses (black = flagged by that lens)")
    ax_dots.grid(False)
    fig.tight_layout()
    return ax


def plot_overlap_vs_chance(table: pd.DataFrame, *, lifts: pd.DataFrame | None = None, title: str | None = None):
    """Observed overlaps of pairs of flag sets against the overlap expected by chance.

    Left: for each pair (a row of :func:`~recourselab.audit.overlap_table`),
    the central chance interval of the overlap under independence (grey bar),
    its expectation (grey tick) and the observed overlap (black dot; a filled
    dot lies outside the chance interval). Right (with ``lifts``): the ratio
    observed / expected over several splits or seeds, one dot per split, with
    the line of chance at 1.

    Parameters
    ----------
    table : DataFrame
        With columns ``observed``, ``expected``, ``chance low``, ``chance high``
        and one row per pair (the index gives the labels).
    lifts : DataFrame, optional
        Long format with columns ``pair`` (labels as in ``table``'s index, joined
        by " × " when the index has two levels) and ``lift``.
    title : str, optional

    Returns
    -------
    ndarray of matplotlib.axes.Axes
        One axes, or two with ``lifts``.
    """
    needed = ["observed", "expected", "chance low", "chance high"]
    if not isinstance(table, pd.DataFrame) or any(c not in table.columns for c in needed):
        raise ValueError(f"table must be a DataFrame with columns {needed} (see recourselab.audit.overlap_table).")
    if table.empty:
        raise ValueError("table has no rows; nothing to draw.")
    values = table[needed].to_numpy(dtype=float)
    if not np.isfinite(values).all():
        raise ValueError("table holds NaN or inf in observed, expected or the chance interval.")
    labels = [" × ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in table.index]
    if lifts is not None:
        if not isinstance(lifts, pd.DataFrame) or not {"pair", "lift"} <= set(lifts.columns):
            raise ValueError("lifts must be a DataFrame with columns 'pair' and 'lift'.")
        unknown = sorted(set(lifts["pair"]) - set(labels))
        if unknown:
            raise ValueError(f"lifts names pairs {unknown[:3]} that are not rows of table {labels[:3]}.")
    n = len(labels)
    fig, axes = plt.subplots(1, 2 if lifts is not None else 1, figsize=(11 if lifts is not None else 7, 0.6 * n + 2.4),
                             sharey=True, squeeze=False)
    axes = axes[0]
    ax = axes[0]
    y = np.arange(n)
    observed, expected, low, high = values.T
    ax.hlines(y, low, high, color="0.75", lw=7, label="chance interval (independent lenses)")
    ax.scatter(expected, y, marker="|", s=200, color="0.35", zorder=3, label="expected by chance")
    outside = (observed < low) | (observed > high)
    ax.scatter(observed[outside], y[outside], color="black", s=45, zorder=4, label="observed, outside chance")
    ax.scatter(observed[~outside], y[~outside], facecolor="white", edgecolor="black", s=45, zorder=4,
               label="observed, within chance")
    ax.set_yticks(y, labels=[textwrap.fill(label, 30) for label in labels])
    ax.tick_params(axis="y", labelsize=9)
    ax.invert_yaxis()
    ax.set(xlabel="individuals flagged by both (count)", title="Observed overlap against chance")
    if lifts is not None:
        ax2 = axes[1]
        position = {label: i for i, label in enumerate(labels)}
        finite = lifts[np.isfinite(lifts["lift"].to_numpy(dtype=float))]
        rows = finite["pair"].map(position).to_numpy(dtype=float)
        # spread the dots of one pair evenly over a band (deterministic, for legibility)
        rank = finite.groupby("pair").cumcount().to_numpy()
        size = finite.groupby("pair")["lift"].transform("size").to_numpy()
        offset = np.where(size > 1, (rank / np.maximum(size - 1, 1) - 0.5) * 0.3, 0.0)
        ax2.scatter(finite["lift"].to_numpy(dtype=float), rows + offset, s=18,
                    color="0.2", alpha=0.7, label="one split")
        ax2.axvline(1.0, color="0.5", ls="--", lw=1, label="chance (lift 1)")
        ax2.set(xlabel="lift = observed / expected overlap", title="Lift over splits")
    handles = [h for a in axes for h in a.get_legend_handles_labels()[0]]
    names = [name for a in axes for name in a.get_legend_handles_labels()[1]]
    fig.legend(handles, names, loc="lower center", ncol=3, fontsize=8)
    if title:
        fig.suptitle(title, fontweight="bold")
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return axes


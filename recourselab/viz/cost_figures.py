"""Figures of recourse costs: per group (box plot, coverage curve) and per feature of one move."""

from __future__ import annotations

import textwrap
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .._validation import check_array, check_int, check_numeric_columns
from ..counterfactuals.groups import coverage_by_group
from .theme import GROUP_COLOURS, group_order, group_palette

__all__ = ["plot_cost_by_group", "plot_coverage_curve", "plot_changes"]


def _costs_and_groups(cost, groups, order):
    """Costs (``inf`` = no recourse, NaN refused), their group labels and the order of the groups."""
    values = check_array(cost, "cost", allow_nan=True, allow_inf=True)
    if np.isnan(values).any():
        i = int(np.flatnonzero(np.isnan(values))[0])
        raise ValueError(f"cost[{i}] is NaN; use inf for 'no recourse' (a NaN would be dropped from the figure).")
    labels, order = group_order(groups, order, n=len(values), reference=cost)
    return values, labels, order


def plot_cost_by_group(cost, groups, *, order: Sequence | None = None, ax=None, title: str | None = None,
                       xlabel: str = "recourse cost", ylabel: str | None = None):
    """Distribution of recourse cost per group: box plot, individual points, and the share without recourse.

    Parameters
    ----------
    cost : array-like of float
        One cost per individual; ``inf`` means no recourse was found (NaN is refused).
    groups : array-like
        Group label per individual (as pandas objects, ``cost`` and ``groups`` share one index).
    order : sequence, optional
        Group order (and colour order, see :func:`group_palette`); default sorted. It must
        list every group present (a group left out is an error, never dropped from the figure).
    ax : matplotlib Axes, optional
    title, xlabel, ylabel : str, optional

    Returns
    -------
    matplotlib Axes
    """
    cost, group, order = _costs_and_groups(cost, groups, order)
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
                        title: str | None = None, xlabel: str = "cost budget",
                        ylabel: str = "members with recourse within budget (%)", legend: bool = True):
    """Share of each group whose recourse costs at most the budget, as the budget grows.

    A curve that sits lower means the group needs more effort for the same
    share of its members to reach a favourable decision.

    Parameters
    ----------
    cost, groups, order
        As in :func:`plot_cost_by_group`.
    budgets : array-like of float, optional
        The budgets on the x axis (finite); default 200 from 0 to the largest finite cost.
    ax : matplotlib Axes, optional
    title, xlabel, ylabel : str, optional
    legend : bool, default True
        Draw the legend of the groups (side-by-side panels need it once).

    Returns
    -------
    matplotlib Axes
    """
    cost, group, order = _costs_and_groups(cost, groups, order)
    palette = group_palette(order)
    if budgets is None:
        top = np.max(cost[np.isfinite(cost)]) if np.isfinite(cost).any() else 1.0
        budgets = np.linspace(0, top, 200)
    budgets = check_array(budgets, "budgets")
    coverage = coverage_by_group(cost, group, budgets)  # one row per budget, one column per group
    if ax is None:
        _, ax = plt.subplots()
    for level in order:
        size = int(np.count_nonzero(group == level))
        if size == 0:
            continue
        ax.plot(budgets, 100 * coverage[level].to_numpy(), color=palette[level], label=f"{level} (n={size})", lw=2)
    ax.set(xlabel=xlabel, ylabel=ylabel, ylim=(0, 102), title=title or "")
    if legend:
        ax.legend(title="group", loc="best")  # where it covers the fewest points of the curves
    return ax


def plot_changes(changes: pd.DataFrame, *, ax=None, title: str | None = None, wrap: int = 42):
    """Horizontal bars of each changed feature's cost, labelled with its old → new value.

    ``changes`` is the table returned by
    :func:`~recourselab.counterfactuals.describe_changes`. Each bar's label
    names the feature and its move (wrapped at ``wrap`` characters); bars of
    moves that break a feature's actionability are hatched and grey. A bar's
    length is the feature's weighted change (its term of the weighted L1
    cost), so the bars add up to the move's L1 cost.

    Returns
    -------
    matplotlib Axes
    """
    needed = {"feature", "from", "to", "cost", "allowed"}
    if not isinstance(changes, pd.DataFrame):
        raise TypeError(f"changes is a {type(changes).__name__}; pass the DataFrame describe_changes() returns.")
    if not needed <= set(changes.columns):
        raise ValueError(f"changes must be a describe_changes() table with columns {sorted(needed)}.")
    wrap = check_int(wrap, "wrap", minimum=1)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.8 + 0.55 * max(len(changes), 1)))
    if changes.empty:
        ax.text(0.5, 0.5, "no change needed", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax
    rows = changes.iloc[::-1]
    widths = check_numeric_columns(rows, "cost", "changes", minimum=0.0)
    labels = []
    for _, r in rows.iterrows():
        unit = f" {r['unit']}" if isinstance(r.get("unit", ""), str) and r.get("unit") else ""
        move = textwrap.fill(f"{_fmt(r['from'])} → {_fmt(r['to'])}{unit}", wrap)
        labels.append(f"{r['feature']}\n{move}")
    colours = [GROUP_COLOURS[1] if ok else "0.6" for ok in rows["allowed"]]
    bars = ax.barh(np.arange(len(rows)), widths, color=colours)
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

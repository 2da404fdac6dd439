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

__all__ = [
    "GROUP_COLOURS",
    "set_theme",
    "group_palette",
    "plot_cost_by_group",
    "plot_coverage_curve",
    "plot_changes",
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


def plot_cost_by_group(cost, group, *, order: Sequence | None = None, ax=None, title: str | None = None,
                       xlabel: str = "recourse cost", ylabel: str | None = None):
    """Distribution of recourse cost per group: box plot, individual points, and the share without recourse.

    Parameters
    ----------
    cost : array-like of float
        One cost per individual; ``inf`` means no recourse was found.
    group : array-like
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
    group = np.asarray(group)
    if len(cost) != len(group):
        raise ValueError(f"cost has {len(cost)} values but group has {len(group)}.")
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


def plot_coverage_curve(cost, group, *, budgets=None, order: Sequence | None = None, ax=None,
                        title: str | None = None, xlabel: str = "cost budget"):
    """Share of each group whose recourse costs at most the budget, as the budget grows.

    A curve that sits lower means the group needs more effort for the same
    share of its members to reach a favourable decision.

    Returns
    -------
    matplotlib Axes
    """
    cost = _finite_or_raise(cost, "cost")
    group = np.asarray(group)
    if len(cost) != len(group):
        raise ValueError(f"cost has {len(cost)} values but group has {len(group)}.")
    order = list(order) if order is not None else sorted(pd.unique(group).tolist(), key=str)
    palette = group_palette(order)
    if budgets is None:
        top = np.max(cost[np.isfinite(cost)]) if np.isfinite(cost).any() else 1.0
        budgets = np.linspace(0, top, 200)
    budgets = np.asarray(budgets, dtype=float)
    if ax is None:
        _, ax = plt.subplots()
    for level in order:
        member_cost = np.sort(cost[group == level])
        if member_cost.size == 0:
            continue
        share = np.searchsorted(member_cost, budgets, side="right") / member_cost.size
        ax.plot(budgets, 100 * share, color=palette[level], label=f"{level} (n={member_cost.size})", lw=2)
    ax.set(xlabel=xlabel, ylabel="members with recourse within budget (%)", ylim=(0, 102),
           title=title or "")
    ax.legend(title="group", loc="lower right")
    return ax


def plot_changes(changes: pd.DataFrame, *, ax=None, title: str | None = None, wrap: int = 42):
    """Horizontal bars of each changed feature's share of the cost, labelled with its old → new value.

    ``changes`` is the table returned by
    :func:`~recourselab.counterfactuals.describe_changes`. Each bar's label
    names the feature and its move (wrapped at ``wrap`` characters); bars of
    moves that break a feature's actionability are hatched and grey.
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
    for bar, ok in zip(bars, rows["allowed"]):
        if not ok:
            bar.set_hatch("//")
            bar.set_edgecolor("0.3")
    ax.set_yticks(np.arange(len(rows)), labels=labels, fontsize=8.5)
    ax.set(xlabel="share of the cost (weighted change)", ylabel="", title=title or "")
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

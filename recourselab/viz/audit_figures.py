"""Figures of explanation consistency (attributions, regimes, PFR against CEC), of the five lenses' flags, and of
two groups' shares within strata."""

from __future__ import annotations

import textwrap
from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns

from .._validation import check_aligned_all, check_array, check_bool, check_int, check_number, check_numeric_columns
from .theme import GROUP_COLOURS, MORE_COLOURS, REGIME_COLOURS, group_order, group_palette

__all__ = ["plot_attribution_pair", "plot_regime_shares", "plot_pfr_cec", "plot_flag_overlap",
           "plot_overlap_vs_chance", "plot_shares_by_stratum"]

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

    Returns
    -------
    matplotlib Axes
    """
    check_aligned_all(attributions=attributions, attributions_cf=attributions_cf)
    g = check_array(attributions, "attributions", ndim=None).ravel()
    h = check_array(attributions_cf, "attributions_cf", ndim=None).ravel()
    if isinstance(feature_names, (str, bytes)):
        raise TypeError(f"feature_names={feature_names!r} must be a list of names, one per feature.")
    names = list(feature_names)
    if not (len(g) == len(h) == len(names)):
        raise ValueError(f"attributions ({len(g)}), attributions_cf ({len(h)}) and feature_names ({len(names)}) "
                         "must have the same length.")
    if not isinstance(labels, (tuple, list)) or len(labels) != 2:
        raise ValueError(f"labels={labels!r} must be a pair of legend labels.")
    top = None if top is None else check_int(top, "top", minimum=1)
    if check_bool(normalise, "normalise"):
        g = g / (np.linalg.norm(g) + 1e-8)
        h = h / (np.linalg.norm(h) + 1e-8)
    keep = np.argsort(-np.maximum(np.abs(g), np.abs(h)), kind="stable")[:top]
    frame = pd.DataFrame({"feature": [names[i] for i in keep] * 2,
                          "attribution": np.concatenate([g[keep], h[keep]]),
                          "who": [labels[0]] * len(keep) + [labels[1]] * len(keep)})
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.9 + 0.42 * len(keep)))
    palette = dict(zip(labels, GROUP_COLOURS, strict=False))  # two members of a pair, two colours
    sns.barplot(data=frame, y="feature", x="attribution", hue="who", palette=palette, ax=ax, orient="h")
    ax.axvline(0, color="black", lw=0.8)
    ax.set(xlabel="normalised attribution (share of the L2 norm)" if normalise else "attribution (logit units)",
           ylabel="", title=title or "")
    ax.legend(title="", loc="best", fontsize=9)
    return ax


def plot_regime_shares(shares: pd.DataFrame, *, ax=None, title: str | None = None):
    """Stacked horizontal bars of the regime shares (columns A-D, rows = models or variants).

    ``shares`` holds fractions in [0, 1] (rows sum to 1), e.g. one
    :class:`~recourselab.explanation_consistency.RegimeResult` ``shares`` per model stacked into a frame.

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(shares, pd.DataFrame):
        raise TypeError(f"shares is a {type(shares).__name__}; pass a DataFrame with columns 'A', 'B', 'C' and 'D'.")
    if not set("ABCD") <= set(shares.columns):
        raise ValueError("shares must be a DataFrame with columns 'A', 'B', 'C' and 'D' (fractions per row).")
    values = check_numeric_columns(shares, list("ABCD"), "shares", minimum=0.0, maximum=1.0)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.9 + 0.5 * len(shares)))
    left = np.zeros(len(shares))
    rows = np.arange(len(shares))
    for j, regime in enumerate("ABCD"):
        width = 100 * values[:, j]
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

    Returns
    -------
    matplotlib Axes
    """
    _check_pfr_frame(frame, x, y, label, xerr, yerr)
    pfr_line = None if pfr_line is None else check_number(pfr_line, "pfr_line", minimum=0.0)
    cec_line = None if cec_line is None else check_number(cec_line, "cec_line", minimum=0.0)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 5))
    names = list(dict.fromkeys(frame[label]))
    if palette is None:
        palette = dict(zip(names, (GROUP_COLOURS + MORE_COLOURS) * 2, strict=False))  # more colours than names
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
    if check_bool(legend, "legend"):
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=9)
    return ax


def _check_pfr_frame(frame, x, y, label, xerr, yerr) -> None:
    """The columns of :func:`plot_pfr_cec` exist; the positions and error bars are finite numbers."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame is a {type(frame).__name__}; pass a DataFrame with one row per model.")
    if frame.empty:
        raise ValueError("frame has no rows; nothing to draw.")
    for column in [x, y, label] + [c for c in (xerr, yerr) if c is not None]:
        if column not in frame.columns:
            raise ValueError(f"frame has no column {column!r}; columns are {list(frame.columns)}.")
    for column in [x, y] + [c for c in (xerr, yerr) if c is not None]:
        check_numeric_columns(frame, column, "frame", minimum=0.0)


def plot_flag_overlap(flags: pd.DataFrame, *, groups=None, group_order: Sequence | None = None,
                      max_combinations: int = 12, title: str | None = None):
    """Which combinations of lenses flag the same individuals (an UpSet-style figure).

    Parameters
    ----------
    flags : DataFrame of bool
        One row per individual, one column per lens (True = flagged).
    groups : Series or array, optional
        A group label per individual (a Series must carry ``flags``' index); the
        bars are then stacked by group in the book's group colours.
    group_order : sequence, optional
        Order of the groups (the first is drawn in vermillion); it must list every group.
    max_combinations : int, default 12
        Show the most frequent combinations only (ties by fewer lenses first).

    Returns
    -------
    matplotlib.axes.Axes
        The axes of the bars (the dot matrix is a second axes below it).
    """
    counts, order = _flag_counts(flags, groups, group_order, max_combinations)
    palette = group_palette(order) if groups is not None else {"all": "0.4"}
    fig, (ax, ax_dots) = plt.subplots(2, 1, figsize=(7, 6), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
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


def _flag_counts(flags, groups, order, max_combinations) -> tuple[pd.DataFrame, list]:
    """Individuals per combination of lenses (one column per group, ``_total``, ``_lenses``), most frequent first."""
    if not isinstance(flags, pd.DataFrame):
        raise TypeError(f"flags is a {type(flags).__name__}; pass a DataFrame with one boolean column per lens.")
    if flags.shape[1] == 0:
        raise ValueError("flags must be a DataFrame with one boolean column per lens.")
    if not all(pd.api.types.is_bool_dtype(flags[c]) for c in flags.columns):
        raise ValueError(f"flags must hold booleans; column dtypes are {flags.dtypes.astype(str).to_dict()}.")
    max_combinations = check_int(max_combinations, "max_combinations", minimum=1)
    if groups is None:
        group, order = pd.Series("all", index=flags.index), ["all"]
    else:
        labels, order = group_order(groups, order, n=len(flags), order_name="group_order", reference=flags,
                                    reference_name="flags")
        group = pd.Series(labels, index=flags.index)
    flagged = flags[flags.any(axis=1)]
    if flagged.empty:
        raise ValueError("no individual is flagged by any lens; nothing to draw.")
    keys = pd.Series(["".join("1" if v else "0" for v in row) for row in flagged.to_numpy()], index=flagged.index)
    counts = pd.crosstab(keys, group.loc[flagged.index]).reindex(columns=order, fill_value=0)
    counts = counts.assign(_total=counts.sum(axis=1), _lenses=[k.count("1") for k in counts.index])
    counts = counts.sort_values(["_total", "_lenses"], ascending=[False, True], kind="stable")
    return counts.head(max_combinations), order


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
    values, labels = _check_overlap_table(table, lifts)
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
        _draw_lifts(axes[1], lifts, labels)
    handles = [h for a in axes for h in a.get_legend_handles_labels()[0]]
    names = [name for a in axes for name in a.get_legend_handles_labels()[1]]
    fig.legend(handles, names, loc="lower center", ncol=3, fontsize=8)
    if title:
        fig.suptitle(title, fontweight="bold")
    fig.tight_layout(rect=(0, 0.12, 1, 1))
    return axes


def _check_overlap_table(table, lifts) -> tuple[np.ndarray, list]:
    """The four numeric columns of ``table`` (finite) and its row labels; ``lifts`` names only those rows."""
    needed = ["observed", "expected", "chance low", "chance high"]
    if not isinstance(table, pd.DataFrame):
        raise TypeError(f"table is a {type(table).__name__}; pass the DataFrame recourselab.audit.overlap_table "
                        "returns.")
    if any(c not in table.columns for c in needed):
        raise ValueError(f"table must be a DataFrame with columns {needed} (see recourselab.audit.overlap_table).")
    if table.empty:
        raise ValueError("table has no rows; nothing to draw.")
    values = check_numeric_columns(table, needed, "table")
    labels = [" × ".join(map(str, i)) if isinstance(i, tuple) else str(i) for i in table.index]
    if lifts is not None:
        if not isinstance(lifts, pd.DataFrame) or not {"pair", "lift"} <= set(lifts.columns):
            raise ValueError("lifts must be a DataFrame with columns 'pair' and 'lift'.")
        check_numeric_columns(lifts, "lift", "lifts", allow_nan=True, allow_inf=True, allow_empty=True)
        unknown = sorted(set(lifts["pair"]) - set(labels), key=str)
        if unknown:
            raise ValueError(f"lifts names pairs {unknown[:3]} that are not rows of table {labels[:3]}.")
    return values, labels


def _draw_lifts(ax, lifts, labels) -> None:
    """One dot per split and pair at its lift (non-finite lifts left out), with the line of chance at 1."""
    position = {label: i for i, label in enumerate(labels)}
    finite = lifts[np.isfinite(lifts["lift"].to_numpy(dtype=float))]
    rows = finite["pair"].map(position).to_numpy(dtype=float)
    # spread the dots of one pair evenly over a band (deterministic, for legibility)
    rank = finite.groupby("pair").cumcount().to_numpy()
    size = finite.groupby("pair")["lift"].transform("size").to_numpy()
    offset = np.where(size > 1, (rank / np.maximum(size - 1, 1) - 0.5) * 0.3, 0.0)
    ax.scatter(finite["lift"].to_numpy(dtype=float), rows + offset, s=18, color="0.2", alpha=0.7, label="one split")
    ax.axvline(1.0, color="0.5", ls="--", lw=1, label="chance (lift 1)")
    ax.set(xlabel="lift = observed / expected overlap", title="Lift over splits")


def plot_shares_by_stratum(table: pd.DataFrame, *, ax=None, title: str | None = None, xlabel: str = "share",
                           tick_label: str = "{stratum}\n{group}: {n_group}, {reference}: {n_reference}",
                           include_all: bool = False, legend_title: str | None = None):
    """Horizontal bars of two groups' shares in each stratum, with their intervals and group sizes.

    Draws the table of :func:`~recourselab.stratified.shares_by_stratum`: per stratum, one bar per group
    (the first group on top, in its colour of :func:`group_palette`) with its Wilson interval as an error
    bar, and each stratum named with its group sizes.

    Parameters
    ----------
    table : DataFrame
        The output of :func:`~recourselab.stratified.shares_by_stratum`.
    ax : matplotlib Axes, optional
    title, xlabel : str, optional
    tick_label : str
        Format of each stratum's name, with the fields ``stratum``, ``group``, ``reference``,
        ``n_group`` and ``n_reference`` (e.g. ``"{stratum}\\n{n_group} women, {n_reference} men"``).
    include_all : bool, default False
        Also draw the row ``"all"`` (every stratum together).
    legend_title : str, optional
        The title of the legend of the two groups.

    Returns
    -------
    matplotlib Axes
    """
    if not isinstance(table, pd.DataFrame) or table.columns.nlevels != 2 \
            or list(dict.fromkeys(table.columns.get_level_values(0)))[-1:] != ["difference"]:
        raise TypeError("table must be the DataFrame that recourselab.stratified.shares_by_stratum returns.")
    include_all = check_bool(include_all, "include_all")
    group, reference = list(dict.fromkeys(table.columns.get_level_values(0)))[:2]
    rows = table if include_all else table.drop(index="all")
    if rows.empty:
        raise ValueError("the table has no stratum to draw; pass include_all=True to draw the overall shares.")
    palette = group_palette([group, reference])
    if ax is None:
        _, ax = plt.subplots(figsize=(3.9, 1.2 + 0.8 * len(rows)))
    y, height = np.arange(len(rows))[::-1], 0.38
    for offset, g in ((height / 2, group), (-height / 2, reference)):
        share = rows[(g, "share")].to_numpy(dtype=float)
        errors = np.abs(rows[[(g, "low"), (g, "high")]].to_numpy(dtype=float).T - share)
        ax.barh(y + offset, np.nan_to_num(share), height=height, xerr=np.nan_to_num(errors), capsize=3,
                color=palette[g], label=str(g))
    names = [tick_label.format(stratum=name, group=group, reference=reference, n_group=int(r[(group, "n")]),
                               n_reference=int(r[(reference, "n")])) for name, r in rows.iterrows()]
    ax.set_yticks(y, labels=names)
    ax.set(xlim=(0, 1), xlabel=xlabel, title=title or "")
    ax.legend(title=legend_title or "", loc="best")  # where it covers the fewest bars
    return ax

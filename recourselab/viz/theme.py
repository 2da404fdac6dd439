"""The book's look: one seaborn theme and fixed colours for groups, decisions and regimes.

Call :func:`set_theme` once at the top of a chapter. Protected groups are
always drawn in the same two colours (:data:`GROUP_COLOURS`): the first level
given to :func:`group_palette` (by convention the group the audit worries
about) in vermillion, the second in blue; further levels take the rest of the
colour-blind palette.
"""

from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import pandas as pd
import seaborn as sns

from .._validation import check_aligned_all, check_choice, check_labels, plain

__all__ = ["GROUP_COLOURS", "set_theme", "group_palette", "DECISION_COLOURS", "REGIME_COLOURS"]

#: Colours of the first and second protected group in every figure of the book
#: (Okabe-Ito vermillion and blue, distinguishable with colour-blindness and in grey).
GROUP_COLOURS = ("#D55E00", "#0072B2")
MORE_COLOURS = ("#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

#: Fill colours for decisions in graph figures (kept apart from the two group colours).
DECISION_COLOURS = {True: "#009E73", False: "#FFFFFF"}

#: Colours of the four fairness regimes of explanation consistency (A fully fair ... D both unfair).
REGIME_COLOURS = {"A": "#009E73", "B": "#E69F00", "C": "#56B4E9", "D": "#D55E00"}

CONTEXTS = ("paper", "notebook", "talk", "poster")

#: The default figure size (inches) and the scale of seaborn's font sizes: text readable on a phone.
FIGURE_SIZE = (6.4, 4.0)
FONT_SCALE = 1.15


def set_theme(context: str = "notebook") -> None:
    """Apply the book's seaborn theme (white grid, colour-blind palette, readable sizes).

    Sizes are chosen for a phone as much as for a desktop: a figure is drawn 6.4 in wide by
    default (at most ~7 in: the page shows it at the column's width, 350-750 CSS px) and its
    text is seaborn's ``context`` sizes scaled by ``FONT_SCALE`` (1.15), so that the tick labels
    of a 6.4 in figure still show at about 9 CSS px in a 390 px phone's column (and at 17 px
    at full size on a desktop); ``tools/check_static_pages.py --widths 390`` measures it.

    Parameters
    ----------
    context : {"paper", "notebook", "talk", "poster"}, default "notebook"
        Seaborn's scaling of fonts and lines.
    """
    check_choice(context, "context", CONTEXTS)
    sns.set_theme(context=context, style="whitegrid", palette=list(GROUP_COLOURS + MORE_COLOURS),
                  font_scale=FONT_SCALE)
    plt.rcParams.update(
        {
            "figure.figsize": FIGURE_SIZE,
            "figure.dpi": 100,
            "savefig.dpi": 150,
            "axes.titleweight": "bold",
            "axes.titlesize": "medium",
            "legend.frameon": False,
        }
    )


def group_palette(levels: Sequence) -> dict:
    """Map group levels to colours: first level vermillion, second blue, then the rest.

    Parameters
    ----------
    levels : sequence
        Group labels in the order of their colours (repeats are ignored); none
        missing, not a mix of strings and numbers.

    Returns
    -------
    dict
        Level -> colour (hex string).

    Examples
    --------
    >>> group_palette(["female", "male"])
    {'female': '#D55E00', 'male': '#0072B2'}
    """
    levels = list(dict.fromkeys(check_labels(levels, "levels", what="group").tolist()))
    colours = GROUP_COLOURS + MORE_COLOURS
    if len(levels) > len(colours):
        raise ValueError(f"{len(levels)} groups is more than the {len(colours)} colours the book uses.")
    return {level: colours[i] for i, level in enumerate(levels)}


def group_order(groups, order=None, *, n: int | None = None, name: str = "groups", order_name: str = "order",
                reference=None, reference_name: str = "cost"):
    """Group labels (checked) and the order to draw their groups in, which must list every group present.

    A figure that drew only the groups listed in ``order`` would drop the others silently, so a group
    present in ``groups`` but not in ``order`` is an error naming it. Without ``order`` the groups are
    sorted by their text. ``reference`` (e.g. the costs) is the argument ``groups`` is paired with by
    position: as pandas objects the two must share one index.

    Returns
    -------
    labels : ndarray of object
    order : list
    """
    check_aligned_all(**{reference_name: reference, name: groups})
    labels = check_labels(groups, name, n)
    present = sorted(pd.unique(labels).tolist(), key=str)
    if order is None:
        return labels, present
    if isinstance(order, (str, bytes)) or not hasattr(order, "__iter__"):
        raise TypeError(f"{order_name}={order!r} must be a list of group labels.")
    order = list(dict.fromkeys(order))
    left_out = [plain(g) for g in present if g not in order]
    if left_out:
        raise ValueError(f"{order_name}={[plain(g) for g in order]!r} leaves out the group(s) {left_out[:6]} present "
                         f"in {name}; list every group (the figure would drop them silently), or drop their rows "
                         "first.")
    return labels, order

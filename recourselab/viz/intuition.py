"""One refused applicant in a two-feature world: the figure that opens the recourse lesson."""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np

from .._validation import check_array, check_choice, check_int, check_mask, check_number, check_positions
from ..features import ACTIONABILITY
from .theme import DECISION_COLOURS

__all__ = ["plot_recourse_intuition"]

#: Legend text of :func:`plot_recourse_intuition`'s markers (override any of them with ``labels=``).
_INTUITION_LABELS = {
    "approved": "approved (observed person)",
    "refused": "refused (observed person)",
    "factual": "the refused applicant",
    "boundary": "decision boundary (approved side shaded)",
    "blocked": "unreachable: breaks actionability",
    "counterfactual": "nearest counterfactual (any point)",
    "nearest": "nearest approved person",
    "recourse": "recourse to the boundary",
    "path": "FACE path through observed people",
}
# marker colours: the colour-blind palette's colours that are neither group colours nor the decision green
_INTUITION_COLOURS = {"counterfactual": "#56B4E9", "nearest": "#E69F00", "recourse": "#CC79A7", "path": "0.2",
                      "blocked": "0.72"}


@dataclass(frozen=True)
class _Picture:
    """The checked inputs of :func:`plot_recourse_intuition`."""

    points: np.ndarray
    favourable: np.ndarray
    factual: int
    boundary: tuple | None
    nearest: int | None
    recourse: np.ndarray | None
    counterfactual: np.ndarray | None
    path: np.ndarray | None
    actionability: tuple


def plot_recourse_intuition(points, favourable, factual, *, boundary=None, nearest=None, recourse=None, path=None,
                            counterfactual=None, actionability=("free", "free"), labels: dict | None = None,
                            xlabel: str = "", ylabel: str = "", title: str | None = None, ax=None):
    """One refused applicant in a two-feature world: what flips the decision, and what she can actually do.

    Draws, in the units of the two features, the observed people (filled green
    = approved, white = refused, as in :func:`plot_feasibility_graph`), the
    model's linear decision boundary with its approved side shaded, the region
    the applicant cannot reach under the features' actionability (hatched), and
    up to four answers to "what would get her approved?":

    * the **nearest counterfactual** (blue cross, dotted arrow): the cheapest
      point the model approves, anyone's profile or no one's, whether or not
      she could move there (e.g. :func:`~recourselab.counterfactuals.linear_recourse`
      without an encoder);
    * the **nearest approved person** (orange ring, dashed arrow): the closest
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
    consistent (the applicant is refused, the nearest approved person and the
    path's end are approved, the recourse, the counterfactual and the decisions
    agree with the boundary) but not feasibility, which needs the feature specifications:
    assert that with :meth:`Encoder.feasible <recourselab.features.Encoder.feasible>`
    before drawing.

    Parameters
    ----------
    points : array-like of shape (n, 2)
        The observed people, one row each: (x, y) in the features' own units.
    favourable : array-like of bool (or 0/1), shape (n,)
        The model's decision for each person (True = approved).
    factual : int
        Row of the refused applicant in ``points``.
    boundary : (coef, intercept), optional
        The linear decision rule in the units of ``points``: a person is
        approved when :math:`c_x x + c_y y + b \\ge 0` with ``coef`` =
        :math:`(c_x, c_y)` and ``intercept`` = :math:`b`. Every entry of
        ``favourable`` must agree with it.
    nearest : int, optional
        Row of the nearest approved person.
    recourse : array-like of shape (2,), optional
        Where the recourse lands, in the units of ``points``; on the approved
        side of ``boundary`` when both are given.
    counterfactual : array-like of shape (2,), optional
        The nearest counterfactual, in the units of ``points``; on the
        approved side of ``boundary`` when both are given.
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
        ``"blocked"``, ``"counterfactual"``, ``"nearest"``, ``"recourse"``, ``"path"``.
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
        For indices that are not integers (``2.7``, ``True``), or coordinates
        that are not numbers.
    ValueError
        For malformed or non-finite coordinates, decisions other than
        True/False (or 1/0), out-of-range rows, and an inconsistent picture
        (see above).

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
    picture = _check_picture(points, favourable, factual, boundary, nearest, recourse, counterfactual, path,
                             actionability)
    text = _legend_text(labels)
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 6.2))  # at most 7 in wide: readable on a phone
    box = _frame(ax, picture)
    handles = {}  # legend entries by key, ordered at the end
    _draw_blocked(ax, picture, box, handles)
    _draw_boundary(ax, picture, box, handles)
    _draw_people(ax, picture, handles)
    _draw_answers(ax, picture, handles)
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title or "")
    keys = [k for k in _INTUITION_LABELS if k in handles]  # the order of the defaults: data, then the answers
    # below the axes, in the theme's font size, so the figure stays as wide as its axes
    ax.legend([handles[k] for k in keys], [text[k] for k in keys], loc="upper center", bbox_to_anchor=(0.5, -0.13),
              ncol=2, frameon=False)
    return ax


# ---------------------------------------------------------------------------------------------- checks
def _check_picture(points, favourable, factual, boundary, nearest, recourse, counterfactual, path,
                   actionability) -> _Picture:
    """Every input checked, and the picture consistent (decisions, boundary, answers)."""
    points = check_array(points, "points", ndim=2, width=2)
    n = len(points)
    favourable = check_mask(favourable, "favourable", n, meaning="True = approved")
    factual = _row_index(factual, "factual", n)
    if favourable[factual]:
        raise ValueError(f"factual={factual} is approved (favourable[{factual}] is True); give a refused person.")
    if nearest is not None:
        nearest = _row_index(nearest, "nearest", n)
        if not favourable[nearest]:
            raise ValueError(f"nearest={nearest} is refused; the nearest approved person must be approved.")
    if recourse is not None:
        recourse = check_array(recourse, "recourse", length=2, length_of="coordinates (x, y)")
    if counterfactual is not None:
        counterfactual = check_array(counterfactual, "counterfactual", length=2, length_of="coordinates (x, y)")
    if path is not None:
        path = _check_path(path, favourable, factual)
    actionability = _check_actionability(actionability)
    if boundary is not None:
        boundary = _check_boundary(boundary)
        _check_agreement(points, favourable, boundary, {"recourse": recourse, "counterfactual": counterfactual})
    return _Picture(points, favourable, factual, boundary, nearest, recourse, counterfactual, path, actionability)


def _row_index(value, name: str, n: int) -> int:
    """A row position in 0..n-1 (Python or numpy integer; bools and fractions are errors, never truncated)."""
    index = check_int(value, name)
    if not 0 <= index < n:
        raise ValueError(f"{name}={index} is not a row of points; give a position in 0..{n - 1}.")
    return index


def _check_path(path, favourable, factual) -> np.ndarray:
    """A FACE path: at least two rows of points, from ``factual`` to an approved person."""
    path = check_positions(path, "path", len(favourable))
    if len(path) < 2:
        raise ValueError(f"path={path.tolist()} must list at least two rows, from factual to an approved person "
                         "(when FACE finds no path, pass path=None).")
    if path[0] != factual:
        raise ValueError(f"path starts at row {path[0]}, not at factual={factual}; a FACE path starts there.")
    if not favourable[path[-1]]:
        raise ValueError(f"path ends at row {path[-1]}, who is refused; a FACE path ends at an approved person.")
    return path


def _check_actionability(actionability) -> tuple:
    if not isinstance(actionability, (tuple, list)) or len(actionability) != 2:
        raise ValueError(f"actionability={actionability!r} must be a pair, one of {ACTIONABILITY} for x and for y.")
    return tuple(check_choice(word, f"actionability for {axis}", ACTIONABILITY)
                 for axis, word in zip("xy", actionability, strict=True))


def _check_boundary(boundary) -> tuple[np.ndarray, float]:
    """``boundary`` as (coef of shape (2,), intercept), both finite, coef not zero."""
    if not isinstance(boundary, (tuple, list)) or len(boundary) != 2:
        raise ValueError(f"boundary={boundary!r} must be a pair (coef, intercept), e.g. ([-3.0, 1.0], -2.0).")
    coef = check_array(boundary[0], "boundary's coef", length=2, length_of="coordinates (c_x, c_y)")
    if not coef.any():
        raise ValueError(f"boundary's coef={coef.tolist()} must be two finite numbers, not both 0.")
    return coef, check_number(boundary[1], "boundary's intercept")


def _check_agreement(points, favourable, boundary, answers) -> None:
    """Every decision on its side of the boundary, and the answers (recourse, counterfactual) on the approved side."""
    coef, intercept = boundary
    margin = points @ coef + intercept
    tol = 1e-9 * (np.abs(points) @ np.abs(coef) + abs(intercept) + 1.0)
    disagree = (favourable & (margin < -tol)) | (~favourable & (margin > tol))
    if disagree.any():
        i = int(np.flatnonzero(disagree)[0])
        raise ValueError(f"favourable[{i}]={bool(favourable[i])} but row {i} lies on the "
                         f"{'refused' if margin[i] < 0 else 'approved'} side of boundary (margin "
                         f"{margin[i]:.3g}); pass the model's decisions and that model's boundary.")
    for name, answer in answers.items():
        if answer is None:
            continue
        r_margin = float(answer @ coef + intercept)
        if r_margin < -1e-9 * (np.abs(answer) @ np.abs(coef) + abs(intercept) + 1.0):
            raise ValueError(f"{name}={answer.tolist()} lies on the refused side of boundary (margin "
                             f"{r_margin:.3g}); a {name} must reach the approved side.")


def _legend_text(labels) -> dict:
    text = dict(_INTUITION_LABELS)
    if labels is not None:
        if not isinstance(labels, dict):
            raise TypeError(f"labels is a {type(labels).__name__}; give a dict, e.g. {{'factual': 'Ana'}}.")
        unknown = sorted(set(labels) - set(text), key=str)
        if unknown:
            raise ValueError(f"labels has unknown keys {unknown}; use some of {sorted(text)}.")
        text.update(labels)
    return text


# ---------------------------------------------------------------------------------------------- drawing steps
def _frame(ax, picture: _Picture) -> tuple:
    """Axis limits around every point drawn (and the recourse), with a margin: (x0, x1, y0, y1)."""
    extra = [a for a in (picture.recourse, picture.counterfactual) if a is not None]
    shown = np.vstack([picture.points, *extra])
    low, high = shown.min(axis=0), shown.max(axis=0)
    pad = 0.08 * np.where(high > low, high - low, 1.0)
    (x0, y0), (x1, y1) = low - pad, high + pad
    ax.set(xlim=(x0, x1), ylim=(y0, y1))
    return x0, x1, y0, y1


def _draw_blocked(ax, picture: _Picture, box, handles) -> None:
    """Hatch the values the applicant cannot reach under each feature's actionability."""
    x0, x1, y0, y1 = box
    fx, fy = picture.points[picture.factual]
    hatch = {"facecolor": "none", "hatch": "///", "edgecolor": _INTUITION_COLOURS["blocked"], "lw": 0, "zorder": 0}
    blocked = False
    for span, word, here, lo, hi in ((ax.axvspan, picture.actionability[0], fx, x0, x1),
                                     (ax.axhspan, picture.actionability[1], fy, y0, y1)):
        if word in ("increase", "immutable"):
            span(lo, here, **hatch)
            blocked = True
        if word in ("decrease", "immutable"):
            span(here, hi, **hatch)
            blocked = True
    if blocked:
        handles["blocked"] = plt.Rectangle((0, 0), 1, 1, facecolor="white", hatch="///",
                                           edgecolor=_INTUITION_COLOURS["blocked"])


def _draw_boundary(ax, picture: _Picture, box, handles) -> None:
    """The decision boundary as a line, its approved side shaded."""
    if picture.boundary is None:
        return
    (cx, cy), intercept = picture.boundary
    x0, x1, y0, y1 = box
    gx, gy = np.meshgrid(np.linspace(x0, x1, 300), np.linspace(y0, y1, 300))
    side = (cx * gx + cy * gy + intercept >= 0).astype(float)
    if side.any():
        ax.contourf(gx, gy, side, levels=[0.5, 1.5], colors=[DECISION_COLOURS[True]], alpha=0.12, zorder=0)
    if cy != 0:
        xs = np.array([x0, x1])
        ax.plot(xs, -(cx * xs + intercept) / cy, color="black", lw=1.6, zorder=1)
    else:
        ax.axvline(-intercept / cx, color="black", lw=1.6, zorder=1)
    ax.set(xlim=(x0, x1), ylim=(y0, y1))  # the line runs past the box; keep the box
    handles["boundary"] = plt.Line2D([], [], color="black", lw=1.6)


def _draw_people(ax, picture: _Picture, handles) -> None:
    """The observed people (filled = approved) and the applicant (a star)."""
    points, favourable = picture.points, picture.favourable
    ax.scatter(*points[favourable].T, s=40, color=DECISION_COLOURS[True], edgecolors="0.25", lw=0.8, zorder=2)
    ax.scatter(*points[~favourable].T, s=40, color=DECISION_COLOURS[False], edgecolors="0.45", lw=0.8, zorder=2)
    handles["approved"] = plt.Line2D([], [], marker="o", ls="", markersize=7, markerfacecolor=DECISION_COLOURS[True],
                                     markeredgecolor="0.25")
    handles["refused"] = plt.Line2D([], [], marker="o", ls="", markersize=7, markerfacecolor=DECISION_COLOURS[False],
                                    markeredgecolor="0.45")
    ax.scatter(*points[picture.factual], s=320, marker="*", color="black", edgecolors="white", lw=0.8, zorder=6)
    handles["factual"] = plt.Line2D([], [], marker="*", ls="", markersize=15, color="black")


def _draw_answers(ax, picture: _Picture, handles) -> None:
    """The FACE path, the nearest approved person, the recourse and the counterfactual, each with its arrow."""
    points, start = picture.points, picture.points[picture.factual]
    if picture.path is not None:
        colour, path = _INTUITION_COLOURS["path"], picture.path
        ax.plot(*points[path].T, color=colour, lw=2.2, zorder=3, solid_capstyle="round")
        for a, b in zip(path[:-1], path[1:], strict=True):
            ax.annotate("", xy=points[b], xytext=points[a], zorder=3,
                        arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2.2, "shrinkA": 0, "shrinkB": 4})
        handles["path"] = plt.Line2D([], [], color=colour, lw=2.2, marker=">", markersize=6)
    if picture.nearest is not None:
        colour, target = _INTUITION_COLOURS["nearest"], points[picture.nearest]
        ax.annotate("", xy=target, xytext=start, zorder=4,
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2, "ls": "--", "shrinkA": 6,
                                "shrinkB": 7})
        ax.scatter(*target, s=190, facecolors="none", edgecolors=colour, lw=2.2, zorder=4)
        handles["nearest"] = plt.Line2D([], [], color=colour, lw=2, ls="--", marker="o", markersize=10,
                                        markerfacecolor="none", markeredgewidth=2.2)
    if picture.recourse is not None:
        colour = _INTUITION_COLOURS["recourse"]
        ax.annotate("", xy=picture.recourse, xytext=start, zorder=4,
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2, "shrinkA": 6, "shrinkB": 5})
        ax.scatter(*picture.recourse, s=80, marker="D", color=colour, edgecolors="black", lw=0.8, zorder=5)
        handles["recourse"] = plt.Line2D([], [], color=colour, lw=2, marker="D", markersize=7,
                                         markeredgecolor="black")
    if picture.counterfactual is not None:
        colour = _INTUITION_COLOURS["counterfactual"]
        ax.annotate("", xy=picture.counterfactual, xytext=start, zorder=4,
                    arrowprops={"arrowstyle": "-|>", "color": colour, "lw": 2, "ls": ":", "shrinkA": 6, "shrinkB": 6})
        ax.scatter(*picture.counterfactual, s=110, marker="X", color=colour, edgecolors="black", lw=0.8, zorder=5)
        handles["counterfactual"] = plt.Line2D([], [], color=colour, lw=2, ls=":", marker="X", markersize=9,
                                               markeredgecolor="black")

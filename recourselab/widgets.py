"""One way to build every chapter's explorer: controls on top, live output below.

The explorers only work with a running kernel (Binder, JupyterLab); the rendered
book shows a static figure of the same trade-off next to each one.
"""

from __future__ import annotations

from typing import Callable, Mapping

import ipywidgets as widgets
import matplotlib.pyplot as plt

__all__ = ["explorer", "slider", "dropdown"]


def slider(description: str, value: float, min: float, max: float, step: float, *,
           integer: bool = False, readout_format: str | None = None) -> widgets.Widget:
    """A labelled slider that updates on release (so slow figures do not lag).

    ``integer=True`` gives an ``IntSlider``, otherwise a ``FloatSlider``.
    """
    if not min <= value <= max:
        raise ValueError(f"value={value!r} must lie in [min={min!r}, max={max!r}] for slider {description!r}.")
    style = {"description_width": "initial"}
    layout = widgets.Layout(width="24rem")
    if integer:
        return widgets.IntSlider(value=int(value), min=int(min), max=int(max), step=int(step), description=description,
                                 continuous_update=False, style=style, layout=layout)
    return widgets.FloatSlider(value=value, min=min, max=max, step=step, description=description,
                               continuous_update=False, readout_format=readout_format or ".2f",
                               style=style, layout=layout)


def dropdown(description: str, options, value=None) -> widgets.Dropdown:
    """A labelled dropdown; ``options`` is a list or a mapping label -> value."""
    options = list(options.items()) if isinstance(options, Mapping) else list(options)
    if not options:
        raise ValueError(f"options for dropdown {description!r} is empty.")
    first = options[0][1] if isinstance(options[0], tuple) else options[0]
    return widgets.Dropdown(options=options, value=first if value is None else value, description=description,
                            style={"description_width": "initial"}, layout=widgets.Layout(width="24rem"))


def explorer(update: Callable[..., None], controls: Mapping[str, widgets.Widget], *,
             title: str | None = None) -> widgets.VBox:
    """Controls plus an output area that re-runs ``update(**values)`` whenever a control changes.

    Parameters
    ----------
    update : callable
        Draws the figure or table for the current values; receives one keyword
        argument per control. Figures it creates are shown and closed.
    controls : mapping of str to ipywidgets.Widget
        Keyword name -> widget (see :func:`slider`, :func:`dropdown`).
    title : str, optional
        Bold line above the controls.

    Returns
    -------
    ipywidgets.VBox
        Display it as the last expression of a cell.

    Examples
    --------
    >>> def show_k(k):
    ...     print(f"k = {k}")
    >>> explorer(show_k, {"k": slider("k", 3, 1, 10, 1, integer=True)})  # doctest: +SKIP
    """
    if not callable(update):
        raise TypeError("update must be a callable taking one keyword argument per control.")
    if not controls:
        raise ValueError("controls is empty; give at least one widget.")
    for name, control in controls.items():
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(f"controls[{name!r}] is a {type(control).__name__}, not a value widget.")
    output = widgets.interactive_output(_showing(update), dict(controls))
    header = [widgets.HTML(f"<b>{title}</b>")] if title else []
    return widgets.VBox(header + [widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap")),
                                  output])


def _showing(update):
    def run(**values):
        update(**values)
        # inside an Output widget, figures only appear when shown explicitly
        plt.show()

    return run

"""One way to build every chapter's explorer: controls on top, live output below.

The explorers only work with a running kernel (Binder, JupyterLab); the rendered
book shows a static figure of the same trade-off next to each one. Chapters check
their explorer in a hidden cell with :func:`check_explorer`, so the book build
fails the day a control change stops producing a figure.
"""

from __future__ import annotations

import base64
import io
import traceback
from typing import Callable, Mapping

import ipywidgets as widgets
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

__all__ = ["explorer", "slider", "dropdown", "check_explorer", "Explorer"]


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


def explorer(update: Callable[..., object], controls: Mapping[str, widgets.Widget], *,
             title: str | None = None) -> Explorer:
    """Controls plus an output area that re-runs ``update(**values)`` whenever a control changes.

    Every redraw runs ``update`` in the kernel and collects what it produced: its
    printed text, the objects it passed to ``display`` (tables), then every
    matplotlib figure it left open (or returned), each rendered to PNG and
    closed. The collected outputs replace the output area's content in one
    assignment (the same as ``clear_output(wait=True)`` followed by the new
    outputs), so the area is never blank or half drawn, and nothing depends on
    which kernel thread or message the callback runs under (JupyterLab 4 with
    ipykernel 7 runs widget callbacks in a subshell, where the ``with output:``
    capture of earlier versions raced the output area and left blank figures).

    Parameters
    ----------
    update : callable
        Draws the figure or table for the current values; receives one keyword
        argument per control. It may create figures with ``plt.subplots`` (they
        are shown and closed), ``display`` tables and ``print`` text. It should
        not display a figure itself (it would be shown twice).
    controls : mapping of str to ipywidgets.Widget
        Keyword name -> widget (see :func:`slider`, :func:`dropdown`).
    title : str, optional
        Bold line above the controls.

    Returns
    -------
    Explorer
        An ``ipywidgets.VBox``; display it as the last expression of a cell. Its
        ``controls`` and ``output`` attributes give the widgets (used by
        :func:`check_explorer`).

    Raises
    ------
    Exception
        Whatever ``update`` raises for the initial values (so an executed
        chapter fails instead of showing a broken explorer). Errors in later
        redraws are shown in the output area as a traceback.

    Examples
    --------
    >>> def show_k(k):
    ...     print(f"k = {k}")
    >>> explorer(show_k, {"k": slider("k", 3, 1, 10, 1, integer=True)})  # doctest: +SKIP
    """
    if not callable(update):
        raise TypeError(f"update is a {type(update).__name__}, not a callable; pass a function taking one keyword "
                        "argument per control.")
    if not isinstance(controls, Mapping) or not controls:
        raise ValueError("controls is empty (or not a mapping); give at least one widget as {name: widget}.")
    for name, control in controls.items():
        if not isinstance(control, widgets.ValueWidget):
            raise TypeError(f"controls[{name!r}] is a {type(control).__name__}, not a value widget; use slider() or "
                            "dropdown().")
    header = [widgets.HTML(f"<b>{title}</b>")] if title else []
    row = widgets.HBox(list(controls.values()), layout=widgets.Layout(flex_flow="row wrap"))
    output = widgets.Output()
    box = Explorer(header + [row, output])
    box.controls = dict(controls)
    box.output = output
    box.update = update
    output.outputs = _render(update, box.values(), raise_errors=True)
    for control in controls.values():
        control.observe(box.redraw, names="value")
    return box


class Explorer(widgets.VBox):
    """The box :func:`explorer` returns: title, controls and output area.

    Attributes
    ----------
    controls : dict of str to ipywidgets.Widget
        The controls, by the keyword they pass to ``update``.
    output : ipywidgets.Output
        The output area; its ``outputs`` hold the last redraw (PNG figures,
        tables, text, or the error).
    """

    controls: dict
    output: widgets.Output

    def values(self) -> dict:
        """The current value of every control, by keyword."""
        return {name: control.value for name, control in self.controls.items()}

    def redraw(self, change=None) -> None:
        """Re-run ``update`` for the current values and replace the output (errors are shown, not raised)."""
        self.output.outputs = _render(self.update, self.values(), raise_errors=False)

    def restore(self, values: Mapping[str, object]) -> None:
        """Set several controls at once and redraw once (not once per control)."""
        for control in self.controls.values():
            control.unobserve(self.redraw, names="value")
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            for control in self.controls.values():
                control.observe(self.redraw, names="value")
        self.redraw()


def _render(update, values, *, raise_errors):
    """Run ``update(**values)`` and return its outputs as notebook output dicts (figures as PNG)."""
    from IPython.utils.capture import capture_output

    before = set(plt.get_fignums())
    error = None
    with capture_output(display=True) as captured:
        try:
            returned = update(**values)
        except Exception as err:  # shown in the output area below, or re-raised on the first draw
            if raise_errors:
                _close_new_figures(before)
                raise
            error, returned = err, None
    outputs = []
    if captured.stdout:
        outputs.append({"output_type": "stream", "name": "stdout", "text": captured.stdout})
    if captured.stderr:
        outputs.append({"output_type": "stream", "name": "stderr", "text": captured.stderr})
    for shown in captured.outputs:
        outputs.append({"output_type": "display_data", "data": dict(shown.data),
                        "metadata": dict(shown.metadata or {})})
    figures = [plt.figure(number) for number in plt.get_fignums() if number not in before]
    if isinstance(returned, Figure) and returned not in figures:
        figures.append(returned)
    for figure in figures:
        outputs.append(_png_output(figure))
    _close_new_figures(before)
    if error is not None:
        outputs.append({"output_type": "error", "ename": type(error).__name__, "evalue": str(error),
                        "traceback": "".join(traceback.format_exception(error)).splitlines()})
    return tuple(outputs)


def _png_output(figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return {"output_type": "display_data", "data": {"image/png": data, "text/plain": repr(figure)},
            "metadata": {}}


def _close_new_figures(before):
    for number in plt.get_fignums():
        if number not in before:
            plt.close(number)


def check_explorer(box: Explorer, values: Mapping[str, object] | None = None, *,
                   min_png_bytes: int = 1000) -> list[dict]:
    """Change each control of an explorer once and check a real figure comes back each time.

    For each control in turn, sets a new value (from ``values``, else the next
    dropdown option or the next slider step, stepping down at the maximum), which
    runs the explorer's callback as a reader's change would. After each change
    the output area must hold no error and at least one PNG image of at least
    ``min_png_bytes`` bytes that is neither fully transparent nor a single
    colour. At the end the controls are put back to their first values and the
    explorer redrawn once.

    Parameters
    ----------
    box : Explorer
        What :func:`explorer` returned.
    values : mapping of str to object, optional
        The new value to try for some controls (by keyword), e.g. a value whose
        result is cached, to keep the check fast.
    min_png_bytes : int, default 1000
        Smallest accepted size of a PNG image, in bytes.

    Returns
    -------
    list of dict
        One row per change: ``control``, ``value``, ``png_bytes`` (the largest
        image) and ``images``.

    Raises
    ------
    AssertionError
        When a change produced no redraw, an error, no image, or only blank
        images; the message names the control and the value.
    """
    if not isinstance(box, Explorer):
        raise TypeError(f"box is a {type(box).__name__}; pass what recourselab.widgets.explorer returned.")
    values = dict(values or {})
    unknown = set(values) - set(box.controls)
    if unknown:
        raise ValueError(f"values names {sorted(unknown)}, which are not controls of this explorer "
                         f"({sorted(box.controls)}).")
    if min_png_bytes < 0:
        raise ValueError(f"min_png_bytes={min_png_bytes!r} must be >= 0.")
    first = box.values()
    rows = []
    try:
        for name, control in box.controls.items():
            new = values[name] if name in values else _another_value(name, control)
            before = box.output.outputs
            control.value = new
            outputs = box.output.outputs
            if outputs is before:
                raise AssertionError(f"setting {name}={new!r} did not redraw the explorer.")
            errors = [o for o in outputs if o.get("output_type") == "error"]
            if errors:
                raise AssertionError(f"setting {name}={new!r} raised {errors[0]['ename']}: {errors[0]['evalue']}\n"
                                     + "\n".join(errors[0]["traceback"]))
            sizes = [_png_size_if_drawn(o["data"]["image/png"]) for o in outputs
                     if o.get("output_type") == "display_data" and "image/png" in o.get("data", {})]
            if not sizes:
                raise AssertionError(f"setting {name}={new!r} gave no image (outputs: "
                                     f"{[o.get('output_type') for o in outputs]}).")
            if max(sizes) < min_png_bytes:
                raise AssertionError(f"setting {name}={new!r} gave only blank or tiny images ({sizes} bytes; "
                                     "0 = fully transparent or a single colour).")
            rows.append({"control": name, "value": new, "png_bytes": max(sizes), "images": len(sizes)})
    finally:
        box.restore(first)
    return rows


def _another_value(name, control):
    if isinstance(control, widgets.widget_selection._Selection):
        if len(control.options) < 2:
            raise ValueError(f"control {name!r} has one option only; nothing to change.")
        option = control.options[(control.index + 1) % len(control.options)]
        return option[1] if isinstance(option, tuple) else option
    if isinstance(control, widgets.Checkbox):
        return not control.value
    if hasattr(control, "step") and hasattr(control, "max") and hasattr(control, "min"):
        up = round(control.value + control.step, 10)
        return up if up <= control.max else round(control.value - control.step, 10)
    raise ValueError(f"control {name!r} is a {type(control).__name__}; pass the value to try in "
                     f"values={{{name!r}: ...}}.")


def _png_size_if_drawn(encoded):
    """Size in bytes of a base64 PNG, or 0 if it is fully transparent or one colour."""
    raw = base64.b64decode(encoded)
    image = matplotlib.image.imread(io.BytesIO(raw), format="png")
    if image.ndim == 3 and image.shape[2] == 4:
        visible = image[..., 3] > 0
        if not visible.any():
            return 0
        pixels = image[visible][:, :3]
    else:
        pixels = image.reshape(-1, image.shape[2] if image.ndim == 3 else 1)
    return len(raw) if len(np.unique(pixels, axis=0)) > 1 else 0

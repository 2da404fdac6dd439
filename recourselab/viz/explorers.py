"""One way to build every chapter's explorer, and the check that each of its controls redraws a figure.

The explorers (:func:`explorer`) only work with a running kernel (Binder,
JupyterLab). On the book's static pages an explorer shows a short note instead
of dead controls, and the chapter follows it with its **twin**
(:mod:`recourselab.viz.twins`). Chapters check their explorer in a hidden cell
with :func:`check_explorer`, so the book build fails the day a control change
stops producing a figure, or stops changing it.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import traceback
from typing import Callable, Mapping

import ipywidgets as widgets
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from .._validation import check_bool, check_int, check_number, tidy_float

__all__ = ["explorer", "slider", "dropdown", "check_explorer", "Explorer"]


def slider(description: str, value: float, min: float, max: float, step: float, *,
           integer: bool = False, readout_format: str | None = None) -> widgets.Widget:
    """A labelled slider that updates on release (so slow figures do not lag).

    Parameters
    ----------
    description : str
        The label shown beside the slider (say the unit).
    value, min, max, step : number
        Opening value, range (``min <= value <= max``) and step (> 0); whole
        numbers with ``integer=True`` (never rounded for you).
    integer : bool, default False
        An ``IntSlider`` instead of a ``FloatSlider``.
    readout_format : str, optional
        Format of the float readout (default ``".2f"``).

    Returns
    -------
    ipywidgets.IntSlider or ipywidgets.FloatSlider
    """
    _check_description(description)
    check = (lambda v, name: check_int(v, name)) if check_bool(integer, "integer") else check_number
    value, low, high, step = (check(v, name) for v, name in ((value, "value"), (min, "min"), (max, "max"),
                                                             (step, "step")))
    if not low <= value <= high:
        raise ValueError(f"value={value!r} must lie in [min={low!r}, max={high!r}] for slider {description!r}.")
    if step <= 0:
        raise ValueError(f"step={step!r} must be > 0 for slider {description!r}.")
    style = {"description_width": "initial"}
    layout = widgets.Layout(width="24rem")
    if integer:
        return widgets.IntSlider(value=value, min=low, max=high, step=step, description=description,
                                 continuous_update=False, style=style, layout=layout)
    return widgets.FloatSlider(value=value, min=low, max=high, step=step, description=description,
                               continuous_update=False, readout_format=readout_format or ".2f",
                               style=style, layout=layout)


def dropdown(description: str, options, value=None) -> widgets.Dropdown:
    """A labelled dropdown; ``options`` is a list or a mapping label -> value.

    Parameters
    ----------
    description : str
        The label shown beside the dropdown.
    options : list or mapping
        The values, or label -> value (at least one).
    value : object, optional
        The opening value, one of the options' values (default: the first).

    Returns
    -------
    ipywidgets.Dropdown
    """
    _check_description(description)
    if isinstance(options, (str, bytes)) or not hasattr(options, "__iter__"):
        raise TypeError(f"options={options!r} must be a list of values or a mapping label -> value.")
    options = list(options.items()) if isinstance(options, Mapping) else list(options)
    if not options:
        raise ValueError(f"options for dropdown {description!r} is empty.")
    values = [o[1] if isinstance(o, tuple) else o for o in options]
    if value is not None and not any(_equal(value, v) for v in values):
        raise ValueError(f"value={value!r} is not among the options of dropdown {description!r} {values[:8]}.")
    return widgets.Dropdown(options=options, value=values[0] if value is None else value, description=description,
                            style={"description_width": "initial"}, layout=widgets.Layout(width="24rem"))


def _check_description(description) -> None:
    if not isinstance(description, str) or not description.strip():
        raise TypeError(f"description={description!r} must be a non-empty string (the control's label).")


def _equal(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # arrays and other values without a single truth value
        return False


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
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title={title!r} must be a string (the bold line above the controls) or None.")
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
    box.explorer_title = title
    box.update = update
    output.outputs = _render(update, box.arguments(), raise_errors=True)
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
        """The current value of every control, by keyword (as the controls hold them; ``restore`` takes them back)."""
        return {name: control.value for name, control in self.controls.items()}

    def arguments(self) -> dict:
        """The keywords ``update`` is called with: :meth:`values`, a float slider's value as the slider shows it.

        A float slider stepped in the browser reports values such as 2.5000000000000004; ``update``
        receives 2.5 (rounded to 12 significant digits), so a title written ``f"d = {d}"`` reads as
        the slider does. A dropdown's value is passed as given (1/3 stays 1/3).
        """
        return {name: tidy_float(control.value) if isinstance(control, widgets.FloatSlider) else control.value
                for name, control in self.controls.items()}

    def redraw(self, change=None) -> None:
        """Re-run ``update`` for the current values and replace the output (errors are shown, not raised)."""
        self.output.outputs = _render(self.update, self.arguments(), raise_errors=False)

    def _repr_mimebundle_(self, **kwargs):
        """The widget for a live kernel, plus an HTML note for pages rendered without one.

        JupyterLab and Binder show the widget (their widget renderer outranks
        HTML); the book's static pages drop the widget view (``_config.yml``
        ``nb_mime_priority_overrides``) and show the note, which names the
        controls and says where they are live, instead of sliders that move and
        change nothing.
        """
        data = super()._repr_mimebundle_(**kwargs)
        if data is None:  # a closed widget has nothing to show
            return None
        data["text/html"] = self.static_note()
        return data

    def static_note(self) -> str:
        """The HTML note that stands in for the explorer on a page without a kernel."""
        title = html.escape(self.explorer_title or "")
        controls = []
        for control in self.controls.values():
            name = html.escape(str(control.description))
            if isinstance(control, widgets.widget_selection._Selection):
                labels = [str(label) for label in control._options_labels]
                shown = ", ".join(labels[:6]) + (", …" if len(labels) > 6 else "")
                controls.append(f"{name}: {html.escape(shown)}")
            elif hasattr(control, "min") and hasattr(control, "max"):
                controls.append(f"{name}: {control.min:g} to {control.max:g}")
            else:
                controls.append(name)
        return ('<div class="recourselab-explorer-note admonition note"><p class="admonition-title">'
                f"Live explorer{': ' + title if title else ''}</p>"
                f"<p>Controls: {'; '.join(controls)}.</p>"
                "<p>They need a running Python kernel: open this chapter in Binder (the rocket icon at the top "
                "of the page) or locally with <code>make lab</code>. Below, the same computation swept when the "
                "book was built has sliders that work on this page.</p></div>")

    def restore(self, values: Mapping[str, object]) -> None:
        """Set several controls at once and redraw once (not once per control)."""
        unknown = set(values) - set(self.controls)
        if unknown:
            raise ValueError(f"values names {sorted(unknown)}, which are not controls of this explorer "
                             f"({sorted(self.controls)}).")
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
                   min_png_bytes: int = 1000, require_change: bool = False) -> list[dict]:
    """Change each control of an explorer and check a real figure comes back each time.

    For each control in turn, sets a new value (from ``values``, else the next
    dropdown option or the next slider step, stepping down at the maximum), which
    runs the explorer's callback as a reader's change would; each control is
    moved from the explorer's opening setting (the others at their first
    values). A list of values for a control tries each in turn (e.g. the ends
    and middle of a slider's range). After each change the output area must hold no error and at least
    one PNG image of at least ``min_png_bytes`` bytes that is neither fully
    transparent nor a single colour. Each row records whether the output
    (images, tables, text) differs from the output before the change. At the
    end the controls are put back to their first values and the explorer
    redrawn once.

    Parameters
    ----------
    box : Explorer
        What :func:`explorer` returned.
    values : mapping of str to object or list, optional
        The new value, or a list of new values tried in order, for some
        controls (by keyword), e.g. a value whose result is cached, to keep the
        check fast, or values across a slider's whole range.
    min_png_bytes : int, default 1000
        Smallest accepted size of a PNG image, in bytes.
    require_change : bool, default False
        Also fail when a change leaves the output exactly as it was (a control
        that has no visible effect at that value).

    Returns
    -------
    list of dict
        One row per change: ``control``, ``value``, ``png_bytes`` (the largest
        image), ``images`` and ``changed`` (the output differs from the one
        before the change).

    Raises
    ------
    AssertionError
        When a change produced no redraw, an error, no image, or only blank
        images (or, with ``require_change``, an unchanged output); the message
        names the control and the value.
    """
    if not isinstance(box, Explorer):
        raise TypeError(f"box is a {type(box).__name__}; pass what recourselab.viz.explorer returned.")
    if values is not None and not isinstance(values, Mapping):
        raise TypeError(f"values is a {type(values).__name__}; give {{control: value or list of values}}.")
    values = dict(values or {})
    unknown = set(values) - set(box.controls)
    if unknown:
        raise ValueError(f"values names {sorted(unknown)}, which are not controls of this explorer "
                         f"({sorted(box.controls)}).")
    min_png_bytes = check_int(min_png_bytes, "min_png_bytes", minimum=0)
    require_change = check_bool(require_change, "require_change")
    first = box.values()
    rows = []
    try:
        for position, (name, control) in enumerate(box.controls.items()):
            if position:  # each control is moved from the explorer's opening setting, not from the last one's
                box.restore(first)
            tries = values[name] if name in values else _another_value(name, control)
            for new in (list(tries) if isinstance(tries, (list, tuple)) else [tries]):
                rows.append(_check_change(box, name, control, new, min_png_bytes, require_change))
    finally:
        box.restore(first)
    return rows


def _outputs_digest(outputs) -> str:
    """A digest of what an output area shows (images, tables, text), ignoring reprs of figure objects."""
    digest = hashlib.sha256()
    for output in outputs:
        digest.update(output.get("output_type", "").encode())
        digest.update(str(output.get("text", "")).encode())
        data = output.get("data", {})
        for mime in sorted(data):
            if mime == "text/plain" and "image/png" in data:
                continue
            digest.update(mime.encode() + str(data[mime]).encode())
    return digest.hexdigest()


def _check_change(box, name, control, new, min_png_bytes, require_change):
    before = box.output.outputs
    if control.value == new:  # setting the same value would not redraw: step away and back first
        control.value = _another_value(name, control)
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
    changed = _outputs_digest(outputs) != _outputs_digest(before)
    if require_change and not changed:
        raise AssertionError(f"setting {name}={new!r} left the explorer's output exactly as it was (the control "
                             "has no visible effect there); choose a range where every value changes something.")
    return {"control": name, "value": new, "png_bytes": max(sizes), "images": len(sizes), "changed": changed}


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

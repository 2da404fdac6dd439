"""One way to build every chapter's explorer, and its kernel-free twin for the rendered book.

The explorers (:func:`explorer`) only work with a running kernel (Binder,
JupyterLab). On the book's static pages an explorer shows a short note instead
of dead controls, and the chapter follows it with its **twin**: the explorer's
own computation run at build time over a grid of control values
(:func:`sweep`), shown as an interactive Vega-Lite chart with its own sliders
that filter the precomputed table in the reader's browser
(:func:`twin_chart`), next to a static figure for readers without JavaScript.
Chapters check their explorer in a hidden cell with :func:`check_explorer`
(and its twin with ``Twin.changes()``), so the book build fails the day a
control change stops producing a figure, or stops changing it.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import itertools
import json
import numbers
import traceback
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import ipywidgets as widgets
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

__all__ = ["explorer", "slider", "dropdown", "check_explorer", "Explorer", "sweep", "twin_chart", "Twin"]


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
    box.explorer_title = title
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


# ----------------------------------------------------------------------------------------------------------------
# Kernel-free twins: the explorer's computation swept at build time, filtered by sliders in the reader's browser.

_MARKS = ("bar", "line", "point")
_TWIN_CLASS = "recourselab-twin"
# the controls under the chart (vega-embed puts them beside it), in the page's text size
_TWIN_STYLE = ("<style>.recourselab-twin .vega-embed{flex-direction:column;align-items:flex-start}"
               ".recourselab-twin .vega-bindings{font-size:0.85rem;margin:0.3rem 0 0 0.5rem}"
               ".recourselab-twin .vega-bind{margin-bottom:0.15rem}"
               ".recourselab-twin .vega-bind-name{display:inline-block;min-width:16rem}"
               ".recourselab-twin .vega-bind input[type=range]{vertical-align:middle;width:14rem}"
               ".recourselab-twin-caption{font-size:0.8rem;color:#555;margin-top:0.2rem}</style>")


def sweep(compute: Callable[..., object], grid: Mapping[str, Sequence], *, fixed: Mapping[str, object] | None = None,
          ) -> pd.DataFrame:
    """Run an explorer's computation over a grid of control values and stack the results.

    The twin of an explorer must show what the explorer shows, so it reuses the
    explorer's own computation: write the explorer's update as a ``compute``
    function that returns the numbers (a table) and a thin function that draws
    them, and pass ``compute`` here.

    Parameters
    ----------
    compute : callable
        Called as ``compute(**setting, **fixed)`` for every combination of the
        grid's values; returns a DataFrame (tidy rows), a mapping (one row) or a
        list of mappings.
    grid : mapping of str to sequence
        Control keyword -> the values to sweep (at least one each). The number
        of calls is the product of the lengths.
    fixed : mapping of str to object, optional
        Keywords passed unchanged to every call (not added as columns).

    Returns
    -------
    pandas.DataFrame
        The rows of every call, with one column per grid keyword (first) giving
        the setting that produced them.

    Raises
    ------
    TypeError
        If ``compute`` is not callable or returns something other than a table.
    ValueError
        If the grid is empty, a keyword has no values, or a grid keyword is
        also in ``fixed`` or in a returned table.

    Examples
    --------
    >>> sweep(lambda k, d: {"covered": min(k * d, 10)}, {"k": [1, 2], "d": [1.0, 4.0]})
       k    d  covered
    0  1  1.0      1.0
    1  1  4.0      4.0
    2  2  1.0      2.0
    3  2  4.0      8.0
    """
    if not callable(compute):
        raise TypeError(f"compute is a {type(compute).__name__}, not a callable; pass the explorer's computation.")
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError("grid is empty (or not a mapping); give {control keyword: [values to sweep]}.")
    fixed = dict(fixed or {})
    values = {}
    for name, options in grid.items():
        options = list(options) if not isinstance(options, (str, bytes)) else [options]
        if not options:
            raise ValueError(f"grid[{name!r}] has no values; give at least one value to sweep.")
        if name in fixed:
            raise ValueError(f"{name!r} is both swept (grid) and fixed; give it in one of them.")
        values[name] = options
    frames = []
    for setting in itertools.product(*values.values()):
        keywords = dict(zip(values, setting, strict=True))
        result = compute(**keywords, **fixed)
        if isinstance(result, Mapping):
            result = pd.DataFrame([result])
        elif isinstance(result, list):
            result = pd.DataFrame(result)
        if not isinstance(result, pd.DataFrame):
            raise TypeError(f"compute returned a {type(result).__name__} for {keywords}; return a DataFrame, a "
                            "mapping (one row) or a list of mappings.")
        clash = set(result.columns) & set(values)
        if clash:
            raise ValueError(f"compute's table has columns {sorted(clash)}, which are also grid keywords; rename "
                             "them (the sweep adds one column per keyword).")
        result = result.reset_index(drop=True)
        for position, (name, value) in enumerate(keywords.items()):
            result.insert(position, name, [value] * len(result))
        frames.append(result)
    return pd.concat(frames, ignore_index=True)


@dataclass(frozen=True)
class Twin:
    """A kernel-free twin of an explorer: a Vega-Lite chart with sliders over a precomputed table.

    Made by :func:`twin_chart`. Displayed in a notebook or on a book page, it is
    an HTML block that loads Vega, Vega-Lite and vega-embed from the jsDelivr
    CDN and draws the chart in the browser; the sliders filter the table
    embedded in the page, so nothing needs a kernel.

    Attributes
    ----------
    chart : altair.Chart
        The chart (``chart.to_dict()`` is the Vega-Lite specification).
    frame : pandas.DataFrame
        The precomputed table, with the caller's column names.
    sliders : tuple of str
        The columns the sliders select on, in order.
    """

    chart: object
    frame: pd.DataFrame
    sliders: tuple

    def to_frame(self) -> pd.DataFrame:
        """The precomputed table (a copy)."""
        return self.frame.copy()

    def embedded_frame(self) -> pd.DataFrame:
        """The table as embedded in the page (inline CSV in the spec, with the chart's field names), parsed back."""
        values = self.spec["data"]["values"]
        return pd.read_csv(io.StringIO(values), keep_default_na=False, na_values=[""])

    @property
    def spec(self) -> dict:
        """The Vega-Lite specification (a dict), data included."""
        return self.chart.to_dict()

    def to_html(self) -> str:
        """The HTML block the book page embeds: chart, its loader, and a note for readers without JavaScript."""
        import altair as alt
        from altair.utils.html import spec_to_html

        spec = self.spec
        digest = hashlib.sha1(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
        chart = spec_to_html(spec, mode="vega-lite", vega_version=alt.VEGA_VERSION,
                             vegaembed_version=alt.VEGAEMBED_VERSION, vegalite_version=alt.VEGALITE_VERSION,
                             template="universal", output_div=f"twin-{digest}",
                             embed_options={"actions": False, "renderer": "svg"})
        settings = int(np.prod([self.frame[c].nunique() for c in self.sliders]))
        return (f'<div class="{_TWIN_CLASS}">{_TWIN_STYLE}{chart}'
                '<noscript><p><em>This interactive chart needs JavaScript; the static figure next to it shows the '
                'same sweep.</em></p></noscript>'
                f'<p class="recourselab-twin-caption">Precomputed when the book was built '
                f'({len(self.frame):,} rows, {settings:,} slider settings); the sliders filter it in your browser, '
                'no kernel needed.</p></div>')

    @property
    def nbytes(self) -> int:
        """Size of :meth:`to_html` in bytes (what the twin adds to its page)."""
        return len(self.to_html().encode())

    def _repr_mimebundle_(self, **kwargs):
        return {"text/html": self.to_html(),
                "text/plain": f"Twin: {len(self.frame)} rows, sliders {', '.join(self.sliders)}"}

    def view(self, **setting) -> pd.DataFrame:
        """The rows the chart shows at one slider setting (a row with a missing slider value shows at every one)."""
        unknown = set(setting) - set(self.sliders)
        if unknown:
            raise ValueError(f"view() got {sorted(unknown)}, which are not sliders of this twin "
                             f"({list(self.sliders)}).")
        keep = np.ones(len(self.frame), dtype=bool)
        for name, value in setting.items():
            column = self.frame[name]
            if pd.api.types.is_numeric_dtype(column):
                same = np.isclose(column.to_numpy(dtype=float), float(value), rtol=1e-9, atol=1e-12)
            else:
                same = (column == value).to_numpy()
            keep &= same | column.isna().to_numpy()
        return self.frame[keep]

    def changes(self) -> pd.DataFrame:
        """For each slider, how many of its steps change what the chart shows (the other sliders at their defaults).

        Returns
        -------
        pandas.DataFrame
            One row per slider: ``values`` (how many), ``steps`` (adjacent
            pairs), ``changed`` (steps whose shown rows differ) and
            ``ends_differ`` (the first and last value show different rows).
        """
        defaults = self.defaults
        rows = []
        for name in self.sliders:
            values = _slider_values(self.frame[name])
            shown = []
            for value in values:
                setting = {**defaults, name: value}
                view = self.view(**setting).drop(columns=list(self.sliders))
                shown.append(view.round(9).to_csv(index=False))
            changed = sum(a != b for a, b in zip(shown[:-1], shown[1:], strict=True))
            rows.append({"slider": name, "values": len(values), "steps": len(values) - 1, "changed": changed,
                         "ends_differ": shown[0] != shown[-1]})
        return pd.DataFrame(rows).set_index("slider")

    @property
    def defaults(self) -> dict:
        """The slider values the chart opens with."""
        out = {}
        for param in self.spec.get("params", []):
            if param.get("name", "").startswith("twin_") and "bind" in param:
                out[self.sliders[int(param["name"].split("_")[1])]] = param["value"]
        return out


def _slider_values(column: pd.Series) -> list:
    values = pd.unique(column.dropna())
    if pd.api.types.is_numeric_dtype(column):
        return sorted(_plain(v) for v in values)
    return [_plain(v) for v in values]


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


def _evenly_spaced(values: list) -> float | None:
    """The step if the sorted numeric values are evenly spaced, else None."""
    if len(values) < 2:
        return None
    steps = np.diff(np.asarray(values, dtype=float))
    step = float(steps[0])
    if step > 0 and np.allclose(steps, step, rtol=1e-6, atol=1e-12):
        return step
    return None


def _safe_name(column: str, taken: set) -> str:
    base = "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else "_" for ch in str(column)).strip("_")
    base = base or "column"
    if base[0].isdigit():
        base = "c_" + base
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def _inline_csv(frame: pd.DataFrame):
    """The table as inline CSV for Vega-Lite (a third of the size of JSON rows), numbers to 6 significant digits,
    missing values as empty fields (parsed as null, which the slider filters let through)."""
    import altair as alt

    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool]
    text = frame.astype({c: str for c in frame.columns if c not in numeric})
    csv = text.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    return alt.Data(values=csv, format=alt.DataFormat(type="csv", parse={c: "number" for c in numeric}))


def twin_chart(frame: pd.DataFrame, *, x: str, y: str, sliders: Mapping[str, str], title: str, x_title: str,
               y_title: str, color: str | None = None, color_title: str | None = None, mark: str = "bar",
               defaults: Mapping[str, object] | None = None, tooltip: Sequence[str] = (), stack: bool = True,
               x_domain: Sequence[float] | None = None, y_domain: Sequence[float] | None = None,
               x_scale: str = "linear", colors: Mapping[str, str] | None = None, width: int = 480,
               height: int | None = None, max_rows: int = 20_000) -> Twin:
    """A kernel-free interactive twin of an explorer: sliders that filter a precomputed table.

    Each column named in ``sliders`` becomes a Vega-Lite parameter bound to an
    HTML control: a range slider when its values are numbers evenly spaced
    (``alt.binding_range`` with that step), otherwise a dropdown
    (``alt.binding_select``). The chart shows the rows whose slider columns
    equal every parameter's value; a row whose value in a slider column is
    missing (NaN) shows at every value of that slider, so a quantity that
    depends on one control only (a reference line, a curve another control
    does not touch) is stored once instead of once per combination. The axes
    keep one domain over the whole table, so moving a slider moves the marks,
    not the axes.

    Parameters
    ----------
    frame : pandas.DataFrame
        The precomputed sweep, one row per mark (e.g. from :func:`sweep`).
    x, y : str
        Columns for the axes. A numeric column is drawn as a quantity, any
        other as categories (in order of first appearance). ``x`` and ``y``
        values must be finite where they are numeric.
    sliders : mapping of str to str
        Column -> the slider's label (say the unit). Each needs at least two
        distinct values; numeric ones must be finite (NaN means "at every value").
    title, x_title, y_title : str
        Chart title and axis titles (with units); none may be empty.
    color : str, optional
        Column for colour (and legend), e.g. the group or the method.
    color_title : str, optional
        Legend title (default: the column name).
    mark : {"bar", "line", "point"}, default "bar"
        ``bar`` with one categorical axis gives bars along the other; ``line``
        draws lines with points, one per colour.
    defaults : mapping of str to object, optional
        The value each slider opens with (default: the first value of a
        dropdown, the smallest of a range); use the explorer's defaults.
    tooltip : sequence of str, default ()
        Further columns to show on hover (``x``, ``y``, ``color`` and the
        sliders always are).
    stack : bool, default True
        With ``mark="bar"`` and a colour: stack the bars (True) or put them side
        by side (False).
    x_domain, y_domain : pair of float, optional
        Fixed numeric domains (default: from the whole table, including 0 for
        bars).
    x_scale : {"linear", "log"}, default "linear"
        Scale of a numeric x axis.
    colors : mapping of str to str, optional
        Colour for each value of ``color`` (e.g. the book's group colours).
    width, height : int
        Plot size in pixels (height default: 28 per category for bars, else 260).
    max_rows : int, default 20000
        Largest accepted table (the table is embedded in the page).

    Returns
    -------
    Twin
        Display it (last expression of a cell); ``spec``, ``to_frame()``,
        ``view(...)``, ``changes()`` and ``nbytes`` help check it.

    Raises
    ------
    TypeError
        If ``frame`` is not a DataFrame, or a label is not a string.
    ValueError
        If a column is missing, a numeric axis value is NaN or infinite, a
        slider has fewer than two values or an infinite one, a default is not
        among a slider's values, the mark or scale is unknown, or the table is
        larger than ``max_rows``.

    Examples
    --------
    >>> table = sweep(lambda k: pd.DataFrame({"group": ["a", "b"], "covered": [k, 2 * k]}), {"k": [1, 2, 3]})
    >>> twin = twin_chart(table, x="covered", y="group", sliders={"k": "k (counterfactuals)"},
    ...                   title="Coverage", x_title="people covered", y_title="group")
    >>> twin.spec["params"][0]["bind"]["input"]
    'range'
    """
    import altair as alt

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame is a {type(frame).__name__}; pass a pandas DataFrame (e.g. from sweep()).")
    if frame.empty:
        raise ValueError("frame is empty; sweep at least one setting.")
    if len(frame) > max_rows:
        raise ValueError(f"frame has {len(frame):,} rows, more than max_rows={max_rows:,}; the table is embedded in "
                         "the page, so sweep a coarser grid (or raise max_rows knowingly).")
    for label, text in (("title", title), ("x_title", x_title), ("y_title", y_title)):
        if not isinstance(text, str) or not text.strip():
            raise TypeError(f"{label}={text!r} must be a non-empty string (say what is shown, with its unit).")
    if mark not in _MARKS:
        raise ValueError(f"mark={mark!r} is not one of {_MARKS}.")
    if x_scale not in ("linear", "log"):
        raise ValueError(f"x_scale={x_scale!r} must be 'linear' or 'log'.")
    if not isinstance(sliders, Mapping) or not sliders:
        raise ValueError("sliders is empty (or not a mapping); give {column: label} for at least one slider.")
    defaults = dict(defaults or {})
    columns = [x, y] + ([color] if color is not None else []) + list(sliders) + list(tooltip)
    missing = [c for c in dict.fromkeys(columns) if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in frame (it has {list(frame.columns)}).")
    unknown = set(defaults) - set(sliders)
    if unknown:
        raise ValueError(f"defaults names {sorted(unknown)}, which are not sliders ({list(sliders)}).")
    for axis in (x, y):
        if axis in sliders:
            raise ValueError(f"{axis!r} is both an axis and a slider; a slider selects rows, an axis places them.")
        column = frame[axis]
        if pd.api.types.is_numeric_dtype(column) and not np.isfinite(column.to_numpy(dtype=float)).all():
            bad = frame.index[~np.isfinite(column.to_numpy(dtype=float))][0]
            raise ValueError(f"column {axis!r} has NaN or infinite values (first at index {bad!r}); cap or drop "
                             "them and say so in the chart's title or tooltip.")
        if not pd.api.types.is_numeric_dtype(column) and column.isna().any():
            raise ValueError(f"column {axis!r} has missing categories; give every row a label.")

    taken: set = set()
    names = {c: _safe_name(c, taken) for c in dict.fromkeys(columns)}
    data = frame[list(dict.fromkeys(columns))].rename(columns=names)

    params, filters = [], []
    for index, (column, label) in enumerate(sliders.items()):
        if not isinstance(label, str) or not label.strip():
            raise TypeError(f"sliders[{column!r}]={label!r} must be a non-empty label (say the unit).")
        series = frame[column]
        values = _slider_values(series)
        numeric = pd.api.types.is_numeric_dtype(series)
        if numeric and not np.isfinite(np.asarray(values, dtype=float)).all():
            raise ValueError(f"slider column {column!r} has infinite values; a slider needs finite settings.")
        if len(values) < 2:
            raise ValueError(f"slider column {column!r} has {len(values)} distinct value(s); a slider needs at least "
                             "two (fix the column, or drop the slider).")
        default = defaults.get(column, values[0])
        if numeric:
            if not isinstance(default, numbers.Real) or not np.isclose(values, float(default), rtol=1e-9).any():
                raise ValueError(f"defaults[{column!r}]={default!r} is not among the slider's values "
                                 f"({values[0]!r} to {values[-1]!r}).")
            default = values[int(np.argmin(np.abs(np.asarray(values, dtype=float) - float(default))))]
        elif default not in values:
            raise ValueError(f"defaults[{column!r}]={default!r} is not among the slider's values {values}.")
        step = _evenly_spaced(values) if numeric else None
        if step is not None:
            binding = alt.binding_range(min=values[0], max=values[-1], step=step, name=f"{label} ")
        else:
            binding = alt.binding_select(options=values, labels=[f"{v:g}" if isinstance(v, float) else str(v)
                                                                 for v in values], name=f"{label} ")
        param = alt.param(name=f"twin_{index}", value=default, bind=binding)
        params.append(param)
        field = f"datum[{json.dumps(names[column])}]"
        if numeric:
            same = f"abs({field} - twin_{index}) <= 1e-9 * max(1, abs(twin_{index}))"
        else:
            same = f"{field} == twin_{index}"
        filters.append(f"(!isValid({field}) || {same})")

    def encode_axis(column, axis_title, domain, axis):
        numeric = pd.api.types.is_numeric_dtype(frame[column])
        if not numeric:
            order = [str(v) for v in pd.unique(frame[column])]
            return getattr(alt, axis)(f"{names[column]}:N", title=axis_title, sort=order,
                                      scale=alt.Scale(domain=order))
        values = frame[column].to_numpy(dtype=float)
        if domain is None:
            low, high = float(values.min()), float(values.max())
            if mark == "bar":
                low, high = min(low, 0.0), max(high, 0.0)
            pad = 0.0 if mark == "bar" else 0.02 * (high - low)
            domain = [low - pad, high + pad] if high > low else [low - 1, high + 1]
            if axis == "X" and x_scale == "log":
                domain = [float(values[values > 0].min()), float(values.max())]
        scale = alt.Scale(domain=list(domain), type=x_scale if axis == "X" else "linear", nice=False)
        return getattr(alt, axis)(f"{names[column]}:Q", title=axis_title, scale=scale)

    encoding = {"x": encode_axis(x, x_title, x_domain, "X"), "y": encode_axis(y, y_title, y_domain, "Y")}
    categorical_y = not pd.api.types.is_numeric_dtype(frame[y])
    if color is not None:
        levels = [str(v) for v in pd.unique(frame[color].dropna())]
        scale = alt.Scale(domain=levels, range=[colors[level] for level in levels]) if colors else \
            alt.Scale(domain=levels)
        encoding["color"] = alt.Color(f"{names[color]}:N", title=color_title or color, scale=scale,
                                      sort=levels, legend=alt.Legend(orient="bottom", columns=2))
        if mark == "bar" and not stack:
            encoding["yOffset" if categorical_y else "xOffset"] = alt.YOffset(f"{names[color]}:N", sort=levels) \
                if categorical_y else alt.XOffset(f"{names[color]}:N", sort=levels)
    tips = []
    for column in dict.fromkeys([y, x] + ([color] if color else []) + list(sliders) + list(tooltip)):
        kind = "Q" if pd.api.types.is_numeric_dtype(frame[column]) else "N"
        shown = {x: x_title, y: y_title}.get(column) or sliders.get(column, "").strip() or \
            (color_title if column == color and color_title else str(column))
        tips.append(alt.Tooltip(f"{names[column]}:{kind}", title=shown, format=".4~g") if kind == "Q" else
                    alt.Tooltip(f"{names[column]}:{kind}", title=shown))
    encoding["tooltip"] = tips

    base = alt.Chart(_inline_csv(data))
    if mark == "bar":
        marked = base.mark_bar()
    elif mark == "line":
        marked = base.mark_line(point=True)
    else:
        marked = base.mark_point(filled=True, size=60)
    if height is None:
        height = 28 * frame[y].nunique() if (categorical_y and mark == "bar") else 260
        if categorical_y and mark == "bar" and color is not None and not stack:
            height = 18 * frame[y].nunique() * frame[color].nunique()
    chart = (marked.encode(**encoding).add_params(*params).transform_filter(" && ".join(filters))
             .properties(title=title, width=width, height=max(int(height), 80))
             .configure_title(fontSize=14).configure_axis(labelFontSize=11, titleFontSize=12)
             .configure_legend(labelFontSize=11, titleFontSize=12))
    return Twin(chart=chart, frame=frame.reset_index(drop=True).copy(), sliders=tuple(sliders))

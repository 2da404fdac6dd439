"""Kernel-free twins of the explorers: the explorer's computation swept at build time, filtered in the browser.

On the book's static pages an explorer (:mod:`recourselab.viz.explorers`) has no
kernel, so the chapter follows it with its **twin**: the explorer's own
computation run at build time over a grid of control values (:func:`sweep`),
shown as an interactive Vega-Lite chart with its own sliders that filter the
precomputed table in the reader's browser (:func:`twin_chart`), next to a
static figure for readers without JavaScript. Chapters check a twin in a
hidden cell with ``Twin.changes()``.
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import numbers
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from .._validation import check_array, check_bool, check_int, check_number, plain

__all__ = ["sweep", "twin_chart", "Twin"]

# ----------------------------------------------------------------------------------------------------------------
# Kernel-free twins: the explorer's computation swept at build time, filtered by sliders in the reader's browser.

_MARKS = ("bar", "line", "point")
_TWIN_CLASS = "recourselab-twin"
# the controls under the chart (vega-embed puts them beside it), in the page's text size; the chart as wide as the
# page's column (Vega-Lite's width "container"), and on a phone (< 600 px) each label above its slider
_TWIN_STYLE = ("<style>.recourselab-twin .vega-embed{display:flex;flex-direction:column;align-items:stretch;width:100%}"
               ".recourselab-twin .vega-embed>svg,.recourselab-twin .vega-embed>canvas{max-width:100%}"
               ".recourselab-twin .vega-bindings{font-size:0.85rem;margin:0.3rem 0 0 0.5rem}"
               ".recourselab-twin .vega-bind{margin-bottom:0.15rem}"
               ".recourselab-twin .vega-bind-name{display:inline-block;min-width:16rem}"
               ".recourselab-twin .vega-bind input[type=range]{vertical-align:middle;width:14rem;max-width:60vw}"
               "@media (max-width:600px){.recourselab-twin .vega-bind-name{display:block;min-width:0}}"
               ".recourselab-twin-caption,.recourselab-twin-offline{font-size:0.8rem;color:#555;margin-top:0.2rem}"
               "</style>")
# what a twin shows when Vega cannot be loaded (offline, or the CDN blocked): one line, not an error
_OFFLINE_NOTE = ("The interactive chart needs Vega from the jsDelivr CDN, which could not be loaded (offline?); "
                 "run the page in Binder or JupyterLab to move the explorer's controls.")
# the twin's loader: Vega, Vega-Lite and vega-embed from the CDN (once per page, shared by its twins), then the
# chart; a script that fails to load shows the offline note, a chart that fails to draw says so in one line
_LOADER = """<div id="%(id)s" class="recourselab-twin-chart"></div>
<script type="text/javascript">
(function (spec, options) {
  const target = document.getElementById("%(id)s");
  const urls = %(urls)s;
  const note = (cls, text) => {
    target.innerHTML = '<p class="' + cls + '"></p>'; target.firstChild.textContent = text; };
  const offline = () => {  // one line instead of the chart, and no caption about sliders that are not there
    note("recourselab-twin-offline", %(note)s);
    const caption = target.parentElement.querySelector(".recourselab-twin-caption");
    if (caption) caption.remove();
  };
  const draw = (embed) => embed(target, spec, options).catch(err => {
    console.error(err); note("recourselab-twin-error", "The chart could not be drawn: " + err.message); });
  if (typeof define === "function" && define.amd) {
    requirejs.config({paths: {"vega": urls[0] + "?noext", "vega-lite": urls[1] + "?noext",
                              "vega-embed": urls[2] + "?noext"}});
    require(["vega-embed"], draw, offline);
    return;
  }
  const load = (url) => new Promise((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url; script.async = true; script.onload = resolve;
    script.onerror = () => reject(new Error("could not load " + url));
    document.head.appendChild(script);
  });
  window.recourselabVega = window.recourselabVega || (typeof vegaEmbed === "function" ? Promise.resolve() :
    urls.reduce((done, url) => done.then(() => load(url)), Promise.resolve()));
  window.recourselabVega.then(() => draw(vegaEmbed), offline);
})(%(spec)s, %(options)s);
</script>"""


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
        list of mappings. A DataFrame's index is kept as columns (as pandas'
        ``reset_index`` names them: a named level keeps its name, an unnamed
        one becomes ``index``), unless it is the default ``0 .. n-1``, so
        labels held in the index (e.g. the groups of a ``groupby``) reach the twin.
    grid : mapping of str to sequence
        Control keyword -> the values to sweep (at least one each). The number
        of calls is the product of the lengths.
    fixed : mapping of str to object, optional
        Keywords passed unchanged to every call (not added as columns).

    Returns
    -------
    pandas.DataFrame
        The rows of every call, with one column per grid keyword (first) giving
        the setting that produced them, and a fresh index ``0 .. N-1``.

    Raises
    ------
    TypeError
        If ``compute`` is not callable or returns something other than a table.
    ValueError
        If the grid is empty, a keyword has no values, or a grid keyword is
        also in ``fixed`` or in a returned table (its columns or its index).

    Examples
    --------
    >>> sweep(lambda k, d: {"covered": min(k * d, 10)}, {"k": [1, 2], "d": [1.0, 4.0]})
       k    d  covered
    0  1  1.0      1.0
    1  1  4.0      4.0
    2  2  1.0      2.0
    3  2  4.0      8.0
    >>> by_group = lambda k: pd.DataFrame({"covered": [k, 2 * k]}, index=pd.Index(["f", "m"], name="group"))
    >>> sweep(by_group, {"k": [1]})
       k group  covered
    0  1     f        1
    1  1     m        2
    """
    if not callable(compute):
        raise TypeError(f"compute is a {type(compute).__name__}, not a callable; pass the explorer's computation.")
    values = _check_grid(grid, fixed)
    fixed = dict(fixed or {})
    frames = []
    for setting in itertools.product(*values.values()):
        keywords = dict(zip(values, setting, strict=True))
        result = _as_table(compute(**keywords, **fixed), keywords)
        for position, (name, value) in enumerate(keywords.items()):
            result.insert(position, name, [value] * len(result))
        frames.append(result)
    return pd.concat(frames, ignore_index=True)


def _check_grid(grid, fixed) -> dict:
    """The grid as {keyword: list of values}, none empty, none also fixed."""
    if not isinstance(grid, Mapping) or not grid:
        raise ValueError("grid is empty (or not a mapping); give {control keyword: [values to sweep]}.")
    if fixed is not None and not isinstance(fixed, Mapping):
        raise TypeError(f"fixed is a {type(fixed).__name__}; give {{keyword: value}} passed to every call.")
    values = {}
    for name, options in grid.items():
        options = list(options) if not isinstance(options, (str, bytes)) else [options]
        if not options:
            raise ValueError(f"grid[{name!r}] has no values; give at least one value to sweep.")
        if fixed and name in fixed:
            raise ValueError(f"{name!r} is both swept (grid) and fixed; give it in one of them.")
        values[name] = options
    return values


def _as_table(result, keywords: dict) -> pd.DataFrame:
    """What ``compute`` returned as a frame with a default index (a non-default index kept as columns)."""
    if isinstance(result, Mapping):
        result = pd.DataFrame([result])
    elif isinstance(result, list):
        result = pd.DataFrame(result)
    if not isinstance(result, pd.DataFrame):
        raise TypeError(f"compute returned a {type(result).__name__} for {keywords}; return a DataFrame, a "
                        "mapping (one row) or a list of mappings.")
    index = result.index
    if not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1 and index.name is None):
        names = [name if name is not None else ("index" if index.nlevels == 1 else f"level_{i}")
                 for i, name in enumerate(index.names)]
        taken = [name for name in names if name in result.columns]
        if taken:
            raise ValueError(f"compute's table has index level(s) {taken} that are also columns; rename one (the "
                             "sweep keeps the index as columns).")
        result = result.reset_index()
    clash = set(result.columns) & set(keywords)
    if clash:
        raise ValueError(f"compute's table has columns {sorted(clash)}, which are also grid keywords; rename "
                         "them (the sweep adds one column per keyword).")
    return result


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
    fields : mapping of str to str, optional
        Column -> its field name in the table embedded in the page.
    """

    chart: object
    frame: pd.DataFrame
    sliders: tuple
    fields: Mapping | None = None  # column -> its field name in the embedded table (twin_chart sets it)

    def to_frame(self) -> pd.DataFrame:
        """The precomputed table (a copy)."""
        return self.frame.copy()

    def embedded_frame(self) -> pd.DataFrame:
        """The table as embedded in the page (inline CSV in the spec, with the chart's field names), parsed back
        as the browser parses it: each column with its declared type, an empty field as missing."""
        data = self.spec["data"]
        text = [name for name, kind in data.get("format", {}).get("parse", {}).items() if kind == "string"]
        return pd.read_csv(io.StringIO(data["values"]), keep_default_na=False, na_values=[""],
                           dtype={name: str for name in text})

    @property
    def spec(self) -> dict:
        """The Vega-Lite specification (a dict), data included."""
        return self.chart.to_dict()

    def to_html(self) -> str:
        """The HTML block the book page embeds: chart, its loader, and a note for readers without JavaScript."""
        import altair as alt

        spec = self.spec
        digest = hashlib.sha1(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:12]
        urls = [f"https://cdn.jsdelivr.net/npm/vega@{alt.VEGA_VERSION.split('.')[0]}",
                f"https://cdn.jsdelivr.net/npm/vega-lite@{alt.VEGALITE_VERSION}",
                f"https://cdn.jsdelivr.net/npm/vega-embed@{alt.VEGAEMBED_VERSION.split('.')[0]}"]
        options = {"actions": False, "renderer": "svg", "mode": "vega-lite"}
        chart = _LOADER % {"id": f"twin-{digest}", "urls": json.dumps(urls), "note": json.dumps(_OFFLINE_NOTE),
                           "spec": json.dumps(spec).replace("</", "<\\/"), "options": json.dumps(options)}
        settings = int(np.prod([self.frame[c].nunique() for c in self.sliders]))
        return (f'<div class="{_TWIN_CLASS}">{_TWIN_STYLE}{chart}'
                '<noscript><p><em>This interactive chart needs JavaScript; run the page in Binder or JupyterLab '
                "to move the explorer's controls.</em></p></noscript>"
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
                value = check_number(value, name)
                same = np.isclose(column.to_numpy(dtype=float), value, rtol=1e-9, atol=1e-12)
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

    def legend_rows(self, **setting) -> pd.Series:
        """How many rows of each series the legend names the browser draws at one slider setting.

        Read from the table as embedded in the page (:meth:`Twin.embedded_frame`: what the browser parses,
        not :attr:`frame`) and filtered as the chart's filter does, at ``setting`` (default: the
        opening one). A series with 0 rows is named by the legend and never drawn.

        Returns
        -------
        pandas.Series
            Series label -> rows drawn, in the legend's order (empty without a colour).
        """
        colour = self.spec.get("encoding", {}).get("color")
        if not colour or not self.fields:
            return pd.Series(dtype=int)
        setting = {**self.defaults, **setting}
        unknown = set(setting) - set(self.sliders)
        if unknown:
            raise ValueError(f"legend_rows() got {sorted(unknown)}, which are not sliders of this twin "
                             f"({list(self.sliders)}).")
        data = self.embedded_frame()
        keep = np.ones(len(data), dtype=bool)
        for name, value in setting.items():
            column = data[self.fields[name]]
            if pd.api.types.is_numeric_dtype(column):
                same = np.abs(column.to_numpy(dtype=float) - float(value)) <= 1e-9 * max(1.0, abs(float(value)))
            else:
                same = (column == value).to_numpy()
            keep &= same | column.isna().to_numpy()
        shown = data.loc[keep, colour["field"]].astype(str)
        levels = colour.get("scale", {}).get("domain") or colour.get("sort") or list(pd.unique(shown))
        return pd.Series([int((shown == str(level)).sum()) for level in levels], index=levels, dtype=int)

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
        return sorted(plain(v) for v in values)
    return [plain(v) for v in values]


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
    missing values as empty fields, which Vega parses as null (numbers and text alike: every column is parsed
    with a type) and the slider filters let through. A missing label written as the text "nan" would match no
    slider value, and its rows would never be drawn."""
    import altair as alt

    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c]) and frame[c].dtype != bool]
    text = frame.astype({c: object for c in frame.columns if c not in numeric})
    for column in text.columns:
        if column not in numeric:
            text[column] = [value if _missing(value) else str(value) for value in text[column]]
    csv = text.to_csv(index=False, float_format="%.6g", lineterminator="\n")
    parse = {c: "number" if c in numeric else "string" for c in frame.columns}
    return alt.Data(values=csv, format=alt.DataFormat(type="csv", parse=parse))


def _missing(value) -> bool:
    return value is None or (isinstance(value, (float, np.floating)) and np.isnan(value)) or value is pd.NA


def twin_chart(frame: pd.DataFrame, *, x: str, y: str, sliders: Mapping[str, str], title: str, x_title: str,
               y_title: str, color: str | None = None, color_title: str | None = None, mark: str = "bar",
               defaults: Mapping[str, object] | None = None, tooltip: Sequence[str] = (), stack: bool = True,
               x_domain: Sequence[float] | None = None, y_domain: Sequence[float] | None = None,
               x_scale: str = "linear", colors: Mapping[str, str] | None = None, width: int | str = "container",
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
    width : int or "container", default "container"
        Plot width in pixels, or ``"container"``: as wide as the page's column
        (a phone too), redrawn when the window is resized.
    height : int, optional
        Plot height in pixels (default: 28 per category for bars, else 260).
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
        among a slider's values, the mark or scale is unknown, the table is
        larger than ``max_rows``, or the legend names a series that the
        opening chart does not draw (:meth:`Twin.legend_rows`).

    Examples
    --------
    >>> table = sweep(lambda k: pd.DataFrame({"group": ["a", "b"], "covered": [k, 2 * k]}), {"k": [1, 2, 3]})
    >>> twin = twin_chart(table, x="covered", y="group", sliders={"k": "k (counterfactuals)"},
    ...                   title="Coverage", x_title="people covered", y_title="group")
    >>> twin.spec["params"][0]["bind"]["input"]
    'range'
    """
    import altair as alt

    columns = _check_twin_frame(frame, x, y, color, sliders, tooltip, max_rows)
    _check_twin_options(title, x_title, y_title, mark, x_scale, defaults, sliders, width, height)
    taken: set = set()
    names = {c: _safe_name(c, taken) for c in columns}
    steps = [_slider_param(index, column, label, frame[column], dict(defaults or {}), names[column])
             for index, (column, label) in enumerate(sliders.items())]
    encoding = {"x": _encode_axis(frame, x, x_title, x_domain, "X", names[x], mark, x_scale),
                "y": _encode_axis(frame, y, y_title, y_domain, "Y", names[y], mark, x_scale)}
    if color is not None:
        encoding.update(_encode_colour(frame, color, color_title, colors, names[color], mark, stack, y))
    encoding["tooltip"] = _tooltips(frame, [y, x] + ([color] if color else []) + list(sliders) + list(tooltip),
                                    names, {x: x_title, y: y_title}, sliders, color, color_title)
    base = alt.Chart(_inline_csv(frame[columns].rename(columns=names)))
    marked = {"bar": base.mark_bar, "line": lambda: base.mark_line(point=True),
              "point": lambda: base.mark_point(filled=True, size=60)}[mark]()
    chart = (marked.encode(**encoding).add_params(*(param for param, _ in steps))
             .transform_filter(" && ".join(same for _, same in steps))
             .properties(title=title, width=width, height=_height(frame, y, color, mark, stack, height))
             .configure_title(fontSize=14).configure_axis(labelFontSize=11, titleFontSize=12)
             .configure_legend(labelFontSize=11, titleFontSize=12))
    twin = Twin(chart=chart, frame=frame.copy(), sliders=tuple(sliders), fields={c: names[c] for c in sliders})
    drawn = twin.legend_rows()
    if (drawn == 0).any():
        raise ValueError(f"the legend names {drawn.index[drawn == 0].tolist()}, but the chart draws no row of them "
                         f"at its opening setting {twin.defaults}; give those rows a slider value the chart opens "
                         "with, or a missing one (shown at every value).")
    return twin


def _check_twin_frame(frame, x, y, color, sliders, tooltip, max_rows) -> list:
    """The table is a non-empty DataFrame within ``max_rows`` holding every column named; returns those columns."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame is a {type(frame).__name__}; pass a pandas DataFrame (e.g. from sweep()).")
    if frame.empty:
        raise ValueError("frame is empty; sweep at least one setting.")
    max_rows = check_int(max_rows, "max_rows", minimum=1)
    if len(frame) > max_rows:
        raise ValueError(f"frame has {len(frame):,} rows, more than max_rows={max_rows:,}; the table is embedded in "
                         "the page, so sweep a coarser grid (or raise max_rows knowingly).")
    if not isinstance(sliders, Mapping) or not sliders:
        raise ValueError("sliders is empty (or not a mapping); give {column: label} for at least one slider.")
    if isinstance(tooltip, (str, bytes)):
        raise TypeError(f"tooltip={tooltip!r} must be a list of column names, e.g. [{tooltip!r}].")
    columns = list(dict.fromkeys([x, y] + ([color] if color is not None else []) + list(sliders) + list(tooltip)))
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"columns {missing} are not in frame (it has {list(frame.columns)}).")
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
    return columns


def _check_twin_options(title, x_title, y_title, mark, x_scale, defaults, sliders, width, height) -> None:
    """Titles are non-empty text, mark and scale known, defaults name sliders, sizes are positive integers."""
    for label, text in (("title", title), ("x_title", x_title), ("y_title", y_title)):
        if not isinstance(text, str) or not text.strip():
            raise TypeError(f"{label}={text!r} must be a non-empty string (say what is shown, with its unit).")
    if mark not in _MARKS:
        raise ValueError(f"mark={mark!r} is not one of {_MARKS}.")
    if x_scale not in ("linear", "log"):
        raise ValueError(f"x_scale={x_scale!r} must be 'linear' or 'log'.")
    if defaults is not None and not isinstance(defaults, Mapping):
        raise TypeError(f"defaults is a {type(defaults).__name__}; give {{slider column: opening value}}.")
    unknown = set(defaults or {}) - set(sliders)
    if unknown:
        raise ValueError(f"defaults names {sorted(unknown)}, which are not sliders ({list(sliders)}).")
    if width != "container":
        check_int(width, "width", minimum=1)
    if height is not None:
        check_int(height, "height", minimum=1)


def _slider_param(index: int, column, label, series: pd.Series, defaults: dict, field_name: str):
    """The Vega-Lite parameter of one slider (a range or a dropdown, bound to its values) and its row filter."""
    import altair as alt

    if not isinstance(label, str) or not label.strip():
        raise TypeError(f"sliders[{column!r}]={label!r} must be a non-empty label (say the unit).")
    values = _slider_values(series)
    numeric = pd.api.types.is_numeric_dtype(series)
    if numeric and not np.isfinite(np.asarray(values, dtype=float)).all():
        raise ValueError(f"slider column {column!r} has infinite values; a slider needs finite settings.")
    if len(values) < 2:
        raise ValueError(f"slider column {column!r} has {len(values)} distinct value(s); a slider needs at least "
                         "two (fix the column, or drop the slider).")
    default = _slider_default(column, values, defaults.get(column, values[0]), numeric)
    step = _evenly_spaced(values) if numeric else None
    if step is not None:
        binding = alt.binding_range(min=values[0], max=values[-1], step=step, name=f"{label} ")
    else:
        binding = alt.binding_select(options=values, labels=[f"{v:g}" if isinstance(v, float) else str(v)
                                                             for v in values], name=f"{label} ")
    param = alt.param(name=f"twin_{index}", value=default, bind=binding)
    field = f"datum[{json.dumps(field_name)}]"
    same = f"abs({field} - twin_{index}) <= 1e-9 * max(1, abs(twin_{index}))" if numeric else f"{field} == twin_{index}"
    return param, f"(!isValid({field}) || {same})"


def _slider_default(column, values: list, default, numeric: bool):
    """The slider's opening value, one of its values (the nearest for numbers)."""
    if not numeric:
        if default not in values:
            raise ValueError(f"defaults[{column!r}]={default!r} is not among the slider's values {values}.")
        return default
    if not isinstance(default, numbers.Real) or not np.isclose(values, float(default), rtol=1e-9).any():
        raise ValueError(f"defaults[{column!r}]={default!r} is not among the slider's values "
                         f"({values[0]!r} to {values[-1]!r}).")
    return values[int(np.argmin(np.abs(np.asarray(values, dtype=float) - float(default))))]


def _encode_axis(frame, column, axis_title, domain, axis: str, field_name: str, mark: str, x_scale: str):
    """An axis: categories in order of first appearance, or a quantity on one domain for the whole table."""
    import altair as alt

    if not pd.api.types.is_numeric_dtype(frame[column]):
        order = [str(v) for v in pd.unique(frame[column])]
        return getattr(alt, axis)(f"{field_name}:N", title=axis_title, sort=order, scale=alt.Scale(domain=order))
    values = frame[column].to_numpy(dtype=float)
    if domain is None:
        low, high = float(values.min()), float(values.max())
        if mark == "bar":
            low, high = min(low, 0.0), max(high, 0.0)
        pad = 0.0 if mark == "bar" else 0.02 * (high - low)
        domain = [low - pad, high + pad] if high > low else [low - 1, high + 1]
        if axis == "X" and x_scale == "log":
            domain = [float(values[values > 0].min()), float(values.max())]
    else:
        ends = check_array(domain, f"{axis.lower()}_domain", length=2, length_of="ends (low, high)")
        if not ends[0] < ends[1]:
            raise ValueError(f"{axis.lower()}_domain={ends.tolist()} must be (low, high) with low < high.")
        domain = [plain(v) for v in domain]  # as given (the page shows 0, not 0.0)
    scale = alt.Scale(domain=list(domain), type=x_scale if axis == "X" else "linear", nice=False)
    return getattr(alt, axis)(f"{field_name}:Q", title=axis_title, scale=scale)


def _encode_colour(frame, color, color_title, colors, field_name: str, mark: str, stack: bool, y) -> dict:
    """The colour channel (levels in order of first appearance), and bars side by side when not stacked."""
    import altair as alt

    levels = [str(v) for v in pd.unique(frame[color].dropna())]
    if colors:
        missing = [level for level in levels if level not in colors]
        if missing:
            raise ValueError(f"colors has no colour for {missing}; give one per value of column {color!r}.")
    scale = alt.Scale(domain=levels, range=[colors[level] for level in levels]) if colors else alt.Scale(domain=levels)
    encoding = {"color": alt.Color(f"{field_name}:N", title=color_title or color, scale=scale, sort=levels,
                                   legend=alt.Legend(orient="bottom", columns=2))}
    if mark == "bar" and not check_bool(stack, "stack"):
        if pd.api.types.is_numeric_dtype(frame[y]):
            encoding["xOffset"] = alt.XOffset(f"{field_name}:N", sort=levels)
        else:
            encoding["yOffset"] = alt.YOffset(f"{field_name}:N", sort=levels)
    return encoding


def _tooltips(frame, shown_columns, names, axis_titles, sliders, color, color_title) -> list:
    """One tooltip line per column shown (axes, colour, sliders, extra columns), titled as on the chart."""
    import altair as alt

    tips = []
    for column in dict.fromkeys(shown_columns):
        kind = "Q" if pd.api.types.is_numeric_dtype(frame[column]) else "N"
        shown = axis_titles.get(column) or sliders.get(column, "").strip() or \
            (color_title if column == color and color_title else str(column))
        tips.append(alt.Tooltip(f"{names[column]}:{kind}", title=shown, format=".4~g") if kind == "Q" else
                    alt.Tooltip(f"{names[column]}:{kind}", title=shown))
    return tips


def _height(frame, y, color, mark: str, stack: bool, height) -> int:
    """Plot height: 28 pixels per category for bars (18 per bar side by side), else 260; at least 80."""
    categorical_y = not pd.api.types.is_numeric_dtype(frame[y])
    if height is None:
        height = 28 * frame[y].nunique() if (categorical_y and mark == "bar") else 260
        if categorical_y and mark == "bar" and color is not None and not stack:
            height = 18 * frame[y].nunique() * frame[color].nunique()
    return max(int(height), 80)

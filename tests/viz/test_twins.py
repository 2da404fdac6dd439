"""Kernel-free twins (recourselab.viz.viz.sweep, twin_chart, Twin) and the explorers' static-page note."""

import json

import numpy as np
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from recourselab import viz


def coverage(k, d):
    return pd.DataFrame({"group": ["Female", "Male"], "covered": [min(k * d, 6.0), float(min(2 * k, 6))]})


@pytest.fixture
def table():
    return viz.sweep(coverage, {"k": [1, 2, 3], "d": [0.5, 1.0, 2.5]})


def make(table, **kwargs):
    options = dict(x="covered", y="group", sliders={"k": "k (counterfactuals)", "d": "d (cost units)"},
                   title="Coverage", x_title="people covered (count)", y_title="group")
    options.update(kwargs)
    return viz.twin_chart(table, **options)


def test_sweep_runs_the_computation_on_every_setting(table):
    assert list(table.columns) == ["k", "d", "group", "covered"]
    assert len(table) == 3 * 3 * 2
    row = table[(table.k == 3) & (table.d == 2.5) & (table.group == "Female")]
    assert row["covered"].item() == 6.0  # min(7.5, 6)
    one_row = viz.sweep(lambda a, scale: {"value": a * scale}, {"a": [1, 2]}, fixed={"scale": 10})
    assert one_row.to_dict("list") == {"a": [1, 2], "value": [10, 20]}
    rows = viz.sweep(lambda a: [{"v": a}, {"v": -a}], {"a": [1]})
    assert rows["v"].tolist() == [1, -1]


def test_sweep_keeps_the_index_that_holds_the_labels():
    """Issue 22, part 3: the computed table's index (e.g. the groups of a groupby) vanished from twins."""
    def by_group(k):
        frame = pd.DataFrame({"sex": ["Female", "Male", "Female"], "covered": [k, 2 * k, 3 * k]})
        return frame.groupby("sex")["covered"].sum().to_frame()

    table = viz.sweep(by_group, {"k": [1, 2]})
    assert list(table.columns) == ["k", "sex", "covered"]
    assert table.to_dict("list") == {"k": [1, 1, 2, 2], "sex": ["Female", "Male"] * 2, "covered": [4, 2, 8, 4]}
    twin = viz.twin_chart(table, x="covered", y="sex", sliders={"k": "k"}, title="t", x_title="covered (count)",
                          y_title="sex")
    assert twin.view(k=2)["sex"].tolist() == ["Female", "Male"]
    # an unnamed index is kept as "index"; the default 0..n-1 is not a label and is not kept
    unnamed = viz.sweep(lambda k: pd.DataFrame({"v": [k]}, index=["a"]), {"k": [1]})
    assert unnamed.to_dict("list") == {"k": [1], "index": ["a"], "v": [1]}
    assert list(viz.sweep(lambda k: pd.DataFrame({"v": [k, k]}), {"k": [1]}).columns) == ["k", "v"]


def test_the_spec_has_a_bound_parameter_per_slider_and_every_value_in_its_data(table):
    twin = make(table, defaults={"k": 2})
    spec = twin.spec
    params = {p["name"]: p for p in spec["params"]}
    assert set(params) == {"twin_0", "twin_1"}
    # k is evenly spaced: a range slider with its step; d is not: a dropdown with every value
    assert params["twin_0"]["bind"] == {"input": "range", "min": 1, "max": 3, "step": 1.0,
                                        "name": "k (counterfactuals) "}
    assert params["twin_0"]["value"] == 2
    assert params["twin_1"]["bind"]["input"] == "select"
    assert params["twin_1"]["bind"]["options"] == [0.5, 1.0, 2.5]
    assert params["twin_1"]["value"] == 0.5
    assert spec["data"]["format"] == {"type": "csv", "parse": {"covered": "number", "group": "string", "k": "number",
                                                               "d": "number"}}
    data = twin.embedded_frame()  # the inline CSV the page embeds, parsed back
    assert len(data) == len(table) and list(data.columns) == ["covered", "group", "k", "d"]
    assert set(data["k"]) == {1, 2, 3} and set(data["d"]) == {0.5, 1.0, 2.5}
    assert np.allclose(data["covered"], table["covered"]) and data["group"].tolist() == table["group"].tolist()
    # the filter compares each slider column with its parameter, and passes rows with no value
    assert "twin_0" in spec["transform"][0]["filter"] and "twin_1" in spec["transform"][0]["filter"]
    assert "isValid" in spec["transform"][0]["filter"]
    assert spec["title"] == "Coverage"
    assert spec["encoding"]["x"]["title"] == "people covered (count)"
    assert spec["encoding"]["x"]["scale"]["domain"] == [0.0, 6.0]  # one domain for the whole table
    assert [t["title"] for t in spec["encoding"]["tooltip"]] == ["group", "people covered (count)",
                                                                  "k (counterfactuals)", "d (cost units)"]
    assert twin.defaults == {"k": 2, "d": 0.5}


def test_view_and_changes_follow_the_filter(table):
    twin = make(table)
    view = twin.view(k=2, d=1.0)
    assert view["covered"].tolist() == [2.0, 4.0]
    changes = twin.changes()
    assert changes.loc["k", "steps"] == 2 and changes.loc["k", "changed"] == 2
    assert changes.loc["d", "changed"] == 2 and changes.loc["d", "ends_differ"]
    with pytest.raises(ValueError, match="not sliders"):
        twin.view(z=1)


def test_a_slider_that_changes_nothing_is_reported():
    flat = viz.sweep(lambda k, d: {"group": "a", "covered": float(k)}, {"k": [1, 2], "d": [0.1, 0.2, 0.3]})
    changes = make(flat).changes()
    assert changes.loc["d", "changed"] == 0 and not changes.loc["d", "ends_differ"]
    assert changes.loc["k", "changed"] == 1


def test_rows_without_a_slider_value_show_at_every_value():
    frame = pd.DataFrame({"what": ["static", "static", "robust", "robust", "current"],
                          "P": [0.8, 0.7, 0.9, 0.95, 0.6],
                          "budget": [10, 20, np.nan, np.nan, np.nan],
                          "rho": [np.nan, np.nan, 0.5, 0.9, np.nan]})
    twin = viz.twin_chart(frame, x="P", y="what", sliders={"budget": "budget (DM)", "rho": "ρ"},
                              title="Needed", x_title="P(repay) needed", y_title="recommendation")
    assert twin.view(budget=20, rho=0.9)["P"].tolist() == [0.7, 0.95, 0.6]
    data = twin.embedded_frame()
    assert np.isnan(data.loc[2, "budget"])  # NaN travels as an empty field (null), which the filter lets through
    assert twin.spec["data"]["values"].splitlines()[3] == "0.9,robust,,0.5"
    assert twin.changes()["changed"].tolist() == [1, 1]


def test_the_html_loads_vega_and_says_it_needs_no_kernel(table):
    twin = make(table)
    bundle = twin._repr_mimebundle_()
    page = bundle["text/html"]
    assert 'class="recourselab-twin"' in page and "vega-embed" in page and "vega-lite@" in page
    assert '"actions": false' in page and "<noscript>" in page and "no kernel needed" in page
    assert "18 rows, 9 slider settings" in page
    assert twin.nbytes == len(page.encode()) and twin.nbytes < 20_000
    assert make(table).to_html() == page  # deterministic: same table, same page
    assert twin.to_frame().equals(table) and twin.to_frame() is not twin.frame


def test_line_charts_offset_bars_and_colours(table):
    curve = viz.sweep(lambda k: pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [k, 2.0 * k, 3.0 * k],
                                                  "method": "A"}), {"k": [1, 2]})
    twin = viz.twin_chart(curve, x="x", y="y", color="method", mark="line", sliders={"k": "k"}, title="t",
                              x_title="x (units)", y_title="y (units)", colors={"A": "#D55E00"}, x_scale="log")
    spec = twin.spec
    assert spec["mark"] == {"type": "line", "point": True}
    assert spec["encoding"]["color"]["scale"] == {"domain": ["A"], "range": ["#D55E00"]}
    assert spec["encoding"]["x"]["scale"]["type"] == "log"
    side = make(table, color="group", stack=False)
    assert "yOffset" in side.spec["encoding"]


def test_an_explorer_offers_the_widget_and_a_static_note():
    had_shell = InteractiveShell.initialized()
    InteractiveShell.instance()
    try:
        box = viz.explorer(lambda k, c: None, {"k": viz.slider("k", 3, 1, 10, 1, integer=True),
                                                   "c": viz.dropdown("colour", ["red", "blue"])},
                               title="Bars <b>")
        bundle = box._repr_mimebundle_()
    finally:
        if not had_shell:
            InteractiveShell.clear_instance()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # the live explorer in JupyterLab / Binder
    note = bundle["text/html"]  # the book's static pages show this instead (nb_mime_priority_overrides)
    assert "Live explorer: Bars &lt;b&gt;" in note and "Controls: k: 1 to 10; colour: red, blue." in note
    assert "Binder" in note and "make lab" in note
    json.dumps(bundle["application/vnd.jupyter.widget-view+json"])


def test_check_explorer_tries_a_list_of_values_and_can_require_a_change():
    import matplotlib.pyplot as plt

    def capped_bars(k, colour):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.bar(range(min(k, 4)), 1.0, color=colour)  # nothing changes above k = 4
        ax.set(title=f"{min(k, 4)} bars")

    had_shell = InteractiveShell.initialized()
    InteractiveShell.instance()
    try:
        box = viz.explorer(capped_bars, {"k": viz.slider("k", 2, 1, 10, 1, integer=True),
                                             "colour": viz.dropdown("colour", ["red", "blue"])})
        rows = viz.check_explorer(box, values={"k": [1, 3, 4, 9]})
        assert [(r["control"], r["value"], r["changed"]) for r in rows] == [
            ("k", 1, True), ("k", 3, True), ("k", 4, True), ("k", 9, False), ("colour", "blue", True)]
        assert box.values() == {"k": 2, "colour": "red"}
        with pytest.raises(AssertionError, match="setting k=9 left the explorer's output exactly as it was"):
            viz.check_explorer(box, values={"k": [4, 9]}, require_change=True)
        # the current value in a list is still checked: the explorer steps away and back first
        assert viz.check_explorer(box, values={"k": [2]}, require_change=True)[0]["changed"]
    finally:
        if not had_shell:
            InteractiveShell.clear_instance()


def test_the_static_page_tools_map_cdn_urls_and_clean_scripts():
    """tools/check_static_pages.py maps CDN URLs to npm packages; book/_ext/static_pages.py cleans the script list."""
    import sys
    from pathlib import Path

    from sphinx.builders.html._assets import _JavaScript

    root = Path(__file__).resolve().parents[2]
    sys.path[:0] = [str(root / "tools"), str(root / "book" / "_ext")]
    try:
        import check_static_pages
        import static_pages
    finally:
        del sys.path[:2]
    split = check_static_pages.split_npm_url
    assert split("https://cdn.jsdelivr.net/npm/vega-lite@6.4.1?noext") == ("vega-lite@6.4.1", "")
    assert split("https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js") == ("mathjax@3", "es5/tex-mml-chtml.js")
    assert split("https://cdn.jsdelivr.net/npm/@jupyter-widgets/html-manager@1.0.6/dist/embed-amd.js") == \
        ("@jupyter-widgets/html-manager@1.0.6", "dist/embed-amd.js")
    assert split("https://unpkg.com/thebe@0.8.2/lib/index.js") == ("thebe@0.8.2", "lib/index.js")
    assert split("https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.4/require.min.js") == \
        ("requirejs@2.3.4", "require.js")
    assert split("https://example.org/a.js") is None

    thebe = 'const THEBE_JS_URL = "x"'
    scripts = [_JavaScript("_static/doctools.js"), _JavaScript(None, body=thebe), _JavaScript("", body=thebe),
               _JavaScript(None, type="application/vnd.jupyter.widget-state+json", body="{}"),
               _JavaScript("https://cdnjs.cloudflare.com/ajax/libs/require.js/2.3.4/require.min.js"),
               _JavaScript("https://cdn.jsdelivr.net/npm/@jupyter-widgets/html-manager@1.0.6/dist/embed-amd.js"),
               _JavaScript("https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js", defer="defer")]
    context = {"script_files": scripts}
    static_pages.clean_page_scripts(None, "book/x", "page.html", context, None)
    kept = context["script_files"]
    assert [s.filename or None for s in kept] == ["_static/doctools.js", None,
                                                  "https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"]
    assert kept[1].attributes["body"] == thebe  # declared once, not twice


def test_every_series_the_legend_names_is_drawn_where_a_label_is_missing():
    # fair_ranking's twin: a reference line stored once, its slider columns missing (NaN in a text column too)
    curves = viz.sweep(lambda tolerance, blocks: pd.DataFrame({"method": "RAGUEL", "k": [1, 10],
                                                               "rho": [0.5, 0.8 + blocks / 100]}),
                       {"tolerance": ["1/2", "1/3"], "blocks": [2, 10]})
    line = pd.DataFrame({"method": "ρ = 0.9", "k": [1, 10], "rho": 0.9})
    frame = pd.concat([curves, line], ignore_index=True)
    assert frame["tolerance"].isna().sum() == 2
    twin = viz.twin_chart(frame, x="k", y="rho", color="method", mark="line",
                          sliders={"tolerance": "tolerance t", "blocks": "blocks"}, defaults={"tolerance": "1/3"},
                          title="t", x_title="k", y_title="ρ")
    assert "\n1,0.9,ρ = 0.9,,\n" in twin.spec["data"]["values"]  # empty fields, not the text "nan"
    assert twin.spec["data"]["format"]["parse"]["tolerance"] == "string"  # so Vega reads "" as null
    assert twin.legend_rows().to_dict() == {"RAGUEL": 2, "ρ = 0.9": 2}
    assert twin.legend_rows(tolerance="1/2", blocks=10).to_dict() == {"RAGUEL": 2, "ρ = 0.9": 2}
    # a series whose rows match no opening setting is an error, not a legend entry without a line
    lost = frame.assign(tolerance=frame["tolerance"].fillna("nan"))
    with pytest.raises(ValueError, match=r"the legend names \['ρ = 0.9'\], but the chart draws no row"):
        viz.twin_chart(lost, x="k", y="rho", color="method", mark="line", sliders={"tolerance": "t", "blocks": "b"},
                       title="t", x_title="k", y_title="ρ")


def test_the_twin_fills_its_column_and_shows_a_note_when_vega_cannot_load(table):
    twin = make(table)
    assert twin.spec["width"] == "container"
    assert make(table, width=480).spec["width"] == 480
    page = twin.to_html()
    # the loader: a failed script shows the one-line offline note (class recourselab-twin-offline), never red text
    assert "recourselab-twin-offline" in page and "could not be loaded (offline?)" in page
    assert "color:red" not in page and "Error loading script" not in page
    assert "https://cdn.jsdelivr.net/npm/vega@6" in page and "https://cdn.jsdelivr.net/npm/vega-embed@7" in page
    assert "@media (max-width:600px)" in page  # on a phone each slider's label sits above it

"""The explorers' callback path: each control change must put a real figure (or the error) in the output."""

import base64
import io

import ipywidgets
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from IPython.core.interactiveshell import InteractiveShell

from recourselab import viz


@pytest.fixture
def shell():
    """An IPython shell, so ``display`` inside an update goes through the display machinery as in a kernel."""
    had_shell = InteractiveShell.initialized()
    yield InteractiveShell.instance()
    if not had_shell:
        InteractiveShell.clear_instance()


def images(box):
    """Decoded RGBA arrays of the PNG images now in the explorer's output area."""
    found = []
    for output in box.output.outputs:
        data = output.get("data", {})
        if output.get("output_type") == "display_data" and "image/png" in data:
            raw = base64.b64decode(data["image/png"])
            assert len(raw) > 1000, f"a PNG of {len(raw)} bytes is too small to hold a figure"
            found.append(matplotlib.image.imread(io.BytesIO(raw), format="png"))
    return found


def assert_drawn(image):
    assert image.ndim == 3 and image.shape[0] > 50 and image.shape[1] > 50
    if image.shape[2] == 4:
        assert image[..., 3].max() > 0, "the image is fully transparent"
    assert len(np.unique(image[..., :3].reshape(-1, 3), axis=0)) > 1, "the image is one colour"


def bar_chart(k, colour):
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.bar(range(k), np.arange(1, k + 1), color=colour)
    ax.set(title=f"k = {k}", xlabel="item", ylabel="height")


def controls():
    return {"k": viz.slider("k", 3, 1, 10, 1, integer=True),
            "colour": viz.dropdown("colour", {"blue": "tab:blue", "red": "tab:red"})}


def test_every_control_change_redraws_a_non_blank_figure(shell):
    open_before = plt.get_fignums()
    box = viz.explorer(bar_chart, controls(), title="bars")
    assert isinstance(box, ipywidgets.VBox) and box.output in box.children
    first = images(box)
    assert len(first) == 1
    assert_drawn(first[0])
    for name, value in [("k", 7), ("colour", "tab:red"), ("k", 2)]:
        box.controls[name].value = value
        now = images(box)
        assert len(now) == 1, f"after {name}={value}: {len(now)} images"
        assert_drawn(now[0])
        assert now[0].shape != first[0].shape or not np.array_equal(now[0], first[0]), "the figure did not change"
        first = now
    assert plt.get_fignums() == open_before, "the explorer left figures open"
    rows = viz.check_explorer(box)
    assert [r["control"] for r in rows] == ["k", "colour"] and all(r["png_bytes"] > 1000 for r in rows)
    assert box.values() == {"k": 2, "colour": "tab:red"}, "check_explorer must restore the values"
    assert len(images(box)) == 1


def test_a_table_and_a_figure_share_the_output_in_order(shell):
    def table_then_figure(k, colour):
        display_table = pd.DataFrame({"k": [k], "colour": [colour]})
        from IPython.display import display
        display(display_table)  # before the figure, as the group-counterfactuals explorer does
        print(f"k = {k}")
        bar_chart(k, colour)

    box = viz.explorer(table_then_figure, controls())
    for name, value in [("k", 5), ("colour", "tab:red")]:
        box.controls[name].value = value
        kinds = []
        for output in box.output.outputs:
            data = output.get("data", {})
            kinds.append("png" if "image/png" in data else "table" if "text/html" in data else output["output_type"])
        assert kinds == ["stream", "table", "png"], kinds
        html = box.output.outputs[1]["data"]["text/html"]
        assert f"<td>{box.values()['k']}</td>" in html and "<table" in html
        assert box.output.outputs[0]["text"] == f"k = {box.values()['k']}\n"
        assert_drawn(images(box)[0])
    assert len(viz.check_explorer(box)) == 2


def test_an_error_in_a_redraw_is_shown_not_swallowed(shell):
    def fails_above_five(k, colour):
        bar_chart(k, colour)
        if k > 5:
            raise ValueError(f"k={k} is above 5")

    open_before = plt.get_fignums()
    box = viz.explorer(fails_above_five, controls())
    box.controls["k"].value = 8  # must not raise here: a reader's change shows the error instead
    errors = [o for o in box.output.outputs if o["output_type"] == "error"]
    assert len(errors) == 1
    assert errors[0]["ename"] == "ValueError" and errors[0]["evalue"] == "k=8 is above 5"
    assert any("fails_above_five" in line for line in errors[0]["traceback"])
    assert plt.get_fignums() == open_before
    box.controls["k"].value = 4  # recovers on the next good value
    assert [o["output_type"] for o in box.output.outputs] == ["display_data"]
    box.controls["k"].value = 5
    with pytest.raises(AssertionError, match="setting k=6 raised ValueError: k=6 is above 5"):
        viz.check_explorer(box)
    # the first draw raises, so an executed chapter fails instead of showing a broken explorer
    with pytest.raises(ValueError, match="k=9 is above 5"):
        viz.explorer(fails_above_five, {"k": viz.slider("k", 9, 1, 10, 1, integer=True),
                                            "colour": viz.dropdown("colour", ["red"])})
    assert plt.get_fignums() == open_before


def test_check_explorer_rejects_blank_and_missing_images(shell):
    def transparent(k):
        fig = plt.figure(figsize=(3, 2))
        fig.patch.set_alpha(0.0)

    def white(k):
        plt.figure(figsize=(3, 2), facecolor="white")

    def text_only(k):
        print(k)

    k = {"k": viz.slider("k", 3, 1, 10, 1, integer=True)}
    with pytest.raises(AssertionError, match="blank or tiny"):
        viz.check_explorer(viz.explorer(transparent, dict(k)))
    with pytest.raises(AssertionError, match="blank or tiny"):
        viz.check_explorer(viz.explorer(white, {"k": viz.slider("k", 3, 1, 10, 1, integer=True)}))
    with pytest.raises(AssertionError, match="gave no image"):
        viz.check_explorer(viz.explorer(text_only, {"k": viz.slider("k", 3, 1, 10, 1, integer=True)}))


def test_a_returned_figure_is_shown_once_and_values_can_be_chosen(shell):
    def returns_figure(k):
        fig = plt.Figure(figsize=(3, 2))  # not registered with pyplot
        fig.add_subplot().plot(range(k))
        return fig

    box = viz.explorer(returns_figure, {"k": viz.slider("k", 10, 1, 10, 1, integer=True)})
    assert len(images(box)) == 1
    rows = viz.check_explorer(box)  # at the maximum, the next value steps down
    assert rows[0]["value"] == 9
    assert viz.check_explorer(box, values={"k": 2})[0]["value"] == 2


def test_explorer_calls_update_with_control_values():
    calls = []
    box = viz.explorer(lambda k, name: calls.append((k, name)),
                       {"k": viz.slider("k", 3, 1, 10, 1, integer=True),
                        "name": viz.dropdown("who", {"Ann": "a", "Bo": "b"})}, title="demo")
    assert isinstance(box, ipywidgets.VBox)
    assert calls[-1] == (3, "a")
    box.children[1].children[0].value = 7
    assert calls[-1] == (7, "a")
    assert isinstance(viz.slider("x", 0.5, 0.0, 1.0, 0.25), ipywidgets.FloatSlider)
    assert viz.dropdown("who", ["a", "b"], value="b").value == "b"


def test_update_sees_a_float_as_the_slider_shows_it_and_restore_takes_the_raw_values(shell):
    seen = []
    box = viz.explorer(lambda d, k: seen.append((d, k)), {"d": viz.slider("d", 1.0, 0.0, 5.0, 0.1),
                                                          "k": viz.dropdown("k", {"one third": 1 / 3, "half": 0.5})})
    box.controls["d"].value = 2.5000000000000004  # what stepping a float slider in the browser can give
    assert seen[-1] == (2.5, 1 / 3) and f"d = {seen[-1][0]}" == "d = 2.5"
    raw = box.values()
    assert raw["k"] == 1 / 3  # values() keeps what the controls hold, so restore() can set it back
    box.controls["k"].value = 0.5
    box.restore(raw)
    assert box.controls["k"].value == 1 / 3

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from recourselab.viz import plotting, widgets


def test_group_palette_is_stable_and_bounded():
    assert plotting.group_palette(["female", "male"]) == {"female": "#D55E00", "male": "#0072B2"}
    assert plotting.group_palette(["b", "a", "b"]) == {"b": "#D55E00", "a": "#0072B2"}
    with pytest.raises(ValueError, match="more than the"):
        plotting.group_palette(range(20))


def test_cost_and_coverage_figures_label_groups_and_count_missing_recourse():
    plotting.set_theme()
    cost = np.array([0.1, 0.5, np.inf, 0.2, 0.3])
    group = np.array(["f", "f", "f", "m", "m"])
    ax = plotting.plot_cost_by_group(cost, group, order=["f", "m"], title="t")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["f\n(n=3, 1 without)", "m\n(n=2)"]
    ax = plotting.plot_coverage_curve(cost, group, budgets=[0.0, 0.25, 1.0], order=["f", "m"])
    f_line, m_line = ax.get_lines()
    np.testing.assert_allclose(f_line.get_ydata(), [0, 100 / 3, 200 / 3])
    np.testing.assert_allclose(m_line.get_ydata(), [0, 50, 100])
    with pytest.raises(ValueError, match="cost has 2 values but groups has 5"):
        plotting.plot_cost_by_group(cost[:2], group)
    with pytest.raises(ValueError, match="NaN"):
        plotting.plot_coverage_curve([np.nan], ["f"])
    plt.close("all")


def test_plot_changes_draws_one_bar_per_change():
    changes = pd.DataFrame({"feature": ["a", "b"], "from": [1, "x"], "to": [2, "y"], "change": [1, "changed"],
                            "unit": ["DM", ""], "cost": [0.5, 1.0], "allowed": [True, False]})
    ax = plotting.plot_changes(changes)
    assert len(ax.patches) == 2
    with pytest.raises(ValueError, match="describe_changes"):
        plotting.plot_changes(pd.DataFrame({"x": [1]}))
    plt.close("all")


def test_explorer_calls_update_with_control_values():
    calls = []
    box = widgets.explorer(lambda k, name: calls.append((k, name)),
                           {"k": widgets.slider("k", 3, 1, 10, 1, integer=True),
                            "name": widgets.dropdown("who", {"Ann": "a", "Bo": "b"})}, title="demo")
    assert isinstance(box, ipywidgets.VBox)
    assert calls[-1] == (3, "a")
    box.children[1].children[0].value = 7
    assert calls[-1] == (7, "a")
    with pytest.raises(ValueError, match="value=20"):
        widgets.slider("k", 20, 1, 10, 1)
    with pytest.raises(ValueError, match="controls is empty"):
        widgets.explorer(lambda: None, {})


def test_explanation_figures_draw_what_they_are_given():
    plotting.set_theme()
    ax = plotting.plot_attribution_pair([3.0, 4.0, 0.0], [0.0, 4.0, -3.0], ["a", "b", "c"], top=2)
    widths = sorted(round(p.get_width(), 6) for p in ax.patches if p.get_height() > 0)
    # top-2 features by |attribution| are b (0.8, 0.8) and a (0.6, 0.0) after L2 normalisation
    assert widths == [0.0, 0.6, 0.8, 0.8]
    with pytest.raises(ValueError, match="same length"):
        plotting.plot_attribution_pair([1.0], [1.0, 2.0], ["a"])
    shares = pd.DataFrame({"A": [0.5, 0.1], "B": [0.3, 0.7], "C": [0.1, 0.1], "D": [0.1, 0.1]}, index=["m1", "m2"])
    ax = plotting.plot_regime_shares(shares)
    assert len(ax.patches) == 8 and [t.get_text() for t in ax.get_yticklabels()] == ["m1", "m2"]
    with pytest.raises(ValueError, match="columns 'A'"):
        plotting.plot_regime_shares(shares.drop(columns="D"))
    frame = pd.DataFrame({"method": ["x", "y"], "PFR": [0.1, 0.3], "CEC": [0.5, 0.2]})
    ax = plotting.plot_pfr_cec(frame, pfr_line=0.2, cec_line=0.25)
    assert {t.get_text() for t in ax.texts} == {"A", "B", "C", "D"}
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["x", "y"]
    with pytest.raises(ValueError, match="no colour for"):
        plotting.plot_pfr_cec(frame, palette={"x": "red"})
    with pytest.raises(ValueError, match="no column 'CEC score'"):
        plotting.plot_pfr_cec(frame, y="CEC score")
    plt.close("all")


def test_flag_overlap_counts_each_combination_once():
    flags = pd.DataFrame({"a": [True, True, False, False, True], "b": [True, False, True, False, True]})
    ax = plotting.plot_flag_overlap(flags, groups=["f", "m", "f", "m", "m"], group_order=["f", "m"])
    totals = sorted(int(t.get_text()) for t in ax.texts)
    assert totals == [1, 1, 2]  # {a, b} twice, {a} once, {b} once; the unflagged row is left out
    with pytest.raises(ValueError, match="booleans"):
        plotting.plot_flag_overlap(flags.astype(int))
    with pytest.raises(ValueError, match="no individual is flagged"):
        plotting.plot_flag_overlap(flags & False)
    plt.close("all")


# plot_recourse_intuition: four people, the first refused; approved when -x + y - 1 >= 0; x may only increase
INTUITION_POINTS = np.array([[1.0, 1.0], [0.0, 3.0], [1.5, 3.0], [2.0, 0.5]])
INTUITION_FAVOURABLE = np.array([False, True, True, False])
INTUITION_ARGS = {"points": INTUITION_POINTS, "favourable": INTUITION_FAVOURABLE, "factual": 0,
                  "boundary": ([-1.0, 1.0], -1.0), "nearest": 1, "recourse": [1.0, 2.0], "path": [0, 2],
                  "actionability": ("increase", "free")}


def test_recourse_intuition_draws_every_answer_where_it_is():
    plotting.set_theme()
    ax = plotting.plot_recourse_intuition(**INTUITION_ARGS, xlabel="x (units)", ylabel="y (units)", title="toy")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["approved (observed person)", "refused (observed person)", "the refused applicant",
                      "decision boundary (approved side shaded)", "unreachable: breaks actionability",
                      "nearest counterfactual", "recourse to the boundary", "FACE path through observed people"]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("x (units)", "y (units)", "toy")
    # the boundary line satisfies -x + y - 1 = 0 at both ends; the path line runs through its people
    boundary = [line for line in ax.lines if line.get_color() == "black"]
    assert len(boundary) == 1
    x, y = boundary[0].get_data()
    np.testing.assert_allclose(-np.asarray(x) + np.asarray(y) - 1.0, 0.0, atol=1e-12)
    paths = [np.column_stack(line.get_data()) for line in ax.lines if line.get_color() != "black"]
    assert any(p.shape == (2, 2) and np.allclose(p, INTUITION_POINTS[[0, 2]]) for p in paths)
    # the factual (star), the nearest counterfactual (ring) and the recourse (diamond) sit at their coordinates
    offsets = [c.get_offsets() for c in ax.collections if len(c.get_offsets()) == 1]
    for where in ([1.0, 1.0], [0.0, 3.0], [1.0, 2.0]):
        assert any(np.allclose(o[0], where) for o in offsets), where
    # x may only increase: the hatched region is everything left of the applicant, and nothing else
    hatched = [p for p in ax.patches if p.get_hatch() == "///"]
    assert len(hatched) == 1
    display = hatched[0].get_transform().transform(hatched[0].get_path().vertices)  # axvspan: data x, axes y
    data_x = ax.transData.inverted().transform(display)[:, 0]
    np.testing.assert_allclose([data_x.min(), data_x.max()], [ax.get_xlim()[0], 1.0])
    plt.close("all")


def test_recourse_intuition_hatches_both_sides_of_an_immutable_feature_and_takes_labels():
    ax = plotting.plot_recourse_intuition(INTUITION_POINTS, INTUITION_FAVOURABLE, 0,
                                          actionability=("free", "immutable"), labels={"factual": "Ana"})
    assert len([p for p in ax.patches if p.get_hatch() == "///"]) == 2
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "approved (observed person)", "refused (observed person)", "Ana", "unreachable: breaks actionability"]
    ax = plotting.plot_recourse_intuition(INTUITION_POINTS, INTUITION_FAVOURABLE, np.int64(3))  # numpy int is fine
    assert not [p for p in ax.patches if p.get_hatch() == "///"]
    # a rule on x alone (approved when x <= 0.5) is a vertical boundary at x = 0.5
    ax = plotting.plot_recourse_intuition([[1.0, 0.0], [0.0, 0.0]], [False, True], 0, boundary=([-1.0, 0.0], 0.5))
    assert [list(line.get_xdata()) for line in ax.lines if line.get_color() == "black"] == [[0.5, 0.5]]
    plt.close("all")


@pytest.mark.parametrize("change, error, match", [
    ({"points": [[1.0, 1.0, 0.0]] * 4}, ValueError, r"points has shape \(4, 3\)"),
    ({"points": INTUITION_POINTS * [[1.0], [1.0], [np.nan], [1.0]]}, ValueError, r"points\[2\] = \[nan, nan\]"),
    ({"points": INTUITION_POINTS * [[1.0], [1.0], [1.0], [np.inf]]}, ValueError, r"points\[3\] = \[inf, inf\]"),
    ({"points": [["a", "b"]] * 4}, TypeError, "points must be a numeric array"),
    ({"favourable": [0, 1, 1, 0]}, TypeError, "favourable must hold booleans"),
    ({"favourable": INTUITION_FAVOURABLE[:3]}, ValueError, r"favourable has shape \(3,\)"),
    ({"factual": 2.7}, TypeError, "factual=2.7 must be an integer"),
    ({"factual": True}, TypeError, "factual=True must be an integer"),
    ({"factual": 9}, ValueError, r"factual=9 is not a row of points; give a position in 0..3"),
    ({"factual": 1, "path": None}, ValueError, "factual=1 is approved"),
    ({"nearest": 3}, ValueError, "nearest=3 is refused"),
    ({"nearest": 1.0}, TypeError, "nearest=1.0 must be an integer"),
    ({"recourse": [1.0, np.nan]}, ValueError, r"recourse=\[1.0, nan\] must be one finite point"),
    ({"recourse": [1.0, 2.0, 3.0]}, ValueError, "recourse=.* must be one finite point"),
    ({"recourse": [1.0, 1.5]}, ValueError, r"recourse=\[1.0, 1.5\] lies on the refused side of boundary"),
    ({"path": [1, 2]}, ValueError, "path starts at row 1, not at factual=0"),
    ({"path": [0, 3]}, ValueError, "path ends at row 3, who is refused"),
    ({"path": [0, 2.5]}, TypeError, r"path\[1\]=2.5 must be an integer"),
    ({"path": [0]}, ValueError, r"path=\[0\] must list at least two rows"),
    ({"path": [0, 7]}, ValueError, r"path=\[0, 7\] holds rows outside 0..3"),
    ({"boundary": ([1.0, 1.0], 0.0)}, ValueError, r"favourable\[0\]=False but row 0 lies on the approved side"),
    ({"boundary": ([0.0, 0.0], 1.0)}, ValueError, r"boundary's coef=\[0.0, 0.0\] must be two finite numbers"),
    ({"boundary": ([-1.0, np.inf], 1.0)}, ValueError, "boundary's coef=.* must be two finite numbers"),
    ({"boundary": ([-1.0, 1.0], np.inf)}, ValueError, "boundary's intercept=inf must be finite"),
    ({"boundary": ([-1.0, 1.0], "1")}, TypeError, "boundary's intercept='1' must be a number"),
    ({"boundary": [-1.0, 1.0, -1.0]}, ValueError, r"boundary=\[-1.0, 1.0, -1.0\] must be a pair \(coef, intercept\)"),
    ({"actionability": ("increase", "sometimes")}, ValueError, "actionability for y is 'sometimes'"),
    ({"actionability": "increase"}, ValueError, "actionability='increase' must be a pair"),
    ({"labels": {"star": "Ana"}}, ValueError, r"labels has unknown keys \['star'\]"),
])
def test_recourse_intuition_rejects_bad_input(change, error, match):
    with pytest.raises(error, match=match):
        plotting.plot_recourse_intuition(**{**INTUITION_ARGS, **change})
    plt.close("all")


def test_overlap_vs_chance_figure_marks_overlaps_outside_chance():
    from recourselab.audit import overlap_table

    plotting.set_theme()
    rng = np.random.default_rng(0)
    x = rng.random(200) < 0.3
    flags = pd.DataFrame({"x": x, "copy": x.copy(), "other": rng.random(200) < 0.3})
    table = overlap_table(flags, flags | True, pairs=[("x", "copy"), ("x", "other")], n_boot=0)
    lifts = pd.DataFrame({"pair": ["x × copy", "x × other"], "lift": [3.0, 1.1]})
    axes = plotting.plot_overlap_vs_chance(table, lifts=lifts, title="t")
    assert len(axes) == 2 and axes[0].figure._suptitle.get_text() == "t"
    assert [t.get_text() for t in axes[0].get_yticklabels()] == ["x × copy", "x × other"]
    filled = axes[0].collections[2].get_offsets()  # observed outside the chance interval: only the copy
    assert len(filled) == 1 and filled[0][0] == table.loc[("x", "copy"), "observed"]
    with pytest.raises(ValueError, match="columns"):
        plotting.plot_overlap_vs_chance(table.drop(columns="expected"))
    with pytest.raises(ValueError, match="not rows of table"):
        plotting.plot_overlap_vs_chance(table, lifts=pd.DataFrame({"pair": ["y × z"], "lift": [1.0]}))
    with pytest.raises(ValueError, match="NaN"):
        plotting.plot_overlap_vs_chance(table.assign(expected=np.nan))
    plt.close("all")

"""The book's figures draw what they are given (bad input: test_bad_input.py)."""

import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
import pytest

from recourselab import viz as plotting


def test_group_palette_is_stable_and_bounded():
    assert plotting.group_palette(["female", "male"]) == {"female": "#D55E00", "male": "#0072B2"}
    assert plotting.group_palette(["b", "a", "b"]) == {"b": "#D55E00", "a": "#0072B2"}


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
    assert ax.get_legend() is not None and ax.get_ylabel() == "members with recourse within budget (%)"
    ax = plotting.plot_coverage_curve(cost, group, order=["f", "m"], ylabel="with recourse (%)", legend=False)
    assert ax.get_legend() is None and ax.get_ylabel() == "with recourse (%)"  # a side panel
    plt.close("all")


def test_an_order_that_leaves_out_a_group_is_refused_not_drawn_without_it():
    """Issue 22, part 3: plot_cost_by_group(order=) silently dropped the groups it did not list."""
    cost = np.array([0.1, 0.5, np.inf, 0.2, 0.3])
    group = np.array(["f", "f", "f", "m", "m"])
    for plot in (plotting.plot_cost_by_group, plotting.plot_coverage_curve):
        with pytest.raises(ValueError, match=r"order=\['f'\] leaves out the group\(s\) \['m'\] present in groups"):
            plot(cost, group, order=["f"])
    # a listed group that has no member is drawn (n=0), so the order may name groups absent from this sample
    ax = plotting.plot_cost_by_group(cost, group, order=["m", "f", "x"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["m\n(n=2)", "f\n(n=3, 1 without)", "x\n(n=0)"]
    plt.close("all")


def test_costs_and_groups_as_series_are_paired_by_index_or_refused():
    cost = pd.Series([0.1, 0.5, 0.2], index=[10, 11, 12])
    ax = plotting.plot_cost_by_group(cost, pd.Series(["f", "f", "m"], index=[10, 11, 12]))
    assert [t.get_text() for t in ax.get_yticklabels()] == ["f\n(n=2)", "m\n(n=1)"]
    with pytest.raises(ValueError, match="groups has a different index from cost"):
        plotting.plot_cost_by_group(cost, pd.Series(["f", "f", "m"], index=[12, 11, 10]))
    ax = plotting.plot_cost_by_group(cost, pd.Series(["f", "f", "m"], index=[12, 11, 10]).to_numpy())
    plt.close("all")


def test_plot_changes_draws_one_bar_per_change():
    changes = pd.DataFrame({"feature": ["a", "b"], "from": [1, "x"], "to": [2, "y"], "change": [1, "changed"],
                            "unit": ["DM", ""], "cost": [0.5, 1.0], "allowed": [True, False]})
    ax = plotting.plot_changes(changes)
    assert len(ax.patches) == 2
    assert sorted(p.get_width() for p in ax.patches) == [0.5, 1.0]
    assert [p.get_hatch() for p in ax.patches] == ["//", None]  # drawn bottom-up: the disallowed move is hatched
    ax = plotting.plot_changes(changes.iloc[:0])
    assert ax.texts[0].get_text() == "no change needed"
    plt.close("all")


def test_explanation_figures_draw_what_they_are_given():
    plotting.set_theme()
    ax = plotting.plot_attribution_pair([3.0, 4.0, 0.0], [0.0, 4.0, -3.0], ["a", "b", "c"], top=2)
    widths = sorted(round(p.get_width(), 6) for p in ax.patches if p.get_height() > 0)
    # top-2 features by |attribution| are b (0.8, 0.8) and a (0.6, 0.0) after L2 normalisation
    assert widths == [0.0, 0.6, 0.8, 0.8]
    shares = pd.DataFrame({"A": [0.5, 0.1], "B": [0.3, 0.7], "C": [0.1, 0.1], "D": [0.1, 0.1]}, index=["m1", "m2"])
    ax = plotting.plot_regime_shares(shares)
    assert len(ax.patches) == 8 and [t.get_text() for t in ax.get_yticklabels()] == ["m1", "m2"]
    frame = pd.DataFrame({"method": ["x", "y"], "PFR": [0.1, 0.3], "CEC": [0.5, 0.2]})
    ax = plotting.plot_pfr_cec(frame, pfr_line=0.2, cec_line=0.25)
    assert {t.get_text() for t in ax.texts} == {"A", "B", "C", "D"}
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["x", "y"]
    plt.close("all")


def test_flag_overlap_counts_each_combination_once():
    flags = pd.DataFrame({"a": [True, True, False, False, True], "b": [True, False, True, False, True]})
    ax = plotting.plot_flag_overlap(flags, groups=["f", "m", "f", "m", "m"], group_order=["f", "m"])
    totals = sorted(int(t.get_text()) for t in ax.texts)
    assert totals == [1, 1, 2]  # {a, b} twice, {a} once, {b} once; the unflagged row is left out
    f_bars = [p.get_height() for p in ax.patches if p.get_facecolor()[:3] == plt.matplotlib.colors.to_rgb("#D55E00")]
    assert sorted(f_bars) == [0, 1, 1]  # f: once in {a, b}, once in {b}; nobody of f in {a} alone
    # group labels as a Series are read by index: the same figure from a shuffled Series aligned to flags
    shuffled = pd.Series(["f", "m", "f", "m", "m"], index=flags.index)[::-1]
    ax = plotting.plot_flag_overlap(flags, groups=shuffled.loc[flags.index], group_order=["f", "m"])
    assert sorted(int(t.get_text()) for t in ax.texts) == [1, 1, 2]
    plt.close("all")


def test_graph_figures_draw_nodes_paths_and_dags(german_encoder):
    from recourselab.group_counterfactuals import build_feasibility_graph

    Z = np.array([[0.0, 0.0], [0.1, 0.0], [0.2, 0.1], [0.9, 0.9]])
    graph = build_feasibility_graph(Z, 0.25)
    ax = plotting.plot_feasibility_graph(graph, Z, labels=list("abcd"), favourable=[False, False, True, True],
                                         groups=["f", "m", "f", "m"], path=[0, 1, 2])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["favourable decision", "refused", "group f", "group m"]
    assert [t.get_text() for t in ax.texts] == list("abcd")
    dag = nx.DiGraph([("sex", "income"), ("income", "savings")])
    ax = plotting.plot_dag(dag, highlight=["sex"], decision="loan", inputs=["savings", "income"], title="d")
    assert ax.get_title() == "d" and {t.get_text() for t in ax.texts} == {"sex", "income", "savings", "loan"}
    plt.close("all")


# plot_recourse_intuition: four people, the first refused; approved when -x + y - 1 >= 0; x may only increase
INTUITION_POINTS = np.array([[1.0, 1.0], [0.0, 3.0], [1.5, 3.0], [2.0, 0.5]])
INTUITION_FAVOURABLE = np.array([False, True, True, False])
INTUITION_ARGS = {"points": INTUITION_POINTS, "favourable": INTUITION_FAVOURABLE, "factual": 0,
                  "boundary": ([-1.0, 1.0], -1.0), "nearest": 1, "recourse": [1.0, 2.0], "path": [0, 2],
                  "counterfactual": [0.0, 1.0],
                  "actionability": ("increase", "free")}


def test_recourse_intuition_draws_every_answer_where_it_is():
    plotting.set_theme()
    ax = plotting.plot_recourse_intuition(**INTUITION_ARGS, xlabel="x (units)", ylabel="y (units)", title="toy")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == ["approved (observed person)", "refused (observed person)", "the refused applicant",
                      "decision boundary (approved side shaded)", "unreachable: breaks actionability",
                      "nearest counterfactual (any point)", "nearest approved person", "recourse to the boundary",
                      "FACE path through observed people"]
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == ("x (units)", "y (units)", "toy")
    # the boundary line satisfies -x + y - 1 = 0 at both ends; the path line runs through its people
    boundary = [line for line in ax.lines if line.get_color() == "black"]
    assert len(boundary) == 1
    x, y = boundary[0].get_data()
    np.testing.assert_allclose(-np.asarray(x) + np.asarray(y) - 1.0, 0.0, atol=1e-12)
    paths = [np.column_stack(line.get_data()) for line in ax.lines if line.get_color() != "black"]
    assert any(p.shape == (2, 2) and np.allclose(p, INTUITION_POINTS[[0, 2]]) for p in paths)
    # the factual (star), the nearest approved person (ring), the recourse (diamond) and the nearest
    # counterfactual (cross) sit at their coordinates
    offsets = [c.get_offsets() for c in ax.collections if len(c.get_offsets()) == 1]
    for where in ([1.0, 1.0], [0.0, 3.0], [1.0, 2.0], [0.0, 1.0]):
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
    dots = axes[1].collections[0].get_offsets()
    assert sorted(dots[:, 0].tolist()) == [1.1, 3.0]
    plt.close("all")


def test_the_coverage_legend_leaves_the_curves_visible():
    """Cold review (recourse_basics): a fixed lower-right legend covered curves that rise late, as feasible costs do."""
    plotting.set_theme()
    cost = np.concatenate([np.linspace(1, 7, 30), np.full(70, np.inf), np.linspace(2, 7, 20), np.full(80, np.inf)])
    group = np.array(["f"] * 100 + ["m"] * 100)  # 30% and 20% reach recourse, late
    ax = plotting.plot_coverage_curve(cost, group, budgets=np.linspace(0, 7, 701), order=["f", "m"])
    ax.figure.canvas.draw()
    box = ax.get_legend().get_window_extent()
    for line in ax.get_lines():
        x, y = ax.transData.transform(line.get_xydata()).T
        inside = (box.x0 <= x) & (x <= box.x1) & (box.y0 <= y) & (y <= box.y1)
        assert not inside.any(), line.get_label()
    plt.close("all")

import ipywidgets
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from recourselab import plotting, widgets


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

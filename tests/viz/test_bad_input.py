"""Bad input to every public function of recourselab.viz: the package's own error and message, never one from
inside numpy, pandas, matplotlib, seaborn, networkx, ipywidgets or altair.

One row per case: (call, error type, message regex). Each call builds its own small input.
"""

from types import SimpleNamespace

import ipywidgets
import matplotlib.pyplot as plt
import networkx as nx
import numpy as np
import pandas as pd
import pytest

from recourselab import viz

COST = np.array([0.1, 0.5, np.inf, 0.2, 0.3])
GROUPS = np.array(["f", "f", "f", "m", "m"])
CHANGES = pd.DataFrame({"feature": ["a"], "from": [1], "to": [2], "change": [1], "unit": [""], "cost": [0.5],
                        "allowed": [True]})
SHARES = pd.DataFrame({"A": [0.5], "B": [0.3], "C": [0.1], "D": [0.1]}, index=["m1"])
PFR = pd.DataFrame({"method": ["x", "y"], "PFR": [0.1, 0.3], "CEC": [0.5, 0.2]})
FLAGS = pd.DataFrame({"a": [True, True, False, False, True], "b": [True, False, True, False, True]})
OVERLAP = pd.DataFrame({"observed": [3.0], "expected": [1.0], "chance low": [0.0], "chance high": [2.0]},
                       index=pd.MultiIndex.from_tuples([("x", "y")]))
CONNECTIVITY = pd.DataFrame({"epsilon": [0.1, 0.2], "singletons (share)": [0.5, 0.1],
                             "largest component (share)": [0.2, 0.8], "components": [10, 3]})
CHANGE_FREQUENCY = pd.DataFrame({"age": [0.2, 0.5], "covered": [10, 12]}, index=["f", "m"])
DAG = nx.DiGraph([("sex", "income")])

# plot_recourse_intuition: four people, the first refused; approved when -x + y - 1 >= 0; x may only increase
POINTS = np.array([[1.0, 1.0], [0.0, 3.0], [1.5, 3.0], [2.0, 0.5]])
FAVOURABLE = np.array([False, True, True, False])
INTUITION = {"points": POINTS, "favourable": FAVOURABLE, "factual": 0, "boundary": ([-1.0, 1.0], -1.0), "nearest": 1,
             "recourse": [1.0, 2.0], "path": [0, 2], "actionability": ("increase", "free")}


def intuition(**change):
    return lambda: viz.plot_recourse_intuition(**{**INTUITION, **change})


def graph():
    from recourselab.group_counterfactuals import build_feasibility_graph

    return build_feasibility_graph(np.array([[0.0, 0.0], [0.1, 0.0], [0.9, 0.9]]), 0.25)


def bars(k, colour="red"):
    _, ax = plt.subplots(figsize=(3, 2))
    ax.bar(range(k), np.arange(1, k + 1), color=colour)


def controls():
    return {"k": viz.slider("k", 3, 1, 10, 1, integer=True), "colour": viz.dropdown("colour", ["red", "blue"])}


def coverage(k, d):
    return pd.DataFrame({"group": ["Female", "Male"], "covered": [min(k * d, 6.0), float(min(2 * k, 6))]})


def table():
    return viz.sweep(coverage, {"k": [1, 2, 3], "d": [0.5, 1.0, 2.5]})


def twin(frame=None, **change):
    options = dict(x="covered", y="group", sliders={"k": "k (counterfactuals)", "d": "d (cost units)"},
                   title="Coverage", x_title="people covered (count)", y_title="group")
    return lambda: viz.twin_chart(table() if frame is None else frame(), **{**options, **change})


def with_value(column, row, value, dtype=None):
    def frame():
        out = table() if dtype is None else table().astype({column: dtype})
        out.loc[row, column] = value
        return out
    return frame


def auc(metric="kAUC"):
    """An AUCResult's fields (the figure reads metric, parameter, score and curve)."""
    curve = pd.DataFrame({"d": [0.0, 1.0], "k": [1, 2], "coverage": [0.2, 0.9], "cost": [0.1, 0.2]})
    return SimpleNamespace(metric=metric, parameter=1.0, score=0.5, curve=curve)


CASES = [
    # ---------------------------------------------------------------- theme
    (lambda: viz.group_palette(range(20)), ValueError, "more than the"),
    (lambda: viz.group_palette(["a", None]), ValueError, "levels has missing labels"),
    (lambda: viz.group_palette([1, "1"]), ValueError, "levels mixes strings and other values"),
    (lambda: viz.group_palette("female"), TypeError, "levels='female'"),
    (lambda: viz.set_theme("huge"), ValueError, r"context='huge' is not one of"),
    # ---------------------------------------------------------------- costs per group
    (lambda: viz.plot_cost_by_group(COST[:2], GROUPS), ValueError,
     r"groups has shape \(5,\); give one label per row \(2\)"),
    (lambda: viz.plot_coverage_curve([np.nan], ["f"]), ValueError, r"cost\[0\] is NaN; use inf for 'no recourse'"),
    (lambda: viz.plot_cost_by_group(["a", "b"], ["f", "m"]), TypeError, "cost holds strings"),
    (lambda: viz.plot_cost_by_group([], []), ValueError, "cost is empty"),
    (lambda: viz.plot_cost_by_group([[0.1, 0.2]], ["f"]), ValueError, r"cost has shape \(1, 2\)"),
    (lambda: viz.plot_cost_by_group([0.1, 0.2], ["f", None]), ValueError, r"groups has missing labels \(None or NaN"),
    (lambda: viz.plot_cost_by_group([0.1, 0.2], ["f", np.nan]), ValueError, "groups has missing labels"),
    (lambda: viz.plot_cost_by_group([0.1, 0.2], [1, "1"]), ValueError, "groups mixes strings"),
    (lambda: viz.plot_cost_by_group(COST, GROUPS, order=["f"]), ValueError, r"order=\['f'\] leaves out the group"),
    (lambda: viz.plot_cost_by_group(COST, GROUPS, order="fm"), TypeError, "order='fm' must be a list"),
    (lambda: viz.plot_coverage_curve(COST, GROUPS, order=["m"]), ValueError, r"leaves out the group\(s\) \['f'\]"),
    (lambda: viz.plot_coverage_curve(COST, GROUPS, budgets=[0.0, np.inf]), ValueError, r"budgets\[1\]=inf is infinite"),
    (lambda: viz.plot_coverage_curve(COST, GROUPS, budgets=["x"]), TypeError, "budgets holds strings"),
    (lambda: viz.plot_cost_by_group(pd.Series([0.1, 0.2], index=[1, 2]), pd.Series(["f", "m"], index=[2, 1])),
     ValueError, "groups has a different index from cost"),
    # ---------------------------------------------------------------- changes of one move
    (lambda: viz.plot_changes(pd.DataFrame({"x": [1]})), ValueError, "describe_changes"),
    (lambda: viz.plot_changes(CHANGES.to_dict()), TypeError, "changes is a dict"),
    (lambda: viz.plot_changes(CHANGES.assign(cost=["high"])), TypeError, r"changes\['cost'\] has dtype \w+"),
    (lambda: viz.plot_changes(CHANGES.assign(cost=[np.nan])), ValueError, r"changes\['cost'\]\[0\]=nan is missing"),
    (lambda: viz.plot_changes(CHANGES, wrap=2.5), TypeError, "wrap=2.5 must be an integer"),
    # ---------------------------------------------------------------- recourse intuition
    (intuition(points=[[1.0, 1.0, 0.0]] * 4), ValueError, r"points has shape \(4, 3\); expected 2 columns"),
    (intuition(points=POINTS * [[1.0], [1.0], [np.nan], [1.0]]), ValueError, r"points\[2, 0\]=nan is missing"),
    (intuition(points=POINTS * [[1.0], [1.0], [1.0], [np.inf]]), ValueError, r"points\[3, 0\]=inf is infinite"),
    (intuition(points=[["a", "b"]] * 4), TypeError, "points holds strings"),
    (intuition(points=np.empty((0, 2))), ValueError, "points is empty"),
    (intuition(favourable=[0, 2, 1, 0]), ValueError, "favourable must be boolean or 0/1"),
    (intuition(favourable=["no", "yes", "yes", "no"]), ValueError, "favourable must be boolean or 0/1"),
    (intuition(favourable=FAVOURABLE[:3]), ValueError, r"favourable has shape \(3,\)"),
    (intuition(favourable=[False, True, None, False]), ValueError, r"favourable\[2\] is missing"),
    (intuition(factual=2.7), TypeError, "factual=2.7 must be an integer"),
    (intuition(factual=True), TypeError, "factual=True must be an integer"),
    (intuition(factual=9), ValueError, r"factual=9 is not a row of points; give a position in 0..3"),
    (intuition(factual=1, path=None), ValueError, "factual=1 is approved"),
    (intuition(nearest=3), ValueError, "nearest=3 is refused"),
    (intuition(nearest=1.0), TypeError, "nearest=1.0 must be an integer"),
    (intuition(recourse=[1.0, np.nan]), ValueError, r"recourse\[1\]=nan is missing"),
    (intuition(recourse=[1.0, 2.0, 3.0]), ValueError, r"recourse has 3 entries but there are 2 coordinates"),
    (intuition(recourse=["1", "2"]), TypeError, "recourse holds strings"),
    (intuition(recourse=[1.0, 1.5]), ValueError, r"recourse=\[1.0, 1.5\] lies on the refused side of boundary"),
    (intuition(counterfactual=[1.0, 1.5]), ValueError,
     r"counterfactual=\[1.0, 1.5\] lies on the refused side of boundary"),
    (intuition(counterfactual=[1.0]), ValueError, r"counterfactual has 1 entries but there are 2 coordinates"),
    (intuition(path=[1, 2]), ValueError, "path starts at row 1, not at factual=0"),
    (intuition(path=[0, 3]), ValueError, "path ends at row 3, who is refused"),
    (intuition(path=[0, 2.5]), TypeError, r"path\[1\]=2.5 must be an integer"),
    (intuition(path=[0]), ValueError, r"path=\[0\] must list at least two rows"),
    (intuition(path=[0, 7]), ValueError, r"path\[1\]=7 is not a row position \(0..3\)"),
    (intuition(boundary=([1.0, 1.0], 0.0)), ValueError, r"favourable\[0\]=False but row 0 lies on the approved side"),
    (intuition(boundary=([0.0, 0.0], 1.0)), ValueError, r"boundary's coef=\[0.0, 0.0\] must be two finite numbers"),
    (intuition(boundary=([-1.0, np.inf], 1.0)), ValueError, r"boundary's coef\[1\]=inf is infinite"),
    (intuition(boundary=([-1.0, 1.0, 2.0], 1.0)), ValueError, "boundary's coef has 3 entries but there are 2"),
    (intuition(boundary=([-1.0, 1.0], np.inf)), ValueError, "boundary's intercept=inf must be a finite number"),
    (intuition(boundary=([-1.0, 1.0], "1")), TypeError, "boundary's intercept='1' must be a number"),
    (intuition(boundary=[-1.0, 1.0, -1.0]), ValueError,
     r"boundary=\[-1.0, 1.0, -1.0\] must be a pair \(coef, intercept\)"),
    (intuition(actionability=("increase", "sometimes")), ValueError, "actionability for y='sometimes' is not one of"),
    (intuition(actionability="increase"), ValueError, "actionability='increase' must be a pair"),
    (intuition(labels={"star": "Ana"}), ValueError, r"labels has unknown keys \['star'\]"),
    (intuition(labels=["Ana"]), TypeError, "labels is a list; give a dict"),
    # ---------------------------------------------------------------- graph figures
    (lambda: viz.plot_feasibility_graph(np.zeros((3, 3)), np.zeros((3, 2))), TypeError, "pass a FeasibilityGraph"),
    (lambda: viz.plot_feasibility_graph(graph(), np.zeros((2, 2))), ValueError,
     "positions has 2 entries but there are 3 nodes"),
    (lambda: viz.plot_feasibility_graph(graph(), np.zeros((3, 3))), ValueError, r"positions has shape \(3, 3\)"),
    (lambda: viz.plot_feasibility_graph(graph(), [["a", "b"]] * 3), TypeError, "positions holds strings"),
    (lambda: viz.plot_feasibility_graph(graph(), np.full((3, 2), np.nan)), ValueError, "positions.* is missing"),
    (lambda: viz.plot_feasibility_graph(graph(), np.zeros((3, 2)), favourable=[1, 0]), ValueError,
     r"favourable has shape \(2,\)"),
    (lambda: viz.plot_feasibility_graph(graph(), np.zeros((3, 2)), groups=["f", None, "m"]), ValueError,
     "groups has missing labels"),
    (lambda: viz.plot_feasibility_graph(graph(), np.zeros((3, 2)), groups=["f", "m", "m"], group_order=["f"]),
     ValueError, r"group_order=\['f'\] leaves out the group\(s\) \['m'\]"),
    (lambda: viz.plot_feasibility_graph(graph(), np.zeros((3, 2)), path=[0, 5]), ValueError,
     r"path\[1\]=5 is not a row position"),
    (lambda: viz.plot_feasibility_graph(graph(), np.zeros((3, 2)), labels=["a"]), ValueError,
     r"labels must give one label per node \(3\)"),
    (lambda: viz.plot_connectivity(CONNECTIVITY.drop(columns="components")), ValueError, "connectivity_by_epsilon"),
    (lambda: viz.plot_connectivity(CONNECTIVITY.iloc[:0]), ValueError, "table has no rows"),
    (lambda: viz.plot_connectivity(CONNECTIVITY.assign(epsilon=["a", "b"])), TypeError,
     r"table\['epsilon'\] has dtype \w+"),
    (lambda: viz.plot_connectivity(CONNECTIVITY, chosen="0.1"), TypeError, "chosen='0.1' must be a number"),
    (lambda: viz.plot_connectivity(list(CONNECTIVITY)), TypeError, "table is a list"),
    (lambda: viz.plot_attribute_change_frequency(CHANGE_FREQUENCY.drop(columns="covered")), ValueError,
     "attribute_change_frequency"),
    (lambda: viz.plot_attribute_change_frequency(CHANGE_FREQUENCY, min_share=1.5), ValueError,
     "min_share=1.5 must be <= 1"),
    (lambda: viz.plot_attribute_change_frequency(CHANGE_FREQUENCY.assign(age=[0.2, 1.5])), ValueError,
     r"table's shares\[1, 0\]=1.5 is above 1"),
    (lambda: viz.plot_auc_curves({}), ValueError, "results is empty"),
    (lambda: viz.plot_auc_curves({"f": [1.0]}), TypeError, "results must hold lists of AUCResult"),
    (lambda: viz.plot_auc_curves({"f": [auc()], "m": [auc("dAUC")]}), ValueError, "results mixes metrics"),
    (lambda: viz.plot_auc_curves({"f": [auc()], "m": [auc()]}, group_order=["m"]), ValueError,
     r"group_order=\['m'\] leaves out the group\(s\) \['f'\]"),
    (lambda: viz.plot_dag([("a", "b")]), TypeError, "pass a networkx.DiGraph"),
    (lambda: viz.plot_dag(DAG, highlight=["gender"]), ValueError, r"highlight names \['gender'\]"),
    (lambda: viz.plot_dag(DAG, decision="loan", inputs=["salary"]), ValueError, r"inputs names \['salary'\]"),
    (lambda: viz.plot_dag(DAG, decision="sex", inputs=["income"]), ValueError, "dag has a cycle"),
    # ---------------------------------------------------------------- explanation consistency and the lenses
    (lambda: viz.plot_attribution_pair([1.0], [1.0, 2.0], ["a"]), ValueError, "same length"),
    (lambda: viz.plot_attribution_pair(["a"], [1.0], ["a"]), TypeError, "attributions holds strings"),
    (lambda: viz.plot_attribution_pair([np.nan], [1.0], ["a"]), ValueError, r"attributions\[0\]=nan is missing"),
    (lambda: viz.plot_attribution_pair([], [], []), ValueError, "attributions is empty"),
    (lambda: viz.plot_attribution_pair([1.0], [1.0], "a"), TypeError, "feature_names='a' must be a list"),
    (lambda: viz.plot_attribution_pair([1.0], [1.0], ["a"], top=0), ValueError, "top=0 must be at least 1"),
    (lambda: viz.plot_attribution_pair([1.0], [1.0], ["a"], top=1.5), TypeError, "top=1.5 must be an integer"),
    (lambda: viz.plot_attribution_pair(pd.Series([1.0, 2.0], index=["a", "b"]),
                                       pd.Series([1.0, 2.0], index=["b", "a"]), ["a", "b"]),
     ValueError, "attributions_cf has a different index from attributions"),
    (lambda: viz.plot_regime_shares(SHARES.drop(columns="D")), ValueError, "columns 'A'"),
    (lambda: viz.plot_regime_shares(SHARES.to_numpy()), TypeError, "shares is a ndarray"),
    (lambda: viz.plot_regime_shares(SHARES.assign(A=[1.5])), ValueError, r"shares\[0, 0\]=1.5 is above 1"),
    (lambda: viz.plot_regime_shares(SHARES.assign(B=[-0.1])), ValueError, r"shares\[0, 1\]=-0.1 is below 0"),
    (lambda: viz.plot_regime_shares(SHARES.assign(C=["x"])), TypeError, r"shares\['C'\] has dtype \w+"),
    (lambda: viz.plot_regime_shares(SHARES.iloc[:0]), ValueError, "shares is empty"),
    (lambda: viz.plot_pfr_cec(PFR, palette={"x": "red"}), ValueError, "no colour for"),
    (lambda: viz.plot_pfr_cec(PFR, y="CEC score"), ValueError, "no column 'CEC score'"),
    (lambda: viz.plot_pfr_cec(PFR.assign(PFR=["low", "high"])), TypeError, r"frame\['PFR'\] has dtype \w+"),
    (lambda: viz.plot_pfr_cec(PFR.assign(CEC=[np.inf, 0.2])), ValueError, r"frame\['CEC'\]\[0\]=inf is infinite"),
    (lambda: viz.plot_pfr_cec(PFR.iloc[:0]), ValueError, "frame has no rows"),
    (lambda: viz.plot_pfr_cec(PFR, pfr_line=np.nan), ValueError, "pfr_line=nan must be a finite number"),
    (lambda: viz.plot_pfr_cec(PFR, legend="yes"), TypeError, "legend='yes' must be True or False"),
    (lambda: viz.plot_flag_overlap(FLAGS.astype(int)), ValueError, "booleans"),
    (lambda: viz.plot_flag_overlap(FLAGS & False), ValueError, "no individual is flagged"),
    (lambda: viz.plot_flag_overlap(FLAGS.to_numpy()), TypeError, "flags is a ndarray"),
    (lambda: viz.plot_flag_overlap(FLAGS, groups=["f", "m"]), ValueError, r"groups has shape \(2,\)"),
    (lambda: viz.plot_flag_overlap(FLAGS, groups=["f", "m", None, "m", "f"]), ValueError, "groups has missing labels"),
    (lambda: viz.plot_flag_overlap(FLAGS, groups=list("fmfmm"), group_order=["f"]), ValueError,
     r"group_order=\['f'\] leaves out the group\(s\) \['m'\]"),
    (lambda: viz.plot_flag_overlap(FLAGS, groups=pd.Series(list("fmfmm"), index=[4, 3, 2, 1, 0])), ValueError,
     "groups has a different index from flags"),
    (lambda: viz.plot_flag_overlap(FLAGS, max_combinations=2.5), TypeError, "max_combinations=2.5 must be an integer"),
    (lambda: viz.plot_overlap_vs_chance(OVERLAP.drop(columns="expected")), ValueError, "columns"),
    (lambda: viz.plot_overlap_vs_chance(OVERLAP, lifts=pd.DataFrame({"pair": ["y × z"], "lift": [1.0]})), ValueError,
     "not rows of table"),
    (lambda: viz.plot_overlap_vs_chance(OVERLAP.assign(expected=np.nan)), ValueError, "is missing"),
    (lambda: viz.plot_overlap_vs_chance(OVERLAP.assign(observed=["3"])), TypeError,
     r"table\['observed'\] has dtype \w+; give numbers"),
    (lambda: viz.plot_pfr_cec(PFR.assign(PFR=["0.1", "0.3"])), TypeError, r"frame\['PFR'\] has dtype \w+"),
    (lambda: viz.plot_overlap_vs_chance(OVERLAP.iloc[:0]), ValueError, "table has no rows"),
    (lambda: viz.plot_overlap_vs_chance(OVERLAP.to_dict()), TypeError, "table is a dict"),
    (lambda: viz.plot_overlap_vs_chance(OVERLAP, lifts=pd.DataFrame({"pair": ["x × y"], "lift": ["big"]})), TypeError,
     r"lifts\['lift'\] has dtype \w+"),
    # ---------------------------------------------------------------- explorers
    (lambda: viz.slider("k", 20, 1, 10, 1), ValueError, "value=20"),
    (lambda: viz.slider("k", 2.5, 1, 10, 1, integer=True), TypeError, "value=2.5 must be an integer"),
    (lambda: viz.slider("k", "2", 1, 10, 1), TypeError, "value='2' must be a number"),
    (lambda: viz.slider("k", np.nan, 1, 10, 1), ValueError, "value=nan must be a finite number"),
    (lambda: viz.slider("k", 2, 1, 10, 0), ValueError, "step=0.0 must be > 0"),
    (lambda: viz.slider("", 2, 1, 10, 1), TypeError, "description='' must be a non-empty string"),
    (lambda: viz.slider("k", 2, 1, 10, 1, integer="yes"), TypeError, "integer='yes' must be True or False"),
    (lambda: viz.dropdown("who", []), ValueError, "is empty"),
    (lambda: viz.dropdown("who", "ab"), TypeError, "options='ab' must be a list"),
    (lambda: viz.dropdown("who", ["a", "b"], value="c"), ValueError, "value='c' is not among the options"),
    (lambda: viz.explorer(lambda: None, {}), ValueError, "controls is empty"),
    (lambda: viz.explorer(3, controls()), TypeError, "update is a int"),
    (lambda: viz.explorer(bars, {"k": ipywidgets.Button()}), TypeError,
     r"controls\['k'\] is a Button, not a value widget"),
    (lambda: viz.explorer(bars, controls(), title=3), TypeError, "title=3 must be a string"),
    (lambda: viz.check_explorer(viz.explorer(bars, controls()), values={"z": 1}), ValueError,
     r"\['z'\], which are not controls"),
    (lambda: viz.check_explorer(viz.explorer(bars, controls()), values=[1]), TypeError, "values is a list"),
    (lambda: viz.check_explorer(ipywidgets.VBox()), TypeError, "pass what recourselab.viz.explorer returned"),
    (lambda: viz.check_explorer(viz.explorer(bars, controls()), min_png_bytes=-1), ValueError,
     "min_png_bytes=-1 must be at least 0"),
    (lambda: viz.check_explorer(viz.explorer(bars, controls()), min_png_bytes=1.5), TypeError,
     "min_png_bytes=1.5 must be an integer"),
    (lambda: viz.check_explorer(viz.explorer(lambda c: bars(3, c), {"c": viz.dropdown("c", ["red"])})), ValueError,
     "one option only"),
    # ---------------------------------------------------------------- twins
    (lambda: viz.sweep(3, {"a": [1]}), TypeError, "compute is a int"),
    (lambda: viz.sweep(coverage, {}), ValueError, "grid is empty"),
    (lambda: viz.sweep(coverage, {"k": [], "d": [1.0]}), ValueError, r"grid\['k'\] has no values"),
    (lambda: viz.sweep(coverage, {"k": [1]}, fixed={"k": 2, "d": 1.0}), ValueError, "both swept"),
    (lambda: viz.sweep(coverage, {"k": [1]}, fixed=[("d", 1.0)]), TypeError, "fixed is a list"),
    (lambda: viz.sweep(lambda k: 1.0, {"k": [1]}), TypeError, "returned a float"),
    (lambda: viz.sweep(lambda k: {"k": k}, {"k": [1]}), ValueError, r"columns \['k'\], which are also grid keywords"),
    (lambda: viz.sweep(lambda k: pd.DataFrame({"v": [1]}, index=pd.Index([0], name="k")), {"k": [1]}), ValueError,
     r"columns \['k'\], which are also grid keywords"),
    (lambda: viz.sweep(lambda k: pd.DataFrame({"g": [1]}, index=pd.Index(["a"], name="g")), {"k": [1]}), ValueError,
     r"index level\(s\) \['g'\] that are also columns"),
    (twin(lambda: table().to_dict()), TypeError, "pass a pandas DataFrame"),
    (twin(lambda: table().iloc[:0]), ValueError, "frame is empty"),
    (twin(y="nope"), ValueError, r"columns \['nope'\] are not in frame"),
    (twin(title=""), TypeError, "title='' must be a non-empty string"),
    (twin(mark="area"), ValueError, "mark='area'"),
    (twin(sliders={}), ValueError, "sliders is empty"),
    (twin(x="k", sliders={"k": "k"}), ValueError, "'k' is both an axis and a slider"),
    (twin(with_value("covered", 3, np.inf)), ValueError, "'covered' has NaN or infinite values .first at index 3"),
    (twin(with_value("covered", 0, np.nan)), ValueError, "NaN or infinite"),
    (twin(lambda: table()[table().k == 1]), ValueError, "slider column 'k' has 1 distinct value"),
    (twin(with_value("d", 0, np.inf, float)), ValueError, "slider column 'd' has infinite values"),
    (twin(defaults={"k": 7}), ValueError, r"defaults\['k'\]=7 is not among"),
    (twin(defaults={"z": 1}), ValueError, r"defaults names \['z'\]"),
    (twin(defaults=[1]), TypeError, "defaults is a list"),
    (twin(sliders={"k": "", "d": "d"}), TypeError, r"sliders\['k'\]='' must be a non-empty label"),
    (twin(max_rows=10), ValueError, "more than max_rows=10"),
    (twin(max_rows=1.5), TypeError, "max_rows=1.5 must be an integer"),
    (twin(x_scale="sqrt"), ValueError, "x_scale='sqrt'"),
    (twin(width=0), ValueError, "width=0 must be at least 1"),
    (twin(height=120.5), TypeError, "height=120.5 must be an integer"),
    (twin(tooltip="group"), TypeError, "tooltip='group' must be a list of column names"),
    (twin(x_domain=(0, np.nan)), ValueError, r"x_domain\[1\]=nan is missing"),
    (twin(x_domain=(5, 1)), ValueError, r"x_domain=\[5.0, 1.0\] must be \(low, high\) with low < high"),
    (twin(x_domain=("0", "6")), TypeError, "x_domain holds strings"),
    (twin(color="group", colors={"Female": "#D55E00"}), ValueError, r"colors has no colour for \['Male'\]"),
    (twin(color="group", stack="no"), TypeError, "stack='no' must be True or False"),
    (lambda: viz.twin_chart(table(), x="covered", y="group", sliders={"k": "k"}, title="t", x_title="x",
                            y_title="y").view(z=1), ValueError, "not sliders"),
    (lambda: viz.twin_chart(table(), x="covered", y="group", sliders={"k": "k"}, title="t", x_title="x",
                            y_title="y").view(k="two"), TypeError, "k='two' must be a number"),
    (lambda: viz.explorer(bars, controls()).restore({"z": 1}), ValueError, r"values names \['z'\]"),
]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("call, error, match", CASES)
def test_bad_input_gets_the_packages_own_message(call, error, match):
    with pytest.raises(error, match=match):
        call()

"""Bad input to every public function of recourselab.group_counterfactuals: one table.

Each row: the call, the error type and a regex of the package's own message (wrong type:
TypeError; wrong value: ValueError; the message names the argument and the value).
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

from recourselab.features import Encoder, FeatureSpec
from recourselab.group_counterfactuals import (
    attribute_change_frequency,
    auc_table,
    build_feasibility_graph,
    cauc,
    choose_epsilon,
    connectivity_by_epsilon,
    cost_grid,
    dauc,
    face_counterfactuals,
    group_vs_individual_cost,
    k_grid,
    kauc,
    max_coverage,
    min_max_cost,
    minimum_resources,
    minimum_resources_table,
    nice_values,
)

INF = np.inf
C3 = np.array([[1.0, 2.0, INF], [2.0, INF, 1.0]])  # 2 factuals x 3 candidates
SMALL = np.array([[1.0, INF, 3.0], [INF, 2.0, 0.5], [2.0, INF, INF]])
Z3 = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0]])
TWO_GROUPS = np.where(np.arange(12)[:, None] % 2 == 0, np.arange(6)[None, :] / 2 + 0.5, INF)
TWO_GROUPS[:, 0] = 1.0
GROUPS = np.repeat(["a", "b"], 6)
AUC = dict(k_values=[1, 2], d_values=[1.0, 2.0], c_values=[0.25, 1.0])


def with_nan(C, i, j):
    C = C.copy()
    C[i, j] = np.nan
    return C


def _encoder():
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("job", "categorical"),
             FeatureSpec("sex", "binary", "immutable", order=["f", "m"])]
    frame = pd.DataFrame({"age": [20, 30, 20, 40], "job": ["a", "a", "b", "b"], "sex": ["f", "f", "f", "f"]})
    encoder = Encoder(specs).fit(frame)
    return encoder, encoder.transform(frame)


ENC, ZE = _encoder()  # 4 rows, 4 encoded columns (age, job: 2, sex)
GRAPH = build_feasibility_graph(Z3, 2.5, weighting="distance")  # 3 nodes, no encoder
KDE_GRAPH = build_feasibility_graph(np.array([[0.0], [0.1], [0.2]]), 0.15, weighting="kde")
ENC_GRAPH = build_feasibility_graph(ZE, 2.0, encoder=ENC, weighting="distance")
TABLE = pd.DataFrame({"epsilon": [1.0, 2.0], "coverable sources": [1, 2]})
ACF = (ENC, ZE[:3], ZE[[1, 3]])


def acf(**changes):
    args = dict(encoder=ENC, Z_factual=ZE[:3], Z_candidates=ZE[[1, 3]], assignment=[0, 1, -1])
    args.update(changes)
    return lambda: attribute_change_frequency(**args)


CASES = [
    # ------------------------------------------------------------------ build_feasibility_graph
    (lambda: build_feasibility_graph(Z3, 0), ValueError, r"epsilon=0 must be > 0"),
    (lambda: build_feasibility_graph(Z3, -1), ValueError, r"epsilon=-1 must be > 0"),
    (lambda: build_feasibility_graph(Z3, np.inf), ValueError, r"epsilon=inf must be a finite number"),
    (lambda: build_feasibility_graph(Z3, np.nan), ValueError, r"epsilon=nan must be a finite number"),
    (lambda: build_feasibility_graph(Z3, "0.5"), TypeError, r"epsilon='0.5' must be a number"),
    (lambda: build_feasibility_graph(Z3, True), TypeError, r"epsilon=True must be a number"),
    (lambda: build_feasibility_graph(Z3, 0.1), ValueError,
     r"leaves all 3 nodes without an edge; the median nearest-neighbour distance is 1.41"),
    (lambda: build_feasibility_graph(Z3, 2, weighting="density"), ValueError, r"weighting='density' is not one of"),
    (lambda: build_feasibility_graph(Z3, 2, bandwidth=-1), ValueError, r"bandwidth=-1 must be > 0"),
    (lambda: build_feasibility_graph(Z3, 2, bandwidth=0.0), ValueError, r"bandwidth=0 must be > 0"),
    (lambda: build_feasibility_graph(Z3, 2, bandwidth=np.nan), ValueError, r"bandwidth=nan must be a finite number"),
    (lambda: build_feasibility_graph(Z3, 2, bandwidth=np.inf), ValueError, r"bandwidth=inf must be a finite number"),
    (lambda: build_feasibility_graph(Z3, 2, bandwidth=True), TypeError, r"bandwidth=True must be a number"),
    (lambda: build_feasibility_graph(Z3, 2, bandwidth="auto"), ValueError,
     r"bandwidth='auto' is not one of \('scott', 'silverman'\)"),
    (lambda: build_feasibility_graph(np.zeros((0, 2)), 1.0), ValueError, r"Z is empty"),
    (lambda: build_feasibility_graph(np.array([[0.0, np.nan], [1.0, 1.0]]), 1.0), ValueError,
     r"Z\[0, 1\]=nan is missing \(NaN\)"),
    (lambda: build_feasibility_graph(np.array([[0.0, np.inf], [1.0, 1.0]]), 1.0), ValueError,
     r"Z\[0, 1\]=inf is infinite"),
    (lambda: build_feasibility_graph([["a", "b"], ["c", "d"]], 1.0), TypeError, r"Z holds strings"),
    (lambda: build_feasibility_graph(np.zeros(3), 1.0), ValueError, r"Z has shape \(3,\); give a 2-d table"),
    (lambda: build_feasibility_graph(Z3, 1.0, encoder=ENC), ValueError, r"Z has shape \(3, 2\); expected 4 columns"),
    (lambda: build_feasibility_graph(Z3, 1.0, encoder="encoder"), TypeError,
     r"encoder must be a fitted recourselab Encoder"),
    (lambda: build_feasibility_graph(Z3, 2, max_kde_points=2.5), TypeError, r"max_kde_points=2.5 must be an integer"),
    (lambda: build_feasibility_graph(Z3, 2, max_kde_points=1), ValueError, r"max_kde_points=1 must be at least 2"),
    (lambda: build_feasibility_graph(Z3, 2, random_state=2.7), TypeError,
     r"random_state=2.7 must be None, an int seed or a numpy.random.Generator"),
    (lambda: build_feasibility_graph(Z3, 2, random_state=-1), ValueError, r"random_state=-1 must be an int >= 0"),
    # ------------------------------------------------------------------ FeasibilityGraph.costs
    (lambda: GRAPH.costs([5], [0]), ValueError, r"sources\[0\]=5 is not a row position \(0..2\)"),
    (lambda: GRAPH.costs([0], []), ValueError, r"targets is empty"),
    (lambda: GRAPH.costs([0], [1], cost="euclid"), ValueError, r"cost='euclid' is not one of \('path', 'hops', 'l2'\)"),
    (lambda: GRAPH.costs([2.7], [0]), TypeError, r"sources\[0\]=2.7 must be an integer"),
    (lambda: GRAPH.costs([0, np.nan], [0]), TypeError, r"sources\[1\]=nan must be an integer"),
    (lambda: GRAPH.costs([np.inf], [0]), TypeError, r"sources\[0\]=inf must be an integer"),
    (lambda: GRAPH.costs([-np.inf, 1], [0]), TypeError, r"sources\[0\]=-inf must be an integer"),
    (lambda: GRAPH.costs(np.array([0.0, 1.0]), [2]), TypeError, r"sources\[0\]=0.0 must be an integer"),
    (lambda: GRAPH.costs([0], ["1"]), TypeError, r"targets\[0\]='1' must be an integer"),
    (lambda: GRAPH.costs(None, [0]), TypeError, r"sources=None; give integer row positions"),
    (lambda: GRAPH.costs([True, False], [0]), ValueError, r"sources has shape \(2,\); give one entry per row \(3\)"),
    (lambda: GRAPH.costs([False, False, False], [0]), ValueError, r"sources is empty"),
    (lambda: GRAPH.costs([[0, 1], [2]], [0]), TypeError, r"sources must be a list of node indices or a boolean mask"),
    # ------------------------------------------------------------------ connectivity_by_epsilon, choose_epsilon
    (lambda: connectivity_by_epsilon(Z3, [0.5, -1]), ValueError, r"epsilons\[1\]=-1.0 is below 0"),
    (lambda: connectivity_by_epsilon(Z3, [0.5, 0.0]), ValueError, r"epsilons holds 0"),
    (lambda: connectivity_by_epsilon(Z3, ["a"]), TypeError, r"epsilons holds strings"),
    (lambda: connectivity_by_epsilon(Z3, [True]), TypeError, r"epsilons=\[True\] holds booleans"),
    (lambda: connectivity_by_epsilon(Z3, [0.5, np.inf]), ValueError, r"epsilons\[1\]=inf is infinite"),
    (lambda: connectivity_by_epsilon(Z3, [0.5, np.nan]), ValueError, r"epsilons\[1\]=nan is missing"),
    (lambda: connectivity_by_epsilon(Z3, []), ValueError, r"epsilons is empty"),
    (lambda: connectivity_by_epsilon(np.array([[0.0], [0.1]]), [0.5], sources=[0.5], targets=[1]), TypeError,
     r"sources\[0\]=0.5 must be an integer"),
    (lambda: connectivity_by_epsilon(Z3, [0.5], sources=[0]), ValueError, r"give sources and targets together"),
    (lambda: connectivity_by_epsilon(Z3, [0.5], encoder=ENC), ValueError, r"Z has shape \(3, 2\); expected 4"),
    (lambda: connectivity_by_epsilon(np.array([[0.0], [np.nan]]), [0.5]), ValueError, r"Z\[1, 0\]=nan is missing"),
    (lambda: choose_epsilon(pd.DataFrame({"epsilon": [], "coverable sources": []})), ValueError,
     r"connectivity has no rows"),
    (lambda: choose_epsilon([1.0, 2.0]), TypeError, r"connectivity must be the DataFrame connectivity_by_epsilon"),
    (lambda: choose_epsilon(TABLE.drop(columns="coverable sources")), ValueError, r"'coverable sources' column"),
    (lambda: choose_epsilon(TABLE.assign(epsilon=[1.0, np.nan])), ValueError,
     r"connectivity\['epsilon'\]\[1\]=nan is missing"),
    (lambda: choose_epsilon(TABLE.assign(**{"coverable sources": [1.5, 2.0]})), TypeError,
     r"connectivity\['coverable sources'\]\[0\]=1.5 must be an integer"),
    # ------------------------------------------------------------------ face_counterfactuals
    (lambda: face_counterfactuals(Z3, [0], [1]), TypeError, r"graph must be a FeasibilityGraph, got ndarray"),
    (lambda: face_counterfactuals(GRAPH, [0], [2, 1.5]), TypeError, r"targets\[1\]=1.5 must be an integer"),
    (lambda: face_counterfactuals(GRAPH, [], [1]), ValueError, r"sources is empty"),
    (lambda: face_counterfactuals(GRAPH, [0], [1], cost="euclid"), ValueError, r"cost='euclid' is not one of"),
    (lambda: face_counterfactuals(GRAPH, [0], [1, 2], proba=[0.1, 0.6, 0.9], min_proba=1.5), ValueError,
     r"min_proba=1.5 must be <= 1"),
    (lambda: face_counterfactuals(GRAPH, [0], [1, 2], proba=[0.1, 0.6, 0.9], min_proba=-0.1), ValueError,
     r"min_proba=-0.1 must be >= 0"),
    (lambda: face_counterfactuals(GRAPH, [0], [1, 2], proba=[0.1, 0.6, 0.9], min_proba="high"), TypeError,
     r"min_proba='high' must be a number"),
    (lambda: face_counterfactuals(GRAPH, [0], [1, 2], proba=[0.1, np.nan, 0.9], min_proba=0.5), ValueError,
     r"proba\[1\]=nan is missing \(NaN\)"),
    (lambda: face_counterfactuals(GRAPH, [0], [1, 2], proba=[0.1, 1.5, 0.9], min_proba=0.5), ValueError,
     r"proba\[1\]=1.5 is above 1"),
    (lambda: face_counterfactuals(GRAPH, [0], [1, 2], proba=[-0.1, 0.5, 0.9], min_proba=0.5), ValueError,
     r"proba\[0\]=-0.1 is below 0"),
    (lambda: face_counterfactuals(GRAPH, [0], [1, 2], proba=["a", "b", "c"], min_proba=0.5), TypeError,
     r"proba holds strings"),
    (lambda: face_counterfactuals(GRAPH, [0], [1], proba=[0.5], min_proba=0.5), ValueError,
     r"proba has 1 entries but there are 3 nodes"),
    (lambda: face_counterfactuals(GRAPH, [0], [1], min_proba=0.5), ValueError, r"min_proba needs proba"),
    (lambda: face_counterfactuals(KDE_GRAPH, [0], [2], log_density_min=np.nan), ValueError,
     r"log_density_min=nan must be a finite number"),
    (lambda: face_counterfactuals(KDE_GRAPH, [0], [2], log_density_min="high"), TypeError,
     r"log_density_min='high' must be a number"),
    (lambda: face_counterfactuals(KDE_GRAPH, [0], [1, 2], log_density_min=50.0), ValueError,
     r"log_density_min=50.0 leaves no admissible target"),
    (lambda: face_counterfactuals(GRAPH, [0], [1], log_density_min=0.0), ValueError,
     r"needs a graph built with weighting='kde'"),
    (lambda: face_counterfactuals(GRAPH, [0], [1], actionable="yes"), ValueError,
     r"actionable='yes' is not one of \(False, True\)"),
    (lambda: face_counterfactuals(GRAPH, [0], [1], actionable=True), ValueError,
     r"actionable=True needs an encoder"),
    (lambda: face_counterfactuals(GRAPH, [0], [1], encoder=ENC), ValueError,
     r"encoder has 4 encoded columns but the graph's nodes have 2"),
    (lambda: face_counterfactuals(ENC_GRAPH, [0], [1], encoder="encoder"), TypeError,
     r"encoder must be a fitted recourselab Encoder"),
    # ------------------------------------------------------------------ max_coverage, min_max_cost
    (lambda: max_coverage(C3, 0, 1.0), ValueError, r"k=0 must be at least 1"),
    (lambda: min_max_cost(C3, -2, 0.5), ValueError, r"k=-2 must be at least 1"),
    (lambda: max_coverage(C3, 4, 1.0), ValueError, r"k=4 is larger than the 3 candidates \(columns of C\); use k <= 3"),
    (lambda: max_coverage(C3, 1.5, 1.0), TypeError, r"k=1.5 must be an integer"),
    (lambda: min_max_cost(C3, 2.7, 0.5), TypeError, r"k=2.7 must be an integer, not float"),
    (lambda: max_coverage(C3, np.float64(2.0), 1.0), TypeError, r"k=np.float64\(2.0\) must be an integer"),
    (lambda: max_coverage(C3, True, 1.0), TypeError, r"k=True must be an integer, not bool"),
    (lambda: max_coverage(C3, "2", 1.0), TypeError, r"k='2' must be an integer, not str"),
    (lambda: min_max_cost(C3, 1, 1.5), ValueError, r"c=1.5 must be <= 1"),
    (lambda: min_max_cost(C3, 1, 0), ValueError, r"c=0 must be > 0"),
    (lambda: min_max_cost(C3, 1, -0.1), ValueError, r"c=-0.1 must be > 0"),
    (lambda: min_max_cost(C3, 1, np.nan), ValueError, r"c=nan must be a finite number"),
    (lambda: min_max_cost(C3, 1, "half"), TypeError, r"c='half' must be a number"),
    (lambda: max_coverage(np.zeros((0, 3)), 1, 1.0), ValueError, r"C has 0 factual rows .*nothing to explain"),
    (lambda: min_max_cost(np.zeros((3, 0)), 1, 1.0), ValueError, r"C has 0 candidate columns .*X' is empty"),
    (lambda: max_coverage(np.array([[1.0, 2.0], [0.5, np.nan]]), 1, 1.0), ValueError,
     r"C has NaN costs \(first at row 1, column 1\); use np.inf"),
    (lambda: min_max_cost(np.array([[1.0, -1.0]]), 1, 1.0), ValueError,
     r"C has negative costs \(first C\[0, 1\] = -1.0\)"),
    (lambda: max_coverage(np.array([[1.0, -np.inf]]), 1, 1.0), ValueError, r"C has negative costs"),
    (lambda: max_coverage(sparse.csr_array(np.eye(2)), 1, 1.0), TypeError,
     r"C is a scipy sparse matrix; pass a dense ndarray with np.inf"),
    (lambda: max_coverage(np.ones(3), 1, 1.0), ValueError, r"C has shape \(3,\); give a 2-d cost matrix"),
    (lambda: max_coverage([["a", "b"]], 1, 1.0), TypeError, r"C must be a 2-d array of costs"),
    (lambda: max_coverage(C3, 1, 1.0, method="lp"), ValueError, r"method='lp' is not one of \('greedy', 'mip'\)"),
    (lambda: min_max_cost(C3, 1, 0.5, method="exact"), ValueError, r"method='exact' is not one of"),
    (lambda: max_coverage(C3, 1, -1), ValueError, r"d=-1 must be >= 0"),
    (lambda: max_coverage(C3, 1, INF), ValueError, r"d=inf must be a finite number"),
    (lambda: max_coverage(C3, 1, np.nan), ValueError, r"d=nan must be a finite number"),
    (lambda: max_coverage(C3, 1, "1"), TypeError, r"d='1' must be a number"),
    (lambda: max_coverage(C3, 1, 1.0, method="mip", time_limit=0), ValueError,
     r"time_limit=0 must be a positive number of seconds"),
    (lambda: max_coverage(C3, 1, 1.0, method="mip", time_limit=INF), ValueError,
     r"time_limit=inf must be a positive number of seconds \(finite"),
    (lambda: min_max_cost(C3, 1, 0.5, method="mip", time_limit=np.nan), ValueError,
     r"time_limit=nan must be a positive number of seconds"),
    (lambda: min_max_cost(C3, 1, 0.5, time_limit="1"), TypeError, r"time_limit='1' must be a number of seconds"),
    (lambda: min_max_cost(C3, 1, 0.5, random_state="seed"), TypeError, r"random_state='seed' must be None"),
    (lambda: min_max_cost(C3, 1, 0.5, random_state=1.7), TypeError,
     r"random_state=1.7 must be None, an int seed or a numpy.random.Generator"),
    (lambda: min_max_cost(C3, 1, 0.5, method="mip", random_state=1.7), TypeError, r"random_state=1.7 must be"),
    (lambda: min_max_cost(C3, 1, 0.5, random_state=True), TypeError, r"random_state=True must be None"),
    (lambda: min_max_cost(C3, 1, 0.5, random_state=[1, 2]), TypeError, r"random_state=\[1, 2\] must be None"),
    (lambda: min_max_cost(C3, 1, 0.5, random_state=-1), ValueError, r"random_state=-1 must be an int >= 0"),
    # ------------------------------------------------------------------ minimum_resources(_table)
    (lambda: minimum_resources(with_nan(SMALL, 1, 2)), ValueError, r"C has NaN costs \(first at row 1, column 2\)"),
    (lambda: minimum_resources(SMALL, method="exact"), ValueError, r"method='exact' is not one of \('mip', 'greedy'\)"),
    (lambda: minimum_resources(SMALL, time_limit=0), ValueError, r"time_limit=0 must be a positive number"),
    (lambda: minimum_resources(SMALL, time_limit=-1.0), ValueError, r"time_limit=-1.0 must be a positive number"),
    (lambda: minimum_resources(SMALL, time_limit=float("nan")), ValueError, r"time_limit=nan must be a positive"),
    (lambda: minimum_resources(SMALL, time_limit=float("inf")), ValueError, r"time_limit=inf must be a positive"),
    (lambda: minimum_resources(np.zeros((0, 2))), ValueError, r"C has 0 factual rows"),
    (lambda: minimum_resources([["1", "x"]]), TypeError, r"C must be a 2-d array of costs"),
    (lambda: minimum_resources_table(SMALL, ["a"]), ValueError, r"groups has shape \(1,\); give one label per factual"),
    (lambda: minimum_resources_table(SMALL, None), TypeError, r"groups=None; give one group label per factual"),
    (lambda: minimum_resources_table(SMALL, ["a", "b", None]), ValueError,
     r"groups has missing labels \(None or NaN; first at position 2;"),
    (lambda: minimum_resources_table(SMALL, ["a", "b", np.nan]), ValueError,
     r"groups has missing labels \(None or NaN; first at position 2;"),
    (lambda: minimum_resources_table(SMALL, ["a", "b", "b"], [np.nan, 1.0, 2.0]), ValueError,
     r"subgroups has missing labels \(None or NaN; first at position 0;"),
    (lambda: minimum_resources_table(SMALL, pd.Series(["a", "b", None], index=[10, 11, 12])), ValueError,
     r"first at position 2, index label 12;"),
    (lambda: minimum_resources_table(SMALL, [1, "1", 1]), ValueError, r"groups mixes strings and other values"),
    (lambda: minimum_resources_table(SMALL, ["a", "b", "b"], method="lp"), ValueError, r"method='lp' is not one of"),
    (lambda: minimum_resources_table(with_nan(SMALL, 0, 0), ["a", "b", "b"]), ValueError, r"C has NaN costs"),
    # ------------------------------------------------------------------ grids
    (lambda: cost_grid(SMALL, 2.7), TypeError, r"n=2.7 must be an integer"),
    (lambda: cost_grid(SMALL, 1), ValueError, r"n=1 must be at least 2"),
    (lambda: cost_grid(SMALL, start=np.nan), ValueError, r"start=nan must be a finite number"),
    (lambda: cost_grid(SMALL, start="0"), TypeError, r"start='0' must be a number"),
    (lambda: cost_grid(SMALL, start=-1.0), ValueError, r"start=-1 must be >= 0"),
    (lambda: cost_grid(SMALL, start=2.0, stop=1.0), ValueError, r"stop=1 is below start=2"),
    (lambda: cost_grid(np.full((2, 2), INF)), ValueError, r"C has no finite cost"),
    (lambda: k_grid(5.5), TypeError, r"k_max=5.5 must be an integer"),
    (lambda: k_grid(0), ValueError, r"k_max=0 must be at least 1"),
    (lambda: k_grid("3"), TypeError, r"k_max='3' must be an integer"),
    (lambda: k_grid(5, 3.5), TypeError, r"n=3.5 must be an integer"),
    (lambda: k_grid(5, 0), ValueError, r"n=0 must be at least 2"),
    (lambda: nice_values(0.0, 1.0, 4.5), TypeError, r"n=4.5 must be an integer"),
    (lambda: nice_values(1.0, 1.0), ValueError, r"nice_values needs lo < hi; got lo=1, hi=1"),
    (lambda: nice_values(np.nan, 1.0), ValueError, r"lo=nan must be a finite number"),
    (lambda: nice_values("0", 1.0), TypeError, r"lo='0' must be a number"),
    (lambda: nice_values(0.0, np.inf), ValueError, r"hi=inf must be a finite number"),
    # ------------------------------------------------------------------ kauc, dauc, cauc
    (lambda: kauc(SMALL, 2.7), TypeError, r"k=2.7 must be an integer"),
    (lambda: kauc(SMALL, True), TypeError, r"k=True must be an integer"),
    (lambda: kauc(SMALL, 0), ValueError, r"k=0 must be at least 1"),
    (lambda: kauc(SMALL, 1, [2.0, 1.0]), ValueError, r"d_grid=\[2.0, 1.0\] must be a non-empty, strictly increasing"),
    (lambda: kauc(SMALL, 1, []), ValueError, r"d_grid is empty"),
    (lambda: kauc(SMALL, 1, ["a"]), TypeError, r"d_grid holds strings"),
    (lambda: kauc(SMALL, 1, [0.5, np.nan]), ValueError, r"d_grid\[1\]=nan is missing"),
    (lambda: kauc(SMALL, 1, [-1.0, 1.0]), ValueError, r"d_grid\[0\]=-1.0 is below 0"),
    (lambda: kauc(SMALL, 1, [True, False]), TypeError, r"d_grid holds bools"),
    (lambda: kauc(np.full((2, 2), INF), 1, [1.0]), ValueError, r"no factual can reach any candidate; kAUC is undefine"),
    (lambda: kauc(SMALL, 1, method="lp"), ValueError, r"method='lp' is not one of"),
    (lambda: kauc(with_nan(SMALL, 1, 2), 1), ValueError, r"C has NaN costs \(first at row 1, column 2\)"),
    (lambda: dauc(SMALL, 1.0, [1, 2.5]), TypeError, r"k_values\[1\]=2.5 must be an integer"),
    (lambda: dauc(SMALL, 1.0, [True, 2]), TypeError, r"k_values\[0\]=True must be an integer"),
    (lambda: dauc(SMALL, 1.0, [0, 1]), ValueError, r"k_values\[0\]=0: k_values must hold integers >= 1"),
    (lambda: dauc(SMALL, 1.0, [2, 1]), ValueError, r"k_values=\[2, 1\] must be a non-empty, strictly increasing"),
    (lambda: dauc(SMALL, 1.0, []), ValueError, r"k_values=\[\] must be a non-empty"),
    (lambda: dauc(SMALL, np.nan), ValueError, r"d=nan must be a finite number"),
    (lambda: dauc(SMALL, -1.0), ValueError, r"d=-1 must be >= 0"),
    (lambda: dauc(SMALL, np.inf), ValueError, r"d=inf must be a finite number"),
    (lambda: dauc(SMALL, "1"), TypeError, r"d='1' must be a number"),
    (lambda: dauc(np.full((2, 2), INF), 1.0), ValueError, r"dAUC is undefined"),
    (lambda: cauc(SMALL, 1.5), ValueError, r"c=1.5 must be <= 1"),
    (lambda: cauc(SMALL, 0.0), ValueError, r"c=0 must be > 0"),
    (lambda: cauc(SMALL, 0.5, cost_ceiling=0.0), ValueError, r"cost_ceiling=0 must be > 0"),
    (lambda: cauc(SMALL, 0.5, cost_ceiling=-1.0), ValueError, r"cost_ceiling=-1 must be > 0"),
    (lambda: cauc(SMALL, 0.5, cost_ceiling=np.nan), ValueError, r"cost_ceiling=nan must be a finite number"),
    (lambda: cauc(SMALL, 0.5, cost_ceiling=np.inf), ValueError, r"cost_ceiling=inf must be a finite number"),
    (lambda: cauc(SMALL, 0.5, cost_ceiling=True), TypeError, r"cost_ceiling=True must be a number"),
    (lambda: cauc(np.array([[0.0, INF], [INF, 0.0]]), 1.0), ValueError, r"default cost_ceiling .* is 0"),
    (lambda: cauc(SMALL, 1.0, np.array([1.5, 2.0])), TypeError, r"k_values\[0\]=1.5 must be an integer"),
    (lambda: cauc(with_nan(SMALL, 1, 2), 1.0), ValueError, r"C has NaN costs \(first at row 1, column 2\)"),
    (lambda: cauc(np.full((2, 2), INF), 1.0), ValueError, r"cAUC is undefined"),
    # ------------------------------------------------------------------ auc_table
    (lambda: auc_table(TWO_GROUPS, GROUPS, **AUC, cost_ceiling=0.0), ValueError, r"cost_ceiling=0 must be > 0"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, k_values=[1, 2.7], d_values=[1.0], c_values=[1.0]), TypeError,
     r"k_values\[1\]=2.7 must be an integer"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, k_values=[0], d_values=[1.0], c_values=[1.0]), ValueError,
     r"k_values\[0\]=0 must be at least 1"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, **AUC, k_grid_dauc=[1, 1.5]), TypeError,
     r"k_grid_dauc\[1\]=1.5 must be an integer"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, **AUC, k_grid_cauc=[1, 1.5]), TypeError,
     r"k_grid_cauc\[1\]=1.5 must be an integer"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, **AUC, d_grid=[1.0, 0.5]), ValueError, r"d_grid=.* strictly increasing"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, k_values=[1], d_values=[1.0], c_values=[0.5, 1.5]), ValueError,
     r"c_values\[1\]=1.5 must be <= 1"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, k_values=[1], d_values=[np.nan], c_values=[0.5]), ValueError,
     r"d_values\[0\]=nan must be a finite number"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, k_values=[1], d_values=["1"], c_values=[0.5]), TypeError,
     r"d_values\[0\]='1' must be a number"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, k_values=[], d_values=[], c_values=[]), ValueError,
     r"k_values, d_values and c_values are all empty"),
    (lambda: auc_table(TWO_GROUPS, GROUPS[:5], **AUC), ValueError, r"groups has shape \(5,\); give one label"),
    (lambda: auc_table(TWO_GROUPS, np.where(np.arange(12) == 4, None, GROUPS), **AUC), ValueError,
     r"groups has missing labels \(None or NaN; first at position 4;"),
    (lambda: auc_table(np.vstack([TWO_GROUPS[:6], np.full((6, 6), INF)]), GROUPS, **AUC), ValueError,
     r"groups: group 'b' has no coverable factual"),
    (lambda: auc_table(TWO_GROUPS, np.repeat(["a", "shared scale"], 6), **AUC), ValueError, r"'shared scale'"),
    (lambda: auc_table(TWO_GROUPS, GROUPS, **AUC, method="lp"), ValueError, r"method='lp' is not one of"),
    (lambda: auc_table(with_nan(SMALL, 1, 2), ["a", "b", "b"], **AUC), ValueError,
     r"C has NaN costs \(first at row 1, column 2\)"),
    # ------------------------------------------------------------------ attribute_change_frequency
    (acf(assignment=[0, 1.5, -1]), TypeError, r"assignment\[1\]=1.5 must be an integer"),
    (acf(assignment=[0, 1]), ValueError, r"assignment has shape \(2,\); give one entry per factual \(3\)"),
    (acf(assignment=[0, 5, -1]), ValueError, r"assignment\[1\]=5 is outside the candidates"),
    (acf(assignment=["0", 1, -1]), TypeError, r"assignment\[0\]='0' must be an integer"),
    (acf(groups=["x", None, "y"]), ValueError, r"groups has missing labels \(None or NaN; first at position 1;"),
    (acf(groups=["x", np.nan, "y"]), ValueError, r"groups has missing labels \(None or NaN; first at position 1;"),
    (acf(groups=["x", "y"]), ValueError, r"groups has shape \(2,\); give one label per factual \(3\)"),
    (acf(Z_candidates=ZE[[1, 3], :3]), ValueError, r"Z_candidates has shape \(2, 3\); expected 4 columns"),
    (acf(Z_factual=np.where(np.eye(3, 4) > 0, np.nan, ZE[:3])), ValueError, r"Z_factual\[0, 0\]=nan is missing"),
    (acf(Z_factual=[["a"] * 4] * 3), TypeError, r"Z_factual holds strings"),
    (acf(Z_factual=ZE[:0]), ValueError, r"Z_factual is empty"),
    (acf(encoder="encoder"), TypeError, r"encoder must be a fitted recourselab Encoder"),
    # ------------------------------------------------------------------ group_vs_individual_cost
    (lambda: group_vs_individual_cost(SMALL, [1, 1.5]), TypeError, r"k_values\[1\]=1.5 must be an integer"),
    (lambda: group_vs_individual_cost(SMALL, []), ValueError, r"k_values=\[\] must be a non-empty"),
    (lambda: group_vs_individual_cost(SMALL, [1], method="lp"), ValueError, r"method='lp' is not one of"),
    (lambda: group_vs_individual_cost(np.full((2, 2), INF), [1]), ValueError, r"no factual can reach any candidate"),
    (lambda: group_vs_individual_cost(with_nan(SMALL, 0, 0), [1]), ValueError, r"C has NaN costs"),
    (lambda: group_vs_individual_cost(SMALL, [1], method="mip", time_limit=0), ValueError,
     r"time_limit=0 must be a positive number"),
]


@pytest.mark.parametrize("call, error, match", CASES)
def test_bad_input_gets_the_packages_own_message(call, error, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=match) as caught:
            call()
    # raised by the package (or its validation layer), never from inside numpy, pandas, scikit-learn or networkx
    origin = caught.traceback[-1].path
    assert "recourselab" in str(origin), origin

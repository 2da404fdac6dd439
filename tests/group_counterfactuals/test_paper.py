"""The literal algorithms of paper.py and the engines give the same answers.

Ties are broken the same way by both (documented in each function): FACE takes the
first target listed among equally cheap ones; the greedy of Problem 1 takes the
larger gain, then the lower total cost of the newly covered factuals, then the lower
column; the greedy of Problem 2 the same at every step. The totals are summed in
row order by both, so the costs drawn here (round decimals, or whole numbers where
the engine keeps running totals) give bit-identical keys.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from recourselab.features import Encoder
from recourselab.group_counterfactuals import (
    build_feasibility_graph,
    cauc,
    dauc,
    face_counterfactuals,
    kauc,
    max_coverage,
    min_max_cost,
    minimum_resources,
    paper,
)

from strategies import specs_and_frames

INF = np.inf
COSTS = st.one_of(st.sampled_from([0.0, 1.0, 2.0, 3.0, 4.0, INF, INF]),
                  st.floats(0, 5).map(lambda x: round(x, 3)))  # CBC's tolerances are ~1e-6: no 1e-24 costs
WHOLE = st.sampled_from([0.0, 1.0, 2.0, 3.0, 5.0, INF, INF])
SHARES = st.sampled_from([0.2, 0.25, 0.5, 2 / 3, 0.75, 0.9, 1.0])


@st.composite
def cost_matrices(draw, max_rows=8, max_cols=7, elements=COSTS):
    n, m = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    return draw(hnp.arrays(float, (n, m), elements=elements, fill=st.nothing()))  # every entry drawn


def need_of(c, n):
    return max(1, math.ceil(c * n - 1e-9))


# --------------------------------------------------------------------------- the graph, its paths, FACE


@settings(max_examples=40, deadline=None)
@given(specs_and_frames(min_rows=2, max_rows=12), st.floats(0.1, 1.5), st.sampled_from([0.3, 0.5, 1.0]))
def test_graph_paths_and_face_equal_the_literal_loops(data, epsilon, h):
    specs, frame = data
    encoder = Encoder(specs).fit(frame)
    Z = encoder.transform(frame)
    n = len(Z)
    W = paper.feasibility_graph(Z.tolist(), epsilon, lambda a, b: bool(encoder.feasible(a, b)[0]), h)
    try:
        graph = build_feasibility_graph(Z, epsilon, encoder=encoder, weighting="kde", bandwidth=h)
    except ValueError as error:  # no pair within epsilon at all
        assert "without an edge" in str(error) and not W
        return
    A = graph.adjacency.tocoo()
    engine = {(int(i), int(j)): float(w) for i, j, w in zip(A.row, A.col, A.data, strict=True)}
    assert engine.keys() == W.keys()  # the same edges
    assert graph.log_weight_scale == 0.0
    for edge, w in W.items():  # the same KDE weights
        assert engine[edge] == pytest.approx(w, rel=1e-9, abs=1e-300)
    C = graph.costs(np.arange(n), np.arange(n))
    for s in range(n):  # Dijkstra
        np.testing.assert_allclose(C[s], paper.shortest_paths(W, n, s)[0], rtol=1e-9)
    sources, targets = list(range(n // 2)), list(range(n // 2, n))
    ours = face_counterfactuals(graph, sources, targets)
    for row, (target, cost, _) in enumerate(paper.face(W, n, sources, targets)):
        assert ours.cost[row] == pytest.approx(cost, rel=1e-9)
        assert ours.found[row] == (target is not None)
        if target is not None:  # the target is a cheapest one, reached along existing edges at that cost
            dist = paper.shortest_paths(W, n, sources[row])[0]
            path = ours.paths[row].tolist()
            assert dist[ours.target[row]] == pytest.approx(cost, rel=1e-9)
            assert sum(W[(a, b)] for a, b in zip(path[:-1], path[1:], strict=True)) == pytest.approx(cost, rel=1e-9)


def test_face_on_a_three_node_graph():
    W = {(0, 1): 2.0, (1, 2): 1.0, (0, 2): 5.0}
    assert paper.face(W, 4, [0, 3], [2]) == [(2, 3.0, [0, 1, 2]), (None, math.inf, [])]  # node 3 has no edge


# --------------------------------------------------------------------------- the greedy algorithms


@settings(max_examples=100, deadline=None)
@given(cost_matrices(max_rows=12, max_cols=10), st.integers(1, 10), st.sampled_from([0.0, 1.0, 2.0, 3.0, 4.5]))
def test_lazy_greedy_selects_what_the_literal_greedy_selects(C, k, d):
    k = min(k, C.shape[1])
    assert max_coverage(C, k, d).selected.tolist() == paper.greedy_max_coverage(C, k, d)


def test_lazy_greedy_equals_the_literal_greedy_on_a_larger_instance():
    rng = np.random.default_rng(7)
    C = np.round(rng.exponential(1.0, (150, 100)), 1)  # rounding creates ties
    C[rng.random(C.shape) < 0.5] = INF
    assert max_coverage(C, 25, 0.3).selected.tolist() == paper.greedy_max_coverage(C, 25, 0.3)


@settings(max_examples=150, deadline=None)
@given(cost_matrices(max_rows=14, max_cols=9, elements=WHOLE), st.integers(1, 7), SHARES)
def test_farthest_first_selects_what_the_literal_greedy_selects(C, k, c):
    k = min(k, C.shape[1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # an out-of-reach coverage is reported by a warning
        res = min_max_cost(C, k, c)
    expected = paper.greedy_min_max_cost(C, k, need_of(c, len(C)))
    if expected is None:
        assert res.status == "infeasible"
    else:
        assert res.status == "greedy" and res.selected.tolist() == expected


def test_the_textbook_max_coverage_trap():
    # candidate 0 covers {0, 1, 2, 3}; 1 covers {0, 1, 4}; 2 covers {2, 3, 5}: greedy 5, optimum 6
    C = np.full((6, 3), INF)
    C[[0, 1, 2, 3], 0] = 1.0
    C[[0, 1, 4], 1] = 1.0
    C[[2, 3, 5], 2] = 1.0
    assert paper.greedy_max_coverage(C, 2, 1.0) == max_coverage(C, 2, 1.0).selected.tolist() == [0, 1]
    assert paper.exact_max_coverage(C, 2, 1.0) == (6, [1, 2])
    assert max_coverage(C, 2, 1.0, method="mip").coverage == 6


# --------------------------------------------------------------------------- the exact optima (MIP = enumeration)


@settings(max_examples=40, deadline=None)
@given(cost_matrices(), st.integers(1, 4), st.sampled_from([0.0, 1.0, 2.0, 3.0]))
def test_max_coverage_mip_equals_enumeration(C, k, d):
    k = min(k, C.shape[1])
    res = max_coverage(C, k, d, method="mip", time_limit=20)
    assert res.status == "optimal"
    assert res.coverage == paper.exact_max_coverage(C, k, d)[0]


@settings(max_examples=40, deadline=None)
@given(cost_matrices(), st.integers(1, 3), SHARES)
def test_min_max_cost_mip_equals_enumeration(C, k, c):
    k = min(k, C.shape[1])
    optimum, _ = paper.exact_min_max_cost(C, k, need_of(c, len(C)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = min_max_cost(C, k, c, method="mip", time_limit=20)
    if math.isinf(optimum):
        assert res.status == "infeasible" and res.selected.size == 0 and res.cost == INF
        assert any("infeasible" in str(w.message) for w in caught)
    else:
        assert res.status == "optimal" and not caught
        assert res.cost == optimum


# --------------------------------------------------------------------------- burden: k0, d0 and the AUCs

QUARTERS = st.one_of(st.just(INF), st.integers(1, 20).map(lambda v: v / 4))


@settings(max_examples=60, deadline=None)
@given(cost_matrices(max_rows=7, max_cols=6, elements=QUARTERS))
def test_k0_and_d0_equal_the_literal_definitions(C):
    result = minimum_resources(C, method="mip")
    assert (result.k0, result.d0) == paper.minimum_resources(C)
    assert result.status == "optimal" and result.advice == "relaxation"
    greedy = minimum_resources(C, method="greedy")
    assert greedy.k0 >= result.k0 and greedy.d0 == result.d0


def coverable(C):
    ok = np.isfinite(C).any(axis=1)
    assume(ok.any())
    return C[ok]


@settings(max_examples=25, deadline=None)
@given(cost_matrices(max_rows=6, max_cols=5, elements=QUARTERS), st.integers(1, 3))
def test_kauc_equals_the_literal_area(C, k):
    grid = [0.25, 1.0, 2.5, 5.0]
    coverable(C)
    assert kauc(C, k, grid, method="mip").score == pytest.approx(paper.kauc(C, k, grid), rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(cost_matrices(max_rows=6, max_cols=5, elements=QUARTERS), st.sampled_from([0.5, 1.0, 3.0]))
def test_dauc_equals_the_literal_area(C, d):
    coverable(C)
    assert dauc(C, d, [1, 2, 3], method="mip").score == pytest.approx(paper.dauc(C, d, [1, 2, 3]), rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(cost_matrices(max_rows=6, max_cols=5, elements=QUARTERS), st.sampled_from([0.25, 0.5, 1.0]),
       st.sampled_from([None, 2.0]))
def test_cauc_equals_the_literal_area(C, c, ceiling):
    reachable = coverable(C)
    ceiling = ceiling or float(reachable[np.isfinite(reachable)].max())  # the engine's default ceiling
    assume(ceiling > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a k too small for c is reported by a warning
        ours = cauc(C, c, [1, 2, 3], cost_ceiling=ceiling, method="mip").score
    assert ours == pytest.approx(paper.cauc(C, c, [1, 2, 3], ceiling), rel=1e-12)

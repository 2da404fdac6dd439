import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.special import logsumexp
from sklearn.neighbors import KernelDensity

from recourselab.features import Encoder, FeatureSpec
from recourselab.graph import (
    _relative_log_density,
    build_feasibility_graph,
    choose_epsilon,
    connectivity_by_epsilon,
    face_counterfactuals,
)

from strategies import specs_and_frames


def encoded(data):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    return enc, enc.transform(frame)


def edge_set(graph):
    A = graph.adjacency.tocoo()
    return set(zip(A.row.tolist(), A.col.tolist()))


@given(specs_and_frames(min_rows=2, max_rows=18), st.floats(0.05, 2.0))
def test_edges_are_exactly_the_feasible_pairs_within_epsilon(data, epsilon):
    enc, Z = encoded(data)
    try:
        graph = build_feasibility_graph(Z, epsilon, encoder=enc, weighting="distance")
    except ValueError as error:  # no pair within epsilon at all
        assert "without an edge" in str(error)
        return
    n = len(Z)
    dist = np.sqrt(((Z[:, None, :] - Z[None, :, :]) ** 2).sum(-1))
    feasible = enc.feasible_pairs(Z, Z)
    expected = {(i, j) for i in range(n) for j in range(n) if i != j and dist[i, j] <= epsilon and feasible[i, j]}
    assert edge_set(graph) == expected
    A = graph.adjacency.tocoo()
    np.testing.assert_allclose(A.data, dist[A.row, A.col], atol=1e-12)
    assert enc.feasible(Z[A.row], Z[A.col]).all()  # no edge violates actionability


@given(specs_and_frames(min_rows=2, max_rows=18), st.floats(0.1, 1.5))
def test_components_and_path_costs_agree_with_networkx(data, epsilon):
    enc, Z = encoded(data)
    try:
        graph = build_feasibility_graph(Z, epsilon, encoder=enc, weighting="distance")
    except ValueError:
        return
    G = graph.to_networkx()
    labels = graph.components()
    ours = {frozenset(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)}
    theirs = {frozenset(c) for c in nx.weakly_connected_components(G)}
    assert ours == theirs
    nodes = np.arange(len(Z))
    path, hops, l2 = (graph.costs(nodes, nodes, cost=c) for c in ("path", "hops", "l2"))
    for s in nodes:
        lengths = nx.single_source_dijkstra_path_length(G, int(s), weight="weight")
        steps = nx.single_source_shortest_path_length(G, int(s))
        for t in nodes:
            if t in lengths:
                assert path[s, t] == pytest.approx(lengths[t], abs=1e-9)
                assert hops[s, t] == steps[t]
                assert l2[s, t] == pytest.approx(np.linalg.norm(Z[s] - Z[t]), abs=1e-9)
            else:
                assert np.isinf(path[s, t]) and np.isinf(hops[s, t]) and np.isinf(l2[s, t])


def test_costs_are_the_same_whichever_side_the_search_starts_from():
    # a directed graph (x may only increase), so reversing the search must transpose the graph
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.random(60), "y": rng.random(60)})
    enc = Encoder([FeatureSpec("x", "continuous", "increase"), FeatureSpec("y", "continuous")]).fit(frame)
    Z = enc.transform(frame)
    graph = build_feasibility_graph(Z, 0.3, encoder=enc, weighting="kde")
    many, few = np.arange(40), np.arange(40, 43)
    searched_from_targets = graph.costs(many, few)  # 3 targets < 40 sources: reversed search
    one_by_one = np.array([[graph.costs([s], [t])[0, 0] for t in few] for s in many])
    np.testing.assert_allclose(searched_from_targets, one_by_one)
    assert np.isfinite(one_by_one).any() and np.isinf(one_by_one).any()


def test_midpoint_density_is_exact_for_the_gaussian_kde():
    rng = np.random.default_rng(0)
    Z = rng.random((120, 4))
    rows, cols = rng.integers(0, 120, 300), rng.integers(0, 120, 300)
    for bandwidth in ("scott", 0.2, 0.02):
        mid, node, h = _relative_log_density(Z, rows, cols, bandwidth, 2000, 0)
        midpoints = (Z[rows] + Z[cols]) / 2
        direct_mid = logsumexp(-((midpoints[:, None] - Z[None]) ** 2).sum(-1) / (2 * h * h), axis=1)
        direct_node = logsumexp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / (2 * h * h), axis=1)
        mean = logsumexp(direct_node) - np.log(len(Z))
        np.testing.assert_allclose(mid, direct_mid - mean, atol=1e-9)
        np.testing.assert_allclose(node, direct_node - mean, atol=1e-9)
    # and scikit-learn's estimator gives the same relative densities (Scott's rule)
    kde = KernelDensity(bandwidth="scott").fit(Z)
    mid, node, _ = _relative_log_density(Z, rows, cols, "scott", 2000, 0)
    ref_node = kde.score_samples(Z)
    ref_mean = logsumexp(ref_node) - np.log(len(Z))
    np.testing.assert_allclose(mid, kde.score_samples((Z[rows] + Z[cols]) / 2) - ref_mean, atol=1e-9)


def test_kde_weights_make_dense_steps_cheaper():
    # two steps of the same length: one inside a dense cluster, one out in the sparse region
    rng = np.random.default_rng(1)
    cluster = 0.5 + 0.02 * rng.standard_normal((200, 2))
    Z = np.vstack([cluster, [[0.50, 0.50], [0.55, 0.50], [2.00, 2.00], [2.05, 2.00]]])
    graph = build_feasibility_graph(Z, 0.06, weighting="kde", bandwidth=0.1)
    dense, sparse = graph.adjacency[200, 201], graph.adjacency[202, 203]
    assert dense < sparse
    assert graph.lengths[200, 201] == pytest.approx(graph.lengths[202, 203])


def test_identical_rows_stay_connected_with_zero_weight():
    Z = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 1.0]])
    graph = build_feasibility_graph(Z, 0.5, weighting="distance")
    assert (0, 1) in edge_set(graph) and (1, 0) in edge_set(graph)
    assert graph.costs([0], [1])[0, 0] == 0.0


def test_connectivity_by_epsilon_matches_separate_builds(german, german_encoder):
    Z = german_encoder.transform(german.frame.iloc[:200])
    table = connectivity_by_epsilon(Z, [2.5, 1.5, 2.0], encoder=german_encoder)
    assert table["epsilon"].tolist() == [1.5, 2.0, 2.5]
    for _, row in table.iterrows():
        stats = build_feasibility_graph(Z, row["epsilon"], encoder=german_encoder, weighting="hops").connectivity()
        assert row["edges"] == stats["edges"]
        assert row["components"] == stats["components"]
        assert row["singletons (share)"] == pytest.approx(stats["singletons (share)"])


@given(specs_and_frames(min_rows=4, max_rows=18), st.lists(st.floats(0.1, 2.0), min_size=1, max_size=3),
       st.randoms(use_true_random=False))
def test_coverable_sources_match_path_searches_in_separate_builds(data, epsilons, rnd):
    enc, Z = encoded(data)
    nodes = list(range(len(Z)))
    rnd.shuffle(nodes)
    cut = rnd.randint(1, len(Z) - 1)
    sources, targets = np.array(nodes[:cut]), np.array(nodes[cut:])
    table = connectivity_by_epsilon(Z, epsilons, encoder=enc, sources=sources, targets=targets)
    for _, row in table.iterrows():
        try:
            graph = build_feasibility_graph(Z, row["epsilon"], encoder=enc, weighting="hops")
        except ValueError:  # no edge at all: nobody is coverable
            assert row["coverable sources"] == 0
            continue
        hops = graph.costs(sources, targets, cost="hops")
        assert row["coverable sources"] == int(np.isfinite(hops).any(axis=1).sum())
    chosen = choose_epsilon(table)
    best = table["coverable sources"].max()
    assert table.loc[table["epsilon"] == chosen, "coverable sources"].iloc[0] == best
    assert (table.loc[table["epsilon"] < chosen, "coverable sources"] < best).all()


def test_face_picks_the_cheapest_reachable_target_and_a_valid_path():
    rng = np.random.default_rng(2)
    Z = rng.random((80, 2))
    graph = build_feasibility_graph(Z, 0.2, weighting="kde")
    sources, targets = np.arange(10), np.arange(40, 80)
    result = face_counterfactuals(graph, sources, targets)
    C = graph.costs(sources, targets)
    np.testing.assert_allclose(result.cost, C.min(axis=1))
    A = graph.adjacency.tocsr()
    for s, t, path, cost in zip(sources, result.target, result.paths, result.cost):
        if t < 0:
            assert np.isinf(cost) and len(path) == 0
            continue
        assert path[0] == s and path[-1] == t
        steps = [A[a, b] for a, b in zip(path[:-1], path[1:])]
        assert all((a, b) in edge_set(graph) for a, b in zip(path[:-1], path[1:]))
        assert sum(steps) == pytest.approx(cost)
    assert set(result.to_frame().columns) == {"source", "target", "cost", "steps"}


def test_face_probability_threshold_filters_targets():
    rng = np.random.default_rng(5)
    Z = rng.random((40, 2))
    graph = build_feasibility_graph(Z, 0.4, weighting="distance")
    proba = rng.random(40)
    result = face_counterfactuals(graph, [0, 1, 2], np.arange(3, 40), proba=proba, min_proba=0.7)
    chosen = result.target[result.target >= 0]
    assert chosen.size and (proba[chosen] >= 0.7).all()
    with pytest.raises(ValueError, match="min_proba needs proba"):
        face_counterfactuals(graph, [0], [5], min_proba=0.5)
    with pytest.raises(ValueError, match="one probability per node"):
        face_counterfactuals(graph, [0], [5], proba=[0.5], min_proba=0.5)


def test_face_density_threshold_filters_targets():
    rng = np.random.default_rng(4)
    Z = rng.random((50, 2))
    graph = build_feasibility_graph(Z, 0.3, weighting="kde")
    result = face_counterfactuals(graph, [0, 1], np.arange(2, 50), log_density_min=0.0)
    chosen = result.target[result.target >= 0]
    assert (graph.log_density[chosen] >= 0).all()
    with pytest.raises(ValueError, match="leaves no admissible target"):
        face_counterfactuals(graph, [0], np.arange(2, 50), log_density_min=50.0)
    plain = build_feasibility_graph(Z, 0.3, weighting="distance")
    with pytest.raises(ValueError, match="needs a graph built with weighting='kde'"):
        face_counterfactuals(plain, [0], [1], log_density_min=0.0)


def test_bad_input_is_reported():
    Z = np.array([[0.0, 0.0], [1.0, 1.0], [3.0, 0.0]])
    with pytest.raises(ValueError, match="epsilon=0.0 must be a positive number"):
        build_feasibility_graph(Z, 0)
    with pytest.raises(ValueError, match="epsilon=-1.0 must be a positive number"):
        build_feasibility_graph(Z, -1)
    with pytest.raises(ValueError, match=r"leaves all 3 nodes without an edge; the median nearest-neighbour distance is 1.41"):
        build_feasibility_graph(Z, 0.1)
    with pytest.raises(ValueError, match="weighting='density'"):
        build_feasibility_graph(Z, 2, weighting="density")
    with pytest.raises(ValueError, match="bandwidth=-1"):
        build_feasibility_graph(Z, 2, bandwidth=-1)
    with pytest.raises(ValueError, match="non-empty 2-d array"):
        build_feasibility_graph(np.zeros((0, 2)), 1.0)
    with pytest.raises(ValueError, match="Z has missing values"):
        build_feasibility_graph(np.array([[0.0, np.nan], [1.0, 1.0]]), 1.0)
    graph = build_feasibility_graph(Z, 2, weighting="distance")
    with pytest.raises(ValueError, match=r"sources holds node indices outside 0..2"):
        graph.costs([5], [0])
    with pytest.raises(ValueError, match="targets is empty"):
        graph.costs([0], [])
    with pytest.raises(ValueError, match="cost='euclid'"):
        graph.costs([0], [1], cost="euclid")
    with pytest.raises(ValueError, match="epsilons="):
        connectivity_by_epsilon(Z, [0.5, -1])


def test_inputs_are_not_mutated(german, german_encoder):
    Z = german_encoder.transform(german.frame.iloc[:100])
    copy = Z.copy()
    graph = build_feasibility_graph(Z, 2.0, encoder=german_encoder)
    graph.costs(np.arange(10), np.arange(10, 100))
    np.testing.assert_array_equal(Z, copy)

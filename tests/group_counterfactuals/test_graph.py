import dataclasses
import warnings

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra
from scipy.spatial.distance import cdist
from scipy.special import logsumexp
from sklearn.neighbors import KernelDensity

from recourselab.counterfactuals import NO_COUNTERFACTUAL
from recourselab.features import Encoder, FeatureSpec
from recourselab.group_counterfactuals import (
    build_feasibility_graph,
    choose_epsilon,
    connectivity_by_epsilon,
    face_counterfactuals,
)
from recourselab.group_counterfactuals import graph as graph_module
from recourselab.group_counterfactuals.graph import _kde_weights, _relative_log_density
from recourselab.models import train_model

from strategies import specs_and_frames


def encoded(data):
    specs, frame = data
    enc = Encoder(specs).fit(frame)
    return enc, enc.transform(frame)


def edge_set(graph):
    A = graph.adjacency.tocoo()
    return set(zip(A.row.tolist(), A.col.tolist(), strict=True))


@settings(max_examples=40)
@given(specs_and_frames(min_rows=2, max_rows=18), st.floats(0.1, 1.5))
def test_components_and_path_costs_agree_with_networkx(data, epsilon):
    enc, Z = encoded(data)
    try:
        graph = build_feasibility_graph(Z, epsilon, encoder=enc, weighting="distance")
    except ValueError:
        return
    A = graph.adjacency.tocoo()
    np.testing.assert_allclose(A.data, np.linalg.norm(Z[A.row] - Z[A.col], axis=1), atol=1e-12)  # the lengths
    assert enc.feasible(Z[A.row], Z[A.col]).all()  # no edge violates actionability
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


def unchunked_relative_log_density(Z, rows, cols, bandwidth, max_kde_points, random_state):
    """The one-shot formula the build used before it was chunked: every dense array at once."""
    rng = np.random.default_rng(random_state)
    train = Z if len(Z) <= max_kde_points else Z[rng.choice(len(Z), max_kde_points, replace=False)]
    h = float(KernelDensity(bandwidth=bandwidth).fit(train).bandwidth_) if isinstance(bandwidth, str) else bandwidth
    sq = (Z ** 2).sum(1)[:, None] + (train ** 2).sum(1)[None, :] - 2.0 * Z @ train.T
    half = -np.maximum(sq, 0.0) / (4.0 * h * h)
    peak = half.max(axis=1)
    A = np.exp(half - peak[:, None])
    node = logsumexp(2.0 * half, axis=1)
    mean_node = logsumexp(node) - np.log(len(node))
    with np.errstate(divide="ignore"):
        mid = (np.log(np.einsum("ij,ij->i", A[rows], A[cols])) + peak[rows] + peak[cols]
               + ((Z[rows] - Z[cols]) ** 2).sum(1) / (8.0 * h * h))
    return mid - mean_node, node - mean_node, h


def unchunked_kde_graph(Z, epsilon, encoder=None, max_kde_points=2000):
    """Edges from a distance-weighted build; KDE weights from the one-shot formula on them."""
    edges = build_feasibility_graph(Z, epsilon, encoder=encoder, weighting="distance").lengths.tocoo()
    lo, hi = np.minimum(edges.row, edges.col), np.maximum(edges.row, edges.col)
    keys, inverse = np.unique(lo.astype(np.int64) * len(Z) + hi, return_inverse=True)
    mid, node, _ = unchunked_relative_log_density(Z, keys // len(Z), keys % len(Z), "scott", max_kde_points, 0)
    weights, _, _ = _kde_weights(edges.data, mid[inverse])
    return csr_matrix((weights, (edges.row, edges.col)), shape=(len(Z), len(Z))), node


def assert_same_kde_graph(graph, reference, node):
    A, R = graph.adjacency.tocoo(), reference.tocoo()
    assert set(zip(A.row.tolist(), A.col.tolist(), strict=True)) == set(zip(R.row.tolist(), R.col.tolist(),
                                                                          strict=True))
    if R.nnz:
        np.testing.assert_allclose(graph.adjacency[R.row, R.col].A1, R.data, rtol=1e-12, atol=0)
    np.testing.assert_allclose(graph.log_density, node, rtol=1e-12, atol=1e-12)


def test_chunked_kde_build_equals_the_one_shot_formula_on_thousands_of_rows(monkeypatch):
    # 3,000 rows, 2,000 KDE points: row blocks of 150 nodes (20 blocks), edge blocks of 1,000 (several)
    rng = np.random.default_rng(7)
    Z = np.vstack([rng.normal(0.3, 0.08, (2_000, 4)), rng.random((1_000, 4))]).clip(0, 1)
    monkeypatch.setattr(graph_module, "_KDE_CELLS", 150 * 2_000)
    monkeypatch.setattr(graph_module, "_EDGE_CHUNK", 1_000)
    graph = build_feasibility_graph(Z, 0.06)
    assert graph.n_edges > 5 * 1_000 and graph.log_weight_scale == 0.0
    reference, node = unchunked_kde_graph(Z, 0.06)
    assert_same_kde_graph(graph, reference, node)


@settings(max_examples=30, deadline=None)
@given(specs_and_frames(min_rows=2, max_rows=30), st.floats(0.2, 1.5), st.integers(1, 7),
       st.integers(2, 40))
def test_chunked_kde_build_equals_the_one_shot_formula(data, epsilon, rows_per_block, max_kde_points):
    enc, Z = encoded(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(graph_module, "_KDE_CELLS", rows_per_block * min(len(Z), max_kde_points))
        patch.setattr(graph_module, "_EDGE_CHUNK", 3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # rescaled weights, or no edge at all
            try:
                graph = build_feasibility_graph(Z, epsilon, encoder=enc, max_kde_points=max_kde_points)
            except ValueError:  # epsilon leaves every node without an edge
                return
    reference, node = unchunked_kde_graph(Z, epsilon, enc, max_kde_points)
    assert_same_kde_graph(graph, reference, node)


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


@settings(max_examples=30)
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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        choice = choose_epsilon(table)
    best = table["coverable sources"].max()
    assert table.loc[table["epsilon"] == choice.epsilon, "coverable sources"].iloc[0] == best == choice.coverable
    assert (table.loc[table["epsilon"] < choice.epsilon, "coverable sources"] < best).all()
    # the criterion is verified only by a larger epsilon covering no more, or by every source being covered
    verified = best > 0 and (choice.epsilon < table["epsilon"].max() or best == len(sources))
    assert choice.criterion_met == verified
    assert choice.n_sources == len(sources)
    assert len([w for w in caught if "criterion" in str(w.message)]) == (not verified)


def test_face_picks_the_cheapest_reachable_target_and_a_valid_path():
    rng = np.random.default_rng(2)
    Z = rng.random((80, 2))
    graph = build_feasibility_graph(Z, 0.2, weighting="kde")
    sources, targets = np.arange(10), np.arange(40, 80)
    result = face_counterfactuals(graph, sources, targets)
    C = graph.costs(sources, targets)
    np.testing.assert_allclose(result.cost, C.min(axis=1))
    A = graph.adjacency.tocsr()
    for s, t, path, cost in zip(sources, result.target, result.paths, result.cost, strict=True):
        if t < 0:
            assert np.isinf(cost) and len(path) == 0
            continue
        assert path[0] == s and path[-1] == t
        steps = [A[a, b] for a, b in zip(path[:-1], path[1:], strict=True)]
        assert all((a, b) in edge_set(graph) for a, b in zip(path[:-1], path[1:], strict=True))
        assert sum(steps) == pytest.approx(cost)
    frame = result.to_frame()
    assert list(frame.columns) == ["source", "target", "cost", "steps", "found", "actionable"]
    assert frame["target"].isna().tolist() == (~result.found).tolist()
    assert result.advice == "relaxation" and frame["actionable"].isna().all()  # no encoder, no advice policy


def test_face_probability_threshold_filters_targets():
    rng = np.random.default_rng(5)
    Z = rng.random((40, 2))
    graph = build_feasibility_graph(Z, 0.4, weighting="distance")
    proba = rng.random(40)
    result = face_counterfactuals(graph, [0, 1, 2], np.arange(3, 40), proba=proba, min_proba=0.7)
    chosen = result.target[result.found]
    assert chosen.size and (proba[chosen] >= 0.7).all()


def test_face_density_threshold_filters_targets():
    rng = np.random.default_rng(4)
    Z = rng.random((50, 2))
    graph = build_feasibility_graph(Z, 0.3, weighting="kde")
    result = face_counterfactuals(graph, [0, 1], np.arange(2, 50), log_density_min=0.0)
    chosen = result.target[result.found]
    assert (graph.log_density[chosen] >= 0).all()


def test_inputs_are_not_mutated(german, german_encoder):
    Z = german_encoder.transform(german.frame.iloc[:100])
    copy = Z.copy()
    graph = build_feasibility_graph(Z, 2.0, encoder=german_encoder)
    graph.costs(np.arange(10), np.arange(10, 100))
    np.testing.assert_array_equal(Z, copy)


# --- the KDE weight d^2 / p(midpoint): scale-free, and the FACEGroup authors' choices -------------------------------

AUTHORS_GERMAN_BANDWIDTH = 0.09658620689655173  # FACEGroup code, src/kernel.py, GermanCredit "optimal"


def cheapest_routes(adjacency, sources, targets):
    """For each source: the cheapest reachable target (NO_COUNTERFACTUAL if none) and the path to it (Dijkstra)."""
    dist, pred = dijkstra(adjacency, directed=True, indices=sources, return_predecessors=True)
    sub = dist[:, targets]
    best = np.argmin(sub, axis=1)
    chosen = np.where(np.isfinite(sub[np.arange(len(sources)), best]), targets[best], NO_COUNTERFACTUAL)
    routes = []
    for row, (s, t) in enumerate(zip(sources, chosen, strict=True)):
        path = [int(t)] if t != NO_COUNTERFACTUAL else []
        while path and path[-1] != s:
            path.append(int(pred[row, path[-1]]))
        routes.append(path[::-1])
    return chosen, routes


def authors_weights(Z, graph, bandwidth, guard=1e-8):
    """FACEGroup's code: dist**2 / (exp(KernelDensity(bandwidth).score_samples(midpoint)) + 1e-8), per edge.

    ``leaf_size=len(Z)`` makes scikit-learn's tree a single leaf, so every kernel is evaluated: with the
    default tree (leaf_size=40) its Gaussian KDE is off by up to ~e^39 at low-density midpoints here (its
    pruning bounds are loose), which would compare our paths with scikit-learn's error, not the formula.
    """
    A = graph.adjacency.tocoo()
    d = np.asarray(graph.lengths.tocsr()[A.row, A.col]).ravel()
    kde = KernelDensity(bandwidth=bandwidth, leaf_size=len(Z)).fit(Z)
    density = np.exp(kde.score_samples((Z[A.row] + Z[A.col]) / 2))
    return csr_matrix((d ** 2 / (density + guard), (A.row, A.col)), shape=A.shape), d, density, kde


def test_kde_weights_give_the_same_shortest_paths_whatever_the_density_scale():
    rng = np.random.default_rng(7)
    Z = rng.random((60, 3))
    rows, cols = np.nonzero((cdist(Z, Z) <= 0.35) & ~np.eye(60, dtype=bool))
    dist = np.linalg.norm(Z[rows] - Z[cols], axis=1)
    dist[:4] = 0.0  # four zero-length edges (as between identical rows)
    log_p = rng.uniform(-12.0, 3.0, rows.size)  # log densities spanning 15 nats
    ln10 = np.log(10.0)
    reference = None
    for k in (-400, -300, -8, 0, 8, 300, 400):
        weights, log_scale, n_capped = _kde_weights(dist, log_p + k * ln10)  # every density times 10**k
        assert n_capped == 0 and np.isfinite(weights).all()
        assert (weights[:4] == 0).all() and (weights[4:] > np.finfo(float).tiny).all()
        if abs(k) <= 8:  # readable weights need no factor
            assert log_scale == 0
        if abs(k) == 400:  # weights of e^+-920 would overflow to inf or underflow to 0 without one
            assert log_scale != 0
        costs, pred = dijkstra(csr_matrix((weights, (rows, cols)), shape=(60, 60)), return_predecessors=True)
        if reference is None:
            reference = costs, pred, log_scale
            continue
        np.testing.assert_array_equal(pred, reference[1])
        positive = np.isfinite(costs) & (reference[0] > 0)
        # every path cost scales by the one recorded factor: 10**-k times exp(log_scale - log_scale at k=-400)
        log_ratio = np.log(costs[positive]) - np.log(reference[0][positive])
        np.testing.assert_allclose(log_ratio, log_scale - reference[2] - (k + 400) * ln10, atol=1e-9)


@given(st.integers(0, 2**32 - 1), st.floats(-1500.0, 1500.0), st.floats(1.0, 60.0))
def test_kde_weights_choose_the_same_paths_as_the_unscaled_formula(seed, shift, spread):
    # brute force: Dijkstra on d^2 / p computed directly, for log densities spanning `spread` nats;
    # _kde_weights on the same densities times e^shift must give the same paths and proportional costs
    rng = np.random.default_rng(seed)
    Z = rng.random((25, 2))
    rows, cols = np.nonzero((cdist(Z, Z) <= 0.4) & ~np.eye(25, dtype=bool))
    dist = np.linalg.norm(Z[rows] - Z[cols], axis=1)
    log_p = rng.uniform(-spread, 0.0, rows.size)
    direct = csr_matrix((dist ** 2 / np.exp(log_p), (rows, cols)), shape=(25, 25))
    weights, log_scale, n_capped = _kde_weights(dist, log_p + shift)
    assert n_capped == 0 and np.isfinite(weights).all() and (weights > 0).all()
    ours = csr_matrix((weights, (rows, cols)), shape=(25, 25))
    cost_direct, pred_direct = dijkstra(direct, return_predecessors=True)
    cost_ours, pred_ours = dijkstra(ours, return_predecessors=True)
    # the same shortest-path trees: every predecessor ours chose is on a cheapest path by the direct formula
    # (comparing predecessors entry by entry would fail on paths that tie up to rounding, which either may take)
    np.testing.assert_array_equal(pred_ours < 0, pred_direct < 0)
    dense = direct.toarray()
    for i, j in zip(*np.nonzero(pred_ours >= 0), strict=True):
        via = pred_ours[i, j]
        assert cost_direct[i, via] + dense[via, j] == pytest.approx(cost_direct[i, j], rel=1e-9)
    reached = np.isfinite(cost_direct) & (cost_direct > 0)
    np.testing.assert_allclose(np.log(cost_ours[reached]) - np.log(cost_direct[reached]), log_scale - shift,
                               atol=1e-9)


def test_kde_weights_are_computed_in_log_space():
    # densities of 1e-300 and 1e300: d**2 / p would be 2.5e299 (times 2**32 edges overflows) and 2.5e-301 (subnormal)
    weights, log_scale, n_capped = _kde_weights(np.array([0.5, 0.5]), np.log([1e-300, 1e300]))
    assert n_capped == 0 and log_scale != 0 and np.isfinite(weights).all() and (weights > 0).all()
    assert np.log(weights[0]) - np.log(weights[1]) == pytest.approx(np.log(1e300) - np.log(1e-300), rel=1e-12)


def test_graph_weights_are_squared_length_over_relative_midpoint_density():
    rng = np.random.default_rng(8)
    Z = np.vstack([rng.random((70, 3)), rng.random((1, 3)).repeat(2, axis=0)])  # last two rows identical
    h = 0.02
    graph = build_feasibility_graph(Z, 0.3, weighting="kde", bandwidth=h)
    A = graph.adjacency.tocoo()
    d = np.linalg.norm(Z[A.row] - Z[A.col], axis=1)
    mid = logsumexp(-cdist((Z[A.row] + Z[A.col]) / 2, Z, "sqeuclidean") / (2 * h * h), axis=1)
    node = logsumexp(-cdist(Z, Z, "sqeuclidean") / (2 * h * h), axis=1)
    relative = mid - (logsumexp(node) - np.log(len(Z)))
    assert (relative < np.log(1e-8)).sum() > 0.2 * A.nnz  # where the old 1e-8 guard dominated
    step = d > 0
    np.testing.assert_allclose(np.log(A.data[step]), 2 * np.log(d[step]) - relative[step], atol=1e-9)
    assert graph.adjacency[70, 71] == 0 and (70, 71) in edge_set(graph)
    assert graph.log_weight_scale == 0.0 and graph.n_capped_weights == 0


def test_face_matches_the_authors_formula_on_german_credit(german):
    trained = train_model(german, random_state=0)
    data = german
    Z = trained.encoder.transform(data.frame)
    approved = trained.decide(Z)
    refused, favourable = np.flatnonzero(~approved), np.flatnonzero(approved)
    graph = build_feasibility_graph(Z, 2.25, encoder=trained.encoder, weighting="kde",
                                    bandwidth=AUTHORS_GERMAN_BANDWIDTH)
    theirs, _, density, kde = authors_weights(Z, graph, AUTHORS_GERMAN_BANDWIDTH)
    assert density.max() > 1e12  # the raw density of 60 columns at h = 0.0966: the authors' guard rarely matters
    face = face_counterfactuals(graph, refused, favourable)
    target, routes = cheapest_routes(theirs, refused, favourable)
    assert (target >= 0).sum() >= 50
    np.testing.assert_array_equal(face.target, target)
    assert [p.tolist() for p in face.paths] == routes


def test_face_matches_the_authors_formula_where_the_old_guard_dominated():
    # a 2-d sheet in 20 dimensions, steps of about 10 bandwidths: the density at most step midpoints is below
    # 1e-8 of the mean node density, yet far above 1e-8 in scikit-learn's raw units, and routes take 8-19 steps
    rng = np.random.default_rng(0)
    latent = 4 * rng.random((120, 2))
    basis, _ = np.linalg.qr(rng.standard_normal((20, 2)))
    Z = latent @ basis.T + 0.02 * rng.standard_normal((120, 20))
    h = 0.03
    graph = build_feasibility_graph(Z, 0.6, weighting="kde", bandwidth=h)
    theirs, d, density, kde = authors_weights(Z, graph, h)
    sources, targets = np.flatnonzero(latent[:, 0] < 1), np.flatnonzero(latent[:, 0] > 3)
    target, routes = cheapest_routes(theirs, sources, targets)
    face = face_counterfactuals(graph, sources, targets)
    np.testing.assert_array_equal(face.target, target)
    assert [p.tolist() for p in face.paths] == routes
    assert max(len(r) for r in routes) > 8
    # the old weight, d^2 / (density relative to the node mean + 1e-8), chooses differently: this test has teeth
    relative = density / np.exp(kde.score_samples(Z)).mean()
    assert np.mean(relative < 1e-8) > 0.3
    old = csr_matrix((d ** 2 / (relative + 1e-8), theirs.nonzero()), shape=theirs.shape)
    assert cheapest_routes(old, sources, targets)[1] != routes


def test_kde_weights_rescaled_by_one_recorded_factor_with_a_warning():
    # one step of 1e-3 in a dense spot and one of 0.5 through empty space, with h = 0.0066:
    # d^2 / p-tilde spans about e^-14 to e^718, past float64's largest value but within its range
    Z = np.array([[0.0, 0.0], [0.001, 0.0], [1.0, 1.0], [1.5, 1.0]])
    h = 0.0066
    with pytest.warns(UserWarning, match=r"multiplied by exp\(-\d+\.?\d*\) \(graph\.log_weight_scale\)"):
        graph = build_feasibility_graph(Z, 0.6, weighting="kde", bandwidth=h)
    assert graph.log_weight_scale < 0 and graph.n_capped_weights == 0
    A = graph.adjacency.tocoo()
    d = np.linalg.norm(Z[A.row] - Z[A.col], axis=1)
    mid = logsumexp(-cdist((Z[A.row] + Z[A.col]) / 2, Z, "sqeuclidean") / (2 * h * h), axis=1)
    node = logsumexp(-cdist(Z, Z, "sqeuclidean") / (2 * h * h), axis=1)
    relative = mid - (logsumexp(node) - np.log(len(Z)))
    np.testing.assert_allclose(np.log(A.data), 2 * np.log(d) - relative + graph.log_weight_scale, atol=1e-9)
    assert np.isfinite(graph.costs([2], [3])).all()


def test_kde_weights_wider_than_float64_are_capped_with_a_warning():
    # h = 0.004 with steps of 0.05, 0.25, 0.3 and 0.5: log(d^2 / p-tilde) is about d^2 / 8h^2, from e^13 to e^1950
    Z = np.array([[0.0], [0.05], [0.3], [0.8]])
    h = 0.004
    with pytest.warns(UserWarning, match=r"2 of 8 edge weights were capped.*larger bandwidth"):
        graph = build_feasibility_graph(Z, 0.55, weighting="kde", bandwidth=h)
    assert graph.n_capped_weights == 2
    A = graph.adjacency.tocoo()
    assert np.isfinite(A.data).all() and (A.data > 0).all()
    # the cheaper edges keep their exact ratios (one common factor); only the step 0.3 <-> 0.8 is capped
    d = np.abs(Z[A.row, 0] - Z[A.col, 0])
    mid = logsumexp(-cdist((Z[A.row] + Z[A.col]) / 2, Z, "sqeuclidean") / (2 * h * h), axis=1)
    exact = 2 * np.log(d) - mid
    kept = d < 0.4
    np.testing.assert_allclose(np.log(A.data[kept]) - exact[kept], np.log(A.data[0]) - exact[0], atol=1e-9)
    assert (A.data[~kept] == A.data.max()).all() and (A.data[~kept] > A.data[kept].max()).all()
    assert np.isfinite(graph.costs([0], [3])[0, 0])


# --- choose_epsilon says whether FACEGroup's criterion holds -----------------------------------------------------


def test_choose_epsilon_warns_when_coverage_still_rises_at_the_largest_epsilon():
    table = pd.DataFrame({"epsilon": [1.0, 1.5, 2.0], "coverable sources": [3, 5, 7]})
    table.attrs["n_sources"] = 10
    with pytest.warns(UserWarning, match=r"criterion.*unmet.*still rising at the largest epsilon tried, 2: "
                                         r"7 of 10 \(up from 5 at 1.5\); extend the grid beyond 2"):
        choice = choose_epsilon(table)
    assert choice.epsilon == 2.0 and not choice.criterion_met and choice.coverable == 7
    assert "still rising" in choice.reason
    frame = choice.to_frame()
    assert frame.loc[0, "criterion met"] is np.False_ or frame.loc[0, "criterion met"] is False
    assert frame.loc[0, "largest epsilon tried"] == 2.0 and frame.loc[0, "sources"] == 10


def test_choose_epsilon_is_satisfied_when_every_source_is_coverable(recwarn):
    table = pd.DataFrame({"epsilon": [1.0, 1.5, 2.0], "coverable sources": [3, 5, 10]})
    table.attrs["n_sources"] = 10
    choice = choose_epsilon(table)
    assert choice.epsilon == 2.0 and choice.criterion_met and "all 10 sources" in choice.reason
    assert not [w for w in recwarn if "criterion" in str(w.message)]


def test_choose_epsilon_is_satisfied_by_a_larger_epsilon_covering_no_more(recwarn):
    choice = choose_epsilon(pd.DataFrame({"epsilon": [2.0, 1.0, 1.5], "coverable sources": [7, 3, 7]}))
    assert choice.epsilon == 1.5 and choice.criterion_met and choice.n_sources is None
    assert "no more up to 2" in choice.reason
    assert not [w for w in recwarn if "criterion" in str(w.message)]


def test_choose_epsilon_warns_when_nobody_is_coverable():
    with pytest.warns(UserWarning, match=r"no source is coverable at any epsilon up to 2, the largest tried"):
        choice = choose_epsilon(pd.DataFrame({"epsilon": [1.0, 2.0], "coverable sources": [0, 0]}))
    assert not choice.criterion_met and choice.coverable == 0


def test_connectivity_by_epsilon_records_the_number_of_sources():
    Z = np.array([[0.0], [0.1], [0.2], [0.9]])
    table = connectivity_by_epsilon(Z, [0.15, 0.8], sources=[0, 1], targets=[2, 3])
    assert table.attrs["n_sources"] == 2
    assert choose_epsilon(table).criterion_met  # both sources coverable at 0.15


# --- FACE's targets as advice: actionable on request, labelled a relaxation otherwise ---------------------------


@st.composite
def advised_problems(draw):
    """Random specs with an advice policy narrower than feasibility, a frame, and a split into sources/targets."""
    specs, frame = draw(specs_and_frames(min_rows=4, max_rows=14))
    narrowed = []
    for spec in specs:
        policy = draw(st.sampled_from(["as feasible", "never", "capped"]))
        if policy == "never":
            spec = dataclasses.replace(spec, advise="never")
        elif policy == "capped" and spec.kind == "continuous":
            spec = dataclasses.replace(spec, max_change=float(np.ptp(frame[spec.name].to_numpy(float))) / 3 or 1.0)
        narrowed.append(spec)
    cut = draw(st.integers(1, len(frame) - 1))
    return narrowed, frame, cut


@settings(max_examples=40)
@given(advised_problems())
def test_actionable_face_targets_pass_the_advice_policy_and_are_the_cheapest_that_do(problem):
    specs, frame, cut = problem
    encoder = Encoder(specs).fit(frame)
    Z = encoder.transform(frame)
    graph = build_feasibility_graph(Z, np.sqrt(Z.shape[1]) + 1.0, encoder=encoder, weighting="distance")
    sources, targets = np.arange(cut), np.arange(cut, len(Z))
    advice = face_counterfactuals(graph, sources, targets, actionable=True)
    relaxed = face_counterfactuals(graph, sources, targets)
    assert advice.advice == "actionable" and relaxed.advice == "relaxation"
    found = advice.found
    assert advice.actionable.tolist() == found.tolist()  # every target found is advice a person can follow
    if found.any():
        assert encoder.actionable(Z[sources[found]], Z[advice.target[found]]).all()
    # the cheapest actionable reachable target, and never cheaper than the relaxed one
    C = graph.costs(sources, targets)
    allowed = np.where(encoder.actionable_pairs(Z[sources], Z[targets]), C, np.inf)
    np.testing.assert_array_equal(advice.cost, allowed.min(axis=1))
    assert (advice.cost >= relaxed.cost).all()
    # the relaxation says row by row which of its targets pass the policy
    passes = [bool(encoder.actionable(Z[[s]], Z[[t]])[0]) if t >= 0 else False
              for s, t in zip(sources, relaxed.target, strict=True)]
    assert relaxed.actionable.tolist() == passes == relaxed.to_frame()["actionable"].tolist()


def test_a_relaxed_target_can_break_the_advice_policy_and_the_actionable_one_does_not():
    frame = pd.DataFrame({"savings": [0.0, 0.4, 0.2, 0.0], "age": [30, 30, 31, 70]})
    encoder = Encoder([FeatureSpec("savings", "continuous", "increase"),
                       FeatureSpec("age", "continuous", "increase", advise="never")]).fit(frame)
    graph = build_feasibility_graph(encoder.transform(frame), 1.1, encoder=encoder, weighting="distance")
    relaxed = face_counterfactuals(graph, [0], [1, 2])
    assert relaxed.target.tolist() == [2] and relaxed.actionable.tolist() == [False]  # one year older
    advice = face_counterfactuals(graph, [0], [1, 2], actionable=True)
    assert advice.target.tolist() == [1] and advice.actionable.tolist() == [True]
    assert encoder.advice_violations(graph.Z[[0]], graph.Z[[2]]).loc[0, "age"] == "not to be advised"
    # another encoder may be given, e.g. for a graph built without one
    bare = build_feasibility_graph(encoder.transform(frame), 1.1, weighting="distance")
    assert face_counterfactuals(bare, [0], [1, 2], actionable=True, encoder=encoder).target.tolist() == [1]


@settings(max_examples=30)
@given(specs_and_frames(min_rows=2, max_rows=18), st.floats(0.2, 2.0), st.floats(0.05, 1.0),
       st.sampled_from(["kde", "distance", "hops"]))
def test_restrict_equals_a_build_at_the_smaller_epsilon(data, epsilon, fraction, weighting):
    enc, Z = encoded(data)
    try:
        big = build_feasibility_graph(Z, epsilon, encoder=enc, weighting=weighting)
    except ValueError:  # no edge at all
        return
    small_epsilon = epsilon * fraction
    try:
        small = build_feasibility_graph(Z, small_epsilon, encoder=enc, weighting=weighting)
    except ValueError:
        assert big.restrict(small_epsilon).n_edges == 0
        return
    restricted = big.restrict(small_epsilon)
    assert restricted.epsilon == small_epsilon and edge_set(restricted) == edge_set(small)
    if big.log_weight_scale == small.log_weight_scale == 0:
        np.testing.assert_allclose(restricted.adjacency.toarray(), small.adjacency.toarray(), rtol=1e-9)
    np.testing.assert_array_equal(restricted.lengths.toarray(), small.lengths.toarray())
    assert (restricted.components() == small.components()).all()


def test_restrict_cannot_add_edges():
    graph = build_feasibility_graph(np.array([[0.0], [0.1], [0.3]]), 0.25, weighting="hops")
    with pytest.raises(ValueError, match="above the graph's epsilon"):
        graph.restrict(0.5)


@settings(max_examples=40)
@given(specs_and_frames(min_rows=2, max_rows=18), st.floats(0.1, 2.5))
def test_the_edges_are_every_feasible_pair_within_epsilon(data, epsilon):
    # the pairs are searched inside blocks of rows sharing every immutable discrete feature; none may be lost
    enc, Z = encoded(data)
    near = cdist(Z, Z) <= epsilon
    expected = {(i, j) for i, j in zip(*np.nonzero(near & enc.feasible_pairs(Z, Z)), strict=True) if i != j}
    try:
        graph = build_feasibility_graph(Z, epsilon, encoder=enc, weighting="hops")
    except ValueError:  # no pair within epsilon at all
        assert not (near & ~np.eye(len(Z), dtype=bool)).any()
        return
    assert edge_set(graph) == expected


def test_pairs_that_only_change_an_immutable_feature_give_an_empty_graph_not_an_error():
    frame = pd.DataFrame({"x": [0.0, 1.0], "g": ["a", "b"]})
    enc = Encoder([FeatureSpec("x", "continuous"), FeatureSpec("g", "binary", "immutable", order=["a", "b"])])
    Z = enc.fit(frame).transform(frame)
    assert build_feasibility_graph(Z, 1.5, encoder=enc, weighting="hops").n_edges == 0  # the one pair changes g
    with pytest.raises(ValueError, match="without an edge"):
        build_feasibility_graph(Z, 0.5, encoder=enc, weighting="hops")

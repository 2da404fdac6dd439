"""FACEGroup: feasibility-graph construction and greedy selection, against naive per-pair Python.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/facegroup.py``).

1. Graph build (KDE weights, German-Credit-style constraints via the Adult
   encoder) on Adult samples of 1k, 2k, 5k and 10k rows: time, edges, growth
   exponent in n.
2. The same build written the way research code usually is (a Python loop over
   node pairs with a per-pair feasibility check, then scikit-learn's KDE on the
   edge midpoints), at 2k rows. The pair loop is timed on 100 source rows and
   extrapolated to all 2k; the KDE step is timed in full.
3. Greedy selection (Problem 1) on 5,000 factuals x 5,000 candidates with hop
   costs from the 10k-row graph, against a non-lazy greedy over Python sets at
   2,000 x 2,000.
4. Growth table: the graph build of part 1 on Adult samples of 5,000, 10,000
   and 20,000 rows and on the full 32,561 rows, each size in a fresh process
   (so the peak memory is that size's own): seconds (one run), edges, seconds
   per edge (at a fixed epsilon the edges grow about as n^2), peak memory
   during the build and what the build added, and the growth exponents of
   time, edges and seconds per edge. Takes about 60 s on 2 cores; ``--only growth``
   runs this part alone and merges it into the saved JSON.
5. An infeasible Problem 2: ``min_max_cost(method="mip")`` on 600 factuals x
   800 candidates with 5% of the pairs reachable, c = 0.9 and k = 12, where
   the k candidates reaching the most factuals reach 533 < 540 needed. Timed
   once as the call (which settles it by that count) and once the way the call
   reached the answer before the count: the greedy's radius search (which
   fails), then the model built and solved by CBC (time limit 600 s).
   ``--only mip`` runs this part alone and merges it into the saved JSON.

The naive versions below are timing baselines written the way research code
usually is (Python sets, scikit-learn's KDE with the FACEGroup authors' 1e-8
guard, ties by index), not the paper's algorithms: those are written literally
in ``recourselab/group_counterfactuals/paper.py`` and tested equal to the
engines in ``make test`` (in pure Python they would take hours at these sizes).
Part 3 also checks the engine's greedy against ``paper.greedy_max_coverage`` on
a 300 x 300 sub-instance.
"""

import argparse
import concurrent.futures
import multiprocessing
import os
import time
import warnings

import numpy as np
import pandas as pd
from sklearn.neighbors import KernelDensity

from recourselab._mip import Deadline
from recourselab.datasets import load_adult
from recourselab.group_counterfactuals import paper
from recourselab.group_counterfactuals._exact import _mip_min_max_cost
from recourselab.group_counterfactuals._greedy import _FarthestFirst, _greedy_min_max_cost
from recourselab.group_counterfactuals.graph import build_feasibility_graph
from recourselab.group_counterfactuals.selection import _need, _reach_bound, max_coverage, min_max_cost

from _timing import (
    Results,
    best_time,
    growth_exponent,
    machine,
    memory_peak,
    save_merged,
    shared_machine_note,
    start_memory_peak,
)

EPSILON = 0.5


def naive_graph(Z, encoder, epsilon, sources):
    """Edges from `sources` by a per-pair loop; then KDE weights with scikit-learn per midpoint."""
    edges = []
    for i in sources:
        for j in range(len(Z)):
            if i != j:
                d = float(np.linalg.norm(Z[i] - Z[j]))
                if d <= epsilon and encoder.feasible(Z[i], Z[j])[0]:
                    edges.append((i, j, d))
    return edges


def naive_kde_weights(Z, edges):
    kde = KernelDensity(bandwidth="scott").fit(Z)
    rows = np.array([e[0] for e in edges])
    cols = np.array([e[1] for e in edges])
    dist = np.array([e[2] for e in edges])
    density = np.exp(kde.score_samples((Z[rows] + Z[cols]) / 2))
    return dist ** 2 / (density + 1e-8)


def naive_greedy(C, k, d):
    covers = [set(np.flatnonzero(C[:, j] <= d).tolist()) for j in range(C.shape[1])]
    covered, chosen = set(), []
    for _ in range(k):
        gains = [len(s - covered) for s in covers]
        best = int(np.argmax(gains))
        if gains[best] == 0:
            break
        chosen.append(best)
        covered |= covers[best]
    return chosen, len(covered)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["growth", "mip"], help="run only part 4 (the growth table) or part 5 "
                        "(the infeasible MIP) and merge its results into the saved "
                        "benchmarks/results/facegroup.json, keeping the other parts' results")
    only = parser.parse_args().only
    results = Results(__file__)
    print(f"machine: {machine()}\n")
    if only is not None:
        (growth_benchmark if only == "growth" else infeasible_mip_benchmark)(results)
        save_merged(results)
        return
    data = load_adult()
    encoder = data.encoder().fit(data.frame)
    Z_all = encoder.transform(data.frame)
    rng = np.random.default_rng(0)
    samples = {n: Z_all[rng.choice(len(Z_all), n, replace=False)] for n in (1_000, 2_000, 5_000, 10_000)}

    rows = []
    graphs = {}
    for n, Z in samples.items():
        start = time.perf_counter()
        graphs[n] = build_feasibility_graph(Z, EPSILON, encoder=encoder, weighting="kde")
        rows.append({"rows": n, "edges": graphs[n].n_edges, "seconds": time.perf_counter() - start})
    table = pd.DataFrame(rows)
    title = f"build_feasibility_graph on Adult samples (epsilon={EPSILON}, KDE weights, {encoder.n_columns} columns)"
    results.table("graph build", title, table, note="one run per size")
    growth = results.value("growth exponent: graph build", growth_exponent(table["rows"], table["seconds"]))
    edge_growth = results.value("growth exponent: edges", growth_exponent(table["rows"], table["edges"]),
                                note="number of edges against rows")
    print(f"1. {title}")
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    print(f"growth exponent in n: {growth:.2f} "
          f"(edges grow with exponent {edge_growth:.2f})\n")

    Z = samples[2_000]
    fast = best_time(lambda: build_feasibility_graph(Z, EPSILON, encoder=encoder, weighting="kde"), repeat=2)
    probe = np.arange(100)
    start = time.perf_counter()
    edges = naive_graph(Z, encoder, EPSILON, probe)
    loop_seconds = (time.perf_counter() - start) * len(Z) / len(probe)
    stored = graphs[2_000].adjacency.tocoo()  # stored entries, explicit zeros (duplicate rows) included
    all_edges = [(i, j, float(np.linalg.norm(Z[i] - Z[j]))) for i, j in zip(stored.row, stored.col, strict=True)]
    kde_seconds = best_time(lambda: naive_kde_weights(Z, all_edges), repeat=1)
    probed = {(i, j) for i, j in zip(stored.row, stored.col, strict=True) if i < len(probe)}
    assert {(i, j) for i, j, _ in edges} == probed
    naive = loop_seconds + kde_seconds
    title = "the same 2,000-row graph, naive: per-pair loop (extrapolated from 100 sources) + KDE per midpoint"
    naive_table = pd.DataFrame([{"recourselab s": fast, "naive pair loop s": loop_seconds, "naive KDE s": kde_seconds,
                                 "naive total s": naive, "speed-up": naive / fast}])
    results.table("graph build vs naive", title, naive_table, note="2,000 rows")
    results.value("speed-up: graph build vs naive (2,000 rows)", naive / fast)
    print(f"2. {title}")
    print(naive_table.to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    print()

    graph = graphs[10_000]
    factuals, candidates = np.arange(5_000), np.arange(5_000, 10_000)
    start = time.perf_counter()
    C = graph.costs(factuals, candidates, cost="hops")
    cost_seconds = time.perf_counter() - start
    d = 3.0
    greedy_seconds = best_time(lambda: max_coverage(C, 50, d, method="greedy"), repeat=3)
    result = max_coverage(C, 50, d, method="greedy")
    C2 = C[:2_000, :2_000]
    ours2 = best_time(lambda: max_coverage(C2, 50, d, method="greedy"), repeat=3)
    start = time.perf_counter()
    chosen, covered = naive_greedy(C2, 50, d)
    naive2 = time.perf_counter() - start
    assert covered == max_coverage(C2, 50, d, method="greedy").coverage
    C3 = C[:300, :300]  # the literal greedy of paper.py, same choices in the same order
    assert max_coverage(C3, 20, d).selected.tolist() == paper.greedy_max_coverage(C3, 20, d)
    title = f"greedy max_coverage (k=50, d={d} hops)"
    greedy_table = pd.DataFrame([
        {"instance": "5,000 x 5,000", "recourselab s": greedy_seconds, "naive s": np.nan, "speed-up": np.nan,
         "coverage": result.coverage},
        {"instance": "2,000 x 2,000", "recourselab s": ours2, "naive s": naive2, "speed-up": naive2 / ours2,
         "coverage": covered},
    ])
    results.table("greedy selection", title, greedy_table,
                  note="factuals x candidates; naive: non-lazy greedy over Python sets, at 2,000 x 2,000 only")
    results.value("seconds: hop costs 5,000 x 5,000", cost_seconds, note="graph.costs(cost='hops') on the 10k graph")
    results.value("speed-up: greedy vs naive (2,000 x 2,000)", naive2 / ours2)
    print(f"3. {title}; hop costs of 5,000 x 5,000 pairs took {cost_seconds:.1f} s")
    print(greedy_table.to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    print()
    growth_benchmark(results)
    infeasible_mip_benchmark(results)
    results.save()


# --------------------------------------------------------------------------- 4. growth table
GROWTH_SIZES = (5_000, 10_000, 20_000, None)   # None = all of Adult (32,561 rows)


def growth_point(n):
    """One graph build on an Adult sample of n rows (all rows if None), in this (fresh) process."""
    data = load_adult()
    encoder = data.encoder().fit(data.frame)
    Z_all = encoder.transform(data.frame)
    Z = Z_all if n is None else Z_all[np.random.default_rng(0).choice(len(Z_all), n, replace=False)]
    before = start_memory_peak()
    start = time.perf_counter()
    graph = build_feasibility_graph(Z, EPSILON, encoder=encoder, weighting="kde")
    seconds = time.perf_counter() - start
    peak = memory_peak()
    return {"rows": len(Z), "edges": int(graph.n_edges), "edges per row": graph.n_edges / len(Z),
            "seconds": seconds, "µs per edge": 1e6 * seconds / graph.n_edges,
            "peak memory MB": peak, "added by the build MB": None if before is None else peak - before}


def measure(n):
    """``growth_point`` in a fresh spawned process."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(growth_point, n).result()


def growth_benchmark(results):
    load = os.getloadavg()[0]
    rows = []
    for n in GROWTH_SIZES:
        load = max(load, os.getloadavg()[0])
        rows.append(measure(n))
        print(f"  {rows[-1]['rows']:>6,} rows: {rows[-1]['seconds']:.1f} s, {rows[-1]['edges']:,} edges, "
              f"peak {rows[-1]['peak memory MB']:.0f} MB")
    load = max(load, os.getloadavg()[0])
    table = pd.DataFrame(rows)
    # this script keeps one core busy (load about 1); more means other jobs ran at the same time
    shared = shared_machine_note(load)
    title = (f"growth table: build_feasibility_graph on Adult samples up to all rows (epsilon={EPSILON}, "
             "KDE weights), each size in a fresh process")
    results.table("graph growth", title, table,
                  note="one run per size; peak memory = peak resident memory of a fresh process (Adult loaded "
                       "and encoded) during the build; added by the build = that peak minus the resident memory "
                       "just before it" + shared)
    growth = results.value("growth exponent: graph build 5,000-32,561 rows",
                           growth_exponent(table["rows"], table["seconds"]))
    edge_growth = results.value("growth exponent: edges 5,000-32,561 rows",
                                growth_exponent(table["rows"], table["edges"]), note="number of edges against rows")
    per_edge = results.value("growth exponent: seconds per edge 5,000-32,561 rows",
                             growth_exponent(table["rows"], table["µs per edge"]),
                             note="0 = the time is proportional to the number of edges")
    print(f"4. {title}")
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    print(f"growth exponent in n: time {growth:.2f}, edges {edge_growth:.2f}, seconds per edge {per_edge:.2f}")



# --------------------------------------------------------------------------- 5. an infeasible MIP
def infeasible_instance(n_factuals=600, n_candidates=800, share=0.05, seed=0):
    """Costs in [0.1, 1] on a random 5% of the pairs, inf elsewhere."""
    rng = np.random.default_rng(seed)
    reachable = rng.random((n_factuals, n_candidates)) < share
    return np.where(reachable, rng.uniform(0.1, 1.0, reachable.shape), np.inf)


def infeasible_mip_benchmark(results, k=12, c=0.9, time_limit=600.0):
    C = infeasible_instance()
    need = _need(c, C.shape[0])
    bound = _reach_bound(C, k)
    assert bound < need
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the infeasibility warning
        result = min_max_cost(C, k, c, method="mip", time_limit=time_limit)
    call = time.perf_counter() - start
    assert result.status == "infeasible" and result.selected.size == 0
    # the call before the count: the greedy's radius as an upper bound, then the model, built and solved
    start = time.perf_counter()
    deadline = Deadline(time_limit)
    _, reached = _greedy_min_max_cost(_FarthestFirst(C), np.unique(C[np.isfinite(C)]), k, need, False)
    assert not reached
    greedy = time.perf_counter() - start
    _, status, _ = _mip_min_max_cost(C, k, need, deadline)
    model = time.perf_counter() - start
    title = (f"min_max_cost(method='mip') on an infeasible {C.shape[0]} x {C.shape[1]} instance "
             f"({np.isfinite(C).mean():.0%} of pairs reachable, c={c}, k={k}, need={need})")
    table = pd.DataFrame([
        {"how": "the call: count first (now)", "seconds": call, "of which greedy s": 0.0, "status": result.status},
        {"how": "the call before the count: greedy bound, then the MIP", "seconds": model,
         "of which greedy s": greedy, "status": status},
    ])
    results.table("infeasible mip", title, table,
                  note=f"one run each; the {k} candidates reaching the most factuals reach {bound} together at "
                       f"most, fewer than the {need} needed; before the count the call first ran the greedy (it "
                       "fails at every radius, so the MIP got no upper bound), then built and solved the MIP")
    results.value("speed-up: infeasible MIP settled by a count", model / call)
    print(f"5. {title}")
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.3g}"))


if __name__ == "__main__":
    main()

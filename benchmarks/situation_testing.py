"""k-NN situation testing: all complainants at once against a per-complainant loop.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/situation_testing.py``).

1. The 5,000-row loan world (``make_loan_scm``): ST, CST without and with the
   search centres for k in {15, 30, 50, 100, 250}, every female complainant.
2. The 21,790-row law-school world (``make_law_school``), by race, k = 50.
3. The same computation written like the reference implementation (for each
   complainant: a pandas distance to every row of the search space, then a heap
   for the top k), timed on 100 complainants and extrapolated; the ratio is per
   complainant.
4. If the authors' published loan data and counterfactuals are present in
   ``../shared/anchors/cst`` (not shipped with the package), the detected counts
   next to theirs.
5. Audit at scale: ST, CST without and with the centres (k = 15) on a synthetic
   lender's table of 10^4 to 10^6 rows (3 columns, and 10 columns), each
   size in a fresh process: seconds (median of 3), the growth exponent, peak
   memory, the search before issue 17 (scikit-learn's KD-tree, its code kept
   here) up to 300,000 rows, and whether both give identical
   results; on 10 columns, the same calls with the search in one KD-tree
   (before the cells of issue 27) in the same process; then 10^6 rows with two
   threads. Run it on an idle machine: it takes
   about ten minutes (most of it the 10-column table at 10^6 rows).
6. The audit's shuffled chance level (``recourselab.stratified.shuffled_st_shares``): the share of
   refused women ST flags under 200 relabellings, with one neighbour ordering for every shuffle,
   against rerunning ``situation_testing`` per shuffle (timed on 10 shuffles and scaled per shuffle),
   on the lender's table with 8 numeric columns at 1,000 to 4,000 rows (the package switches to the
   rerun above 2,000, where this table shows the one ordering stops paying), with
   the shares of the first 10 shuffles checked identical. ``--only shuffles`` runs this part alone and
   merges it into the saved JSON.
"""

import argparse
import concurrent.futures
import heapq
import multiprocessing
import os
import resource
import time

import numpy as np
import pandas as pd

import recourselab.situation_testing.neighbours as st_module
from recourselab.datasets import make_law_school, make_loan_scm
from recourselab.situation_testing import situation_testing
from recourselab.situation_testing.distance import bitwise_distances

from _timing import Results, growth_exponent, machine, note_repeats, save_merged

K_VALUES = (15, 30, 50, 100, 250)

results = Results(__file__)


def reference_style(X, protected, y_hat, k, X_cf=None, complainants=None):
    """Per-complainant loop in the style of the reference code (pandas distances + heap)."""
    frame = X.reset_index(drop=True)
    cf = frame if X_cf is None else X_cf.reset_index(drop=True)
    spans = frame.max() - frame.min()
    ctr_space, tst_space = frame[protected], frame[~protected]
    out = {}
    for c in complainants:
        def top_k(centre, space, size):
            distance = ((space - centre).abs() / spans).sum(axis=1) / frame.shape[1]
            heap = []
            for i, d in zip(space.index, distance, strict=True):
                if len(heap) < size:
                    heapq.heappush(heap, (-d, -i))
                else:
                    heapq.heappushpop(heap, (-d, -i))
            return sorted((-d, -i) for d, i in heap)
        control = [i for _, i in top_k(frame.loc[c], ctr_space, k + 1) if i != c][:k]
        test = [i for _, i in top_k(cf.loc[c], tst_space, k)]
        out[c] = np.mean(~y_hat[control]) - np.mean(~y_hat[test])
    return out


def loan_benchmark():
    world = make_loan_scm(5000, random_state=0)
    frame = world.frame
    X = frame[list(world.features)]
    protected = frame["gender"].to_numpy() == 1
    y_hat = frame[world.target].to_numpy().astype(bool)
    cf = world.true_counterfactual({"gender": 0})
    X_cf, y_cf = cf[list(world.features)], cf[world.target].to_numpy()
    rows = []
    start_all = time.perf_counter()
    for k in K_VALUES:
        start = time.perf_counter()
        st = situation_testing(X, protected, y_hat, k=k)
        wo = situation_testing(X, protected, y_hat, k=k, X_cf=X_cf)
        wi = situation_testing(X, protected, y_hat, k=k, X_cf=X_cf, y_hat_cf=y_cf, include_centers=True)
        rows.append({"k": k, "ST": int(st.discrimination.sum()), "CST w/o": int(wo.discrimination.sum()),
                     "CST": int(wi.discrimination.sum()), "seconds (3 runs)": time.perf_counter() - start})
    total = time.perf_counter() - start_all
    results.table("loan world by k", f"loan world, {protected.sum()} female complainants of 5,000 rows: "
                  "cases detected and seconds per k", pd.DataFrame(rows),
                  note="seconds for the three runs (ST, CST without and with the search centres), one run each")
    results.value("seconds: loan world, all k", total)
    print(f"1. loan world, {protected.sum()} complainants of 5,000 rows: all k in {total:.2f} s")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    probe = np.flatnonzero(protected)[:100]
    start = time.perf_counter()
    slow = reference_style(X, protected, y_hat, 50, X_cf=X_cf, complainants=probe)
    per_complainant = (time.perf_counter() - start) / len(probe)
    fast_run = situation_testing(X, protected, y_hat, k=50, X_cf=X_cf)
    start = time.perf_counter()
    situation_testing(X, protected, y_hat, k=50, X_cf=X_cf)
    fast = time.perf_counter() - start
    agree = np.mean([np.isclose(slow[c], fast_run.loc[c, "delta_p"]) for c in probe])
    naive = per_complainant * protected.sum()
    results.table("reference-style loop", "CST without centres, k = 50, all complainants of the loan world: "
                  "recourselab against a reference-style per-complainant loop", pd.DataFrame([{
                      "complainants": int(protected.sum()), "recourselab s": fast,
                      "reference ms per complainant": per_complainant * 1000,
                      "reference s (extrapolated)": naive, "speed-up": naive / fast,
                      "same delta_p (% of 100 probed)": 100 * agree}]),
                  note="reference style: pandas distances to every row, then a heap, per complainant; "
                       "timed on 100 complainants and extrapolated")
    results.value("speed-up: CST vs reference-style loop (loan world, k = 50)", naive / fast)
    print(f"\n3. reference-style loop, k=50 CST w/o: {per_complainant * 1000:.1f} ms per complainant -> "
          f"{naive:.1f} s for all {protected.sum()} (extrapolated) vs {fast:.3f} s: {naive / fast:.0f}x "
          f"(same delta_p on {100 * agree:.0f}% of the 100 probed complainants; ties may be ordered differently)")


def law_benchmark():
    world = make_law_school(random_state=0)
    frame = world.frame
    X = frame[list(world.features)]
    protected = frame["race_nonwhite"].to_numpy() == 1
    y_hat = frame[world.target].to_numpy().astype(bool)
    cf = world.true_counterfactual({"race_nonwhite": 0})
    start = time.perf_counter()
    result = situation_testing(X, protected, y_hat, k=50, X_cf=cf[list(world.features)])
    seconds = time.perf_counter() - start
    results.table("law school", "law school world by race, CST without centres, k = 50", pd.DataFrame([{
        "rows": len(frame), "complainants": int(protected.sum()), "seconds": seconds,
        "cases": int(result.discrimination.sum())}]), note="one run")
    print(f"\n2. law school, {protected.sum()} non-white complainants of {len(frame):,} rows, CST w/o k=50: "
          f"{seconds:.2f} s, {int(result.discrimination.sum())} cases")


def anchor_check():
    folder = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "anchors", "cst")
    if not os.path.isdir(folder):
        print("\n4. anchors not found: skipped")
        return
    data = pd.read_csv(os.path.join(folder, "LoanApplication_v2.csv"), sep="|")
    cf = pd.read_csv(os.path.join(folder, "cf_LoanApplication_v2.csv"), sep="|")
    paper = pd.read_csv(os.path.join(folder, "res_LoanApplication.csv"), sep="|").head(5)  # counts, not %
    paper["k"] = paper["k"].astype(int)
    paper[["ST", "CSTwo", "CSTwi"]] = paper[["ST", "CSTwo", "CSTwi"]].astype(int)
    cols = ["AnnualSalary", "AccountBalance"]
    protected = (data["Gender"] == 1).to_numpy()
    y_hat, y_cf = (data["LoanApproval"] == 1).to_numpy(), (cf["LoanApproval"] == 1).to_numpy()
    # the reference code's computation: std-normalised distances, a scaler re-fitted on the counterfactual
    # data, and its order of tied neighbours (the options that emulate it; the defaults follow the paper)
    theirs_kw = dict(normalize="std", ties="bitwise")
    rows = []
    for k in K_VALUES:
        st = situation_testing(data[cols], protected, y_hat, k=k, **theirs_kw)
        wo = situation_testing(data[cols], protected, y_hat, k=k, X_cf=cf[cols], cf_scaling="refit", **theirs_kw)
        wi = situation_testing(data[cols], protected, y_hat, k=k, X_cf=cf[cols], cf_scaling="refit",
                               y_hat_cf=y_cf, include_centers=True, **theirs_kw)
        rows.append({"k": k, "ST": int(st.discrimination.sum()), "CST w/o": int(wo.discrimination.sum()),
                     "CST": int(wi.discrimination.sum())})
    ours = pd.DataFrame(rows).set_index("k")
    theirs = paper.set_index("k")[["ST", "CSTwo", "CSTwi"]].rename(columns={"CSTwo": "CST w/o", "CSTwi": "CST"})
    flat = pd.concat({"recourselab": ours, "authors": theirs}, axis=1)
    flat.columns = [f"{source} {method}" for source, method in flat.columns]
    results.table("authors' loan data", "the authors' loan data: cases detected, recourselab against the "
                  "authors' results file", flat.reset_index())
    print("\n4. the authors' loan data, their computation emulated: ours vs their results file")
    print(pd.concat({"recourselab": ours, "authors": theirs}, axis=1).to_string())


# --- Audit at scale (issue 17) -------------------------------------------------------------------------------

SCALE_SIZES = (10_000, 30_000, 100_000, 300_000, 1_000_000)
LEGACY_SIZES = (10_000, 30_000, 100_000, 300_000)   # the legacy search grows too fast beyond these
WIDE_SIZES = (10_000, 100_000, 1_000_000)   # ten columns: one run each (minutes at 10^6)
MODES = ("ST", "CST w/o", "CST")


def lender_table(n, columns=3, seed=0):
    """A synthetic lender's table: the loan world's salary and balance (``make_loan_scm``) plus columns.

    About 45% women (the complainants). ``columns`` = 3 adds the applicant's age (whole years, 18-75) as in
    issue 17; up to 10 adds years employed, dependents, loan amount, loan term, home owner, purpose (5
    categories) and years of credit history, most of them on a coarse grid, so tied distances are common.
    Counterfactual rows (do(gender := 0)) change salary and balance only.
    """
    world = make_loan_scm(n, random_state=seed)
    X = world.frame[list(world.features)].copy()
    rng = np.random.default_rng(seed + 1)
    age = rng.integers(18, 76, size=n)
    extra = {
        "age": age.astype(float),
        "years_employed": np.minimum(age - 18, rng.poisson(8, size=n)).astype(float),
        "dependents": rng.integers(0, 5, size=n).astype(float),
        "loan_amount": np.round(0.3 * X["annual_salary"].to_numpy() * rng.lognormal(0, 0.3, size=n), -2),
        "loan_term": rng.choice([12.0, 24.0, 36.0, 60.0], size=n),
        "home_owner": (rng.random(n) < 0.4).astype(float),
        "purpose": rng.choice(["car", "home", "study", "business", "other"], size=n),
        "credit_years": np.minimum(age - 18, rng.poisson(10, size=n)).astype(float),
    }
    for name in list(extra)[:columns - 2]:
        X[name] = extra[name]
    cf = world.true_counterfactual({"gender": 0})
    X_cf = X.copy()
    X_cf[list(world.features)] = cf[list(world.features)].to_numpy()
    return (X, X_cf, world.frame["gender"].to_numpy() == 1, world.frame[world.target].to_numpy().astype(bool),
            cf[world.target].to_numpy())


def legacy_k_nearest(space_rows, T_space, T_query, k, exclude=None, bitwise=None, **_):
    """The neighbour search before issue 17 (the engine's ``_k_nearest`` then), kept here as the timing baseline.

    scikit-learn's ``KDTree`` (Manhattan), one k-nearest query, then one radius
    query per query row to keep every row tied at the k-th distance; the same
    orderings as the engine's ``neighbours._k_nearest`` (distance rounded to
    1e-12, then row; or the authors' bitwise order when ``bitwise = (kinds,
    R_query, R_space)``). Not the paper's algorithm written literally (that is
    ``recourselab.situation_testing.paper``, too slow for these sizes): a
    faster-than-literal search the engine must equal and beat (about 2 s per
    90,000 queries at 200,000 rows).
    """
    from sklearn.neighbors import KDTree

    m = len(T_query)
    extra = 1 if exclude is not None else 0
    tree = KDTree(T_space, metric="manhattan")
    kth, _ = tree.query(T_query, k=min(k + extra, len(T_space)))
    radius = kth[:, -1] * (1 + 1e-9) + 1e-12
    found, dist = tree.query_radius(T_query, r=radius, return_distance=True)
    counts = np.array([len(f) for f in found])
    query = np.repeat(np.arange(m), counts)
    rows = space_rows[np.concatenate(found)] if counts.sum() else np.array([], dtype=int)
    dist = np.concatenate(dist) if counts.sum() else np.array([])
    if exclude is not None:
        keep = rows != exclude[query]
        query, rows, dist = query[keep], rows[keep], dist[keep]
    if bitwise is None:
        order = np.lexsort((rows, np.round(dist, 12), query))
    else:
        kinds, R_query, R_space = bitwise
        order = np.lexsort((-rows, bitwise_distances(kinds, R_query, R_space, query,
                                                     np.searchsorted(space_rows, rows)), query))
    query, rows = query[order], rows[order]
    starts = np.searchsorted(query, np.arange(m))
    rank = np.arange(len(query)) - starts[query]
    take = rank < k
    out = np.full((m, k), -1, dtype=int)
    out[query[take], rank[take]] = rows[take]
    if (out < 0).any():
        raise RuntimeError("a neighbour group came out short; please report this with the data.")
    return out


_legacy_adapter = legacy_k_nearest  # put in the engine's place by run_modes and scale_point


def run_modes(X, X_cf, protected, y_hat, y_cf, search=None, **options):
    """ST, CST without and with the centres (k = 15): seconds of each and the three result frames."""
    saved = st_module._k_nearest
    if search is not None:
        st_module._k_nearest = search
    try:
        calls = {"ST": dict(), "CST w/o": dict(X_cf=X_cf), "CST": dict(X_cf=X_cf, y_hat_cf=y_cf, include_centers=True)}
        seconds, frames = {}, {}
        for mode, extra in calls.items():
            # cf_scaling concerns counterfactual rows only, which ST has not
            chosen = {key: v for key, v in options.items() if mode != "ST" or key != "cf_scaling"}
            start = time.perf_counter()
            frames[mode] = situation_testing(X, protected, y_hat, k=15, **extra, **chosen)
            seconds[mode] = time.perf_counter() - start
        return seconds, frames
    finally:
        st_module._k_nearest = saved


def peak_rss_mb():
    """Peak resident memory of this process so far (Linux reports kB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def one_tree(T_space):
    """No key columns: the search in one KD-tree, as before the cells (issue 27), for the 10-column comparison."""
    return []


def scale_point(n, columns, repeats, legacy, n_jobs, options, cells_off=False):
    """One size, measured in a fresh process (so the peak memory is this size's): times, memory, identity.

    ``cells_off``: also time the three calls with the search in one KD-tree (no cells), in the same process,
    and check that the result frames are equal.
    """
    X, X_cf, protected, y_hat, y_cf = lender_table(n, columns)
    before = peak_rss_mb()
    runs = [run_modes(X, X_cf, protected, y_hat, y_cf, n_jobs=n_jobs, **options) for _ in range(repeats)]
    out = {"rows": n, "complainants": int(protected.sum()), "columns": columns,
           **{f"{mode} s": float(np.median([r[0][mode] for r in runs])) for mode in MODES},
           "repeats": [sum(r[0].values()) for r in runs],
           "peak memory MB": peak_rss_mb(), "memory before the calls MB": before}
    out["total s"] = float(np.median(out["repeats"]))
    if cells_off:
        saved = st_module._key_columns
        st_module._key_columns = one_tree
        try:
            seconds, frames = run_modes(X, X_cf, protected, y_hat, y_cf, n_jobs=n_jobs, **options)
        finally:
            st_module._key_columns = saved
        out["one tree total s"] = sum(seconds.values())
        out["identical to one tree"] = all(frames[mode].equals(runs[0][1][mode]) for mode in MODES)
    if legacy:
        saved = st_module._k_nearest
        seconds, frames = run_modes(X, X_cf, protected, y_hat, y_cf, search=_legacy_adapter)
        out["legacy total s"] = sum(seconds.values())
        same = [frames[mode].equals(runs[0][1][mode]) for mode in MODES]
        # the authors' options too (std ranges, refitted counterfactual scale, bitwise ties)
        authors = dict(normalize="std", cf_scaling="refit", ties="bitwise")
        new = situation_testing(X, protected, y_hat, k=15, X_cf=X_cf, **authors)
        st_module._k_nearest = _legacy_adapter
        try:
            old = situation_testing(X, protected, y_hat, k=15, X_cf=X_cf, **authors)
        finally:
            st_module._k_nearest = saved
        out["identical"] = all(same) and new.equals(old)
    return out


def measure(n, columns=3, repeats=3, legacy=False, n_jobs=None, cells_off=False, **options):
    """``scale_point`` in a fresh spawned process."""
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
        return pool.submit(scale_point, n, columns, repeats, legacy, n_jobs, options, cells_off).result()


def scale_benchmark():
    load = os.getloadavg()[0]
    rows, wide = [], []
    for n in WIDE_SIZES:   # ten columns first, the headline sweep last (10^6 rows at the very end)
        load = max(load, os.getloadavg()[0])
        point = measure(n, columns=10, repeats=1, cells_off=True)
        wide.append(point)
        print(f"  10 columns, {n:>9,} rows: {point['total s']:.2f} s, one tree {point['one tree total s']:.2f} s, "
              f"identical: {point['identical to one tree']}")
    for n in SCALE_SIZES:
        load = max(load, os.getloadavg()[0])
        point = measure(n, legacy=n in LEGACY_SIZES)
        rows.append(point)
        note_repeats(point["repeats"])
        print(f"  3 columns, {n:>9,} rows: {point['total s']:.2f} s (median of {len(point['repeats'])}), peak "
              f"{point['peak memory MB']:.0f} MB" + (f", legacy {point['legacy total s']:.2f} s, identical: "
                                                     f"{point['identical']}" if "identical" in point else ""))
    load = max(load, os.getloadavg()[0])
    authors = measure(SCALE_SIZES[-1], repeats=1, normalize="std", cf_scaling="refit", ties="bitwise")
    print(f"  3 columns, {SCALE_SIZES[-1]:,} rows, the authors' options: {authors['total s']:.2f} s")
    load = max(load, os.getloadavg()[0])   # before the two-thread runs, which load both cores themselves
    threads = measure(SCALE_SIZES[-1], n_jobs=2)
    note_repeats(threads["repeats"])
    wide_threads = measure(WIDE_SIZES[-1], columns=10, repeats=1, n_jobs=2)
    print(f"  two threads: 3 columns {threads['total s']:.2f} s, 10 columns {wide_threads['total s']:.2f} s")
    sizes = [r["rows"] for r in rows]
    table = pd.DataFrame([{
        "rows": r["rows"], "complainants": r["complainants"], **{f"{m} s": r[f"{m} s"] for m in MODES},
        "total s": r["total s"], "peak memory MB": r["peak memory MB"],
        "legacy total s": r.get("legacy total s"),
        "speed-up vs legacy": r["legacy total s"] / r["total s"] if "legacy total s" in r else None,
        "identical to legacy": r.get("identical")} for r in rows])
    # this script keeps one core busy (load about 1); more means other jobs ran at the same time
    shared = (f"; the machine was shared with other jobs (1-minute load average up to {load:.1f} on "
              f"{os.cpu_count()} cores), so the times are upper bounds") if load > 1.5 else ""
    results.table("audit at scale", "ST, CST without and with the centres (k = 15, one job) on a synthetic lender's "
                  "table with 3 columns, by rows: seconds (median of 3 runs), peak memory, and the legacy search",
                  table, note="peak memory = peak resident memory of a fresh process that builds the table and "
                  "makes the calls; legacy = the scikit-learn KD-tree search before issue 17, run in the same "
                  "process up to 300,000 rows; identical = equal result frames for the three "
                  "modes and for CST with the authors' options (std, refit, bitwise ties)" + shared)
    growth = growth_exponent(sizes, [r["total s"] for r in rows])
    legacy_rows = [r for r in rows if "legacy total s" in r]
    results.value("growth exponent: situation testing 10^4-10^6 rows", growth)
    results.value("growth exponent: legacy search, sizes it ran",
                  growth_exponent([r["rows"] for r in legacy_rows], [r["legacy total s"] for r in legacy_rows]))
    results.value("seconds: 10^6 rows, two threads (n_jobs=2)", threads["total s"],
                  note="median of 3 runs of the three modes")
    results.value("seconds: 10^6 rows, the authors' options", authors["total s"],
                  note="one run of the three modes with normalize='std', cf_scaling='refit' (CST), ties='bitwise'")
    results.value("seconds: 10^6 rows, 10 columns, two threads (n_jobs=2)", wide_threads["total s"],
                  note="one run of the three modes")
    results.table("audit at scale, 10 columns", "the same three calls (k = 15, one job) on a 10-column version of "
                  "the table (one run each)", pd.DataFrame([{"rows": r["rows"], "complainants": r["complainants"],
                                                   **{f"{m} s": r[f"{m} s"] for m in MODES},
                                                   "total s": r["total s"], "peak memory MB": r["peak memory MB"],
                                                   "one tree total s": r["one tree total s"],
                                                   "speed-up vs one tree": r["one tree total s"] / r["total s"],
                                                   "identical to one tree": r["identical to one tree"]}
                                                  for r in wide]),
                  note="ten mostly independent columns on coarse grids (one categorical with 5 levels): "
                       "a KD-tree prunes far less in 14 dimensions; one tree = the same calls with the search in "
                       "one KD-tree (no cells, the search before issue 27), run once in the same process")
    results.value("growth exponent: situation testing, 10 columns",
                  growth_exponent(WIDE_SIZES, [r["total s"] for r in wide]))
    top = rows[-1]
    results.target("ST + CST w/o + CST, 10^6 rows, one job", top["total s"], "<=", 60, unit="s")
    results.target("growth exponent 10^4-10^6 rows", growth, "<=", 1.2)
    results.target("peak memory, 10^6 rows", top["peak memory MB"] / 1024, "<=", 4, unit="GB")
    results.target("the same with the authors' options, 10^6 rows, one job", authors["total s"], "<=", 60, unit="s")
    results.target("ST + CST w/o + CST, 10^6 rows, 10 columns, one job", wide[-1]["total s"], "<=", 60, unit="s")
    results.value("identical to the legacy search on every size it ran", all(r["identical"] for r in legacy_rows))
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    print(f"growth exponent {growth:.2f}; 10^6 rows with n_jobs=2: {threads['total s']:.2f} s")


def shuffle_benchmark():
    """Part 6: the audit's shuffled ST shares, one ordering for all shuffles against ST rerun per shuffle."""
    import recourselab.stratified as stratified
    from recourselab.stratified import shuffled_st_shares

    limit, stratified._FAST_ROWS = stratified._FAST_ROWS, 10**9   # time the one ordering at every size
    rows = []
    for n in (1000, 2000, 3000, 4000):
        X, _, protected, y, _ = lender_table(n, columns=8)
        Z, decisions = X.to_numpy(dtype=float), y.astype(int)
        start = time.perf_counter()
        naive = []
        rng = np.random.default_rng(0)
        for _ in range(10):
            prot = rng.permutation(protected)
            res = situation_testing(Z, prot, decisions, k=15, reference=~prot)
            naive.append(float(res["significant"].to_numpy()[(decisions == 0)[prot]].mean()))
        per_naive = (time.perf_counter() - start) / 10
        fast10 = shuffled_st_shares(Z, protected, decisions, k=15, n_shuffles=10, random_state=0)
        start = time.perf_counter()
        shuffled_st_shares(Z, protected, decisions, k=15, n_shuffles=200, random_state=0)
        fast = time.perf_counter() - start
        note_repeats([fast])
        rows.append({"rows": n, "rerun s / shuffle": per_naive, "200 shuffles, rerun s (scaled)": 200 * per_naive,
                     "200 shuffles, one ordering s": fast, "speed-up": 200 * per_naive / fast,
                     "identical (10 shuffles)": bool(np.array_equal(np.asarray(naive), fast10))})
    stratified._FAST_ROWS = limit
    table = pd.DataFrame(rows)
    assert table["identical (10 shuffles)"].all(), "the one-ordering shares differ from ST rerun per shuffle"
    title = ("audit_model's situation-testing chance level, k = 15, 8 numeric columns: 200 shuffles with one "
             "neighbour ordering against ST rerun per shuffle (10 shuffles timed, scaled to 200)")
    note = (f"the package takes the one ordering up to {limit:,} rows (stratified._FAST_ROWS) and reruns ST above, "
            "where each shuffle's rows² cumulative counts cost more than a rerun")
    results.table("shuffled ST shares", title, table, note=note)
    results.value("growth exponent: shuffled ST shares, one ordering, 1,000-4,000 rows",
                  growth_exponent(table["rows"], table["200 shuffles, one ordering s"]))
    print(title)
    print(table.to_string(index=False, float_format=lambda x: f"{x:.3g}"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["shuffles"],
                        help="run only part 6 (the audit's shuffled ST shares) and merge it into the saved JSON")
    args = parser.parse_args()
    print(f"machine: {machine()}\n")
    if args.only == "shuffles":
        shuffle_benchmark()
        save_merged(results)
    else:
        loan_benchmark()
        law_benchmark()
        anchor_check()
        print("\n5. audit at scale (each size in a fresh process)")
        scale_benchmark()
        print("\n6. the audit's shuffled ST shares")
        shuffle_benchmark()
        results.save()

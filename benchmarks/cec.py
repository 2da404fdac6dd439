"""Counterfactual explanation consistency: matching, integrated gradients and CEC training against naive loops.

Run with ``make bench`` (or ``.venv/bin/python benchmarks/cec.py``); about two minutes on 2 cores.

1. Matching on Adult (32,561 rows; protected attribute sex; financial features
   as in the paper: capital_gain, capital_loss, hours_per_week and the one-hot
   occupation, 18 columns): one KD-tree per (label, group) stratum against a
   per-row brute-force loop (the literal Algorithm 1 of
   ``recourselab/explanation_consistency/paper.py``: a Python distance to every
   candidate of the stratum), timed on 100 rows and extrapolated, with the
   agreement of the two on those rows; then the growth of the time with n.
2. Integrated-gradients throughput (rows/s, T = 32, a (128, 64) network on 20
   features): the public function (blocks of 128 rows x 32 points mapped with
   ``jax.lax.map``, so each block's activations stay in the CPU cache), the same
   blocks with the straightforward IG (autodiff of the logit at every point),
   one batch of all rows, and per-row loops (one compiled call per row; one
   gradient call per row and path point, the literal midpoint sum of
   ``paper.integrated_gradients_row``).
3. A whole German-Credit fit (1,000 rows x 63 one-hot features, 30 epochs,
   the paper's settings) with lambda_CEC = 0 and 1: the first fit (includes
   compiling the epoch) and a repeat.
4. One training epoch on 1,024 rows, batch 64, network (128, 64), against a
   plain epoch (no CEC term): the previous setting (T = 32 midpoint points,
   every pair of each batch), the current defaults (``mlp.TRAIN_IG_STEPS``
   Gauss-Legendre points on ``mlp.TRAIN_CEC_PAIRS`` pairs per batch) and the
   two steps in between, for 20 features (the synthetic data) and 63 (German
   Credit one-hot), and the straightforward autodiff IG inside the loss for
   comparison. All settings of one width are compiled first and then timed in
   turns (9 rounds, median), so a busy neighbour slows them alike.
5. Growth table for the matching of part 1: Adult subsamples of 4,000, 8,000
   and 16,000 rows and all 32,561 rows, each size in a fresh process: seconds
   (best of 3), microseconds per row, peak memory during the calls and what
   they added, and the growth exponent. ``--only growth`` runs this part alone
   (about 20 s) and merges it into the saved JSON.
6. Quadrature: IG completeness error and CEC score against the number of path
   points T for each rule, on networks trained as the chapter trains them
   (German Credit, 34 encoded columns, and a 10,000-row Adult sample, 49
   columns; without and with the CEC and EO terms), 250 and 1,000 held-out
   rows with their matched partners, against T = 128 midpoint points. The
   training default is the smallest T at which, on all four networks, the
   mean per-pair |CEC_T - CEC_128| is at most 0.01 (1% of the score's range)
   and the mean CEC moves by at most 0.005 (both well inside the five-fold
   spread of the chapter's mean CEC, 0.01-0.03); between rules that reach it
   at the same T, the one with the smaller worst completeness error.
   ``--only quadrature`` runs parts 6 and 7 alone and merges them.
7. The consistency gain by training setting: five folds of German Credit,
   the ``cec`` method trained with the previous setting and the cheaper ones,
   all scored the same way (T = 32 midpoint points): mean CEC, F1, EO gap and
   fit time.

Where the CEC epoch's time goes, and how it got within 3x. A plain step costs
about 3 (d h1 + h1 h2) multiply-adds per row (forward and backward): 32 k for
d = 20 and 49 k for d = 63 with h1 = 128, h2 = 64, and at batch 64 the plain
epoch is dominated by per-step overheads (small products, dropout random
numbers, the Adam update), not by arithmetic. The CEC term evaluates the
network's input gradient at T path points for both members of each pair and
differentiates that with respect to the parameters: per pair and path point one
h1 x h2 product for the ReLU masks, one for the backward pass that forms the
gradient and two for its derivative, 2 T x 4 h1 h2 = 2.1 M multiply-adds per
pair at T = 32: 40-65 times a plain step's arithmetic, which on two cores ran at
about 10x a plain epoch (the arithmetic runs near 60 GFLOP/s). The CEC epoch's
time is proportional to the number of (pair, path point) evaluations, so the
only ways to a small ratio are fewer path points and fewer pairs:

* fewer path points: a ReLU network's input gradient is piecewise constant
  along the path, so no quadrature rule converges faster than 1/T in general
  (part 6: the completeness error halves when T doubles, for the midpoint,
  trapezoid and Gauss-Legendre rules alike; Gauss-Legendre's geometric
  convergence needs a smooth integrand, tests/explanation_consistency/test_attributions.py shows it on a tanh
  network). But the CEC score compares the *directions* of two attribution
  vectors whose errors are alike, and it settles at far fewer points than
  completeness does: at T = 6 the mean per-pair change is below 0.01 on every
  network of part 6.
* fewer pairs: the CEC term is a mean over the batch's matched pairs, so a
  random subset of them is an unbiased estimate of it; batches are reshuffled
  every epoch, and the first ``cec_pairs`` rows of a shuffled batch are such a
  subset. Part 7 and the chapter's five-fold results show the consistency gain
  unchanged within its fold-to-fold spread at 16 of 64 pairs.

The rearrangements that already halved the time stay (the first layer's
pre-activation is affine in the path position, W1'b + alpha W1'(x - b),
computed once per pair instead of once per point; the final product with W1 is
taken once per pair after the weighted path average; the backward pass is
written out so that the loss is differentiated once, not autodiff of
autodiff). Tried and not used: exploiting that each first-layer unit switches
at most once along a straight path (exact, but the scatters and gathers are
several times slower than dense products on XLA's CPU backend) and splitting
each batch's CEC term into smaller blocks for the cache (no gain).
"""

import argparse
import concurrent.futures
import multiprocessing
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from recourselab import explanation_consistency as cec
from recourselab.datasets import load_adult, load_german_credit, make_cec_synthetic
from recourselab.explanation_consistency import mlp, network, paper

from _timing import (
    Results,
    growth_exponent,
    machine,
    memory_peak,
    note_repeats,
    save_merged,
    shared_machine_note,
    start_memory_peak,
)

results = Results(__file__)


# --------------------------------------------------------------------------- 1. matching
PROBE = 100   # rows the literal Algorithm 1 (paper.label_stratified_matching, pure Python) is timed on


def matching_benchmark():
    data = load_adult()
    frame = data.frame
    X = pd.concat([frame[["capital_gain", "capital_loss", "hours_per_week"]].astype(float),
                   pd.get_dummies(frame["occupation"], prefix="occ", dtype=float)], axis=1)
    financial = list(X.columns)
    y, a = data.y.to_numpy(), frame["sex"].to_numpy()
    start = time.perf_counter()
    match = cec.match_counterfactuals(X, y, a, financial)
    fast = time.perf_counter() - start
    probe = np.random.default_rng(0).choice(len(X), PROBE, replace=False)
    F, codes = X.to_numpy(), (a == match.group_values[1]).astype(int)
    start = time.perf_counter()
    slow_index, d_naive = paper.label_stratified_matching(F, y, codes, queries=(F[probe], y[probe], codes[probe]))
    per_row = (time.perf_counter() - start) / len(probe)
    naive = per_row * len(X)
    same_distance = np.isclose(np.array(d_naive, dtype=float), match.distance[probe], rtol=1e-9, atol=1e-12)
    same_index = np.array(slow_index) == match.index[probe]
    results.table("matching vs naive", f"matching on Adult ({len(X):,} rows, {len(financial)} financial columns; "
                  "protected: sex): KD-trees per (label, group) against a per-row brute-force loop", pd.DataFrame([{
                      "rows": len(X), "KD-trees s": fast, "coverage": match.coverage,
                      "median distance": np.median(match.distance), "naive ms per row": per_row * 1e3,
                      "naive s (extrapolated)": naive, "speed-up": naive / fast,
                      f"same distance (% of {PROBE})": 100 * same_distance.mean(),
                      f"same partner (% of {PROBE})": 100 * same_index.mean()}]),
                  note=f"KD-trees: one run; naive (the literal Algorithm 1 of paper.py) timed on {PROBE} rows and "
                       "extrapolated")
    results.value("speed-up: matching vs naive (32,561 rows)", naive / fast)
    print(f"1. matching on Adult ({len(X):,} rows, {len(financial)} financial columns: capital_gain, capital_loss, "
          f"hours_per_week, one-hot occupation; protected: sex)")
    print(f"   KD-trees per (label, group): {fast:.3f} s for all rows, coverage {match.coverage:.3f}, "
          f"median distance {np.median(match.distance):.3f}")
    print(f"   naive per-row loop (paper.label_stratified_matching): {per_row * 1e3:.2f} ms per row -> {naive:.1f} s "
          f"for all rows (extrapolated from {PROBE}): {naive / fast:.0f}x; same distance on {same_distance.mean():.0%} "
          f"and same partner on {same_index.mean():.0%} of the {PROBE} rows (ties: both take the lowest position)")
    rows = []
    rng = np.random.default_rng(1)
    sizes = [4000, 8000, 16000, 32561]
    for n in sizes:
        take = np.sort(rng.choice(len(X), n, replace=False)) if n < len(X) else np.arange(len(X))
        Xs, ys, as_ = X.iloc[take], y[take], a[take]
        times = []
        for _ in range(3):
            start = time.perf_counter()
            cec.match_counterfactuals(Xs, ys, as_, financial)
            times.append(time.perf_counter() - start)
        note_repeats(times)
        rows.append({"n": n, "seconds": min(times), "naive seconds (extrapolated)": per_row * n * n / len(X)})
    table = pd.DataFrame(rows)
    results.table("matching by n", "match_counterfactuals on Adult subsamples of n rows", table,
                  note="best of 3; naive: the per-row time scaled by n² (each row scans the others)")
    growth = results.value("growth exponent: matching (KD-trees)", growth_exponent(table["n"], table["seconds"]))
    results.value("growth exponent: matching naive", 2.0, note="by construction: extrapolated as n²")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    print(f"   growth exponent: KD-trees {growth:.2f}, naive 2.00 (per-row "
          "cost proportional to n)")


# --------------------------------------------------------------------------- 2. integrated gradients
def ig_benchmark():
    data = make_cec_synthetic(4000, random_state=0)
    X = data.frame[data.feature_names].to_numpy(float)
    y = data.y.to_numpy()
    a = data.frame["group"].to_numpy()
    clf = cec.MLPClassifier(epochs=3, random_state=0).fit(X, y)
    B = cec.label_group_baselines(X, y, a)
    steps = 32
    params = tuple((jnp.asarray(W), jnp.asarray(c)) for W, c in clf.params_)
    Z, Zb = jnp.asarray(clf._scale(X)), jnp.asarray(clf._scale(B))

    def rate(fn, n, repeat=3):
        fn()  # compile
        times = [_timed(fn) for _ in range(repeat)]
        note_repeats(times)
        best = min(times)
        return n / best, best

    rows_per_block = 4096 // steps

    def blocked(ig):
        def run(Z, Zb):
            n, d = Z.shape
            out = jax.lax.map(lambda zb: ig(params, zb[0], zb[1], steps),
                              (Z.reshape(-1, rows_per_block, d), Zb.reshape(-1, rows_per_block, d)))
            return out.reshape(n, d)
        return jax.jit(run)

    n_blocked = (len(X) // rows_per_block) * rows_per_block
    fast_blocked, auto_blocked = blocked(network.ig_network), blocked(network.ig_network_autodiff)
    fast_batch = jax.jit(lambda Z, Zb: network.ig_network(params, Z, Zb, steps))
    public_rate, _ = rate(lambda: cec.integrated_gradients(clf, X, B, steps=steps), len(X))
    fast_rate, _ = rate(lambda: fast_blocked(Z[:n_blocked], Zb[:n_blocked]).block_until_ready(), n_blocked)
    auto_rate, _ = rate(lambda: auto_blocked(Z[:n_blocked], Zb[:n_blocked]).block_until_ready(), n_blocked)
    batch_rate, _ = rate(lambda: fast_batch(Z, Zb).block_until_ready(), len(X))
    one_row = jax.jit(lambda z, zb: network.ig_network(params, z[None], zb[None], steps)[0])
    m = 200
    row_rate, _ = rate(lambda: [one_row(Z[i], Zb[i]).block_until_ready() for i in range(m)], m, repeat=2)
    grad_point = jax.jit(jax.grad(lambda z: network.logits(params, z[None])[0]))
    k = 20
    Zn, Zbn = np.asarray(Z), np.asarray(Zb)

    def per_point():   # the literal midpoint sum of paper.py, one gradient call per row and path point
        for i in range(k):
            paper.integrated_gradients_row(lambda z: np.asarray(grad_point(jnp.asarray(z, jnp.float32))), Zn[i],
                                           Zbn[i], steps)

    point_rate, _ = rate(per_point, k, repeat=2)
    same = np.allclose(fast_blocked(Z[:1024], Zb[:1024]), auto_blocked(Z[:1024], Zb[:1024]), rtol=1e-4, atol=1e-5)
    table = pd.DataFrame([
        {"implementation": "integrated_gradients (public; float64 out, padding)", "rows/s": public_rate},
        {"implementation": "blocks of 128 rows, affine first layer, one W1 product", "rows/s": fast_rate},
        {"implementation": "blocks of 128 rows, autodiff at every path point", "rows/s": auto_rate},
        {"implementation": "one batch of all rows (ours; spills the cache)", "rows/s": batch_rate},
        {"implementation": "per-row loop (one compiled call per row)", "rows/s": row_rate},
        {"implementation": "per-row, per-point loop (one gradient call per point)", "rows/s": point_rate},
    ])
    table["vs per-point loop"] = table["rows/s"] / point_rate
    results.table("integrated gradients", f"integrated-gradients throughput, T = {steps}, network (128, 64), "
                  f"20 features, {len(X):,} rows", table,
                  note=f"best of 3 after compilation (loops: best of 2); block versions agree: {same}")
    results.value("speed-up: integrated_gradients vs per-point loop", table["vs per-point loop"].iloc[0])
    results.value("speed-up: integrated_gradients vs per-row loop", public_rate / row_rate)
    print(f"\n2. integrated gradients, T = {steps}, network (128, 64), 20 features, {len(X):,} rows "
          f"(block versions agree: {same})")
    print(table.to_string(index=False, float_format=lambda v: f"{v:,.0f}"))


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


# --------------------------------------------------------------------------- 4. training epochs
PREVIOUS = {"ig_steps": 32, "ig_rule": "riemann", "cec_pairs": None}     # the setting before issue 16
CURRENT = {"ig_steps": mlp.TRAIN_IG_STEPS, "ig_rule": mlp.TRAIN_IG_RULE, "cec_pairs": mlp.TRAIN_CEC_PAIRS}
EPOCH_SETTINGS = {   # name -> (use_cec, ig_steps, ig_rule, cec_pairs, autodiff IG in the loss)
    "plain": (False, 32, "riemann", None, False),
    "T = 32 midpoint, all pairs (previous)": (True, 32, "riemann", None, False),
    "T = 32 midpoint, all pairs, autodiff IG": (True, 32, "riemann", None, True),
    f"T = {mlp.TRAIN_IG_STEPS} {mlp.TRAIN_IG_RULE}, all pairs": (True, mlp.TRAIN_IG_STEPS, mlp.TRAIN_IG_RULE, None,
                                                               False),
    f"T = 32 midpoint, {mlp.TRAIN_CEC_PAIRS} pairs": (True, 32, "riemann", mlp.TRAIN_CEC_PAIRS, False),
    f"T = {mlp.TRAIN_IG_STEPS} {mlp.TRAIN_IG_RULE}, {mlp.TRAIN_CEC_PAIRS} pairs (default)": (
        True, mlp.TRAIN_IG_STEPS, mlp.TRAIN_IG_RULE, mlp.TRAIN_CEC_PAIRS, False),
}


def epoch_runner(d, use_cec, steps=32, rule="riemann", pairs=None, reference=False, n=1024):
    """A compiled epoch on random data (compiled here); returns a function that times one call."""
    rng = np.random.default_rng(0)
    cfg = network.TrainConfig(sizes=(d, 128, 64, 1), batch_size=64, n_batches=n // 64, dropout=0.2,
                           learning_rate=3e-4, use_cec=use_cec, ig_steps=steps, reference_ig=reference, ig_rule=rule,
                           cec_pairs=pairs)
    optimizer, epoch = network.epoch_function(cfg)
    params = network.init_params(jax.random.PRNGKey(0), cfg.sizes)
    state = optimizer.init(params)
    data = {"X": rng.normal(size=(n, d)), "y": rng.integers(0, 2, n), "w": np.ones(n), "valid": np.ones(n),
            "a": rng.integers(0, 2, n)}
    if use_cec:
        data.update({"X_cf": rng.normal(size=(n, d)), "B": rng.normal(size=(n, d)) * 0.1, "matched": np.ones(n)})
    data = {k: jnp.asarray(v, jnp.float32) for k, v in data.items()}
    lambdas = jnp.asarray([1.0, 1.0], jnp.float32)
    jax.block_until_ready(epoch(params, state, jax.random.PRNGKey(0), data, lambdas))   # compile

    def run(r):
        start = time.perf_counter()
        jax.block_until_ready(epoch(params, state, jax.random.PRNGKey(r + 1), data, lambdas))
        return time.perf_counter() - start

    return run


def training_benchmark(rounds=9):
    rows, long_rows = [], []
    load = os.getloadavg()[0]
    for d in (20, 63):
        runners = {name: epoch_runner(d, *setting) for name, setting in EPOCH_SETTINGS.items()}
        times = {name: [] for name in runners}
        for r in range(rounds):   # in turns, so that a busy neighbour slows every setting alike
            for name, run in runners.items():
                times[name].append(run(r))
            load = max(load, os.getloadavg()[0])
        for t in times.values():
            note_repeats(t)
        median = {name: float(np.median(t)) for name, t in times.items()}
        plain = median["plain"]
        default = [k for k in EPOCH_SETTINGS if k.endswith("(default)")][0]
        previous = "T = 32 midpoint, all pairs (previous)"
        rows.append({"features": d, "plain epoch s": plain, "CEC epoch s": median[default],
                     "CEC / plain": median[default] / plain, "previous CEC epoch s": median[previous],
                     "previous / plain": median[previous] / plain,
                     "CEC epoch, autodiff IG s": median["T = 32 midpoint, all pairs, autodiff IG"],
                     "autodiff / ours": median["T = 32 midpoint, all pairs, autodiff IG"] / median[previous]})
        for name in runners:
            long_rows.append({"features": d, "setting": name, "epoch ms": 1e3 * median[name],
                              "/ plain": median[name] / plain})
    shared = shared_machine_note(load)
    title = (f"one training epoch, 1,024 rows, batch 64, network (128, 64): the default CEC term (T = "
             f"{mlp.TRAIN_IG_STEPS} {mlp.TRAIN_IG_RULE} points on {mlp.TRAIN_CEC_PAIRS} of 64 pairs per batch) and "
             f"the previous one (T = 32 midpoint points on every pair) against a plain epoch")
    results.table("training epoch", title, pd.DataFrame(rows),
                  note=f"median of {rounds} rounds after compilation, settings timed in turns; 'autodiff / ours' "
                       "compares the straightforward autodiff IG with ours, both at the previous setting" + shared)
    results.table("training epoch by setting", "one training epoch (1,024 rows) by CEC setting: which step saves "
                  "what", pd.DataFrame(long_rows), note=f"median of {rounds} rounds, timed in turns" + shared)
    for row in rows:
        results.target(f"CEC epoch / plain epoch, {row['features']} features", row["CEC / plain"], "<=", 3, unit="x",
                       note="issue 16's target, at the default training setting")
        results.value(f"CEC epoch / plain epoch before issue 16, {row['features']} features", row["previous / plain"])
        results.value(f"speed-up: CEC epoch vs autodiff IG, {row['features']} features", row["autodiff / ours"])
    print(f"\n4. {title}")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(pd.DataFrame(long_rows).to_string(index=False, float_format=lambda v: f"{v:.2f}"))


# --------------------------------------------------------------------------- 6. quadrature rules
QUADRATURE_STEPS = (2, 3, 4, 6, 8, 12, 16, 32, 64, 128)
CEC_TOLERANCE = 0.01        # mean per-pair |CEC_T - CEC_128| on every network
MEAN_CEC_TOLERANCE = 0.005  # |mean CEC_T - mean CEC_128| on every network


def _experiment_inputs():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    import cec_experiments
    return cec_experiments


def quadrature_networks():
    """Networks trained as the chapter trains them, with held-out rows, partners and baselines."""
    ce = _experiment_inputs()
    out = []
    for name, inputs, n_test in (("German Credit", ce.german_inputs, 250), ("Adult (10,000 rows)", ce.adult_inputs,
                                                                             1000)):
        X, y, a, columns, _ = inputs()
        y = (y == np.unique(y)[1]).astype(int)
        test = np.sort(np.random.default_rng(0).permutation(len(X))[:n_test])
        train = np.setdiff1d(np.arange(len(X)), test)
        m_tr = cec.match_counterfactuals(X[train], y[train], a[train], columns)
        cf_tr, b_tr = cec.counterfactual_rows(m_tr, X[train]), cec.label_group_baselines(X[train], y[train], a[train])
        m = cec.match_counterfactuals(X[test], y[test], a[test], columns, X_pool=X[train], y_pool=y[train],
                                      groups_pool=a[train])
        C = cec.counterfactual_rows(m, X[train])
        B = cec.label_group_baselines(X[test], y[test], a[test], X_fit=X[train], y_fit=y[train], groups_fit=a[train])
        for label, lam in (("unconstrained", 0.0), ("CEC + EO (λ = 1)", 1.0)):
            model = cec.MLPClassifier(lambda_eo=lam, lambda_cec=lam, random_state=0).fit(
                X[train], y[train], sensitive_features=a[train], X_cf=cf_tr, baselines=b_tr)
            out.append((name, X.shape[1], label, model, X[test][m.matched], C[m.matched], B[m.matched]))
    return out


def quadrature_benchmark():
    rows = []
    for data, d, label, model, X, C, B in quadrature_networks():
        gap = model.decision_function(X) - model.decision_function(B)
        reference = cec.cec_scores(model, X, C, B, steps=128)
        for rule in cec.IG_RULES:
            for steps in QUADRATURE_STEPS:
                result = cec.cec_scores(model, X, C, B, steps=steps, rule=rule)
                completeness = np.abs(result.attributions.sum(axis=1) - gap)
                change = np.abs(result.score - reference.score)
                rows.append({"data": data, "columns": d, "network": label, "rule": rule, "T": steps,
                             "pairs": len(X), "completeness error": completeness.mean(),
                             "relative completeness error (median)": np.median(
                                 completeness / np.maximum(np.abs(gap), 1e-3)),
                             "mean CEC": result.mean, "mean CEC at T = 128 midpoint": reference.mean,
                             "mean |ΔCEC| per pair": change.mean(),
                             "|ΔCEC| 95th percentile": np.quantile(change, 0.95)})
    table = pd.DataFrame(rows)
    table["|Δ mean CEC|"] = (table["mean CEC"] - table["mean CEC at T = 128 midpoint"]).abs()
    ok = table.assign(ok=(table["mean |ΔCEC| per pair"] <= CEC_TOLERANCE)
                      & (table["|Δ mean CEC|"] <= MEAN_CEC_TOLERANCE))
    per = ok.groupby(["rule", "T"]).agg(ok=("ok", "all"), worst=("completeness error", "max")).reset_index()
    passing = per[per["ok"]]
    smallest = int(passing["T"].min())
    choice = passing[passing["T"] == smallest].sort_values("worst").iloc[0]
    results.table("quadrature", "IG completeness error (logit units, mean over pairs) and CEC score against the "
                  "number of path points T per rule, on trained networks, against T = 128 midpoint points", table,
                  note=f"tolerance: mean per-pair |ΔCEC| <= {CEC_TOLERANCE} and |Δ mean CEC| <= {MEAN_CEC_TOLERANCE} "
                       "on all four networks")
    results.value("quadrature: smallest T within tolerance", smallest)
    results.value("quadrature: chosen rule", str(choice["rule"]),
                  note="of the rules within tolerance at that T, the smaller worst completeness error")
    results.value("quadrature: the training default is the measured choice",
                  bool(smallest == mlp.TRAIN_IG_STEPS and choice["rule"] == mlp.TRAIN_IG_RULE))
    print(f"\n6. quadrature: smallest T within tolerance {smallest}, rule {choice['rule']} (defaults: "
          f"{mlp.TRAIN_IG_STEPS}, {mlp.TRAIN_IG_RULE})")
    show = table[table["T"].isin([4, 6, 8, 32, 128])]
    print(show.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


# --------------------------------------------------------------------------- 7. the consistency gain by setting
def pairs_benchmark():
    ce = _experiment_inputs()
    X, y, sex, columns, _ = ce.german_inputs()
    settings = {"T = 32 midpoint, all pairs (previous)": PREVIOUS,
                f"T = {mlp.TRAIN_IG_STEPS} {mlp.TRAIN_IG_RULE}, all pairs": dict(CURRENT, cec_pairs=None),
                f"T = {mlp.TRAIN_IG_STEPS} {mlp.TRAIN_IG_RULE}, 32 pairs": dict(CURRENT, cec_pairs=32),
                f"T = {mlp.TRAIN_IG_STEPS} {mlp.TRAIN_IG_RULE}, {mlp.TRAIN_CEC_PAIRS} pairs (default)": CURRENT}
    variants = {name: dict(setting, lambda_eo=1.0, lambda_cec=1.0) for name, setting in settings.items()}
    result = cec.cross_validate_methods(X, y, sex, columns, methods=["unconstrained"], variants=variants,
                                        random_state=0)
    table = (result.groupby("method", sort=False)
             .agg(**{"mean CEC": ("cec", "mean"), "CEC sd over folds": ("cec", "std"), "F1": ("f1", "mean"),
                     "EO gap": ("eo_gap", "mean"), "fit s (median)": ("fit_seconds", "median")})
             .reset_index().rename(columns={"method": "training"}))
    results.table("consistency gain by setting", "German Credit, five folds: the cec method (λ_CEC = λ_EO = 1) "
                  "trained with the previous CEC term and the cheaper ones, scored alike (T = 32 midpoint)", table,
                  note="fit s: median over the five folds (the first fold's includes compiling)")
    print("\n7. consistency gain by training setting, German Credit, five folds")
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


# --------------------------------------------------------------------------- 3. a German-Credit fit
def german_benchmark():
    data = load_german_credit()
    X = pd.get_dummies(data.X, dtype=float)
    y = data.y.to_numpy()
    a = data.frame["sex"].to_numpy()
    financial = ["credit_amount", "duration", "installment_rate", "residence_since", "age", "existing_credits",
                 "people_liable"]
    match = cec.match_counterfactuals(X, y, a, financial)
    X_cf = cec.counterfactual_rows(match, X)
    B = cec.label_group_baselines(X, y, a)
    rows = []
    for lam in (0.0, 1.0):
        times = []   # runs before section 4, so the first fit compiles the epoch
        for _ in range(2):
            start = time.perf_counter()
            cec.MLPClassifier(lambda_cec=lam, random_state=0).fit(X, y, X_cf=X_cf, baselines=B)
            times.append(time.perf_counter() - start)
        rows.append({"lambda_cec": lam, "first fit s (with compilation)": times[0], "repeat fit s": times[1]})
    title = (f"German Credit fit: {X.shape[0]:,} rows x {X.shape[1]} features (one-hot), 30 epochs, network "
             f"(128, 64), batch 64, CEC term T = {mlp.TRAIN_IG_STEPS} {mlp.TRAIN_IG_RULE} points on "
             f"{mlp.TRAIN_CEC_PAIRS} pairs per batch; {match.coverage:.0%} of rows matched on 7 financial features")
    results.table("German Credit fit", title, pd.DataFrame(rows))
    print(f"\n3. {title}")
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.2f}"))


# --------------------------------------------------------------------------- 5. matching growth table
GROWTH_SIZES = (4_000, 8_000, 16_000, None)   # None = all of Adult (32,561 rows)


def matching_growth_point(n):
    """Best of 3 matchings on an Adult subsample of n rows (all rows if None), in this (fresh) process."""
    data = load_adult()
    frame, y_all = data.frame, data.y.to_numpy()
    X = pd.concat([frame[["capital_gain", "capital_loss", "hours_per_week"]].astype(float),
                   pd.get_dummies(frame["occupation"], prefix="occ", dtype=float)], axis=1)
    financial = list(X.columns)
    take = (np.arange(len(X)) if n is None else
            np.sort(np.random.default_rng(1).choice(len(X), n, replace=False)))
    X, y, a = X.iloc[take], y_all[take], frame["sex"].to_numpy()[take]
    before = start_memory_peak()
    times = []
    for _ in range(3):
        start = time.perf_counter()
        match = cec.match_counterfactuals(X, y, a, financial)
        times.append(time.perf_counter() - start)
    peak = memory_peak()
    return {"rows": len(X), "seconds": min(times), "µs per row": 1e6 * min(times) / len(X),
            "coverage": match.coverage, "peak memory MB": peak,
            "added by the call MB": None if before is None else peak - before, "repeats": times}


def matching_growth_benchmark():
    load = os.getloadavg()[0]
    context = multiprocessing.get_context("spawn")
    rows = []
    for n in GROWTH_SIZES:
        load = max(load, os.getloadavg()[0])
        with concurrent.futures.ProcessPoolExecutor(1, mp_context=context) as pool:
            point = pool.submit(matching_growth_point, n).result()
        note_repeats(point.pop("repeats"))
        rows.append(point)
    load = max(load, os.getloadavg()[0])
    table = pd.DataFrame(rows)
    shared = shared_machine_note(load)
    title = ("growth table: match_counterfactuals on Adult subsamples up to all rows (18 financial columns; "
             "protected: sex), each size in a fresh process")
    results.table("matching growth", title, table,
                  note="best of 3; peak memory = peak resident memory of a fresh process (Adult loaded, JAX "
                       "imported) during the three calls; added by the call = that peak minus the resident memory "
                       "just before them" + shared)
    growth = results.value("growth exponent: matching 4,000-32,561 rows",
                           growth_exponent(table["rows"], table["seconds"]))
    print(f"\n5. {title}")
    print(table.to_string(index=False, float_format=lambda v: f"{v:,.3g}"))
    print(f"   growth exponent in n: {growth:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=["growth", "training", "quadrature"],
                        help="run only part 5 (growth), part 4 (training) or parts 6-7 (quadrature) and merge "
                        "its results into the saved benchmarks/results/cec.json, keeping the other parts' results")
    only = parser.parse_args().only
    print(f"machine: {machine()}; jax {jax.__version__} on {jax.default_backend()}\n")
    if only == "growth":
        matching_growth_benchmark()
        save_merged(results)
    elif only == "training":
        training_benchmark()
        save_merged(results)
    elif only == "quadrature":
        quadrature_benchmark()
        pairs_benchmark()
        save_merged(results)
    else:
        matching_benchmark()
        ig_benchmark()
        german_benchmark()
        training_benchmark()
        matching_growth_benchmark()
        quadrature_benchmark()
        pairs_benchmark()
        results.save()

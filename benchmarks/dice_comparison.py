"""recourse_for_refused against DiCE (dice-ml) on the same model and the same refused people, in one run.

What is compared (every method on the same people, each on one core with one thread):

1. **Adult.** A random sample of 6,000 rows of the book's Adult data (``load_adult``, seed 0), a
   scikit-learn ``Pipeline`` fitted on the raw frame (its own ``ColumnTransformer``: a dense
   ``OneHotEncoder`` for the text columns, the numbers passed through, then
   ``HistGradientBoostingClassifier(random_state=0)``) and ``Encoder(list(data.features))`` with the
   book's advice policy (age, marital status, relationship, capital gain and loss, sex and race never
   advised; education at most two levels up, hours at most ±10). The first 100 people the pipeline
   refuses (not 200: with 200 the run took 33 and 38 minutes on a 2-core machine, 29-34 of them DiCE's
   genetic search, three quarters of that in calls stopped at the time limit) get:

   * ``recourse_for_refused(pipe, X, enc, rows=refused)`` (the 6,000 rows are the donors);
   * DiCE "random", "genetic" and "kdtree" (``dice_ml.Model(backend="sklearn")`` on the pipeline,
     ``total_CFs=1``, ``desired_class="opposite"``), called as a practitioner would who wants to
     respect the specs: ``features_to_vary`` = the features advice may change and, per person,
     ``permitted_range`` for those whose advice is bounded (education from the person's level up to
     two levels, years of education up to +2, hours within ±10 of the person's, clipped to the data);
   * DiCE "random" with ``features_to_vary`` only (no ``permitted_range``), as it is commonly called.

   Each DiCE call runs in a worker process (two at a time, on the two cores, one thread each) under
   a limit of ``TIME_LIMIT`` = 30 CPU seconds (RLIMIT_CPU, so that whether a call finishes does not
   depend on other jobs on the machine; a call still running after five times that in wall-clock
   time is killed); a stopped call counts as no counterfactual, its time as spent (DiCE's genetic
   initialisation loops until it has drawn enough rows the model approves, forever where nothing
   within the ranges flips the model). Measured per method: the share of people with a
   counterfactual returned; the share whose counterfactual is feasible (``enc.feasible``) and
   actionable under the specs (``enc.actionable``); the share that flips the real pipeline (its
   ``predict`` on the counterfactual in the frame's dtypes); the share that is both (usable advice);
   the median and mean cost (``enc.cost``) of the usable ones; where both ours and the method give
   usable advice, the median ratio of the method's cost to ours (and how often it is cheaper); the
   median number of features changed; wall and CPU seconds per person and the ratio of CPU seconds
   to ours (CPU time: robust to other jobs on a shared machine; ours runs in the main process with
   ``n_jobs=1`` on one thread). A second table counts why the returned counterfactuals that are not
   actionable are not (per feature), a third lists the people for whom a DiCE method gave usable
   advice that ours missed or that costs less.

2. **Against the exact optimum.** A synthetic table small enough to list every profile (education 0-4,
   up at most 2 levels; hours band 0-4, ±1 band; savings 0-3, up only; job, four categories, free;
   region, three, immutable: 1,200 grid points), a ``GradientBoostingClassifier`` pipeline with its
   own one-hot encoding on the raw frame. The brute force takes, for each refused person, the
   cheapest actionable grid point the pipeline approves. For ours and the DiCE methods (called as
   above): the share of people with recourse found against the brute force's share, the share usable,
   the median cost over the optimum and the share at the optimum.

How to run it. dice-ml is not a dependency of the project (it is not in ``requirements.txt``); give it
its own environment (with the package's own dependencies; networkx and pulp are imported by
``recourselab``), the package importable through ``PYTHONPATH``::

    python3.11 -m venv /tmp/dice-venv
    /tmp/dice-venv/bin/python -m pip install dice-ml numpy pandas scipy scikit-learn tqdm joblib networkx pulp
    PYTHONPATH=. /tmp/dice-venv/bin/python benchmarks/dice_comparison.py     # from the repository root

(dice-ml 0.12 runs with numpy 2.4, pandas 3.1 and scikit-learn 1.9: no older numpy was needed; the
versions used are stored with the results.) It takes about 20 minutes on two cores, most of it
DiCE's genetic search and its time-outs, and rewrites ``benchmarks/results/dice_comparison.json``.
``--people N`` audits the first N refused people instead of 100 (a quick check; it still rewrites
the results). Under the project's own ``.venv``, which has no dice_ml (so ``make bench`` does not
fail), the script prints how to run it and exits 0 without touching the stored results.
"""

import argparse
import contextlib
import io
import math
import multiprocessing
import os
import random
import resource
import signal
import sys
import time
import warnings
from multiprocessing.connection import wait

import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder
from threadpoolctl import threadpool_limits

from recourselab.counterfactuals import recourse_for_refused
from recourselab.datasets import load_adult
from recourselab.features import Encoder, FeatureSpec

from _timing import Results, machine

try:
    import dice_ml
except ImportError:  # the project's own .venv: see the message in main()
    dice_ml = None

N_ROWS = 6_000          # Adult sample (seed 0): training rows, donors and DiCE's data
N_PEOPLE = 100          # first refused people audited (Adult): 200 took 33-38 minutes, most of it DiCE genetic
N_SYNTHETIC = 100       # first refused people audited (synthetic table)
TIME_LIMIT = 30         # CPU seconds per DiCE call; a call stopped there counts as no counterfactual
WALL_FACTOR = 5         # a call still running after this many times the limit in wall-clock seconds is killed
N_WORKERS = 2           # DiCE calls at a time (the machine's two cores), each worker on one thread
MESSAGE = """dice_comparison.py compares recourse_for_refused with DiCE and needs dice-ml, which is not a dependency
of the project. Run it in its own environment, from the repository root:

    python3.11 -m venv /tmp/dice-venv
    /tmp/dice-venv/bin/python -m pip install dice-ml numpy pandas scipy scikit-learn tqdm joblib networkx pulp
    PYTHONPATH=. /tmp/dice-venv/bin/python benchmarks/dice_comparison.py

Skipped: benchmarks/results/dice_comparison.json is left as it is."""


# ------------------------------------------------------------------ DiCE calls in worker processes
class _OverTime(BaseException):
    """Raised in a DiCE worker when a call has used up its CPU seconds (a BaseException: DiCE's own
    ``except Exception`` blocks do not swallow it)."""


_IN_CALL = [False]


def _on_cpu_limit(signum, frame):
    if _IN_CALL[0]:
        _IN_CALL[0] = False
        raise _OverTime


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _worker(conn, world, method, limit):
    """One DiCE explainer in its own process, answering (key, query, kwargs, seed) tasks until None.

    Each call may use ``limit`` CPU seconds (RLIMIT_CPU; the kernel's SIGXCPU stops it), so whether
    DiCE finishes does not depend on what else the machine runs. After a stopped call the worker
    exits (DiCE's state may be half-updated) and the pool starts a fresh one.
    """
    from raiutils.exceptions import UserConfigValidationException

    warnings.simplefilter("ignore")
    signal.signal(signal.SIGXCPU, _on_cpu_limit)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    with threadpool_limits(1):
        data = dice_ml.Data(dataframe=world["frame"], continuous_features=world["continuous"],
                            outcome_name=world["outcome"])
        explainer = dice_ml.Dice(data, dice_ml.Model(model=world["model"], backend="sklearn"), method=method)
        conn.send("ready")
        while True:
            try:
                task = conn.recv()
            except EOFError:  # the benchmark stopped
                return
            if task is None:
                return
            key, query, kwargs, seed = task
            np.random.seed(seed)  # DiCE's genetic and kdtree draw from the global generators
            random.seed(seed)
            status, cf = "", None
            wall, cpu = time.perf_counter(), time.process_time()
            resource.setrlimit(resource.RLIMIT_CPU, (math.ceil(_cpu_used() + limit), hard))
            _IN_CALL[0] = True
            try:
                with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                    try:
                        result = explainer.generate_counterfactuals(query, total_CFs=1, desired_class="opposite",
                                                                    **kwargs)
                        cf = result.cf_examples_list[0].final_cfs_df
                    except UserConfigValidationException:  # DiCE's "No counterfactuals found"
                        pass
                    except Exception as exc:  # noqa: BLE001 (a crash is a result too: counted and reported)
                        status = f"{type(exc).__name__}: {exc}"[:200]
            except _OverTime:
                status, cf = "timeout", None
            finally:
                _IN_CALL[0] = False
                resource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY, hard))
            cf = None if cf is None or not len(cf) else cf.iloc[[0]]
            conn.send((key, cf, time.perf_counter() - wall, time.process_time() - cpu, status))
            if status == "timeout":
                return


class _Pool:
    """Worker processes running one DiCE method, each call under a CPU-time limit.

    A worker whose call is stopped exits and is replaced; a call still running after ``WALL_FACTOR``
    times the limit in wall-clock time (a loaded machine, or a hang outside Python) is killed.
    """

    def __init__(self, world, method, n_workers, limit):
        self.world, self.method, self.limit = world, method, limit
        self.context = multiprocessing.get_context("forkserver")  # no fork after the parent's OpenMP
        self.context.set_forkserver_preload(["numpy", "pandas", "sklearn.ensemble", "dice_ml", "recourselab"])
        self.workers = [self._start() for _ in range(n_workers)]
        self.restarts, self.load = 0, os.getloadavg()[0]

    def _start(self):
        here, there = self.context.Pipe()
        process = self.context.Process(target=_worker, args=(there, self.world, self.method, self.limit),
                                       daemon=True)
        process.start()
        there.close()
        if here.recv() != "ready":
            raise RuntimeError(f"the DiCE {self.method} worker did not start")
        return {"process": process, "conn": here, "key": None, "deadline": None}

    def _replace(self, w, kill):
        if kill:
            w["process"].kill()
        w["process"].join()
        w["conn"].close()
        self.workers[self.workers.index(w)] = self._start()
        self.restarts += 1

    def run(self, tasks):
        """{key: (counterfactual row or None, wall s, CPU s, status)} for tasks (key, query, kwargs, seed).

        status: "" (DiCE returned, with or without a counterfactual), "timeout", or the error DiCE raised.
        """
        pending, out = list(tasks)[::-1], {}
        while True:
            for w in self.workers:
                if w["key"] is None and pending:
                    key, query, kwargs, seed = pending.pop()
                    w["conn"].send((key, query, kwargs, seed))
                    w["key"], w["deadline"] = key, time.perf_counter() + WALL_FACTOR * self.limit
            busy = [w for w in self.workers if w["key"] is not None]
            if not busy:
                return out
            timeout = max(0.0, min(w["deadline"] for w in busy) - time.perf_counter())
            ready = wait([w["conn"] for w in busy], timeout=timeout)
            for w in busy:
                if w["conn"] in ready:
                    key, cf, wall, cpu, status = w["conn"].recv()
                    out[key] = (cf, wall, cpu, status)
                    self.load = max(self.load, os.getloadavg()[0])
                    w["key"] = None
                    if status == "timeout":
                        self._replace(w, kill=False)
                elif time.perf_counter() >= w["deadline"]:
                    out[w["key"]] = (None, WALL_FACTOR * self.limit, self.limit, "timeout")
                    self._replace(w, kill=True)

    def close(self):
        for w in self.workers:
            w["conn"].send(None)
            w["process"].join(timeout=10)
            if w["process"].is_alive():
                w["process"].kill()


def permitted_ranges(person: pd.Series, enc: Encoder, frame: pd.DataFrame, to_vary) -> dict:
    """DiCE's ``permitted_range`` for one person from the specs: bounded advice as ranges from their value.

    Numeric columns (continuous for DiCE): [lowest, highest] value advice may reach from the person's
    (the cap in units, or in levels for an ordinal feature; the value itself on a side advice may not
    move), within the data's range. Ordinal text columns (categorical for DiCE): the levels advice may
    reach that occur in the data. Free features without a cap keep DiCE's default (the data's range).
    """
    ranges = {}
    for name in to_vary:
        spec, value = enc.spec(name), person[name]
        direction, cap = spec.advice_direction, spec.max_change
        if direction == "any" and cap is None:
            continue
        if spec.kind == "continuous":
            lo, hi = frame[name].min(), frame[name].max()
            up = hi if cap is None else min(hi, value + cap)
            down = lo if cap is None else max(lo, value - cap)
            levels = None
        else:  # ordinal or binary: whole levels
            levels = [level for level in enc.levels_[name] if level in set(frame[name])]
            i, step = levels.index(value), len(levels) if cap is None else int(cap)
            down, up = levels[max(0, i - step)], levels[min(len(levels) - 1, i + step)]
        if direction == "increase":
            down = value
        elif direction == "decrease":
            up = value
        if levels is None or pd.api.types.is_numeric_dtype(frame[name]):
            ranges[name] = [down.item() if hasattr(down, "item") else down, up.item() if hasattr(up, "item") else up]
        else:
            ranges[name] = levels[levels.index(down):levels.index(up) + 1]
    return ranges


def as_frame_dtypes(cf: pd.DataFrame, like: pd.DataFrame) -> pd.DataFrame:
    """DiCE's counterfactual in the frame's columns and dtypes (integers stay floats where not whole)."""
    cf = cf[list(like.columns)].copy()
    for name, dtype in like.dtypes.items():
        if pd.api.types.is_integer_dtype(dtype):
            values = pd.to_numeric(cf[name]).astype(float)
            cf[name] = values.astype(dtype) if np.allclose(values, values.round()) else values
        else:
            cf[name] = cf[name].astype(dtype)
    return cf


def run_dice(world, method, people, kwargs_of, seed_of):
    """One DiCE method on every person: ({label: (cf, wall s, CPU s, status)}, its wall seconds, peak load)."""
    start = time.perf_counter()
    pool = _Pool(world, method, N_WORKERS, TIME_LIMIT)
    tasks = [(label, people.loc[[label]], kwargs_of(label), seed_of(label)) for label in people.index]
    try:
        out = pool.run(tasks)
    finally:
        pool.close()
    return out, time.perf_counter() - start, pool.load


# ------------------------------------------------------------------ measuring the answers
def measure(name, people, cfs, wall, cpu, enc, model, ours=None):
    """One table row: shares of people with a counterfactual returned, feasible, actionable, flipping, usable.

    ``cfs``: a frame of counterfactuals in ``people``'s dtypes (the person's own row where none was
    returned) and ``returned`` (bool per person) as its attribute; ``wall``, ``cpu``: seconds per
    person; ``ours``: (usable mask, cost) of recourse_for_refused, for the cost ratios.
    """
    returned = cfs.attrs["returned"]
    Zp, Zc = enc.transform(people), enc.transform(cfs)
    feasible = enc.feasible(Zp, Zc) & returned
    actionable = enc.actionable(Zp, Zc) & returned
    flips = (np.asarray(model.predict(cfs)) == 1) & returned
    usable = actionable & flips
    cost = enc.cost(Zp, Zc)
    changed = (enc.feature_distances(Zp, Zc) > 1e-9).sum(axis=1)
    row = {"method": name, "people": len(people), "returned": returned.mean(), "feasible": feasible.mean(),
           "actionable": actionable.mean(), "flips model": flips.mean(), "usable": usable.mean(),
           "median cost": np.median(cost[usable]) if usable.any() else np.nan,
           "mean cost": cost[usable].mean() if usable.any() else np.nan}
    if ours is not None:
        ours_usable, ours_cost = ours
        both = usable & ours_usable
        ratio = cost[both] / ours_cost[both]
        row.update({"both usable": int(both.sum()),
                    "cost / ours (median)": np.median(ratio) if both.any() else np.nan,
                    "cheaper than ours": (ratio < 1 - 1e-9).mean() if both.any() else np.nan,
                    "usable where ours has none": int((usable & ~ours_usable).sum())})
    row.update({"features changed (median)": np.median(changed[returned]) if returned.any() else np.nan,
                "s / person": float(np.mean(wall)), "CPU s / person": float(np.mean(cpu))})
    return row, usable, cost, Zp, Zc


def collect(results, people):
    """DiCE's answers as a frame in the people's dtypes (their own row where none), plus statuses and times."""
    rows, returned, wall, cpu, status = [], [], [], [], []
    for label in people.index:
        cf, w, c, error = results[label]
        wall.append(w)
        cpu.append(c)
        status.append(error)
        if cf is None:
            rows.append(people.loc[[label]])
            returned.append(False)
        else:
            rows.append(as_frame_dtypes(cf, people).set_axis([label]))
            returned.append(True)
    frame = pd.concat(rows)
    frame.attrs["returned"] = np.array(returned)
    return frame, np.array(wall), np.array(cpu), status


def why_not_actionable(name, enc, Zp, Zc, returned):
    """Per feature and reason: how many returned counterfactuals break the specs there."""
    if not returned.any():
        return []
    reasons = enc.advice_violations(Zp[returned], Zc[returned])
    rows = []
    for feature in reasons:
        words = reasons[feature].str.replace(r" \(.*\)", "", regex=True)
        for reason, count in words[words != ""].value_counts().items():
            rows.append({"method": name, "feature": feature, "reason": reason, "counterfactuals": int(count),
                         "share of returned": count / max(int(returned.sum()), 1)})
    return rows


def changes(enc, person, cf, z, zc) -> str:
    """The features a counterfactual changes, in words: "hours_per_week 40 → 50, occupation Sales → Tech-support"."""
    moved = enc.feature_distances(z[None, :], zc[None, :])[0] > 1e-9
    return ", ".join(f"{name} {person[name]} → {cf[name]}" for name, m in zip(enc.feature_names, moved, strict=True)
                     if m)


def machine_note(load: float) -> str:
    """What a table's note says when other jobs ran beside the benchmark (its own DiCE workers are two)."""
    if load <= N_WORKERS + 0.5:
        return ""
    return (f"; other jobs ran beside the benchmark (1-minute load average up to {load:.1f} on {os.cpu_count()} "
            f"cores, {N_WORKERS} of it the benchmark's own DiCE workers), so the wall-clock times are upper bounds "
            "(CPU seconds and the CPU-time limit are not affected)")


def dice_methods(to_vary, ranges_of):
    """(label, DiCE method, per-person keyword arguments) of the DiCE rows."""
    def respecting(label, seed=None):
        kwargs = {"features_to_vary": to_vary, "permitted_range": ranges_of(label)}
        return kwargs if seed is None else {**kwargs, "random_seed": seed}

    return [("DiCE random", "random", lambda label, seed: respecting(label, seed)),
            ("DiCE genetic", "genetic", lambda label, seed: respecting(label)),
            ("DiCE kdtree", "kdtree", lambda label, seed: respecting(label)),
            ("DiCE random, features_to_vary only", "random",
             lambda label, seed: {"features_to_vary": to_vary, "random_seed": seed})]


def compare(results, key, title, people, frame, outcome, model, enc, run_ours, note, optimum=None):
    """Ours and every DiCE row on ``people``; records and prints the table (and the reasons table)."""
    to_vary = [s.name for s in enc.specs_ if s.advice_direction != "never"]
    continuous = [c for c in people if pd.api.types.is_numeric_dtype(people[c])]  # DiCE: numbers are continuous
    world = {"frame": frame, "continuous": continuous, "outcome": outcome, "model": model}
    seed_of = {label: i for i, label in enumerate(people.index)}.get

    with threadpool_limits(1):
        cpu = time.process_time()
        res = run_ours()
        cpu = time.process_time() - cpu
    ours_frame = res.counterfactuals.copy()
    ours_frame.attrs["returned"] = res.summary["found"].to_numpy()
    row, ours_usable, ours_cost, Zp, Z_ours = measure("recourse_for_refused", people, ours_frame,
                                                      np.full(len(people), res.seconds / len(people)),
                                                      np.full(len(people), cpu / len(people)), enc, model)
    assert np.array_equal(ours_usable, res.summary["found"].to_numpy())  # its own check agrees with ours
    rows = [row | {"both usable": int(ours_usable.sum()), "cost / ours (median)": 1.0, "cheaper than ours": 0.0,
                   "usable where ours has none": 0}]
    extra = [{"method": "recourse_for_refused", "timeouts": 0, "errors": 0, "wall s": res.seconds, "first error": ""}]
    load = os.getloadavg()[0]
    reasons = why_not_actionable("recourse_for_refused", enc, Zp, Z_ours, ours_frame.attrs["returned"])
    optimal = [optimum_row("recourse_for_refused", Zp, Z_ours, ours_usable, enc, optimum)] if optimum else []
    did_better = []
    by_label = {label: people.loc[label] for label in people.index}
    for name, method, kwargs in dice_methods(to_vary, lambda label: permitted_ranges(by_label[label], enc, frame,
                                                                                     to_vary)):
        print(f"  {name} ...", flush=True)
        answers, wall, peak = run_dice(world, method, people,
                                       lambda label, kw=kwargs: kw(label, seed_of(label)), seed_of)
        load = max(load, peak, os.getloadavg()[0])
        cfs, wall_each, cpu_each, status = collect(answers, people)
        row, usable, cost, Zp, Zc = measure(name, people, cfs, wall_each, cpu_each, enc, model,
                                            ours=(ours_usable, ours_cost))
        rows.append(row)
        better = usable & (~ours_usable | (cost < ours_cost - 1e-9))
        for i in np.flatnonzero(better):
            label = people.index[i]
            did_better.append({"method": name, "person": label, "method cost": cost[i],
                               "ours cost": ours_cost[i] if ours_usable[i] else None,
                               "method's changes": changes(enc, people.loc[label], cfs.loc[label], Zp[i], Zc[i]),
                               "ours' changes": changes(enc, people.loc[label], ours_frame.loc[label], Zp[i],
                                                        Z_ours[i]) if ours_usable[i] else ""})
        errors = [s for s in status if s not in ("", "timeout")]
        extra.append({"method": name, "timeouts": status.count("timeout"), "errors": len(errors), "wall s": wall,
                      "first error": errors[0] if errors else ""})
        reasons += why_not_actionable(name, enc, Zp, Zc, cfs.attrs["returned"])
        if optimum:
            optimal.append(optimum_row(name, Zp, Zc, usable, enc, optimum))
    table = pd.DataFrame(rows)
    table["CPU × ours"] = table["CPU s / person"] / table["CPU s / person"].iloc[0]
    table = table.merge(pd.DataFrame(extra), on="method")
    if not table["first error"].any():
        table = table.drop(columns="first error")
    results.table(key, title, table, note=note + machine_note(load))
    print(title)
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    reasons = pd.DataFrame(reasons, columns=["method", "feature", "reason", "counterfactuals", "share of returned"])
    results.table(f"{key}: why not actionable", f"{title}: why the returned counterfactuals are not actionable",
                  reasons, note="per feature: returned counterfactuals whose change of that feature breaks the specs "
                  "(enc.advice_violations); one counterfactual may break several features")
    print(f"\nwhy not actionable ({key}):")
    print(reasons.to_string(index=False, float_format=lambda x: f"{x:.0%}") if len(reasons) else "  none")
    better = pd.DataFrame(did_better, columns=["method", "person", "method cost", "ours cost", "method's changes",
                                               "ours' changes"])
    results.table(f"{key}: where DiCE did better", f"{title}: people a DiCE method gave usable advice that ours "
                  "missed or that costs less than ours", better, note="person = index label in the data; "
                  "ours cost empty where recourse_for_refused found nothing")
    print(f"\nwhere DiCE did better ({key}):")
    print(better.to_string(index=False, float_format=lambda x: f"{x:.3g}") if len(better) else "  nowhere")
    print()
    return table, optimal


# ------------------------------------------------------------------ part 1: Adult
def adult_part(results, n_people):
    data = load_adult()
    frame = data.frame.sample(N_ROWS, random_state=0)
    X, y = frame.drop(columns=[data.target]), frame[data.target]
    text = [c for c in X if not pd.api.types.is_numeric_dtype(X[c])]
    pipe = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore", sparse_output=False), text),
                                remainder="passthrough"),
        HistGradientBoostingClassifier(random_state=0)).fit(X, y)
    enc = Encoder(list(data.features)).fit(X)
    all_refused = X.index[pipe.predict(X) == 0]
    refused = all_refused[:n_people]
    people = X.loc[refused]
    print(f"Adult: {N_ROWS:,} rows, {len(all_refused):,} refused; auditing the first {len(refused)}")
    note = (f"{N_ROWS:,}-row sample of Adult (seed 0), HistGradientBoosting pipeline with its own one-hot encoding; "
            f"the first {len(refused)} of {len(all_refused):,} refused people; DiCE calls two at a time in worker "
            f"processes, at most {TIME_LIMIT:g} CPU s each (a timeout = not found, its time counted as spent); every "
            "method on one thread (ours: n_jobs=1); CPU × ours = CPU seconds per person over ours; usable = "
            "actionable under the specs and flips the pipeline; costs over the usable ones; cost / ours over the "
            "people both give usable advice")
    compare(results, "Adult", f"Recourse for {len(refused)} refused Adult applicants: recourse_for_refused and DiCE",
            people, frame, data.target, pipe, enc,
            lambda: recourse_for_refused(pipe, X, enc, rows=refused, progress=False), note)
    results.value("Adult: people audited", len(refused),
                  note=f"the first refused of the {N_ROWS:,}-row sample; 100 rather than 200 because with 200 the "
                  "whole run took 33 and 38 minutes on this 2-core machine (29-34 of them DiCE genetic, whose "
                  "calls stopped at the time limit took three quarters of it), over the 30 allowed")


# ------------------------------------------------------------------ part 2: a table small enough for brute force
SYNTHETIC_SPECS = [
    FeatureSpec("education", "ordinal", "increase", order=[0, 1, 2, 3, 4], max_change=2),
    FeatureSpec("hours", "ordinal", "free", order=[0, 1, 2, 3, 4], max_change=1),
    FeatureSpec("savings", "ordinal", "increase", order=[0, 1, 2, 3]),
    FeatureSpec("job", "categorical", order=["clerk", "driver", "nurse", "teacher"]),
    FeatureSpec("region", "categorical", "immutable", order=["east", "north", "south"]),
]


def synthetic_table(n=3_000, seed=1):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"education": rng.integers(0, 5, n), "hours": rng.integers(0, 5, n),
                      "savings": rng.integers(0, 4, n), "job": rng.choice(["clerk", "driver", "nurse", "teacher"], n),
                      "region": rng.choice(["east", "north", "south"], n)})
    nurse, south = (X["job"] == "nurse").to_numpy(), (X["region"] == "south").to_numpy()
    score = (0.6 * X["education"] + 0.9 * X["savings"] * (X["hours"] >= 2) + 1.2 * nurse * (X["education"] >= 2)
             + 0.5 * (X["job"] == "teacher") - 0.3 * (X["hours"] - 2) ** 2 - 1.0 * south)
    y = (score + rng.logistic(0, 0.4, n) > 2.5).astype(int)
    return X, y


def optimum_row(name, Zp, Zc, usable, enc, optimum):
    has, best = optimum
    cost = enc.cost(Zp, Zc)
    ratio = cost[usable & has] / best[usable & has]
    return {"method": name, "people": len(Zp), "brute force: recourse exists": has.mean(),
            "usable": usable.mean(), "usable where none exists": int((usable & ~has).sum()),
            "cost / optimum (median)": np.median(ratio) if ratio.size else np.nan,
            "cost / optimum (max)": ratio.max() if ratio.size else np.nan,
            "at the optimum": (np.abs(ratio - 1) <= 1e-9).mean() if ratio.size else np.nan}


def synthetic_part(results, n_people):
    X, y = synthetic_table()
    pipe = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["job", "region"]),
                                remainder="passthrough"),
        GradientBoostingClassifier(random_state=0)).fit(X, y)
    enc = Encoder(SYNTHETIC_SPECS).fit(X)
    grid = pd.MultiIndex.from_product([s.order for s in SYNTHETIC_SPECS],
                                      names=[s.name for s in SYNTHETIC_SPECS]).to_frame(index=False)
    grid = grid.astype({c: X[c].dtype for c in grid})
    Zg, approved = enc.transform(grid), pipe.predict(grid) == 1
    refused = X.index[pipe.predict(X) == 0][:n_people]
    people = X.loc[refused]
    Zp = enc.transform(people)
    has, best = np.zeros(len(people), dtype=bool), np.full(len(people), np.inf)
    for i in range(len(people)):
        start = np.repeat(Zp[i:i + 1], len(grid), axis=0)
        ok = enc.actionable(start, Zg) & approved
        if ok.any():
            has[i], best[i] = True, enc.cost(start[ok], Zg[ok]).min()
    print(f"synthetic: {len(X):,} rows, {len(grid):,} grid points, {len(refused)} refused audited, "
          f"recourse exists for {has.mean():.0%}")
    note = (f"{len(X):,}-row synthetic table (seed 1), GradientBoosting pipeline with its own one-hot encoding, "
            f"{len(grid):,} grid points; the first {len(refused)} refused people; DiCE as in the Adult table")
    frame = X.assign(outcome=y)
    _, optimal = compare(results, "synthetic", f"Recourse for {len(refused)} refused people of a synthetic table: "
                         "recourse_for_refused and DiCE", people, frame, "outcome", pipe, enc,
                         lambda: recourse_for_refused(pipe, X, enc, rows=refused, progress=False), note,
                         optimum=(has, best))
    table = pd.DataFrame(optimal)
    title = "Cost against the brute-force optimum (synthetic table, every actionable grid point tried)"
    results.table("synthetic: against the optimum", title, table,
                  note="optimum = the cheapest actionable grid point the pipeline approves; ratios over the people "
                  "the method gives usable advice (recourse then exists)")
    print(title)
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.3g}"))
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=N_PEOPLE, help="refused Adult people audited (default 100)")
    n_people = parser.parse_args().people
    if dice_ml is None:
        print(MESSAGE)
        return 0
    from importlib import metadata

    results = Results(__file__)
    print(f"machine: {machine()}; dice-ml {metadata.version('dice-ml')}, numpy {np.__version__}, "
          f"pandas {pd.__version__}\n")
    adult_part(results, n_people)
    synthetic_part(results, min(N_SYNTHETIC, n_people))
    results.value("time limit per DiCE call", TIME_LIMIT,
                  note=f"CPU seconds (RLIMIT_CPU; killed after {WALL_FACTOR}x that in wall-clock time); a stopped "
                  "call counts as no counterfactual")
    results.value("DiCE workers", N_WORKERS, note="DiCE calls at a time, each in its own process on one thread")
    path = results.save()
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

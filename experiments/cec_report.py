"""The same-group null of the CEC lesson and report: every network audited with partners of the other group
*and* with partners of its own group, five folds, three data sets.

A CEC score is positive even for a model that treats the groups alike, because a partner matched on the
financial features differs from the factual on the other inputs, and integrated gradients attribute
those differences too. The reference that says how much of a score is about the group is the same
audit with partners drawn from the factual's *own* group (same label, nearest on the same standardised
financial features, same baseline): any score that appears there appears without a group difference.
A second reference is a model that cannot treat the groups differently: a logistic regression that does
not see the protected attribute (nor, on German Credit, the marital-status code that encodes it; on
Adult, the relationship column with its husband/wife values).

For each fold of `experiments/cec_experiments.py` (the same folds, seeds and fits, so the rows with
partners of the other group equal `book/data/cec/<data>_cv.csv`, which this script checks) it writes
`book/data/cec/null_cv.csv`: one row per (data, fold, method, partners) with the metrics of
`evaluate_method`. About 5 minutes on two cores. Run from the repository root:

    PYTHONPATH=$PWD .venv/bin/python experiments/cec_report.py

The regimes depend on the score threshold t (0.25 in every other file). `... cec_report.py thresholds` refits
German Credit's methods, its stronger CEC setting and the sensitivity grid of `cec_experiments.py` (same folds
and seeds) and writes `book/data/cec/german_thresholds.csv`: the metrics at t = 0.1, 0.25, 0.5 and 0.75, with
partners of both kinds (5 CPU minutes, 13 on a busy shared machine; its t = 0.25 rows are checked
against the stored files).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cec_experiments import GRID, OUT, STRONGER, adult_inputs, german_inputs, synthetic_inputs  # noqa: E402

from recourselab import explanation_consistency as cec  # noqa: E402

METHODS = {"german": ["unconstrained", "hardt", "agarwal", "correlation_remover", "eo_only", "cec_only", "cec"],
           "adult": ["unconstrained", "hardt", "eo_only", "cec"],
           "synthetic": ["unconstrained", "hardt", "eo_only", "cec"]}
# the columns a group-blind model does not see: the protected attribute and the columns that encode it
BLIND_DROP = {"german": ("sex", "marital_status"), "adult": ("sex", "relationship"), "synthetic": ("group",)}
INPUTS = {"german": german_inputs, "adult": adult_inputs, "synthetic": synthetic_inputs}
THRESHOLDS = (0.1, 0.25, 0.5, 0.75)
SENSITIVITY = {f"λ_EO = {eo:g}, λ_CEC = {lc:g}": {"lambda_eo": eo, "lambda_cec": lc} for eo in GRID for lc in GRID}
METRICS = ["auc", "f1", "eo_gap", "sp_gap", "cec", "pfr", "regime_A", "regime_B", "regime_C", "regime_D"]


def same_group_pool(groups: np.ndarray) -> np.ndarray:
    """The pool's groups swapped: `match_counterfactuals` then finds each row's nearest partner of its own group."""
    values = sorted(set(groups.tolist()))
    return np.where(groups == values[0], values[1], values[0])


def fold_rows(name, X, y, a, financial, names, fold, train, test, thresholds=(0.25,), grid=False):
    """Every method of one fold, audited with partners of the other group and of the same group (at each regime
    threshold; with `grid`, German Credit's sensitivity grid too)."""
    m_train = cec.match_counterfactuals(X[train], y[train], a[train], financial)
    partners = {
        "other group": cec.match_counterfactuals(X[test], y[test], a[test], financial, X_pool=X[train],
                                                 y_pool=y[train], groups_pool=a[train]),
        "same group": cec.match_counterfactuals(X[test], y[test], a[test], financial, X_pool=X[train],
                                                y_pool=y[train], groups_pool=same_group_pool(a[train])),
    }
    X_cf_train = cec.counterfactual_rows(m_train, X[train])
    B_train = cec.label_group_baselines(X[train], y[train], a[train])
    B_test = cec.label_group_baselines(X[test], y[test], a[test], X_fit=X[train], y_fit=y[train],
                                       groups_fit=a[train])
    models = {}
    for method in METHODS[name]:
        models[method] = cec.fit_method(method, X[train], y[train], a[train], X_cf=X_cf_train, baselines=B_train,
                                        random_state=fold)
    if name == "german":
        for variant, params in (STRONGER | SENSITIVITY if grid else STRONGER).items():
            models[variant] = cec.MLPClassifier(random_state=fold, **params).fit(
                X[train], y[train], sensitive_features=a[train], X_cf=X_cf_train, baselines=B_train)
    blind = [i for i, n in enumerate(names) if not n.split("=")[0].startswith(BLIND_DROP[name])]
    column_sets = {"group-blind logistic regression": blind, "logistic regression, financial features": financial}
    rows = []
    for kind, match in partners.items():
        assert match.coverage == 1.0
        X_cf = cec.counterfactual_rows(match, X[train])
        partner_groups = a[train][match.index]
        for t in thresholds:
            for method, model in models.items():
                r = cec.evaluate_method(model, X[test], y[test], a[test], X_cf=X_cf, groups_cf=partner_groups,
                                        baselines=B_test, random_state=fold, threshold=t)
                rows.append({"data": name, "fold": fold, "method": method, "partners": kind, "threshold": t,
                             "distance": float(np.median(match.distance)), **{k: r[k] for k in METRICS}})
            for method, columns in column_sets.items():
                lr = LogisticRegression(max_iter=2000).fit(X[train][:, columns], y[train])
                r = cec.evaluate_method(lr, X[test][:, columns], y[test], a[test], X_cf=X_cf[:, columns],
                                        groups_cf=partner_groups, baselines=B_test[:, columns], random_state=fold,
                                        threshold=t)
                rows.append({"data": name, "fold": fold, "method": method, "partners": kind, "threshold": t,
                             "distance": float(np.median(match.distance)), **{k: r[k] for k in METRICS}})
    return rows


def check_against_stored(result: pd.DataFrame) -> pd.DataFrame:
    """Per data set, method and metric: the largest difference between our other-group rows and the stored
    five-fold results of the same fits (methods the stored files do not have are left out)."""
    drift = []
    for name in result["data"].unique():
        stored = pd.read_csv(OUT / f"{name}_cv.csv").set_index(["fold", "method"])
        ours = result[(result["data"] == name) & (result["partners"] == "other group")].set_index(["fold", "method"])
        common = ours.index.intersection(stored.index)
        gap = (ours.loc[common, METRICS] - stored.loc[common, METRICS]).abs().groupby(level="method").max()
        drift.append(gap.assign(data=name))
    return pd.concat(drift)


def main(data=tuple(INPUTS), n_folds: int = 5) -> None:
    start, rows, seconds = time.perf_counter(), [], {}
    for name in data:
        inputs = INPUTS[name]
        t = time.perf_counter()
        X, y, a, financial, names = inputs()
        codes = (a == sorted(set(a.tolist()))[1]).astype(int)
        folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(X, 2 * y + codes)
        for fold, (train, test) in list(enumerate(folds))[:n_folds]:
            rows += fold_rows(name, X, y, a, financial, names, fold, train, test)
            print(name, fold, f"{time.perf_counter() - start:.0f} s", flush=True)
        seconds[name] = round(time.perf_counter() - t, 1)
    result = pd.DataFrame(rows).drop(columns="threshold")
    drift = check_against_stored(result)
    if len(data) < len(INPUTS) or n_folds < 5:   # a partial run (for checking) writes nothing
        print(drift.round(4).to_string())
        return
    result.to_csv(OUT / "null_cv.csv", index=False)
    print(drift.round(4).to_string())
    # Refitting the same network with the same seed gives the same numbers in one process, but the networks of
    # the stored run were trained in another order, among other fits; XLA's compiled code then differs in the
    # last bits and a few test decisions can change. Far larger differences mean the stored files are stale.
    worst = float(drift[METRICS].to_numpy().max())
    assert worst < 0.05, f"the stored *_cv.csv differ by {worst:.3f}: run `make cec-results` first"
    meta = json.loads((OUT / "meta.json").read_text())
    meta["seconds"]["null_cv"] = round(time.perf_counter() - start, 1)
    meta["null_cv_largest_difference_from_cv"] = round(worst, 4)
    (OUT / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    print(seconds)


def thresholds_main() -> None:
    """German Credit at several regime thresholds: `book/data/cec/german_thresholds.csv`."""
    start, rows = time.perf_counter(), []
    X, y, a, financial, names = german_inputs()
    codes = (a == sorted(set(a.tolist()))[1]).astype(int)
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0).split(X, 2 * y + codes)
    for fold, (train, test) in enumerate(folds):
        rows += fold_rows("german", X, y, a, financial, names, fold, train, test, thresholds=THRESHOLDS, grid=True)
        print("german", fold, f"{time.perf_counter() - start:.0f} s", flush=True)
    result = pd.DataFrame(rows).drop(columns="data")
    params = pd.DataFrame.from_dict(SENSITIVITY, orient="index")
    result = result.join(params, on="method")
    at = result[(result["threshold"] == 0.25) & (result["partners"] == "other group")].set_index(["fold", "method"])
    drift = []
    for stored in (pd.read_csv(OUT / "german_cv.csv"), pd.read_csv(OUT / "german_sensitivity.csv")):
        stored = stored.set_index(["fold", "method"])
        common = at.index.intersection(stored.index)
        drift.append(float((at.loc[common, METRICS] - stored.loc[common, METRICS]).abs().to_numpy().max()))
    worst = max(drift)
    print("largest difference of the t = 0.25 rows from the stored files:", round(worst, 4))
    assert worst < 0.05, f"the stored german files differ by {worst:.3f}: run `make cec-results` first"
    result.to_csv(OUT / "german_thresholds.csv", index=False)
    meta = json.loads((OUT / "meta.json").read_text())
    meta["seconds"]["german_thresholds"] = round(time.perf_counter() - start, 1)
    meta["german_thresholds_largest_difference_from_cv"] = round(worst, 4)
    (OUT / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] == ["thresholds"]:
        thresholds_main()
        sys.exit()
    # optional: data sets and a number of folds, for a quick partial check, e.g. `german 1`
    main(tuple(sys.argv[1:-1]) or tuple(INPUTS), int(sys.argv[-1])) if len(sys.argv) > 2 else main()

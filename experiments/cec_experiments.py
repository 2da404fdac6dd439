"""The explanation-consistency chapter's long experiments: 5-fold comparisons and the λ sensitivity grid.

The chapter `book/explanation_consistency.md` computes one fold of German
Credit live; the five-fold tables (German Credit, simulated data, Adult), the
λ_CEC × λ_EO sensitivity grid and the ablation need about 9 minutes on two
cores (513 s on 2026-11-24; 19.6 minutes before the CEC term in training got
cheaper, issue 16), more than a chapter may take, so this script computes them
with the same `recourselab.explanation_consistency` functions and writes them to `book/data/cec/`:

    german_cv.csv            7 methods + a stronger CEC setting, 5 folds
    german_sensitivity.csv   λ_CEC × λ_EO in {0.1, 0.5, 1, 2, 5}², 5 folds
    synthetic_cv.csv         make_cec_synthetic(10000), 7 methods, 5 folds
    adult_cv.csv             a stratified sample of 10,000 Adult rows, 7 methods, 5 folds
    meta.json                date, machine, versions, seconds per part

The chapter recomputes fold 0 of German Credit and fails its build if those
numbers differ from the stored ones, so the files cannot silently go stale
when the package changes. Run from the repository root:

    make cec-results            (or: .venv/bin/python experiments/cec_experiments.py)
"""

from __future__ import annotations

import json
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

from recourselab import datasets
from recourselab import explanation_consistency as cec

OUT = Path(__file__).resolve().parents[1] / "book" / "data" / "cec"
GERMAN_FINANCIAL = ["credit_amount", "duration", "installment_rate", "residence_since", "age", "existing_credits",
                    "people_liable"]
ADULT_FINANCIAL = ["capital_gain", "capital_loss", "hours_per_week", "occupation"]
STRONGER = {"CEC (λ_CEC = 2, 60 epochs)": {"lambda_eo": 1.0, "lambda_cec": 2.0, "epochs": 60}}
GRID = (0.1, 0.5, 1.0, 2.0, 5.0)


def encoded(dataset: datasets.Dataset, financial: list[str]) -> tuple[np.ndarray, list[int], list[str]]:
    """The book's encoding (every feature, [0, 1], one-hot categories) and the financial columns in it."""
    encoder = dataset.encoder().fit(dataset.X)
    X = encoder.transform(dataset.X)
    names = list(encoder.feature_names_out_)
    columns = [i for i, name in enumerate(names) if name.split("=")[0] in financial]
    return X, columns, names


def german_inputs():
    german = datasets.load_german_credit()
    X, columns, names = encoded(german, GERMAN_FINANCIAL)
    return X, german.y.to_numpy(), german.frame["sex"].to_numpy(), columns, names


def adult_inputs(n: int = 10_000, random_state: int = 0):
    adult = datasets.load_adult()
    frame = adult.frame
    strata = frame[adult.target].astype(str) + frame["sex"].astype(str)
    sample = (frame.groupby(strata, group_keys=False)
              .apply(lambda g: g.sample(frac=n / len(frame), random_state=random_state)))
    sampled = datasets.Dataset(frame=sample.reset_index(drop=True), target=adult.target, protected=adult.protected,
                               features=adult.features, description=adult.description, citation=adult.citation)
    X, columns, names = encoded(sampled, ADULT_FINANCIAL)
    return X, sampled.y.to_numpy(), sampled.frame["sex"].to_numpy(), columns, names


def synthetic_inputs(n: int = 10_000, random_state: int = 0):
    data = datasets.make_cec_synthetic(n, random_state=random_state)
    X = data.frame[data.feature_names].to_numpy(dtype=float)   # the group is one of the inputs, as in German Credit
    columns = [i for i, name in enumerate(data.feature_names) if name.startswith("fin_")]
    return X, data.y.to_numpy(), data.frame["group"].to_numpy(), columns, list(data.feature_names)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    seconds = {}

    start = time.perf_counter()
    X, y, sex, columns, _ = german_inputs()
    cec.cross_validate_methods(X, y, sex, columns, variants=STRONGER, random_state=0, progress=True) \
        .to_csv(OUT / "german_cv.csv", index=False)
    seconds["german_cv"] = time.perf_counter() - start

    start = time.perf_counter()
    grid = {f"λ_EO = {eo:g}, λ_CEC = {lc:g}": {"lambda_eo": eo, "lambda_cec": lc} for eo in GRID for lc in GRID}
    result = cec.cross_validate_methods(X, y, sex, columns, methods=[], variants=grid, random_state=0, progress=True)
    params = pd.DataFrame.from_dict(grid, orient="index")
    result = result.join(params, on="method")
    result.to_csv(OUT / "german_sensitivity.csv", index=False)
    seconds["german_sensitivity"] = time.perf_counter() - start

    for name, inputs in (("synthetic", synthetic_inputs), ("adult", adult_inputs)):
        start = time.perf_counter()
        X, y, a, columns, _ = inputs()
        cec.cross_validate_methods(X, y, a, columns, random_state=0, progress=True) \
            .to_csv(OUT / f"{name}_cv.csv", index=False)
        seconds[f"{name}_cv"] = time.perf_counter() - start

    import fairlearn
    import jax
    import sklearn

    meta = {"date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            "machine": f"{platform.python_implementation()} {platform.python_version()}, "
                       f"{__import__('os').cpu_count()} cores, {platform.machine()}",
            "versions": {"recourselab": __import__("recourselab").__version__, "jax": jax.__version__,
                         "fairlearn": fairlearn.__version__, "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__, "python": sys.version.split()[0]},
            "seconds": {k: round(v, 1) for k, v in seconds.items()},
            "adult_sample": 10_000, "folds": 5, "random_state": 0}
    (OUT / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps(meta, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()

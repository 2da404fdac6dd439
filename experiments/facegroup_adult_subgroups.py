"""The lesson's subgroup results over the report's ten further Adult splits, stored.

The same splits as ``experiments/facegroup_adult_splits.py`` (seeds 0-9: a new
gradient-boosting model, a new stratified sample of 3,000 test rows, the graph at
epsilon = 2.25). Per split: Problem 1 for the refused women (greedy, k = 3, d =
epsilon), the share of the refused White and Black women it covers, and the
smallest k (up to 10) at which it covers a Black woman; per sex and race, the
coverable refused people, k0 (exact set cover) and d0. The lesson
(book/group_counterfactuals.md) reads ``book/data/facegroup/adult_subgroups.csv``;
about three minutes on one core.

Usage (from the repository root)::

    PYTHONPATH=$PWD .venv/bin/python experiments/facegroup_adult_subgroups.py
"""

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

import recourselab as rl
from recourselab.group_counterfactuals import build_feasibility_graph, max_coverage, minimum_resources
from recourselab.models import train_model

EPSILON = 2.25
RACES = ("White", "Black", "Asian-Pac-Islander", "Amer-Indian-Eskimo")
OUT = Path(__file__).resolve().parent.parent / "book/data/facegroup/adult_subgroups.csv"


def one_split(adult, seed):
    split = train_model(adult, model=HistGradientBoostingClassifier(random_state=seed), random_state=seed,
                        stratify=False)
    part, _ = train_test_split(split.test, train_size=3000, random_state=seed,
                               stratify=split.test[["sex", adult.target]])
    Z = split.encoder.transform(part)
    ok = split.decide(Z)
    f, c = np.flatnonzero(~ok), np.flatnonzero(ok)
    graph = build_feasibility_graph(Z, EPSILON, encoder=split.encoder, weighting="hops")
    C = graph.costs(f, c, cost="l2")
    sexes, races = part["sex"].to_numpy()[f], part["race"].to_numpy()[f]
    row = {"seed": seed, "ε": EPSILON}
    women = sexes == "Female"
    first_black = np.nan
    for k in range(1, 11):
        covered = max_coverage(C[women], k=k, d=EPSILON).covered
        by_race = pd.Series(covered).groupby(races[women]).mean()
        if k == 3:
            row["Female White covered k=3 (%)"] = 100 * by_race.get("White", 0.0)
            row["Female Black covered k=3 (%)"] = 100 * by_race.get("Black", 0.0)
        if by_race.get("Black", 0.0) > 0:
            first_black = k
            break
    if "Female White covered k=3 (%)" not in row:  # covered before k = 3: run k = 3 itself
        by_race = pd.Series(max_coverage(C[women], k=3, d=EPSILON).covered).groupby(races[women]).mean()
        row["Female White covered k=3 (%)"] = 100 * by_race.get("White", 0.0)
        row["Female Black covered k=3 (%)"] = 100 * by_race.get("Black", 0.0)
    row["Female Black first covered at k"] = first_black
    for s in ("Female", "Male"):
        for r in RACES:
            members = (sexes == s) & (races == r)
            res = minimum_resources(C[members], method="mip")
            row.update({f"{s} {r} coverable": res.n_coverable, f"{s} {r} k0": res.k0,
                        f"{s} {r} d0": res.d0 if res.n_coverable else np.nan})
    return row


if __name__ == "__main__":
    threadpool_limits(1)
    adult = rl.load_adult()
    table = pd.DataFrame([one_split(adult, seed) for seed in range(10)]).set_index("seed")
    OUT.parent.mkdir(exist_ok=True)
    table.round(4).to_csv(OUT)
    print(table.round(2).T.to_string())

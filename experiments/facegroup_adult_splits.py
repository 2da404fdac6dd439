"""The Adult repetitions of the FACEGroup report (book/reports/facegroup.md), stored.

Ten further splits (seeds 0-9): a new gradient-boosting model, a new stratified
sample of 3,000 test rows, the feasibility graph at the report's Adult epsilon
(2.25, the lesson's rule on the seed-482 split; the rule is not re-run per split,
because the graph at the grid's largest epsilon makes each split several times
slower), and per sex: refused, coverable, k0 (exact set cover), d0, the median
cheapest L2 cost and the number of subgroups (weakly connected components holding
a coverable refused person). The page reads ``book/data/facegroup/adult_splits.csv``;
about two minutes on one core.

Usage (from the repository root)::

    PYTHONPATH=$PWD .venv/bin/python experiments/facegroup_adult_splits.py
"""

from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

import recourselab as rl
from recourselab.group_counterfactuals import build_feasibility_graph, minimum_resources
from recourselab.models import train_model

EPSILON = 2.25
OUT = Path(__file__).resolve().parent.parent / "book/data/facegroup/adult_splits.csv"


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
    component = graph.components()[f]
    sexes, races = part["sex"].to_numpy()[f], part["race"].to_numpy()[f]
    row = {"seed": seed, "ε": EPSILON}
    for s in ("Female", "Male"):
        members = sexes == s
        r = minimum_resources(C[members], method="mip")
        cheapest = C[members].min(axis=1)
        reach = np.isfinite(cheapest)
        black = members & (races == "Black")
        row.update({f"{s} refused": r.n_factuals, f"{s} coverable": r.n_coverable, f"{s} k0": r.k0,
                    f"{s} d0": r.d0, f"{s} cheapest": float(np.median(cheapest[reach])),
                    f"{s} subgroups": len(np.unique(component[members][reach])),
                    f"{s} Black refused": int(black.sum()),
                    f"{s} Black coverable": int(np.isfinite(C[black]).any(axis=1).sum())})
    return row


if __name__ == "__main__":
    threadpool_limits(1)
    adult = rl.load_adult()
    table = pd.DataFrame([one_split(adult, seed) for seed in range(10)]).set_index("seed")
    OUT.parent.mkdir(exist_ok=True)
    table.round(4).to_csv(OUT)
    print(table.round(2).to_string())

"""Regenerate the stored results of the CST report (book/reports/cst.md).

The report opens with a claims table, but the book executes a page from top to
bottom, so the table's numbers ("ours") are read from
``book/data/cst/claims.json``; the report's last cell recomputes them and fails
the build when the file differs. This script

1. draws the paper's loan world ten times (``random_state`` 0 to 9, 5,000
   applicants each; draw 0 is the lesson's world), fits the auditor's
   additive-noise model on each, and counts per k (15, 30, 50, 100) the women
   that ST, CST without and with the search centres and counterfactual fairness
   flag (Δp > 0), how many of ST's flags CST w/o also flags, how many CF flags
   CST misses, and ST on the same draw with women thinned to the share of the
   authors' published loan data (all men kept, a random subset of the women);
   at k = 15 also the Prop. 3.6 counts and the Fig. 2 (right) share;
   it writes ``book/data/cst/draws.csv`` (about 20 s);
2. executes the report once with ``CST_WRITE_CLAIMS=1``, which makes its last
   cell rewrite ``book/data/cst/claims.json``.

The authors' data are handled by ``experiments/cst_authors.py`` (it needs their
files; the report reads the counts it stored in ``book/data/cst/``).

Usage (from the repository root, about a minute)::

    PYTHONPATH=$PWD .venv/bin/python experiments/cst_report.py
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from recourselab.datasets import make_loan_scm
from recourselab.scm import AdditiveNoiseSCM
from recourselab.situation_testing import build_groups, counterfactual_fairness, situation_testing

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "book" / "data" / "cst"
KS = (15, 30, 50, 100)
DRAWS = range(10)


def bank(frame) -> np.ndarray:
    """The paper's loan rule: approve when salary + 5 x balance > 225,000."""
    return (frame["annual_salary"] + 5 * frame["account_balance"] > 225_000).astype(int).to_numpy()


def one_draw(seed: int, authors_share: float) -> list[dict]:
    """One fresh loan world: counts per k of ST, CST w/o, CST and CF, their overlaps, and ST thinned."""
    world = make_loan_scm(5000, random_state=seed)
    features = list(world.features)
    scm = AdditiveNoiseSCM(world.dag).fit(world.frame)
    X, X_cf = world.frame[features], scm.counterfactual(world.frame, do={"gender": 0})[features]
    y, y_cf = bank(X), bank(X_cf)
    women = world.frame["gender"].to_numpy() == 1
    effect = scm.fitted_effects().set_index(["node", "parent"]).loc[("annual_salary", "gender"), "coefficient"]
    cf = counterfactual_fairness(y[women], y_cf[women])
    # the same world with the women thinned to the authors' share: all men, a random subset of the women
    rng = np.random.default_rng(seed)
    n_kept = int(round(authors_share / (1 - authors_share) * (~women).sum()))
    keep = np.sort(np.r_[np.flatnonzero(~women), rng.choice(np.flatnonzero(women), n_kept, replace=False)])
    rows = []
    for k in KS:
        st = situation_testing(X, women, y, k=k)["discrimination"].to_numpy()
        wo = situation_testing(X, women, y, k=k, X_cf=X_cf)["discrimination"].to_numpy()
        cst = situation_testing(X, women, y, k=k, X_cf=X_cf, y_hat_cf=y_cf, include_centers=True)[
            "discrimination"].to_numpy()
        thinned = situation_testing(X.iloc[keep], women[keep], y[keep], k=k)["discrimination"].to_numpy()
        rows.append({"draw": seed, "k": k, "women": int(women.sum()), "refused women": int((y[women] == 0).sum()),
                     "fitted salary effect": float(effect), "ST": int(st.sum()), "CST w/o": int(wo.sum()),
                     "CST": int(cst.sum()), "CF": int(cf.sum()), "ST also CST w/o": int((st & wo).sum()),
                     "CF missed by CST": int((cf & ~cst).sum()), "thinned women": int(n_kept),
                     "ST, thinned": int(thinned.sum())})
    # k = 15 only: Prop. 3.6 (CST flags, CF not, approved / refused) and Fig. 2 right (median balances)
    k15 = rows[0]
    st = situation_testing(X, women, y, k=15)["discrimination"].to_numpy()
    wo = situation_testing(X, women, y, k=15, X_cf=X_cf)["discrimination"].to_numpy()
    cst = situation_testing(X, women, y, k=15, X_cf=X_cf, y_hat_cf=y_cf, include_centers=True)[
        "discrimination"].to_numpy()
    approved = y[women] == 1
    k15["CST not CF, approved"] = int((cst & ~cf & approved).sum())
    k15["CST not CF, refused"] = int((cst & ~cf & ~approved).sum())
    g_st, g_cst = build_groups(X, women, k=15), build_groups(X, women, k=15, X_cf=X_cf)
    bal, both = X["account_balance"].to_numpy(), set(X.index[women][st & wo])
    nearer = [abs(np.median(bal[g_st.test[i]]) - np.median(bal[g_st.control[i]]))
              < abs(np.median(bal[g_cst.test[i]]) - np.median(bal[g_st.control[i]]))
              for i, c in enumerate(g_st.complainants) if c in both]
    k15["ST and CST w/o"], k15["ST test group nearer (%)"] = len(nearer), 100 * float(np.mean(nearer))
    return rows


def main() -> None:
    meta = json.loads((OUT / "meta.json").read_text())   # written by experiments/cst_authors.py
    authors_share = meta["complainants"]["loan"] / meta["rows"]["loan"]
    draws = pd.DataFrame([row for seed in DRAWS for row in one_draw(seed, authors_share)])
    draws.to_csv(OUT / "draws.csv", index=False)
    print(draws.to_string())
    env = dict(os.environ, CST_WRITE_CLAIMS="1")
    subprocess.run([sys.executable, "tools/run_chapter.py", "book/reports/cst.md"], cwd=ROOT, env=env, check=True)
    print((OUT / "claims.json").read_text())


if __name__ == "__main__":
    main()

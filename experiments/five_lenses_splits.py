"""The ten splits of the capstone lesson (book/five_lenses.md), stored.

For seeds 0-9 (each a new 70/30 split, a new draw of the flipped labels, new
budget rounds) the lesson's audit is run in full, as the page runs it on seed 0:
the planted world at rate 0.25, every lens of :mod:`recourselab.lenses`, and
for the reference model (trained on the true labels) the same group measures.
Two tables:

- ``truth.csv``: per seed and detector, within the refused women: flags, hits
  (flagged and harmed), precision, base rate, recall, the hypergeometric
  expectation and two-sided 95% chance interval of the hits, the one-sided
  p-value of P(hits >= observed) and the lift (:func:`recourselab.lenses.truth_table`);
  the baseline "closest to the boundary" flags the refused women with the highest audited
  P(repay), as many as the counterfactual flip flags;
- ``groups.csv``: per seed, each group measure for the audited and the
  reference model (ρ of actionable costs and the no-advice gap from the
  cheapest actionable advice, the MIP, each model for its own refused). ρ has no
  direction, so the two ρ rows also carry ``audited women/men`` and ``reference
  women/men``: the refused women's mean cost over the refused men's (above 1:
  women pay more); the other rows leave them empty;
- ``goodrisk.csv``: as ``truth.csv``, the same detectors' flags scored against another
  truth, the refused women who in fact repaid (true label good; the lesson's Exercise 3).

About 3 minutes on one core (the advice MIPs take most of it). The page reads both and checks that seed 0
equals its own live run.

Usage (from the repository root)::

    PYTHONPATH=$PWD .venv/bin/python experiments/five_lenses_splits.py
"""

from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

import recourselab as rl
from recourselab import allocation as al
from recourselab import fair_ranking as rk
from recourselab import lenses

OUT = Path(__file__).resolve().parent.parent / "book/data/five_lenses"
RATE = 0.25
DAG = nx.DiGraph([("sex", c) for c in ["age", "credit_amount", "duration", "employment_since", "savings"]]
                 + [("age", "employment_since")])
FINANCIAL = ["credit_amount", "duration", "installment_rate", "residence_since", "age", "existing_credits",
             "people_liable"]
EPSILONS = np.round(np.arange(1.0, 3.51, 0.25), 2)
UTILITY = al.LendingUtility(G1=0.06, G2=4.0, C=0.5)


def german_data():
    german = rl.load_german_credit()
    return rl.Dataset(frame=german.frame.drop(columns="marital_status"), target=german.target,
                      protected=("sex",), features=tuple(s for s in german.features if s.name != "marital_status"),
                      citation=german.citation, description="German Credit without marital status")


def detectors(world):
    """Every individual detector of the lesson (each read among the refused women by lenses.truth_table)."""
    face, cst, cec = (lenses.face_lens(world, EPSILONS, nodes="all"), lenses.cst_lens(world, DAG),
                      lenses.cec_lens(world, FINANCIAL))
    flags = {"CST significant": cst.flags, "ST significant": cst.st, "counterfactual flip": cst.flip,
             "sex-only flip": cst.sex_flip, "CEC regime D": cec.flags, "FACEGroup no path": face.flags,
             "closest to the boundary": lenses.closest_to_boundary(world, int(cst.flip.sum()))}
    return flags, face, cec


def group_rows(world, face, cec):
    rank = lenses.ranking_lens(world)
    money = lenses.budget_lens(world, UTILITY)
    # the graph on every applicant, as FACEGroup builds it on the data set; each model decides every node
    face_ref = lenses.face_lens(world, EPSILONS, nodes="all", approved=np.concatenate(
        [world.approved_reference, world.reference.decide(world.reference.Z_train)]))
    money_ref = lenses.budget_lens(world, UTILITY, trained=world.reference)
    w = world.protected

    def approval_gap(approved):
        return approved[~w].mean() - approved[w].mean()

    def no_path_gap(lens):
        return lens.flags[lens.population & w].mean() - lens.flags[lens.population & ~w].mean()

    def lending_gap(lens):
        return lens.lent[~w].mean() - lens.lent[w].mean()

    # the reference model's cheapest actionable advice for its own refused applicants (the MIP, as in the lens)
    ref_rows = np.flatnonzero(~world.approved_reference)
    _, ref_advice = lenses.boundary_recourse(world.reference, world.Z, ref_rows, actionable=True)
    ref_ok = np.isfinite(ref_advice.cost)
    ok = np.isfinite(rank.advice.cost)
    groups_ref = world.groups[ref_rows]

    # the signed ratio behind each ρ: women's mean cost over men's (ρ = min/max has no direction)
    _, ref_relaxed = lenses.boundary_recourse(world.reference, world.Z, ref_rows, actionable=False)

    def women_over_men(costs, groups):
        return costs[groups == "female"].mean() / costs[groups == "male"].mean()

    signed = {"ρ of relaxed recourse costs": (women_over_men(rank.relaxed.cost, world.groups[rank.rows]),
                                              women_over_men(ref_relaxed.cost, groups_ref)),
              "ρ of actionable advice costs": (women_over_men(rank.advice.cost[ok], world.groups[rank.rows][ok]),
                                               women_over_men(ref_advice.cost[ref_ok], groups_ref[ref_ok]))}

    def no_advice_gap(has, groups):
        return (~has)[groups == "female"].mean() - (~has)[groups == "male"].mean()

    s = cec.summary
    return {"approval gap (men − women)": (approval_gap(world.approved), approval_gap(world.approved_reference)),
            "ρ of relaxed recourse costs": (rank.rho, rank.rho_reference),
            "ρ of actionable advice costs": (rank.rho_advice,
                                             rk.recourse_fairness_ratio(ref_advice.cost[ref_ok], groups_ref[ref_ok])),
            "no-advice gap (women − men)": (no_advice_gap(ok, world.groups[rank.rows]),
                                            no_advice_gap(ref_ok, groups_ref)),
            "CEC prediction flip rate": (s.loc["audited", "pfr"], s.loc["reference", "pfr"]),
            "CEC score": (s.loc["audited", "cec"], s.loc["reference", "cec"]),
            "CEC regime A share": (s.loc["audited", "regime_A"], s.loc["reference", "regime_A"]),
            "no-path gap (women − men)": (no_path_gap(face), no_path_gap(face_ref)),
            "lending gap (men − women)": (lending_gap(money), lending_gap(money_ref))}, {
            "budget-caused share": money.caused_share, "refused women": int((w & world.refused).sum()),
            "men changed": int((~w & (world.approved != world.approved_reference)).sum()),
            "men refused, reference approves": int((~w & world.refused & world.approved_reference).sum())}, signed


def one_seed(data, seed):
    world = lenses.planted_world(data, protected_value="female", rate=RATE, random_state=seed)
    flags, face, cec = detectors(world)
    truth = lenses.truth_table(world, flags).assign(seed=seed)
    complainants = world.protected & world.refused
    good_risk = lenses.World(world.history, world.seed, world.rate, world.protected, world.approved,
                             world.approved_reference, harmed=complainants & (world.reference.y_test == 1))
    goodrisk = lenses.truth_table(good_risk, flags).assign(seed=seed)
    measures, counts, signed = group_rows(world, face, cec)
    groups = [{"seed": seed, "measure": m, "audited": a, "reference": r} | counts
              | dict(zip(["audited women/men", "reference women/men"], signed.get(m, (np.nan, np.nan)), strict=True))
              for m, (a, r) in measures.items()]
    return truth, groups, goodrisk


if __name__ == "__main__":
    threadpool_limits(1)
    data = german_data()
    truths, groups, goodrisks = [], [], []
    for seed in range(10):
        truth, group, goodrisk = one_seed(data, seed)
        truths.append(truth)
        goodrisks.append(goodrisk)
        groups += group
        print(f"seed {seed} done")
    OUT.mkdir(parents=True, exist_ok=True)
    pd.concat(truths).rename_axis("detector").reset_index().to_csv(OUT / "truth.csv", index=False,
                                                                   float_format="%.6g")
    pd.DataFrame(groups).to_csv(OUT / "groups.csv", index=False, float_format="%.6g")
    pd.concat(goodrisks).rename_axis("detector").reset_index().to_csv(OUT / "goodrisk.csv", index=False,
                                                                      float_format="%.6g")

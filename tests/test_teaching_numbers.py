"""The teaching page's numbers that no notebook computes, recomputed from the data the lessons read.

The teaching page is prose, not a notebook: a number it quotes from a lesson or a report (a five-fold mean,
a median over ten splits) is typed. Each one below is recomputed from the same CSV and looked for, formatted
the same way, in the page's text (whitespace normalised), so that a changed result or a mistyped number fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "book" / "data"


def _page() -> str:
    return re.sub(r"\s+", " ", (ROOT / "book" / "teaching.md").read_text())


def test_cec_misconception_quotes_the_five_fold_means_and_the_papers_table_2():
    folds = pd.read_csv(DATA / "cec" / "german_cv.csv")
    means = folds.groupby("method")["cec"].mean()
    assert folds.groupby("method")["fold"].nunique()[["unconstrained", "cec"]].eq(5).all()
    quoted = (f"our mean over five folds {means['unconstrained']:.3f} unconstrained → {means['cec']:.3f}, "
              "the paper's Table 2 0.559 → 0.208")
    assert quoted in _page(), quoted


def test_five_lenses_misconception_quotes_the_flips_lift_and_base_rate():
    truth = pd.read_csv(DATA / "five_lenses" / "truth.csv")
    flip = truth[truth["detector"] == "counterfactual flip"]
    assert flip["seed"].nunique() == len(flip) == 10
    quoted = (f"median {flip['lift'].median():.2f}, from {flip['lift'].min():.2f} to {flip['lift'].max():.2f} "
              f"over ten splits, against a median base rate of {flip['base rate'].median():.2f}, where a flawless "
              f"detector would reach about {1 / flip['base rate'].median():.1f})")  # precision 1: lift = 1 / base rate
    assert quoted in _page(), quoted


def test_the_introductions_discussing_line_is_the_plan_tools_arithmetic():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import session_plans as sp

    block = sp.teaching_sections()["intro"]
    plan, tree = sp.plans(block)[50], sp.sections("intro")
    words = sp.covered_words(plan, tree, {})
    cells = sp.covered_words(plan, tree, {}, attr="own_cells")
    each = [max(m, sp.DISCUSSION_FACTOR * sp.floor_minutes(w, c))
            for (m, _, _), w, c in zip(plan.items, words, cells, strict=True)]
    assert sum(each) == sp.discussion_minutes(plan, tree, {}, set())
    line = (f"({', '.join(map(str, each[:-1]))} and {each[-1]}: {sum(each)} min), in two 50-minute slots: "
            f"items 1 and 2 ({sum(each[:2])} min), then items 3 and 4 ({sum(each[2:])} min)")
    assert line in _page(), line


def test_the_three_session_lessons_spare_minutes_are_the_plan_tools():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import session_plans as sp

    blocks = sp.teaching_sections()
    three = ["explanation_consistency", "five_lenses"]
    assert all(sp.two_sessions(sp.plans(blocks[c])[sp.DISCUSSING]) is None for c in three)  # each needs three
    spare = [50 - sp.SLACK - sp.sessions_split(sp.plans(blocks[c])[sp.DISCUSSING], 3)[-1][2] for c in three]
    quoted = f"its last session keeps {min(spare)} to {max(spare)} of its {50 - sp.SLACK} minutes free"
    assert quoted in _page(), quoted


def test_five_lenses_misconception_quotes_how_often_csts_flag_count_could_pass_bonferroni():
    from scipy.stats import hypergeom

    truth = pd.read_csv(DATA / "five_lenses" / "truth.csv")
    cst = truth[truth["detector"] == "CST significant"]
    best = hypergeom.sf(cst[["flagged", "harmed"]].min(axis=1) - 1, cst["population"], cst["harmed"], cst["flagged"])
    could = int((best < 0.05 / truth["detector"].nunique()).sum())
    quoted = f"even flawless flags would pass that level in only {could} of {len(cst)} splits"
    assert quoted in _page(), quoted


def test_five_lenses_misconception_quotes_the_good_risk_truths_leaders():
    good = pd.read_csv(DATA / "five_lenses" / "goodrisk.csv")
    median = good.groupby("detector")["lift"].median()
    passes = (good["p-value"] < 0.05 / good["detector"].nunique()).groupby(good["detector"]).sum()
    assert median.idxmax() == "FACEGroup no path"
    assert median.max() < 1.2  # "every median lift stays below 1.2"
    quoted = (f"(the missing paths have the highest, {median.max():.2f}), and CEC's regime D passes the "
              f"Bonferroni level on {passes['CEC regime D']} of 10 splits (possibly because it matches partners on "
              "the label that truth is built from, which a real auditor lacks), the missing paths on "
              f"{passes['FACEGroup no path']}.")
    assert quoted in _page(), quoted


def test_five_lenses_misconception_counts_the_group_measures_that_move_in_every_split():
    groups = pd.read_csv(DATA / "five_lenses" / "groups.csv")
    shown = groups[groups["measure"] != "CEC regime A share"].copy()
    rho = shown["measure"].str.startswith("ρ")  # as the lesson: ρ has no direction, read women's over men's
    shown.loc[rho, ["audited", "reference"]] = shown.loc[rho, ["audited women/men", "reference women/men"]].values
    moved = (shown["audited"] > shown["reference"]).groupby(shown["measure"]).sum()
    always = int(moved.isin([0, 10]).sum())
    words = {5: "five", 6: "six", 3: "three", 2: "two"}
    quoted = (f"{words[always]} of the eight move with the plant in every split, the other "
              f"{words[len(moved) - always]} in most")
    assert len(moved) == 8 and quoted in _page(), quoted

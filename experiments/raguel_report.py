"""The ten splits behind the RAGUEL lesson and report (book/fair_ranking.md, book/reports/raguel.md).

For seeds 0-9 of ``train_model`` on German Credit (split and model both change, and so does the waiting list of
refused applicants), the lesson's audit: the relaxed recourse costs, RAGUEL without beta, with beta = 0.5 (the
lesson's main run) and with beta = 0.1, RAGUEL-Block (20 blocks, tolerance 1/3) and FA*IR at the paper's alpha;
and, with the never-advised features at weight 100, RAGUEL, Block and post-processing (the report's rho rows).
RAGUEL with beta searches a narrow cost window and can take long on some splits, which is why the pages read this
file instead of recomputing it.

Also ``book/data/raguel/block_sweep.csv``: RAGUEL-Block on each of the ten splits at the report's 28 settings
(tolerance 1/2, 1/3, 1/5, 1/8; 2-20 blocks), with RAGUEL beside Block at each tolerance (its rho and the recourse
cost each method cuts), about a minute on two shared cores; ``--block-sweep-only`` writes that file alone.

Writes ``book/data/raguel/splits.csv``, ``block_sweep.csv`` and ``meta.json``. Run from the repository root:

    PYTHONPATH=$PWD .venv/bin/python experiments/raguel_report.py        (about two minutes on two shared cores;
    meta.json keeps the times of the last run)
"""

import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import recourselab as rl
from recourselab import fair_ranking as rk
from recourselab.counterfactuals import linear_recourse
from recourselab.models import train_model

NEVER_ADVISED = ("credit_history", "purpose", "installment_rate", "residence_since", "property", "age",
                 "other_installment_plans", "housing", "people_liable")  # mutable, but advise="never"

OUT = Path(__file__).resolve().parent.parent / "book" / "data" / "raguel"


def prefix_rho(cost, groups, order):
    """rho of the top k for every k (NaN while only one group is present)."""
    return rk.ranked_recourse_fairness(cost[order], groups[order], beta=0.1).value


def best_first_repair_rho(cost, groups, protected, tolerance=1 / 3):
    """Best prefix rho any candidate can give at the list's first representation repair (NaN: no repair)."""
    order = np.argsort(cost, kind="stable")
    check = rk.ranked_fair_representation(groups[order], protected, tolerance)
    if check.fair:
        return np.nan, -1
    head = int(np.flatnonzero(~check.per_prefix)[0])
    missing = [g for g in np.unique(groups) if g != groups[order[head]]][0]
    best = rk.best_ratio_with_one_more(cost[order[:head]], groups[order[:head]], missing, below=cost[order[head]])
    return best, head


def every_prefix_reading(half, after_half, beta=0.5):
    """Where beta = 0.5 stops if line 9 checks every prefix of the new subset, not just the one being extended.

    Both readings place the same rows until the first repair with a prefix above it below 1 - beta: there the
    every-prefix reading exits (the book's reading also exits where the extended prefix itself cannot pass).
    """
    position = {row: k for k, row in enumerate(half.order)}
    repairs = sorted(position[row] for row in np.flatnonzero(half.changed))
    if half.exit_at is not None:
        repairs.append(int(half.exit_at))
    for k in repairs:
        if np.nanmin(np.append(after_half[1:k], np.inf)) < 1 - beta:
            return {"beta 0.5 every-prefix exit at": k, "beta 0.5 every-prefix edited": sum(r < k for r in repairs)}
    return {"beta 0.5 every-prefix exit at": -1 if half.exit_at is None else int(half.exit_at),
            "beta 0.5 every-prefix edited": int(half.changed.sum())}


def move_length(X0, res):
    """Every applicant's move under unit weights (0 for those left as they are): the edit's own cost."""
    return np.sqrt(((np.asarray(res.X_new) - X0) ** 2).sum(axis=1))


def unfair_at(fair):
    """1-based numbers of the blocks a boolean column (``to_frame()``'s fair_before / fair_after) marks unfair."""
    return " ".join(str(int(i) + 1) for i in np.flatnonzero(~np.asarray(fair, dtype=bool)))


def post_processed_rho(trained, data, Z, constraint, weights=None):
    """rho (and the dearer group) of the applicants refused under fairlearn's group thresholds."""
    from fairlearn.postprocessing import ThresholdOptimizer

    a, b = trained.model.coef_[0], float(trained.model.intercept_[0])
    everyone = np.where(data.frame["marital_status"] == "single", "single", "not single")
    opt = ThresholdOptimizer(estimator=trained.model, constraints=constraint, prefit=True,
                             predict_method="decision_function")
    opt.fit(Z, data.y.to_numpy(), sensitive_features=everyone)
    thresholds = {g: op["p0"] * op["operation0"].threshold + op["p1"] * op["operation1"].threshold
                  for g, op in opt.interpolated_thresholder_.interpolation_dict.items()}
    now = trained.model.decision_function(Z) < np.array([thresholds[g] for g in everyone])
    cost = np.zeros(len(Z))
    for g, t in thresholds.items():
        rows = now & (everyone == g)
        cost[rows] = linear_recourse(Z[rows], a, b - t, weights, encoder=trained.encoder, actionable=False).cost
    means = pd.Series(cost[now]).groupby(everyone[now]).mean()
    return rk.recourse_fairness_ratio(cost[now], everyone[now]), means.idxmax()


def waiting_list(data, seed):
    """One split's model and its waiting list: the refused rows, their marital group and relaxed recourse."""
    trained = train_model(data, random_state=seed)
    encoder = trained.encoder
    Z = encoder.transform(data.frame)
    a, b = trained.model.coef_[0], float(trained.model.intercept_[0])
    refused = ~trained.decide(Z)
    Z_wait = pd.DataFrame(Z[refused], columns=encoder.feature_names_out_)
    groups = np.where(data.frame["marital_status"].to_numpy()[refused] == "single", "single", "not single")
    initial = linear_recourse(Z_wait, a, b, encoder=encoder, actionable=False)
    return trained, encoder, Z, a, b, refused, Z_wait, groups, initial


def one_split(data, seed):
    trained, encoder, Z, a, b, refused, Z_wait, groups, initial = waiting_list(data, seed)
    advice = linear_recourse(Z_wait, a, b, encoder=encoder)  # actionable: the projection snapped to whole levels
    # the cheapest actionable move on whole levels and units (the paper's integer programming; the snapped
    # projection above is actionable but not always the cheapest, see linear_recourse's docstring)
    advice_mip = linear_recourse(Z_wait, a, b, encoder=encoder, actionable=True, method="mip")
    assert not np.isin(advice_mip.status, ["not solved", "time limit"]).any()  # every MIP solved to the end
    means = pd.Series(initial.cost).groupby(groups).mean()
    protected = means.idxmax()
    common = dict(coef=a, intercept=b, encoder=encoder, protected_group=protected)
    order0 = np.argsort(initial.cost, kind="stable")
    result = rk.raguel(Z_wait, groups, tolerance=1 / 3, **common)
    before, after = prefix_rho(initial.cost, groups, order0), prefix_rho(result.cost_new, groups, result.order)
    rep_before = rk.ranked_fair_representation(groups[order0], protected, 1 / 3)
    rep_after = rk.ranked_fair_representation(groups[result.order], protected, 1 / 3)
    X0, X1 = Z_wait.to_numpy(), np.asarray(result.X_new)
    edited = np.flatnonzero(result.changed)
    step = move_length(X0, result)[edited]
    total = step + result.cost_new[edited]
    still_refused = X1[edited] @ a + b < 0
    k10 = 9
    top = lambda cost, order, k: pd.Series(cost[order][:k]).groupby(groups[order][:k]).mean()  # noqa: E731
    m_before, m_after = top(initial.cost, order0, 10), top(result.cost_new, result.order, 10)
    start = time.perf_counter()
    strict = rk.raguel(Z_wait, groups, tolerance=1 / 3, beta=0.1, **common)
    strict_seconds = time.perf_counter() - start
    best, head = best_first_repair_rho(initial.cost, groups, protected)
    half = rk.raguel(Z_wait, groups, tolerance=1 / 3, beta=0.5, **common)  # the lesson's main run: beta on
    after_half = prefix_rho(half.cost_new, groups, half.order)
    edited_half = np.flatnonzero(half.changed)
    block = rk.raguel_block(Z_wait, groups, tolerance=1 / 3, n_blocks=20, **common)
    block_frame = block.to_frame()  # one line per block; fair_before / fair_after: Definition 3.1 at the start / end
    fair = rk.fair_rerank(order0, groups == protected, alpha=0.15, adjust=False)
    ok = lambda o: int((rk.ranked_recourse_fairness(initial.cost[o], groups[o], beta=0.1).per_prefix).sum())  # noqa: E731
    finite = np.isfinite(advice.cost)
    finite_mip = np.isfinite(advice_mip.cost)
    print(seed, "no advice: snapped", int((~finite).sum()), "MIP", int((~finite_mip).sum()), flush=True)
    is_p = groups == protected
    metrics = {name: rk.ranking_metrics(is_p[o]) for name, o in
               (("initial", order0), ("RAGUEL", result.order), ("FA*IR", fair))}
    heavy = {w: linear_recourse(Z_wait, a, b, encoder.column_weights({f: w for f in NEVER_ADVISED}),
                                encoder=encoder, actionable=False).cost for w in (10, 100)}
    pp = {name: post_processed_rho(trained, data, Z, name) for name in ("demographic_parity", "equalized_odds")}
    # never-advised weight 100 (closer to the paper's weights): RAGUEL (t = 1/3, 1/8), Block (t = 1/2, 1/3; 2-20
    # blocks, the largest rho after) and post-processing, each on the same waiting list or refused set
    w100 = encoder.column_weights({f: 100 for f in NEVER_ADVISED})
    c100 = linear_recourse(Z_wait, a, b, w100, encoder=encoder, actionable=False).cost
    p100 = pd.Series(c100).groupby(groups).mean().idxmax()
    common100 = dict(coef=a, intercept=b, weights=w100, encoder=encoder, protected_group=p100)
    r100 = {t: rk.raguel(Z_wait, groups, tolerance=t, **common100) for t in (1 / 3, 1 / 8)}
    b100 = max(rk.raguel_block(Z_wait, groups, tolerance=t, n_blocks=m, **common100).rho_after
               for t in (1 / 2, 1 / 3) for m in (2, 4, 6, 8, 10, 15, 20))
    pp100 = {name: post_processed_rho(trained, data, Z, name, w100)
             for name in ("demographic_parity", "equalized_odds")}
    return {
        "seed": seed, "waiting list": int(refused.sum()), "protected": protected,
        "protected share": float((groups == protected).mean()),
        "rho initial": result.rho_before, "rho after": result.rho_after,
        # rho on effort: an edited applicant counts the edit's length plus the cost left, everyone else as before
        "rho after on effort": rk.recourse_fairness_ratio(np.where(result.changed, move_length(X0, result)
                                                                   + result.cost_new, initial.cost), groups),
        "unfair prefixes before": int((~rep_before.per_prefix).sum()),
        "unfair prefixes after": int((~rep_after.per_prefix).sum()),
        "edited": int(result.changed.sum()),
        "edited protected": int((groups[edited] == protected).sum()),
        "edited total effort above initial cost": int((total > initial.cost[edited] + 1e-12).sum()),
        "edited still refused": int(still_refused.sum()),
        "rho top 10 before": before[k10], "rho top 10 after": after[k10],
        "rho top 2 before": before[1],  # NaN: the top two are one group
        "protected dearer in top 10 before": bool(m_before[protected] > m_before.drop(protected).max()),
        "protected dearer in top 10 after": bool(m_after[protected] > m_after.drop(protected).max()),
        "prefixes losing > 0.1": int(np.nansum(before - after > 0.1)),
        "prefixes gaining > 0.1": int(np.nansum(after - before > 0.1)),
        "largest prefix loss": float(np.nanmax(before - after)),
        "best rho at first repair": best, "first repair at": head,
        **every_prefix_reading(half, after_half),
        "beta 0.1 edited": int(strict.changed.sum()),
        "beta 0.1 exit at": -1 if strict.exit_at is None else int(strict.exit_at),
        "beta 0.1 unfair prefixes": int((~rk.ranked_fair_representation(groups[strict.order], protected,
                                                                          1 / 3).per_prefix).sum()),
        "beta 0.1 seconds": strict_seconds,
        "beta 0.5 edited": int(half.changed.sum()),
        "beta 0.5 edited protected": int((groups[edited_half] == protected).sum()),
        "beta 0.5 edited still refused": int((np.asarray(half.X_new)[edited_half] @ a + b < 0).sum()),
        "beta 0.5 features": " ".join(sorted(set(half.interventions["feature"]))) if len(edited_half) else "",
        "beta 0.5 exit at": -1 if half.exit_at is None else int(half.exit_at),
        "beta 0.5 unfair prefixes": int((~rk.ranked_fair_representation(groups[half.order], protected,
                                                                          1 / 3).per_prefix).sum()),
        "beta 0.5 rho after": half.rho_after, "beta 0.5 rho top 10 after": after_half[k10],
        "beta 0.5 prefixes below 0.5": int((~rk.ranked_recourse_fairness(half.cost_new[half.order], groups[half.order],
                                                                        0.5).per_prefix).sum()),
        "beta 0.5 prefixes losing > 0.1": int(np.nansum(before - after_half > 0.1)),
        "beta 0.5 prefixes gaining > 0.1": int(np.nansum(after_half - before > 0.1)),
        "block 20 rho after": block.rho_after,
        "fair prefixes rho >= 0.9 initial": ok(order0), "fair prefixes rho >= 0.9 FA*IR": ok(fair),
        "no advice reaches approval": int((~finite).sum()),
        "spearman relaxed vs advice cost": float(pd.Series(initial.cost[finite_mip]).corr(
            pd.Series(advice_mip.cost[finite_mip]), method="spearman")),  # MIP advice (was: snapped, before 11-27)
        "spearman relaxed vs snapped advice cost": float(pd.Series(initial.cost[finite]).corr(
            pd.Series(advice.cost[finite]), method="spearman")),
        "no advice reaches approval MIP": int((~finite_mip).sum()),
        "median MIP advice over relaxed cost": float(np.median(advice_mip.cost[finite_mip & (initial.cost > 0)]
                                                               / initial.cost[finite_mip & (initial.cost > 0)])),
        **{f"{m} {name}": v[m] for name, v in metrics.items() for m in ("rKL", "rND", "rRD")},
        "top 10 gap before": float(m_before[protected] - m_before.drop(protected).max()),
        "top 10 gap after": float(m_after[protected] - m_after.drop(protected).max()),
        "RAGUEL places moved": int((result.order != order0).sum()),
        "RAGUEL edit cost": float(step.sum()),
        "block 20 edit cost": float(move_length(X0, block).sum()),
        "block 20 edited": int(block.changed.sum()),
        "block 20 places moved": int((block.order != order0).sum()),
        "block 20 unfair blocks after": int(block.blocks_unfair_after),
        "block 20 unfair blocks before": int(block.blocks_unfair_before),
        "block 20 exits": " ".join(str(int(i) + 1) for i in block.exited_blocks),  # 1-based block numbers
        "block 20 unfair after at": unfair_at(block_frame["fair_after"]),
        "block 20 unfair before at": unfair_at(block_frame["fair_before"]),
        "block 20 exits unfair before": int((~block_frame["fair_before"].to_numpy()[block.exited_blocks]).sum()),
        "block 20 smallest block": int(block.block_sizes.min()),
        "block 20 largest block": int(block.block_sizes.max()),
        **{f"rho never-advised weight {w}": rk.recourse_fairness_ratio(c, groups) for w, c in heavy.items()},
        **{f"spearman weight {w} vs unit": float(pd.Series(c).corr(pd.Series(initial.cost), method="spearman"))
           for w, c in heavy.items()},
        "rho DP": pp["demographic_parity"][0], "dearer DP": pp["demographic_parity"][1],
        "rho EO": pp["equalized_odds"][0], "dearer EO": pp["equalized_odds"][1],
        "w100 protected": p100, "w100 rho initial": r100[1 / 3].rho_before,
        "w100 rho after 1/3": r100[1 / 3].rho_after, "w100 rho after 1/8": r100[1 / 8].rho_after,
        "w100 edited 1/3": int(r100[1 / 3].changed.sum()), "w100 block best rho after": b100,
        "w100 rho DP": pp100["demographic_parity"][0], "w100 rho EO": pp100["equalized_odds"][0],
    }


def block_sweep(data, seed):
    """RAGUEL-Block on one split at every (tolerance, block count) of the report's seed-0 sweep (Fig. 2, 3, Table 6)."""
    trained, encoder, Z, a, b, refused, Z_wait, groups, initial = waiting_list(data, seed)
    protected = pd.Series(initial.cost).groupby(groups).mean().idxmax()
    common = dict(coef=a, intercept=b, encoder=encoder, protected_group=protected)
    p_all = float((groups == protected).mean())
    X0, order0 = Z_wait.to_numpy(), np.argsort(initial.cost, kind="stable")

    def edits(res):  # how many edited, their moves' total cost (unit weights), places whose occupant changed
        return int(res.changed.sum()), float(move_length(X0, res).sum()), int((res.order != order0).sum())

    def cut(res):  # the recourse cost the edits take off (the paper's "difference in recourse cost", Sec. 4.2)
        return float((initial.cost - res.cost_new).sum())

    rows = []
    for t in (1 / 2, 1 / 3, 1 / 5, 1 / 8):
        ragueled = rk.raguel(Z_wait, groups, tolerance=t, **common)  # Block against RAGUEL at the same tolerance
        r_edited, r_cost, r_moved = edits(ragueled)
        for m in (2, 4, 6, 8, 10, 15, 20):
            res = rk.raguel_block(Z_wait, groups, tolerance=t, n_blocks=m, **common)
            frame = res.to_frame()
            b_edited, b_cost, b_moved = edits(res)
            gap = lambda s, t=t: max(p_all * (1 - t) - s, s - p_all * (1 + t), 0.0)  # noqa: E731  distance to the band
            rows.append({"seed": seed, "tolerance": f"1/{round(1 / t)}", "blocks": m, "protected": protected,
                         "rho initial": res.rho_before, "rho after": res.rho_after,
                         "unfair before": int(res.blocks_unfair_before), "unfair after": int(res.blocks_unfair_after),
                         "exits": len(res.exited_blocks),
                         "unfair after at": unfair_at(frame["fair_after"]),
                         "last share before": float(frame["share_before"].iloc[-1]),
                         "last share after": float(frame["share_after"].iloc[-1]),
                         "last gap before": gap(float(frame["share_before"].iloc[-1])),
                         "last gap after": gap(float(frame["share_after"].iloc[-1])),
                         "edited": b_edited, "edit cost": b_cost, "places moved": b_moved,
                         "RAGUEL edited": r_edited, "RAGUEL edit cost": r_cost, "RAGUEL places moved": r_moved,
                         "RAGUEL rho after": ragueled.rho_after, "cost cut": cut(res),
                         "RAGUEL cost cut": cut(ragueled)})
    return rows


def main():
    data = rl.load_german_credit()
    start = time.perf_counter()
    sweep = [row for seed in range(10) for row in block_sweep(data, seed)]
    pd.DataFrame(sweep).to_csv(OUT / "block_sweep.csv", index=False, float_format="%.6g")
    sweep_seconds = round(time.perf_counter() - start, 1)
    print("block sweep", sweep_seconds, "s", flush=True)
    if "--block-sweep-only" in sys.argv:  # the sweep alone, keeping splits.csv as it is
        meta = json.loads((OUT / "meta.json").read_text())
        meta["block sweep seconds"] = sweep_seconds
        (OUT / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
        return
    start = time.perf_counter()
    rows = []
    for seed in range(10):
        rows.append(one_split(data, seed))
        print(seed, f"{time.perf_counter() - start:.1f} s", flush=True)
    OUT.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(OUT / "splits.csv", index=False, float_format="%.6g")
    import recourselab
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}",
            "recourselab": recourselab.__version__, "seconds": round(time.perf_counter() - start, 1),
            "script": "experiments/raguel_report.py", "block sweep seconds": sweep_seconds}
    (OUT / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""Counterfactual situation testing on the authors' published data: the paper's definitions against their code.

The reproduction report `book/reports/cst.md` compares the book's k-NN situation
testing with the counts the paper publishes (Table 1, the loan data; Tables 4 and 5, the law-school
data by race and by gender; and the authors' unpublished intersectional run,
non-white women against everyone else). The authors' data and results files come from
their repository (cc-jalvarez/counterfactual-situation-testing, commit
9106169a), which states no licence, so they are not ours to ship: this script
reads them from a local folder and writes only derived counts (numbers) to
`book/data/cst/`, which the report reads.

For every k and method (ST, CST without and with the search centres) it counts
the complainants with Δp > 0 ("detected") and those whose one-sided interval
lies above 0 ("significant"), under four settings of
:func:`recourselab.situation_testing.situation_testing`:

    paper          normalize="range", cf_scaling="factual", ties="row"   the paper's Eq. 6 (the book's default)
    std            normalize="std"                                        only the spread of the distance changed
    std + refit    normalize="std", cf_scaling="refit"                    and the counterfactuals re-standardised
    authors' code  normalize="std", cf_scaling="refit", ties="bitwise"    and near-ties ordered as their code does
                   (by race, their code also puts gender into the distance as a nominal attribute:
                   the emulation adds that column; the other settings use LSAT and UGPA only)

It then checks that the last setting equals every count of the authors'
results files for the k values above (ST, CST w/o, CST and CF, detected and
significant) and stops with an error if a single one differs, but for the one
listed in KNOWN_MISMATCHES (recorded in meta.json); the published
counts themselves are not written out. It also counts, with the paper's
definitions, how much the result moves when only the order of the rows changes
(which decides between candidates at the same distance). For the LSAC data it
stores the group sizes and the admissions under the authors' rule (score >= 20.8)
and under Fig. 3's strict "> 20.8"; for the loan data, the rejection rates and
the worked counterfactual of the paper's Section 4.1 (row 0 of their file, with
the book's AdditiveNoiseSCM fitted on their data).

Files written (book/data/cst/):

    counts.csv       data set, k, method, setting, detected, significant (recourselab's counts only)
    tie_orders.csv   the paper's definitions under ROW_ORDERS random row orders: min and max per k and method
    meta.json        date, machine, versions, rows and complainants per data set, seconds, the check's outcome
    timing.csv       only with --authors-code: seconds for all five k on the loan data, their code and ours
    README.md        provenance

Run from the repository root (three to ten minutes, with the machine quiet or busy):

    .venv/bin/python experiments/cst_authors.py [--anchors /work/shared/anchors/cst] [--authors-code PATH]

The anchors folder holds, from the authors' repository at commit 9106169a,
data/LoanApplication_v2.csv, data/clean_LawSchool.csv, the counterfactual files
data/counterfactuals/cf_LoanApplication_v2.csv, cf_LawSchool_lev3_doMale.csv,
cf_LawSchool_lev3_doWhite.csv and cf_LawSchool_lev3_doMaleWhite.csv, and the results
files results/res_LoanApplication.csv, res_LawSchool_Male_abs.csv,
res_LawSchool_White_abs.csv and res_LawSchool_MaleWhite_abs.csv, all in one folder
(e.g. ``git -C <mirror> show 9106169a:<path> > FOLDER/<file name>``).

``--authors-code`` points at a local checkout of the authors' repository (its
``src`` folder is imported from there, never copied); the script then times
their code on the loan data as their `run_exp_loan_application.py` runs it,
and checks that it reproduces their results file.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pandas as pd

import recourselab
from recourselab.situation_testing import counterfactual_fairness, situation_testing

ANCHORS = Path("/work/shared/anchors/cst")
OUT = Path(__file__).resolve().parents[1] / "book" / "data" / "cst"
LOAN_K = (15, 30, 50, 100, 250)   # the authors' results file (the paper's Table 1 shows 15 to 100)
LAW_K = (15, 30, 50, 100)         # the paper's Table 5
ROW_ORDERS = 10
SETTINGS = {
    "paper": {},
    "std": {"normalize": "std"},
    "std + refit": {"normalize": "std", "cf_scaling": "refit"},
    "authors' code": {"normalize": "std", "cf_scaling": "refit", "ties": "bitwise", "code_distance": True},
}
EMULATION = "authors' code"
METHODS = {"ST": "ST", "CST w/o": "CSTwo", "CST": "CSTwi", "CF": "CF"}   # ours -> the results files' columns
README = """# Stored results of the CST reproduction report (book/reports/cst.md)

Written by `experiments/cst_authors.py` from the authors' published data and results files
(cc-jalvarez/counterfactual-situation-testing, commit 9106169a; no licence stated, so none of their
files, rows or columns are stored here): only counts of detected complainants, and timings.
`counts.csv` holds, per data set, k, method and setting, the number of complainants recourselab's
`situation_testing` detects (Δp > 0) and finds significant, with the options named in the script's
docstring; the script checks the setting "authors' code" against their results files and stops on
any difference but one known (meta.json records the check and that one). `tie_orders.csv`: the paper's definitions under
shuffled row orders (min and max count). `timing.csv` (rewritten only with `--authors-code`): seconds
for all five k on the loan data, the authors' code against recourselab.
Rerun: `.venv/bin/python experiments/cst_authors.py --anchors PATH` (PATH: the authors' files).

Written by `experiments/cst_report.py` (no outside data): `draws.csv`, ten draws of the paper's loan
world (counts of ST, CST and CF per k, their overlaps, ST with the women thinned to the authors'
share), and `claims.json`, the "ours" and "verdict" columns of the report's claims table, which the
report's last cell recomputes and checks. Rerun: `PYTHONPATH=$PWD .venv/bin/python experiments/cst_report.py`.
"""


def loan_data(folder: Path) -> dict:
    """The loan data: salary and balance, women protected, approval = 1 (the files code refusal as -1)."""
    data = pd.read_csv(folder / "LoanApplication_v2.csv", sep="|")
    cf = pd.read_csv(folder / "cf_LoanApplication_v2.csv", sep="|")
    columns = ["AnnualSalary", "AccountBalance"]
    published = pd.read_csv(folder / "res_LoanApplication.csv", sep="|")
    published = published.iloc[:len(LOAN_K)].astype(float).astype(int)   # the file appends the % table below
    return {"X": data[columns], "X_cf": cf[columns], "protected": (data["Gender"] == 1).to_numpy(),
            "y_hat": (data["LoanApproval"] == 1).to_numpy(), "y_hat_cf": (cf["LoanApproval"] == 1).to_numpy(),
            "ks": LOAN_K, "published": published.set_index("k")}


LAW_RUNS = {   # data name -> (the authors' do() file and results file, protected group)
    "law school": ("Male", lambda data: data["sex"] == "Female"),
    "law school, race": ("White", lambda data: data["race_nonwhite"] == "NonWhite"),
    "law school, intersectional": ("MaleWhite",
                                   lambda data: (data["sex"] == "Female") & (data["race_nonwhite"] == "NonWhite")),
}
THRESHOLD = round(0.6 * 3.93 + 0.4 * 46.1, 2)   # 20.8, as the authors compute it


def admit(frame, strict=False):
    """The authors' rule, written as they compute it (float comparison included); strict: Fig. 3's '>'."""
    score = 0.6 * frame["UGPA"] + 0.4 * frame["LSAT"]
    return (score > THRESHOLD + 1e-9 if strict else score >= THRESHOLD).to_numpy()


def law_data(folder: Path, name: str = "law school") -> dict:
    """The LSAC law-school data and one of the authors' counterfactual files, with their admission rule.

    Everyone else is the reference group (for the intersectional run too, as in their code). By race
    their code also measures gender in the distance (nominal_atts=['Gender']): "X_code" holds that
    column for the emulation.
    """
    do, protected = LAW_RUNS[name]
    data = pd.read_csv(folder / "clean_LawSchool.csv", sep="|")
    # the counterfactual files were written by R with row names: pandas takes them as the index
    cf = pd.read_csv(folder / f"cf_LawSchool_lev3_do{do}.csv", sep="|").reset_index(drop=True)
    X = data[["LSAT", "UGPA"]]
    X_cf = cf[["scf_LSAT", "scf_UGPA"]].set_axis(["LSAT", "UGPA"], axis=1)
    published = pd.read_csv(folder / f"res_LawSchool_{do}_abs.csv", sep="|").set_index("k")
    d = {"X": X, "X_cf": X_cf, "protected": protected(data).to_numpy(), "y_hat": admit(X),
         "y_hat_cf": admit(X_cf), "ks": LAW_K, "published": published}
    if do == "White":
        d["X_code"] = X.assign(Gender=data["sex"].to_numpy())
        d["X_cf_code"] = X_cf.assign(Gender=cf["Sex"].to_numpy())   # do(white) leaves gender as it is
    return d


def lsac_shares(folder: Path) -> dict:
    """Group sizes and admissions on the LSAC data, under the authors' '>=' and Fig. 3's '>'."""
    data = pd.read_csv(folder / "clean_LawSchool.csv", sep="|")
    groups = {"women": data["sex"] == "Female", "men": data["sex"] == "Male",
              "non-white": data["race_nonwhite"] == "NonWhite", "white": data["race_nonwhite"] == "White",
              "non-white women": (data["sex"] == "Female") & (data["race_nonwhite"] == "NonWhite")}
    score = 0.6 * data["UGPA"] + 0.4 * data["LSAT"]
    out = {"rows": len(data), "score exactly 20.8": int((score - THRESHOLD).abs().lt(1e-9).sum()), "groups": {}}
    for group, mask in groups.items():
        out["groups"][group] = {"size": int(mask.sum()), "admitted (>=)": int(admit(data[mask]).sum()),
                                "admitted (>)": int(admit(data[mask], strict=True).sum())}
    return out


def loan_facts(folder: Path) -> dict:
    """Rejection rates on the authors' loan files, and the worked counterfactual (row 0) under the book's SCM."""
    from recourselab.datasets import make_loan_scm
    from recourselab.scm import AdditiveNoiseSCM

    data = pd.read_csv(folder / "LoanApplication_v2.csv", sep="|")
    cf = pd.read_csv(folder / "cf_LoanApplication_v2.csv", sep="|")
    women = data["Gender"] == 1
    frame = data.rename(columns={"Gender": "gender", "AnnualSalary": "annual_salary",
                                 "AccountBalance": "account_balance"})[["gender", "annual_salary", "account_balance"]]
    scm = AdditiveNoiseSCM(make_loan_scm(10).dag).fit(frame)
    row0 = scm.counterfactual(frame.iloc[:1], do={"gender": 0})
    return {"refused (%)": {"women": 100 * float((data.loc[women, "LoanApproval"] != 1).mean()),
                            "women, their counterfactuals": 100 * float((cf.loc[women, "LoanApproval"] != 1).mean()),
                            "men": 100 * float((data.loc[~women, "LoanApproval"] != 1).mean())},
            "row 0": {"gender": int(frame["gender"].iloc[0]),
                      "factual": [float(v) for v in frame.iloc[0][["annual_salary", "account_balance"]]],
                      "counterfactual (book's SCM)": [round(float(v), 2) for v in
                                                      row0.iloc[0][["annual_salary", "account_balance"]]]}}


def counts(d: dict, k: int, setting: dict) -> dict:
    """Detected and significant complainants of ST, CST w/o and CST at one k."""
    common = {"k": k, "normalize": setting.get("normalize", "range"), "ties": setting.get("ties", "row")}
    cf_scaling = setting.get("cf_scaling", "factual")
    code = setting.get("code_distance") and "X_code" in d   # by race: gender in the distance, as their code
    X, X_cf = (d["X_code"], d["X_cf_code"]) if code else (d["X"], d["X_cf"])
    runs = {
        "ST": situation_testing(X, d["protected"], d["y_hat"], **common),
        "CST w/o": situation_testing(X, d["protected"], d["y_hat"], X_cf=X_cf, cf_scaling=cf_scaling, **common),
        "CST": situation_testing(X, d["protected"], d["y_hat"], X_cf=X_cf, y_hat_cf=d["y_hat_cf"],
                                 include_centers=True, cf_scaling=cf_scaling, **common),
    }
    out = {name: (int(r["discrimination"].sum()), int((r["discrimination"] & r["significant"]).sum()))
           for name, r in runs.items()}
    cf = counterfactual_fairness(d["y_hat"][d["protected"]], d["y_hat_cf"][d["protected"]])
    # the authors count a CF case as significant when its CST (with centres) interval is
    out["CF"] = (int(cf.sum()), int((cf & runs["CST"]["significant"].to_numpy()).sum()))
    return out


def table(name: str, d: dict) -> pd.DataFrame:
    rows = []
    for k in d["ks"]:
        for setting, options in SETTINGS.items():
            for method, (detected, significant) in counts(d, k, options).items():
                rows.append({"data": name, "k": k, "method": method, "setting": setting, "detected": detected,
                             "significant": significant})
    return pd.DataFrame(rows)


# the one published count the emulation misses (not traced; a significance count, the detected count is equal)
KNOWN_MISMATCHES = {("law school, race", 100, "ST", "significant"): (48, 47)}


def check_emulation(result: pd.DataFrame, published: dict) -> tuple[int, list]:
    """Stop, loudly, unless the emulation equals every published count but the known ones; return the comparison."""
    ours = result[result["setting"] == EMULATION].set_index(["data", "k", "method"])
    bad, compared, known = [], 0, []
    for (data, k, method), row in ours.iterrows():
        column = METHODS[method]
        for measure, suffix in (("detected", ""), ("significant", "_sig")):
            theirs = int(published[data].loc[k, column + suffix])
            compared += 1
            if KNOWN_MISMATCHES.get((data, k, method, measure)) == (row[measure], theirs):
                known.append({"data": data, "k": k, "method": method, "measure": measure, "ours": int(row[measure]),
                              "published": theirs})
            elif row[measure] != theirs:
                bad.append(f"{data}, k = {k}, {method}, {measure}: ours {row[measure]}, published {theirs}")
    if bad:
        raise SystemExit("The emulation of the authors' code does not reproduce their results files:\n  "
                         + "\n  ".join(bad))
    print(f"emulation check: {compared - len(known)} of {compared} published counts reproduced exactly; known: {known}")
    return compared, known


def tie_orders(name: str, d: dict, seed: int = 0) -> pd.DataFrame:
    """The paper's definitions with the rows shuffled: ties go to the lower row, so each order picks differently."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(ROW_ORDERS):
        order = rng.permutation(len(d["X"]))
        shuffled = {key: d[key].iloc[order].reset_index(drop=True) for key in ("X", "X_cf")}
        shuffled |= {key: d[key][order] for key in ("protected", "y_hat", "y_hat_cf")}
        for k in d["ks"]:
            for method, (detected, _) in counts(shuffled, k, {}).items():
                rows.append({"data": name, "k": k, "method": method, "detected": detected})
    spread = pd.DataFrame(rows).groupby(["data", "k", "method"], sort=False)["detected"].agg(["min", "max"])
    return spread.reset_index().assign(row_orders=ROW_ORDERS)


def time_authors_code(checkout: Path, d: dict, repeats: int = 2) -> list[dict]:
    """Their loop of run_exp_loan_application.py, imported from a local checkout, against ours (all five k)."""
    sys.path.insert(0, str(checkout / "src"))
    # the authors' package, imported from their checkout (not shipped with recourselab)
    from situation_testing.situation_testing import SituationTesting

    if not hasattr(pd.DataFrame, "append"):   # removed in pandas 2; their code appends one row per complainant
        pd.DataFrame.append = lambda self, row: pd.concat([self, row.to_frame().T])
    raw = pd.read_csv(Path(d["folder"]) / "LoanApplication_v2.csv", sep="|")
    raw_cf = pd.read_csv(Path(d["folder"]) / "cf_LoanApplication_v2.csv", sep="|")
    rows = []
    for run in range(repeats):
        test_df, test_cfdf = raw.copy(), raw_cf.copy()   # their script mutates these in place, run after run
        found = {}
        start = time.perf_counter()
        for k in LOAN_K:
            for method, cf, centres in (("ST", None, None), ("CST w/o", test_cfdf, False), ("CST", test_cfdf, True)):
                st = SituationTesting()
                st.setup_baseline(test_df, cf, nominal_atts=["Gender"], continuous_atts=["AnnualSalary",
                                                                                         "AccountBalance"])
                st.run(target_att="LoanApproval", target_val={"positive": 1, "negative": -1}, sensitive_att="Gender",
                       sensitive_val={"non_protected": 0, "protected": 1}, k=k, alpha=0.05, tau=0.0,
                       include_centers=centres)
                found[(k, method)] = int((st.get_test_discrimination()["DiscEvi"] == "Yes").sum())
        rows.append({"implementation": "authors' code", "run": run, "seconds": time.perf_counter() - start})
        for (k, method), value in found.items():
            if value != d["published"].loc[k, METHODS[method]]:
                raise SystemExit(f"the authors' code gave {value} for {method} at k = {k}, their file "
                                 f"{d['published'].loc[k, METHODS[method]]}")
    for run in range(3):
        start = time.perf_counter()
        for k in LOAN_K:
            counts(d, k, SETTINGS[EMULATION])
        rows.append({"implementation": "recourselab", "run": run, "seconds": time.perf_counter() - start})
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--anchors", type=Path, default=ANCHORS,
                        help=f"folder with the authors' data and results files (default {ANCHORS})")
    parser.add_argument("--authors-code", type=Path, default=None,
                        help="a local checkout of the authors' repository, to time their code (optional)")
    args = parser.parse_args(argv)
    if not args.anchors.is_dir():
        raise SystemExit(f"--anchors {args.anchors} is not a folder; give the folder holding the authors' "
                         "data, counterfactual and results files (see the docstring).")
    OUT.mkdir(parents=True, exist_ok=True)
    seconds, complainants, rows, published, results, spreads = {}, {}, {}, {}, [], []
    loaders = {"loan": loan_data} | {name: (lambda folder, name=name: law_data(folder, name)) for name in LAW_RUNS}
    for name, loader in loaders.items():
        start = time.perf_counter()
        d = loader(args.anchors)
        complainants[name], rows[name], published[name] = int(d["protected"].sum()), len(d["X"]), d["published"]
        results.append(table(name, d))
        if name != "law school, intersectional":   # not a table of the paper: no row orders
            spreads.append(tie_orders(name, d))
        seconds[name] = round(time.perf_counter() - start, 1)
        print(f"{name}: {seconds[name]} s")
    result = pd.concat(results, ignore_index=True)
    compared, known = check_emulation(result, published)
    result.to_csv(OUT / "counts.csv", index=False)
    pd.concat(spreads, ignore_index=True).to_csv(OUT / "tie_orders.csv", index=False)
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, " \
              f"{platform.machine()}"
    if args.authors_code is not None:
        d = loan_data(args.anchors) | {"folder": args.anchors}
        timing = pd.DataFrame(time_authors_code(args.authors_code, d)).assign(date=date, machine=machine)
        timing.to_csv(OUT / "timing.csv", index=False)
        print(timing.groupby("implementation")["seconds"].agg(["min", "max"]))
    import sklearn

    (OUT / "README.md").write_text(README)
    meta = {"date": date, "machine": machine,
            "versions": {"recourselab": recourselab.__version__, "scikit-learn": sklearn.__version__,
                         "numpy": np.__version__, "pandas": pd.__version__},
            "source": "cc-jalvarez/counterfactual-situation-testing, commit 9106169a (data and results files)",
            "rows": rows, "complainants": complainants, "seconds": seconds, "row_orders": ROW_ORDERS,
            "emulation_check": {"setting": EMULATION, "published_counts_compared": compared, "mismatches": len(known),
                                "known_mismatches": known,
                                "k": {"loan": list(LOAN_K), "law school (each run)": list(LAW_K)}},
            "lsac": lsac_shares(args.anchors), "loan facts": loan_facts(args.anchors)}
    (OUT / "meta.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False) + "\n")
    print(result.pivot_table(index=["data", "method", "k"], columns="setting", values="detected").to_string())


if __name__ == "__main__":
    main()

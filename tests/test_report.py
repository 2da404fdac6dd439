"""audit_model: the one-call audit on a table the book does not ship, saved as HTML and JSON (issue 26, part 3)."""

import base64
import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from recourselab.features import Encoder, FeatureSpec
from recourselab.report import AuditReport, audit_model

SPECS = [
    FeatureSpec("sex", "categorical", "immutable"),
    FeatureSpec("age", "continuous", "increase", advise="never", unit="years"),
    FeatureSpec("income", "continuous", "increase", max_change=15.0, unit="k"),
    FeatureSpec("debt", "continuous", "decrease", unit="k"),
    FeatureSpec("job", "categorical"),
]


def _table(n=500, seed=0, penalty=0.8):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "sex": rng.choice(["F", "M", "X"], n, p=[0.45, 0.45, 0.10]),
        "age": rng.integers(20, 70, n),
        "income": rng.normal(40, 12, n).round(1),
        "debt": rng.gamma(2.0, 5.0, n).round(1),
        "job": rng.choice(["clerk", "driver", "nurse"], n),
    }, index=[f"r{i}" for i in range(n)])
    score = (0.08 * (X["income"] - 40) - 0.15 * (X["debt"] - 10) + 0.5 * (X["job"] == "nurse")
             - penalty * (X["sex"] == "F"))
    y = (score + rng.logistic(0, 0.5, n) > 0).astype(int)
    return X, y


@pytest.fixture(scope="module")
def audited():
    X, y = _table()
    pipe = make_pipeline(make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["sex", "job"]),
                                                 remainder="passthrough"),
                         GradientBoostingClassifier(random_state=0)).fit(X, y)
    enc = Encoder(SPECS).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # both groups are large enough: no small-group warning
        report = audit_model(pipe, X, enc, protected="sex", group="F", reference="M", n_shuffles=50, st_shuffles=3,
                             progress=False, n_samples=200)
    return X, pipe, enc, report


def test_every_lens_that_applies_runs_with_its_reference(audited):
    X, pipe, enc, report = audited
    lenses = [s["lens"] for s in report.sections]
    assert [name.split(".")[0] for name in lenses] == ["0", "1", "2", "3"]
    flip, recourse, st, rho = report.sections
    refused_f = int(((pipe.predict(X) == 0) & (X["sex"] == "F")).sum())
    assert flip["numbers"]["uses_protected"] is True and flip["numbers"]["refused_group"] == refused_f
    assert flip["numbers"]["flip_group"] > flip["numbers"]["flip_reference"]  # the planted penalty on F
    approved_m = X[(pipe.predict(X) == 1) & (X["sex"] == "M")]
    lost_m = int((pipe.predict(approved_m.assign(sex="F")) == 0).sum())  # approved men refused as women
    assert flip["numbers"]["approved_reference"] == len(approved_m) and flip["numbers"]["unflip_reference"] == lost_m
    assert lost_m > flip["numbers"]["unflip_group"]  # the penalty again, the other way
    assert {"group counterfactuals (FACEGroup)", "recourse-aware re-ranking (RAGUEL)"} <= set(report.not_run)
    assert 0 <= recourse["numbers"]["p_shuffled"] <= 1 and recourse["numbers"]["n_shuffles"] == 50
    assert {row["group"] for row in recourse["table"]} == {"F", "M"}
    # lens 1 tests the gap of the means (medians are lumpy); lens 3's ρ is the ratio of the same two means
    means = {row["group"]: row["mean cost"] for row in recourse["table"]}
    assert np.isclose(recourse["numbers"]["mean_cost_gap"], means["F"] - means["M"])
    assert np.isclose(rho["numbers"]["rho"], min(means.values()) / max(means.values()))
    assert st["numbers"]["shuffled_min"] <= st["numbers"]["shuffled_mean"] <= st["numbers"]["shuffled_max"]
    assert 0 < rho["numbers"]["rho"] <= 1 and set(report.not_run) >= {"explanation consistency"}
    meta = report.metadata
    assert meta["rows"] == len(X) and meta["group"] == "F" and meta["reference"] == "M" and len(meta["specs"]) == 5
    assert re.fullmatch(r"[0-9a-f]{64}", meta["data_sha256"])


def test_the_json_round_trips(audited, tmp_path):
    _, _, _, report = audited
    path = report.to_json(tmp_path / "audit.json")
    again = AuditReport.from_json(path)
    assert again.to_dict() == report.to_dict()
    assert json.loads(path.read_text())["metadata"]["version"] == report.metadata["version"]


def test_the_html_page_holds_every_section_and_a_drawn_figure(audited, tmp_path):
    _, _, _, report = audited
    page = report.to_html(tmp_path / "audit.html").read_text()
    for s in report.sections:
        assert s["lens"] in page and s["question"].replace("'", "&#x27;") in page
    images = re.findall(r"src='data:image/png;base64,([^']+)'", page)
    assert len(images) == 1 and base64.b64decode(images[0]).startswith(b"\x89PNG")
    assert "<script" not in page  # nothing to run, so nothing to fail in a browser's console
    assert "The specs (advice policy)" in page and all(f"<td>{spec.name}</td>" in page for spec in SPECS)
    assert "searched here (threshold 0.5" in page  # how the recourse was found


def test_the_data_hash_changes_with_the_data(audited):
    from recourselab.report import _data_hash

    X, _, _, report = audited
    assert _data_hash(X) == report.metadata["data_sha256"]
    changed = X.copy()
    changed.iloc[3, 2] += 0.1
    renamed = X.rename(columns=str.upper)
    assert len({_data_hash(X), _data_hash(X.iloc[:-1]), _data_hash(changed), _data_hash(renamed)}) == 4


def test_a_many_valued_attribute_needs_a_named_reference_and_small_groups_warn(audited):
    X, pipe, enc, _ = audited
    with pytest.raises(ValueError, match=r"X\['sex'\] has 3 values .* reference=<one of them>"):
        audit_model(pipe, X, enc, protected="sex", group="F", progress=False)
    with pytest.raises(ValueError, match="reference='F' is not another value"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="F", progress=False)
    with pytest.raises(ValueError, match="group='Q' is not a value"):
        audit_model(pipe, X, enc, protected="sex", group="Q", reference="M", progress=False)
    with pytest.raises(ValueError, match="protected='gender' is not a column"):
        audit_model(pipe, X, enc, protected="gender", group="F", progress=False)
    with pytest.warns(UserWarning, match="refused people have sex = 'X'"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="X", n_shuffles=5, st_shuffles=1,
                    progress=False, n_samples=0)


def test_a_recourse_result_computed_beforehand_is_reused_and_checked(audited):
    from recourselab.counterfactuals import recourse_for_refused

    X, pipe, enc, report = audited
    result = recourse_for_refused(pipe, X, enc, progress=False, n_samples=200)  # everyone refused, same seed
    again = audit_model(pipe, X, enc, protected="sex", group="F", reference="M", n_shuffles=50, st_shuffles=3,
                        progress=False, recourse=result)
    table = {row["group"]: row for row in again.sections[1]["table"]}
    for g in ("F", "M"):  # the report reads the given result: its counts are the result's own
        mine = result.summary.loc[(X.loc[result.summary.index, "sex"] == g).to_numpy()]
        assert table[g]["refused"] == len(mine) and table[g]["with recourse"] == int(mine["found"].sum())
    few = recourse_for_refused(pipe, X, enc, rows=X.index[pipe.predict(X) == 0][:5], progress=False, n_samples=0)
    with pytest.raises(ValueError, match="recourse has no row for"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", progress=False, recourse=few)
    with pytest.raises(TypeError, match="search options"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", progress=False, recourse=result,
                    n_samples=10)
    import dataclasses

    other = dataclasses.replace(result, summary=result.summary.assign(proba=result.summary["proba"] * 0.9))
    with pytest.raises(ValueError, match="does not match this model"):  # e.g. computed with another model
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", progress=False, recourse=other)


def test_each_lens_draws_its_own_shuffles(audited):
    """More shuffles for the cost gap leave situation testing's chance level as it was."""
    X, pipe, enc, report = audited
    more = audit_model(pipe, X, enc, protected="sex", group="F", reference="M", n_shuffles=80, st_shuffles=3,
                       progress=False, n_samples=200)
    assert more.sections[2]["numbers"] == report.sections[2]["numbers"]
    assert more.sections[1]["numbers"]["n_shuffles"] == 80 != report.sections[1]["numbers"]["n_shuffles"]


# ------------------------------------------------------------------ r45: ST's p, ρ without a p, strata
def test_shared_neighbour_orderings_flag_exactly_who_rerunning_situation_testing_flags():
    """Situation testing's shuffles reuse one neighbour ordering: same flags as a fresh call per shuffle."""
    from recourselab.situation_testing import situation_testing
    from recourselab.stratified import _flags, _st_orderings, shuffled_st_shares

    for seed in range(5):
        rng = np.random.default_rng(seed)
        n = 90
        Z = np.column_stack([rng.integers(0, 4, n), rng.random(n).round(1), rng.integers(0, 2, n)]).astype(float)
        protected, decisions = rng.random(n) < 0.4, (rng.random(n) < 0.5).astype(int)
        order = _st_orderings(Z)
        draws, expected = np.random.default_rng(seed), []
        for _ in range(8):
            prot = draws.permutation(protected)
            fresh = situation_testing(Z, prot, decisions, k=4, reference=~prot)["significant"].to_numpy()
            assert np.array_equal(_flags((decisions == 0)[order], prot[order], prot, 4, 0.05), fresh)
            expected.append(fresh[decisions[prot] == 0].mean())
        shares = shuffled_st_shares(Z, protected, decisions, k=4, n_shuffles=8,
                                    random_state=np.random.default_rng(seed))
        assert np.array_equal(shares, np.array(expected))
        assert any(0 < v for v in expected)  # the data do get flags: the equality is not 0 == 0


@pytest.mark.parametrize("fast", [True, False])
def test_shuffles_within_a_stratum_flag_exactly_who_rerunning_situation_testing_flags(fast, monkeypatch):
    """``within=``: only those rows are relabelled, the others stay neighbours, and only they are counted."""
    import recourselab.stratified as stratified
    from recourselab.situation_testing import situation_testing

    if not fast:
        monkeypatch.setattr(stratified, "_FAST_ROWS", 10)  # the per-shuffle rerun path, on a small instance
    for seed in range(4):
        rng = np.random.default_rng(seed)
        n = 80
        Z = np.column_stack([rng.integers(0, 4, n), rng.random(n).round(1), rng.integers(0, 2, n)]).astype(float)
        protected, decisions = rng.random(n) < 0.4, (rng.random(n) < 0.5).astype(int)
        within = Z[:, 2] == 1
        draws, expected = np.random.default_rng(seed), []
        for _ in range(6):
            prot = protected.copy()
            prot[within] = draws.permutation(protected[within])
            assert np.array_equal(prot[~within], protected[~within])  # outside, the labels stay
            fresh = situation_testing(Z, prot, decisions, k=4, reference=~prot)["significant"].to_numpy()
            counted = ((decisions == 0) & within)[prot]
            expected.append(fresh[counted].mean())
        shares = stratified.shuffled_st_shares(Z, protected, decisions, k=4, n_shuffles=6, within=within,
                                               random_state=np.random.default_rng(seed))
        assert np.array_equal(shares, np.array(expected))
        assert any(0 < v for v in expected)  # flags exist: the equality is not 0 == 0
        everywhere = stratified.shuffled_st_shares(Z, protected, decisions, k=4, n_shuffles=6, random_state=seed,
                                                   within=np.ones(n, dtype=bool))
        assert np.array_equal(everywhere, stratified.shuffled_st_shares(Z, protected, decisions, k=4,
                                                                         n_shuffles=6, random_state=seed))


@pytest.mark.parametrize("within, message", [
    (np.array([True]), "one entry per row of Z (2)"),
    (np.array([1, 0]), "dtype int"),
    ([None, True], "dtype object"),
])
def test_shuffled_st_shares_rejects_a_bad_within(within, message):
    from recourselab.stratified import shuffled_st_shares

    with pytest.raises(ValueError, match=re.escape(message)):
        shuffled_st_shares(np.array([[0.0, 1.0], [1.0, 2.0]]), np.array([True, False]), np.array([0, 1]), k=1,
                           n_shuffles=2, within=within)


def test_the_stratified_gap_test_matches_every_within_stratum_relabelling():
    import itertools

    from recourselab.stratified import stratified_gap_test

    values = np.array([1.0, 2.5, 0.5, 3.0, 4.0, 0.2, 1.1, 5.0, 2.2])
    labels = np.array(["a", "a", "b", "b", "a", "a", "b", "b", "b"])
    strata = np.array(["x"] * 4 + ["y"] * 5)

    def pooled(lab):
        gaps, sizes = [], []
        for s in ("x", "y"):
            here = strata == s
            gaps.append(values[here & (lab == "a")].mean() - values[here & (lab == "b")].mean())
            sizes.append(here.sum())
        return np.average(gaps, weights=sizes)

    observed = pooled(labels)
    every = []
    for ax in itertools.combinations(range(4), 2):  # every relabelling that keeps each stratum's group counts
        for ay in itertools.combinations(range(4, 9), 2):
            lab = np.array(["b"] * 9, dtype=object)
            lab[list(ax) + list(ay)] = "a"
            every.append(pooled(lab))
    exact = np.mean(np.abs(every) >= abs(observed) - 1e-12)
    assert len(every) == 60 and 0.05 < exact < 0.95
    result = stratified_gap_test(values, labels, strata, group="a", reference="b", n_shuffles=20000, random_state=1)
    assert np.isclose(result["gap"], observed)
    assert abs(result["p"] - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000)
    assert [row["stratum"] for row in result["strata"]] == ["x", "y"] and result["strata_left_out"] == 0
    # one stratum: the plain test; a stratum with one group only carries no gap
    plain = stratified_gap_test(values, labels, group="a", reference="b", n_shuffles=10)
    assert np.isclose(plain["gap"], values[labels == "a"].mean() - values[labels == "b"].mean())
    lonely = stratified_gap_test(np.append(values, 9.0), np.append(labels, "a"), np.append(strata, "z"),
                                 group="a", reference="b", n_shuffles=10)
    assert np.isclose(lonely["gap"], observed) and lonely["strata_left_out"] == 1
    with pytest.raises(ValueError, match="group='c' is not among the labels"):
        stratified_gap_test(values, labels, strata, group="c", reference="b")
    with pytest.raises(ValueError, match="NaN or infinite"):
        stratified_gap_test(np.append(values[:-1], np.nan), labels, strata, group="a", reference="b")


def test_strata_add_the_like_for_like_table_test_and_multiplicity_line(audited, tmp_path):
    X, pipe, enc, report = audited
    strata = (X["job"] == "nurse").map({True: "nurse", False: "other"}).rename("job is nurse")
    with_strata = audit_model(pipe, X, enc, protected="sex", group="F", reference="M", n_shuffles=50,
                              st_shuffles=3, progress=False, n_samples=200, strata=strata)
    lens1 = with_strata.sections[1]
    assert lens1["numbers"]["mean_cost_gap"] == report.sections[1]["numbers"]["mean_cost_gap"]
    assert 0 < lens1["numbers"]["p_stratified"] <= 1 and lens1["strata"]["column"] == "job is nurse"
    # the balancing weights n_g n_r / (n_g + n_r), by hand from the table's counts of people with a move
    moves = {(row["stratum"], row["group"]): row["with recourse"] for row in lens1["strata"]["table"]}
    gaps = {row["stratum"]: row["gap"] for row in lens1["strata"]["gaps"]}
    w = {st: moves[st, "F"] * moves[st, "M"] / (moves[st, "F"] + moves[st, "M"]) for st in gaps}
    balanced = sum(w[st] * gaps[st] for st in gaps) / sum(w.values())
    assert np.isclose(lens1["numbers"]["stratified_gap_balanced"], balanced)
    assert f"weights that balance the two groups give {balanced:+.3f}" in lens1["reading"]
    assert {(row["stratum"], row["group"]) for row in lens1["strata"]["table"]} == {
        (s, g) for s in ("nurse", "other") for g in ("F", "M")}
    assert sum(row["refused"] for row in lens1["strata"]["table"]) == sum(row["refused"] for row in lens1["table"])
    tests = with_strata.tests
    assert len(tests["tests"]) == 3 and np.isclose(tests["bonferroni"], 0.05 / 3)
    assert [t["sides"] for t in tests["tests"]] == ["two-sided", "two-sided", "one-sided"]
    assert len(report.tests["tests"]) == 2 and np.isclose(report.tests["bonferroni"], 0.025)
    page = with_strata.to_html(tmp_path / "a.html").read_text()
    assert "Within strata of job is nurse:" in page and "like with like" not in lens1["reading"]
    assert all(row["refused"] >= 30 for row in lens1["strata"]["table"]) and "Warning" not in lens1["reading"]
    block = pd.Series(np.where(np.arange(len(X)) < 60, "few", "many"), index=X.index, name="block")
    few = audit_model(pipe, X, enc, protected="sex", group="F", reference="M", n_shuffles=20, st_shuffles=3,
                      progress=False, n_samples=200, strata=block)
    small = [row for row in few.sections[1]["strata"]["table"] if row["refused"] < 30]
    assert small and all(row["stratum"] == "few" for row in small)  # a small stratum is named with its count
    assert all(f"few {row['group']!r}: {row['refused']}" in few.sections[1]["reading"] for row in small)
    assert "Warning: fewer than 30 refused in" in few.to_html(tmp_path / "few.html").read_text()
    assert "are not like with like" in lens1["limits"] and "Tests and multiplicity" in page and "0.017" in page
    assert AuditReport.from_json(with_strata.to_json(tmp_path / "a.json")).to_dict() == with_strata.to_dict()
    with pytest.raises(ValueError, match="strata='role' is not a column of X"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", progress=False, strata="role")
    with pytest.raises(ValueError, match="index differs from X's"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", progress=False, strata=strata.iloc[1:])
    with pytest.raises(ValueError, match="missing values among the refused"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", progress=False,
                    strata=strata.where(X["age"] > 30))


def test_situation_testing_has_a_one_sided_p_and_rho_none(audited):
    _, _, _, report = audited
    st, rho = report.sections[2]["numbers"], report.sections[3]["numbers"]
    assert st["p_shuffled"] >= 1 / (st["n_shuffles"] + 1) and "one-sided" in report.sections[2]["reading"]
    assert set(rho) == {"rho"} and "p =" not in report.sections[3]["reading"]
    assert "lens 1's p" in report.sections[3]["limits"]


@pytest.mark.parametrize("bad, message", [
    (dict(Z=np.array([[0.0, np.nan], [1.0, 2.0]])), "NaN or infinite"),
    (dict(Z=np.array([[0.0, np.inf], [1.0, 2.0]])), "NaN or infinite"),
    (dict(protected=np.array([1, 0])), "must be boolean"),
    (dict(protected=np.array([True])), "one entry per row of Z"),
    (dict(decisions=np.array([0.5, 1.0])), "0 (refused) or 1"),
])
def test_shuffled_st_shares_rejects_bad_input(bad, message):
    from recourselab.stratified import shuffled_st_shares

    args = dict(Z=np.array([[0.0, 1.0], [1.0, 2.0]]), protected=np.array([True, False]),
                decisions=np.array([0, 1]))
    args.update(bad)
    with pytest.raises(ValueError, match=re.escape(message)):
        shuffled_st_shares(args["Z"], args["protected"], args["decisions"], k=1, n_shuffles=2)


def test_exact_costs_from_exhaustive_recourse_say_so_in_the_limits(audited):
    from recourselab.counterfactuals import exhaustive_recourse

    X, pipe, enc, report = audited
    exact = exhaustive_recourse(pipe, X, enc)
    again = audit_model(pipe, X, enc, protected="sex", group="F", reference="M", n_shuffles=50, st_shuffles=3,
                        progress=False, recourse=exact)
    lens1 = again.sections[1]
    assert "cheapest on that grid" in lens1["limits"] and "upper bound" not in lens1["limits"]
    assert "upper bound" in report.sections[1]["limits"]  # the search's costs still say they are bounds
    table = {row["group"]: row for row in lens1["table"]}
    searched = {row["group"]: row for row in report.sections[1]["table"]}
    for g in ("F", "M"):  # the grid finds a move for everyone the search does, and perhaps more
        assert table[g]["with recourse"] >= searched[g]["with recourse"]


def test_the_figure_interval_is_wilsons_closed_form():
    from recourselab.report import _wilson

    z = 1.959963984540054
    for k, n in [(56, 70), (0, 10), (10, 10), (3, 25)]:
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low, high = _wilson(k, n)
        assert abs(low - (centre - half)) < 1e-9 and abs(high - (centre + half)) < 1e-9
        assert low <= p <= high
    assert all(np.isnan(_wilson(0, 0)))


def test_a_threshold_sets_every_decision_the_report_reads(audited):
    X, pipe, enc, report = audited
    proba = pipe.predict_proba(X)[:, 1]
    strict = audit_model(pipe, X, enc, protected="sex", group="F", reference="M", threshold=0.7, n_shuffles=20,
                         st_shuffles=2, progress=False, n_samples=100)
    flips = strict.sections[0]["numbers"]
    for sex, key in (("F", "refused_group"), ("M", "refused_reference")):
        assert flips[key] == int(((proba < 0.7) & (X["sex"] == sex)).sum())   # refused by the cut-off
    assert flips["refused_group"] > report.sections[0]["numbers"]["refused_group"]   # 0.7 refuses more than predict
    assert strict.metadata["decision"] == "favourable probability >= 0.7"
    assert report.metadata["decision"] == "the model's predict"
    assert "threshold 0.7" in strict.metadata["recourse"]


@pytest.mark.parametrize("bad", [0, 1.5, -0.1, float("nan"), float("inf"), "0.7", True])
def test_a_bad_threshold_is_named(audited, bad):
    X, pipe, enc, _ = audited
    with pytest.raises(ValueError, match="threshold"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", threshold=bad, progress=False)


def test_a_reused_search_must_share_the_threshold(audited):
    from recourselab.counterfactuals import recourse_for_refused

    X, pipe, enc, _ = audited
    searched = recourse_for_refused(pipe, X, enc, threshold=0.5, progress=False, n_samples=50)
    with pytest.raises(ValueError, match="computed with threshold=0.5, but threshold=0.6"):
        audit_model(pipe, X, enc, protected="sex", group="F", reference="M", threshold=0.6, recourse=searched,
                    progress=False)


def test_notes_travel_with_the_report_and_leave_it_unchanged(audited, tmp_path):
    _, _, _, report = audited
    before = json.dumps(report.to_dict(), sort_keys=True)
    shared = report.with_notes("Rows: a sample of 500 of 5,000.")
    shared = shared.with_notes(["Whole data: 5.5% flagged.", " <b>x</b> "])
    assert json.dumps(report.to_dict(), sort_keys=True) == before and "notes" not in report.metadata
    assert shared.metadata["notes"] == ["Rows: a sample of 500 of 5,000.", "Whole data: 5.5% flagged.", "<b>x</b>"]
    assert shared.sections == report.sections and shared.sections is not report.sections
    again = AuditReport.from_json(shared.to_json(tmp_path / "a.json"))
    assert again.metadata["notes"] == shared.metadata["notes"]
    page = shared.to_html(tmp_path / "a.html").read_text()
    head, first_lens = page.index("Notes from the auditor"), page.index(report.sections[0]["lens"])
    assert head < first_lens and "<li>Rows: a sample of 500 of 5,000.</li>" in page
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page  # escaped, not rendered
    assert "Notes from the auditor" not in report.to_html(tmp_path / "b.html").read_text()


@pytest.mark.parametrize(("bad", "error", "message"), [
    (None, TypeError, "notes=None"), (5, TypeError, "notes=5"), ([], ValueError, "notes=\\[\\]"),
    (["ok", ""], ValueError, "notes\\[1\\]=''"), (["ok", None], ValueError, "notes\\[1\\]=None"),
    ({"a": 1}, TypeError, "notes=\\{'a': 1\\}")])
def test_bad_notes_are_named(audited, bad, error, message):
    _, _, _, report = audited
    with pytest.raises(error, match=message):
        report.with_notes(bad)

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

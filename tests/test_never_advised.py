"""Levels never advised (``FeatureSpec.never_advise_levels``): the spec, the encoder's checks, every generator.

Each generator gets a small instance whose cheapest move without the rule goes into an excluded level
(a missing-value code "Unknown", an ordinal level); with the rule its answer avoids that level and still
reaches the favourable side through the other move the instance offers.
"""

import dataclasses
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from recourselab.allocation import advise, feature_ce, graft_candidates
from recourselab.counterfactuals import linear_recourse, nearest_counterfactuals, recourse_for_refused
from recourselab.fair_ranking import raguel
from recourselab.features import Encoder, FeatureSpec, features_to_frame
from recourselab.group_counterfactuals import build_feasibility_graph, face_counterfactuals
from recourselab.report import AuditReport, audit_model

JOBS = ["clerk", "Unknown", "nurse"]


def _jobs(never=("Unknown",)):
    """job (categorical, "Unknown" never advised) and edu (ordinal 0..3, increase): an encoder and a frame."""
    specs = [FeatureSpec("job", "categorical", order=JOBS, never_advise_levels=never),
             FeatureSpec("edu", "ordinal", "increase", order=[0, 1, 2, 3])]
    frame = pd.DataFrame({"job": JOBS + ["clerk"], "edu": [0, 1, 2, 3]})
    return Encoder(specs).fit(frame)


def _rows(enc, jobs, edus):
    return enc.transform(pd.DataFrame({"job": jobs, "edu": edus}))


# --------------------------------------------------------------------------- the spec
@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        (dict(kind="categorical", never_advise_levels="Unknown"), TypeError,
         r"e\.g\. never_advise_levels=\('Unknown',\)"),
        (dict(kind="categorical", never_advise_levels=None), TypeError, "must be a tuple of levels"),
        (dict(kind="categorical", never_advise_levels=3), TypeError, "must be a tuple of levels"),
        (dict(kind="continuous", never_advise_levels=(0,)), ValueError, "only a categorical or ordinal"),
        (dict(kind="binary", order=["no", "yes"], never_advise_levels=("no",)), ValueError, "advise='increase'"),
        (dict(kind="categorical", never_advise_levels=("a", "a")), ValueError, "more than once"),
        (dict(kind="ordinal", order=[1, 2, 3], never_advise_levels=(4,)), ValueError, r"names \[4\].*among its"),
    ],
)
def test_the_spec_rejects_bad_levels_naming_the_argument_and_the_fix(kwargs, error, message):
    with pytest.raises(error, match=message):
        FeatureSpec("x", **kwargs)


def test_a_level_the_fitted_data_lacks_is_refused_at_fit():
    spec = FeatureSpec("job", "categorical", never_advise_levels=("Unkown",))  # misspelt, no order to check it
    with pytest.raises(ValueError, match=r"never_advise_levels=\('Unkown',\).*not among its levels"):
        Encoder([spec]).fit(pd.DataFrame({"job": ["clerk", "Unknown"]}))


def test_the_field_is_normalised_kept_by_replace_and_tabulated():
    spec = FeatureSpec("job", "categorical", never_advise_levels=["Unknown", "Without-pay"])
    assert spec.never_advise_levels == ("Unknown", "Without-pay")
    assert FeatureSpec("a", "ordinal").never_advise_levels == ()
    assert dataclasses.replace(spec, weight=2.0).never_advise_levels == ("Unknown", "Without-pay")
    table = features_to_frame([spec, FeatureSpec("age", "continuous")])
    assert table["never advised into"].tolist() == ["Unknown; Without-pay", ""]
    assert table["advice"].tolist() == ["any", "any"]  # the direction is unchanged


# --------------------------------------------------------------------------- the encoder's checks
def test_into_the_level_is_not_actionable_staying_and_leaving_are():
    enc = _jobs()
    # into Unknown; stay at Unknown (and raise edu); leave Unknown; clerk -> nurse
    A = _rows(enc, ["clerk", "Unknown", "Unknown", "clerk"], [0, 0, 0, 0])
    B = _rows(enc, ["Unknown", "Unknown", "nurse", "nurse"], [0, 1, 0, 0])
    assert enc.feasible(A, B).tolist() == [True, True, True, True]  # feasibility is unchanged
    assert enc.actionable(A, B).tolist() == [False, True, True, True]
    assert enc.never_advised_moves(A, B).tolist() == [[True, False], [False, False], [False, False], [False, False]]
    reasons = enc.advice_violations(A, B)
    assert reasons["job"].tolist() == ["a level not to be advised (Unknown)", "", "", ""]
    assert (reasons["edu"] == "").all()
    pairs = enc.actionable_pairs(A, B)
    rows, cols = np.repeat(np.arange(4), 4), np.tile(np.arange(4), 4)
    assert pairs.ravel().tolist() == enc.actionable(A[rows], B[cols]).tolist()
    assert not pairs[0, 0] and pairs[1, 1] and not pairs[3, 1]  # clerk -> Unknown refused, Unknown stays
    lower, upper = enc.advice_bounds()
    assert upper[enc.feature_names_out_.index("job=Unknown")] == 0.0 and np.isinf(upper[0])


def test_an_ordinal_level_is_refused_only_as_a_destination():
    spec = FeatureSpec("edu", "ordinal", "increase", order=[0, 1, 2, 3], never_advise_levels=(2,))
    enc = Encoder([spec]).fit(pd.DataFrame({"edu": [0, 1, 2, 3]}))
    A = enc.transform(pd.DataFrame({"edu": [1, 1, 2, 2]}))
    B = enc.transform(pd.DataFrame({"edu": [2, 3, 2, 3]}))  # into 2; over it; stay at 2; out of it
    assert enc.actionable(A, B).tolist() == [False, True, True, True]
    assert enc.advice_violations(A, B)["edu"].tolist() == ["a level not to be advised (2)", "", "", ""]
    assert enc.actionable_pairs(A, B).tolist() == [[False, True, False, True]] * 2 + [[True, True, True, True]] * 2


# --------------------------------------------------------------------------- every generator
def test_nearest_counterfactuals_pass_over_an_excluded_category():
    enc, free = _jobs(), _jobs(never=())
    Z_factual = _rows(enc, ["clerk"], [1])
    Z_candidates = _rows(enc, ["Unknown", "nurse"], [1, 2])  # Unknown is the cheaper move
    assert nearest_counterfactuals(Z_factual, Z_candidates, free).best_index.tolist() == [0]
    result = nearest_counterfactuals(Z_factual, Z_candidates, enc)
    assert result.best_index.tolist() == [1] and result.advice == "actionable"


def _ordinal(never):
    specs = [FeatureSpec("edu", "ordinal", "increase", order=[0, 1, 2, 3, 4], never_advise_levels=never),
             FeatureSpec("x", "continuous", "increase", weight=10.0)]
    return Encoder(specs).fit(pd.DataFrame({"edu": [0, 1, 2, 3, 4], "x": [0.0, 1.0, 2.0, 3.0, 4.0]}))


@pytest.mark.parametrize("method", ["closed_form", "mip"])
def test_linear_recourse_steps_past_an_excluded_level(method):
    coef, b = [1.0, 0.1], -0.49  # edu 1 -> 2 is the cheapest flip
    for never, expected in (((), 2), ((2,), 3), ((2, 3), 4)):
        enc = _ordinal(never)
        Z = enc.transform(pd.DataFrame({"edu": [1, 2], "x": [0.0, 0.0]}))
        result = linear_recourse(Z, coef, b, encoder=enc, method=method)
        after = enc.inverse_transform(np.asarray(result.X_cf, float))
        assert after["edu"].tolist() == [expected, 2]  # row 1 stays at its own level 2
        assert (np.asarray(result.X_cf, float) @ coef + b >= 0).all() and bool(result.actionable.all())


def test_raguel_modifies_by_another_attribute_when_the_next_level_is_excluded():
    frame = pd.DataFrame({"edu": [1, 1, 1, 1, 0, 0, 0, 0], "x": [0.0, 1, 2, 3, 0.5, 1.5, 2.5, 3.5]})
    groups = np.array(["N"] * 4 + ["P"] * 4)  # P holds the dearest recourse
    moved = {}
    for never in ((), (1,)):
        specs = [FeatureSpec("edu", "ordinal", "increase", order=[0, 1, 2, 3, 4], never_advise_levels=never),
                 FeatureSpec("x", "continuous", "increase", weight=2.0)]
        enc = Encoder(specs).fit(pd.concat([frame, pd.DataFrame({"edu": [4], "x": [10.0]})]))
        Z = enc.transform(frame)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no "not actionable although actionable=True"
            res = raguel(Z, groups, coef=[4.0, 2.0], intercept=-4.0, protected_group="P", encoder=enc)
        changed = np.asarray(res.changed, bool)
        assert changed.any() and res.advice == "actionable"
        assert enc.actionable(Z[changed], np.asarray(res.X_new, float)[changed]).all()
        moved[never] = enc.inverse_transform(np.asarray(res.X_new, float)[changed])
    assert (moved[()]["edu"] == 1).all()  # without the rule: edu 0 -> 1
    assert (moved[(1,)]["edu"] == 0).all() and (moved[(1,)]["x"] > frame["x"][4:].max()).any()  # x instead


class _JobModel:
    """Favourable when job is Unknown, or nurse with edu >= 2 (probability 0.9, else 0.1); encoded rows."""

    classes_ = np.array([0, 1])

    def __init__(self, enc):
        self.enc = enc

    def predict_proba(self, Z):
        frame = self.enc.inverse_transform(np.asarray(Z, float))
        ok = (frame["job"] == "Unknown") | ((frame["job"] == "nurse") & (frame["edu"] >= 2))
        p = np.where(ok, 0.9, 0.1)
        return np.column_stack([1 - p, p])

    def predict(self, Z):
        return (self.predict_proba(Z)[:, 1] >= 0.5).astype(int)


def test_feature_counterfactuals_graft_and_advise_keep_out_of_unknown():
    enc, free = _jobs(), _jobs(never=())
    Z = _rows(enc, ["clerk", "Unknown", "nurse"], [1, 1, 2])  # the applicant, then two donors
    unknown = enc.feature_names_out_.index("job=Unknown")
    assert feature_ce(_JobModel(free), Z, 0, 0.5, free).target == 1  # the cheaper move: into Unknown
    move = feature_ce(_JobModel(enc), Z, 0, 0.5, enc)
    assert move.target == 2 and move.advice == "actionable"
    pool = graft_candidates(Z[0], Z[1:], enc)
    assert pool[1].tolist() == Z[0].tolist() and pool[2].tolist() == Z[2].tolist()  # the Unknown donor: kept
    result, advice = advise(_JobModel(enc), Z[0], Z[1:], 0.5, enc)
    assert result.found and advice[unknown] == 0 and enc.actionable(Z[:1], advice[None, :]).all()
    assert _JobModel(enc).predict(advice[None, :])[0] == 1


def test_face_counterfactuals_reach_an_allowed_target():
    enc = _jobs()
    Z = _rows(enc, ["clerk", "Unknown", "nurse"], [1, 1, 2])
    graph = build_feasibility_graph(Z, 3.0, encoder=enc, weighting="distance")
    relaxed = face_counterfactuals(graph, [0], [1, 2], cost="l2")
    advice = face_counterfactuals(graph, [0], [1, 2], cost="l2", actionable=True)
    assert relaxed.target.tolist() == [1] and relaxed.actionable.tolist() == [False]
    assert advice.target.tolist() == [2] and advice.actionable.tolist() == [True]


class _RawJobModel:
    """The same rule on the raw frame, as a user's pipeline would take it."""

    classes_ = np.array([0, 1])
    feature_names_in_ = np.array(["job", "edu"])

    def predict_proba(self, X):
        ok = (X["job"] == "Unknown") | ((X["job"] == "nurse") & (X["edu"] >= 2))
        p = np.where(ok, 0.9, 0.1)
        return np.column_stack([1 - p, p])

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] >= 0.5).astype(int)


@pytest.mark.parametrize("search", [False, True])
def test_recourse_for_refused_finds_the_allowed_move_by_graft_and_by_search(search):
    X = pd.DataFrame({"job": ["clerk", "Unknown", "nurse"], "edu": [1, 1, 2]}, index=["p", "u", "n"])
    donors = X.loc[["p"]] if search else None  # only the person: the random search must find the move
    for enc, expected in ((_jobs(never=()), ("Unknown", 1)), (_jobs(), ("nurse", 2))):
        res = recourse_for_refused(_RawJobModel(), X, enc, rows=["p"], donors=donors, progress=False,
                                   n_samples=200)
        assert bool(res.summary.loc["p", "found"]) and res.summary.loc["p", "method"] == ("search" if search
                                                                                          else "graft")
        assert tuple(res.counterfactuals.loc["p", ["job", "edu"]]) == expected
    assert enc.actionable(enc.transform(X.loc[["p"]]), enc.transform(res.counterfactuals)).all()


def test_the_audit_report_keeps_the_levels_in_its_json(tmp_path):
    rng = np.random.default_rng(1)
    n = 160
    X = pd.DataFrame({"sex": rng.choice(["F", "M"], n), "job": rng.choice(JOBS, n), "edu": rng.integers(0, 4, n)},
                     index=[f"r{i}" for i in range(n)])
    specs = [FeatureSpec("sex", "categorical", "immutable"),
             FeatureSpec("job", "categorical", order=JOBS, never_advise_levels=("Unknown",)),
             FeatureSpec("edu", "ordinal", "increase", order=[0, 1, 2, 3])]
    enc = Encoder(specs).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small groups: the noise warning is not what this test reads
        report = audit_model(_RawSexJobModel(), X, enc, protected="sex", group="F", reference="M", n_shuffles=5,
                             st_shuffles=1, progress=False, n_samples=50)
    again = AuditReport.from_json(report.to_json(tmp_path / "audit.json"))
    rows = {row["feature"]: row for row in again.metadata["specs"]}
    assert rows["job"]["never advised into"] == "Unknown" and rows["edu"]["never advised into"] == ""
    assert json.loads((tmp_path / "audit.json").read_text())["metadata"]["specs"] == report.metadata["specs"]
    assert "never advised into" in report.to_html(tmp_path / "audit.html", figures=False).read_text()


class _RawSexJobModel(_RawJobModel):
    feature_names_in_ = np.array(["sex", "job", "edu"])

import numpy as np
import pandas as pd
import pytest

from recourselab.datasets import Dataset, load_adult, load_german_credit
from recourselab.features import FeatureSpec


def test_german_credit_shape_target_and_split_personal_status(german):
    frame = german.frame
    assert len(frame) == 1000
    assert int(frame[german.target].sum()) == 700
    assert {"sex", "marital_status"} <= set(frame.columns)
    assert "personal_status" not in frame.columns
    # UCI: A92 (female div/sep/mar) 310 + A95 (female single) 0 rows in this file
    assert frame["sex"].value_counts().to_dict() == {"male": 690, "female": 310}
    assert german.protected == ("sex",)


def test_german_credit_has_a_spec_for_every_feature_column(german):
    feature_columns = set(german.frame.columns) - {german.target}
    assert feature_columns == set(german.feature_names)
    assert len(german.features) == 21


def test_german_credit_actionability_follows_facegroup_table_4(german):
    expected = {
        "credit_amount": "decrease", "duration": "decrease", "installment_rate": "decrease",
        "residence_since": "free", "age": "increase", "existing_credits": "free", "people_liable": "free",
        "checking_account": "increase", "credit_history": "free", "purpose": "free", "savings": "increase",
        "employment_since": "increase", "sex": "immutable", "marital_status": "immutable",
        "other_debtors": "increase", "property": "increase",  # paper's ↓ on codes = towards real estate
        "other_installment_plans": "decrease", "housing": "increase", "job": "increase",
        "telephone": "increase", "foreign_worker": "immutable",
    }
    assert {s.name: s.actionability for s in german.features} == expected


def test_german_credit_ordinal_orders_include_facegroup_remaps(german):
    assert german.spec("checking_account").order[0] == "no checking account"
    assert german.spec("savings").order[0] == "unknown or none"
    assert german.spec("employment_since").order == ("unemployed", "< 1 year", "1-4 years", "4-7 years", ">= 7 years")
    assert german.spec("credit_history").order[0] == "critical account / credits elsewhere"
    assert german.spec("credit_history").order[-1] == "no credits or all paid duly"
    assert german.spec("property").order[-1] == "real estate"


def test_german_credit_values_are_readable_labels_not_codes(german):
    for spec in german.features:
        if spec.kind != "continuous":
            values = set(german.frame[spec.name])
            assert values <= set(spec.order), spec.name
            assert not any(str(v).startswith("A1") or str(v).startswith("A9") for v in values)


def test_adult_rows_target_and_protected():
    adult = load_adult()
    assert len(adult.frame) == 32561
    assert int(adult.y.sum()) == 7841
    assert adult.protected == ("sex", "race")
    assert not adult.frame.isna().any().any()
    assert set(adult.frame.columns) - {adult.target} == set(adult.feature_names)
    assert (adult.frame["workclass"] == "Unknown").sum() == 1836


def test_loaders_return_independent_copies():
    a, b = load_german_credit(), load_german_credit()
    a.frame.loc[0, "age"] = -1
    assert b.frame.loc[0, "age"] == 67


def test_dataset_rejects_bad_target_and_missing_columns():
    frame = pd.DataFrame({"x": [1.0, 2.0], "y": [0, 2]})
    with pytest.raises(ValueError, match="must hold 0/1"):
        Dataset(frame, "y", (), (FeatureSpec("x", "continuous"),))
    with pytest.raises(ValueError, match="target='z' is not a column"):
        Dataset(frame, "z", (), ())
    ok = frame.assign(y=[0, 1])
    with pytest.raises(ValueError, match=r"features name columns that frame lacks: \['w'\]"):
        Dataset(ok, "y", (), (FeatureSpec("w", "continuous"),))
    with pytest.raises(ValueError, match=r"protected names columns that frame lacks: \['sex'\]"):
        Dataset(ok, "y", ("sex",), ())


def test_feature_table_lists_every_spec(german):
    table = german.feature_table()
    assert list(table["feature"]) == german.feature_names
    assert table.loc[table["feature"] == "age", "actionability"].item() == "↑ increase"
    assert np.all(table["weight"] == 1.0)


def test_shipped_files_match_the_checksums_in_provenance():
    import gzip
    import hashlib
    import re
    from importlib import resources

    data_dir = resources.files("recourselab").joinpath("data")
    provenance = data_dir.joinpath("PROVENANCE.md").read_text()
    for name in ("german.data.gz", "adult.data.gz"):
        recorded = re.search(rf"`{re.escape(name)}` \| [^|]+ \| [^|]+ \| `([0-9a-f]{{64}})`", provenance).group(1)
        raw = gzip.decompress(data_dir.joinpath(name).read_bytes())
        assert hashlib.sha256(raw).hexdigest() == recorded, name


# --------------------------------------------------------------------------- bad input, one case per test
def _frame():
    return pd.DataFrame({"x": [1.0, 2.0, 3.0], "g": ["a", "b", "a"], "xg": [0, 1, 1], "y": [0, 1, 1]})


def test_a_string_protected_names_one_column_not_its_letters():
    data = Dataset(_frame(), "y", "xg", (FeatureSpec("x", "continuous"),))
    assert data.protected == ("xg",)


def test_a_string_protected_that_is_not_a_column_is_reported_whole():
    with pytest.raises(ValueError, match=r"protected names columns that frame lacks: \['sex'\]"):
        Dataset(_frame(), "y", "sex", ())


def test_a_feature_spec_for_the_target_is_rejected():
    with pytest.raises(ValueError, match="features include the target column 'y': a model .* would see the label"):
        Dataset(_frame(), "y", (), (FeatureSpec("x", "continuous"), FeatureSpec("y", "binary", order=[0, 1])))


def test_protected_naming_the_target_is_rejected():
    with pytest.raises(ValueError, match="protected includes the target column 'y'"):
        Dataset(_frame(), "y", ("y",), ())


def test_missing_protected_values_are_rejected_not_left_out_of_groups():
    frame = _frame().assign(g=["a", None, "b"])
    with pytest.raises(ValueError, match=r"protected column 'g' has 1 missing value\(s\) \(first rows: \[1\]\)"):
        Dataset(frame, "y", ("g",), ())


def test_missing_target_values_are_reported_as_missing():
    frame = _frame().assign(y=[0, None, 1])
    with pytest.raises(ValueError, match=r"target column 'y' has 1 missing value\(s\) \(first rows: \[1\]\)"):
        Dataset(frame, "y", (), ())


def test_target_with_a_text_label_among_numbers_gets_a_readable_message():
    frame = _frame().assign(y=pd.Series(["yes", 0, 1], dtype=object))
    with pytest.raises(ValueError, match=r"target column 'y' must hold 0/1.*'yes'"):
        Dataset(frame, "y", (), ())


def test_a_single_feature_spec_is_one_feature():
    data = Dataset(_frame(), "y", (), FeatureSpec("x", "continuous"))
    assert data.feature_names == ["x"]


def test_features_that_are_not_specs_are_rejected():
    with pytest.raises(TypeError, match=r"features must be FeatureSpec objects, got \['str'\]"):
        Dataset(_frame(), "y", (), ("x",))


def test_duplicate_feature_specs_are_rejected():
    with pytest.raises(ValueError, match=r"features describe the columns \['x'\] more than once"):
        Dataset(_frame(), "y", (), (FeatureSpec("x", "continuous"), FeatureSpec("x", "continuous")))


def test_graduation_probability_rejects_infinite_values():
    from recourselab.datasets import admissions_graduation_probability

    row = pd.DataFrame({"grade_average": [np.inf], "entrance_test": [60], "extra_credits": [0], "age": [19],
                        "first_generation": [0]})
    with pytest.raises(ValueError, match="column 'grade_average' has infinite values"):
        admissions_graduation_probability(row)


def test_graduation_probability_rejects_text():
    from recourselab.datasets import admissions_graduation_probability

    row = pd.DataFrame({"grade_average": ["high"], "entrance_test": [60], "extra_credits": [0], "age": [19],
                        "first_generation": [0]})
    with pytest.raises(TypeError, match="column 'grade_average' must hold numbers"):
        admissions_graduation_probability(row)


def test_simulators_reject_a_fractional_seed():
    from recourselab.datasets import make_loan_scm

    with pytest.raises(TypeError, match=r"random_state=1.7 must be an int seed or a numpy.random.Generator"):
        make_loan_scm(100, random_state=1.7)


def test_simulators_reject_a_negative_seed():
    from recourselab.datasets import make_admissions

    with pytest.raises(ValueError, match="random_state=-3 must be an int >= 0"):
        make_admissions(100, random_state=-3)


def test_simulators_reject_a_fractional_size():
    from recourselab.datasets import make_cec_synthetic

    with pytest.raises(TypeError, match=r"n=100.0 must be an int"):
        make_cec_synthetic(100.0)


def test_synthetic_world_reads_a_string_as_one_column():
    from dataclasses import replace

    from recourselab.datasets import make_loan_scm

    world = make_loan_scm(100, random_state=0)
    again = replace(world, protected="gender", features="annual_salary")
    assert again.protected == ("gender",) and again.features == ("annual_salary",)


def test_german_credit_advice_policy(german):
    # the book's advice policy (book/appendix/datasets.md, "advice-policy"): allowed is not advised
    never = {"age", "credit_history", "purpose", "residence_since", "housing", "other_installment_plans",
             "people_liable", "sex", "marital_status", "foreign_worker",
             # Grömping's corrected code table reverses the direction the papers allow for these two
             "installment_rate", "property"}
    directions = {s.name: s.advice_direction for s in german.features}
    assert {name for name, direction in directions.items() if direction == "never"} == never
    assert directions["existing_credits"] == "decrease"
    assert directions["credit_amount"] == "decrease" and directions["savings"] == "increase"

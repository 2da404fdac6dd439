"""The real data sets, shipped offline: German Credit and Adult, with the book's feature specs and advice policy."""

from __future__ import annotations

import pandas as pd

from ..features import FeatureSpec
from .base import Dataset, _read_gzip

__all__ = ["load_german_credit", "load_adult"]


# --------------------------------------------------------------------------- German Credit
_GERMAN_COLUMNS = [
    "checking_account", "duration", "credit_history", "purpose", "credit_amount",
    "savings", "employment_since", "installment_rate", "personal_status", "other_debtors",
    "residence_since", "property", "age", "other_installment_plans", "housing",
    "existing_credits", "job", "people_liable", "telephone", "foreign_worker", "class",
]

_GERMAN_LABELS = {
    "checking_account": {
        "A11": "< 0 DM", "A12": "0-200 DM", "A13": ">= 200 DM or salary account",
        "A14": "no checking account",
    },
    "credit_history": {
        "A30": "no credits or all paid duly", "A31": "all paid duly at this bank",
        "A32": "existing paid duly so far", "A33": "delays in the past",
        "A34": "critical account / credits elsewhere",
    },
    "purpose": {
        "A40": "car (new)", "A41": "car (used)", "A42": "furniture/equipment",
        "A43": "radio/television", "A44": "domestic appliances", "A45": "repairs",
        "A46": "education", "A47": "vacation", "A48": "retraining", "A49": "business",
        "A410": "others",
    },
    "savings": {
        "A61": "< 100 DM", "A62": "100-500 DM", "A63": "500-1000 DM", "A64": ">= 1000 DM",
        "A65": "unknown or none",
    },
    "employment_since": {
        "A71": "unemployed", "A72": "< 1 year", "A73": "1-4 years", "A74": "4-7 years",
        "A75": ">= 7 years",
    },
    "other_debtors": {"A101": "none", "A102": "co-applicant", "A103": "guarantor"},
    "property": {
        "A121": "real estate", "A122": "savings agreement or life insurance",
        "A123": "car or other", "A124": "unknown or none",
    },
    "other_installment_plans": {"A141": "bank", "A142": "stores", "A143": "none"},
    "housing": {"A151": "rent", "A152": "own", "A153": "for free"},
    "job": {
        "A171": "unemployed or unskilled non-resident", "A172": "unskilled resident",
        "A173": "skilled employee or official", "A174": "management or highly qualified",
    },
    "telephone": {"A191": "no", "A192": "yes"},
    "foreign_worker": {"A201": "yes", "A202": "no"},
}

# Personal status (attribute 9) mixes sex and marital status; FACEGroup splits it in two.
_GERMAN_SEX = {"A91": "male", "A92": "female", "A93": "male", "A94": "male", "A95": "female"}
_GERMAN_MARITAL = {
    "A91": "divorced or separated", "A92": "divorced, separated or married",
    "A93": "single", "A94": "married or widowed", "A95": "single",
}


def _german_features() -> tuple[FeatureSpec, ...]:
    L = _GERMAN_LABELS
    return (
        FeatureSpec("checking_account", "ordinal", "increase", max_change=2,
                    order=[L["checking_account"][c] for c in ("A14", "A11", "A12", "A13")],
                    description="Status of the checking account (FACEGroup: 'no account' ranked lowest)"),
        FeatureSpec("duration", "continuous", "decrease", unit="months", max_change=12,
                    description="Duration of the credit"),
        FeatureSpec("credit_history", "ordinal", "free", advise="never",
                    order=[L["credit_history"][c] for c in ("A34", "A33", "A32", "A31", "A30")],
                    description="Past credit behaviour (worst to best)"),
        FeatureSpec("purpose", "categorical", "free", advise="never", order=list(L["purpose"].values()),
                    description="Purpose of the credit"),
        FeatureSpec("credit_amount", "continuous", "decrease", unit="DM",
                    description="Amount of credit requested"),
        FeatureSpec("savings", "ordinal", "increase", max_change=2,
                    order=[L["savings"][c] for c in ("A65", "A61", "A62", "A63", "A64")],
                    description="Savings account or bonds (FACEGroup: 'unknown or none' ranked lowest)"),
        FeatureSpec("employment_since", "ordinal", "increase", max_change=1,
                    order=list(L["employment_since"].values()),
                    description="Present employment since"),
        FeatureSpec("installment_rate", "ordinal", "decrease", order=[1, 2, 3, 4], advise="never",
                    description="Instalment rate in % of disposable income (UCI classes 1-4)"),
        FeatureSpec("sex", "binary", "immutable", order=["female", "male"],
                    description="Sex, from the personal-status code"),
        FeatureSpec("marital_status", "categorical", "immutable",
                    order=list(dict.fromkeys(_GERMAN_MARITAL.values())),
                    description="Marital status, from the personal-status code"),
        FeatureSpec("other_debtors", "ordinal", "increase", order=list(L["other_debtors"].values()),
                    description="Other debtors or guarantors"),
        FeatureSpec("residence_since", "ordinal", "free", advise="never", order=[1, 2, 3, 4],
                    description="Present residence since (UCI classes 1-4)"),
        FeatureSpec("property", "ordinal", "increase", advise="never",
                    order=[L["property"][c] for c in ("A124", "A123", "A122", "A121")],
                    description="Most valuable property (FACEGroup's ↓ on the codes = towards real estate)"),
        FeatureSpec("age", "continuous", "increase", unit="years", advise="never", description="Age"),
        FeatureSpec("other_installment_plans", "ordinal", "decrease", advise="never",
                    order=list(L["other_installment_plans"].values()),
                    description="Other instalment plans (FACEGroup's ↓ on the UCI code order)"),
        FeatureSpec("housing", "ordinal", "increase", advise="never", order=list(L["housing"].values()),
                    description="Housing (FACEGroup's ↑ on the UCI code order)"),
        FeatureSpec("existing_credits", "continuous", "free", advise="decrease", unit="credits",
                    description="Number of existing credits at this bank"),
        FeatureSpec("job", "ordinal", "increase", max_change=1, order=list(L["job"].values()),
                    description="Job (skill level)"),
        FeatureSpec("people_liable", "continuous", "free", advise="never", unit="people",
                    description="Number of people the applicant maintains"),
        FeatureSpec("telephone", "binary", "increase", order=["no", "yes"],
                    description="Telephone registered in the applicant's name"),
        FeatureSpec("foreign_worker", "binary", "immutable", order=["no", "yes"],
                    description="Foreign worker"),
    )


def load_german_credit() -> Dataset:
    """Statlog German Credit data (Hofmann, 1994): 1,000 applicants, 700 with good credit.

    The raw UCI file ``german.data`` with readable column names and category
    labels. Following FACEGroup :cite:p:`fragkathoulas2025facegroup` (Appendix B)
    and :cite:t:`lequy2022survey`, the personal-status code is split into
    ``sex`` and ``marital_status``. Target ``good_credit`` is 1 for good credit
    (UCI class 1) and 0 for bad (class 2). Protected attribute: ``sex``.

    Feature specs follow FACEGroup's Table 4: credit amount, duration and
    instalment rate may only decrease; age, checking account, savings,
    employment, guarantors, property, housing, job and telephone may only
    increase (improve); sex, marital status and foreign-worker status are
    immutable; the rest are free. Ordinal orders run worst to best and include
    FACEGroup's remaps ("no checking account" and "unknown or no savings" are
    the lowest levels). Where FACEGroup's arrow refers to the UCI code order of
    a category without a clear quality ranking (other instalment plans,
    housing), the order is the UCI code order, so the constraint is theirs.

    Advice policy (``advise`` and ``max_change``; the book's, not the paper's):
    what may change is not all that may be *recommended*. Never advised: age
    (time passes, but "be older" is no advice), credit history (a past record),
    the purpose of the loan (the applicant's need), residence, housing, other
    instalment plans (no order a person could be advised along), the people
    the applicant supports, the instalment rate and property (under
    Grömping's corrected code table their allowed direction points the other
    way, so no direction is safe to advise), and the immutable sex, marital
    status and foreign-worker status. Existing credits may only be advised
    down. Caps on a plausible change before the next application: duration at
    most 12 months shorter, savings and checking account at most two levels
    up, employment and job at most one level.

    Returns
    -------
    Dataset

    Examples
    --------
    >>> data = load_german_credit()
    >>> data.frame["sex"].value_counts().to_dict()
    {'male': 690, 'female': 310}
    """
    raw = _read_gzip("german.data.gz", sep=" ", names=_GERMAN_COLUMNS)
    frame = pd.DataFrame(index=raw.index)
    for col in _GERMAN_COLUMNS:
        if col == "personal_status":
            frame["sex"] = raw[col].map(_GERMAN_SEX)
            frame["marital_status"] = raw[col].map(_GERMAN_MARITAL)
        elif col == "class":
            frame["good_credit"] = (raw[col] == 1).astype(int)
        elif col in _GERMAN_LABELS:
            frame[col] = raw[col].map(_GERMAN_LABELS[col])
        else:
            frame[col] = raw[col].astype(int)
    features = _german_features()
    frame = frame[[s.name for s in features] + ["good_credit"]]
    return Dataset(
        frame=frame,
        target="good_credit",
        protected=("sex",),
        features=features,
        description=(
            "Statlog (German Credit Data), UCI: 1,000 credit applicants described by 20 attributes; "
            "personal status split into sex and marital status; target 1 = good credit."
        ),
        citation="hofmann1994german",
    )


# --------------------------------------------------------------------------- Adult
_ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
    "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
    "hours_per_week", "native_country", "income",
]

_ADULT_EDUCATION = [
    "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th", "HS-grad",
    "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters", "Prof-school", "Doctorate",
]


def _adult_features() -> tuple[FeatureSpec, ...]:
    return (
        FeatureSpec("age", "continuous", "increase", unit="years", advise="never", description="Age"),
        FeatureSpec("workclass", "categorical", "free", description="Employment type"),
        FeatureSpec("education", "ordinal", "increase", order=_ADULT_EDUCATION, max_change=2,
                    description="Highest level of education"),
        FeatureSpec("education_num", "continuous", "increase", unit="levels", max_change=2,
                    description="UCI's numeric code of the education level (1-16, not years)"),
        FeatureSpec("marital_status", "categorical", "free", advise="never", description="Marital status"),
        FeatureSpec("occupation", "categorical", "free", description="Occupation"),
        FeatureSpec("relationship", "categorical", "free", advise="never",
                    description="Relationship to the head of household"),
        FeatureSpec("capital_gain", "continuous", "free", advise="never", unit="USD",
                    description="Capital gains in the year"),
        FeatureSpec("capital_loss", "continuous", "free", advise="never", unit="USD",
                    description="Capital losses in the year"),
        FeatureSpec("hours_per_week", "continuous", "free", unit="hours", max_change=10,
                    description="Hours worked per week"),
        FeatureSpec("sex", "binary", "immutable", order=["Female", "Male"], description="Sex"),
        FeatureSpec("race", "categorical", "immutable", description="Race"),
    )


def load_adult() -> Dataset:
    """Adult census income data (Becker & Kohavi, 1996): the 32,561-row UCI training file.

    Readable snake_case column names; the UCI missing-value marker ``?`` in
    ``workclass`` and ``occupation`` becomes the category ``"Unknown"`` so no row
    is dropped. Target ``income_over_50k`` is 1 for income > 50K. Protected
    attributes: ``sex`` and ``race``.

    Features and actionability follow FACEGroup's Table 4 (Adult rows): age,
    education and its numeric code may only increase, sex and race are
    immutable, the rest are free. Advice policy (the book's): never advised are
    age, marital status, relationship (no one is told to marry), capital gains
    and losses (outcomes of investments, not actions) and the immutable sex and
    race; education at most two levels up (two named levels, or two steps of the
    1-16 code, which counts levels, not years); hours at most ±10 a week. The columns Table 4 does not use are dropped:
    ``fnlwgt`` (a census sampling weight, not a property of the person) and
    ``native_country``.

    Returns
    -------
    Dataset

    Examples
    --------
    >>> data = load_adult()
    >>> len(data.frame), round(float(data.y.mean()), 3)
    (32561, 0.241)
    """
    raw = _read_gzip(
        "adult.data.gz", names=_ADULT_COLUMNS, sep=",", skipinitialspace=True,
        na_values=["?"], keep_default_na=False,
    )
    frame = raw.drop(columns=["fnlwgt", "native_country"])
    for col in ("workclass", "occupation"):
        frame[col] = frame[col].fillna("Unknown")
    frame["income_over_50k"] = (frame.pop("income") == ">50K").astype(int)
    features = _adult_features()
    frame = frame[[s.name for s in features] + ["income_over_50k"]]
    return Dataset(
        frame=frame,
        target="income_over_50k",
        protected=("sex", "race"),
        features=features,
        description=(
            "Adult (census income), UCI training file: 32,561 people; fnlwgt and native country "
            "dropped; '?' kept as the category 'Unknown'; target 1 = income > 50K."
        ),
        citation="becker1996adult",
    )



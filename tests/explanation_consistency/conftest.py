"""Fitted networks and matched pairs shared by the explanation-consistency tests (fitted once per session)."""

import pytest
from explanation_consistency.cec_cases import TINY, small_problem

from recourselab.explanation_consistency import (
    MLPClassifier,
    counterfactual_rows,
    label_group_baselines,
    match_counterfactuals,
)


@pytest.fixture(scope="session")
def pairs():
    """The small problem (256 rows) with every row's partner (matched on x0) and label-group baseline."""
    X, y, a = small_problem()
    match = match_counterfactuals(X, y, a, [0])
    return X, y, a, counterfactual_rows(match, X), label_group_baselines(X, y, a)


@pytest.fixture(scope="session")
def plain_mlp(pairs):
    X, y, a, _, _ = pairs
    return MLPClassifier(**TINY, random_state=0).fit(X, y, sensitive_features=a)


@pytest.fixture(scope="session")
def cec_mlp(pairs):
    X, y, a, X_cf, B = pairs
    return MLPClassifier(**TINY, lambda_cec=1.0, random_state=0).fit(X, y, sensitive_features=a, X_cf=X_cf,
                                                                      baselines=B)

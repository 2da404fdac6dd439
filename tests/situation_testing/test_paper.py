"""The paper's algorithm written literally (``paper.py``) against the engine, and the paper's worked numbers.

Ties: both order candidates at the same distance (equal to 12 decimals) by the lower row. The
tables are integer-valued, so every distance is a rational with a small denominator and rounding to
12 decimals never splits a tie differently in the two computations: groups, proportions and flags
must agree exactly. The interval bounds agree to 1e-12 only: the literal function takes the normal
quantile from the standard library, the engine from scipy, and the two differ in the last bit.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from situation_testing.st_cases import (
    categorical_flags,
    literal_groups,
    mixed_tables,
    population_sd,
    rows,
    tied_tables,
)

from recourselab.situation_testing import (
    build_groups,
    counterfactual_fairness,
    paper,
    situation_distance_transform,
    situation_testing,
    wald_ci,
)

# The paper's Tables 2 and 3 (k = 15 with the search centres: n = 16, one-sided z = 1.645)
TABLES_2_3 = [
    (16 / 16, 0 / 16, 1.00, 1.00),   # complainant 44
    (13 / 16, 0 / 16, 0.65, 0.97),   # 55
    (16 / 16, 15 / 16, -0.04, 0.16),  # 150
    (16 / 16, 14 / 16, -0.01, 0.26),  # 203
    (9 / 16, 0 / 16, 0.36, 0.77),    # 218
    (1 / 16, 0 / 16, -0.04, 0.16),   # 5
    (8 / 16, 0 / 16, 0.29, 0.71),    # 147
    # 435: the paper prints [0.18, 0.58]; 6/16 gives 0.375 +- 0.199 = [0.18, 0.57], and no other
    # proportion of 16 prints as 0.38, so we check the lower bound only
    (6 / 16, 0 / 16, 0.18, None),
    (2 / 16, 0 / 16, -0.01, 0.26),   # 1958
    (12 / 16, 0 / 16, 0.57, 0.93),   # 2926
]


@pytest.mark.parametrize("interval", [wald_ci, paper.wald_interval], ids=["engine", "paper"])
@pytest.mark.parametrize("p_c, p_t, low, high", TABLES_2_3)
def test_wald_interval_reproduces_the_papers_tables_2_and_3(interval, p_c, p_t, low, high):
    got = interval(p_c, p_t, 16, 0.05)
    assert round(got[0], 2) == pytest.approx(low, abs=1e-9)
    if high is not None:
        assert round(got[1], 2) == pytest.approx(high, abs=1e-9)


@given(st.integers(0, 20), st.integers(0, 20), st.integers(1, 20), st.sampled_from([0.01, 0.05, 0.1, 0.2]))
def test_the_engines_interval_equals_the_literal_one(negative_c, negative_t, k, alpha):
    n = max(k, negative_c, negative_t)
    p_c, p_t = negative_c / n, negative_t / n
    np.testing.assert_allclose(wald_ci(p_c, p_t, n, alpha), paper.wald_interval(p_c, p_t, n, alpha),
                               rtol=0, atol=1e-12)


def test_the_overlap_term_is_one_for_different_categories_under_our_reading():
    assert paper.distance(["a"], ["a"], [0.0], [True]) == 0.0
    assert paper.distance(["a"], ["b"], [0.0], [True]) == 1.0
    T, _ = situation_distance_transform(pd.DataFrame({"job": ["a", "a", "b"]}))
    assert np.abs(T[0] - T[1]).sum() == 0.0 and np.abs(T[0] - T[2]).sum() == 1.0


@given(mixed_tables(), st.sampled_from(["range", "std"]))
def test_the_transform_makes_l1_equal_to_equation_6(data, normalize):
    frame, _ = data
    T, _ = situation_distance_transform(frame, normalize=normalize)
    D, categorical = rows(frame), categorical_flags(frame)
    spread = paper.ranges(D, categorical) if normalize == "range" else population_sd(frame)
    for i in range(min(len(frame), 5)):
        for j in range(len(frame)):
            assert np.abs(T[i] - T[j]).sum() == pytest.approx(paper.distance(D[i], D[j], spread, categorical))


@settings(max_examples=40)
@given(tied_tables(), st.booleans(), st.booleans(), st.sampled_from([0.0, 0.1, 0.3]), st.sampled_from([0.05, 0.2]))
def test_situation_testing_equals_the_literal_test_for_every_complainant(data, counterfactual, include_centers,
                                                                        tau, alpha):
    frame, frame_cf, protected, y_hat, y_hat_cf, k = data
    cf = dict(X_cf=frame_cf, y_hat_cf=y_hat_cf) if counterfactual else {}
    result = situation_testing(frame, protected, y_hat, k=k, include_centers=include_centers, tau=tau, alpha=alpha,
                               **cf)
    groups = build_groups(frame, protected, k=k, X_cf=cf.get("X_cf"))
    D, D_CF = rows(frame), rows(frame_cf) if counterfactual else None
    assert list(result.index) == list(groups.complainants) == list(np.flatnonzero(protected))
    for position, c in enumerate(groups.complainants):
        literal = paper.situation_test(D, protected, y_hat, c, k, D_CF=D_CF, y_hat_CF=y_hat_cf,
                                       categorical=categorical_flags(frame), include_centers=include_centers,
                                       tau=tau, alpha=alpha)
        row = result.iloc[position]
        assert groups.control[position].tolist() == literal["control"]
        assert groups.test[position].tolist() == literal["test"]
        assert (row["p_c"], row["p_t"], row["delta_p"]) == (literal["p_c"], literal["p_t"], literal["delta_p"])
        np.testing.assert_allclose([row["ci_low"], row["ci_high"]], [literal["ci_low"], literal["ci_high"]],
                                   rtol=0, atol=1e-12)
        assert (bool(row["discrimination"]), bool(row["significant"])) == \
            (literal["discrimination"], literal["significant"])


@given(mixed_tables(), st.integers(1, 3), st.booleans())
def test_groups_equal_the_literal_search_with_a_category(data, k, counterfactual):
    frame, protected = data
    frame_cf = frame.assign(a=np.clip(frame["a"] + 1, 0, 4), colour="blue") if counterfactual else None
    groups = build_groups(frame, protected, k=k, X_cf=frame_cf)
    control, test = literal_groups(frame, protected, k, frame_cf)
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)


# The standard deviations are irrational: a distance may lie within rounding noise of a 12-decimal boundary,
# where the two computations (one on rescaled columns, one dividing differences) could round a tie apart.
# The examples are therefore fixed (derandomize): the same ones pass on every run.
@settings(derandomize=True, max_examples=40)
@given(mixed_tables(), st.integers(1, 3), st.booleans())
def test_std_groups_equal_the_literal_search_with_standard_deviations(data, k, counterfactual):
    frame, protected = data
    frame_cf = frame.assign(a=np.clip(frame["a"] + 1, 0, 4)) if counterfactual else None
    sd = population_sd(frame)
    groups = build_groups(frame, protected, k=k, X_cf=frame_cf, normalize="std")
    control, test = literal_groups(frame, protected, k, frame_cf, spread=sd)
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)


def test_a_complainant_with_exact_duplicates_gets_k_others():
    D = [[1.0], [1.0], [1.0], [5.0], [1.0], [2.0], [9.0]]
    protected = np.array([1, 1, 1, 1, 0, 0, 0], bool)
    literal = paper.situation_test(D, protected, [0] * 7, c=1, k=2)
    assert literal["control"] == [0, 2]   # the complainant left out, its twins taken by row
    assert build_groups(np.array(D), protected, k=2).control[1].tolist() == [0, 2]


@given(st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)), min_size=1, max_size=30))
def test_counterfactual_fairness_equals_the_literal_comparison(pairs):
    y_hat, y_hat_cf = (np.array(v) for v in zip(*pairs, strict=True))
    expected = [paper.counterfactual_fairness(a, b) for a, b in pairs]
    assert counterfactual_fairness(y_hat, y_hat_cf).tolist() == expected

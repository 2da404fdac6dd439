import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.situation_testing.testing import (
    _k_nearest_naive,
    build_groups,
    counterfactual_fairness,
    situation_distance_transform,
    situation_testing,
    wald_ci,
)


# The paper's Tables 2 and 3 (k = 15 with the search centres: n = 16, one-sided z = 1.645)
@pytest.mark.parametrize(
    "p_c, p_t, low, high",
    [
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
    ],
)
def test_wald_ci_reproduces_the_papers_tables_2_and_3(p_c, p_t, low, high):
    got = wald_ci(p_c, p_t, 16, alpha=0.05)
    assert round(got[0], 2) == pytest.approx(low, abs=1e-9)
    if high is not None:
        assert round(got[1], 2) == pytest.approx(high, abs=1e-9)


def test_wald_ci_is_vectorised_and_two_sided_is_wider():
    low, high = wald_ci(np.array([0.5, 0.2]), np.array([0.1, 0.2]), np.array([10, 10]))
    assert low.shape == (2,) and high[1] > 0 > low[1]
    two_low, two_high = wald_ci(0.5, 0.1, 10, one_sided=False)
    assert two_low < low[0] and two_high > high[0]
    with pytest.raises(ValueError, match="alpha=1.5"):
        wald_ci(0.5, 0.1, 10, alpha=1.5)
    with pytest.raises(ValueError, match="must lie in"):
        wald_ci(1.5, 0.1, 10)


@st.composite
def mixed_tables(draw, max_rows=24):
    n = draw(st.integers(8, max_rows))
    numeric = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))  # small integers: many ties
    other = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    colour = draw(st.lists(st.sampled_from(["red", "blue", "green"]), min_size=n, max_size=n))
    protected = draw(st.lists(st.booleans(), min_size=n, max_size=n).filter(lambda p: 4 <= sum(p) <= len(p) - 4))
    frame = pd.DataFrame({"a": np.array(numeric, float), "b": np.array(other, float), "colour": colour})
    return frame, np.array(protected)


def eq6(frame, i_row, j_row, spans):
    """The paper's Eq. (6) written out attribute by attribute."""
    total = 0.0
    for c in frame.columns:
        x, y = i_row[c], j_row[c]
        if c == "colour":
            total += float(x != y)
        else:
            total += abs(x - y) / spans[c] if spans[c] > 0 else 0.0
    return total / frame.shape[1]


@given(mixed_tables())
def test_transform_makes_l1_equal_to_equation_6(data):
    frame, _ = data
    T, _ = situation_distance_transform(frame)
    spans = {c: frame[c].max() - frame[c].min() for c in ("a", "b")}
    for i in range(min(len(frame), 5)):
        for j in range(len(frame)):
            assert np.abs(T[i] - T[j]).sum() == pytest.approx(eq6(frame, frame.iloc[i], frame.iloc[j], spans))


def brute_groups(frame, protected, k, centres_frame, spans):
    """Stable sort by Eq. (6) distance, ties by row position; control excludes the complainant."""
    rows = np.arange(len(frame))
    control, test = [], []
    for c in rows[protected]:
        d = [(round(eq6(frame, frame.iloc[c], frame.iloc[j], spans), 12), j) for j in rows[protected] if j != c]
        control.append([j for _, j in sorted(d)[:k]])
        d = [(round(eq6(frame, centres_frame.iloc[c], frame.iloc[j], spans), 12), j) for j in rows[~protected]]
        test.append([j for _, j in sorted(d)[:k]])
    return np.array(control), np.array(test)


@given(mixed_tables(), st.integers(1, 3), st.booleans())
def test_groups_equal_a_brute_force_stable_sort(data, k, counterfactual):
    frame, protected = data
    spans = {c: frame[c].max() - frame[c].min() for c in ("a", "b")}
    frame_cf = frame.assign(a=np.clip(frame["a"] + 1, 0, 4)) if counterfactual else frame
    groups = build_groups(frame, protected, k=k, X_cf=frame_cf if counterfactual else None)
    control, test = brute_groups(frame, protected, k, frame_cf, spans)
    # control groups: compare distances exactly (rounding only affects the tie order, not the set of distances)
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)
    assert list(groups.complainants) == list(np.flatnonzero(protected))


@given(mixed_tables(), st.integers(1, 3), st.booleans())
def test_cst_with_factual_rows_as_counterfactuals_equals_st(data, k, include_centers):
    frame, protected = data
    y_hat = (frame["a"] + frame["b"] >= 4).to_numpy().astype(int)
    st_result = situation_testing(frame, protected, y_hat, k=k, include_centers=include_centers)
    cst_result = situation_testing(frame, protected, y_hat, k=k, X_cf=frame, y_hat_cf=y_hat,
                                   include_centers=include_centers)
    pd.testing.assert_frame_equal(st_result, cst_result)


def test_proportions_intervals_and_flags_on_a_hand_example():
    X = pd.DataFrame({"score": [0.0, 0.1, 0.2, 0.3, 0.0, 0.1, 0.2, 0.3]}, index=list("abcdefgh"))
    protected = np.array([1, 1, 1, 1, 0, 0, 0, 0])
    y_hat = np.array([0, 0, 0, 1, 1, 1, 0, 1])
    result = situation_testing(X, protected, y_hat, k=2)
    assert list(result.index) == list("abcd")
    # complainant a: control b, c (both refused); test e, f (both approved)
    assert result.loc["a", ["p_c", "p_t", "delta_p"]].tolist() == [1.0, 0.0, 1.0]
    assert bool(result.loc["a", "discrimination"]) and bool(result.loc["a", "significant"])
    with_centres = situation_testing(X, protected, y_hat, k=2, include_centers=True)
    # a's own refusal joins the control group; its test centre is itself (ST): refused too
    assert with_centres.loc["a", ["p_c", "p_t"]].tolist() == [1.0, pytest.approx(1 / 3)]
    low, high = wald_ci(1.0, 1 / 3, 3)
    assert with_centres.loc["a", "ci_low"] == pytest.approx(low)


def test_counterfactual_centres_move_the_test_group():
    X = pd.DataFrame({"salary": [10.0, 11, 12, 10, 11, 12, 30, 31, 32]})
    protected = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0])
    y_hat = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1])
    X_cf = X.copy()
    X_cf.loc[:2, "salary"] += 20  # what the women would have earned as men
    st_result = situation_testing(X, protected, y_hat, k=2)
    cst_result = situation_testing(X, protected, y_hat, k=2, X_cf=X_cf)
    assert (st_result["delta_p"] == 0).all()  # similar men were refused too
    assert (cst_result["delta_p"] == 1).all()  # the men they would have been were approved


def test_intersectional_reference_space():
    X = np.arange(12, dtype=float)[:, None]
    non_white_women = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], bool)
    white_men = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0], bool)
    groups = build_groups(X, non_white_women, k=2, reference=white_men)
    assert set(groups.test.ravel()) <= set(np.flatnonzero(white_men))
    with pytest.raises(ValueError, match="overlap"):
        build_groups(X, non_white_women, k=2, reference=non_white_women)


def test_counterfactual_fairness_flags_refusals_that_flip():
    assert counterfactual_fairness([0, 0, 1, 1], [1, 0, 1, 0]).tolist() == [True, False, False, False]
    with pytest.raises(ValueError, match="one factual and one counterfactual decision per row"):
        counterfactual_fairness([0, 1], [0])
    with pytest.raises(ValueError, match="0/1 decisions"):
        counterfactual_fairness([0, 2], [0, 1])


def test_bad_input_is_reported():
    X = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5]})
    y_hat = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="protected has a single value"):
        situation_testing(X, np.ones(6), y_hat, k=1)
    with pytest.raises(ValueError, match="k=3 is larger than the control search space"):
        situation_testing(X, [1, 1, 1, 0, 0, 0], y_hat, k=3)
    with pytest.raises(ValueError, match="k=3 is larger than the test search space"):
        situation_testing(X, [1, 1, 1, 1, 0, 0], y_hat, k=3)
    with pytest.raises(ValueError, match=r"X_cf has shape \(5, 1\) but X has shape \(6, 1\)"):
        situation_testing(X, [1, 1, 1, 0, 0, 0], y_hat, k=1, X_cf=X.iloc[:5])
    with pytest.raises(ValueError, match="needs y_hat_cf"):
        situation_testing(X, [1, 1, 1, 0, 0, 0], y_hat, k=1, X_cf=X, include_centers=True)
    with pytest.raises(ValueError, match="y_hat must be boolean or 0/1"):
        situation_testing(X, [1, 1, 1, 0, 0, 0], np.arange(6), k=1)
    with pytest.raises(ValueError, match="k=0 must be an integer >= 1"):
        situation_testing(X, [1, 1, 1, 0, 0, 0], y_hat, k=0)
    with pytest.raises(ValueError, match="column 'a' of X has missing values"):
        situation_testing(X.assign(a=[np.nan, 1, 2, 3, 4, 5]), [1, 1, 1, 0, 0, 0], y_hat, k=1)
    with pytest.raises(ValueError, match="categorical names columns that X lacks"):
        situation_testing(X, [1, 1, 1, 0, 0, 0], y_hat, k=1, categorical=["colour"])


# --------------------------------------------------------------------------- bad input, one case per test
X6 = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5]})
P6 = np.array([1, 1, 1, 0, 0, 0])
Y6 = np.array([0, 1, 0, 1, 0, 1])


def test_tau_nan_is_rejected():
    with pytest.raises(ValueError, match=r"tau=nan must lie in \[0, 1\)"):
        situation_testing(X6, P6, Y6, k=1, tau=float("nan"))


def test_tau_of_one_or_more_is_rejected_because_no_difference_of_proportions_exceeds_it():
    with pytest.raises(ValueError, match=r"tau=5 must lie in \[0, 1\).*never exceeds 1"):
        situation_testing(X6, P6, Y6, k=1, tau=5)


def test_negative_tau_is_rejected():
    with pytest.raises(ValueError, match=r"tau=-0.1 must lie in \[0, 1\)"):
        situation_testing(X6, P6, Y6, k=1, tau=-0.1)


def test_tau_just_below_one_is_accepted_and_flags_only_larger_differences():
    result = situation_testing(X6, P6, Y6, k=1, tau=0.99)
    assert (result["discrimination"] == (result["delta_p"] > 0.99)).all()


def test_alpha_infinite_is_rejected():
    with pytest.raises(ValueError, match="alpha=inf must lie strictly between 0 and 1"):
        situation_testing(X6, P6, Y6, k=1, alpha=float("inf"))


def test_k_as_a_whole_float_is_rejected():
    with pytest.raises(ValueError, match=r"k=2.0 must be an integer >= 1.*floats such as 2.0 are not accepted"):
        situation_testing(X6, P6, Y6, k=2.0)


def test_k_fractional_is_rejected_not_truncated():
    with pytest.raises(ValueError, match="k=1.7 must be an integer >= 1"):
        build_groups(X6, P6, k=1.7)


def test_k_numpy_integer_is_accepted():
    assert build_groups(X6, P6, k=np.int64(2)).k == 2


def test_infinite_value_in_x_names_the_column():
    with pytest.raises(ValueError, match=r"column 'a' of X has infinite values \(first in row 2: inf\)"):
        situation_testing(X6.assign(a=[0.0, 1, np.inf, 3, 4, 5]), P6, Y6, k=1)


def test_infinite_value_in_x_cf_names_the_column():
    with pytest.raises(ValueError, match=r"column 'a' of X_cf has infinite values \(first in row 0: -inf\)"):
        situation_testing(X6, P6, Y6, k=1, X_cf=X6.assign(a=[-np.inf, 1, 2, 3, 4, 5]))


def test_non_numeric_x_cf_column_where_x_is_numeric_is_reported():
    with pytest.raises(ValueError, match="column 'a' is numeric in X but not in X_cf"):
        situation_distance_transform(X6, X6.assign(a=list("uvwxyz")))


def test_none_in_protected_is_an_error_not_a_dropped_row():
    with pytest.raises(ValueError, match=r"protected\[1\] is missing \(None\).*True or 1 = in the protected group"):
        situation_testing(X6, np.array([1, None, 1, 0, 0, 0], dtype=object), Y6, k=1)


def test_none_in_y_hat_is_an_error():
    with pytest.raises(ValueError, match=r"y_hat\[5\] is missing"):
        situation_testing(X6, P6, [0, 1, 0, 1, 0, None], k=1)


def test_none_in_y_hat_cf_is_an_error():
    with pytest.raises(ValueError, match=r"y_hat_cf\[0\] is missing"):
        situation_testing(X6, P6, Y6, k=1, X_cf=X6, y_hat_cf=[None, 1, 0, 1, 0, 1], include_centers=True)


def test_y_hat_message_speaks_of_decisions_not_of_the_protected_group():
    with pytest.raises(ValueError, match=r"y_hat must be boolean or 0/1 \(decisions: 1 = favourable, 0 = refused\)"):
        situation_testing(X6, P6, [0, 1, 2, 1, 0, 1], k=1)


def test_reference_message_speaks_of_the_reference_group():
    with pytest.raises(ValueError, match=r"reference must be boolean or 0/1 \(True or 1 = in the reference group\)"):
        build_groups(X6, P6, k=1, reference=[0, 0, 0, 2, 1, 1])


def test_y_hat_cf_without_x_cf_is_rejected():
    with pytest.raises(ValueError, match="y_hat_cf is given without X_cf"):
        situation_testing(X6, P6, Y6, k=1, y_hat_cf=Y6)


def test_include_centers_must_be_a_bool():
    with pytest.raises(TypeError, match="include_centers='yes' must be True or False"):
        situation_testing(X6, P6, Y6, k=1, include_centers="yes")


def test_reference_selecting_no_rows_is_reported():
    with pytest.raises(ValueError, match="reference selects no rows"):
        build_groups(X6, P6, k=1, reference=np.zeros(6, dtype=bool))


def test_x_with_no_rows_is_reported():
    with pytest.raises(ValueError, match="X has 0 rows"):
        situation_testing(X6.iloc[:0], np.zeros(0, dtype=bool), np.zeros(0, dtype=int), k=1)


def test_x_cf_with_x_index_in_another_order_is_rejected():
    shuffled = X6.iloc[::-1]
    with pytest.raises(ValueError, match=r"X_cf has a different index from X.*X_cf.loc\[X.index\]"):
        situation_testing(X6, P6, Y6, k=1, X_cf=shuffled)


def test_protected_series_with_another_index_is_rejected():
    with pytest.raises(ValueError, match="protected has a different index from X"):
        build_groups(X6, pd.Series(P6, index=list("abcdef")), k=1)


def test_pandas_inputs_with_x_index_are_accepted_and_the_result_keeps_it():
    X = X6.set_axis(list("abcdef"))
    result = situation_testing(X, pd.Series(P6, index=X.index), pd.Series(Y6, index=X.index), k=1,
                               X_cf=X.assign(a=X["a"] + 1))
    assert list(result.index) == ["a", "b", "c"]


def test_categorical_as_a_string_names_one_column():
    frame = pd.DataFrame({"ab": [0, 1, 2, 0, 1, 2], "a": [0.0, 1, 2, 3, 4, 5]})
    T, _ = situation_distance_transform(frame, categorical="ab")
    assert T.shape == (6, 3 + 1)   # "ab" one-hot with three levels, "a" numeric


def test_wald_ci_rejects_a_nan_proportion():
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]; p_t holds nan"):
        wald_ci(0.5, np.nan, 10)


def test_wald_ci_rejects_a_fractional_group_size():
    with pytest.raises(ValueError, match=r"n=15.5 must be a whole number >= 1"):
        wald_ci(0.5, 0.1, 15.5)


def test_wald_ci_rejects_an_infinite_group_size():
    with pytest.raises(ValueError, match=r"n=inf must be a whole number >= 1"):
        wald_ci(0.5, 0.1, np.inf)


def test_counterfactual_fairness_rejects_none_decisions():
    with pytest.raises(ValueError, match=r"y_hat_cf must hold 0/1 decisions.*\[None\]"):
        counterfactual_fairness([0, 1], [1, None])


def test_object_array_gives_the_same_transform_as_the_frame(german):
    frame = german.X
    array = frame.to_numpy()   # dtype object: numbers and labels side by side
    assert array.dtype == object
    T_frame, _ = situation_distance_transform(frame)
    T_array, _ = situation_distance_transform(array)
    assert T_array.shape == T_frame.shape
    np.testing.assert_array_equal(T_array, T_frame)


def test_object_array_gives_the_same_situation_testing_result_as_the_frame(german):
    frame = german.X.iloc[:200]
    women = (frame["sex"] == "female").to_numpy()
    y_hat = german.y.iloc[:200].to_numpy()
    from_frame = situation_testing(frame.reset_index(drop=True), women, y_hat, k=5)
    from_array = situation_testing(frame.to_numpy(), women, y_hat, k=5)
    np.testing.assert_array_equal(from_frame.to_numpy(), from_array.to_numpy())


def test_object_column_holding_numbers_warns_that_it_is_treated_as_categorical():
    frame = pd.DataFrame({"a": pd.Series([0, 1, 2, 3], dtype=object), "b": [0.0, 1, 2, 3]})
    with pytest.warns(UserWarning, match=r"columns \['a'\] of X have dtype object and hold numbers"):
        T, _ = situation_distance_transform(frame)
    assert T.shape == (4, 4 + 1)


def test_object_array_column_mixing_numbers_and_labels_warns():
    array = np.array([[1, 0.5], ["high", 1.5], [3, 2.5]], dtype=object)
    with pytest.warns(UserWarning, match=r"columns \['x0'\] of X have dtype object"):
        situation_distance_transform(array)


def test_numbers_turned_into_text_by_numpy_warn():
    array = np.array([[1, "a"], [2, "b"], [3, "a"]])   # numpy stores 1, 2, 3 as the text "1", "2", "3"
    assert array.dtype.kind == "U"
    with pytest.warns(UserWarning, match=r"columns \['x0'\] of X hold numbers written as text"):
        situation_distance_transform(array)


def test_explicit_categorical_silences_the_guess_warnings():
    import warnings

    array = np.array([[1, "a"], [2, "b"], [3, "a"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        T, _ = situation_distance_transform(array, categorical=["x0", "x1"])
    assert T.shape == (3, 3 + 2)


# --------------------------------------------------------------------------- distance options (the authors' code)
def population_sd(frame):
    return {c: float(np.std(frame[c].to_numpy(float))) for c in ("a", "b")}


@given(mixed_tables())
def test_std_normalisation_makes_l1_equal_to_equation_6_with_standard_deviations(data):
    frame, _ = data
    T, _ = situation_distance_transform(frame, normalize="std")
    spans = population_sd(frame)
    for i in range(min(len(frame), 5)):
        for j in range(len(frame)):
            assert np.abs(T[i] - T[j]).sum() == pytest.approx(eq6(frame, frame.iloc[i], frame.iloc[j], spans))


@given(mixed_tables(), st.integers(1, 3), st.booleans())
def test_std_groups_equal_a_brute_force_stable_sort(data, k, counterfactual):
    frame, protected = data
    frame_cf = frame.assign(a=np.clip(frame["a"] + 1, 0, 4)) if counterfactual else frame
    groups = build_groups(frame, protected, k=k, X_cf=frame_cf if counterfactual else None, normalize="std")
    control, test = brute_groups(frame, protected, k, frame_cf, population_sd(frame))
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)


def numeric_brute_groups(X, protected, k, centres, spread):
    """Eq. (6) on numeric columns with the given per-column spread, ties by the lower row (numpy, no KD-tree)."""
    values, centres = X.to_numpy(float), centres.to_numpy(float)
    rows = np.arange(len(X))
    control, test = [], []
    for c in rows[protected]:
        others = rows[protected & (rows != c)]
        d = np.round((np.abs(values[others] - values[c]) / spread).sum(axis=1) / X.shape[1], 12)
        control.append(others[np.lexsort((others, d))][:k])
        space = rows[~protected]
        d = np.round((np.abs(values[space] - centres[c]) / spread).sum(axis=1) / X.shape[1], 12)
        test.append(space[np.lexsort((space, d))][:k])
    return np.array(control), np.array(test)


@pytest.fixture(scope="module")
def loan_world():
    from recourselab.datasets import make_loan_scm

    world = make_loan_scm(300, random_state=1)
    X = world.frame[list(world.features)]
    cf = world.true_counterfactual({"gender": 0})[list(world.features)]
    return X, cf, world.frame["gender"].to_numpy() == 1, world.frame[world.target].to_numpy()


@pytest.fixture(scope="module")
def law_world():
    from recourselab.datasets import make_law_school

    world = make_law_school(400, random_state=2)   # grades and scores on a grid: many tied distances
    X = world.frame[list(world.features)]
    cf = world.true_counterfactual({"female": 0})[list(world.features)]
    return X, cf, world.frame["female"].to_numpy() == 1, world.frame[world.target].to_numpy()


@pytest.mark.parametrize("world", ["loan_world", "law_world"])
@pytest.mark.parametrize("normalize", ["range", "std"])
def test_both_normalisations_equal_a_brute_force_reference_on_the_book_worlds(world, normalize, request):
    X, cf, protected, _ = request.getfixturevalue(world)
    values = X.to_numpy(float)
    spread = np.ptp(values, axis=0) if normalize == "range" else values.std(axis=0)
    for centres in (None, cf):
        groups = build_groups(X, protected, k=7, X_cf=centres, normalize=normalize)
        control, test = numeric_brute_groups(X, protected, 7, X if centres is None else centres, spread)
        np.testing.assert_array_equal(groups.control, control)
        np.testing.assert_array_equal(groups.test, test)


@pytest.mark.parametrize("world", ["loan_world", "law_world"])
def test_defaults_are_the_papers_definitions_on_the_book_worlds(world, request):
    X, cf, protected, y_hat = request.getfixturevalue(world)
    y_cf = y_hat.copy()
    default = situation_testing(X, protected, y_hat, k=5, X_cf=cf, y_hat_cf=y_cf, include_centers=True)
    explicit = situation_testing(X, protected, y_hat, k=5, X_cf=cf, y_hat_cf=y_cf, include_centers=True,
                                 normalize="range", cf_scaling="factual", ties="row")
    pd.testing.assert_frame_equal(default, explicit)
    groups = build_groups(X, protected, k=5, X_cf=cf)
    control, test = numeric_brute_groups(X, protected, 5, cf, np.ptp(X.to_numpy(float), axis=0))
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)


def test_refit_maps_counterfactuals_onto_the_factual_scale_by_hand():
    X = pd.DataFrame({"salary": [0.0, 10, 20, 30, 40]})
    X_cf = pd.DataFrame({"salary": [0.0, 0, 0, 40, 40]})
    # range: centre = min, spread = range; X: (0, 40), X_cf: (0, 40) -> the map is the identity
    _, T_cf = situation_distance_transform(X, X_cf, cf_scaling="refit")
    np.testing.assert_allclose(T_cf[:, 0], np.array([0, 0, 0, 40, 40]) / 40)
    # std: X has mean 20, sd sqrt(200); X_cf has mean 16, sd sqrt((3 * 16**2 + 2 * 24**2) / 5) = sqrt(384)
    _, T_cf = situation_distance_transform(X, X_cf, normalize="std", cf_scaling="refit")
    by_hand = (20 + (np.array([0, 0, 0, 40, 40]) - 16) * np.sqrt(200) / np.sqrt(384)) / np.sqrt(200)
    np.testing.assert_allclose(T_cf[:, 0], by_hand)
    assert T_cf[3, 0] == pytest.approx((20 + 24 * np.sqrt(200 / 384)) / np.sqrt(200))
    # the paper's definition measures the counterfactual with the factual ruler: no mapping
    _, T_cf = situation_distance_transform(X, X_cf, normalize="std")
    np.testing.assert_allclose(T_cf[:, 0], np.array([0, 0, 0, 40, 40]) / np.sqrt(200))


def test_refit_of_an_affine_image_gives_back_the_factual_rows():
    X = pd.DataFrame({"salary": [0.0, 10, 20, 35, 40], "balance": [5.0, 1, 3, 2, 4]})
    X_cf = 2 * X + 100
    for normalize in ("range", "std"):
        T, T_cf = situation_distance_transform(X, X_cf, normalize=normalize, cf_scaling="refit")
        np.testing.assert_allclose(T_cf, T)


def test_refit_maps_a_constant_counterfactual_column_to_the_factual_centre():
    X = pd.DataFrame({"salary": [0.0, 10, 20, 30, 40]})
    X_cf = pd.DataFrame({"salary": [7.0] * 5})
    _, T_cf = situation_distance_transform(X, X_cf, normalize="std", cf_scaling="refit")
    np.testing.assert_allclose(T_cf[:, 0], 20 / np.sqrt(200))
    _, T_cf = situation_distance_transform(X, X_cf, cf_scaling="refit")
    np.testing.assert_allclose(T_cf[:, 0], 0.0)   # range: the centre is the minimum


def test_std_refit_equals_standardising_each_data_set_on_its_own(loan_world):
    """The authors' code: a StandardScaler fitted on X for the factual rows, another fitted on X_cf for the rest."""
    from sklearn.preprocessing import StandardScaler

    X, cf, _, _ = loan_world
    Z, Z_cf = StandardScaler().fit_transform(X), StandardScaler().fit_transform(cf)
    T, T_cf = situation_distance_transform(X, cf, normalize="std", cf_scaling="refit")
    for i in range(0, len(X), 37):
        np.testing.assert_allclose(np.abs(T - T_cf[i]).sum(axis=1), np.abs(Z - Z_cf[i]).sum(axis=1) / 2,
                                   rtol=1e-12, atol=1e-12)


def authors_brute_groups(frame, protected, k, centres_frame, refit):
    """The authors' k-NN: centred z-scores, differences summed column by column, exact ties to the higher row."""
    def standardised(table, fitted_on):
        """Numeric columns as (x - mean) / sd with the mean and sd of ``fitted_on`` (0 for a constant column)."""
        out = {"colour": table["colour"].to_numpy()}
        for c in ("a", "b"):
            values, fit = table[c].to_numpy(float), fitted_on[c].to_numpy(float)
            out[c] = (values - fit.mean()) / fit.std() if fit.std() > 0 else np.zeros(len(values))
        return out

    Z = standardised(frame, frame)
    Z_cf = standardised(centres_frame, centres_frame if refit else frame)

    def distance(centre, i, rows):
        total = np.zeros(len(rows))
        for c in frame.columns:
            a, b = centre[c][i], Z[c][rows]
            total += (a != b) if c == "colour" else np.abs(a - b)
        return total / frame.shape[1]

    rows = np.arange(len(frame))
    control, test = [], []
    for c in rows[protected]:
        others = rows[protected & (rows != c)]
        control.append(others[np.lexsort((-others, distance(Z, c, others)))][:k])
        space = rows[~protected]
        test.append(space[np.lexsort((-space, distance(Z_cf, c, space)))][:k])
    return np.array(control), np.array(test)


@given(mixed_tables(), st.integers(1, 3), st.booleans(), st.booleans())
def test_bitwise_ties_equal_the_authors_ordering(data, k, counterfactual, refit):
    frame, protected = data
    frame_cf = frame.assign(a=np.clip(frame["a"] + 1, 0, 4), b=frame["b"] * 2 + 1) if counterfactual else frame
    groups = build_groups(frame, protected, k=k, X_cf=frame_cf if counterfactual else None, normalize="std",
                          cf_scaling="refit" if counterfactual and refit else "factual", ties="bitwise")
    control, test = authors_brute_groups(frame, protected, k, frame_cf, counterfactual and refit)
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)


def test_bitwise_ties_give_exact_duplicates_to_the_later_rows():
    X = pd.DataFrame({"score": [1.0, 1, 1, 1, 1, 1, 5, 9]})
    protected = np.array([1, 1, 1, 1, 0, 0, 0, 0], bool)
    row = build_groups(X, protected, k=2)
    bitwise = build_groups(X, protected, k=2, ties="bitwise")
    assert row.control[0].tolist() == [1, 2] and bitwise.control[0].tolist() == [3, 2]
    assert row.test[0].tolist() == [4, 5] and bitwise.test[0].tolist() == [5, 4]


def test_bitwise_ties_on_the_law_world_change_groups_but_not_the_distances(law_world):
    X, cf, protected, _ = law_world
    row = build_groups(X, protected, k=10, X_cf=cf, normalize="std")
    bitwise = build_groups(X, protected, k=10, X_cf=cf, normalize="std", ties="bitwise")
    T, T_cf = situation_distance_transform(X, cf, normalize="std")
    centres = T_cf[row.complainants]
    farthest = [np.abs(T[g] - centres[:, None, :]).sum(axis=2).max(axis=1) for g in (row.test, bitwise.test)]
    np.testing.assert_allclose(farthest[0], farthest[1], rtol=0, atol=1e-12)   # the same k-th distance
    assert (row.test != bitwise.test).any()   # yet other members among the tied candidates


def test_normalize_unknown_is_rejected():
    with pytest.raises(ValueError, match=r"normalize='minmax' must be 'range'.*or 'std'"):
        situation_testing(X6, P6, Y6, k=1, normalize="minmax")


def test_normalize_none_is_rejected():
    with pytest.raises(ValueError, match="normalize=None must be"):
        situation_distance_transform(X6, normalize=None)


def test_cf_scaling_unknown_is_rejected():
    with pytest.raises(ValueError, match=r"cf_scaling='own' must be 'factual'.*or 'refit'"):
        build_groups(X6, P6, k=1, X_cf=X6, cf_scaling="own")


def test_cf_scaling_refit_without_counterfactuals_is_rejected():
    with pytest.raises(ValueError, match="cf_scaling='refit' re-fits the normalisation.*X_cf is not given"):
        situation_testing(X6, P6, Y6, k=1, cf_scaling="refit")


def test_cf_scaling_refit_without_counterfactuals_is_rejected_by_the_transform():
    with pytest.raises(ValueError, match="cf_scaling='refit'.*pass X_cf"):
        situation_distance_transform(X6, cf_scaling="refit")


def test_ties_unknown_is_rejected():
    with pytest.raises(ValueError, match=r"ties='random' must be 'row'.*or 'bitwise'"):
        situation_testing(X6, P6, Y6, k=1, ties="random")


# --- Scale (issue 17): the cKDTree search in chunks must give exactly the groups of the original search ---

legacy_adapter = _k_nearest_naive  # the search before issue 17, kept in the package as the reference


def legacy(function, *args, **kwargs):
    """``function`` (build_groups or situation_testing) run with the legacy neighbour search."""
    import recourselab.situation_testing.testing as module

    saved = module._k_nearest
    module._k_nearest = legacy_adapter
    try:
        return function(*args, **kwargs)
    finally:
        module._k_nearest = saved


OPTIONS = [dict(), dict(normalize="std"), dict(ties="bitwise"), dict(normalize="std", ties="bitwise"),
           dict(counterfactual=True), dict(counterfactual=True, normalize="std", cf_scaling="refit"),
           dict(counterfactual=True, normalize="std", cf_scaling="refit", ties="bitwise"),
           dict(counterfactual=True, ties="bitwise")]


@st.composite
def tied_tables(draw):
    """Integer-valued columns (1 to 4 of them, 2 to 5 levels) and maybe a category: many tied distances."""
    n = draw(st.integers(12, 90))
    p = draw(st.integers(1, 4))
    levels = draw(st.integers(2, 5))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.integers(0, levels, size=(n, p)).astype(float), columns=[f"c{j}" for j in range(p)])
    if draw(st.booleans()):
        frame["colour"] = rng.choice(["red", "blue", "green"], size=n)
    protected = rng.random(n) < draw(st.floats(0.2, 0.8))
    protected[:3], protected[-3:] = True, False
    shift = rng.integers(0, 2, size=(n, p)).astype(float)
    frame_cf = frame.copy()
    frame_cf[frame.columns[:p]] = frame.iloc[:, :p].to_numpy() + shift
    k = draw(st.integers(1, min(int(protected.sum()) - 1, int((~protected).sum()), 12)))
    return frame, frame_cf, protected, rng.random(n) < 0.5, k


@given(tied_tables(), st.sampled_from(OPTIONS), st.integers(1, 40), st.sampled_from([0, 1, 2, 32]),
       st.sampled_from([1, 7, 1000]))
def test_chunked_ckdtree_search_equals_the_legacy_search_on_tied_data(data, options, chunk_size, max_spare, pilot):
    import recourselab.situation_testing.testing as module

    frame, frame_cf, protected, _, k = data
    options = dict(options)
    X_cf = frame_cf if options.pop("counterfactual", False) else None
    expected = legacy(build_groups, frame, protected, k=k, X_cf=X_cf, **options)
    saved = module._MAX_SPARE, module._PILOT
    module._MAX_SPARE, module._PILOT = max_spare, pilot   # 0 spare neighbours: every query takes the radius path
    try:
        got = build_groups(frame, protected, k=k, X_cf=X_cf, chunk_size=chunk_size, **options)
    finally:
        module._MAX_SPARE, module._PILOT = saved
    np.testing.assert_array_equal(got.control, expected.control)
    np.testing.assert_array_equal(got.test, expected.test)


@pytest.fixture(scope="module")
def loan_slice():
    """A 20,000-row slice of the benchmark's synthetic loan table (salary on a grid of 500s: tied distances)."""
    from recourselab.datasets import make_loan_scm

    world = make_loan_scm(20_000, random_state=3)
    X = world.frame[list(world.features)].assign(
        age=np.random.default_rng(3).integers(18, 76, size=20_000).astype(float))
    cf = world.true_counterfactual({"gender": 0})
    X_cf = X.assign(**{c: cf[c] for c in world.features})
    return (X, X_cf, world.frame["gender"].to_numpy() == 1, world.frame[world.target].to_numpy(),
            cf[world.target].to_numpy())


@pytest.mark.parametrize("options", [dict(), dict(counterfactual=True, include_centers=True),
                                     dict(counterfactual=True, normalize="std", cf_scaling="refit",
                                          ties="bitwise")])
def test_situation_testing_at_scale_equals_the_legacy_search(loan_slice, options):
    X, X_cf, protected, y_hat, y_cf = loan_slice
    options = dict(options)
    if options.pop("counterfactual", False):
        options.update(X_cf=X_cf, y_hat_cf=y_cf)
    expected = legacy(situation_testing, X, protected, y_hat, k=15, **options)
    got = situation_testing(X, protected, y_hat, k=15, chunk_size=3000, **options)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)


def test_threads_give_the_same_groups(loan_slice):
    X, X_cf, protected, _, _ = loan_slice
    one = build_groups(X.iloc[:4000], protected[:4000], k=15, X_cf=X_cf.iloc[:4000])
    two = build_groups(X.iloc[:4000], protected[:4000], k=15, X_cf=X_cf.iloc[:4000], n_jobs=2, chunk_size=500)
    np.testing.assert_array_equal(one.control, two.control)
    np.testing.assert_array_equal(one.test, two.test)


def test_a_local_dask_cluster_gives_the_same_results(loan_slice):
    pytest.importorskip("distributed", reason="the Dask route needs dask[distributed]: pip install recourselab[dask]")
    import joblib
    from distributed import Client, LocalCluster, get_task_stream

    X, X_cf, protected, y_hat, y_cf = (v[:5000] for v in loan_slice)
    options = dict(X_cf=X_cf, y_hat_cf=y_cf, include_centers=True)
    expected = situation_testing(X, protected, y_hat, k=15, **options)
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster, \
            Client(cluster) as client, get_task_stream(client) as stream:
        with joblib.parallel_config(backend="dask"):
            got = situation_testing(X, protected, y_hat, k=15, chunk_size=400, **options)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert len(stream.data) >= 2   # the chunks of both searches ran as Dask tasks (joblib may batch them)


def test_progress_bar_reports_the_chunks_and_changes_nothing(capsys):
    X = pd.DataFrame({"a": np.arange(40.0) % 7, "b": np.arange(40.0) % 3})
    protected = np.arange(40) % 2 == 0
    quiet = build_groups(X, protected, k=3)
    shown = build_groups(X, protected, k=3, chunk_size=5, progress=True)
    err = capsys.readouterr().err
    assert "situation testing" in err and "8/8" in err   # 20 complainants in chunks of 5, two searches
    np.testing.assert_array_equal(quiet.control, shown.control)
    np.testing.assert_array_equal(quiet.test, shown.test)


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, "2"])
def test_bad_n_jobs_is_rejected(n_jobs):
    with pytest.raises(ValueError, match=rf"n_jobs={n_jobs!r} must be None.*a positive integer"):
        situation_testing(X6, P6, Y6, k=1, n_jobs=n_jobs)


@pytest.mark.parametrize("chunk_size", [0, -5, 2.0, False])
def test_bad_chunk_size_is_rejected(chunk_size):
    with pytest.raises(ValueError, match=rf"chunk_size={chunk_size!r} must be None.*integer >= 1"):
        build_groups(X6, P6, k=1, chunk_size=chunk_size)


def test_progress_must_be_a_bool():
    with pytest.raises(TypeError, match="progress='yes' must be True or False"):
        situation_testing(X6, P6, Y6, k=1, progress="yes")


def test_n_jobs_minus_one_uses_all_cores_and_changes_nothing():
    assert build_groups(X6, P6, k=1, n_jobs=-1).control.tolist() == build_groups(X6, P6, k=1).control.tolist()

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from recourselab.features import Encoder, FeatureSpec
from recourselab.group_counterfactuals.burden import (
    attribute_change_frequency,
    auc_table,
    cauc,
    cost_grid,
    dauc,
    group_vs_individual_cost,
    k_grid,
    kauc,
    minimum_resources,
    minimum_resources_table,
    nice_values,
)


@st.composite
def cost_matrices(draw, max_rows=7, max_cols=6):
    n, m = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    values = draw(st.lists(st.one_of(st.just(np.inf), st.integers(1, 20).map(lambda v: v / 4)),
                           min_size=n * m, max_size=n * m))
    return np.array(values, dtype=float).reshape(n, m)


def brute_cover(C, k, d):
    """Best coverage of any |S| <= k within threshold d."""
    best = 0
    for size in range(1, min(k, C.shape[1]) + 1):
        for S in itertools.combinations(range(C.shape[1]), size):
            sub = C[:, list(S)]
            best = max(best, int(((sub <= d) & np.isfinite(sub)).any(axis=1).sum()))
    return best


def brute_radius(C, k, need):
    """Smallest max cost covering `need` rows with |S| <= k (inf if impossible)."""
    best = np.inf
    for size in range(1, min(k, C.shape[1]) + 1):
        for S in itertools.combinations(range(C.shape[1]), size):
            cheapest = np.sort(C[:, list(S)].min(axis=1))
            if need <= len(cheapest) and np.isfinite(cheapest[need - 1]):
                best = min(best, cheapest[need - 1])
    return best


@given(cost_matrices())
def test_k0_and_d0_match_brute_force(C):
    result = minimum_resources(C, method="mip")
    coverable = np.isfinite(C).any(axis=1)
    assert result.n_coverable == coverable.sum()
    if not coverable.any():
        assert result.k0 == 0 and result.d0 == 0.0
        return
    Cc = C[coverable]
    smallest = next(k for k in range(1, C.shape[1] + 1) if brute_cover(Cc, k, np.inf) == len(Cc))
    assert result.k0 == smallest and result.status == "optimal"
    assert np.isfinite(Cc[:, result.selected]).any(axis=1).all()
    # d0: the least threshold at which some set (any size) covers everyone
    assert result.d0 == min(d for d in np.unique(Cc[np.isfinite(Cc)]) if brute_cover(Cc, Cc.shape[1], d) == len(Cc))
    greedy = minimum_resources(C, method="greedy")
    assert greedy.k0 >= result.k0 and greedy.d0 == result.d0


@given(cost_matrices(max_rows=6, max_cols=5), st.integers(1, 3))
def test_kauc_is_the_normalised_area_of_optimal_coverage(C, k):
    coverable = np.isfinite(C).any(axis=1)
    if not coverable.any():
        with pytest.raises(ValueError, match="undefined"):
            kauc(C, k, [0.5, 1.0])
        return
    grid = np.array([0.25, 1.0, 2.5, 5.0])
    result = kauc(C, k, grid, method="mip")
    share = np.array([brute_cover(C[coverable], k, d) for d in grid]) / coverable.sum()
    np.testing.assert_allclose(result.curve["coverage"], share)
    assert result.score == pytest.approx(np.trapezoid(share, grid) / (grid[-1] - grid[0]))
    assert 0 <= result.score <= 1
    assert result.best == share.max()
    assert result.saturation == grid[np.argmax(share == share.max())]


@given(cost_matrices(max_rows=6, max_cols=5), st.sampled_from([0.5, 1.0, 3.0]))
def test_dauc_is_the_normalised_area_over_k(C, d):
    coverable = np.isfinite(C).any(axis=1)
    if not coverable.any():
        return
    grid = [1, 2, 3]
    result = dauc(C, d, grid, method="mip")
    share = np.array([brute_cover(C[coverable], k, d) for k in grid]) / coverable.sum()
    np.testing.assert_allclose(result.curve["coverage"], share)
    assert result.score == pytest.approx(np.trapezoid(share, grid) / 2)
    assert result.saturation == grid[np.argmax(share == share.max())]


@given(cost_matrices(max_rows=6, max_cols=5), st.sampled_from([0.25, 0.5, 1.0]))
def test_cauc_integrates_the_optimal_radius_capped_at_the_ceiling(C, c):
    coverable = np.isfinite(C).any(axis=1)
    if not coverable.any():
        return
    Cc = C[coverable]
    need = int(np.ceil(c * len(Cc) - 1e-9))
    ceiling = float(Cc[np.isfinite(Cc)].max())
    grid = [1, 2, 3]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = cauc(C, c, grid, method="mip")
    expected = np.array([brute_radius(Cc, k, need) for k in grid])
    np.testing.assert_allclose(result.curve["cost"], expected)
    capped = np.minimum(expected, ceiling)
    assert result.score == pytest.approx(np.trapezoid(capped, grid) / (2 * ceiling) if ceiling > 0 else 0)
    assert 0 <= result.score <= 1
    if np.isfinite(expected).any():
        assert result.best == expected.min()
        assert result.saturation == grid[np.argmax(expected == expected.min())]
    else:
        assert np.isinf(result.best) and np.isnan(result.saturation)


def test_grids():
    C = np.array([[0.0, 2.0], [np.inf, 4.0]])
    np.testing.assert_allclose(cost_grid(C, 3), [2.0, 3.0, 4.0])
    assert k_grid(5, 12).tolist() == [1, 2, 3, 4, 5]
    assert k_grid(30, 4).tolist() == [1, 11, 20, 30]
    with pytest.raises(ValueError, match="k_max=0"):
        k_grid(0)
    with pytest.raises(ValueError, match="no finite cost"):
        cost_grid(np.full((2, 2), np.inf))
    with pytest.raises(ValueError, match="strictly increasing"):
        kauc(C, 1, [2.0, 1.0])
    with pytest.raises(ValueError, match="integers >= 1"):
        dauc(C, 1.0, [0, 1])
    with pytest.raises(ValueError, match=r"c=1.5 must lie in \(0, 1\]"):
        cauc(C, 1.5)


def test_minimum_resources_table_by_group_and_subgroup():
    inf = np.inf
    C = np.array([
        [1.0, inf, inf],   # group a, subgroup 0
        [2.0, inf, inf],   # group a, subgroup 0
        [inf, 0.5, inf],   # group a, subgroup 1
        [inf, inf, 3.0],   # group b, subgroup 2
        [inf, inf, inf],   # group b, not coverable
    ])
    table = minimum_resources_table(C, ["a", "a", "a", "b", "b"], [0, 0, 1, 2, 3])
    assert table.loc[("a", "all"), "k0"] == 2 and table.loc[("a", "all"), "d0"] == 2.0
    assert table.loc[("a", 0), "k0"] == 1 and table.loc[("a", 1), "d0"] == 0.5
    assert table.loc[("b", "all"), "coverable"] == 1 and table.loc[("b", "all"), "factuals"] == 2
    assert ("b", 3) not in table.index  # a subgroup nobody in it can be helped is not a row
    with pytest.raises(ValueError, match="give one label per factual"):
        minimum_resources_table(C, ["a"])


def test_auc_table_has_one_row_per_metric_and_parameter():
    rng = np.random.default_rng(0)
    C = np.where(rng.random((12, 6)) < 0.5, rng.random((12, 6)) * 3, np.inf)
    C[:, 0] = 1.0
    table = auc_table(C, np.repeat(["f", "m"], 6), k_values=[1, 2], d_values=[1.0, 2.0], c_values=[0.5, 1.0])
    assert list(table.index.get_level_values(0)) == ["kAUC"] * 2 + ["dAUC"] * 2 + ["cAUC"] * 2
    assert set(table.columns.get_level_values(0)) == {"f", "m", "shared scale"}
    assert set(table["shared scale"].columns) == {"grid", "normalised by"}
    assert ((table.xs("score", axis=1, level=1) >= 0) & (table.xs("score", axis=1, level=1) <= 1)).all().all()


def test_attribute_change_frequency_counts_changed_features_of_covered_factuals():
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("job", "categorical"),
             FeatureSpec("sex", "binary", "immutable", order=["f", "m"])]
    frame = pd.DataFrame({"age": [20, 30, 20, 40], "job": ["a", "a", "b", "b"], "sex": ["f", "f", "f", "f"]})
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    factuals, candidates = Z[:3], Z[[1, 3]]
    # factual 0 -> candidate 0 (age changes), factual 1 -> candidate 1 (age and job), factual 2 uncovered
    table = attribute_change_frequency(enc, factuals, candidates, [0, 1, -1])
    assert table.loc["all", "covered"] == 2
    assert table.loc["all", ["age", "job", "sex"]].tolist() == [1.0, 0.5, 0.0]
    by_group = attribute_change_frequency(enc, factuals, candidates, [0, 1, -1], groups=["x", "y", "y"])
    assert by_group.loc["x", "job"] == 0.0 and by_group.loc["y", "job"] == 1.0
    with pytest.raises(ValueError, match="one entry per factual"):
        attribute_change_frequency(enc, factuals, candidates, [0, 1])
    with pytest.raises(ValueError, match="outside the candidates"):
        attribute_change_frequency(enc, factuals, candidates, [0, 5, -1])


def test_group_cost_is_never_below_the_individual_optimum_and_meets_it_with_enough_k():
    rng = np.random.default_rng(7)
    C = np.where(rng.random((10, 6)) < 0.6, rng.random((10, 6)) * 4, np.inf)
    C[:, 0] = np.where(np.isfinite(C[:, 0]), C[:, 0], 3.0)  # everyone can reach candidate 0
    table = group_vs_individual_cost(C, [1, 2, 6])
    assert (table["group mean cost"] >= table["individual mean cost"] - 1e-12).all()
    assert table["served"].tolist()[0] == 10
    last = table.iloc[-1]  # k = number of candidates: everyone gets their own best
    assert last["extra cost (%)"] == pytest.approx(0.0, abs=1e-9)


# --------------------------------------------------------------------------- group metrics on one scale


def two_groups(seed=3):
    """Two groups of six factuals, costs in quarters; everyone reaches candidate 0, so every c is reachable."""
    rng = np.random.default_rng(seed)
    C = np.where(rng.random((12, 6)) < 0.5, np.round(rng.random((12, 6)) * 12) / 4 + 0.25, np.inf)
    C[:, 0] = np.where(np.isfinite(C[:, 0]), C[:, 0], 3.0)
    return C, np.repeat(["a", "b"], 6)


AUC_PARAMETERS = dict(k_values=[1, 2], d_values=[1.0, 2.0], c_values=[0.25, 0.5, 1.0])


def test_auc_table_scores_every_group_on_one_grid_and_one_ceiling():
    inf = np.inf
    C = np.array([
        [1.0, inf, 2.0],   # group a needs two counterfactuals (k0 = 2), costs up to 2
        [inf, 2.0, inf],
        [1.5, 0.5, inf],
        [inf, inf, 3.0],   # group b needs one (k0 = 1), costs up to 9
        [inf, inf, 9.0],
        [inf, inf, 4.0],
    ])
    groups = np.repeat(["a", "b"], 3)
    # on its own scale, b would be integrated over k = 1 only and a would be divided by 2, b by 9
    assert cauc(C[3:], 1.0).curve["k"].tolist() == [1]
    table = auc_table(C, groups, **AUC_PARAMETERS)
    k_max = 2
    assert table.attrs["d_grid"] == tuple(cost_grid(C).tolist())
    assert table.attrs["k_grid_dauc"] == tuple(k_grid(k_max, 12).tolist())
    assert table.attrs["k_grid_cauc"] == tuple(k_grid(k_max, 25).tolist())
    assert table.attrs["cost_ceiling"] == 9.0
    for g in "ab":
        Cg = C[groups == g]
        for k in AUC_PARAMETERS["k_values"]:
            assert table.loc[("kAUC", k), (g, "score")] == kauc(Cg, k, table.attrs["d_grid"]).score
        for d in AUC_PARAMETERS["d_values"]:
            assert table.loc[("dAUC", d), (g, "score")] == dauc(Cg, d, table.attrs["k_grid_dauc"]).score
        for c in AUC_PARAMETERS["c_values"]:
            shared = cauc(Cg, c, table.attrs["k_grid_cauc"], cost_ceiling=9.0)
            assert table.loc[("cAUC", c), (g, "score")] == shared.score
    # the scale is stated where a reader of the displayed table sees it
    scale = table["shared scale"]
    n_dauc = len(table.attrs["k_grid_dauc"])
    assert scale.loc[("kAUC", 1), "grid"] == f"d: 12 points, {C[np.isfinite(C)].min():.3g}–9"
    assert scale.loc[("dAUC", 1.0), "grid"] == f"k: {n_dauc} points, 1–{k_max}"
    assert scale.loc[("cAUC", 1.0), "normalised by"] == "cost ceiling 9 × k range"
    assert scale.loc[("kAUC", 2), "normalised by"] == "full coverage × d range"


def test_auc_table_with_one_group_equals_the_single_group_defaults():
    C, _ = two_groups()
    table = auc_table(C, np.zeros(len(C), dtype=int), **AUC_PARAMETERS)
    assert table.loc[("kAUC", 2), (0, "score")] == kauc(C, 2).score
    assert table.loc[("dAUC", 1.0), (0, "score")] == dauc(C, 1.0).score
    assert table.loc[("cAUC", 0.5), (0, "score")] == cauc(C, 0.5).score


def test_auc_table_uses_and_states_the_grids_and_ceiling_it_is_given():
    C, groups = two_groups()
    table = auc_table(C, groups, **AUC_PARAMETERS, d_grid=[0.5, 1.0, 4.0], k_grid_dauc=[1, 3], k_grid_cauc=[2, 4],
                      cost_ceiling=20.0)
    assert table.attrs == {"d_grid": (0.5, 1.0, 4.0), "k_grid_dauc": (1, 3), "k_grid_cauc": (2, 4),
                           "cost_ceiling": 20.0}
    Ca = C[groups == "a"]
    assert table.loc[("cAUC", 1.0), ("a", "score")] == cauc(Ca, 1.0, [2, 4], cost_ceiling=20.0).score
    assert table.loc[("dAUC", 2.0), ("a", "saturation")] == dauc(Ca, 2.0, [1, 3]).saturation
    assert table.loc[("kAUC", 1), ("shared scale", "grid")] == "d: 3 points, 0.5–4"
    assert table.loc[("cAUC", 0.25), ("shared scale", "grid")] == "k: 2 points, 2–4"


@pytest.mark.parametrize("ceiling", [20.0, None])
def test_doubling_one_groups_costs_changes_its_cauc_and_leaves_the_others_unchanged(ceiling):
    """The acceptance test of issue 12, with a given ceiling and with the default one."""
    C, groups = two_groups()
    C[8, 5] = 50.0  # group b holds the largest cost, so the default ceiling does not move when a's costs double
    doubled = C.copy()
    doubled[groups == "a"] *= 2
    before = auc_table(C, groups, **AUC_PARAMETERS, cost_ceiling=ceiling)
    after = auc_table(doubled, groups, **AUC_PARAMETERS, cost_ceiling=ceiling)
    assert before.attrs["cost_ceiling"] == after.attrs["cost_ceiling"] == (ceiling or 50.0)
    assert before.loc["cAUC", "b"].equals(after.loc["cAUC", "b"])  # exactly
    a_before, a_after = before.loc["cAUC", ("a", "score")], after.loc["cAUC", ("a", "score")]
    assert (a_after >= a_before).all()  # lower is better: doubled costs never score better
    assert a_after.loc[1.0] > a_before.loc[1.0]
    assert after.loc[("cAUC", 1.0), ("a", "best")] == 2 * before.loc[("cAUC", 1.0), ("a", "best")]


def test_full_coverage_cauc_tells_apart_groups_whose_costs_differ_by_a_factor():
    C, _ = two_groups()
    Ca = C[:6]
    # each group on its own scale (own ceiling, own grid): the factor 2 is invisible, the bug
    assert cauc(Ca, 1.0).score == cauc(2 * Ca, 1.0).score
    table = auc_table(np.vstack([Ca, 2 * Ca]), np.repeat(["a", "b"], 6), k_values=[1], d_values=[1.0],
                      c_values=[1.0])
    a, b = table.loc[("cAUC", 1.0), ("a", "score")], table.loc[("cAUC", 1.0), ("b", "score")]
    assert a < b < 1.0
    assert b == pytest.approx(2 * a)  # no point is capped: the ceiling is b's largest cost


@given(cost_matrices(max_rows=6, max_cols=4), st.sampled_from([0.5, 1.0]), st.sampled_from([1.0, 4.0, 100.0]))
def test_cauc_never_improves_when_costs_double_under_one_ceiling(C, c, ceiling):
    assume(np.isfinite(C).any())
    assert cauc(2 * C, c, [1, 2, 3], cost_ceiling=ceiling).score >= cauc(C, c, [1, 2, 3], cost_ceiling=ceiling).score


@given(cost_matrices(max_rows=8, max_cols=4), st.data())
def test_doubling_one_group_leaves_the_other_groups_auc_rows_unchanged(C, data):
    groups = np.array(data.draw(st.lists(st.sampled_from("ab"), min_size=len(C), max_size=len(C))))
    coverable = np.isfinite(C).any(axis=1)
    assume(all(coverable[groups == g].any() for g in "ab"))
    doubled = C.copy()
    doubled[groups == "a"] *= 2
    kw = dict(k_values=[1], d_values=[1.0], c_values=[0.5, 1.0], d_grid=[0.5, 1.0, 2.0], cost_ceiling=100.0)
    before, after = auc_table(C, groups, **kw), auc_table(doubled, groups, **kw)
    assert before["b"].equals(after["b"])
    assert (after.loc["cAUC", ("a", "score")] >= before.loc["cAUC", ("a", "score")]).all()


def test_auc_table_rejects_a_group_nobody_in_it_can_help():
    C, groups = two_groups()
    C[groups == "b"] = np.inf
    with pytest.raises(ValueError, match="groups: group 'b' has no coverable factual"):
        auc_table(C, groups, **AUC_PARAMETERS)


def test_auc_table_rejects_the_label_of_its_scale_columns():
    C, _ = two_groups()
    with pytest.raises(ValueError, match="'shared scale'"):
        auc_table(C, np.repeat(["a", "shared scale"], 6), **AUC_PARAMETERS)


def test_cost_grid_is_one_threshold_when_every_finite_cost_is_the_same():
    C = np.array([[1.0, np.inf], [1.0, 1.0]])
    assert cost_grid(C).tolist() == [1.0]
    assert kauc(C, 1).score == 1.0


def test_attribute_change_frequency_keeps_a_group_with_no_covered_factual():
    enc, factuals, candidates = acf_example()
    table = attribute_change_frequency(enc, factuals, candidates, [0, 1, -1], groups=["x", "x", "y"])
    assert table.index.tolist() == ["x", "y"]
    assert table.loc["y", "covered"] == 0 and table.loc["y", ["age", "job", "sex"]].isna().all()


# --------------------------------------------------------------------------- bad input


def acf_example():
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("job", "categorical"),
             FeatureSpec("sex", "binary", "immutable", order=["f", "m"])]
    frame = pd.DataFrame({"age": [20, 30, 20, 40], "job": ["a", "a", "b", "b"], "sex": ["f", "f", "f", "f"]})
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    return enc, Z[:3], Z[[1, 3]]


SMALL = np.array([[1.0, np.inf, 3.0], [np.inf, 2.0, 0.5], [2.0, np.inf, np.inf]])


@pytest.mark.parametrize("ceiling", [0.0, -1.0])
def test_cauc_rejects_a_cost_ceiling_that_is_not_positive(ceiling):
    with pytest.raises(ValueError, match=r"cost_ceiling=-?[01]\.0 must be a finite cost > 0"):
        cauc(SMALL, 0.5, cost_ceiling=ceiling)


@pytest.mark.parametrize("ceiling", [np.nan, np.inf])
def test_cauc_rejects_a_nan_or_infinite_cost_ceiling(ceiling):
    with pytest.raises(ValueError, match=r"cost_ceiling=(nan|inf) must be a finite cost > 0"):
        cauc(SMALL, 0.5, cost_ceiling=ceiling)


def test_cauc_rejects_a_cost_ceiling_that_is_not_a_number():
    with pytest.raises(TypeError, match="cost_ceiling=True must be a number"):
        cauc(SMALL, 0.5, cost_ceiling=True)


def test_cauc_default_ceiling_of_all_zero_costs_is_an_error():
    with pytest.raises(ValueError, match="default cost_ceiling .* is 0"):
        cauc(np.array([[0.0, np.inf], [np.inf, 0.0]]), 1.0)


def test_auc_table_rejects_a_bad_cost_ceiling():
    C, groups = two_groups()
    with pytest.raises(ValueError, match="cost_ceiling=0.0"):
        auc_table(C, groups, **AUC_PARAMETERS, cost_ceiling=0.0)


def test_kauc_rejects_a_fractional_k():
    with pytest.raises(TypeError, match=r"k=2.7 must be an integer"):
        kauc(SMALL, 2.7)


def test_kauc_rejects_a_bool_k():
    with pytest.raises(TypeError, match=r"k=True must be an integer"):
        kauc(SMALL, True)


def test_kauc_rejects_k_below_one():
    with pytest.raises(ValueError, match=r"k=0 must be at least 1"):
        kauc(SMALL, 0)


def test_kauc_accepts_a_numpy_integer_k():
    assert kauc(SMALL, np.int64(2)).score == kauc(SMALL, 2).score


def test_dauc_rejects_a_fractional_k_values_entry():
    with pytest.raises(TypeError, match=r"k_values\[1\]=2.5 must be an integer"):
        dauc(SMALL, 1.0, [1, 2.5])


def test_dauc_rejects_bool_k_values():
    with pytest.raises(TypeError, match=r"k_values\[0\]=True must be an integer"):
        dauc(SMALL, 1.0, [True, 2])


def test_cauc_rejects_a_fractional_k_values_entry():
    with pytest.raises(TypeError, match=r"k_values\[0\]=1.5 must be an integer"):
        cauc(SMALL, 1.0, np.array([1.5, 2.0]))


@pytest.mark.parametrize("d", [np.nan, -1.0, np.inf])
def test_dauc_rejects_a_threshold_that_is_not_a_finite_cost(d):
    with pytest.raises(ValueError, match=r"d=(nan|-1.0|inf) must be a finite cost >= 0"):
        dauc(SMALL, d)


def test_cost_grid_rejects_a_fractional_n():
    with pytest.raises(TypeError, match=r"n=2.7 must be an integer"):
        cost_grid(SMALL, 2.7)


def test_cost_grid_rejects_a_nan_start():
    with pytest.raises(ValueError, match=r"start=nan must be a finite cost"):
        cost_grid(SMALL, start=np.nan)


def test_k_grid_rejects_a_fractional_k_max():
    with pytest.raises(TypeError, match=r"k_max=5.5 must be an integer"):
        k_grid(5.5)


def test_k_grid_rejects_a_fractional_n():
    with pytest.raises(TypeError, match=r"n=3.5 must be an integer"):
        k_grid(5, 3.5)


def test_k_grid_rejects_n_below_two():
    with pytest.raises(ValueError, match=r"n=0 must be at least 2"):
        k_grid(5, 0)


def test_nice_values_rejects_a_fractional_n():
    with pytest.raises(TypeError, match=r"n=4.5 must be an integer"):
        nice_values(0.0, 1.0, 4.5)


def test_auc_table_rejects_a_fractional_k_values_entry():
    C, groups = two_groups()
    with pytest.raises(TypeError, match=r"k_values\[1\]=2.7 must be an integer"):
        auc_table(C, groups, k_values=[1, 2.7], d_values=[1.0], c_values=[1.0])


@pytest.mark.parametrize("name", ["k_grid_dauc", "k_grid_cauc"])
def test_auc_table_rejects_a_fractional_k_grid_entry(name):
    C, groups = two_groups()
    with pytest.raises(TypeError, match=rf"{name}\[1\]=1.5 must be an integer"):
        auc_table(C, groups, **AUC_PARAMETERS, **{name: [1, 1.5]})


def test_auc_table_rejects_a_c_value_outside_zero_one():
    C, groups = two_groups()
    with pytest.raises(ValueError, match=r"c_values\[1\]=1.5 must lie in \(0, 1\]"):
        auc_table(C, groups, k_values=[1], d_values=[1.0], c_values=[0.5, 1.5])


def test_auc_table_rejects_a_nan_d_value():
    C, groups = two_groups()
    with pytest.raises(ValueError, match=r"d_values\[0\]=nan must be a finite cost"):
        auc_table(C, groups, k_values=[1], d_values=[np.nan], c_values=[0.5])


def test_group_vs_individual_cost_rejects_a_fractional_k_values_entry():
    with pytest.raises(TypeError, match=r"k_values\[1\]=1.5 must be an integer"):
        group_vs_individual_cost(SMALL, [1, 1.5])


def test_attribute_change_frequency_rejects_a_fractional_assignment():
    enc, factuals, candidates = acf_example()
    with pytest.raises(TypeError, match=r"assignment\[1\]=1.5 must be an integer"):
        attribute_change_frequency(enc, factuals, candidates, [0, 1.5, -1])


@pytest.mark.parametrize("missing", [None, np.nan])
def test_attribute_change_frequency_rejects_missing_group_labels(missing):
    enc, factuals, candidates = acf_example()
    with pytest.raises(ValueError, match=r"groups has missing labels \(None or NaN; first at position 1;"):
        attribute_change_frequency(enc, factuals, candidates, [0, 1, -1], groups=["x", missing, "y"])


@pytest.mark.parametrize("missing", [None, np.nan])
def test_minimum_resources_table_rejects_missing_group_labels(missing):
    with pytest.raises(ValueError, match=r"groups has missing labels \(None or NaN; first at position 2;"):
        minimum_resources_table(SMALL, ["a", "b", missing])


def test_minimum_resources_table_rejects_missing_subgroup_labels():
    with pytest.raises(ValueError, match=r"subgroups has missing labels \(None or NaN; first at position 0;"):
        minimum_resources_table(SMALL, ["a", "b", "b"], [np.nan, 1.0, 2.0])


@pytest.mark.parametrize("missing", [None, np.nan])
def test_auc_table_rejects_missing_group_labels(missing):
    C, groups = two_groups()
    groups = groups.astype(object)
    groups[4] = missing
    with pytest.raises(ValueError, match=r"groups has missing labels \(None or NaN; first at position 4;"):
        auc_table(C, groups, **AUC_PARAMETERS)


def test_a_missing_label_in_a_series_is_reported_with_its_index_label():
    groups = pd.Series(["a", "b", None], index=[10, 11, 12])
    with pytest.raises(ValueError, match=r"first at position 2, index label 12;"):
        minimum_resources_table(SMALL, groups)


@pytest.mark.parametrize("function", [minimum_resources, lambda C: kauc(C, 1), lambda C: cauc(C, 1.0),
                                      lambda C: auc_table(C, ["a", "b", "b"], **AUC_PARAMETERS)])
def test_a_nan_cost_is_a_clear_error(function):
    C = SMALL.copy()
    C[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"C has NaN costs \(first at row 1, column 2\); use np.inf"):
        function(C)


# --------------------------------------------------------------------------- time limits bound the whole call


class _SolveClock:
    """Stands in for ``_mip.clock``: time moves only when a CBC solve of burden or groupcf returns."""

    def __init__(self, monkeypatch, step):
        import recourselab.group_counterfactuals.burden as burden_module
        import recourselab.group_counterfactuals.selection as groupcf_module
        from recourselab import _mip

        self.now, self.limits = 0.0, []
        monkeypatch.setattr(_mip, "clock", lambda: self.now)
        for module in (burden_module, groupcf_module):
            real = module.solve

            def solve(problem, time_limit, real=real):
                self.limits.append(time_limit)
                out = real(problem, time_limit)
                self.now += step
                return out

            monkeypatch.setattr(module, "solve", solve)


def _two_groups():
    rng = np.random.default_rng(5)
    C = np.round(rng.uniform(0.1, 2.0, (12, 6)), 2)
    C[rng.random(C.shape) < 0.4] = np.inf
    C[:, 0] = np.where(np.isinf(C[:, 0]), 1.9, C[:, 0])  # every factual coverable
    return C, np.array(["a"] * 6 + ["b"] * 6)


def test_kauc_time_limit_bounds_the_whole_curve(monkeypatch):
    C, _ = _two_groups()
    clock = _SolveClock(monkeypatch, step=0.0)
    kauc(C, 2, method="mip", time_limit=5)
    assert len(clock.limits) > 2 and all(t == 5.0 for t in clock.limits)  # time never passed: full limit each
    clock = _SolveClock(monkeypatch, step=3.0)
    with pytest.raises(TimeoutError, match=r"time_limit=5 s ran out before threshold d="):
        kauc(C, 2, method="mip", time_limit=5)
    assert clock.limits == [5.0, 2.0]  # each solve gets the time left; none starts after the deadline


def test_cauc_and_dauc_time_limit_bounds_the_whole_curve(monkeypatch):
    C, _ = _two_groups()
    _SolveClock(monkeypatch, step=10.0)
    with pytest.raises(TimeoutError, match="time_limit=4 s ran out before k="):
        cauc(C, 0.5, [1, 2, 3], method="mip", time_limit=4)
    with pytest.raises(TimeoutError, match="time_limit=4 s ran out before k="):
        dauc(C, 1.0, [1, 2, 3], method="mip", time_limit=4)


def test_minimum_resources_table_marks_rows_the_time_limit_did_not_reach(monkeypatch):
    C, groups = _two_groups()
    _SolveClock(monkeypatch, step=10.0)  # the first set cover uses the whole limit
    with pytest.warns(UserWarning, match=r"ran out before 1 row\(s\) of the table \(first \('b', 'all'\)\)"):
        table = minimum_resources_table(C, groups, time_limit=5)
    assert table.loc[("a", "all"), "status"] == "optimal"
    assert table.loc[("b", "all"), "status"] == "not solved" and np.isnan(table.loc[("b", "all"), "k0"])
    assert table.loc[("b", "all"), "factuals"] == 6


def test_minimum_resources_rejects_a_bad_time_limit():
    C, _ = _two_groups()
    for bad in (0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="time_limit=.* must be a positive number of seconds"):
            minimum_resources(C, time_limit=bad)

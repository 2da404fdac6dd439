import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.burden import (
    attribute_change_frequency,
    group_vs_individual_cost,
    auc_table,
    cauc,
    cost_grid,
    dauc,
    k_grid,
    kauc,
    minimum_resources,
    minimum_resources_table,
)
from recourselab.features import Encoder, FeatureSpec


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
    assert set(table.columns.get_level_values(0)) == {"f", "m"}
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

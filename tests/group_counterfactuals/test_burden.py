"""FACEGroup's burden metrics: k0/d0 tables, AUCs on one shared scale, ACF, time limits (bad input elsewhere)."""


import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from recourselab.features import Encoder, FeatureSpec
from recourselab.group_counterfactuals import (
    attribute_change_frequency,
    auc_table,
    cauc,
    cost_grid,
    dauc,
    group_vs_individual_cost,
    k_grid,
    kauc,
    min_max_cost,
    minimum_resources_table,
)


@st.composite
def cost_matrices(draw, max_rows=7, max_cols=6):
    n, m = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    values = draw(st.lists(st.one_of(st.just(np.inf), st.integers(1, 20).map(lambda v: v / 4)),
                           min_size=n * m, max_size=n * m))
    return np.array(values, dtype=float).reshape(n, m)


def test_grids():
    C = np.array([[0.0, 2.0], [np.inf, 4.0]])
    np.testing.assert_allclose(cost_grid(C, 3), [2.0, 3.0, 4.0])
    assert k_grid(5, 12).tolist() == [1, 2, 3, 4, 5]
    assert k_grid(30, 4).tolist() == [1, 11, 20, 30]
    assert kauc(C, np.int64(1)).score == kauc(C, 1).score  # a numpy integer k is a k


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
    assert table.attrs["advice"] == "relaxation"


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
    assert table.attrs["advice"] == by_group.attrs["advice"] == "relaxation"


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
                           "cost_ceiling": 20.0, "advice": "relaxation"}
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


@given(cost_matrices(max_rows=7, max_cols=5), st.sampled_from([0.25, 0.5, 1.0]))
def test_greedy_cauc_curve_is_min_max_cost_at_each_k(C, c):
    # cauc shares one farthest-first search across k; it must give min_max_cost's answer at every k
    C_cov = C[np.isfinite(C).any(axis=1)]
    assume(len(C_cov) > 0)
    ks = list(range(1, C.shape[1] + 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # infeasible k
        each = [min_max_cost(C_cov, k, c) for k in ks]
    expected = [r.cost if r.status != "infeasible" else np.inf for r in each]
    assert cauc(C, c, ks, cost_ceiling=100.0).curve["cost"].tolist() == expected


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


def test_cost_grid_is_one_threshold_when_every_finite_cost_is_the_same():
    C = np.array([[1.0, np.inf], [1.0, 1.0]])
    assert cost_grid(C).tolist() == [1.0]
    assert kauc(C, 1).score == 1.0


def test_attribute_change_frequency_keeps_a_group_with_no_covered_factual():
    enc, factuals, candidates = acf_example()
    table = attribute_change_frequency(enc, factuals, candidates, [0, 1, -1], groups=["x", "x", "y"])
    assert table.index.tolist() == ["x", "y"]
    assert table.loc["y", "covered"] == 0 and table.loc["y", ["age", "job", "sex"]].isna().all()


# --------------------------------------------------------------------------- helpers


def acf_example():
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("job", "categorical"),
             FeatureSpec("sex", "binary", "immutable", order=["f", "m"])]
    frame = pd.DataFrame({"age": [20, 30, 20, 40], "job": ["a", "a", "b", "b"], "sex": ["f", "f", "f", "f"]})
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    return enc, Z[:3], Z[[1, 3]]


# --------------------------------------------------------------------------- time limits bound the whole call


class _SolveClock:
    """Stands in for ``_mip.clock``: time moves only when a CBC solve of burden (set cover) or of the selections
    returns."""

    def __init__(self, monkeypatch, step):
        import recourselab.group_counterfactuals._exact as exact_module
        import recourselab.group_counterfactuals.burden as burden_module
        from recourselab import _mip

        self.now, self.limits = 0.0, []
        monkeypatch.setattr(_mip, "clock", lambda: self.now)
        for module in (burden_module, exact_module):
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

"""shares_by_stratum against counts made by hand, its input checks, and the figure that draws it."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from scipy.stats import binomtest  # noqa: E402

from recourselab.stratified import newcombe_interval, shares_by_stratum  # noqa: E402
from recourselab.viz import plot_shares_by_stratum  # noqa: E402

FOUND = np.array([1, 0, 1, 1, 0, 0, 1, 1, 0, 1], dtype=bool)
LABELS = np.array(["w", "w", "m", "m", "w", "m", "w", "m", "x", "m"], dtype=object)
STRATA = np.array(["a", "a", "a", "b", "b", "b", "b", "a", "a", "b"], dtype=object)


def test_counts_shares_and_intervals_by_hand():
    t = shares_by_stratum(FOUND, LABELS, STRATA, group="w", reference="m")
    assert list(t.index) == ["a", "b", "all"]
    # stratum a: women rows 0, 1 (found 1 of 2); men rows 2, 7 (2 of 2); the "x" row is left out
    assert (t.loc["a", ("w", "n")], t.loc["a", ("w", "found")]) == (2, 1)
    assert (t.loc["a", ("m", "n")], t.loc["a", ("m", "found")]) == (2, 2)
    # all: women 0, 1, 4, 6 (2 of 4); men 2, 3, 5, 7, 9 (4 of 5)
    assert (t.loc["all", ("w", "n")], t.loc["all", ("w", "found")]) == (4, 2)
    assert (t.loc["all", ("m", "n")], t.loc["all", ("m", "found")]) == (5, 4)
    for row, (kw, nw, km, nm) in {"a": (1, 2, 2, 2), "b": (1, 2, 2, 3), "all": (2, 4, 4, 5)}.items():
        ci = binomtest(kw, nw).proportion_ci(method="wilson")
        assert t.loc[row, ("w", "share")] == pytest.approx(kw / nw)
        assert (t.loc[row, ("w", "low")], t.loc[row, ("w", "high")]) == pytest.approx((ci.low, ci.high))
        assert t.loc[row, ("difference", "share")] == pytest.approx(kw / nw - km / nm)
        assert (t.loc[row, ("difference", "low")], t.loc[row, ("difference", "high")]) == pytest.approx(
            newcombe_interval(kw, nw, km, nm))


def test_without_strata_only_the_overall_row():
    t = shares_by_stratum(FOUND, LABELS, group="w", reference="m")
    with_strata = shares_by_stratum(FOUND, LABELS, STRATA, group="w", reference="m")
    assert list(t.index) == ["all"]
    pd.testing.assert_series_equal(t.loc["all"], with_strata.loc["all"])


def test_a_stratum_without_one_group_gets_nan():
    t = shares_by_stratum([1, 0, 1], ["w", "m", "w"], ["a", "a", "b"], group="w", reference="m")
    assert t.loc["b", ("m", "n")] == 0 and np.isnan(t.loc["b", ("m", "share")])
    assert np.isnan(t.loc["b", [("difference", "share"), ("difference", "low"), ("difference", "high")]]
                    .to_numpy(float)).all()
    assert t.loc["b", ("w", "share")] == 1.0


def test_confidence_widens_and_inputs_are_not_mutated():
    found, labels, strata = pd.Series(FOUND), pd.Series(LABELS), pd.Series(STRATA)
    before = found.copy(), labels.copy(), strata.copy()
    t95 = shares_by_stratum(found, labels, strata, group="w", reference="m")
    t80 = shares_by_stratum(found, labels, strata, group="w", reference="m", confidence=0.8)
    assert (t80[("difference", "high")] - t80[("difference", "low")]
            < t95[("difference", "high")] - t95[("difference", "low")]).all()
    for a, b in zip(before, (found, labels, strata), strict=True):
        pd.testing.assert_series_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from("wm"), st.sampled_from("ab")), min_size=2, max_size=40))
def test_counts_add_up_over_strata(rows):
    found, labels, strata = (np.array(c, dtype=object) for c in zip(*rows, strict=True))
    if not {"w", "m"} <= set(labels):
        return
    t = shares_by_stratum(found.astype(bool), labels, strata, group="w", reference="m")
    for g in ("w", "m"):
        assert t.drop(index="all")[(g, "n")].sum() == t.loc["all", (g, "n")] == (labels == g).sum()
        assert t.drop(index="all")[(g, "found")].sum() == t.loc["all", (g, "found")]
        shares = t[(g, "share")].dropna()
        assert ((t.loc[shares.index, (g, "low")] <= shares + 1e-12)
                & (shares <= t.loc[shares.index, (g, "high")] + 1e-12)).all()


@pytest.mark.parametrize("kwargs, error, text", [
    ({"found": [1, np.nan, 0]}, ValueError, "found[1] is missing"),
    ({"found": [1, 2, 0]}, ValueError, "found must be boolean or 0/1"),
    ({"found": None}, TypeError, "found=None"),
    ({"labels": ["w", None, "m"]}, ValueError, "labels has missing labels"),
    ({"labels": ["w", "m"]}, ValueError, "labels has shape (2,)"),
    ({"strata": ["a", np.nan, "b"]}, ValueError, "strata has missing labels"),
    ({"strata": ["all", "a", "a"]}, ValueError, "the label 'all'"),
    ({"group": "z"}, ValueError, "group='z' is not among the labels"),
    ({"reference": "w"}, ValueError, "group and reference are both 'w'"),
    ({"confidence": 1.5}, ValueError, "confidence=1.5"),
    ({"confidence": float("nan")}, ValueError, "confidence=nan"),
    ({"confidence": True}, ValueError, "confidence=True"),
    ({"found": pd.Series([1, 0, 1], index=[5, 6, 7]), "labels": pd.Series(["w", "m", "w"])}, ValueError,
     "different index"),
])
def test_bad_input_is_named(kwargs, error, text):
    arguments = {"found": [1, 0, 1], "labels": ["w", "m", "w"], "strata": None, "group": "w", "reference": "m"}
    arguments |= kwargs
    with pytest.raises(error, match=None) as caught:
        shares_by_stratum(arguments.pop("found"), arguments.pop("labels"), arguments.pop("strata"), **arguments)
    assert text in str(caught.value)


def test_figure_draws_two_bars_per_stratum_with_sizes():
    t = shares_by_stratum(FOUND, LABELS, STRATA, group="w", reference="m")
    ax = plot_shares_by_stratum(t, tick_label="{stratum}: {n_group} w, {n_reference} m", legend_title="sex")
    widths = sorted(round(p.get_width(), 6) for p in ax.patches)
    expected = t.drop(index="all")[[("w", "share"), ("m", "share")]].to_numpy().ravel()
    assert widths == sorted(np.round(expected, 6))
    by_height = sorted(zip(ax.get_yticks(), (label.get_text() for label in ax.get_yticklabels()), strict=True))
    assert [text for _, text in by_height] == ["b: 2 w, 3 m", "a: 2 w, 2 m"]  # the first stratum on top
    assert ax.get_legend().get_title().get_text() == "sex"
    assert [text.get_text() for text in ax.get_legend().get_texts()] == ["w", "m"]
    ax_all = plot_shares_by_stratum(t, include_all=True)
    assert len(ax_all.patches) == 6
    plt.close("all")


def test_figure_refuses_another_table():
    with pytest.raises(TypeError, match="shares_by_stratum returns"):
        plot_shares_by_stratum(pd.DataFrame({"a": [1]}))
    t = shares_by_stratum(FOUND, LABELS, group="w", reference="m")  # only "all"
    with pytest.raises(ValueError, match="include_all=True"):
        plot_shares_by_stratum(t)
    plt.close("all")

import itertools

import numpy as np
import pandas as pd
import pytest

from recourselab.audit import overlap_table, overlap_vs_chance, plant_label_bias, train_on_biased_history


# --------------------------------------------------------------------------- planted bias
def test_plant_label_bias_flips_exactly_the_share_of_protected_favourable_labels():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    protected = rng.random(500) < 0.4
    bias = plant_label_bias(y, protected, 0.3, random_state=1)
    candidates = protected & (y == 1)
    assert bias.n_flipped == round(0.3 * candidates.sum())
    assert not bias.flipped[~candidates].any()  # nobody else is touched
    np.testing.assert_array_equal(bias.labels[~bias.flipped], y[~bias.flipped])
    assert (bias.labels[bias.flipped] == 0).all()
    table = bias.to_frame()
    assert table.loc["protected", "flipped"] == bias.n_flipped and table.loc["other", "flipped"] == 0
    assert table.loc["protected", "favourable (true)"] - table.loc["protected", "favourable (biased)"] == bias.n_flipped
    again = plant_label_bias(y, protected, 0.3, random_state=1)
    np.testing.assert_array_equal(again.flipped, bias.flipped)
    assert plant_label_bias(y, protected, 0.0).n_flipped == 0
    assert plant_label_bias(y, protected, 1.0).n_flipped == candidates.sum()


def test_plant_label_bias_pairs_series_by_index_and_takes_booleans():
    labels = pd.Series([1, 1, 0, 1], index=[10, 11, 12, 13])
    protected = pd.Series([True, True, False, False], index=[10, 11, 12, 13])
    bias = plant_label_bias(labels, protected, 1.0)
    assert bias.flipped.tolist() == [True, True, False, False]
    assert plant_label_bias(labels.astype(bool), protected, 1.0).labels.tolist() == [0, 0, 0, 1]
    with pytest.raises(ValueError, match="protected has a different index from labels"):
        plant_label_bias(labels, protected[::-1], 1.0)
    # by position on purpose: pass an array
    assert plant_label_bias(labels, protected[::-1].to_numpy(), 1.0).flipped.tolist() == [False, False, False, True]


def test_train_on_biased_history_differs_from_the_reference_only_by_the_bias(german):
    history = train_on_biased_history(german, protected_value="female", rate=0.25, random_state=0)
    biased, reference = history.biased, history.reference
    assert list(biased.test.index) == list(reference.test.index)
    np.testing.assert_array_equal(biased.Z_train, reference.Z_train)
    flipped = history.bias.flipped
    assert flipped.sum() > 0
    assert (biased.train["sex"].to_numpy()[flipped] == "female").all()
    np.testing.assert_array_equal(biased.y_train[~flipped], reference.y_train[~flipped])
    assert (biased.y_test == reference.y_test).all()  # test labels stay true
    # the planted penalty shows: the biased model approves fewer women than the reference
    table = history.to_frame()
    assert table.loc["female", "approval (biased)"] < table.loc["female", "approval (reference)"]
    harmed = history.harmed()
    assert harmed.sum() == table.loc["female", "refused, reference approves"] > 0
    assert (biased.test["sex"].to_numpy()[harmed] == "female").all()


# --------------------------------------------------------------------------- overlaps
def test_overlap_matches_brute_force_enumeration():
    a = np.array([1, 1, 1, 0, 0, 0, 0, 1, 0], bool)
    b = np.array([1, 1, 0, 1, 0, 0, 0, 1, 0], bool)
    o = overlap_vs_chance(a, b, n_boot=0)
    n, n_b = len(a), int(b.sum())
    overlaps = [a[list(s)].sum() for s in itertools.combinations(range(n), n_b)]  # every b of this size
    assert o.expected == pytest.approx(np.mean(overlaps))
    assert o.p_value == pytest.approx(np.mean(np.array(overlaps) >= o.observed))
    assert o.observed == 3 and o.n_a == 4 and o.n_b == 4
    dist = np.sort(overlaps)
    assert dist[int(0.025 * len(dist))] >= o.chance_low and o.chance_high >= dist[int(0.975 * len(dist)) - 1]
    assert np.isnan(o.lift_low)


def test_overlap_that_equals_the_base_rate_is_not_agreement():
    # most of the population is flagged by both lenses: a large overlap that chance explains
    rng = np.random.default_rng(0)
    a, b = rng.random(300) < 0.8, rng.random(300) < 0.75
    o = overlap_vs_chance(a, b, random_state=0)
    assert o.observed > 150 and o.verdict == "as by chance"
    assert o.lift_low < 1 < o.lift_high
    # a lens that copies the other agrees far beyond chance
    c = rng.random(300) < 0.2
    copied = overlap_vs_chance(c, c, random_state=0)
    assert copied.verdict == "more than chance" and copied.lift_low > 1 and copied.p_value < 1e-6
    disjoint = overlap_vs_chance(c, ~c, random_state=0)
    assert disjoint.observed == 0 and disjoint.verdict == "less than chance"


def test_overlap_population_restricts_the_count_and_the_expectation():
    a = np.array([1, 1, 0, 0, 1, 1], bool)
    b = np.array([1, 0, 1, 0, 1, 1], bool)
    population = np.array([1, 1, 1, 1, 0, 0], bool)
    o = overlap_vs_chance(a, b, population, n_boot=0)
    assert (o.n, o.n_a, o.n_b, o.observed, o.expected) == (4, 2, 2, 1, 1.0)
    assert o.share_of_a == 0.5 and o.share_of_b == 0.5
    frame = o.to_frame()
    assert frame.loc[0, "verdict"] == "as by chance"


def test_overlap_bootstrap_is_seeded():
    rng = np.random.default_rng(1)
    a, b = rng.random(100) < 0.3, rng.random(100) < 0.3
    one = overlap_vs_chance(a, b, random_state=5)
    two = overlap_vs_chance(a, b, random_state=5)
    assert (one.lift_low, one.lift_high) == (two.lift_low, two.lift_high)
    assert one.lift_low <= one.lift <= one.lift_high


def test_overlap_pairs_series_by_index_or_refuses_them():
    """Issue 22, part 3: flag Series whose indexes disagree were paired by position."""
    a = pd.Series([True, True, False, False], index=list("wxyz"))
    b = pd.Series([True, True, False, False], index=list("wxyz"))
    assert overlap_vs_chance(a, b, n_boot=0).observed == 2
    with pytest.raises(ValueError, match="flags_b has a different index from flags_a"):
        overlap_vs_chance(a, b[::-1], n_boot=0)
    with pytest.raises(ValueError, match="population has a different index from flags_b"):
        overlap_vs_chance(a.to_numpy(), b, pd.Series(True, index=list("abcd")), n_boot=0)
    assert overlap_vs_chance(a, b.loc[a.index[::-1]].loc[a.index], n_boot=0).observed == 2


def test_overlap_table_uses_each_pairs_common_population_and_rejects_flags_outside_it():
    flags = pd.DataFrame({"x": [True, True, False, False, False], "y": [True, False, True, False, True],
                          "z": [False, False, True, True, False]})
    populations = pd.DataFrame({"x": [True] * 5, "y": [True, True, True, True, True],
                                "z": [False, False, True, True, True]})
    table = overlap_table(flags, populations, n_boot=0)
    assert table.loc[("x", "y"), "population"] == 5
    assert table.loc[("x", "z"), "population"] == 3 and table.loc[("x", "z"), "flags A"] == 0
    assert table.loc[("y", "z"), "observed"] == 1
    only = overlap_table(flags, populations, pairs=[("y", "x")], n_boot=0)
    assert list(only.index) == [("y", "x")]
    bad = populations.assign(x=[False, True, True, True, True])
    with pytest.raises(ValueError, match=r"outside their lens's population: \{'x': 1\}"):
        overlap_table(flags, bad)

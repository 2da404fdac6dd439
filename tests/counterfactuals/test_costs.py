"""mad_l1_cost (Wachter et al.) and percentile_shift_cost (Ustun et al.): the formulas by hand."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from recourselab.counterfactuals import mad_l1_cost, percentile_shift_cost

PEOPLE = pd.DataFrame({"age": [20, 30, 40, 50, 60], "debt": [1.0, 2.0, 2.0, 3.0, 9.0],
                       "sex": ["f", "m", "f", "m", "f"]})


def test_mad_l1_cost_divides_each_change_by_the_median_absolute_deviation():
    # age: median 40, deviations 20 10 0 10 20 -> MAD 10; debt: median 2, deviations 1 0 0 1 7 -> MAD 1
    assert mad_l1_cost(PEOPLE, {"age": 30, "debt": 3.0}, {"age": 35, "debt": 2.0}) == pytest.approx(1.5)
    assert mad_l1_cost(PEOPLE, {"age": 30}, {"age": 30}) == 0.0


def test_percentile_shift_cost_is_the_largest_shift_in_the_empirical_distribution():
    # age 30 -> 52: Q from 2/5 to 4/5; debt 9 -> 1: Q from 5/5 to 1/5
    assert percentile_shift_cost(PEOPLE, {"age": 30}, {"age": 52}) == pytest.approx(0.4)
    assert percentile_shift_cost(PEOPLE, pd.Series({"age": 30, "debt": 9.0}),
                                 pd.Series({"age": 52, "debt": 1.0})) == pytest.approx(0.8)


@given(st.floats(-100, 100), st.floats(-100, 100), st.floats(0.1, 10))
def test_mad_cost_is_symmetric_and_scales_with_the_data(a, b, scale):
    ref = PEOPLE.assign(age=PEOPLE["age"] * scale)
    assert mad_l1_cost(ref, {"age": a}, {"age": b}) == pytest.approx(mad_l1_cost(ref, {"age": b}, {"age": a}))
    assert mad_l1_cost(ref, {"age": a * scale}, {"age": b * scale}) == pytest.approx(
        mad_l1_cost(PEOPLE, {"age": a}, {"age": b}), rel=1e-9, abs=1e-9)


@given(st.floats(0, 100), st.floats(0, 100))
def test_percentile_shift_lies_in_the_unit_interval_and_ignores_monotone_rescaling(a, b):
    cost = percentile_shift_cost(PEOPLE, {"age": a}, {"age": b})
    assert 0 <= cost <= 1
    logged = PEOPLE.assign(age=np.log1p(PEOPLE["age"]))
    assert percentile_shift_cost(logged, {"age": np.log1p(a)}, {"age": np.log1p(b)}) == pytest.approx(cost)

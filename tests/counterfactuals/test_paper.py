"""paper.py, the lesson's algorithms written literally, against the engines (and the papers' examples).

* the nearest counterfactual among observed people, row by row, actionable and feasible;
* the weighted projection onto a linear boundary in a box (and, as a check of the literal loop itself,
  a brute force over which features sit on which bound);
* the weighted-L1 greedy against the MIP without steps, and the enumeration of whole steps against the MIP.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recourselab.counterfactuals import NO_COUNTERFACTUAL, _linear, linear_recourse, nearest_counterfactuals
from recourselab.counterfactuals.paper import (
    enumerate_level_recourse,
    greedy_l1_recourse,
    nearest_feasible_counterfactual,
    recourse_to_linear_boundary,
)
from recourselab.features import Encoder, FeatureSpec

INF = math.inf

# --------------------------------------------------------------------------- worked examples


def test_raguel_example_1_with_the_literal_projection():
    # RAGUEL's Table 2 (DESIGN section 5): costs 0.33, 1.00, 1.33, 2.00 to the boundary duration = 2 x amount
    X = [[3.5, 6], [2, 1], [4, 4], [5, 4]]
    costs = [recourse_to_linear_boundary(x, [-2, 1], 0, [0.5, 1.0], [-INF] * 2, [INF] * 2)[1] for x in X]
    assert [round(c, 2) for c in costs] == [0.33, 1.0, 1.33, 2.0]
    engine = linear_recourse(np.array(X, dtype=float), [-2, 1], 0, [0.5, 1.0])
    np.testing.assert_allclose(engine.cost, costs, rtol=1e-8)


def test_the_toy_of_the_lesson_with_the_literal_search():
    toy = pd.DataFrame({"age": [30, 50, 40, 25], "debt": [8.0, 2.0, 3.0, 1.0], "sex": ["f", "m", "f", "m"]})
    specs = [FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous"),
             FeatureSpec("sex", "binary", "immutable", order=["f", "m"])]
    enc = Encoder(specs).fit(toy)
    Z = enc.transform(toy)
    approved = [False, False, True, True]
    j, cost = nearest_feasible_counterfactual(Z[0], Z, approved, enc)  # Ana -> Cleo: 10/25 + 5/7
    assert j == 2 and cost == pytest.approx(10 / 25 + 5 / 7)
    assert nearest_feasible_counterfactual(Z[1], Z, approved, enc) == (None, INF)  # Ben: nobody to become


# --------------------------------------------------------------------------- nearest counterfactual


@st.composite
def dyadic_people(draw):
    """Specs with advice and people whose encoded values and costs are exact in floating point.

    Continuous features hold whole numbers in [0, 8] with 0 and 8 present (so the encoder divides by 8),
    ordinal features have 2, 3 or 5 levels, weights are 0.5, 1 or 2: every cost is a dyadic fraction, so the
    engine's cdist and the literal sum agree to the last bit and ties are real ties.
    """
    n_features = draw(st.integers(1, 4))
    n = draw(st.integers(3, 12))
    specs, columns = [], {}
    for f in range(n_features):
        kind = draw(st.sampled_from(["continuous", "ordinal", "binary", "categorical"]))
        act = draw(st.sampled_from(["free", "immutable"] if kind == "categorical" else
                                   ["free", "increase", "decrease", "immutable"]))
        weight = draw(st.sampled_from([0.5, 1.0, 2.0]))
        name = f"f{f}"
        advise, cap = None, None
        if act == "free" and draw(st.booleans()):
            advise = draw(st.sampled_from(["never", "any"] if kind == "categorical" else
                                          ["never", "increase", "decrease", "any"]))
        if kind == "continuous":
            values = [0, 8] + draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
            if advise != "never" and act != "immutable" and draw(st.booleans()):
                cap = float(draw(st.integers(1, 4)))
            specs.append(FeatureSpec(name, kind, act, weight=weight, advise=advise, max_change=cap))
        else:
            n_levels = {"binary": 2, "categorical": 3}.get(kind) or draw(st.sampled_from([3, 5]))
            levels = list(range(n_levels))
            values = levels[:2] + draw(st.lists(st.sampled_from(levels), min_size=n, max_size=n))
            if kind == "ordinal" and advise != "never" and act != "immutable" and draw(st.booleans()):
                cap = 1.0
            specs.append(FeatureSpec(name, kind, act, weight=weight, order=levels, advise=advise, max_change=cap))
        columns[name] = values
    frame = pd.DataFrame(columns)
    approved = draw(st.lists(st.booleans(), min_size=len(frame), max_size=len(frame)))
    return specs, frame, np.array(approved)


@given(dyadic_people(), st.booleans(), st.sampled_from(["l1", "l2"]))
def test_nearest_counterfactuals_equal_the_literal_search_row_by_row(data, actionable, norm):
    specs, frame, approved = data
    assume(approved.any())
    enc = Encoder(specs).fit(frame)
    Z = enc.transform(frame)
    positions = np.flatnonzero(approved)  # the engine takes the approved candidates only
    res = nearest_counterfactuals(Z, Z[approved], enc, norm=norm, actionable=actionable)
    assert res.advice == ("actionable" if actionable else "relaxation")
    for i in range(len(Z)):
        j, cost = nearest_feasible_counterfactual(Z[i], Z, approved, enc, actionable=actionable, norm=norm)
        if j is None:
            assert res.index[i, 0] == NO_COUNTERFACTUAL and np.isinf(res.best_cost[i])
        else:
            assert positions[res.index[i, 0]] == j  # the same person, ties to the lowest position
            assert res.best_cost[i] == pytest.approx(cost, rel=1e-12, abs=1e-12)


# --------------------------------------------------------------------------- the weighted projection


def brute_force_projection(x, a, b, w, lower, upper):
    """Exact minimum of sum w (x' - x)^2 s.t. a.x' + b >= 0, lower <= x' <= upper, by enumeration.

    At the optimum some features sit on a bound and the others solve the unbounded projection with
    those fixed; trying every set of features at every one of their bounds and keeping the cheapest
    candidate that lies inside the box and reaches the boundary gives the optimum exactly.
    """
    d = len(x)
    if a @ x + b >= 0:
        return 0.0
    best = np.inf
    for pattern in np.ndindex(*([3] * d)):  # 0: free, 1: at lower, 2: at upper
        y = x.copy()
        free = []
        for j, p in enumerate(pattern):
            if p == 1:
                y[j] = lower[j]
            elif p == 2:
                y[j] = upper[j]
            else:
                free.append(j)
        if not np.isfinite(y).all():
            continue
        gap = -(a @ y + b)
        if gap > 0:
            R = sum(a[j] ** 2 / w[j] for j in free)
            if R == 0:
                continue
            for j in free:
                y[j] += gap * a[j] / w[j] / R
        if a @ y + b < -1e-9 or (y < lower - 1e-9).any() or (y > upper + 1e-9).any():
            continue
        best = min(best, float(np.sqrt(np.sum(w * (y - x) ** 2))))
    return best


boxes = st.integers(1, 4).flatmap(lambda d: st.tuples(
    st.lists(st.integers(-4, 4), min_size=d, max_size=d),
    st.lists(st.integers(-3, 3), min_size=d, max_size=d),
    st.integers(-8, 8),
    st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=d, max_size=d),
    st.lists(st.sampled_from([-np.inf, -5.0, -2.0, -1.0, 0.0]), min_size=d, max_size=d),
    st.lists(st.sampled_from([0.0, 1.0, 2.0, 5.0, np.inf]), min_size=d, max_size=d),
))


def parse_box(args):
    x, a, b, w, lo, hi = (np.array(v, dtype=float) for v in args)
    return x, a, float(b), w, np.minimum(lo, x), np.maximum(hi, x)  # the current value is always allowed


def tau_of(a, b):
    """The margin both engines aim at (LinearProblem.slack)."""
    return 1e-9 * (1 + abs(b) + np.abs(a).sum())


@given(boxes)
def test_the_closed_form_equals_the_literal_projection(args):
    x, a, b, w, lo, hi = parse_box(args)
    assume((a != 0).any())
    tau = tau_of(a, b) if a @ x + b < 0 else 0.0  # the engine leaves a row on the boundary where it is
    x_prime, cost = recourse_to_linear_boundary(x, a, b, w, lo, hi, tau)
    if a @ x + b < 0:
        # a box that reaches the boundary but not tau: the engine goes to the bounds, the literal loop gives up
        assume(x_prime is not None or recourse_to_linear_boundary(x, a, b, w, lo, hi, 0.0)[0] is None)
        assert cost == pytest.approx(brute_force_projection(x, a, b - tau, w, lo, hi), rel=1e-9, abs=1e-9)
    res = linear_recourse(x[None, :], a, b, w, bounds=(lo, hi))
    if x_prime is None:
        assert np.isinf(res.cost[0]) and res.status[0] == "infeasible"
    else:
        assert res.cost[0] == pytest.approx(cost, rel=1e-9, abs=1e-12)
        np.testing.assert_allclose(res.X_cf[0], x_prime, rtol=1e-9, atol=1e-9)


# --------------------------------------------------------------------------- the MIP: greedy and enumeration


@settings(max_examples=25)
@given(boxes)
def test_the_mip_without_steps_equals_the_literal_l1_greedy(args):
    x, a, b, w, lo, hi = parse_box(args)
    assume((a != 0).any() and a @ x + b < 0)
    tau = tau_of(a, b)
    x_prime, cost = greedy_l1_recourse(x, a, b, np.sqrt(w), lo, hi, tau)  # the MIP's weights are c_j squared
    assume(x_prime is not None or greedy_l1_recourse(x, a, b, np.sqrt(w), lo, hi, 0.0)[0] is None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # rows without recourse are reported by a warning
        res = linear_recourse(x[None, :], a, b, w, bounds=(lo, hi), method="mip", time_limit=20)
    if x_prime is None:
        assert res.status[0] == "infeasible" and np.isinf(res.cost[0])
    else:
        assert res.status[0] == "optimal"
        assert res.objective[0] == pytest.approx(cost, rel=1e-6, abs=1e-6)
        # the same margin as the closed form (less the rounding of x + delta, far below tau's size)
        assert _linear.margin(res.X_cf, a, b)[0] >= tau - 1e-12


def test_the_literal_functions_aim_at_tau():
    # a score of 1 is short of tau = 2: the person must move; a score of -1 already reaches tau = -3
    box = [-INF], [INF]
    assert greedy_l1_recourse([1.0], [1.0], 0.0, [1.0], *box, tau=2.0) == ([2.0], 1.0)
    assert greedy_l1_recourse([-1.0], [1.0], 0.0, [1.0], *box, tau=-3.0) == ([-1.0], 0.0)
    assert recourse_to_linear_boundary([1.0], [1.0], 0.0, [1.0], *box, tau=2.0) == ([2.0], 1.0)
    assert recourse_to_linear_boundary([-1.0], [1.0], 0.0, [1.0], *box, tau=-3.0) == ([-1.0], 0.0)
    assert enumerate_level_recourse([1.0], [1.0], 0.0, [1.0], [0.0], [4.0], [1.0], tau=2.0) == ([2.0], 1.0)


@settings(max_examples=25)
@given(boxes, st.sampled_from([-3.0, -1.0, -0.5, 0.5, 1.0, 3.0]))
def test_the_l1_greedy_with_a_margin_equals_the_mip_with_a_shifted_intercept(args, tau):
    # w'x + b >= tau is w'x + (b - tau) >= 0: the engine, which aims at the boundary, solves it with b - tau
    x, a, b, w, lo, hi = parse_box(args)
    assume((a != 0).any())
    shifted = b - tau
    aim = tau + tau_of(a, shifted) if a @ x + shifted < 0 else tau  # the engine's hair inside, as above
    x_prime, cost = greedy_l1_recourse(x, a, b, np.sqrt(w), lo, hi, aim)
    assume(x_prime is not None or greedy_l1_recourse(x, a, b, np.sqrt(w), lo, hi, tau)[0] is None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = linear_recourse(x[None, :], a, shifted, w, bounds=(lo, hi), method="mip", time_limit=20)
    if x_prime is None:
        assert res.status[0] == "infeasible" and np.isinf(res.cost[0])
    elif a @ x + b >= tau:
        assert cost == 0 and x_prime == list(x) and res.status[0] == "favourable"
    else:
        assert res.status[0] == "optimal"
        assert res.objective[0] == pytest.approx(cost, rel=1e-6, abs=1e-6)
        assert _linear.margin(res.X_cf, a, b)[0] >= tau


@settings(max_examples=25)
@given(st.integers(1, 3).flatmap(lambda d: st.tuples(
    st.lists(st.integers(0, 4), min_size=d, max_size=d),
    st.lists(st.integers(-3, 3), min_size=d, max_size=d),
    st.integers(-8, 8),
    st.lists(st.sampled_from([0.25, 1.0, 4.0]), min_size=d, max_size=d),
    st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=d, max_size=d),
)))
def test_the_mip_in_whole_steps_equals_enumeration(args):
    x, a, b, w, step = (np.array(v, dtype=float) for v in args)
    b += 0.1  # margins are then 0.1 off the grid of quarters, never in [0, tau): aiming at 0 or tau is the same
    lo, hi = np.zeros_like(x), np.full_like(x, 4.0)
    assume((a != 0).any() and a @ x + b < 0)
    tau = tau_of(a, b)
    x_prime, cost = enumerate_level_recourse(x, a, b, np.sqrt(w), lo, hi, step, tau)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = linear_recourse(x[None, :], a, b, w, bounds=(lo, hi), steps=step, method="mip", time_limit=20)
    if x_prime is None:
        assert res.status[0] == "infeasible"
    else:
        assert res.status[0] == "optimal"
        assert res.objective[0] == pytest.approx(cost, rel=1e-9, abs=1e-9)
        k = res.delta[0] / step
        np.testing.assert_allclose(k, np.round(k), atol=1e-9)  # whole steps

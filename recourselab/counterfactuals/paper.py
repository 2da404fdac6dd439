"""The lesson's algorithms written literally: plain loops, the papers' notation, one function per algorithm.

For reading beside :doc:`/book/recourse_basics`; the engines
(:func:`~recourselab.counterfactuals.nearest_counterfactuals`,
:func:`~recourselab.counterfactuals.linear_recourse`) give the same answers
fast (``tests/counterfactuals/test_paper.py`` checks it on random instances).

Notation after :cite:t:`ustun2019actionable`: a linear classifier approves
:math:`x` when :math:`w^\\top x + b \\ge 0`; an action :math:`a` moves it to
:math:`x' = x + a`; feature :math:`j` may go anywhere in its box
:math:`[l_j, u_j]`; :math:`c_j > 0` prices its change. The recourse problem is
:math:`\\min_a \\operatorname{cost}(a; x)` subject to
:math:`w^\\top (x + a) + b \\ge \\tau` and :math:`l \\le x + a \\le u`, with
:math:`\\tau = 0` the boundary (the engines aim a hair inside,
:math:`\\tau = 10^{-9}(1 + |b| + \\sum_j |w_j|)`, so that rounding cannot put a
counterfactual back on the refused side). The engines call :math:`w`
``coef`` and :math:`c` ``weights``. The steps cite the formulas they
implement: the papers' texts are not among the book's sources.
"""

from __future__ import annotations

import itertools
import math

__all__ = ["nearest_feasible_counterfactual", "recourse_to_linear_boundary", "greedy_l1_recourse",
           "enumerate_level_recourse"]


def nearest_feasible_counterfactual(x, candidates, approved, encoder, *, actionable=True, weights=None, norm="l1"):
    """The cheapest observed person the model approves whom ``x`` may become.

    :cite:t:`wachter2017counterfactual` look for the closest input with the
    desired outcome, :math:`\\arg\\min_{x'} d(x, x')` subject to
    :math:`f(x') = \\text{favourable}`. Restricted, under our reading, to the
    observed people (the data-point restriction of FACE
    :cite:p:`poyiadzi2020face`) and to the moves the feature specs allow, with
    the encoder's weighted distance as :math:`d` (range-scaled instead of
    Wachter's MAD-scaled).

    Parameters
    ----------
    x : array of shape (n_columns,)
        The encoded person who was refused.
    candidates : array of shape (m, n_columns)
        Encoded observed people.
    approved : sequence of bool, length m
        The model's decision for each candidate (True = favourable).
    encoder : Encoder
        The fitted encoder of both; it says which moves are allowed and what they cost.
    actionable : bool, default True
        True: only moves a person could be advised to make
        (:meth:`Encoder.actionable <recourselab.features.Encoder.actionable>`);
        False: every feasible move (:meth:`Encoder.feasible
        <recourselab.features.Encoder.feasible>`), a relaxation.
    weights : mapping, optional
        Per-feature cost weights overriding the specs'.
    norm : {"l1", "l2"}, default "l1"

    Returns
    -------
    j : int or None
        Position of the counterfactual in ``candidates`` (the lowest position
        among equally cheap ones); None when nobody is reachable.
    cost : float
        Its cost; ``inf`` when nobody is reachable.

    Examples
    --------
    >>> import pandas as pd
    >>> from recourselab.features import Encoder, FeatureSpec
    >>> people = pd.DataFrame({"age": [30, 40, 25, 50], "debt": [8.0, 3.0, 1.0, 2.0]})
    >>> enc = Encoder([FeatureSpec("age", "continuous", "increase"), FeatureSpec("debt", "continuous")]).fit(people)
    >>> Z = enc.transform(people)
    >>> j, cost = nearest_feasible_counterfactual(Z[0], Z, [False, True, True, False], enc)
    >>> j, round(cost, 2)          # the 25-year-old is cheaper to reach on paper, but younger
    (1, 1.11)
    """
    best_j, best_cost = None, math.inf
    for j, x_prime in enumerate(candidates):  # every observed person x'
        if not approved[j]:  # f(x') must be the favourable outcome
            continue
        allowed = encoder.actionable(x, x_prime) if actionable else encoder.feasible(x, x_prime)
        if not allowed[0]:  # x -> x' must be a move the specs allow
            continue
        cost = float(encoder.cost(x, x_prime, weights=weights, norm=norm)[0])  # d(x, x')
        if cost < best_cost:  # strictly cheaper: ties keep the lowest position
            best_j, best_cost = j, cost
    return best_j, best_cost


def _room(x, w, lower, upper, j):
    """How far feature j may move in the direction that raises w.x (0 if it may not)."""
    return max(upper[j] - x[j], 0.0) if w[j] > 0 else max(x[j] - lower[j], 0.0)


def recourse_to_linear_boundary(x, w, b, c, lower, upper, tau=0.0):
    """Cheapest move to :math:`w^\\top x' + b \\ge \\tau` in the weighted Euclidean cost, inside a box.

    Minimises :math:`\\sqrt{\\sum_j c_j a_j^2}`, the cost RAGUEL uses
    :cite:p:`haldar2022raguel` (weighted Euclidean distance to the boundary).
    Without a box the answer is the textbook projection: every free feature
    moves by :math:`a_j = \\lambda w_j / c_j` with one multiplier
    :math:`\\lambda = \\text{gap} / \\sum_j w_j^2 / c_j`. In a box, features
    that this move would push past their bound are put on the bound and the
    projection is recomputed on the others, until none overshoots (the
    multiplier only grows, so a feature put on its bound stays there).

    Parameters
    ----------
    x, w : sequences of float, length d
        The person and the coefficients.
    b : float
        The intercept.
    c : sequence of float > 0, length d
        The cost weights.
    lower, upper : sequences of float, length d
        The box (``-inf``/``inf`` for none); ``x`` lies inside it.
    tau : float, default 0
        The margin to reach.

    Returns
    -------
    x_prime : list of float or None
        The counterfactual (``x`` itself when it already reaches :math:`\\tau`; None when the
        box cannot reach :math:`\\tau`).
    cost : float
        Its cost (0, or ``inf`` without a counterfactual).

    Examples
    --------
    RAGUEL's first applicant: loan amount 3.5 and duration 6, approved when
    duration >= 2 x amount, weights 0.5 and 1:

    >>> x_prime, cost = recourse_to_linear_boundary([3.5, 6], [-2, 1], 0, [0.5, 1.0], [-math.inf] * 2, [math.inf] * 2)
    >>> [round(v, 2) for v in x_prime], round(cost, 2)
    ([3.06, 6.11], 0.33)
    """
    d = len(x)
    if sum(w[j] * x[j] for j in range(d)) + b >= tau:  # already at the margin: no action needed
        return list(x), 0.0
    gap = tau - (sum(w[j] * x[j] for j in range(d)) + b)  # margin still to gain
    a = [0.0] * d
    free = [j for j in range(d) if w[j] != 0 and _room(x, w, lower, upper, j) > 0]
    while True:
        R = sum(w[j] ** 2 / c[j] for j in free)
        if R == 0:  # no feature left that can move: the box cannot reach tau
            return None, math.inf
        lam = gap / R  # KKT: a_j = lambda w_j / c_j for the free features
        over = [j for j in free if lam * abs(w[j]) / c[j] > _room(x, w, lower, upper, j)]
        if not over:
            for j in free:
                a[j] = lam * w[j] / c[j]
            break
        for j in over:  # these reach their bound: fix them there, and project the others on what is left
            a[j] = math.copysign(_room(x, w, lower, upper, j), w[j])
            gap -= abs(w[j]) * _room(x, w, lower, upper, j)
            free.remove(j)
    x_prime = [x[j] + a[j] for j in range(d)]
    return x_prime, math.sqrt(sum(c[j] * a[j] ** 2 for j in range(d)))


def greedy_l1_recourse(x, w, b, c, lower, upper, tau=0.0):
    """Cheapest move to :math:`w^\\top x' + b \\ge \\tau` in the weighted L1 cost :math:`\\sum_j c_j |a_j|` in a box.

    A linear programme with one constraint and a box is a fractional knapsack:
    a unit of feature :math:`j` buys :math:`|w_j|` of margin for :math:`c_j`,
    so move the feature with the best ratio :math:`|w_j| / c_j` as far as its
    box allows, then the next, until the margin is reached; when the features
    run out first there is no counterfactual. This is the continuous case of
    the integer programme of :cite:t:`ustun2019actionable`, whose linear cost
    the engine's MIP minimises (``weights`` there are :math:`c_j^2`).

    Parameters
    ----------
    x, w, b, c, lower, upper, tau
        As in :func:`recourse_to_linear_boundary`.

    Returns
    -------
    x_prime : list of float or None
    cost : float
        :math:`\\sum_j c_j |a_j|` (0, or ``inf`` without a counterfactual).

    Examples
    --------
    >>> x_prime, cost = greedy_l1_recourse([3.5, 6], [-2, 1], 0, [0.5, 1.0], [-math.inf] * 2, [math.inf] * 2)
    >>> x_prime, cost          # the amount buys 4 of margin per unit of cost, the duration 1
    ([3.0, 6.0], 0.25)
    """
    d = len(x)
    if sum(w[j] * x[j] for j in range(d)) + b >= tau:  # already at the margin
        return list(x), 0.0
    gap = tau - (sum(w[j] * x[j] for j in range(d)) + b)
    a = [0.0] * d
    # best ratio |w_j| / c_j first; equal ratios in the order of the features
    order = sorted((j for j in range(d) if w[j] != 0), key=lambda j: (-abs(w[j]) / c[j], j))
    for j in order:
        room = _room(x, w, lower, upper, j)
        if abs(w[j]) * room >= gap:  # this feature closes the gap: move it just enough
            a[j] = math.copysign(gap / abs(w[j]), w[j])
            gap = 0.0
            break
        a[j] = math.copysign(room, w[j])  # all the way to its bound, then the next feature
        gap -= abs(w[j]) * room
    if gap > 0:  # the box ran out
        return None, math.inf
    x_prime = [x[j] + a[j] for j in range(d)]
    return x_prime, sum(c[j] * abs(a[j]) for j in range(d))


def enumerate_level_recourse(x, w, b, c, lower, upper, step, tau=0.0):
    """Cheapest move to :math:`w^\\top x' + b \\ge \\tau` in whole steps, by trying every combination.

    Each feature moves by a whole number :math:`k_j` of its ``step``
    (:math:`a_j = k_j s_j`, one level of an ordinal feature, one unit of a
    count) and stays in its box; the cost is :math:`\\sum_j c_j |a_j|`. This is
    the integer programme of :cite:t:`ustun2019actionable` over a grid of
    actions, solved by enumeration: exponential in the number of features, for
    tiny instances only (it is the reference the engine's MIP is tested
    against).

    Parameters
    ----------
    x, w, b, c, lower, upper, tau
        As in :func:`recourse_to_linear_boundary` (the box must be finite or
        bound each feature's steps).
    step : sequence of float > 0, length d
        Step of each feature.

    Returns
    -------
    x_prime : list of float or None
        The cheapest grid point (the first in lexicographic order of the
        :math:`k` among equally cheap ones); None when no grid point in the box
        reaches :math:`\\tau`.
    cost : float

    Examples
    --------
    >>> enumerate_level_recourse([0, 0], [1, 2], -3, [1, 1.5], [0, 0], [4, 4], [1, 1])
    ([1, 1], 2.5)
    """
    d = len(x)
    if sum(w[j] * x[j] for j in range(d)) + b >= tau:  # already at the margin
        return list(x), 0
    # the whole numbers of steps each feature may take without leaving its box
    choices = [range(math.ceil((lower[j] - x[j]) / step[j] - 1e-9), math.floor((upper[j] - x[j]) / step[j] + 1e-9) + 1)
               for j in range(d)]
    best, best_cost = None, math.inf
    for k in itertools.product(*choices):
        x_prime = [x[j] + k[j] * step[j] for j in range(d)]
        if sum(w[j] * x_prime[j] for j in range(d)) + b < tau:  # must reach the margin
            continue
        cost = sum(c[j] * abs(k[j] * step[j]) for j in range(d))
        if cost < best_cost:
            best, best_cost = x_prime, cost
    return best, best_cost

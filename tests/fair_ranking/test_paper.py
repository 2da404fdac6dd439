"""paper.py is the papers' algorithms written literally; the engines must give the same answers.

The paper's Example 1 (Table 2) is an exact fixture; on small random instances (hypothesis) the literal
RAGUEL, RAGUEL-Block, modification search, costs, fairness checks, metrics and FA*IR equal the engine's.
Ties are broken the same way in both: the ranking by (cost, row position), attributes by (weight, column),
combinations by size then lexicographically, candidates in rank order, z by (cost, initial rank).
"""

import itertools
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ranking_instances import instances, kwargs_of, model_of, relaxed_cost, with_recourse

from recourselab.counterfactuals import _linear
from recourselab.fair_ranking import (
    _engine,
    fair_minimum_table,
    fair_rerank,
    paper,
    raguel,
    raguel_block,
    ranked_fair_representation,
    ranked_recourse_fairness,
    ranking_metrics,
    recourse_fairness_ratio,
)
from recourselab.fair_ranking._engine import Engine

# Example 1 / Table 2 of the paper: loan amount (LA, $'000) and duration (LD, years); approved when LD >= 2 LA
X1 = [[3.5, 6.0], [2.0, 1.0], [4.0, 4.0], [5.0, 4.0]]  # Abdul, Bogdan, Chiara, Diana
GENDER = ["M", "M", "F", "F"]
MODEL1 = dict(a=[-2.0, 1.0], b=0.0, w=[0.5, 1.0], steps=[0.05, 1.0], lower=[-math.inf] * 2, upper=[math.inf] * 2)
ENGINE1 = dict(coef=[-2.0, 1.0], intercept=0.0, weights=[0.5, 1.0], steps=[0.05, 1.0], protected_group="F",
               tolerance=1 / 2)


def test_example1_table2_from_the_literal_algorithm():
    box = {k: v for k, v in MODEL1.items() if k != "steps"}
    assert [round(paper.cost(x, **box), 2) for x in X1] == [0.33, 1.00, 1.33, 2.00]
    order, X_new, costs, exit_at = paper.raguel(X1, GENDER, {"F": 0.5}, t=1 / 2, **MODEL1)
    assert order == [0, 2, 1, 3] and exit_at is None  # Abdul, Chiara, Bogdan, Diana: Chiara at rank 2
    assert round(X_new[2][0], 2) == 3.45 and X_new[2][1] == 4.0  # $550 less, in $50 steps
    assert round(costs[2], 2) == 0.97 and costs[2] < costs[1]  # just below Bogdan's 1.00
    assert X_new[:2] == X1[:2] and X_new[3] == X1[3]
    # and the engine, exactly
    res = raguel(np.array(X1), GENDER, **ENGINE1)
    assert res.order.tolist() == order and np.array_equal(res.X_new, np.array(X_new))
    assert res.cost_new.tolist() == costs and res.cost.round(2).tolist() == [0.33, 1.00, 1.33, 2.00]


def test_example1_blocks_of_two_and_four():
    order, X_new, costs = paper.raguel_block(X1, GENDER, {"F": 0.5}, size=2, t=1 / 2, **MODEL1)
    assert order == [0, 2, 1, 3] and round(X_new[2][0], 2) == 2.5 and costs[2] == pytest.approx(1 / 3)
    res = raguel_block(np.array(X1), GENDER, **ENGINE1, block_size=2)
    assert res.order.tolist() == order and res.cost_new.tolist() == costs
    # one block of four is balanced already: nothing to do (the paper's remark)
    assert paper.raguel_block(X1, GENDER, {"F": 0.5}, size=4, t=1 / 2, **MODEL1)[0] == [0, 1, 2, 3]


def test_table3_ratio_and_the_fair_representation_band():
    assert round(paper.rho([7.688, 5.837], ["single", "married"]), 3) == 0.759
    assert paper.fair(["F"] * 4 + ["M"] * 6, {"F": 0.3}, 1 / 3)  # 40%: the band's edge, despite rounding
    assert not paper.fair(["F"] * 5 + ["M"] * 5, {"F": 0.3}, 1 / 3)


# --------------------------------------------------------------------------- literal vs engine


@given(st.one_of(instances(max_rows=8, finite=True), instances(max_rows=8, tight=True)))
def test_costs_are_bit_for_bit_the_engines(inst):
    problem = _linear.parse_problem(inst["X"], inst["coef"], inst["intercept"], inst["weights"],
                                    immutable=inst["immutable"], bounds=inst["bounds"])
    engine = Engine(problem, inst["steps"], 100)
    box = {k: v for k, v in model_of(inst).items() if k not in ("steps", "max_steps")}
    literal = [paper.cost(x, **box) for x in inst["X"].tolist()]
    assert literal == engine.cost0.tolist() == relaxed_cost(inst["X"], inst).tolist()
    assert literal == [engine.cost_of(x) for x in inst["X"]]


@settings(max_examples=40)
@given(st.one_of(instances(max_rows=6, finite=True), instances(max_rows=6, tight=True)),
       st.sampled_from([0.0, 0.5, 0.9]), st.booleans(), st.sampled_from([3, 40]))
def test_modification_search_equals_stepping_one_step_at_a_time(inst, fraction, strict, max_steps):
    problem = _linear.parse_problem(inst["X"], inst["coef"], inst["intercept"], inst["weights"],
                                    immutable=inst["immutable"], bounds=inst["bounds"])
    engine = Engine(problem, inst["steps"], max_steps)
    model = model_of(inst, max_steps=max_steps)
    for row in range(len(inst["X"])):
        if not np.isfinite(engine.cost0[row]):
            continue
        T = fraction * engine.cost0[row]  # a target below the row's cost: it has to move

        def ok(c, T=T):
            return c < T if strict else c <= T

        fast = engine.find(row, T, strict=strict)
        slow = paper.modify(inst["X"][row].tolist(), ok, **model)
        assert (fast is None) == (slow is None)
        if slow is not None:
            assert fast[0].tolist() == slow[0] and fast[1] == slow[1]


@settings(max_examples=50)
@given(st.one_of(instances(max_rows=10, finite=True), instances(max_rows=10, tight=True)),
       st.sampled_from([1 / 3, 1 / 2, 1.0]), st.sampled_from([None, None, 0.2, 0.5]))
def test_raguel_equals_the_literal_algorithm_1(inst, t, beta):
    inst = with_recourse(inst)
    X, groups = inst["X"], inst["groups"]
    res = raguel(X, groups, **kwargs_of(inst, protected_group="P", tolerance=t, beta=beta, max_steps=40))
    p = {"P": int(np.count_nonzero(groups == "P")) / len(groups)}
    order, X_new, costs, exit_at = paper.raguel(X.tolist(), groups.tolist(), p, t=t, beta=beta,
                                                **model_of(inst, max_steps=40))
    assert res.order.tolist() == order and res.exit_at == exit_at
    assert np.array_equal(res.X_new, np.array(X_new)) and res.cost_new.tolist() == costs


@settings(max_examples=50)
@given(st.one_of(instances(min_rows=4, max_rows=12, finite=True), instances(min_rows=4, max_rows=12, tight=True)),
       st.integers(2, 5), st.sampled_from([1 / 3, 1 / 2]), st.sampled_from([None, None, 0.1]))
def test_raguel_block_equals_the_literal_algorithm_2(inst, size, t, beta):
    inst = with_recourse(inst)
    X, groups = inst["X"], inst["groups"]
    size = min(size, len(X))
    res = raguel_block(X, groups, **kwargs_of(inst, protected_group="P", tolerance=t, block_size=size, beta=beta,
                                              max_steps=40))
    p = {"P": int(np.count_nonzero(groups == "P")) / len(groups)}
    order, X_new, costs = paper.raguel_block(X.tolist(), groups.tolist(), p, size=size, t=t, beta=beta,
                                             **model_of(inst, max_steps=40))
    assert res.order.tolist() == order
    assert np.array_equal(res.X_new, np.array(X_new)) and res.cost_new.tolist() == costs


@given(st.lists(st.sampled_from(["P", "N"]), min_size=1, max_size=30), st.sampled_from([1 / 5, 1 / 3, 1 / 2, 1.0]),
       st.sampled_from([0.2, 0.3, 0.5]))
def test_ranked_representation_is_definition_3_1_on_every_prefix(groups, t, p):
    assume("P" in groups)
    check = ranked_fair_representation(groups, "P", t, p=p)
    literal = [k == 1 or paper.fair(groups[:k], {"P": p}, t) for k in range(1, len(groups) + 1)]
    assert check.per_prefix.tolist() == literal and check.fair == all(literal)


@given(st.lists(st.tuples(st.floats(0, 10), st.sampled_from(["a", "b", "c"])), min_size=2, max_size=30),
       st.floats(0, 1))
def test_ranked_rho_is_equation_4_on_every_prefix(pairs, beta):
    costs, groups = (list(v) for v in zip(*pairs, strict=True))
    assume(len(set(groups)) >= 2)
    check = ranked_recourse_fairness(costs, groups, beta)
    literal = [paper.rho(costs[:k], groups[:k]) for k in range(1, len(costs) + 1)]
    literal = [1.0 if math.isnan(r) else r for r in literal]  # one group: rho = 1 by the singleton convention
    np.testing.assert_allclose(check.value, literal, rtol=1e-12, atol=1e-12)
    assert recourse_fairness_ratio(costs, groups) == pytest.approx(paper.rho(costs, groups), rel=1e-12)


@given(st.lists(st.booleans(), min_size=10, max_size=80), st.sampled_from([2, 5, 10]))
def test_metrics_equal_the_literal_definitions(prot, cutoff):
    assume(0 < sum(prot) < len(prot))
    literal = paper.rkl_rnd_rrd([int(v) for v in prot], cutoff)
    values = ranking_metrics(prot, cutoff)
    assert values.keys() == literal.keys()
    for name, value in values.items():
        assert 0 <= value <= 1 and value == pytest.approx(literal[name], abs=1e-12)


@given(st.integers(1, 40), st.sampled_from([0.2, 0.25, 0.3, 0.5, 0.7]), st.sampled_from([0.05, 0.1, 0.15, 0.3]))
def test_fair_table_is_the_binomial_quantile(k, p, alpha):
    assert fair_minimum_table(k, p, alpha).tolist() == paper.fair_table(k, p, alpha)


@given(st.lists(st.booleans(), min_size=2, max_size=40), st.sampled_from([0.2, 0.4, 0.6]),
       st.sampled_from([0.05, 0.1, 0.15]), st.randoms(use_true_random=False), st.integers(1, 40))
def test_fair_rerank_equals_the_literal_fa_ir(prot, p, alpha, rnd, k):
    n = len(prot)
    k = min(k, n)
    order = list(range(n))
    rnd.shuffle(order)
    engine = fair_rerank(order, prot, p=p, alpha=alpha, k=k, adjust=False)
    assert engine.tolist() == paper.fair_rerank(order, [int(v) for v in prot], k, p, alpha)


def test_the_literal_module_stands_alone():
    # a student reads paper.py without the engine: it imports neither numpy nor the package
    import inspect

    imports = [line for line in inspect.getsource(paper).splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["import itertools", "import math"]


@settings(max_examples=60)
@given(st.one_of(instances(max_rows=6, finite=True), instances(max_rows=6, tight=True)),
       st.sampled_from([0.0, 0.01, 0.1, 0.5]), st.sampled_from([1e-6, 0.01, 0.2]), st.booleans())
def test_pruned_window_search_equals_stepping_and_the_unpruned_search(inst, low, width, strict):
    # a narrow cost window [lo, hi] (as beta's rho condition makes it): combinations whose one step, or whose
    # margin path, jumps over the window are left out; the answer must not change
    problem = _linear.parse_problem(inst["X"], inst["coef"], inst["intercept"], inst["weights"],
                                    immutable=inst["immutable"], bounds=inst["bounds"])
    engine = Engine(problem, inst["steps"], 40)
    model = model_of(inst, max_steps=40)
    for row in range(len(inst["X"])):
        c0 = float(engine.cost0[row])
        if not np.isfinite(c0) or c0 == 0:
            continue
        T, lo = 0.9 * c0, low * c0
        hi = lo + width * c0

        def ok(c, T=T, lo=lo, hi=hi):
            return (c < T if strict else c <= T) and lo <= c <= hi

        def accept(c, lo=lo, hi=hi):
            return lo <= c <= hi

        fast = engine.find(row, T, strict=strict, c_lo=lo, c_hi=hi, accept=accept)
        engine.prune = False
        try:
            plain = engine.find(row, T, strict=strict, c_lo=lo, c_hi=hi, accept=accept)
        finally:
            engine.prune = True
        slow = paper.modify(inst["X"][row].tolist(), ok, **model)
        assert (fast is None) == (plain is None) == (slow is None)
        if slow is not None:
            assert fast[0].tolist() == plain[0].tolist() == slow[0] and fast[1] == plain[1] == slow[1]
            assert fast[2].tolist() == plain[2].tolist() and fast[3].tolist() == plain[3].tolist()


@settings(max_examples=150)
@given(st.integers(1, 7), st.integers(0, 2**32 - 1), st.floats(-3.0, 0.0), st.floats(0.0, 0.5))
def test_band_check_by_meeting_in_the_middle_equals_every_combination_and_iteration(m, seed, A, width):
    # the row-level skip of the strict-beta search: some combination K and iteration n put the margin
    # s0 + sum_{j in K} rate_j min(n, cap_j) in [A, B), exactly when the brute force over all K and n says so
    # (up to the rounding allowance, which only ever keeps a row)
    rng = np.random.default_rng(seed)
    engine = Engine.__new__(Engine)
    engine.rate = rng.choice([0.05, 0.1, 0.25, 0.3, 1.0], size=m) * rng.integers(1, 4, size=m)
    engine.margin0 = np.array([-rng.uniform(0.5, 6.0)])
    engine.coef, engine.A = np.zeros(1), np.zeros((1, 1))
    caps = rng.integers(0, 6, size=m).astype(float)
    B = A + width
    s0 = engine.margin0[0]
    brute = False
    for size in range(1, m + 1):
        for K in itertools.combinations(range(m), size):
            K = list(K)
            for n in range(1, int(caps.max()) + 1 if caps.max() >= 1 else 1):
                margin = s0 + float(np.minimum(n, caps[K]) @ engine.rate[K])
                if caps[K].max() >= 1 and A - 1e-7 <= margin < B + 1e-7:
                    brute = True
    with mock.patch.object(_engine, "_MEET_MIN_M", 1):  # the check itself at every size (the engine: from 10)
        fast = engine._band_reachable(0, caps, A, B)
    strict_brute = any(
        caps[list(K)].max() >= 1 and A <= s0 + float(np.minimum(n, caps[list(K)]) @ engine.rate[list(K)]) < B
        for size in range(1, m + 1) for K in itertools.combinations(range(m), size)
        for n in range(1, int(caps.max()) + 1))
    if strict_brute:
        assert fast  # never a false "no": the row would be skipped wrongly
    if fast:
        assert brute  # a "yes" is a combination within the rounding allowance

"""RAGUEL-Block with ``n_blocks``: blocks as equal as they can be (the paper's Sec. 4.5: "all blocks are equal")."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from ranking_instances import instances, kwargs_of, model_of, with_recourse

from recourselab.fair_ranking import paper, raguel_block
from recourselab.fair_ranking.block import _block_sizes


@given(st.integers(2, 400), st.data())
def test_n_blocks_sizes_differ_by_at_most_one_and_sum_to_n(n, data):
    k = data.draw(st.integers(1, n // 2))
    sizes = _block_sizes(n, k, None)
    assert len(sizes) == k and sizes.sum() == n and sizes.max() - sizes.min() <= 1 and sizes.min() >= 2
    assert (np.diff(sizes) <= 0).all()  # the larger blocks first, as np.array_split
    assert sizes.tolist() == [len(b) for b in np.array_split(np.arange(n), k)]


def test_167_rows_in_20_blocks():  # the report's waiting list on seed 0: seven blocks of nine, thirteen of eight
    assert _block_sizes(167, 20, None).tolist() == [9] * 7 + [8] * 13


@settings(max_examples=40)
@given(instances(min_rows=4, max_rows=12, finite=True), st.integers(1, 6), st.sampled_from([1 / 3, 1 / 2]))
def test_n_blocks_equals_the_literal_algorithm_2_when_the_blocks_divide_the_list(inst, k, t):
    inst = with_recourse(inst)
    X, groups = inst["X"], inst["groups"]
    n = len(X)
    k = max(d for d in range(1, min(k, n // 2) + 1) if n % d == 0)  # a divisor of n: equal blocks
    res = raguel_block(X, groups, **kwargs_of(inst, protected_group="P", tolerance=t, n_blocks=k, max_steps=40))
    assert res.block_sizes.tolist() == [n // k] * k
    p = {"P": int(np.count_nonzero(groups == "P")) / len(groups)}
    order, X_new, costs = paper.raguel_block(X.tolist(), groups.tolist(), p, size=n // k, t=t,
                                             **model_of(inst, max_steps=40))
    assert res.order.tolist() == order
    assert np.array_equal(res.X_new, np.array(X_new)) and res.cost_new.tolist() == costs

"""RAGUEL and RAGUEL-Block engines: Example 1's details, properties on random instances, actionable advice."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ranking_instances import advised_problems, instances, kwargs_of, relaxed_cost, with_recourse

from recourselab.counterfactuals import _linear
from recourselab.fair_ranking import (
    raguel,
    raguel_block,
    ranked_fair_representation,
    ranked_recourse_fairness,
    recourse_fairness_ratio,
)
from recourselab.fair_ranking._engine import Engine

# Example 1 / Table 2 of the paper: loan amount (LA, $'000) and duration (LD, years)
EXAMPLE = pd.DataFrame({"LA": [3.5, 2.0, 4.0, 5.0], "LD": [6.0, 1.0, 4.0, 4.0]},
                       index=["Abdul", "Bogdan", "Chiara", "Diana"])
GENDER = np.array(["M", "M", "F", "F"])
RAGUEL_EXAMPLE = {"coef": [-2.0, 1.0], "intercept": 0.0, "weights": [0.5, 1.0], "steps": [0.05, 1.0],
                  "protected_group": "F", "tolerance": 1 / 2}


def test_example1_raguel_result_in_detail():
    res = raguel(EXAMPLE, GENDER, **RAGUEL_EXAMPLE)
    assert res.order.tolist() == [0, 2, 1, 3]  # Abdul, Chiara, Bogdan, Diana
    assert res.exit_at is None and res.unattainable.tolist() == []
    assert res.changed.tolist() == [False, False, True, False]
    assert res.X_new.loc["Chiara", "LA"] == pytest.approx(3.45)
    assert res.X_new.loc["Chiara", "LD"] == 4.0  # only the loan amount changed
    assert res.X_new.drop("Chiara").equals(EXAMPLE.drop("Chiara"))
    assert res.cost_new.round(2).tolist() == [0.33, 1.00, 0.97, 2.00]
    line = res.interventions.iloc[0]
    assert len(res.interventions) == 1
    assert (line["row"], line["feature"], line["before"], line["steps"]) == (2, "LA", 4.0, 11)  # $550 in $50 steps
    assert line["after"] == pytest.approx(3.45)
    assert res.rho_after > res.rho_before
    frame = res.to_frame()
    assert frame["row"].tolist() == [0, 2, 1, 3] and frame["fair"].all()
    # no encoder: no advice policy to check the move against, so the result says relaxation
    assert res.advice == "relaxation" and res.cost_basis == "relaxation" and res.actionable.isna().all()
    assert EXAMPLE.loc["Chiara", "LA"] == 4.0  # the input is untouched


def test_example1_blocks_in_detail():
    two = raguel_block(EXAMPLE, GENDER, **RAGUEL_EXAMPLE, block_size=2)
    # Chiara lowers her amount until she belongs to the first block: cost 1/3, Abdul's
    assert two.X_new.loc["Chiara", "LA"] == pytest.approx(2.5) and two.cost_new[2] == pytest.approx(1 / 3)
    assert two.block.tolist() == [0, 0, 1, 1]
    assert (two.blocks_unfair_before, two.blocks_unfair_after) == (2, 0)
    assert two.swaps[["block", "out_row", "in_row"]].to_numpy().tolist() == [[0, 1, 2]]
    table = two.to_frame()
    assert table["share_before"].tolist() == [0.0, 1.0] and table["share_after"].tolist() == [0.5, 0.5]
    four = raguel_block(EXAMPLE, GENDER, **RAGUEL_EXAMPLE, n_blocks=1)
    assert four.order.tolist() == [0, 1, 2, 3] and not four.changed.any() and four.blocks_unfair_after == 0


def check_rerank(inst, res):
    X, n = inst["X"], len(inst["X"])
    assert sorted(res.order.tolist()) == list(range(n))
    frozen = ~inst["mutable"]
    np.testing.assert_array_equal(res.X_new[:, frozen], X[:, frozen])
    assert np.array_equal(res.X_new[~res.changed], X[~res.changed])
    assert (res.cost_new[res.changed] < res.cost[res.changed]).all()
    np.testing.assert_array_equal(res.cost_new[~res.changed], res.cost[~res.changed])
    np.testing.assert_array_equal(res.cost_new, relaxed_cost(res.X_new, inst))  # the same cost, bit for bit
    lower, upper = inst["bounds"]
    assert ((res.X_new >= np.minimum(lower, X)) & (res.X_new <= np.maximum(upper, X))).all()
    assert set(res.interventions["row"]) == set(np.flatnonzero(res.changed).tolist())


@given(instances(), st.sampled_from([1 / 3, 1 / 2, 1.0]))
def test_raguel_properties(inst, t):
    inst = with_recourse(inst)
    X_before, groups_before = inst["X"].copy(), inst["groups"].copy()
    res = raguel(inst["X"], inst["groups"], **kwargs_of(inst, protected_group="P", tolerance=t))
    assert np.array_equal(inst["X"], X_before) and np.array_equal(inst["groups"], groups_before)  # no mutation
    check_rerank(inst, res)
    p = float(np.mean(inst["groups"] == "P"))
    fair = ranked_fair_representation(inst["groups"][res.order], "P", t, p=p).per_prefix
    # up to the exit, every prefix is fair, or no choice of group could have made it fair
    stop = len(fair) if res.exit_at is None else res.exit_at
    cum = np.cumsum(inst["groups"][res.order] == "P")
    for pos in np.flatnonzero(~fair[:stop]):
        k = pos + 1
        assert pos in res.unattainable
        assert all(abs((cum[pos - 1] + extra) / k - p) > p * t + 1e-9 for extra in (0, 1))
    if res.exit_at is not None:
        # the exit happened where a fair choice existed but no row of that group could be modified
        k = res.exit_at + 1
        assert any(abs((cum[k - 2] + extra) / k - p) <= p * t + 1e-9 for extra in (0, 1))
        initial = [r for r in res.initial_order.tolist() if r in set(res.order[res.exit_at:].tolist())]
        assert res.order[res.exit_at:].tolist() == initial  # the rest is copied as it was ranked
    # a modified row outranks the row it overtook: its new cost is below the next row's initial cost
    pos_of = {r: i for i, r in enumerate(res.order.tolist())}
    for r in np.flatnonzero(res.changed):
        nxt = res.order[pos_of[r] + 1] if pos_of[r] + 1 < len(res.order) else None
        if nxt is not None and not res.changed[nxt]:
            assert res.cost_new[r] < res.cost[nxt]


@given(instances(balanced=True))
def test_raguel_every_prefix_fair_when_attainable(inst):
    inst = with_recourse(inst, every_row=True)  # keeps p = 1/2
    # p = 1/2 and t = 1/2: from any fair prefix one of the two groups keeps the next one fair
    res = raguel(inst["X"], inst["groups"], **kwargs_of(inst, protected_group="P", tolerance=1 / 2))
    check_rerank(inst, res)
    if res.exit_at is None:
        assert res.unattainable.size == 0
        assert ranked_fair_representation(inst["groups"][res.order], "P", 1 / 2).fair
        assert res.to_frame()["fair"].all()


@given(instances(), st.sampled_from([0.2, 0.5]))
def test_raguel_beta_holds_where_rows_are_modified(inst, beta):
    inst = with_recourse(inst)
    res = raguel(inst["X"], inst["groups"], **kwargs_of(inst, protected_group="P", tolerance=1 / 2, beta=beta))
    check_rerank(inst, res)
    rho = ranked_recourse_fairness(res.cost_new[res.order], inst["groups"][res.order], beta)
    positions = [i for i, r in enumerate(res.order.tolist()) if res.changed[r]]
    assert rho.per_prefix[positions].all()


def test_raguel_several_protected_groups():
    rng = np.random.default_rng(3)
    n = 60
    groups = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    X = rng.normal(size=(n, 3))
    X[groups == "c"] -= 1.0
    X[groups == "b"] -= 0.5
    res = raguel(X, groups, coef=[1.0, 1.0, 0.5], intercept=-4.0, weights=[1.0, 2.0, 1.0], steps=0.05,
                 protected_group=["b", "c"], tolerance=1 / 2)
    p = {"b": np.mean(groups == "b"), "c": np.mean(groups == "c")}
    fair = ranked_fair_representation(groups[res.order], ["b", "c"], 1 / 2, p=p).per_prefix
    stop = len(fair) if res.exit_at is None else res.exit_at
    unattainable = set(res.unattainable.tolist())
    assert all(fair[i] or i in unattainable for i in range(stop))
    assert res.n_changed > 0
    assert sorted(res.order.tolist()) == list(range(n))
    assert {"share[b]", "share[c]"} <= set(res.to_frame().columns)


@given(instances(min_rows=4, max_rows=20), st.integers(2, 6), st.sampled_from([1 / 3, 1 / 2]),
       st.sampled_from([None, None, 0.1]))
def test_raguel_block_properties(inst, size, t, beta):
    inst = with_recourse(inst)
    n = len(inst["X"])
    size = min(size, n)
    res = raguel_block(inst["X"], inst["groups"],
                       **kwargs_of(inst, protected_group="P", tolerance=t, block_size=size, beta=beta))
    check_rerank(inst, res)
    sizes = res.block_sizes
    assert sizes.sum() == n and (sizes[:-1] == size).all()
    assert res.block.tolist() == np.repeat(np.arange(len(sizes)), sizes).tolist()
    # rows move at most one block
    before = np.empty(n, dtype=int)
    before[res.initial_order] = res.block
    after = np.empty(n, dtype=int)
    after[res.order] = res.block
    assert (np.abs(after - before) <= 1).all()
    # every accepted swap leaves the block's rho no lower (or the block had a single group before);
    # with beta, no lower than min(rho before, 1 - beta)
    swaps = res.swaps
    floor = swaps["rho_before"] if beta is None else np.minimum(swaps["rho_before"], 1 - beta)
    assert ((swaps["rho_after"] >= floor - 1e-12) | swaps["rho_before"].isna()).all()
    assert (after[swaps["in_row"].to_numpy(dtype=int)] == swaps["block"].to_numpy()).all()
    assert (after[swaps["out_row"].to_numpy(dtype=int)] == swaps["block"].to_numpy() + 1).all()
    # a moved-up row costs at most the largest cost left in its block
    for blk, row in zip(swaps["block"], swaps["in_row"], strict=True):
        members = res.order[res.block == blk]
        assert res.cost_new[row] <= res.cost_new[members].max()
    # blocks come out sorted by current cost
    for blk in range(len(sizes)):
        costs = res.cost_new[res.order[res.block == blk]]
        assert (np.diff(costs) >= 0).all()
    frame = res.to_frame()
    assert len(frame) == len(sizes) and frame["swaps"].sum() == len(swaps)
    assert res.blocks_unfair_before == int((~frame["fair_before"]).sum())


def test_raguel_block_fixes_blocks_on_synthetic_data():
    rng = np.random.default_rng(1)
    n, d = 2000, 4
    groups = np.where(rng.random(n) < 0.3, "P", "N")
    coef = np.array([1.0, -0.8, 1.2, 0.6])
    X = rng.normal(size=(n, d))
    X[groups == "P"] -= 0.3 * coef
    b = -(X @ coef).max() - 0.1
    res = raguel_block(X, groups, coef=coef, intercept=b, weights=[1.0, 0.5, 2.0, 1.0], steps=0.01,
                       protected_group="P", block_size=100, immutable=[3])
    assert res.blocks_unfair_after < res.blocks_unfair_before
    frame = res.to_frame()  # the public per-block view: fair_before / fair_after count the unfair blocks
    assert res.blocks_unfair_after == int((~frame["fair_after"]).sum())
    assert res.blocks_unfair_before == int((~frame["fair_before"]).sum())
    assert not frame.loc[frame["exited"], "fair_after"].any()  # an exited block is copied as it stood, unfair
    swaps = res.swaps
    assert swaps["rho_before"].notna().sum() > 10
    assert ((swaps["rho_after"] >= swaps["rho_before"] - 1e-12) | swaps["rho_before"].isna()).all()
    # replay the swaps from the initial blocks: the recorded rho values and the final blocks follow
    sizes = res.block_sizes
    starts = np.concatenate(([0], np.cumsum(sizes)))
    members = [set(res.initial_order[starts[i]:starts[i + 1]].tolist()) for i in range(len(sizes))]
    cost_now = res.cost.copy()

    def rho(rows):
        rows = sorted(rows)
        if len(set(groups[rows])) < 2:
            return np.nan
        return recourse_fairness_ratio(cost_now[rows], groups[rows])

    for blk, out_row, in_row, c_before, c_after, r_before, r_after in swaps.itertuples(index=False):
        assert c_before == cost_now[in_row] and c_after <= c_before
        np.testing.assert_allclose(rho(members[blk]), r_before, rtol=1e-12)
        members[blk].remove(out_row)
        members[blk + 1].add(out_row)
        members[blk + 1].remove(in_row)
        members[blk].add(in_row)
        cost_now[in_row] = c_after
        np.testing.assert_allclose(rho(members[blk]), r_after, rtol=1e-12)
    assert [members[i] for i in range(len(sizes))] == [set(res.order[res.block == i].tolist())
                                                       for i in range(len(sizes))]
    np.testing.assert_array_equal(cost_now, res.cost_new)


# --------------------------------------------------------------------------- the search behind a modification


def make_engine(inst, max_steps):
    problem = _linear.parse_problem(inst["X"], inst["coef"], inst["intercept"], inst["weights"],
                                    immutable=inst["immutable"], bounds=inst["bounds"])
    return Engine(problem, inst["steps"], max_steps)


@given(st.one_of(instances(max_rows=8), instances(max_rows=8, tight=True)), st.sampled_from([0.3, 0.6, 0.9]),
       st.sampled_from([0.0, 0.5, 0.9, 0.99]), st.booleans())
def test_first_row_search_equals_row_by_row(inst, level, width, strict):
    # find_first screens all rows x all combinations at once (a lenient necessary condition): it must
    # return the first row that the exact row-by-row search accepts, with the same modification
    engine = make_engine(inst, 10_000)
    rows = np.arange(len(inst["X"]))
    finite = engine.cost0[np.isfinite(engine.cost0)]  # rows the box leaves without recourse cost inf
    if finite.size == 0:
        return
    T = level * float(finite.max())
    c_lo, c_hi = np.full(len(rows), width * T), np.full(len(rows), T)  # a window of admissible new costs

    hit = engine.find_first(rows, T, strict=strict, c_lo=c_lo, c_hi=c_hi, accept=lambda c, i: c >= width * T)
    expected = None
    for i in rows:
        res = engine.find(int(i), T, strict=strict, c_lo=width * T, c_hi=T, accept=lambda c: c >= width * T)
        if res is not None:
            expected = (int(i), res)
            break
    if expected is None:
        assert hit is None
    else:
        assert hit is not None and hit[0] == expected[0]
        assert hit[1][2].tolist() == expected[1][2].tolist() and hit[1][3].tolist() == expected[1][3].tolist()
        assert width * T <= hit[1][1] and (hit[1][1] < T if strict else hit[1][1] <= T)


# --------------------------------------------------------------------------- advice


@settings(max_examples=40)
@given(advised_problems(), st.booleans(), st.booleans())
def test_modifications_are_actionable_advice_by_default(problem, blocks, relaxed):
    encoder, Z, coef, b, groups = problem
    kw = dict(coef=coef, intercept=b, encoder=encoder, protected_group="P", tolerance=1 / 2)
    if relaxed:
        kw["actionable"] = False
    res = raguel_block(Z, groups, block_size=2, **kw) if blocks else raguel(Z, groups, **kw)
    X_new = np.asarray(res.X_new)
    ok = encoder.actionable(Z, X_new)
    assert encoder.feasible(Z, X_new).all()
    assert res.actionable[~res.changed].isna().all()  # no modification, no advice
    assert res.actionable[res.changed].tolist() == ok[res.changed].tolist()
    assert res.advice == ("actionable" if ok[res.changed].all() else "relaxation")
    if not relaxed:  # the default: every modification is advice a person could follow
        assert ok.all() and res.advice == "actionable"
        if len(res.interventions):
            assert res.interventions["actionable"].all()
    np.testing.assert_array_equal(res.cost_new, _linear.closed_form(
        _linear.parse_problem(X_new, coef, b, None, encoder=encoder))[1])  # costs: the relaxed closed form


def test_actionable_advice_on_german_credit_keeps_the_book_policy(german):
    from recourselab.models import train_model

    trained = train_model(german, random_state=0)
    encoder = trained.encoder
    Z = encoder.transform(german.frame)
    refused = ~trained.decide(Z)
    groups = np.where(german.frame["marital_status"].to_numpy()[refused] == "single", "single", "other")
    kw = dict(coef=trained.model.coef_[0], intercept=float(trained.model.intercept_[0]), encoder=encoder,
              protected_group="single", tolerance=1 / 8)
    advised = raguel_block(Z[refused], groups, n_blocks=15, **kw)
    relaxed = raguel_block(Z[refused], groups, n_blocks=15, actionable=False, **kw)
    assert advised.advice == "actionable" and advised.changed.any()
    assert encoder.actionable(Z[refused], np.asarray(advised.X_new)).all()
    never = {s.name for s in encoder.specs_ if s.advice_direction == "never"}  # credit history, age, housing, ...
    assert not set(advised.interventions["feature"]) & never
    assert relaxed.advice == "relaxation"  # the relaxed run advises what the policy forbids, or beyond a cap
    assert (~relaxed.actionable[relaxed.changed]).any()

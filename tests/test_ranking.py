"""RAGUEL and friends: the paper's Example 1 exactly, properties against slow references, bad input."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from recourselab.counterfactuals import _linear
from recourselab.fair_ranking.ranking import (
    _Engine,
    _fail_probability,
    best_ratio_with_one_more,
    fair_adjusted_alpha,
    fair_minimum_table,
    fair_representation,
    fair_rerank,
    linear_recourse,
    raguel,
    raguel_block,
    ranked_fair_representation,
    ranked_recourse_fairness,
    ranking_metrics,
    recourse_fairness_ratio,
    rerank_by_cost,
    rkl,
    rnd,
    rrd,
)

# Example 1 / Table 2 of the paper: loan amount (LA, $'000) and duration (LD, years)
EXAMPLE = pd.DataFrame({"LA": [3.5, 2.0, 4.0, 5.0], "LD": [6.0, 1.0, 4.0, 4.0]},
                       index=["Abdul", "Bogdan", "Chiara", "Diana"])
GENDER = np.array(["M", "M", "F", "F"])
# rejected where 2 LA - LD > 0: favourable when -2 LA + LD >= 0
BOUNDARY = {"coef": [-2.0, 1.0], "intercept": 0.0, "weights": [0.5, 1.0]}
RAGUEL_EXAMPLE = {**BOUNDARY, "steps": [0.05, 1.0], "protected_group": "F", "tolerance": 1 / 2}


# --------------------------------------------------------------------------- worked examples


def test_example1_costs_and_counterfactuals():
    res = linear_recourse(EXAMPLE, **BOUNDARY)
    assert res.cost.round(2).tolist() == [0.33, 1.00, 1.33, 2.00]
    assert res.X_cf.round(2).to_numpy().tolist() == [[3.06, 6.11], [0.67, 1.33], [2.22, 4.44], [2.33, 4.67]]
    assert list(res.X_cf.index) == list(EXAMPLE.index)
    assert (res.status == "projected").all()
    assert res.to_frame()["n_changed"].tolist() == [2, 2, 2, 2]


def test_example1_raguel_table2():
    res = raguel(EXAMPLE, GENDER, **RAGUEL_EXAMPLE)
    assert res.order.tolist() == [0, 2, 1, 3]  # Abdul, Chiara, Bogdan, Diana
    assert res.exit_at is None and res.unattainable.tolist() == []
    assert res.changed.tolist() == [False, False, True, False]
    assert res.X_new.loc["Chiara", "LA"] == pytest.approx(3.45)
    assert res.X_new.loc["Chiara", "LD"] == 4.0  # only the loan amount changed
    assert res.X_new.drop("Chiara").equals(EXAMPLE.drop("Chiara"))
    assert res.cost.round(2).tolist() == [0.33, 1.00, 1.33, 2.00]
    assert res.cost_new.round(2).tolist() == [0.33, 1.00, 0.97, 2.00]
    lines = res.interventions
    assert len(lines) == 1
    line = lines.iloc[0]
    assert (line["row"], line["feature"], line["before"], line["steps"]) == (2, "LA", 4.0, 11)  # $550 in $50 steps
    assert line["after"] == pytest.approx(3.45)
    assert res.rho_after > res.rho_before
    frame = res.to_frame()
    assert frame["row"].tolist() == [0, 2, 1, 3] and frame["fair"].all()
    # the input is untouched
    assert EXAMPLE.loc["Chiara", "LA"] == 4.0


def test_example1_blocks():
    two = raguel_block(EXAMPLE, GENDER, **RAGUEL_EXAMPLE, block_size=2)
    # Chiara lowers her amount until she belongs to the first block: cost 1/3, Abdul's
    assert two.order.tolist() == [0, 2, 1, 3]
    assert two.X_new.loc["Chiara", "LA"] == pytest.approx(2.5)
    assert two.cost_new[2] == pytest.approx(1 / 3)
    assert two.block.tolist() == [0, 0, 1, 1]
    assert (two.blocks_unfair_before, two.blocks_unfair_after) == (2, 0)
    assert two.swaps[["block", "out_row", "in_row"]].to_numpy().tolist() == [[0, 1, 2]]
    table = two.to_frame()
    assert table["share_before"].tolist() == [0.0, 1.0] and table["share_after"].tolist() == [0.5, 0.5]
    # one block of four is already balanced: nothing to do
    four = raguel_block(EXAMPLE, GENDER, **RAGUEL_EXAMPLE, n_blocks=1)
    assert four.order.tolist() == [0, 1, 2, 3] and not four.changed.any() and four.blocks_unfair_after == 0


def test_rho_of_table3():
    rng = np.random.default_rng(0)
    single = rng.uniform(0, 15, 400)
    married = rng.uniform(0, 12, 300)
    single *= 7.688 / single.mean()
    married *= 5.837 / married.mean()
    costs = np.concatenate([single, married])
    groups = ["single"] * 400 + ["married"] * 300
    assert round(recourse_fairness_ratio(costs, groups), 3) == 0.759
    assert recourse_fairness_ratio([1.0, 2.0, 4.0], ["a", "b", "c"]) == 0.25  # min over max of three groups
    assert recourse_fairness_ratio([0.0, 0.0], ["a", "b"]) == 1.0


def test_fair_representation_band():
    assert fair_representation(["F", "M", "M", "M", "M", "M", "M", "M", "M", "M"], "F", p=0.3) is False
    assert fair_representation(["F", "F", "M", "M", "M", "M", "M", "M", "M", "M"], "F", p=0.3)  # 20%: edge
    assert fair_representation(["F"] * 4 + ["M"] * 6, "F", p=0.3)  # 40%: edge, despite 0.4 - 0.3 > 0.1 in floats
    assert not fair_representation(["F"] * 5 + ["M"] * 5, "F", p=0.3)
    # several protected labels: each within its own band
    groups = ["a", "b", "c", "c"]
    assert fair_representation(groups, ["a", "b"], 1 / 2, p={"a": 0.25, "b": 0.25})
    assert not fair_representation(groups, ["a", "b"], 1 / 2, p={"a": 0.25, "b": 0.6})


# --------------------------------------------------------------------------- slow references


def slow_ranked_representation(groups, protected, t, p):
    out = []
    for k in range(1, len(groups) + 1):
        share = sum(g == protected for g in groups[:k]) / k
        out.append(k == 1 or abs(share - p) <= p * t + 1e-9)
    return out


def slow_ranked_rho(costs, groups):
    out = []
    for k in range(1, len(costs) + 1):
        means = {}
        for c, g in zip(costs[:k], groups[:k], strict=True):
            means.setdefault(g, []).append(c)
        values = [sum(v) / len(v) for v in means.values()]
        out.append(1.0 if len(values) < 2 or max(values) == 0 else min(values) / max(values))
    return out


def slow_metric(name, prot, cutoff=10):
    N, S = len(prot), sum(prot)

    def raw(ranking):
        total = 0.0
        for i in range(cutoff, N + 1, cutoff):
            c = sum(ranking[:i])
            if name == "rND":
                term = abs(c / i - S / N)
            elif name == "rRD":
                term = abs((c / (i - c) if i - c else 0.0) - S / (N - S))
            else:
                term = sum(a * (math.log(max(a, 1e-12)) - math.log(b)) for a, b in ((c / i, S / N),
                                                                                  (1 - c / i, 1 - S / N)))
            total += term / math.log2(i)
        return total

    Z = max(raw([0] * (N - S) + [1] * S), raw([1] * S + [0] * (N - S)))
    return raw(list(prot)) / Z if Z > 0 else 0.0


def margin_in_column_order(x, coef, b):
    s = float(b)
    for j in range(len(coef)):
        if coef[j] != 0:
            s += float(x[j]) * float(coef[j])
    return s


def stepping_reference(X, coef, b, weights, steps, mutable, lower, upper, max_steps, row, T, strict):
    """Algorithm 1's modification done literally: combinations in order, one step per iteration.

    The cost of a modified row is linear_recourse's (the box-constrained projection; it has its own
    brute-force test below), so this checks the search: combination order and fewest iterations.
    """
    free = [j for j in range(len(coef)) if mutable[j] and coef[j] != 0]
    order = sorted(free, key=lambda j: (weights[j], j))
    immutable = [j for j in range(len(coef)) if not mutable[j]]

    def cost(x):
        return float(linear_recourse(x[None, :], coef, b, weights, immutable=immutable,
                                     bounds=(lower, upper)).cost[0])

    def ok(c):
        return c < T if strict else c <= T

    x0 = X[row]
    if ok(cost(x0)):
        return [], []
    caps = {}
    for j in order:
        room = upper[j] - x0[j] if coef[j] > 0 else x0[j] - lower[j]
        caps[j] = max_steps if math.isinf(room) else int(min(max(math.floor(room / steps[j] + 1e-9), 0), max_steps))
    for size in range(1, len(order) + 1):
        for combo in itertools.combinations(order, size):
            for n in range(1, max(caps[j] for j in combo) + 1):
                x = x0.copy()
                for j in combo:
                    x[j] = x0[j] + (np.sign(coef[j]) * steps[j]) * min(n, caps[j])
                if ok(cost(x)):
                    return list(combo), [min(n, caps[j]) for j in combo]
                if margin_in_column_order(x, coef, b) >= 0:
                    break  # reached the favourable side: no further steps
    return None


# --------------------------------------------------------------------------- strategies


@st.composite
def instances(draw, min_rows=3, max_rows=14, max_features=4, balanced=False, tight=False):
    """Small exact-arithmetic instances: integer features and coefficients, dyadic steps and weights.

    ``tight``: every feature mutable with a nonzero coefficient and narrow
    bounds, so that single attributes often cannot reach a target and
    combinations of attributes are needed.
    """
    n = draw(st.integers(min_rows, max_rows))
    d = draw(st.integers(2 if tight else 1, max_features))
    X = np.array(draw(st.lists(st.lists(st.integers(-6, 6), min_size=d, max_size=d), min_size=n, max_size=n)),
                 dtype=float)
    nonzero = st.integers(-3, 3).filter(bool) if tight else st.integers(-3, 3)
    coef = np.array(draw(st.lists(nonzero, min_size=d, max_size=d)), dtype=float)
    mutable = np.ones(d, dtype=bool) if tight else np.array(draw(st.lists(st.booleans(), min_size=d, max_size=d)))
    assume((mutable & (coef != 0)).any())
    weights = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=d, max_size=d)))
    steps = np.array(draw(st.lists(st.sampled_from([0.25, 0.5, 1.0]), min_size=d, max_size=d)))
    b = float(draw(st.integers(-12, 4)))
    if balanced:
        n -= n % 2
        assume(n >= 4)
        X = X[:n]
        groups = np.array(draw(st.permutations(["P"] * (n // 2) + ["N"] * (n // 2))))
    else:
        groups = np.array(draw(st.lists(st.sampled_from(["P", "N", "N"]), min_size=n, max_size=n)))
        assume(len(set(groups)) == 2)
    # a cost disadvantage for the protected group, so that re-ranking has work to do
    shift = draw(st.integers(0, 3))
    X[groups == "P"] -= shift * np.sign(coef) * mutable
    width = draw(st.sampled_from([1.0, 2.0] if tight else [2.0, 4.0, 9.0, np.inf]))
    lower, upper = np.full(d, -width), np.full(d, width)
    if tight:
        X = np.clip(X, -width, width)
    return dict(X=X, groups=groups, coef=coef, intercept=b, weights=weights, steps=steps,
                immutable=np.flatnonzero(~mutable).tolist(), bounds=(lower, upper), mutable=mutable)


def with_recourse(inst, every_row=False):
    """The instance restricted to rows that some allowed move brings to the favourable side.

    RAGUEL compares group mean costs, so it refuses rows whose recourse cost is inf; this is
    the filtering its error message asks a user to do.
    """
    cost = linear_recourse(inst["X"], inst["coef"], inst["intercept"], inst["weights"], immutable=inst["immutable"],
                           bounds=inst["bounds"]).cost
    keep = np.isfinite(cost)
    assume(keep.all() if every_row else keep.sum() >= 3 and len(set(inst["groups"][keep])) == 2)
    return {**inst, "X": inst["X"][keep], "groups": inst["groups"][keep]}


def make_engine(inst, max_steps):
    problem = _linear.parse_problem(inst["X"], inst["coef"], inst["intercept"], inst["weights"],
                                    immutable=inst["immutable"], bounds=inst["bounds"])
    return _Engine(problem, inst["steps"], max_steps)


def kwargs_of(inst, **extra):
    keys = ("coef", "intercept", "weights", "steps", "immutable", "bounds")
    return {**{k: inst[k] for k in keys}, **extra}


# --------------------------------------------------------------------------- recourse to the boundary


def test_scikit_learn_coefficients():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["income", "debt", "age"])
    y = (X["income"] - X["debt"] > 0).astype(int)
    model = LogisticRegression().fit(X, y)  # coef_ of shape (1, 3), intercept_ of shape (1,)
    res = linear_recourse(X, model.coef_, model.intercept_, {"income": 1.0, "debt": 2.0, "age": 1.0},
                          immutable=["age"])
    refused = model.predict(X) == 0
    assert (res.cost[refused] > 0).all() and (res.cost[~refused] == 0).all()
    assert (model.predict_proba(res.X_cf)[:, 1] >= 0.5 - 1e-9).all()
    assert (res.X_cf["age"] == X["age"]).all()


@given(instances())
def test_closed_form_lands_on_the_boundary(inst):
    X = inst["X"]
    kw = kwargs_of(inst)
    kw.pop("steps")
    kw.pop("bounds")
    res = linear_recourse(X, **kw)
    margin = X @ inst["coef"] + inst["intercept"]
    unfav = margin < 0
    cf_margin = res.X_cf @ inst["coef"] + inst["intercept"]
    # on the favourable side by a hair (the slack), so the model's own arithmetic approves every counterfactual
    slack = 1e-9 * (1 + abs(inst["intercept"]) + np.abs(inst["coef"]).sum())
    assert (cf_margin[unfav] >= 0).all()
    np.testing.assert_allclose(cf_margin[unfav], slack, rtol=1e-6, atol=1e-12)
    assert (res.cost[~unfav] == 0).all() and np.array_equal(res.X_cf[~unfav], X[~unfav])
    frozen = ~inst["mutable"]
    np.testing.assert_array_equal(res.X_cf[:, frozen], X[:, frozen])
    w = np.where(inst["mutable"], inst["weights"], 0.0)
    np.testing.assert_allclose(res.cost, np.sqrt((w * res.delta ** 2).sum(axis=1)), atol=1e-9)
    assert not X.flags.writeable or (X == inst["X"]).all()


@settings(max_examples=12)
@given(instances(max_rows=4, max_features=3), st.booleans())
def test_mip_against_closed_form(inst, one_feature):
    X, coef, w = inst["X"], inst["coef"].copy(), inst["weights"]
    mutable = inst["mutable"].copy()
    if one_feature:  # a single mutable feature: L1 and L2 coincide, so the MIP finds the projection
        j = int(np.flatnonzero(mutable & (coef != 0))[0])
        mutable[:] = False
        mutable[j] = True
    immutable = np.flatnonzero(~mutable).tolist()
    closed = linear_recourse(X, coef, inst["intercept"], w, immutable=immutable)
    mip = linear_recourse(X, coef, inst["intercept"], w, immutable=immutable, method="mip", time_limit=20)
    solved = mip.status == "optimal"
    assert ((mip.status == "optimal") | (mip.status == "favourable")).all()
    assert (mip.X_cf[solved] @ coef + inst["intercept"] >= -1e-6).all()
    assert (mip.cost >= closed.cost - 1e-6).all()
    np.testing.assert_array_equal(mip.X_cf[:, ~mutable], X[:, ~mutable])
    if one_feature:
        np.testing.assert_allclose(mip.cost, closed.cost, atol=1e-6)
        np.testing.assert_allclose(mip.X_cf, closed.X_cf, atol=1e-6)


@settings(max_examples=10)
@pytest.mark.filterwarnings("ignore:.*cannot reach the favourable side")
@given(instances(max_rows=4, max_features=3))
def test_mip_with_steps_and_bounds(inst):
    lower, upper = np.full(inst["X"].shape[1], -9.0), np.full(inst["X"].shape[1], 9.0)
    res = linear_recourse(inst["X"], inst["coef"], inst["intercept"], inst["weights"], immutable=inst["immutable"],
                          steps=inst["steps"], bounds=(lower, upper), method="mip", time_limit=20)
    ok = (res.status == "optimal")
    n_steps = res.delta[ok] / inst["steps"]
    np.testing.assert_allclose(n_steps, np.round(n_steps), atol=1e-9)
    assert (res.X_cf[ok] >= lower - 1e-9).all() and (res.X_cf[ok] <= upper + 1e-9).all()
    assert (res.X_cf[ok] @ inst["coef"] + inst["intercept"] >= -1e-9).all()
    assert set(res.status) <= {"optimal", "favourable", "infeasible"}
    assert np.isinf(res.cost[res.status == "infeasible"]).all()


@given(st.one_of(instances(max_rows=6), instances(max_rows=6, tight=True)),
       st.sampled_from([0.0, 0.2, 0.5, 0.8, 0.95, 1.0]), st.booleans(), st.sampled_from([3, 10_000]))
def test_closed_form_step_count_matches_stepping(inst, fraction, strict, max_steps):
    lower, upper = inst["bounds"]
    engine = make_engine(inst, max_steps)
    for row in range(len(inst["X"])):
        if not np.isfinite(engine.cost0[row]):  # the box leaves this row without recourse
            assert engine.find(row, 1.0, strict=strict) is None
            continue
        T = fraction * engine.cost0[row]  # a target below the row's cost: it has to move
        fast = engine.find(row, T, strict=strict)
        slow = stepping_reference(inst["X"], inst["coef"], inst["intercept"], inst["weights"], inst["steps"],
                                  inst["mutable"], lower, upper, max_steps, row, T, strict)
        if slow is None:
            assert fast is None
            continue
        assert fast is not None
        _, cost, cols, eff = fast
        assert cols.tolist() == slow[0] and eff.tolist() == slow[1]
        assert (cost < T) if strict else (cost <= T)


@given(st.one_of(instances(max_rows=8), instances(max_rows=8, tight=True)), st.sampled_from([0.3, 0.6, 0.9]),
       st.sampled_from([0.0, 0.5, 0.9, 0.99]), st.booleans())
def test_first_row_search_equals_row_by_row(inst, level, width, strict):
    # find_first screens all rows x all combinations at once (a lenient necessary condition): it must
    # return the first row that the exact row-by-row search accepts, with the same modification
    engine = make_engine(inst, 10_000)
    rows = np.arange(len(inst["X"]))
    finite = engine.cost0[np.isfinite(engine.cost0)]  # rows the box leaves without recourse cost inf
    assume(finite.size > 0)
    T = level * float(finite.max())
    c_lo = np.full(len(rows), width * T)  # a window of admissible new costs [width * T, T]
    c_hi = np.full(len(rows), T)

    def accept(c, i):
        return c >= width * T

    hit = engine.find_first(rows, T, strict=strict, c_lo=c_lo, c_hi=c_hi, accept=accept)
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


# --------------------------------------------------------------------------- RAGUEL


def check_rerank(inst, res):
    X, n = inst["X"], len(inst["X"])
    assert sorted(res.order.tolist()) == list(range(n))
    frozen = ~inst["mutable"]
    np.testing.assert_array_equal(res.X_new[:, frozen], X[:, frozen])
    assert np.array_equal(res.X_new[~res.changed], X[~res.changed])
    assert (res.cost_new[res.changed] < res.cost[res.changed]).all()
    np.testing.assert_array_equal(res.cost_new[~res.changed], res.cost[~res.changed])
    recomputed = linear_recourse(res.X_new, inst["coef"], inst["intercept"], inst["weights"],
                                 immutable=inst["immutable"], bounds=inst["bounds"]).cost
    np.testing.assert_array_equal(res.cost_new, recomputed)  # the same cost, bit for bit
    lower, upper = inst["bounds"]
    assert ((res.X_new >= np.minimum(lower, X)) & (res.X_new <= np.maximum(upper, X))).all()
    lines = res.interventions
    assert set(lines["row"]) == set(np.flatnonzero(res.changed).tolist())


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
        before = cum[pos - 1]
        assert pos in res.unattainable
        assert all(abs((before + extra) / k - p) > p * t + 1e-9 for extra in (0, 1))
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


# --------------------------------------------------------------------------- RAGUEL-Block


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


# --------------------------------------------------------------------------- ranked fairness checks


@given(st.lists(st.sampled_from(["P", "N"]), min_size=1, max_size=30), st.sampled_from([1 / 5, 1 / 3, 1 / 2, 1.0]),
       st.sampled_from([0.2, 0.3, 0.5]))
def test_ranked_representation_matches_loop(groups, t, p):
    check = ranked_fair_representation(groups, "P", t, p=p)
    assert check.per_prefix.tolist() == slow_ranked_representation(groups, "P", t, p)
    assert check.fair == all(check.per_prefix)


@given(st.lists(st.tuples(st.floats(0, 10), st.sampled_from(["a", "b", "c"])), min_size=2, max_size=30),
       st.floats(0, 1))
def test_ranked_rho_matches_loop(pairs, beta):
    costs, groups = zip(*pairs, strict=True)
    assume(len(set(groups)) >= 2)
    check = ranked_recourse_fairness(costs, groups, beta)
    np.testing.assert_allclose(check.value, slow_ranked_rho(list(costs), list(groups)), rtol=1e-12, atol=1e-12)
    assert check.per_prefix.tolist() == [v >= 1 - beta - 1e-12 for v in check.value]


# --------------------------------------------------------------------------- ranking-quality metrics


def test_metrics_zero_when_proportional_and_one_at_worst():
    proportional = [1, 0, 0, 1, 0, 0, 1, 0, 0, 0] * 10
    assert ranking_metrics(proportional) == {"rKL": 0.0, "rND": 0.0, "rRD": 0.0}
    top = [1] * 30 + [0] * 70
    bottom = [0] * 70 + [1] * 30
    for metric in (rnd, rkl, rrd):
        worst = max(metric(top), metric(bottom))
        assert worst == pytest.approx(1.0)
        assert 0 <= min(metric(top), metric(bottom)) <= 1


@given(st.lists(st.booleans(), min_size=10, max_size=80), st.sampled_from([2, 5, 10]))
def test_metrics_match_loop_and_lie_in_unit_interval(prot, cutoff):
    assume(0 < sum(prot) < len(prot))
    values = ranking_metrics(prot, cutoff)
    for name, value in values.items():
        assert 0 <= value <= 1
        slow = slow_metric(name, [int(v) for v in prot], cutoff)
        assert slow <= 1 + 1e-12 or name == "rRD"  # rND and rKL: the extremes are the worst case
        assert value == pytest.approx(min(slow, 1.0), abs=1e-12)


# --------------------------------------------------------------------------- FA*IR


def test_fair_tables_reproduce_fairsearchcore():
    assert fair_minimum_table(20, 0.25, 0.1).tolist() == [0] * 8 + [1] * 6 + [2] * 5 + [3]
    assert fair_adjusted_alpha(20, 0.25, 0.1) == 0.078125
    assert fair_adjusted_alpha(10, 0.2, 0.15) == 0.15
    assert fair_adjusted_alpha(30, 0.3, 0.15) == pytest.approx(0.0796875)
    assert fair_minimum_table(20, 0.25, 0.078125).tolist() == [0] * 8 + [1] * 7 + [2] * 5
    assert _fail_probability(fair_minimum_table(20, 0.25, 0.078125), 0.25) == pytest.approx(0.10515247355215251)
    assert _fail_probability(fair_minimum_table(10, 0.2, 0.15), 0.2) == pytest.approx(0.134217728)


@given(st.integers(1, 10), st.sampled_from([0.2, 0.3, 0.5, 0.7]), st.sampled_from([0.05, 0.1, 0.3]))
def test_fail_probability_matches_enumeration(k, p, alpha):
    m = fair_minimum_table(k, p, alpha)
    fail = 0.0
    for seq in itertools.product([0, 1], repeat=k):
        cum = np.cumsum(seq)
        if any(cum[i] < m[i] for i in range(k - 1)):  # positions 1..k-1, as fairsearchcore
            fail += p ** sum(seq) * (1 - p) ** (k - sum(seq))
    assert _fail_probability(m, p) == pytest.approx(fail, abs=1e-12)


@given(st.lists(st.booleans(), min_size=2, max_size=40), st.sampled_from([0.2, 0.4, 0.6]),
       st.sampled_from([0.05, 0.1]), st.booleans(), st.randoms(use_true_random=False))
def test_fair_rerank_satisfies_its_table(prot, p, alpha, adjust, rnd_gen):
    n = len(prot)
    prot = np.array(prot)
    assume(prot.sum() >= np.ceil(p * n))  # enough protected records to meet the table everywhere
    order = list(range(n))
    rnd_gen.shuffle(order)
    out = fair_rerank(order, prot, p=p, alpha=alpha, adjust=adjust)
    assert sorted(out.tolist()) == list(range(n))
    a = fair_adjusted_alpha(n, p, alpha) if adjust else alpha
    m = fair_minimum_table(n, p, a)
    assert (np.cumsum(prot[out]) >= m).all()
    # within each group the given order is kept
    for flag in (True, False):
        mine = [r for r in out.tolist() if prot[r] == flag]
        assert mine == [r for r in order if prot[r] == flag]


def test_fair_rerank_kinds_agree():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4])
    prot = np.array([0, 0, 0, 1, 1, 1])
    by_order = fair_rerank(np.argsort(-scores), prot, p=0.5, alpha=0.1)
    assert fair_rerank(scores, prot, p=0.5, alpha=0.1, kind="score").tolist() == by_order.tolist()
    assert fair_rerank(-scores, prot, p=0.5, alpha=0.1, kind="cost").tolist() == by_order.tolist()
    assert fair_rerank(scores, prot, p=0.5, alpha=0.1, kind="score", k=3).tolist() == by_order[:3].tolist()


# --------------------------------------------------------------------------- bad input


def test_bad_input_messages():
    X = np.array([[1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 0.0, 1.0]])
    with pytest.raises(ValueError, match="coef has 3 entries but X has 4 columns"):
        linear_recourse(X, [1, 2, 3], 0.0, 1.0)
    with pytest.raises(ValueError, match=r"weights\[1\] = 0 on a mutable feature"):
        linear_recourse(X, [1, 1, 1, 1], 0.0, [1, 0, 1, 1])
    with pytest.raises(ValueError, match=r"weights\[0\] = -1 \('x0'\); recourse weights must be >= 0"):
        linear_recourse(X, [1, 1, 1, 1], 0.0, [-1, 1, 1, 1])
    linear_recourse(X, [1, 1, 1, 1], 0.0, [1, 0, 1, 1], immutable=[1])  # fine when that feature is immutable
    with pytest.raises(ValueError, match="every feature is immutable"):
        linear_recourse(X, [1, 1, 1, 1], 0.0, 1.0, immutable=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="column 'x2' of X has missing values"):
        linear_recourse(np.array([[1.0, 2.0, np.nan, 4.0]]), [1, 1, 1, 1], 0.0, 1.0)
    with pytest.raises(ValueError, match="column 'b' of X has missing values"):
        linear_recourse(pd.DataFrame({"a": [1.0], "b": [np.nan]}), [1, 1], 0.0, 1.0)
    with pytest.raises(ValueError, match="steps are only used by method='mip'"):
        linear_recourse(X, [1, 1, 1, 1], 0.0, 1.0, steps=0.1)
    with pytest.raises(ValueError, match="method='greedy' is not one of"):
        linear_recourse(X, [1, 1, 1, 1], 0.0, 1.0, method="greedy")
    kw = {"coef": [1, 1, 1, 1], "intercept": -20.0, "weights": 1.0, "steps": 0.5, "protected_group": "P"}
    with pytest.raises(ValueError, match="groups has a single value"):
        raguel(X, ["P", "P"], **kw)
    with pytest.raises(ValueError, match=r"tolerance=0 must lie in \(0, 1\]"):
        raguel(X, ["P", "N"], **kw, tolerance=0)
    with pytest.raises(ValueError, match=r"tolerance=1.5 must lie in \(0, 1\]"):
        fair_representation(["P"], "P", 1.5, p=0.5)
    with pytest.raises(ValueError, match="protected_group='F' is not a label of groups"):
        raguel(X, ["P", "N"], **{**kw, "protected_group": "F"})
    with pytest.raises(ValueError, match="every feature is immutable"):
        raguel(X, ["P", "N"], **kw, immutable=[0, 1, 2, 3])
    with pytest.raises(ValueError, match="coef has 2 entries but X has 4 columns"):
        raguel(X, ["P", "N"], **{**kw, "coef": [1, 1]})
    with pytest.raises(ValueError, match=r"weights\[2\] = 0 on a mutable feature"):
        raguel(X, ["P", "N"], **{**kw, "weights": [1, 1, 0, 1]})
    with pytest.raises(ValueError, match="groups has shape"):
        raguel(X, ["P", "N", "N"], **kw)
    with pytest.raises(ValueError, match="give exactly one of n_blocks and block_size"):
        raguel_block(X, ["P", "N"], **kw)
    with pytest.raises(ValueError, match="give exactly one of n_blocks and block_size"):
        raguel_block(X, ["P", "N"], **kw, n_blocks=1, block_size=2)
    with pytest.raises(ValueError, match="block_size=1 must lie in"):
        raguel_block(X, ["P", "N"], **kw, block_size=1)
    with pytest.raises(ValueError, match="groups has a single value"):
        recourse_fairness_ratio([1.0, 2.0], ["a", "a"])
    with pytest.raises(ValueError, match="costs has infinite entries"):
        recourse_fairness_ratio([1.0, np.inf], ["a", "b"])
    with pytest.raises(TypeError, match="p is required"):
        fair_representation(["P"], "P", p=None)
    with pytest.raises(ValueError, match="single value"):
        rnd([1] * 20)
    with pytest.raises(ValueError, match="cutoff=30 is larger than the ranking"):
        rnd([1, 0] * 10, cutoff=30)
    with pytest.raises(ValueError, match=r"beta=2 must lie in \[0, 1\]"):
        ranked_recourse_fairness([1.0, 2.0], ["a", "b"], 2)
    with pytest.raises(ValueError, match="must be a permutation"):
        fair_rerank([0, 0, 1], [1, 0, 0], p=0.3)
    with pytest.raises(ValueError, match=r"p=1.5 must lie strictly between 0 and 1"):
        fair_minimum_table(10, 1.5, 0.1)


def test_fair_representation_warns_about_a_protected_label_absent_from_the_set():
    with pytest.warns(UserWarning, match=r"protected_group label\(s\) \['Fmale'\] do not occur in groups"):
        assert not fair_representation(["F", "M", "M"], "Fmale", p=0.3)
    with pytest.raises(ValueError, match="groups has missing labels"):
        fair_representation(["F", None, "M"], "F", p=0.3)


def test_fair_rerank_rejects_fractional_positions_and_missing_flags():
    with pytest.raises(TypeError, match="must hold integer row positions with kind='order'"):
        fair_rerank([0, 2.5, 1], [1, 0, 0], p=0.3)
    assert fair_rerank(np.array([0.0, 2.0, 1.0]), [1, 0, 0], p=0.3).tolist() == [0, 2, 1]  # whole floats are fine
    with pytest.raises(ValueError, match=r"protected has missing flags \(first at row 2\)"):
        fair_rerank([0, 2, 1], [1, 0, None], p=0.3)
    with pytest.raises(TypeError, match="k=2.7 must be an integer"):
        fair_rerank([0, 2, 1], [1, 0, 0], p=0.3, k=2.7)


@settings(max_examples=80, deadline=None)
@given(costs=st.lists(st.floats(0.5, 10), min_size=1, max_size=8), labels=st.lists(st.sampled_from("abc"),
       min_size=8, max_size=8), group=st.sampled_from("abc"), below=st.floats(0.01, 12))
def test_best_ratio_with_one_more_is_the_supremum_over_a_fine_grid(costs, labels, group, below):
    groups = labels[:len(costs)]
    best = best_ratio_with_one_more(costs, groups, group, below=below)
    others = {g: np.mean([c for c, h in zip(costs, groups, strict=True) if h == g]) for g in set(groups) if g != group}
    if not others:
        assert np.isnan(best)
        return
    # brute force: rho of the prefix plus the new record, at every added cost of a fine grid
    grid = np.linspace(0, below, 20001)
    mine = [c for c, h in zip(costs, groups, strict=True) if h == group]
    mu = (sum(mine) + grid) / (len(mine) + 1)
    low, high = min(others.values()), max(others.values())
    scanned = np.minimum(mu, low) / np.maximum(mu, high)
    assert best >= scanned.max() - 1e-12  # no added cost does better
    # and the grid comes within its resolution: rho changes by at most 1 / ((n_g + 1) * low) per unit of cost
    assert best <= scanned.max() + (below / 20000) / ((len(mine) + 1) * low) + 1e-12


def test_best_ratio_with_one_more_rejects_a_bad_bound():
    with pytest.raises(ValueError, match="below=0.0 must be a positive finite cost"):
        best_ratio_with_one_more([1.0], ["a"], "b", below=0)
    with pytest.raises(ValueError, match="below=nan"):
        best_ratio_with_one_more([1.0], ["a"], "b", below=float("nan"))


# --------------------------------------------------------------------------- re-ranking from given per-row costs
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 10, allow_nan=False), st.sampled_from(["F", "M"])), min_size=2, max_size=40),
       st.sampled_from([1 / 3, 1 / 2, 1.0]))
def test_rerank_by_cost_keeps_records_and_costs_and_makes_prefixes_fair(rows, t):
    costs = np.array([c for c, _ in rows])
    groups = np.array([g for _, g in rows], dtype=object)
    assume(len(set(groups)) == 2)
    res = rerank_by_cost(costs, groups, protected_group="F", tolerance=t)
    assert sorted(res.order.tolist()) == list(range(len(costs)))
    np.testing.assert_array_equal(res.cost, costs)
    assert res.rho == recourse_fairness_ratio(costs, groups)  # no modification: the population's rho is unchanged
    p = np.mean(groups == "F")
    fair = ranked_fair_representation(groups[res.order], "F", t, p=p).per_prefix
    limit = len(costs) if res.exit_at is None else res.exit_at
    for k in range(1, limit):  # every prefix built before an exit is fair unless no group could make it fair
        assert fair[k] or k in res.unattainable.tolist()
    # a promoted row overtakes a cheaper one: its gap is its cost minus that row's, and only promoted rows have one
    assert (res.gap[~res.promoted] == 0).all() and (res.gap >= 0).all()
    by_cost = res.initial_order
    for i, row in enumerate(res.order):
        if res.promoted[row]:  # it overtook the best-ranked record not yet placed
            placed = set(res.order[:i].tolist())
            overtaken = next(int(r) for r in by_cost if int(r) not in placed)
            assert overtaken != row and res.gap[row] == pytest.approx(max(costs[row] - costs[overtaken], 0.0))
    np.testing.assert_array_equal(by_cost, np.lexsort((np.arange(len(costs)), costs)))
    if not res.promoted.any() and res.exit_at is None:
        np.testing.assert_array_equal(res.order, by_cost)


def test_rerank_by_cost_promotes_the_first_needed_record_and_reports_its_gap():
    res = rerank_by_cost([0.1, 0.2, 0.3, 0.5, 0.9], ["M", "M", "M", "F", "F"], protected_group="F", tolerance=1 / 2)
    assert res.order.tolist() == [0, 3, 1, 2, 4]
    assert res.promoted.tolist() == [False, False, False, True, False]
    assert res.gap[3] == pytest.approx(0.5 - 0.2)  # the woman overtook the man with cost 0.2
    check = res.check()
    assert check.loc["re-ranked", "fair prefixes"] > check.loc["by cost", "fair prefixes"]
    assert check.loc["re-ranked", "population rho"] == check.loc["by cost", "population rho"]
    # prefixes with both groups: by cost the worst is the whole list (0.2 / 0.7), re-ranked it is [0, 3] (0.1 / 0.5)
    assert check.loc["by cost", "min prefix rho"] == pytest.approx(0.2 / 0.7)
    assert check.loc["re-ranked", "min prefix rho"] == pytest.approx(0.2)
    assert "recourse-fair prefixes" not in check.columns  # only with beta
    frame = res.to_frame()
    assert frame["promoted"].sum() == 1 and frame.loc[1, "gap"] == pytest.approx(0.3)


def test_rerank_by_cost_with_beta_keeps_each_promotion_recourse_fair():
    costs = [1.0, 1.1, 1.2, 1.3, 3.0, 3.1, 3.2, 3.3]
    groups = ["M", "M", "M", "M", "F", "F", "F", "F"]
    free = rerank_by_cost(costs, groups, protected_group="F", tolerance=1 / 2)
    assert free.order[1] == 4 and free.gap[4] == pytest.approx(1.9)  # the cheapest woman overtakes the 1.1 man
    strict = rerank_by_cost(costs, groups, protected_group="F", tolerance=1 / 2, beta=0.2)
    assert strict.exit_at == 1 and strict.n_promoted == 0  # any woman would pull the prefix's rho below 0.8
    rng = np.random.default_rng(0)
    for _ in range(30):
        c = rng.uniform(0, 2, 30) + np.r_[np.zeros(20), np.full(10, 0.5)]
        g = np.array(["M"] * 20 + ["F"] * 10, dtype=object)
        res = rerank_by_cost(c, g, protected_group="F", tolerance=1 / 3, beta=0.3)
        rho = ranked_recourse_fairness(c[res.order], g[res.order], 0.3).value
        for position, row in enumerate(res.order):
            if res.promoted[row]:
                assert rho[position] >= 0.7 - 1e-12


def test_rerank_by_cost_refuses_bad_input():
    with pytest.raises(ValueError, match="infinite"):
        rerank_by_cost([0.1, np.inf], ["M", "F"], protected_group="F")
    with pytest.raises(ValueError, match="single value"):
        rerank_by_cost([0.1, 0.2], ["M", "M"], protected_group="M")
    with pytest.raises(ValueError, match="not a label"):
        rerank_by_cost([0.1, 0.2], ["M", "F"], protected_group="X")
    with pytest.raises(ValueError, match="tolerance"):
        rerank_by_cost([0.1, 0.2], ["M", "F"], protected_group="F", tolerance=0)
    with pytest.raises(ValueError, match="negative"):
        rerank_by_cost([-0.1, 0.2], ["M", "F"], protected_group="F")

"""The capstone's lens helpers (recourselab.lenses): populations, the truth, drawn budgets, actionable advice."""

import networkx as nx
import numpy as np
import pytest

import recourselab as rl
from recourselab import allocation as al
from recourselab import lenses

DAG = nx.DiGraph([("sex", c) for c in ["age", "credit_amount", "duration", "employment_since", "savings"]]
                 + [("age", "employment_since")])
UTILITY = al.LendingUtility(G1=0.06, G2=4.0, C=0.5)


@pytest.fixture(scope="module")
def world():
    german = rl.load_german_credit()
    data = rl.Dataset(frame=german.frame.drop(columns="marital_status"), target=german.target, protected=("sex",),
                      features=tuple(s for s in german.features if s.name != "marital_status"),
                      citation=german.citation, description="German Credit without marital status")
    return lenses.planted_world(data, protected_value="female", rate=0.25, random_state=0)


def test_the_truth_is_refused_women_the_reference_approves(world):
    assert world.harmed.any()
    assert not (world.harmed & ~(world.protected & world.refused & world.approved_reference)).any()
    assert np.array_equal(world.harmed, world.history.harmed())


def test_every_lens_flags_only_its_population(world):
    found = [lenses.face_lens(world, [2.0, 2.5, 3.0]), lenses.cst_lens(world, DAG),
             lenses.cec_lens(world, ["credit_amount", "duration", "age"]), lenses.ranking_lens(world),
             lenses.budget_lens(world, UTILITY)]
    for lens in found:
        assert not (lens.flags & ~lens.population).any()
    cst = found[1]
    for extra in (cst.st, cst.flip, cst.sex_flip):
        assert not (extra & ~cst.population).any()
    assert not found[3].flags.any()  # a waiting list detects nobody


def test_without_edges_out_of_sex_the_counterfactual_flip_is_the_sex_only_flip(world):
    direct = nx.DiGraph([("age", "employment_since")])
    direct.add_node("sex")
    cst = lenses.cst_lens(world, direct)
    assert np.array_equal(cst.flip, cst.sex_flip)


def test_on_a_linear_model_the_sex_only_flip_is_the_margin_rule(world):
    sex_flip = lenses.cst_lens(world, DAG).sex_flip
    margin = lenses.closest_to_boundary(world, int(sex_flip.sum()))
    assert np.array_equal(margin, sex_flip)  # the switch adds one weight: the closest k cross the boundary
    proba = world.audited.proba(world.Z)
    inside = world.protected & world.refused
    assert proba[margin].min() >= proba[inside & ~margin].max()


def test_regime_d_flags_are_flipped_pairs(world):
    cec = lenses.cec_lens(world, ["credit_amount", "duration", "age"])
    assert not (cec.flags & ~cec.flipped).any()
    assert list(cec.summary.index) == ["audited", "reference"]


def test_each_round_draws_its_budget(world):
    money = lenses.budget_lens(world, UTILITY, rounds=15)
    assert len(money.budgets) == 15 and len(np.unique(money.budgets)) > 1
    assert not (money.flags & money.lent).any()
    assert money.caused_share == pytest.approx(money.flags.sum() / (~money.lent).sum())
    for v in (money.valid_static, money.valid_robust):
        assert len(v) == money.flags.sum() and ((v >= 0) & (v <= 1)).all()
    with pytest.raises(ValueError):
        lenses.budget_lens(world, UTILITY, funded_share=1.5)
    with pytest.raises(ValueError):
        lenses.budget_lens(world, UTILITY, rounds=0)


def test_ranking_advice_is_actionable_and_flips_the_model(world):
    rank = lenses.ranking_lens(world)
    ok = np.isfinite(rank.advice.cost)
    Z, Z_new = rank.X.to_numpy()[ok], np.asarray(rank.advice.X_cf)[ok]
    assert world.audited.encoder.actionable(Z, Z_new).all()
    assert world.audited.decide(Z_new).all()
    assert int(rank.no_advice.sum()) == int((~ok).sum())
    assert 0 < rank.rho <= 1 and 0 < rank.rho_reference <= 1


def test_truth_table_against_chance(world):
    table = lenses.truth_table(world, {"all refused": world.refused, "the truth": world.harmed})
    every = table.loc["all refused"]
    assert every["flagged"] == every["population"] and every["lift"] == pytest.approx(1.0)
    assert every["recall"] == 1 and every["precision"] == pytest.approx(every["base rate"])
    exact = table.loc["the truth"]
    assert exact["precision"] == 1 and exact["recall"] == 1 and exact["p-value"] < 1e-6
    assert exact["chance low"] <= exact["expected"] <= exact["chance high"] < exact["hits"]


def test_ranking_advice_is_the_cheapest_by_brute_force():
    # a small instance: German Credit with six discrete features, so every whole-step move of every
    # refused row can be enumerated; the advice ranking_lens uses must cost what the cheapest grid point
    # costs (its first version snapped the projection onto levels: 7 moves where one sufficed)
    from recourselab.counterfactuals import _linear
    from recourselab.counterfactuals.paper import enumerate_level_recourse

    german = rl.load_german_credit()
    keep = ["checking_account", "savings", "employment_since", "job", "telephone", "sex"]
    data = rl.Dataset(frame=german.frame[keep + [german.target]], target=german.target, protected=("sex",),
                      features=tuple(s for s in german.features if s.name in keep),
                      citation=german.citation, description="German Credit, six discrete features")
    small = lenses.planted_world(data, protected_value="female", rate=0.25, random_state=0)
    trained = small.audited
    X, advice = lenses.boundary_recourse(trained, small.Z, np.flatnonzero(small.refused), actionable=True)
    coef, b = trained.model.coef_[0], float(trained.model.intercept_[0])
    problem = _linear.parse_problem(X, coef, b, None, encoder=trained.encoder)
    lower, upper = _linear.advice_box(problem.box, trained.encoder).bounds(problem.A)
    step = _linear.unit_steps(trained.encoder)
    movable = ~np.isnan(step) & (upper > lower).any(axis=0)
    assert movable.sum() >= 4 and advice.advice == "actionable"
    checked = 0
    for i, x in enumerate(problem.A):
        x_best, best = enumerate_level_recourse(x[movable], coef[movable], b + coef[~movable] @ x[~movable],
                                                np.sqrt(problem.weights[movable]), lower[i][movable],
                                                upper[i][movable], step[movable], problem.slack)
        if x_best is None:
            assert np.isinf(advice.cost[i])
            continue
        checked += 1
        objective = np.sum(np.sqrt(problem.weights) * np.abs(advice.delta[i]))
        assert objective == pytest.approx(best, abs=1e-6)
    assert checked >= 10


def test_boundary_recourse_is_what_ranking_lens_reads_and_names_bad_input(world):
    rank = lenses.ranking_lens(world)
    rows = np.flatnonzero(world.refused)
    X, relaxed = lenses.boundary_recourse(world.audited, world.Z, rows, actionable=False)
    assert np.allclose(relaxed.cost, rank.relaxed.cost) and X.equals(rank.X)
    _, advice = lenses.boundary_recourse(world.audited, world.Z, rows[:5], actionable=True)
    assert np.allclose(advice.cost, rank.advice.cost[:5])  # the same rows give the same advice, alone or together
    assert (advice.cost >= relaxed.cost[:5] - 1e-9).all()  # the relaxation is a lower bound on the advice
    with pytest.raises(ValueError, match=r"rows\[0\]=9999 is not a row position"):
        lenses.boundary_recourse(world.audited, world.Z, [9999], actionable=False)
    with pytest.raises((TypeError, ValueError), match="actionable"):
        lenses.boundary_recourse(world.audited, world.Z, rows, actionable="yes")


def test_a_graph_on_all_applicants_links_more_refused_test_rows(world):
    test_only = lenses.face_lens(world, [2.0, 2.5, 3.0])
    everyone = lenses.face_lens(world, [2.0, 2.5, 3.0], nodes="all")
    assert np.array_equal(everyone.population, test_only.population)  # the refused test rows either way
    assert not (everyone.flags & ~everyone.population).any()
    assert everyone.flags.sum() < test_only.flags.sum()  # more nodes: waypoints and targets
    n_test = len(world.Z)
    assert (everyone.targets >= n_test).any() and np.array_equal(everyone.sources, test_only.sources)
    # a test row with a path on the small graph keeps one on the larger (its nodes are a subset), at the same ε
    same_eps = lenses.face_lens(world, [everyone.epsilon], nodes="all")
    small_eps = lenses.face_lens(world, [everyone.epsilon])
    assert not (same_eps.flags & ~small_eps.flags).any()
    with pytest.raises(ValueError, match="nodes='some'"):
        lenses.face_lens(world, [2.5], nodes="some")
    with pytest.raises(ValueError, match="with nodes='all' give one decision per node"):
        lenses.face_lens(world, [2.5], approved=world.approved_reference, nodes="all")
    both = np.concatenate([world.approved_reference, world.reference.decide(world.reference.Z_train)])
    reference = lenses.face_lens(world, [2.0, 2.5, 3.0], approved=both, nodes="all")
    assert np.array_equal(reference.population, ~world.approved_reference)

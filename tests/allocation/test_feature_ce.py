"""The feature counterfactual: feature_ce, graft_candidates and prune_move return advice a person could follow."""

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from recourselab.allocation import BudgetDistribution, feature_ce, graft_candidates, prune_move
from recourselab.counterfactuals import NO_COUNTERFACTUAL, nearest_counterfactuals
from recourselab.datasets import admissions_graduation_probability, make_admissions
from recourselab.features import Encoder, FeatureSpec

from strategies import specs_and_frames


@pytest.fixture(scope="module")
def admissions():
    return make_admissions(2000, random_state=1)


@pytest.fixture(scope="module")
def admissions_model(admissions):
    enc = admissions.encoder().fit(admissions.frame)
    Z = enc.transform(admissions.frame)
    model = LogisticRegression(max_iter=1000).fit(Z, admissions.y)
    return enc, Z, model, model.predict_proba(Z)[:, 1]


def test_feature_ce_is_the_cheapest_actionable_candidate_reaching_m_prime(admissions_model):
    enc, Z, model, proba = admissions_model
    index = int(np.argsort(proba)[200])
    res = feature_ce(model, Z, index, 0.7, enc)
    assert res.found and res.proba >= 0.7 and res.advice == "actionable"
    assert enc.actionable(Z[index], Z[res.target])[0]
    # brute force: every row reaching 0.7 whose move is actionable, cheapest first, ties to the lower row
    costs = [enc.cost(Z[[index]], Z[[j]])[0] if proba[j] >= 0.7 and enc.actionable(Z[[index]], Z[[j]])[0]
             else np.inf for j in range(len(Z))]
    assert res.target == int(np.argmin(costs)) and res.cost == pytest.approx(min(costs))
    # the relaxation: every feasible move, as nearest_counterfactuals finds it, and labelled so
    relaxed = feature_ce(model, Z, index, 0.7, enc, actionable=False)
    reach = np.flatnonzero(proba >= 0.7)
    assert relaxed.advice == "relaxation" and relaxed.cost <= res.cost
    assert relaxed.cost == pytest.approx(nearest_counterfactuals(Z[index], Z[reach], enc).best_cost[0])
    assert relaxed.to_frame()["advice"].tolist() == ["relaxation"]


def test_feature_ce_edge_cases(admissions_model):
    enc, Z, model, proba = admissions_model
    index = int(np.argsort(proba)[200])
    assert feature_ce(model, Z, index, proba[index] - 0.01, enc).cost == 0.0   # already there
    impossible = feature_ce(model, Z, index, 1.2, enc)                        # m' above 1: impossible
    assert not impossible.found and impossible.target == NO_COUNTERFACTUAL
    with pytest.raises(IndexError):  # an absent counterfactual cannot pick a row by mistake
        Z[impossible.target]
    assert impossible.to_frame()["target"].isna().all()
    reach = np.flatnonzero(proba >= 0.7)
    subset = feature_ce(model, Z, index, 0.7, enc, candidates=np.r_[index, reach[:5]])
    assert subset.target in reach[:5] or not subset.found
    mask = np.zeros(len(Z), dtype=bool)
    mask[reach[:5]] = True
    by_mask = feature_ce(model, Z, index, 0.7, enc, candidates=mask)
    assert (by_mask.target, by_mask.cost) == (subset.target, subset.cost)
    res = feature_ce(model, Z, index, 0.7, enc)
    assert res.to_frame().shape == (1, 8) and res.to_frame()["target"].iloc[0] == res.target


def test_feature_ce_takes_the_favourable_class(admissions_model):
    """A label where 1 is the unfavourable outcome (ProPublica's COMPAS: 1 = reoffends) needs favourable=0."""
    enc, Z, model, proba = admissions_model
    flipped = LogisticRegression(max_iter=1000).fit(Z, 1 - model.predict(Z))   # 1 = the bad outcome now
    straight = LogisticRegression(max_iter=1000).fit(Z, model.predict(Z))
    index = int(np.argsort(proba)[200])
    res = feature_ce(flipped, Z, index, 0.7, enc, favourable=0)
    same = feature_ce(straight, Z, index, 0.7, enc)
    assert (res.target, res.cost) == (same.target, same.cost)
    assert res.proba == pytest.approx(flipped.predict_proba(Z[[res.target]])[0, 0])
    # the default reads class 1 (here: the bad outcome), so without favourable=0 the answer differs
    assert feature_ce(flipped, Z, index, 0.7, enc).target != res.target


def test_make_admissions_rates_and_specs(admissions):
    data = make_admissions(10000, random_state=0)
    frame = data.frame
    p = frame["graduation_probability"]
    assert 0.5 <= (p > 0.5).mean() <= 0.6
    assert 0.35 <= frame["admitted"].mean() <= 0.45
    np.testing.assert_allclose(admissions_graduation_probability(frame), p)
    assert data.target == "graduated" and data.protected == ("first_generation",)
    acts = {s.name: s.actionability for s in data.features}
    assert acts == {"grade_average": "increase", "entrance_test": "increase", "extra_credits": "increase",
                    "age": "increase", "first_generation": "immutable"}
    rng = np.random.default_rng(0)
    budgets = BudgetDistribution.fit([frame["admitted"].iloc[rng.choice(len(frame), 500, replace=False)].sum()
                                      for _ in range(50)])
    assert 175 <= budgets.mean <= 225
    assert frame.equals(make_admissions(10000, random_state=0).frame)
    assert not frame.equals(admissions.frame)
    with pytest.raises(ValueError, match="lacks the columns"):
        admissions_graduation_probability(pd.DataFrame({"age": [20]}))


# --------------------------------------------------------------------------- grafted candidates and pruning
def _toy_encoder():
    frame = pd.DataFrame({"amount": [10.0, 20.0, 30.0, 40.0], "savings": [0, 1, 2, 3],
                          "noise": [1.0, 0.0, 1.0, 0.0], "age": [30, 40, 50, 60], "sex": ["f", "m", "f", "m"]})
    enc = Encoder([FeatureSpec("amount", "continuous"),
                   FeatureSpec("savings", "ordinal", "increase", order=[0, 1, 2, 3], max_change=1),
                   FeatureSpec("noise", "continuous"),
                   FeatureSpec("age", "continuous", "increase", advise="never"),
                   FeatureSpec("sex", "binary", "immutable", order=["f", "m"])]).fit(frame)
    return enc, enc.transform(frame)


def test_graft_candidates_follow_the_advice_policy():
    enc, Z = _toy_encoder()
    pool = graft_candidates(Z[1], Z, enc, keep=["amount"])
    assert pool.shape == (len(Z) + 1, Z.shape[1])
    np.testing.assert_array_equal(pool[0], Z[1])
    frame = enc.inverse_transform(pool[1:])
    assert (frame["amount"] == 20.0).all()                        # kept on request
    assert (frame["age"] == 40).all() and (frame["sex"] == "m").all()   # never advised: the applicant's own
    assert frame["savings"].tolist() == [1, 1, 2, 2]              # only up, and at most one level (3 -> 2)
    assert frame["noise"].tolist() == [1.0, 0.0, 1.0, 0.0]        # free and uncapped: the donor's value
    assert enc.actionable(np.repeat(Z[[1]], len(Z), 0), pool[1:]).all()


def test_prune_move_undoes_changes_the_score_does_not_need():
    frame = pd.DataFrame({"a": [0.0, 1.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0, 1.0], "c": [0.0, 1.0, 1.0, 0.0]})
    enc = Encoder([FeatureSpec("a", "continuous"), FeatureSpec("b", "continuous", "increase"),
                   FeatureSpec("c", "continuous")]).fit(frame)
    Z = enc.transform(frame)
    model = LogisticRegression(C=100).fit(Z, [0, 0, 1, 1])
    z_from, z_to = np.zeros(3), np.ones(3)
    target = float(model.predict_proba(z_to[None, :])[0, 1]) - 0.2
    pruned = prune_move(model, z_from, z_to, target, enc)
    assert model.predict_proba(pruned[None, :])[0, 1] >= target
    assert enc.actionable(z_from[None, :], pruned[None, :])[0]
    assert enc.cost(z_from[None, :], pruned[None, :])[0] < enc.cost(z_from[None, :], z_to[None, :])[0]
    for k in np.flatnonzero(pruned != z_from):   # no single remaining change can be undone while keeping the score
        trial = pruned.copy()
        trial[k] = z_from[k]
        assert model.predict_proba(trial[None, :])[0, 1] < target


def test_prune_move_refuses_a_move_that_changes_an_immutable_feature():
    """The issue: prune_move returned such a move (the change was needed for the score); now it is refused."""
    enc, Z = _toy_encoder()
    sex = enc.slices_["sex"].start

    class OnlySex:  # a model that approves men only
        classes_ = np.array([0, 1])

        def predict_proba(self, X):
            p = np.where(np.asarray(X)[:, sex] > 0.5, 0.9, 0.1)
            return np.column_stack([1 - p, p])

    model = OnlySex()
    z_to = Z[0].copy()
    z_to[enc.slices_["sex"]] = 1.0                      # f -> m: the only change that raises the score
    assert model.predict_proba(z_to[None, :])[0, 1] > 0.5 > model.predict_proba(Z[[0]])[0, 1]
    for actionable in (True, False):
        with pytest.raises(ValueError, match="'sex': 'moves the wrong way'"):
            prune_move(model, Z[0], z_to, 0.5, enc, actionable=actionable)


# --------------------------------------------------------------------------- the advice is actionable
@st.composite
def advice_worlds(draw):
    """Random specs of every kind with random advice policies (never, one way, caps), a frame, a linear model."""
    specs, frame = draw(specs_and_frames(min_rows=4, max_rows=14))
    narrowed = []
    for s in specs:
        choices = {"free": ["any", "increase", "decrease", "never"], "increase": ["increase", "never"],
                   "decrease": ["decrease", "never"], "immutable": ["never"]}[s.actionability]
        if s.kind == "categorical":
            choices = [c for c in choices if c in ("any", "never")]
        cap = None
        if s.kind == "ordinal" and len(s.order) > 2:
            cap = draw(st.sampled_from([None, 1]))
        elif s.kind == "continuous":
            spread = float(frame[s.name].max() - frame[s.name].min())
            cap = draw(st.sampled_from([None, max(1.0, round(spread / 3))]))
        narrowed.append(dataclasses.replace(s, advise=draw(st.sampled_from(choices)), max_change=cap))
    encoder = Encoder(narrowed).fit(frame)
    Z = encoder.transform(frame)
    coef = np.array(draw(st.lists(st.integers(-3, 3), min_size=Z.shape[1], max_size=Z.shape[1])), dtype=float)
    assume((coef != 0).any())
    model = Linear(coef, -float(np.median(Z @ coef)))
    m_prime = draw(st.sampled_from([0.5, 0.6, 0.8]))
    refused = np.flatnonzero(model.predict_proba(Z)[:, 1] < m_prime)
    assume(0 < len(refused) < len(Z))
    return encoder, Z, model, int(draw(st.sampled_from(refused.tolist()))), m_prime


class Linear:
    """A probabilistic classifier on a linear score, as feature_ce expects."""

    classes_ = np.array([0, 1])

    def __init__(self, coef, intercept):
        self.coef, self.intercept = coef, intercept

    def predict_proba(self, X):
        p = 1 / (1 + np.exp(-4 * (np.asarray(X) @ self.coef + self.intercept)))
        return np.column_stack([1 - p, p])


@settings(max_examples=60, deadline=None)
@given(advice_worlds())
def test_graft_feature_ce_and_prune_return_actionable_advice(world):
    encoder, Z, model, index, m_prime = world
    pool = graft_candidates(Z[index], Z, encoder)
    lower, upper = encoder.advice_bounds()
    delta = pool[1:] - pool[0]
    assert ((delta >= lower - 1e-12) & (delta <= upper + 1e-12)).all()        # directions and caps
    assert encoder.feasible(np.repeat(pool[:1], len(Z), 0), pool[1:]).all()
    for candidates, row in ((Z, index), (pool, 0)):
        res = feature_ce(model, candidates, row, m_prime, encoder)
        if not res.found:
            continue
        target = candidates[res.target]
        assert res.advice == "actionable" and encoder.actionable(candidates[[row]], target[None, :])[0]
        pruned = prune_move(model, candidates[row], target, m_prime, encoder)
        assert encoder.actionable(candidates[[row]], pruned[None, :])[0]
        assert model.predict_proba(pruned[None, :])[0, 1] >= m_prime


def test_encoded_frames_are_read_by_column_name(admissions_model):
    enc, Z, model, proba = admissions_model
    index = int(np.argsort(proba)[200])
    frame = pd.DataFrame(Z, columns=enc.feature_names_out_)
    shuffled = frame[frame.columns[::-1]]                       # the same rows, columns in another order
    expected = feature_ce(model, Z, index, 0.7, enc)
    got = feature_ce(model, shuffled, index, 0.7, enc)
    assert (got.target, got.cost) == (expected.target, expected.cost)
    pool = graft_candidates(shuffled.iloc[index], shuffled, enc)
    np.testing.assert_array_equal(pool, graft_candidates(Z[index], Z, enc))
    np.testing.assert_array_equal(prune_move(model, shuffled.iloc[[index]], Z[got.target], 0.7, enc),
                                  prune_move(model, Z[index], Z[got.target], 0.7, enc))


def test_advise_is_graft_search_and_prune_in_one_call():
    import pandas as pd
    from sklearn.linear_model import LogisticRegression

    from recourselab.allocation import advise, feature_ce, graft_candidates, prune_move
    from recourselab.features import Encoder, FeatureSpec

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"a": rng.random(40), "b": rng.random(40), "c": rng.random(40)})
    enc = Encoder([FeatureSpec("a", "continuous", "increase"), FeatureSpec("b", "continuous"),
                   FeatureSpec("c", "continuous")]).fit(frame)
    Z = enc.transform(frame)
    model = LogisticRegression().fit(Z, (frame["a"] + frame["b"] > 1).astype(int))
    z = Z[int(np.argmin(model.predict_proba(Z)[:, 1]))]
    move, advice = advise(model, z, Z, 0.6, enc, keep=["c"])
    pool = graft_candidates(z, Z, enc, keep=["c"])
    expected = feature_ce(model, pool, 0, 0.6, enc)
    pd.testing.assert_frame_equal(move.to_frame(), expected.to_frame())
    assert move.found
    if move.found:
        assert np.array_equal(advice, prune_move(model, pool[0], pool[move.target], 0.6, enc))
        assert enc.actionable(z[None, :], advice[None, :])[0] and model.predict_proba(advice[None, :])[0, 1] >= 0.6
        assert np.isclose(advice[enc.slices_["c"]], z[enc.slices_["c"]]).all()
    unreachable, none = advise(model, z, Z, 1.0, enc)
    assert not unreachable.found and none is None


def test_reachable_agrees_with_looping_advise():
    from recourselab.allocation import advise, reachable

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.random(30), "b": rng.random(30), "c": rng.random(30)})
    enc = Encoder([FeatureSpec("a", "continuous", "increase"), FeatureSpec("b", "continuous", "decrease"),
                   FeatureSpec("c", "continuous")]).fit(frame)
    Z = enc.transform(frame)
    model = LogisticRegression().fit(Z, (frame["a"] - frame["b"] + 0.3 * frame["c"] > 0.2).astype(int))
    proba = model.predict_proba(Z)[:, 1]
    rows = np.r_[np.argsort(proba)[:6], np.argsort(proba)[:2]]  # repeated applicants, other targets
    targets = np.r_[np.linspace(0.3, 0.95, 6), proba[rows[6]], 1.2]  # the own score exactly; above 1
    seen = []
    for keep in ([], ["c"], ["a", "b"]):
        expected = [advise(model, Z[i], Z, m, enc, keep=keep)[1] is not None
                    for i, m in zip(rows, targets, strict=True)]
        got = reachable(model, Z[rows], Z, targets, enc, keep=keep)
        assert got.tolist() == expected
        seen += expected
    assert any(seen) and not all(seen)  # the instance has reachable and unreachable targets
    assert reachable(model, Z[rows], Z, np.inf, enc).sum() == 0
    assert reachable(model, Z[:0], Z, [], enc).shape == (0,)
    with pytest.raises(ValueError, match="m_prime has 2 entries.*give one per row"):
        reachable(model, Z[rows], Z, [0.5, 0.6], enc)
    with pytest.raises(ValueError, match=r"m_prime\[0\]=nan is missing"):
        reachable(model, Z[rows[:1]], Z, [np.nan], enc)
    with pytest.raises(ValueError, match=r"m_prime\[0\]=-0.1 is below 0"):
        reachable(model, Z[rows[:1]], Z, [-0.1], enc)
    with pytest.raises(ValueError, match=r"m_prime=-1 must be >= 0"):
        reachable(model, Z[rows[:1]], Z, -1, enc)
    with pytest.raises(ValueError, match="not features"):
        reachable(model, Z[rows[:1]], Z, 0.5, enc, keep=["nope"])

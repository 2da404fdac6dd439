"""recourse_for_refused: actionable moves that flip the user's own raw pipeline, on a table the book never ships.

The synthetic table has what practitioners' tables have and the book's do not: a continuous immutable
feature (a length of stay), a column the specs do not describe (a region the model uses), a
non-linear pipeline with its own one-hot encoding, integer columns, and a non-range index.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.compose import make_column_transformer
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder

from recourselab.counterfactuals import nearest_counterfactuals, recourse_for_refused
from recourselab.features import Encoder, FeatureSpec

SPECS = [
    FeatureSpec("stay_months", "continuous", "immutable", unit="months"),
    FeatureSpec("age", "continuous", "increase", advise="never", unit="years"),
    FeatureSpec("income", "continuous", "increase", max_change=15.0, unit="k"),
    FeatureSpec("debt", "continuous", "decrease", unit="k"),
    FeatureSpec("education", "ordinal", "increase", order=["basic", "high", "degree", "master"], max_change=1),
    FeatureSpec("job", "categorical"),
]


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "stay_months": rng.gamma(2.0, 20.0, n).round(2),
        "age": rng.integers(20, 70, n),
        "income": rng.normal(40, 12, n).round(1),
        "debt": rng.gamma(2.0, 5.0, n).round(1),
        "education": rng.choice(["basic", "high", "degree", "master"], n),
        "job": rng.choice(["clerk", "driver", "nurse", "teacher"], n),
        "region": rng.choice(["north", "south"], n),
    }, index=[f"p{i}" for i in range(n)])
    level = X["education"].map({"basic": 0, "high": 1, "degree": 2, "master": 3})
    score = (0.08 * (X["income"] - 40) - 0.15 * (X["debt"] - 10) + 0.6 * level + 0.01 * X["stay_months"]
             + 0.8 * (X["job"] == "nurse") - 0.4 * (X["region"] == "south") + 0.02 * np.sin(X["age"]))
    y = (score + rng.logistic(0, 0.5, n) > 1.2).astype(int)
    return X, y


@pytest.fixture(scope="module")
def world():
    X, y = _table()
    pipe = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore"), ["education", "job", "region"]),
                                remainder="passthrough"),
        GradientBoostingClassifier(random_state=0)).fit(X, y)
    enc = Encoder(SPECS, ignore=["region"]).fit(X)
    refused = X.index[pipe.predict(X) == 0][:40]
    result = recourse_for_refused(pipe, X, enc, rows=refused, progress=False)
    return X, pipe, enc, refused, result


def test_every_move_found_is_actionable_and_flips_the_raw_pipeline(world):
    X, pipe, enc, refused, res = world
    found = res.summary["found"].to_numpy()
    assert list(res.summary.index) == list(refused) and list(res.counterfactuals.index) == list(refused)
    assert found.mean() >= 0.8  # measured 40 of 40 with this seed
    Zf, Zc = enc.transform(X.loc[refused]), enc.transform(res.counterfactuals)
    assert enc.actionable(Zf[found], Zc[found]).all()
    assert (pipe.predict(res.counterfactuals[found]) == 1).all()
    assert (res.counterfactuals.dtypes == X.dtypes).all()  # the user's own dtypes (integer age stays integer)
    assert (res.counterfactuals.loc[found, ["stay_months", "age", "region"]]
            == X.loc[refused[found], ["stay_months", "age", "region"]]).all().all()
    s = res.summary[found]
    assert (s["cost"] > 0).all() and (s["proba_after"] >= 0.5).all() and (s["proba"] < 0.5).all()
    assert set(res.changes["row"]) == set(s.index)
    assert (res.changes.groupby("row").size().reindex(s.index) == s["n_changes"]).all()
    assert set(res.changes["feature"]) <= {"income", "debt", "education", "job"}


def test_a_continuous_immutable_needs_no_exact_match_among_donors(world):
    """Searching observed approved people as they are demands the same length of stay to the hundredth;
    grafting keeps the person's own."""
    X, pipe, enc, refused, res = world
    approved = X[pipe.predict(X) == 1]
    nearest = nearest_counterfactuals(enc.transform(X.loc[refused]), enc.transform(approved), enc)
    assert (nearest.n_feasible > 0).mean() < 0.1 < 0.8 <= res.summary["found"].mean()


def test_the_moves_are_pruned(world):
    """No single change of a returned move can be undone with the decision kept (prune_move's promise)."""
    X, pipe, enc, refused, res = world
    for label in res.summary.index[res.summary["found"]][:10]:
        person, target = X.loc[[label]], res.counterfactuals.loc[[label]]
        for feature in res.changes.loc[res.changes["row"] == label, "feature"]:
            undone = target.copy()
            undone[feature] = person[feature].to_numpy()
            assert pipe.predict_proba(undone)[0, 1] < 0.5


def test_same_result_with_two_jobs_and_the_input_untouched(world):
    X, pipe, enc, refused, res = world
    before = X.copy()
    two = recourse_for_refused(pipe, X, enc, rows=refused[:8], n_jobs=2, chunk_size=4, progress=False)
    one = recourse_for_refused(pipe, X, enc, rows=refused[:8], chunk_size=4, progress=False)
    pd.testing.assert_frame_equal(one.summary, two.summary)
    pd.testing.assert_frame_equal(one.counterfactuals, two.counterfactuals)
    pd.testing.assert_frame_equal(X, before)


def test_default_rows_are_the_refused_and_an_approved_row_needs_nothing(world):
    X, pipe, enc, refused, _ = world
    small = X.iloc[:30]
    res = recourse_for_refused(pipe, small, enc, progress=False, n_samples=0)
    assert list(res.summary.index) == list(small.index[pipe.predict(small) == 0])
    approved = small.index[pipe.predict(small) == 1][:2]
    mixed = recourse_for_refused(pipe, small, enc, rows=list(approved), progress=False)
    assert (mixed.summary["method"] == "already favourable").all() and (mixed.summary["cost"] == 0).all()
    assert mixed.summary["found"].all() and np.isnan(mixed.found_share) and len(mixed.changes) == 0


def test_nobody_can_move_when_nothing_is_advisable(world):
    X, pipe, enc, refused, _ = world
    frozen = Encoder([FeatureSpec(s.name, s.kind, "immutable", order=s.order) for s in SPECS], ignore=["region"]).fit(X)
    res = recourse_for_refused(pipe, X, frozen, rows=refused[:5], progress=False)
    assert not res.summary["found"].any() and (res.summary["method"] == "none").all()
    assert np.isinf(res.summary["cost"]).all() and res.found_share == 0
    pd.testing.assert_frame_equal(res.counterfactuals, X.loc[refused[:5]])


# ------------------------------------------------------------------ brute force on small grids
class _Table:
    """A classifier on a raw frame of level codes whose probability is a fixed random lookup table."""

    def __init__(self, table, columns):
        self.table, self.classes_, self.feature_names_in_ = table, np.array([0, 1]), np.array(columns)

    def predict_proba(self, frame):
        p = self.table[tuple(frame[c].to_numpy().astype(int) for c in self.feature_names_in_)]
        return np.column_stack([1 - p, p])

    def predict(self, frame):
        return (self.predict_proba(frame)[:, 1] >= 0.5).astype(int)


@settings(max_examples=25, deadline=None)
@given(levels=st.lists(st.integers(2, 4), min_size=2, max_size=3),
       directions=st.lists(st.sampled_from(["free", "increase", "decrease", "immutable"]), min_size=3, max_size=3),
       caps=st.lists(st.sampled_from([None, 1]), min_size=3, max_size=3),
       seed=st.integers(0, 10_000))
def test_found_exactly_when_some_actionable_move_flips_and_never_below_the_optimum(levels, directions, caps, seed):
    """On every grid of up to 64 profiles, the brute force over all actionable targets decides who has
    recourse and its cheapest cost; the batch call finds recourse for exactly those people, at a cost no
    lower than that optimum (a lower cost would be a wrong cost or a move the brute force rejects)."""
    rng = np.random.default_rng(seed)
    names = [f"f{j}" for j in range(len(levels))]
    grid = pd.MultiIndex.from_product([range(k) for k in levels], names=names).to_frame(index=False)
    specs = [FeatureSpec(n, "ordinal", d, order=list(range(k)), max_change=c)
             for n, k, d, c in zip(names, levels, directions, caps, strict=False)]
    enc = Encoder(specs).fit(grid)
    model = _Table(rng.uniform(0, 1, size=levels), names)
    people = grid.sample(min(8, len(grid)), random_state=seed).set_axis([f"q{i}" for i in range(min(8, len(grid)))])
    donors = grid.sample(len(grid) // 2, random_state=seed + 1)
    res = recourse_for_refused(model, people, enc, donors=donors, rows=list(people.index), progress=False,
                               random_state=seed)
    Zp, Zg = enc.transform(people), enc.transform(grid)
    flips = model.predict(grid) == 1
    for i, label in enumerate(people.index):
        ok = enc.actionable(np.repeat(Zp[i:i + 1], len(grid), 0), Zg) & flips
        row = res.summary.loc[label]
        if model.predict(people.iloc[[i]])[0] == 1:
            assert row["method"] == "already favourable"
            continue
        assert row["found"] == ok.any(), (label, row.to_dict())
        if ok.any():
            best = enc.cost(np.repeat(Zp[i:i + 1], ok.sum(), 0), Zg[ok]).min()
            assert row["cost"] >= best - 1e-12


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("kwargs, error, message", [
    ({"X": "table"}, TypeError, "X is a str; give a pandas DataFrame"),
    ({"threshold": 0}, ValueError, "threshold=0 is reached by everyone"),
    ({"threshold": 1.5}, ValueError, "threshold=1.5"),
    ({"threshold": float("nan")}, ValueError, "threshold"),
    ({"favourable": 2}, ValueError, r"favourable=2 is not among model's classes \[0, 1\]"),
    ({"rows": ["nobody"]}, ValueError, r"rows names \['nobody'\], which are not index labels of X"),
    ({"rows": ["p0", "p0"]}, ValueError, "rows repeats labels"),
    ({"rows": [True, False]}, ValueError, "rows is a boolean mask of length 2; X has 600 rows"),
    ({"n_samples": -1}, ValueError, "n_samples"),
    ({"n_samples": 2.5}, TypeError, "n_samples=2.5 must be an integer"),
    ({"chunk_size": 0}, ValueError, "chunk_size"),
    ({"keep": ["salary"]}, ValueError, r"keep names \['salary'\], which are not features of the encoder"),
    ({"model": object()}, TypeError, "model \\(object\\) needs predict and predict_proba"),
])
def test_bad_input_is_refused_with_the_argument_and_the_fix(world, kwargs, error, message):
    X, pipe, enc, refused, _ = world
    args = {"model": pipe, "X": X, "encoder": enc, "rows": list(refused[:1]), "progress": False, **kwargs}
    with pytest.raises(error, match=message):
        recourse_for_refused(args.pop("model"), args.pop("X"), args.pop("encoder"), **args)


def test_a_column_the_model_needs_is_named_when_missing(world):
    X, pipe, enc, refused, _ = world
    with pytest.raises(ValueError, match=r"the model takes columns \['region'\] that X lacks"):
        recourse_for_refused(pipe, X.drop(columns="region"), enc, progress=False)


def test_duplicate_labels_are_refused_not_reset(world):
    X, pipe, enc, _, _ = world
    doubled = pd.concat([X.iloc[:3], X.iloc[:3]])
    with pytest.raises(ValueError, match="X has duplicate index labels"):
        recourse_for_refused(pipe, doubled, enc, progress=False)


def test_on_adult_with_a_raw_gradient_boosting_pipeline():
    """The book's Adult specs and advice policy, a model the book does not ship (its own one-hot and
    gradient boosting on the raw frame): every move found is actionable and flips the pipeline."""
    from recourselab.datasets import load_adult

    data = load_adult()
    frame = data.frame.sample(1500, random_state=0)
    X, y = frame.drop(columns=[data.target]), frame[data.target]
    text = [c for c in X if not pd.api.types.is_numeric_dtype(X[c])]
    pipe = make_pipeline(
        make_column_transformer((OneHotEncoder(handle_unknown="ignore", sparse_output=False), text),
                                remainder="passthrough"),
        GradientBoostingClassifier(n_estimators=60, random_state=0)).fit(X, y)  # no OpenMP threads to contend
    enc = Encoder(list(data.features)).fit(X)
    refused = X.index[pipe.predict(X) == 0][:12]
    res = recourse_for_refused(pipe, X, enc, rows=refused, progress=False, n_samples=300)
    found = res.summary["found"].to_numpy()
    assert found.sum() >= 3, found.sum()  # people can move (measured 4 of 12); many cannot under Adult's advice policy
    Zf, Zc = enc.transform(X.loc[refused]), enc.transform(res.counterfactuals)
    assert enc.actionable(Zf[found], Zc[found]).all()
    assert (pipe.predict(res.counterfactuals[found]) == 1).all()
    never = ["age", "marital_status", "relationship", "capital_gain", "capital_loss", "sex", "race"]
    assert not set(res.changes["feature"]) & set(never)


def test_pruning_many_people_at_once_equals_prune_move_person_by_person(world):
    """The batch prune (one model call per round for everyone) returns what prune_move returns for each."""
    from recourselab.adapters import EncodedModel
    from recourselab.allocation import prune_move
    from recourselab.counterfactuals.batch import _prune_many

    X, pipe, enc, refused, res = world
    labels = res.summary.index[res.summary["found"]][:8]
    positions = X.index.get_indexer(labels)
    Z = enc.transform(X)
    lower, upper = enc.advice_bounds()
    targets = []
    for p, label in zip(positions, labels, strict=True):  # the pruned move plus changes it does not need
        t = enc.transform(res.counterfactuals.loc[[label]])[0]
        t = np.clip(t, Z[p] + lower, Z[p] + upper)
        for name in ("income", "debt"):
            s = enc.slices_[name]
            room = (upper[s] if name == "income" else lower[s])
            t[s] = np.clip(Z[p, s] + 0.5 * np.clip(room, -0.05, 0.05), 0, 1) if np.allclose(t[s], Z[p, s]) else t[s]
        targets.append(t)
    targets = np.array(targets)
    assert enc.actionable(Z[positions], targets).all()
    batch = _prune_many(positions, targets, X, Z, pipe, enc, 1, 0.5)
    for p, t, b in zip(positions, targets, batch, strict=True):
        model = EncodedModel(pipe, enc, fill={"region": X.iloc[p]["region"]})
        np.testing.assert_array_equal(prune_move(model, Z[p], t, 0.5, enc), b)


def test_a_model_column_no_spec_describes_is_named_unless_the_encoder_ignores_it(world):
    X, pipe = world[:2]
    bare = Encoder(SPECS).fit(X.drop(columns="region"))  # region not described, not ignored
    with pytest.warns(UserWarning, match=r"columns \['region'\] that no FeatureSpec describes"):
        recourse_for_refused(pipe, X, bare, rows=X.index[:3], progress=False, n_samples=0)

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from recourselab.models import favourable_proba, split_dataset, train_model


def test_split_is_seeded_and_stratified(german):
    train_a, test_a = split_dataset(german, random_state=3)
    train_b, test_b = split_dataset(german, random_state=3)
    assert list(test_a.index) == list(test_b.index)
    assert len(train_a) == 700 and len(test_a) == 300
    assert test_a[german.target].mean() == pytest.approx(0.7)
    assert set(train_a.index).isdisjoint(test_a.index)


def test_train_model_is_reproducible_and_better_than_majority(german):
    a = train_model(german, random_state=0)
    b = train_model(german, random_state=0)
    np.testing.assert_array_equal(a.proba(a.Z_test), b.proba(b.Z_test))
    summary = a.to_frame()
    assert summary.loc["test", "accuracy"] > 0.7  # the majority class alone scores 0.7
    assert a.Z_test.min() >= 0 and a.Z_test.max() <= 1


def test_favourable_proba_picks_the_right_column():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array(["bad", "bad", "good", "good"])
    model = LogisticRegression().fit(X, y)
    p_good = favourable_proba(model, X, favourable="good")
    assert p_good[-1] > 0.5 > p_good[0]
    np.testing.assert_allclose(p_good + favourable_proba(model, X, favourable="bad"), 1.0)
    flipped = LogisticRegression().fit(X, np.array([1, 1, 0, 0]))  # 1 = the unfavourable outcome here
    np.testing.assert_allclose(favourable_proba(flipped, X, favourable=0), flipped.predict_proba(X)[:, 0])


def test_train_model_fits_a_clone_and_accepts_a_generator(german):
    mine = LogisticRegression(C=0.5, max_iter=500)
    trained = train_model(german, model=mine, random_state=np.random.default_rng(1))
    assert not hasattr(mine, "coef_")  # the caller's estimator was not fitted in place
    assert trained.model.C == 0.5 and hasattr(trained.model, "coef_")
    train, test = split_dataset(german, random_state=np.random.default_rng(1))
    assert len(test) == 300


def test_numpy_integer_seed_gives_the_same_split_as_the_python_int(german):
    _, test_int = split_dataset(german, random_state=5)
    _, test_np = split_dataset(german, random_state=np.int64(5))
    assert list(test_int.index) == list(test_np.index)

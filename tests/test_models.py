import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from recourselab.models import favourable_proba, make_classifier, split_dataset, train_model


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
    with pytest.raises(ValueError, match=r"favourable=1 is not among the model's classes \['bad', 'good'\]"):
        favourable_proba(model, X)


def test_model_helpers_reject_bad_input(german):
    with pytest.raises(ValueError, match="model='svm'"):
        make_classifier("svm")
    with pytest.raises(ValueError, match="test_size=1.5"):
        split_dataset(german, test_size=1.5)
    with pytest.raises(TypeError, match="must be a recourselab Dataset"):
        split_dataset(german.frame)
    with pytest.raises(ValueError, match="threshold=0"):
        train_model(german, threshold=0)
    with pytest.raises(TypeError, match="has no predict_proba"):
        favourable_proba(object(), np.zeros((1, 1)))


def test_train_model_fits_a_clone_and_accepts_a_generator(german):
    mine = LogisticRegression(C=0.5, max_iter=500)
    trained = train_model(german, model=mine, random_state=np.random.default_rng(1))
    assert not hasattr(mine, "coef_")  # the caller's estimator was not fitted in place
    assert trained.model.C == 0.5 and hasattr(trained.model, "coef_")
    train, test = split_dataset(german, random_state=np.random.default_rng(1))
    assert len(test) == 300


# --------------------------------------------------------------------------- bad input, one case per test
def test_fractional_seed_is_rejected_not_truncated(german):
    with pytest.raises(TypeError, match=r"random_state=1.7 must be None, an int seed or a numpy.random.Generator"):
        split_dataset(german, random_state=1.7)


def test_whole_float_seed_is_rejected_like_scikit_learn(german):
    with pytest.raises(TypeError, match="random_state=2.0 must be None, an int seed"):
        split_dataset(german, random_state=2.0)


def test_negative_seed_is_rejected(german):
    with pytest.raises(ValueError, match=r"random_state=-1 must lie in \[0, 2\*\*32 - 1\]"):
        split_dataset(german, random_state=-1)


def test_bool_seed_is_rejected(german):
    with pytest.raises(TypeError, match="random_state=True must be None"):
        split_dataset(german, random_state=True)


def test_train_model_rejects_a_fractional_seed(german):
    with pytest.raises(TypeError, match="random_state=0.5 must be None"):
        train_model(german, random_state=0.5)


def test_make_classifier_rejects_a_fractional_seed():
    with pytest.raises(TypeError, match="random_state=3.3 must be None"):
        make_classifier("forest", random_state=3.3)


def test_numpy_integer_seed_gives_the_same_split_as_the_python_int(german):
    _, test_int = split_dataset(german, random_state=5)
    _, test_np = split_dataset(german, random_state=np.int64(5))
    assert list(test_int.index) == list(test_np.index)


def test_test_size_nan_is_rejected(german):
    with pytest.raises(ValueError, match="test_size=nan must lie strictly between 0 and 1"):
        split_dataset(german, test_size=float("nan"))


def test_test_size_as_a_string_is_rejected(german):
    with pytest.raises(ValueError, match="test_size='0.3' must lie strictly between 0 and 1"):
        split_dataset(german, test_size="0.3")


def test_threshold_nan_is_rejected(german):
    with pytest.raises(ValueError, match="threshold=nan must lie strictly between 0 and 1"):
        train_model(german, threshold=float("nan"))


def test_stratify_must_be_a_bool(german):
    with pytest.raises(TypeError, match="stratify='target' must be True or False"):
        split_dataset(german, stratify="target")


def test_trained_model_rejects_a_threshold_outside_the_unit_interval(german):
    from dataclasses import replace

    trained = train_model(german, random_state=0)
    with pytest.raises(ValueError, match="threshold=5 must lie strictly between 0 and 1"):
        replace(trained, threshold=5)

"""newcombe_interval against Newcombe (1998), Table II, and its input checks."""
import pytest

from recourselab.stratified import newcombe_interval


def test_published_example():
    # Newcombe 1998, Table II, method 10: 56/70 vs 48/80 gives 0.0524 to 0.3339
    lo, hi = newcombe_interval(56, 70, 48, 80)
    assert lo == pytest.approx(0.0524, abs=5e-5) and hi == pytest.approx(0.3339, abs=5e-5)


def test_zero_counts():
    # Newcombe 1998, Table II, method 10: 0/10 vs 0/20 gives -0.1611 to 0.2775
    lo, hi = newcombe_interval(0, 10, 0, 20)
    assert lo == pytest.approx(-0.1611, abs=5e-5) and hi == pytest.approx(0.2775, abs=5e-5)


def test_wider_with_higher_confidence():
    lo95, hi95 = newcombe_interval(5, 20, 9, 21)
    lo99, hi99 = newcombe_interval(5, 20, 9, 21, confidence=0.99)
    assert lo99 < lo95 < hi95 < hi99


@pytest.mark.parametrize("args, kwargs, error, text", [
    ((5, 4, 1, 10), {}, ValueError, "successes_a=5"),
    ((1, 0, 1, 10), {}, ValueError, "n_a"),
    ((-1, 4, 1, 10), {}, ValueError, "successes_a"),
    ((1.5, 4, 1, 10), {}, TypeError, "successes_a=1.5"),
    ((1, 4, 1, 10), {"confidence": 1.0}, ValueError, "confidence=1.0"),
    ((1, 4, 1, 10), {"confidence": 95}, ValueError, "between 0 and 1"),
])
def test_bad_input(args, kwargs, error, text):
    with pytest.raises(error, match=text):
        newcombe_interval(*args, **kwargs)

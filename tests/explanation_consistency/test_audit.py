"""The CEC score's result, the regimes (Table 1) and their shares."""

import types

import numpy as np
import pandas as pd
import pytest

from recourselab.explanation_consistency import cec_scores, regimes


def test_opposite_attributions_score_one_and_the_gap_frame_ranks_features():
    model = types.SimpleNamespace(coef_=np.array([[1.0, -2.0, 0.5]]), intercept_=np.array([0.1]))
    b = np.array([0.5, 0.5, 0.5])
    X = np.array([[1.0, 2.0, 3.0], [0.0, 1.0, -1.0]])
    X_cf = 2 * b - X                       # x_cf - b = -(x - b): attributions flip sign
    result = cec_scores(model, pd.DataFrame(X, columns=["u", "v", "w"], index=["p", "q"]), X_cf, b)
    assert np.allclose(result.score, 1.0)
    assert result.mean == pytest.approx(1.0)
    frame = result.feature_gap_frame()
    assert list(frame.columns) == ["mean_abs_gap", "mean_gap"]
    assert frame["mean_abs_gap"].is_monotonic_decreasing and set(frame.index) == {"u", "v", "w"}
    table = result.to_frame()
    assert list(table.columns) == ["cec", "largest_gap_feature"] and list(table.index) == ["p", "q"]
    assert table["largest_gap_feature"].tolist() == ["v", "v"]


def test_regimes_table_and_shares():
    r = regimes(np.array([0.0, 0.3, 0.25, 0.9, 0.1]), [1, 1, 0, 0, 1], [1, 1, 1, 1, 1], threshold=0.25)
    assert r.labels.tolist() == ["A", "B", "C", "D", "A"]
    assert r.shares.to_dict() == {"A": 0.4, "B": 0.2, "C": 0.2, "D": 0.2}
    assert r.flip_rate == pytest.approx(0.4) and r.mean_score == pytest.approx(0.31)
    only_a = regimes([0.1], ["x"], ["x"])
    assert only_a.shares.to_dict() == {"A": 1.0, "B": 0.0, "C": 0.0, "D": 0.0}
    assert list(r.to_frame().columns) == ["regime", "same_prediction", "same_reasoning", "cec"]
    assert 2 * np.degrees(np.arcsin(0.25)) == pytest.approx(28.955, abs=1e-3)   # the documented angle
    indexed = regimes(pd.Series([0.1, 0.6], index=["p", "q"]), [1, 1], [1, 0])
    assert indexed.to_frame()["regime"].to_dict() == {"p": "A", "q": "D"}


def test_the_default_baseline_gives_a_protected_input_zero_attribution_in_the_factual_explanation():
    # documented in audit_explanations' Notes: the factual's own (label, group) mean equals its group value
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    from recourselab.explanation_consistency import audit_explanations

    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 200)
    x = rng.normal(size=200)
    X = np.c_[x, g, rng.normal(size=200)]  # the group is the model's second input
    y = ((x + g + rng.normal(size=200)) > 0.5).astype(int)
    model = LogisticRegression().fit(X, y)
    audit = audit_explanations(model, X, y, g, financial=[0])
    assert np.abs(audit.cec.attributions[:, 1]).max() == 0.0  # the factual: zero by construction
    assert np.abs(audit.cec.attributions_cf[:, 1]).max() > 0.1  # the partner's explanation sees it

"""Matching (Algorithm 1) and the label-group baselines (Principle 1); the literal comparison is in test_paper."""

import numpy as np
import pandas as pd
import pytest

from recourselab.explanation_consistency import (
    counterfactual_rows,
    label_group_baselines,
    label_group_means,
    match_counterfactuals,
)


def test_tau_rejects_exactly_the_pairs_beyond_it_and_zero_means_none():
    X = np.array([[0.0], [1.0], [0.1], [3.0]])
    y, a = [1, 1, 1, 1], [0, 0, 1, 1]
    full = match_counterfactuals(X, y, a, [0])
    tau = float(np.sort(full.distance)[1])        # keep the two closest distances exactly
    cut = match_counterfactuals(X, y, a, [0], tau=tau)
    assert np.array_equal(cut.matched, full.distance <= tau)
    assert cut.n_unmatched_by_tau == int((full.distance > tau).sum()) > 0
    assert cut.coverage == pytest.approx(np.mean(full.distance <= tau))
    assert match_counterfactuals(X, y, a, [0], tau=0).matched.all()   # tau = 0: no threshold, as in the paper
    assert list(cut.to_frame().columns) == ["match_index", "distance", "matched", "nearest_distance"]


def test_results_keep_the_index_and_partners_follow_the_columns_by_name():
    X = pd.DataFrame({"income": [1.0, 2.0, 1.1, 2.2], "debt": [5.0, 6.0, 7.0, 8.0]}, index=list("abcd"))
    match = match_counterfactuals(X, [1, 1, 1, 1], pd.Series(["f", "f", "m", "m"], index=X.index), ["income"])
    assert list(match.to_frame().index) == list("abcd") and match.index.tolist() == [2, 3, 0, 1]
    assert match.partner_group.tolist() == ["m", "m", "f", "f"]
    rows = counterfactual_rows(match, X[["debt", "income"]], columns=X.columns)
    assert np.array_equal(rows, X.to_numpy()[[2, 3, 0, 1]])
    assert np.array_equal(counterfactual_rows(match, X[["debt", "income"]]), X[["debt", "income"]].to_numpy()[
        [2, 3, 0, 1]])   # without columns=, the pool's own order


def test_baselines_are_label_group_means_of_the_fit_data():
    X = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0], [1.0, 1.0]])
    y = np.array([0, 0, 1, 1, 0, 1])
    a = np.array(["f", "m", "f", "m", "f", "m"])
    B = label_group_baselines(X, y, a)
    assert np.allclose(B[0], [4.0, 5.0]) and np.allclose(B[3], [3.5, 4.0])
    table = label_group_means(X, y, a)
    assert table.loc[(0, "f")].tolist() == [4.0, 5.0] and table.index.names == ["label", "group"]
    test_rows = np.array([[100.0, 100.0]])
    assert np.allclose(label_group_baselines(test_rows, [1], ["m"], X_fit=X, y_fit=y, groups_fit=a), [[3.5, 4.0]])
    frame = pd.DataFrame(X, columns=["u", "v"])
    swapped = label_group_baselines(frame, y, a, X_fit=frame[["v", "u"]], y_fit=y, groups_fit=a)
    assert np.array_equal(swapped, B)                   # the fit data aligned to X's columns by name

"""The neighbour search (``build_groups``): its options, its chunked KD-tree search, threads, Dask and progress."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from situation_testing.st_cases import authors_groups, definition_groups, mixed_tables, tied_tables

import recourselab.situation_testing.neighbours as neighbours
from recourselab.situation_testing import build_groups, situation_distance_transform, situation_testing

X6 = pd.DataFrame({"a": [0.0, 1, 2, 3, 4, 5]})
P6 = np.array([1, 1, 1, 0, 0, 0])


def test_intersectional_reference_space():
    X = np.arange(12, dtype=float)[:, None]
    non_white_women = np.array([1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0], bool)
    white_men = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0], bool)
    groups = build_groups(X, non_white_women, k=2, reference=white_men)
    assert set(groups.test.ravel()) <= set(np.flatnonzero(white_men))
    assert groups.test[0].tolist() == [6, 7]


def test_k_numpy_integer_is_accepted():
    assert build_groups(X6, P6, k=np.int64(2)).k == 2


def test_n_jobs_minus_one_uses_all_cores_and_changes_nothing():
    assert build_groups(X6, P6, k=1, n_jobs=-1).control.tolist() == build_groups(X6, P6, k=1).control.tolist()


def test_to_frame_lists_the_groups_by_complainant():
    frame = build_groups(X6, P6, k=1).to_frame()
    assert frame.index.name == "complainant" and frame["control"].tolist() == [[1], [0], [1]]
    assert frame["test"].tolist() == [[3], [3], [3]]


# --------------------------------------------------------------------------- the book's worlds
def numeric_brute_groups(X, protected, k, centres, spread):
    """Eq. (6) on numeric columns with the given per-column spread, ties by the lower row (numpy, no KD-tree)."""
    values, centres = X.to_numpy(float), centres.to_numpy(float)
    positions = np.arange(len(X))
    control, test = [], []
    for c in positions[protected]:
        others = positions[protected & (positions != c)]
        d = np.round((np.abs(values[others] - values[c]) / spread).sum(axis=1) / X.shape[1], 12)
        control.append(others[np.lexsort((others, d))][:k])
        space = positions[~protected]
        d = np.round((np.abs(values[space] - centres[c]) / spread).sum(axis=1) / X.shape[1], 12)
        test.append(space[np.lexsort((space, d))][:k])
    return np.array(control), np.array(test)


@pytest.mark.parametrize("world", ["loan_world", "law_world"])
@pytest.mark.parametrize("normalize", ["range", "std"])
def test_both_normalisations_equal_a_brute_force_reference_on_the_book_worlds(world, normalize, request):
    X, cf, protected, _ = request.getfixturevalue(world)
    values = X.to_numpy(float)
    spread = np.ptp(values, axis=0) if normalize == "range" else values.std(axis=0)
    for centres in (None, cf):
        groups = build_groups(X, protected, k=7, X_cf=centres, normalize=normalize)
        control, test = numeric_brute_groups(X, protected, 7, X if centres is None else centres, spread)
        np.testing.assert_array_equal(groups.control, control)
        np.testing.assert_array_equal(groups.test, test)


@pytest.mark.parametrize("world", ["loan_world", "law_world"])
def test_defaults_are_the_papers_definitions_on_the_book_worlds(world, request):
    X, cf, protected, y_hat = request.getfixturevalue(world)
    y_cf = y_hat.copy()
    default = situation_testing(X, protected, y_hat, k=5, X_cf=cf, y_hat_cf=y_cf, include_centers=True)
    explicit = situation_testing(X, protected, y_hat, k=5, X_cf=cf, y_hat_cf=y_cf, include_centers=True,
                                 normalize="range", cf_scaling="factual", ties="row")
    pd.testing.assert_frame_equal(default, explicit)
    groups = build_groups(X, protected, k=5, X_cf=cf)
    control, test = numeric_brute_groups(X, protected, 5, cf, np.ptp(X.to_numpy(float), axis=0))
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)


# --------------------------------------------------------------------------- ties="bitwise" (the authors' code)
@given(mixed_tables(), st.integers(1, 3), st.booleans(), st.booleans())
def test_bitwise_ties_equal_the_authors_ordering(data, k, counterfactual, refit):
    frame, protected = data
    frame_cf = frame.assign(a=np.clip(frame["a"] + 1, 0, 4), b=frame["b"] * 2 + 1) if counterfactual else frame
    groups = build_groups(frame, protected, k=k, X_cf=frame_cf if counterfactual else None, normalize="std",
                          cf_scaling="refit" if counterfactual and refit else "factual", ties="bitwise")
    control, test = authors_groups(frame, protected, k, frame_cf, counterfactual and refit)
    np.testing.assert_array_equal(groups.control, control)
    np.testing.assert_array_equal(groups.test, test)


def test_bitwise_ties_give_exact_duplicates_to_the_later_rows():
    X = pd.DataFrame({"score": [1.0, 1, 1, 1, 1, 1, 5, 9]})
    protected = np.array([1, 1, 1, 1, 0, 0, 0, 0], bool)
    row = build_groups(X, protected, k=2)
    bitwise = build_groups(X, protected, k=2, ties="bitwise")
    assert row.control[0].tolist() == [1, 2] and bitwise.control[0].tolist() == [3, 2]
    assert row.test[0].tolist() == [4, 5] and bitwise.test[0].tolist() == [5, 4]


def test_bitwise_ties_on_the_law_world_change_groups_but_not_the_distances(law_world):
    X, cf, protected, _ = law_world
    row = build_groups(X, protected, k=10, X_cf=cf, normalize="std")
    bitwise = build_groups(X, protected, k=10, X_cf=cf, normalize="std", ties="bitwise")
    T, T_cf = situation_distance_transform(X, cf, normalize="std")
    centres = T_cf[row.complainants]
    farthest = [np.abs(T[g] - centres[:, None, :]).sum(axis=2).max(axis=1) for g in (row.test, bitwise.test)]
    np.testing.assert_allclose(farthest[0], farthest[1], rtol=0, atol=1e-12)   # the same k-th distance
    assert (row.test != bitwise.test).any()   # yet other members among the tied candidates


# --------------------------------------------------------------------------- the chunked cKDTree search (issue 17)
OPTIONS = [dict(), dict(normalize="std"), dict(ties="bitwise"), dict(normalize="std", ties="bitwise"),
           dict(counterfactual=True), dict(counterfactual=True, normalize="std", cf_scaling="refit"),
           dict(counterfactual=True, normalize="std", cf_scaling="refit", ties="bitwise"),
           dict(counterfactual=True, ties="bitwise")]


def reference_groups(frame, frame_cf, protected, k, options, complainants=None, searches=("control", "test")):
    """The groups by definition: the engine's distance and a stable sort, or the authors' code for bitwise ties."""
    options = dict(options)
    counterfactual = options.pop("counterfactual", False)
    centres = frame_cf if counterfactual else frame
    if options.get("ties") == "bitwise":
        return authors_groups(frame, protected, k, centres, options.get("cf_scaling") == "refit", complainants,
                              options.get("normalize", "range"))
    T, T_cf = situation_distance_transform(frame, frame_cf if counterfactual else None, **options)
    return definition_groups(T, T if T_cf is None else T_cf, protected, k, complainants, searches)


@given(tied_tables(), st.sampled_from(OPTIONS), st.integers(1, 40), st.sampled_from([0, 1, 2, 32]),
       st.sampled_from([1, 7, 1000]))
def test_chunked_search_equals_the_definition_on_tied_data(data, options, chunk_size, max_spare, pilot):
    frame, frame_cf, protected, _, _, k = data
    chosen = {key: v for key, v in options.items() if key != "counterfactual"}
    X_cf = frame_cf if options.get("counterfactual") else None
    saved = neighbours._MAX_SPARE, neighbours._PILOT
    neighbours._MAX_SPARE, neighbours._PILOT = max_spare, pilot   # 0 spare neighbours: every query takes the radius
    try:
        got = build_groups(frame, protected, k=k, X_cf=X_cf, chunk_size=chunk_size, **chosen)
    finally:
        neighbours._MAX_SPARE, neighbours._PILOT = saved
    control, test = reference_groups(frame, frame_cf, protected, k, options)
    np.testing.assert_array_equal(got.control, control)
    np.testing.assert_array_equal(got.test, test)


def test_the_search_at_scale_equals_the_definition(loan_slice):
    """20,000 rows with many ties: every complainant's groups for ST and CST, by definition."""
    X, X_cf, protected, _, _ = loan_slice
    st_groups = build_groups(X, protected, k=15, chunk_size=3000)
    cst_groups = build_groups(X, protected, k=15, X_cf=X_cf, chunk_size=3000)
    control, test = reference_groups(X, X_cf, protected, 15, {})
    np.testing.assert_array_equal(st_groups.control, control)
    np.testing.assert_array_equal(st_groups.test, test)
    np.testing.assert_array_equal(cst_groups.control, control)   # the control search does not see X_cf
    _, test = reference_groups(X, X_cf, protected, 15, dict(counterfactual=True), searches=("test",))
    np.testing.assert_array_equal(cst_groups.test, test)


def test_the_search_at_scale_with_the_authors_options_equals_their_order(loan_slice):
    """The same 20,000 rows with the authors' options: their (unrounded) order, on a sample of 600 complainants."""
    X, X_cf, protected, _, _ = loan_slice
    groups = build_groups(X, protected, k=15, X_cf=X_cf, normalize="std", cf_scaling="refit", ties="bitwise",
                          chunk_size=3000)
    sample = np.sort(np.random.default_rng(0).choice(len(groups.complainants), 600, replace=False))
    control, test = authors_groups(X, protected, 15, X_cf, True, groups.complainants[sample])
    np.testing.assert_array_equal(groups.control[sample], control)
    np.testing.assert_array_equal(groups.test[sample], test)


def test_situation_testing_at_scale_counts_the_groups_decisions(loan_slice):
    X, X_cf, protected, y_hat, y_cf = loan_slice
    result = situation_testing(X, protected, y_hat, k=15, X_cf=X_cf, y_hat_cf=y_cf, include_centers=True,
                               chunk_size=3000)
    groups = build_groups(X, protected, k=15, X_cf=X_cf)
    refused = y_hat == 0
    p_c = (refused[groups.control].sum(axis=1) + refused[groups.complainants]) / 16
    p_t = (refused[groups.test].sum(axis=1) + (y_cf == 0)[groups.complainants]) / 16
    np.testing.assert_array_equal(result["p_c"], p_c)
    np.testing.assert_array_equal(result["p_t"], p_t)


def test_threads_give_the_same_groups(loan_slice):
    X, X_cf, protected, _, _ = loan_slice
    one = build_groups(X.iloc[:4000], protected[:4000], k=15, X_cf=X_cf.iloc[:4000])
    two = build_groups(X.iloc[:4000], protected[:4000], k=15, X_cf=X_cf.iloc[:4000], n_jobs=2, chunk_size=500)
    np.testing.assert_array_equal(one.control, two.control)
    np.testing.assert_array_equal(one.test, two.test)


def test_a_local_dask_cluster_gives_the_same_results(loan_slice):
    pytest.importorskip("distributed", reason="the Dask route needs dask[distributed]: pip install recourselab[dask]")
    import joblib
    from distributed import Client, LocalCluster, get_task_stream

    X, X_cf, protected, y_hat, y_cf = (v[:5000] for v in loan_slice)
    options = dict(X_cf=X_cf, y_hat_cf=y_cf, include_centers=True)
    expected = situation_testing(X, protected, y_hat, k=15, **options)
    with LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster, \
            Client(cluster) as client, get_task_stream(client) as stream:
        with joblib.parallel_config(backend="dask"):
            got = situation_testing(X, protected, y_hat, k=15, chunk_size=400, **options)
    pd.testing.assert_frame_equal(got, expected, check_exact=True)
    assert len(stream.data) >= 2   # the chunks of both searches ran as Dask tasks (joblib may batch them)


def test_progress_bar_reports_the_chunks_and_changes_nothing(capsys):
    X = pd.DataFrame({"a": np.arange(40.0) % 7, "b": np.arange(40.0) % 3})
    protected = np.arange(40) % 2 == 0
    quiet = build_groups(X, protected, k=3)
    shown = build_groups(X, protected, k=3, chunk_size=5, progress=True)
    err = capsys.readouterr().err
    assert "situation testing" in err and "8/8" in err   # 20 complainants in chunks of 5, two searches
    np.testing.assert_array_equal(quiet.control, shown.control)
    np.testing.assert_array_equal(quiet.test, shown.test)

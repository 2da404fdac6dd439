"""The search split into cells (issue 27): the same groups as one KD-tree, and as the definition, on tied data."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from situation_testing.st_cases import tied_tables
from situation_testing.test_groups import OPTIONS, reference_groups

import recourselab.situation_testing.neighbours as neighbours
from recourselab.situation_testing import build_groups, situation_distance_transform


def integer_table(n, columns, seed):
    """Integer-valued columns (2 to 6 levels, a few with 20) and a category: most distances are tied."""
    rng = np.random.default_rng(seed)
    levels = [2, 3, 20, 4, 5, 6, 2, 20, 3][:columns - 1]
    frame = pd.DataFrame({f"c{j}": rng.integers(0, m, size=n).astype(float) for j, m in enumerate(levels)})
    frame["purpose"] = rng.choice(["car", "home", "study", "other"], size=n)
    frame_cf = frame.copy()
    frame_cf[["c0", "c1"]] += rng.integers(0, 2, size=(n, 2))   # counterfactual rows: two columns shift
    return frame, frame_cf, rng.random(n) < 0.45


def groups(frame, protected, cells, min_cell_rows=1, **options):
    """build_groups with the search in cells of ``min_cell_rows`` rows on average (forced, whatever the size) or
    in one KD-tree (the search before)."""
    saved = neighbours._MIN_CELL_ROWS, neighbours._key_columns
    if cells:
        neighbours._MIN_CELL_ROWS = min_cell_rows
    else:
        neighbours._key_columns = lambda T: []
    try:
        return build_groups(frame, protected, **options)
    finally:
        neighbours._MIN_CELL_ROWS, neighbours._key_columns = saved


@pytest.mark.parametrize("columns", [3, 10])
@pytest.mark.parametrize("k", [1, 5, 15])
@pytest.mark.parametrize("options", [dict(), dict(counterfactual=True), dict(counterfactual=True, ties="bitwise"),
                                     dict(normalize="std")])
def test_cells_give_the_groups_of_one_tree(columns, k, options):
    frame, frame_cf, protected = integer_table(3000, columns, seed=columns * 100 + k)
    options = dict(options)
    X_cf = frame_cf if options.pop("counterfactual", False) else None
    # cells of 60 rows on average: many cells, so most queries must look into several of them
    new = groups(frame, protected, True, min_cell_rows=60, k=k, X_cf=X_cf, chunk_size=700, **options)
    old = groups(frame, protected, False, k=k, X_cf=X_cf, chunk_size=700, **options)
    np.testing.assert_array_equal(new.control, old.control)
    np.testing.assert_array_equal(new.test, old.test)


def test_the_cells_are_used_and_bounded():
    frame, _, protected = integer_table(3000, 10, seed=0)
    T = situation_distance_transform(frame)[0]
    key = neighbours._key_columns(T)
    assert key   # the small-integer columns and the one-hot ones split the space ...
    cells, _ = neighbours._cells(T, key)
    assert len(cells) <= len(T) // neighbours._MIN_CELL_ROWS   # ... into cells of 500 rows on average
    assert len(key) < T.shape[1]
    assert neighbours._key_columns(T[:, [2, 7]]) == []   # columns with 20 values are never keys


@given(tied_tables(), st.sampled_from(OPTIONS), st.integers(1, 40))
def test_cells_equal_the_definition_on_tied_data(data, options, chunk_size):
    frame, frame_cf, protected, _, _, k = data
    chosen = {key: v for key, v in options.items() if key != "counterfactual"}
    X_cf = frame_cf if options.get("counterfactual") else None
    got = groups(frame, protected, True, k=k, X_cf=X_cf, chunk_size=chunk_size, **chosen)
    control, test = reference_groups(frame, frame_cf, protected, k, options)
    np.testing.assert_array_equal(got.control, control)
    np.testing.assert_array_equal(got.test, test)

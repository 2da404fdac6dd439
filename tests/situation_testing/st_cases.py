"""Strategies and reference searches shared by the situation-testing tests.

Three references, each for what it can check exactly:

* ``literal_groups``: the paper's algorithm as written (``paper.top_k``, pure Python) for every
  complainant; exact against the engine on tables whose distances are rationals with small
  denominators (integer values and ranges), where rounding to 12 decimals cannot split a tie;
* ``definition_groups``: the engine's own definition in numpy (every distance on the rescaled rows,
  summed column by column, rounded to 12 decimals, then a stable sort by row), fast enough for
  20,000 rows and exact for any spread (no rounding noise between it and the engine);
* ``authors_groups``: the authors' code (centred z-scores, differences summed column by column, no
  rounding, exact ties to the higher row), the reference of ``ties="bitwise"``.
"""

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from recourselab.situation_testing import paper


@st.composite
def mixed_tables(draw, max_rows=24):
    """Two small-integer columns and a colour: many tied distances."""
    n = draw(st.integers(8, max_rows))
    numeric = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    other = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    colour = draw(st.lists(st.sampled_from(["red", "blue", "green"]), min_size=n, max_size=n))
    protected = draw(st.lists(st.booleans(), min_size=n, max_size=n).filter(lambda p: 4 <= sum(p) <= len(p) - 4))
    frame = pd.DataFrame({"a": np.array(numeric, float), "b": np.array(other, float), "colour": colour})
    return frame, np.array(protected)


@st.composite
def tied_tables(draw, max_rows=90):
    """Integer-valued columns (1 to 4 of them, 2 to 5 levels), maybe a category, counterfactuals and decisions.

    Returns (frame, frame_cf, protected, y_hat, y_hat_cf, k). The counterfactual rows shift the numbers
    by 0 or 1 and give some rows another colour, one the factual rows never have.
    """
    n = draw(st.integers(12, max_rows))
    p = draw(st.integers(1, 4))
    levels = draw(st.integers(2, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    frame = pd.DataFrame(rng.integers(0, levels, size=(n, p)).astype(float), columns=[f"c{j}" for j in range(p)])
    frame_cf = frame + rng.integers(0, 2, size=(n, p))
    if draw(st.booleans()):
        frame["colour"] = rng.choice(["red", "blue", "green"], size=n)
        frame_cf["colour"] = np.where(rng.random(n) < 0.3, rng.choice(["red", "violet"], size=n), frame["colour"])
    protected = rng.random(n) < draw(st.floats(0.2, 0.8))
    protected[:3], protected[-3:] = True, False
    k = draw(st.integers(1, min(int(protected.sum()) - 1, int((~protected).sum()), 12)))
    return frame, frame_cf, protected, rng.random(n) < 0.5, rng.random(n) < 0.6, k


def rows(frame):
    """A frame as the paper's D: a list of rows, each a list of attribute values."""
    return frame.astype(object).to_numpy().tolist()


def categorical_flags(frame):
    return [not pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]


def population_sd(frame):
    """The population standard deviation of every numeric column (0 for a categorical one): the authors' spread."""
    return [0.0 if flag else float(np.std(frame[c].to_numpy(float)))
            for c, flag in zip(frame.columns, categorical_flags(frame), strict=True)]


def literal_groups(frame, protected, k, frame_cf=None, spread=None):
    """Control and test groups of every complainant by ``paper.top_k`` (the paper's Alg. 2, loops and a sort)."""
    D, categorical = rows(frame), categorical_flags(frame)
    D_CF = D if frame_cf is None else rows(frame_cf)
    spread = paper.ranges(D, categorical) if spread is None else spread
    D_c, D_t = list(np.flatnonzero(protected)), list(np.flatnonzero(~protected))
    control = [paper.top_k(D[c], D, [i for i in D_c if i != c], k, spread, categorical) for c in D_c]
    test = [paper.top_k(D_CF[c], D, D_t, k, spread, categorical) for c in D_c]
    return np.array(control), np.array(test)


def definition_groups(T, T_centres, protected, k, complainants=None, searches=("control", "test")):
    """The engine's definition in numpy: L1 on the rescaled rows, rounded to 12 decimals, ties by the lower row.

    ``T_centres`` holds the test centres of every row (T for ST, T_cf for CST); ``complainants`` (row
    positions) defaults to every protected row; ``searches`` says which groups to build (the other is None).
    """
    space_c, space_t = np.flatnonzero(protected), np.flatnonzero(~protected)
    complainants = space_c if complainants is None else complainants

    def nearest(centres, space, leave_out=False):
        columns = [np.ascontiguousarray(T[space, j]) for j in range(T.shape[1])]
        groups = []
        for c, centre in zip(complainants, centres, strict=True):
            d = np.zeros(len(space))
            for j, column in enumerate(columns):   # column by column, as the engine (and scikit-learn) sum
                d += np.abs(centre[j] - column)
            key = np.round(d, 12)
            if leave_out:
                key[np.searchsorted(space, c)] = np.inf   # the complainant is not its own control
            kth = np.partition(key, k - 1)[k - 1]
            candidates = np.flatnonzero(key <= kth)
            groups.append(space[candidates[np.lexsort((space[candidates], key[candidates]))][:k]])
        return np.array(groups)

    control = nearest(T[complainants], space_c, leave_out=True) if "control" in searches else None
    test = nearest(T_centres[complainants], space_t) if "test" in searches else None
    return control, test


def authors_groups(frame, protected, k, centres_frame, refit, complainants=None, normalize="std"):
    """The authors' k-NN: centred z-scores, differences summed column by column, exact ties to the higher row.

    ``complainants`` (row positions) defaults to every protected row; ``normalize="range"`` centres on the
    minimum and divides by the range instead (the book's ``ties="bitwise"`` with the paper's spread).
    """
    numeric = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])]

    def standardised(table, fitted_on):
        """Numeric columns as (x - centre) / spread, both of ``fitted_on`` (0 for a constant column)."""
        out = {c: table[c].to_numpy() for c in frame.columns if c not in numeric}
        for c in numeric:
            values, fit = table[c].to_numpy(float), fitted_on[c].to_numpy(float)
            centre, spread = (fit.mean(), fit.std()) if normalize == "std" else (fit.min(), fit.max() - fit.min())
            out[c] = (values - centre) / spread if spread > 0 else np.zeros(len(values))
        return out

    Z = standardised(frame, frame)
    Z_cf = standardised(centres_frame, centres_frame if refit else frame)

    def distance(centre, i, space):
        total = np.zeros(len(space))
        for c in frame.columns:
            a, b = centre[c][i], Z[c][space]
            total += (a != b) if c not in numeric else np.abs(a - b)
        return total / frame.shape[1]

    positions = np.arange(len(frame))
    control, test = [], []
    for c in positions[protected] if complainants is None else complainants:
        others = positions[protected & (positions != c)]
        control.append(others[np.lexsort((-others, distance(Z, c, others)))][:k])
        space = positions[~protected]
        test.append(space[np.lexsort((-space, distance(Z_cf, c, space)))][:k])
    return np.array(control), np.array(test)

"""Hypothesis strategies and slow reference implementations shared by the tests."""

import pandas as pd
from hypothesis import strategies as st

from recourselab.features import FeatureSpec

ACTS = ["free", "increase", "decrease", "immutable"]


@st.composite
def specs_and_frames(draw, min_rows=2, max_rows=25):
    """Random feature specs of every kind and a valid frame for them."""
    n_features = draw(st.integers(1, 6))
    n_rows = draw(st.integers(min_rows, max_rows))
    specs, columns = [], {}
    for f in range(n_features):
        kind = draw(st.sampled_from(["continuous", "ordinal", "categorical", "binary"]))
        act = draw(st.sampled_from(["free", "immutable"] if kind == "categorical" else ACTS))
        name = f"f{f}"
        if kind == "continuous":
            integer = draw(st.booleans())
            if integer:
                values = draw(st.lists(st.integers(-1000, 1000), min_size=n_rows, max_size=n_rows))
                columns[name] = pd.Series(values, dtype="int64")
            else:
                # hundredths: real moves stay far above the encoder's tolerance (1e-9 of the range)
                values = draw(st.lists(st.integers(-10**6, 10**6), min_size=n_rows, max_size=n_rows))
                columns[name] = pd.Series(values, dtype="float64") / 100
            specs.append(FeatureSpec(name, kind, act))
        else:
            n_levels = 2 if kind == "binary" else draw(st.integers(1, 5))
            levels = [f"{name}_level{i}" for i in range(n_levels)]
            levels = draw(st.permutations(levels))
            values = draw(st.lists(st.sampled_from(levels), min_size=n_rows, max_size=n_rows))
            columns[name] = pd.Series(values, dtype=object)
            specs.append(FeatureSpec(name, kind, act, order=levels))
    return specs, pd.DataFrame(columns)


def slow_feasible(specs, old: pd.Series, new: pd.Series) -> bool:
    """Per-feature reference on readable values, independent of the encoding."""
    for s in specs:
        a, b = old[s.name], new[s.name]
        if s.actionability == "immutable" and a != b:
            return False
        if s.actionability in ("increase", "decrease"):
            if s.kind == "continuous":
                up = b - a
            else:
                up = s.order.index(b) - s.order.index(a)
            if s.actionability == "increase" and up < 0:
                return False
            if s.actionability == "decrease" and up > 0:
                return False
    return True




# the advice directions each actionability allows (FeatureSpec refuses the others)
NARROWER = {"free": ("any", "increase", "decrease", "never"), "increase": ("increase", "never"),
            "decrease": ("decrease", "never"), "immutable": ("never",)}


def advised(draw, specs):
    """The same specs with random advice: a direction narrower than the actionability, sometimes a cap, and for
    a categorical or ordinal feature sometimes levels never advised (``never_advise_levels``)."""
    out = []
    for s in specs:
        options = [a for a in NARROWER[s.actionability] if s.kind != "categorical" or a in ("any", "never")]
        advise = draw(st.sampled_from(options))
        cap = None
        if advise != "never" and s.kind in ("continuous", "ordinal") and draw(st.booleans()):
            cap = float(draw(st.integers(1, 3))) if s.kind == "ordinal" else draw(st.sampled_from([0.5, 5.0, 300.0]))
        never = ()
        if s.kind in ("categorical", "ordinal") and len(s.order) > 1 and draw(st.booleans()):
            never = tuple(draw(st.lists(st.sampled_from(s.order), min_size=1, max_size=len(s.order) - 1,
                                        unique=True)))
        out.append(FeatureSpec(s.name, s.kind, s.actionability, order=s.order, advise=advise, max_change=cap,
                               never_advise_levels=never))
    return out


@st.composite
def encoded_problems(draw, min_rows=4, max_rows=14, advice=False):
    """Specs, a fitted encoder, encoded rows, a linear model (coef, intercept) and two groups.

    With ``advice=True`` the specs carry random advice (directions and caps), as the book's specs do.
    """
    import numpy as np
    from hypothesis import assume

    from recourselab.features import Encoder

    specs, frame = draw(specs_and_frames(min_rows=min_rows, max_rows=max_rows))
    if advice:
        specs = advised(draw, specs)
    # some feature a linear recourse may move (immutables and categories stay fixed)
    assume(any(s.actionability != "immutable" and s.kind != "categorical" for s in specs))
    encoder = Encoder(specs).fit(frame)
    Z = encoder.transform(frame)
    d = Z.shape[1]
    coef = np.array(draw(st.lists(st.integers(-3, 3), min_size=d, max_size=d)), dtype=float)
    assume((coef != 0).any())
    score = Z @ coef
    # an intercept that refuses some rows and accepts others where possible
    cut = draw(st.sampled_from([0.3, 0.5, 0.8]))
    intercept = -float(np.quantile(score, cut)) - 1e-3
    groups = np.array(draw(st.lists(st.sampled_from(["P", "N"]), min_size=len(Z), max_size=len(Z))))
    return specs, frame, encoder, Z, coef, intercept, groups


def assert_allowed(encoder, Z_from, Z_to, *, levels):
    """Feasible, inside [0, 1], one-hot blocks unchanged; ordinal/binary on a level when ``levels``."""
    import numpy as np

    assert encoder.feasible(Z_from, Z_to).all()
    assert (Z_to >= -1e-12).all() and (Z_to <= 1 + 1e-12).all()
    for spec in encoder.specs_:
        block = encoder.slices_[spec.name]
        if spec.kind == "categorical":
            np.testing.assert_array_equal(Z_to[:, block], Z_from[:, block])
        elif levels and spec.kind in ("ordinal", "binary"):
            scaled = Z_to[:, block.start] * max(len(encoder.levels_[spec.name]) - 1, 1)
            np.testing.assert_allclose(scaled, np.round(scaled), atol=1e-9)

"""Small random re-ranking instances for tests/fair_ranking (imported by name: tests/ is on pytest's path)."""

import numpy as np
from hypothesis import assume
from hypothesis import strategies as st

from recourselab.counterfactuals import _linear


@st.composite
def instances(draw, min_rows=3, max_rows=14, max_features=4, balanced=False, tight=False, finite=False):
    """Small exact-arithmetic instances: integer features and coefficients, dyadic steps and weights.

    ``tight``: every feature mutable with a nonzero coefficient and narrow bounds, so that single
    attributes often cannot reach a target and combinations of attributes are needed. ``finite``:
    finite bounds only (the literal search steps one at a time up to them).
    """
    n = draw(st.integers(min_rows, max_rows))
    d = draw(st.integers(2 if tight else 1, max_features))
    X = np.array(draw(st.lists(st.lists(st.integers(-6, 6), min_size=d, max_size=d), min_size=n, max_size=n)),
                 dtype=float)
    nonzero = st.integers(-3, 3).filter(bool) if tight else st.integers(-3, 3)
    coef = np.array(draw(st.lists(nonzero, min_size=d, max_size=d)), dtype=float)
    mutable = np.ones(d, dtype=bool) if tight else np.array(draw(st.lists(st.booleans(), min_size=d, max_size=d)))
    assume((mutable & (coef != 0)).any())
    weights = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=d, max_size=d)))
    steps = np.array(draw(st.lists(st.sampled_from([0.25, 0.5, 1.0]), min_size=d, max_size=d)))
    b = float(draw(st.integers(-12, 4)))
    if balanced:
        n -= n % 2
        assume(n >= 4)
        X = X[:n]
        groups = np.array(draw(st.permutations(["P"] * (n // 2) + ["N"] * (n // 2))))
    else:
        groups = np.array(draw(st.lists(st.sampled_from(["P", "N", "N"]), min_size=n, max_size=n)))
        assume(len(set(groups)) == 2)
    # a cost disadvantage for the protected group, so that re-ranking has work to do
    shift = draw(st.integers(0, 3))
    X[groups == "P"] -= shift * np.sign(coef) * mutable
    widths = [1.0, 2.0] if tight else [2.0, 4.0, 9.0] if finite else [2.0, 4.0, 9.0, np.inf]
    width = draw(st.sampled_from(widths))
    lower, upper = np.full(d, -width), np.full(d, width)
    if tight:
        X = np.clip(X, -width, width)
    return dict(X=X, groups=groups, coef=coef, intercept=b, weights=weights, steps=steps,
                immutable=np.flatnonzero(~mutable).tolist(), bounds=(lower, upper), mutable=mutable)


def relaxed_cost(X, inst):
    """The closed-form (relaxed) cost RAGUEL ranks by, from the private helpers it uses."""
    problem = _linear.parse_problem(X, inst["coef"], inst["intercept"], inst["weights"], immutable=inst["immutable"],
                                    bounds=inst["bounds"])
    return _linear.closed_form(problem)[1]


def with_recourse(inst, every_row=False):
    """The instance restricted to rows that some allowed move brings to the favourable side.

    RAGUEL compares group mean costs, so it refuses rows whose recourse cost is inf; this is
    the filtering its error message asks a user to do.
    """
    keep = np.isfinite(relaxed_cost(inst["X"], inst))
    assume(keep.all() if every_row else keep.sum() >= 3 and len(set(inst["groups"][keep])) == 2)
    return {**inst, "X": inst["X"][keep], "groups": inst["groups"][keep]}


def kwargs_of(inst, **extra):
    """The engine's keyword arguments of an instance."""
    keys = ("coef", "intercept", "weights", "steps", "immutable", "bounds")
    return {**{k: inst[k] for k in keys}, **extra}


def model_of(inst, max_steps=10_000):
    """The same problem in paper.py's notation (plain lists)."""
    lower, upper = inst["bounds"]
    return dict(a=inst["coef"].tolist(), b=inst["intercept"], w=inst["weights"].tolist(), steps=inst["steps"].tolist(),
                lower=lower.tolist(), upper=upper.tolist(), immutable=list(inst["immutable"]), max_steps=max_steps)


@st.composite
def advised_problems(draw, min_rows=6, max_rows=16):
    """Random specs with an advice policy (directions, caps), a fitted encoder, encoded rows, a linear model and
    two groups, restricted to the rows with finite relaxed costs (RAGUEL's waiting list)."""
    from recourselab.features import Encoder

    from strategies import advised as with_advice
    from strategies import specs_and_frames

    specs, frame = draw(specs_and_frames(min_rows=min_rows, max_rows=max_rows))
    advised = with_advice(draw, specs)
    encoder = Encoder(advised).fit(frame)
    Z = encoder.transform(frame)
    coef = np.array(draw(st.lists(st.integers(-3, 3), min_size=Z.shape[1], max_size=Z.shape[1])), dtype=float)
    assume(any(s.actionability != "immutable" and s.kind != "categorical" for s in advised))
    assume(_linear.parse_problem(Z, coef, 0.0, None, encoder=encoder).usable.any())
    score = Z @ coef
    intercept = -float(np.quantile(score, draw(st.sampled_from([0.5, 0.8, 1.0])))) - 1e-3
    groups = np.array(draw(st.lists(st.sampled_from(["P", "N"]), min_size=len(Z), max_size=len(Z))))
    cost = _linear.closed_form(_linear.parse_problem(Z, coef, intercept, None, encoder=encoder))[1]
    keep = np.isfinite(cost)
    assume(keep.sum() >= 4 and len(set(groups[keep])) == 2)
    return encoder, Z[keep], coef, intercept, groups[keep]

"""The book's synthetic worlds, small and at scale, as fixtures for the situation-testing tests."""

import numpy as np
import pytest


@pytest.fixture(scope="session")
def loan_world():
    from recourselab.datasets import make_loan_scm

    world = make_loan_scm(300, random_state=1)
    X = world.frame[list(world.features)]
    cf = world.true_counterfactual({"gender": 0})[list(world.features)]
    return X, cf, world.frame["gender"].to_numpy() == 1, world.frame[world.target].to_numpy()


@pytest.fixture(scope="session")
def law_world():
    from recourselab.datasets import make_law_school

    world = make_law_school(400, random_state=2)   # grades and scores on a grid: many tied distances
    X = world.frame[list(world.features)]
    cf = world.true_counterfactual({"female": 0})[list(world.features)]
    return X, cf, world.frame["female"].to_numpy() == 1, world.frame[world.target].to_numpy()


@pytest.fixture(scope="session")
def loan_slice():
    """A 20,000-row slice of the benchmark's synthetic loan table (salary on a grid of 500s: tied distances)."""
    from recourselab.datasets import make_loan_scm

    world = make_loan_scm(20_000, random_state=3)
    X = world.frame[list(world.features)].assign(
        age=np.random.default_rng(3).integers(18, 76, size=20_000).astype(float))
    cf = world.true_counterfactual({"gender": 0})
    X_cf = X.assign(**{c: cf[c] for c in world.features})
    return (X, X_cf, world.frame["gender"].to_numpy() == 1, world.frame[world.target].to_numpy(),
            cf[world.target].to_numpy())

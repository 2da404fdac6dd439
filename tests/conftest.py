import os

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from recourselab.datasets import load_german_credit  # noqa: E402

# derandomize: the same examples on every run, so a red CI is a real failure and re-runs reproduce it;
# HYPOTHESIS_PROFILE=explore draws fresh examples (run it locally after changing a property or a strategy)
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def german():
    return load_german_credit()


@pytest.fixture(scope="session")
def german_encoder(german):
    return german.encoder().fit(german.frame)

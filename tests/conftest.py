import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from recourselab.datasets import load_german_credit  # noqa: E402

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")


@pytest.fixture(scope="session")
def german():
    return load_german_credit()


@pytest.fixture(scope="session")
def german_encoder(german):
    return german.encoder().fit(german.frame)

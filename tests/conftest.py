import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "dev", max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
# CI's: twice Hypothesis' default number of examples, the same ones every run (a test
# whose reference is slow caps its own; one that needs more sets its own)
settings.register_profile(
    "ci",
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture
def rng():
    return np.random.default_rng(0)

"""Shared fixtures: paths to the shipped real data."""

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
XL330 = REPO / "data" / "xl330"


@pytest.fixture(scope="session")
def xl330_processed() -> Path:
    return XL330 / "processed"


@pytest.fixture(scope="session")
def xl330_raw() -> Path:
    return XL330 / "raw"


@pytest.fixture(scope="session")
def reference_mae_file() -> Path:
    return XL330 / "reference_mae.json"


# Property-based tests (tests/test_fuzz_*.py): a fixed, bounded run in CI; a longer random one for a
# release with HYPOTHESIS_PROFILE=release.
try:
    import os

    from hypothesis import HealthCheck, settings

    settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("release", max_examples=20_000, deadline=None, print_blob=True,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # hypothesis is in requirements-test.txt; without it the fuzz tests are skipped
    pass

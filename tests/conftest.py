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

"""A fixture of actuator_bench's own tests: a servo family installed as a user's package would
be. (Not a conftest.py: tests/conftest.py is imported by name elsewhere, and two modules named
``conftest`` on one path collide.) Tests take it with ``from family_install import
family_distribution_fixture`` (the fixture is named ``family_distribution``)."""

import importlib
import json
import os
import sys
from pathlib import Path

import pytest

from actuator_models.actuator_file import actuator_from_description
from actuator_models.family import GROUP
from actuator_models.model import Model, load_model, save_model


def voltage_servo(name: str, title: str) -> dict:
    """A user-described voltage-law servo (the actuator library is not touched), MX-64-like numbers."""
    return {
        "name": name, "title": title, "control_law": "voltage",
        "constants": {"error_gain": {"value": 0.158, "unit": "1/rad"}, "max_duty": {"value": 0.9625, "unit": "1"},
                      "vin": {"value": 12.0, "unit": "V"}},
        "parameters": {"kt": {"default": 1.6, "bounds": [1.0, 3.0], "unit": "N m/A"},
                       "R": {"default": 4.0, "bounds": [1.0, 8.0], "unit": "ohm"},
                       "armature": {"default": 0.012, "bounds": [0.001, 0.05], "unit": "kg m^2"},
                       "q_offset": {"default": 0.0, "bounds": [-0.1, 0.1], "unit": "rad"}},
    }


@pytest.fixture(name="family_distribution")
def family_distribution_fixture(tmp_path, monkeypatch):
    """Install a servo family as a user's package would: ``install(module, entry, servo, title)``
    puts this folder's ``<module>.py`` and one entry point of the family group into a site folder
    on ``sys.path`` and in ``PYTHONPATH`` (for subprocesses), with the family's data files: its
    servo's description (``<servo>.json``, a :func:`voltage_servo`) and its true model
    (``<servo>_m1.json``, MX-64's M1 values), whose path it returns."""
    site = tmp_path / "site"
    modules = []

    def install(module: str, entry: str, servo: str, title: str) -> Path:
        info = site / f"{module}-0.1.dist-info"
        info.mkdir(parents=True)
        (site / f"{module}.py").write_text(Path(__file__).with_name(f"{module}.py").read_text())
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text(f"[{GROUP}]\n{entry} = {module}:FAMILY\n")
        description = voltage_servo(servo, title)
        (site / f"{servo}.json").write_text(json.dumps(description))
        m1 = load_model("mx64/m1")
        params = site / f"{servo}_m1.json"
        save_model(Model(actuator_from_description(description), m1.friction, dict(m1.values)), params)
        modules.append(module)
        importlib.invalidate_caches()
        return params

    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    yield install
    for module in modules:
        sys.modules.pop(module, None)
    importlib.invalidate_caches()

"""Drive/backdrive limits and the PNG figures."""

import numpy as np
import pytest

from actuator_models import load_model, new_model
from actuator_sim.drive_backdrive import drive_backdrive, stall_torque
from actuator_models.plots import plot_drive_backdrive, plot_mae_bars, plot_trajectory

PNG = b"\x89PNG\r\n\x1a\n"


def test_coulomb_viscous_limits_are_tm_minus_and_plus_the_budget():
    model = new_model("mx64", "m1", friction_base=0.2, friction_viscous=0.1)
    data = drive_backdrive(model, 2.0, velocities=(0.0, 1.0), points=201)
    step = 3 * 2.0 / (4 * 201 - 1)  # load grid resolution
    for row, budget in enumerate((0.2, 0.3)):
        tm = data.motor_torque
        driven = tm > budget + step
        assert np.allclose(data.drive[row, driven], tm[driven] - budget, atol=step)
        assert np.all(np.isnan(data.drive[row, tm < budget - step]))
        assert np.allclose(data.backdrive[row], tm + budget, atol=step)


def test_load_dependent_models_widen_the_static_area():
    m1, m6 = (load_model(f"mx64/{m}") for m in ("m1", "m6"))
    top = 3.0
    width = [np.nanmean(d.backdrive[0] - d.drive[0]) for d in (drive_backdrive(m, top) for m in (m1, m6))]
    assert width[1] > 2 * width[0]


def test_stall_torque():
    model = load_model("mx64/m1")
    v = model.values
    assert stall_torque(model) == pytest.approx(v["kt"] * 15.0 * 0.9625 / v["R"])
    erob = load_model("erob80_50/m1")
    assert stall_torque(erob) == pytest.approx(erob.values["kt"] * 12.0)


def _is_png(path):
    data = path.read_bytes()
    return data.startswith(PNG) and len(data) > 10_000


def test_figures_render(tmp_path):
    panels = {m: drive_backdrive(load_model(f"mx64/{m}"), 3.0) for m in ("m1", "m6")}
    assert _is_png(plot_drive_backdrive(panels, tmp_path / "diagram.png", title="MX-64"))
    t = np.arange(0, 6, 0.005)
    measured = np.sin(t)
    assert _is_png(plot_trajectory(t, measured, {"M1": measured + 0.05, "M6": measured + 0.01},
                                   tmp_path / "trajectory.png", goal=1.2 * measured, title="sin"))
    maes = {"circle, low gain": {"M1": 0.03, "M6": 0.01}, "square, low gain": {"M1": 0.02, "M6": 0.005}}
    assert _is_png(plot_mae_bars(maes, tmp_path / "mae.png", title="2R"))
    assert _is_png(plot_mae_bars({"mean": {"M1": 0.03, "M6": 0.01}}, tmp_path / "single.png"))
    with pytest.raises(ValueError):
        plot_mae_bars({}, tmp_path / "empty.png")

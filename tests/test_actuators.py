"""Actuator control laws, the registry, params files and trajectories."""

import json
import math

import numpy as np
import pytest

from actuator_models.actuators import ACTUATORS, XL330_GAIN, actuator
from actuator_models.model import ParamsError, library_names, load_model, new_model, save_model
from actuator_models.trajectories import TRAJECTORIES, trajectory

P = {"kt": 2.0, "R": 4.0}


def test_registry_names():
    assert set(ACTUATORS) == {"mx64", "mx106", "xl330", "erob80_50", "erob80_100", "sts3215"}
    with pytest.raises(ValueError, match="unknown actuator 'mx28'"):
        actuator("mx28")


def test_dynamixel_voltage_law():
    mx = actuator("mx64")
    # duty = 8 * 0.158 * 0.5 = 0.632 -> V = 15 * 0.632; saturates at 0.9625
    assert mx.control(0.5, 0.0, 0.0, 8, 15.0) == pytest.approx(15 * 0.632)
    assert mx.control(5.0, 0.0, 0.0, 8, 15.0) == pytest.approx(15 * 0.9625)
    # tm = kt V / R - kt^2 v / R ; zero when torque is disabled
    assert mx.torque(6.0, True, 1.5, P, 15.0) == pytest.approx(2 * 6 / 4 - 4 * 1.5 / 4)
    assert mx.torque(6.0, False, 1.5, P, 15.0) == 0.0
    xl = actuator("xl330")
    assert XL330_GAIN == pytest.approx(4096 / (2 * math.pi) / (256 * 885))
    assert xl.control(10.0, 0.0, 0.0, 800, 7.4) == pytest.approx(7.4)  # max duty 1.0


def test_erob_current_pd_law():
    e = actuator("erob80_100")  # damping 2
    assert e.control(0.1, 0.0, 0.5, 25, 48.0) == pytest.approx(25 * 0.1 - 2 * 5 * 0.5)
    assert e.control(10.0, 0.0, 0.0, 25, 48.0) == pytest.approx(12.0)
    p = {"kt": 5.0, "R": 10.0}
    # unsaturated: kt I ; saturated by the 48 V band (kt/R) 48 shifted by back-EMF kt^2 v / R
    assert e.torque(2.0, 1, 0.0, p, 48.0) == pytest.approx(10.0)
    assert e.torque(12.0, 1, 0.0, p, 48.0) == pytest.approx(0.5 * 48)
    assert e.torque(12.0, 1, 2.0, p, 48.0) == pytest.approx(0.5 * 48 - 25 * 2 / 10)
    assert e.torque(12.0, 0, 0.0, p, 48.0) == 0.0


def test_params_round_trip_records_integrator(tmp_path):
    model = new_model("mx106", "m4", "semi-implicit", kt=2.5)
    save_model(model, tmp_path / "p.json")
    data = json.loads((tmp_path / "p.json").read_text())
    assert data["integrator"] == "semi-implicit" and data["model"] == "m4" and data["kt"] == 2.5
    again = load_model(tmp_path / "p.json")
    assert again.values == model.values and again.integrator == "semi-implicit"
    del data["integrator"]
    (tmp_path / "bam.json").write_text(json.dumps(data))
    assert load_model(tmp_path / "bam.json").integrator == "bam"


def test_library_and_defaults():
    names = library_names()
    assert len(names) == 31 and "mx64/m6" in names and "erob80_100/m1" in names and "sts3215/m1" in names
    assert load_model("erob80_100/m1").values["R"] == 2.0  # file without R keeps the default
    assert load_model("xl330/m6").values["alpha"] == pytest.approx(8.683259907618984)


@pytest.mark.parametrize("field, value", [("kt", "x"), ("kt", float("nan")), ("integrator", "rk4"), ("model", "m7")])
def test_bad_params_file(tmp_path, field, value):
    data = {"model": "m1", "actuator": "mx64", "kt": 1.5, field: value}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ParamsError, match=str(path)):
        load_model(path)


def test_trajectories():
    assert set(TRAJECTORIES) == {"sin_time_square", "sin_sin", "up_and_down", "lift_and_drop"}
    up = trajectory("up_and_down")
    assert up.goal(0.0) == 0 and up.goal(3.0) == pytest.approx(math.pi / 2) and up.goal(6.0) == pytest.approx(0.4 * math.pi)
    drop = trajectory("lift_and_drop")
    assert drop.goal(2.0) == pytest.approx(-math.pi / 2) and drop.enable(1.9) and not drop.enable(2.1)
    t, goal, enable = trajectory("sin_time_square").sample(0.005)
    assert len(t) == 1201 and np.allclose(goal, np.sin(t**2)) and enable.all()
    # the shipped real logs follow these trajectories (up to recording jitter)

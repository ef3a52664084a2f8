"""Servo ratings from the models (actuator_models.ratings): closed forms of the voltage law with
M1 friction, and the current law's saturation."""

from __future__ import annotations

import pytest
from actuator_models.model import load_model
from actuator_models.ratings import ratings


def test_voltage_law_stall_torque_and_no_load_speed_are_the_dc_motor_closed_forms():
    model = load_model("xl330/m1")
    p, law, vin = model.values, model.actuator, 5.0
    volts = vin * law.max_duty
    rated = ratings(model, vin)
    assert rated.stall_torque == pytest.approx(p["kt"] * volts / p["R"], rel=1e-12)
    # kt (V - kt v) / R = Kc + Kv v
    speed = (p["kt"] * volts / p["R"] - p["friction_base"]) / (p["kt"] ** 2 / p["R"] + p["friction_viscous"])
    assert rated.no_load_speed == pytest.approx(speed, rel=1e-6)
    assert ratings(model, 2 * vin).stall_torque == pytest.approx(2 * rated.stall_torque, rel=1e-12)


def test_current_law_stall_torque_is_the_current_limit_and_friction_above_it_means_no_speed():
    model = load_model("erob80_50/m1")
    law = model.actuator
    rated = ratings(model, 48.0)
    assert rated.stall_torque == pytest.approx(model.values["kt"] * law.max_current, rel=1e-12)
    assert rated.no_load_speed > 0
    stuck = model.with_values(friction_base=2 * rated.stall_torque)
    assert ratings(stuck, 48.0).no_load_speed == 0.0
    with pytest.raises(ValueError, match="vin 0"):
        ratings(model, 0.0)

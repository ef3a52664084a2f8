"""The steered, cambered wheel in space (``wheel3d``): the planar wheel as its special case, the
lateral and yaw parts of the spatial contact under a slip angle and a camber, energy balance and
mirror symmetry."""

from __future__ import annotations

import numpy as np
import pytest

from hybrid_sim import RunSettings, simulate
from hybrid_sim.wheel import Wheel, WheelParameters, initial_state
from hybrid_sim.wheel3d import SteeredWheel, Steering, initial_state_3d

SETTINGS = RunSettings(final_time=0.6, record_period=0.005, tolerance=1e-9, max_time_step=1e-3,
                       max_chart_count=20000)
UNDAMPED = WheelParameters(d_theta=0.0, d_t=0.0, d_z=0.0, mu=float("inf"))


def run(steering, params=UNDAMPED, **initial):
    model = SteeredWheel(params, steering)
    result = simulate(model, initial_state_3d(params=params, steering=steering, **initial), SETTINGS)
    assert result.success, result.message
    return dict(zip(result.aux_names, result.aux))


def test_upright_unsteered_wheel_is_the_planar_wheel():
    """An independent reference: the planar model (its own geometry and state layout), with the
    damped default tire and friction (so STICK and SLIP both occur)."""
    p = WheelParameters()
    planar = simulate(Wheel(p), initial_state(params=p, spin=10.0, xd=1.0), SETTINGS)
    spatial = simulate(SteeredWheel(p), initial_state_3d(speed=1.0, spin=10.0, params=p), SETTINGS)
    assert planar.success and spatial.success
    assert [(e.chart_from, e.chart_to) for e in planar.events] == [(e.chart_from, e.chart_to) for e in spatial.events]
    np.testing.assert_array_equal(planar.t, spatial.t)
    for name in ("x", "z", "phi", "qx", "qz", "dissipated"):
        np.testing.assert_allclose(spatial.state(name), planar.state(name), atol=1e-8)
    assert np.all(spatial.state("y") == 0.0) and np.all(spatial.state("qy") == 0.0)


def test_slip_angle_charges_the_lateral_spring_and_turns_the_wheel_mirror_symmetrically():
    # heading psi = +-0.2 rad, moving along x: a slip angle; undamped, no slip: energy is conserved
    left = run(Steering(0.2, 0.0), speed=1.0, spin=1.0 / 0.3, course=0.0)
    right = run(Steering(-0.2, 0.0), speed=1.0, spin=1.0 / 0.3, course=0.0)
    assert np.abs(left["qy"]).max() > 1e-4  # the lateral spring carries the side force
    assert left["yd"][-1] > 0.05  # which turns the velocity towards the heading
    np.testing.assert_allclose(right["y"], -left["y"], atol=1e-9)
    np.testing.assert_allclose(right["x"], left["x"], atol=1e-9)
    for aux in (left, right):
        assert np.ptp(aux["balance"]) < 1e-6 * aux["energy"][0]


def test_camber_charges_the_yaw_spring_mirror_symmetrically():
    plus = run(Steering(0.0, 0.15), speed=1.0, spin=1.0 / 0.3)
    minus = run(Steering(0.0, -0.15), speed=1.0, spin=1.0 / 0.3)
    assert np.abs(plus["theta"]).max() > 1e-3  # a cambered tread turns about the normal as it rolls
    np.testing.assert_allclose(minus["theta"], -plus["theta"], atol=1e-9)
    np.testing.assert_allclose(minus["y"], -plus["y"], atol=1e-9)
    for aux in (plus, minus):
        assert np.ptp(aux["balance"]) < 1e-6 * aux["energy"][0]


def test_steered_wheel_refuses_waves_and_extreme_angles():
    with pytest.raises(ValueError, match="plane"):
        SteeredWheel(WheelParameters(amplitude=0.01))
    with pytest.raises(ValueError, match="camber"):
        Steering(0.0, 1.2)


def test_cli_wheel3d_runs_a_steered_wheel_and_reports_its_side_motion(capsys):
    import json

    from hybrid_sim.cli import main

    assert main(["wheel3d", "--steer", "0.2", "--initial", "course=0", "--final-time", "0.3",
                 "--param", "d_theta=0,d_t=0,d_z=0,mu=inf", "--json"]) == 0
    info = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert info["status"] == 0 and info["final"]["y"] > 0.0 and info["max_abs_qy"] > 1e-4
    assert info["balance_drift"] < 1e-6
    assert main(["wheel3d", "--param", "amplitude=0.01"]) == 2

"""The Feetech STS firmware law (issue 22): target-speed limit before the P law, its two
identified parameters, the published M1, the compiled kernel and MuJoCo against the numpy
reference, and the actuator-file path for other STS servos."""

from __future__ import annotations

import math

import numpy as np
import pytest

from actuator_models import kernel
from actuator_models.actuators import STS_TARGET_SPEED, actuator
from actuator_models.model import ParamsError, load_model, model_from_dict, new_model
from actuator_models.simulation import LogBatch, Pendulum, PendulumSimulator, rollout
from actuator_models.synthesis import BenchConfig, synthesize_logs
from actuator_sim.replay import replays

STS = actuator("sts3215")


def test_published_m1_loads_with_the_law_defaults():
    model = load_model("sts3215/m1")
    assert model.values["error_gain_ratio"] == 1.0
    assert model.values["target_speed_limit"] == pytest.approx(2 * math.pi * 3400 / 4096)
    assert model.values["kt"] == pytest.approx(1.21164135295077) and model.actuator.default_vin == 7.4
    bounds = {p.name: (p.lower, p.upper) for p in model.parameters}
    assert bounds["error_gain_ratio"] == (0.1, 10.0)
    assert bounds["target_speed_limit"] == pytest.approx((0.1 * STS_TARGET_SPEED, 10 * STS_TARGET_SPEED))
    assert {p.name for p in new_model("sts3215", "m6").parameters} >= {"load_friction_motor", "error_gain_ratio"}


def test_params_errors_name_the_field():
    data = {"model": "m1", "actuator": "sts3215", "kt": 1.2, "armature": 0.03, "friction_base": 0.05,
            "friction_viscous": 0.06, "error_gain_ratio": -1.0}
    with pytest.raises(ParamsError, match="key 'error_gain_ratio' is -1.0: expected > 0"):
        model_from_dict(data)


def test_duty_is_0_166_kp_ratio_error_capped_at_0_97():
    p = {"error_gain_ratio": 1.5, "target_speed_limit": 100.0}
    state, setpoint = STS.firmware(0.0, 0.01, 0.0, True, 0.005, p)  # within one step of the limit
    assert state == pytest.approx(0.01)
    assert STS.control(setpoint, 0.0, 0.0, 32.0, 7.4) == pytest.approx(7.4 * 0.166 * 32 * 1.5 * 0.01)
    _, far = STS.firmware(2.0, 2.0, 0.0, True, 0.005, p)
    assert STS.control(far, 0.0, 0.0, 32.0, 7.4) == pytest.approx(7.4 * 0.97)
    state, setpoint = STS.firmware(0.4, 2.0, 0.3, False, 0.005, p)  # torque off: the target follows the shaft
    assert state == setpoint == 0.3


def test_the_shaft_follows_a_step_at_the_target_speed_limit():
    """A light pendulum, a step of 2 rad: the firmware turns it into a ramp at the speed limit,
    which the shaft tracks with a constant lag (slope = the limit, an exact property of the law)."""
    limit = 2.0  # rad/s, below the no-load speed of the STS3215 at 7.4 V (about 5.9 rad/s)
    model = load_model("sts3215/m1").with_values(target_speed_limit=limit, q_offset=0.0)
    sim = PendulumSimulator(model, Pendulum(0.05, 0.05))
    q = []
    for _ in range(200):  # 1 s
        sim.step(2.0, True, 32.0, 0.005)
        q.append(sim.q)
    slope = (q[180] - q[100]) / (80 * 0.005)
    assert slope == pytest.approx(limit, rel=0.01)
    assert 0.0 < sim.firmware - sim.q < 0.1  # the target leads the shaft by the P law's lag


@pytest.fixture(scope="module")
def sts_logs():
    truth = load_model("sts3215/m1")
    return synthesize_logs(truth, [BenchConfig(0.3, 0.1, 32.0), BenchConfig(0.6, 0.15, 16.0)])


def test_the_speed_limit_shapes_the_published_trajectories(sts_logs):
    """Without the limit (10x) the same model moves differently: the law is not a no-op."""
    model = load_model("sts3215/m1")
    batch = LogBatch.from_logs(sts_logs, 7.4)
    limited = rollout(model.actuator, model.friction, model.values, batch)
    free = rollout(model.actuator, model.friction, {**model.values, "target_speed_limit": 10 * STS_TARGET_SPEED}, batch)
    assert np.abs(limited - free).max() > 0.05


@pytest.mark.parametrize("name", ["m1", "m6"])
def test_compiled_kernel_matches_the_numpy_reference(sts_logs, name):
    model = new_model("sts3215", name)
    rng = np.random.default_rng(0)
    values = {p.name: rng.uniform(p.lower, p.upper, 4) for p in model.parameters}
    batch = LogBatch.from_logs(sts_logs, 7.4)
    reference = rollout(model.actuator, model.friction, values, batch)
    assert kernel.supports(model.actuator, model.friction)
    _, compiled = kernel.run(model.actuator, model.friction, values, batch, "bam", positions=True)
    np.testing.assert_allclose(compiled, reference, atol=1e-9)


def test_mujoco_reproduces_the_reference_simulator(sts_logs):
    results = replays(load_model("sts3215/m1"), sts_logs)
    assert max(r.mae_reference for r in results) < 0.01


def test_an_actuator_file_describes_another_sts_servo(tmp_path):
    path = tmp_path / "st3025.yaml"
    path.write_text(
        "name: st3025\ncontrol_law: sts\nconstants:\n  error_gain: {value: 0.166, unit: 1/rad}\n"
        "  max_duty: {value: 0.97, unit: '1'}\n  vin: {value: 12.0, unit: V}\n"
        "parameters:\n  kt: {default: 2.0, bounds: [0.5, 5.0], unit: N m/A}\n"
        "  R: {default: 3.0, bounds: [1.0, 8.0], unit: ohm}\n"
        "  armature: {default: 0.02, bounds: [0.001, 0.1], unit: kg m^2}\n"
        "  target_speed_limit: {default: 4.0, bounds: [1.0, 20.0], unit: rad/s}\n")
    servo = actuator(path)
    assert type(servo) is type(STS) and servo.default_vin == 12.0
    params = {p.name: p for p in servo.parameters}
    assert params["target_speed_limit"].default == 4.0 and params["error_gain_ratio"].default == 1.0
    voltage = tmp_path / "bad.yaml"
    voltage.write_text(path.read_text().replace("control_law: sts", "control_law: voltage"))
    with pytest.raises(ValueError, match=r"field 'parameters' \(voltage law\): unknown field 'target_speed_limit'"):
        actuator(voltage)


def test_so100_arm_holds_a_horizontal_pose_with_the_static_gravity_torques():
    """The SO-100-style arm in MuJoCo driven by STS models: at rest with both links horizontal the
    motor torques equal the gravity torques of the MJCF's masses (closed form), up to the
    friction the model can hold at rest (M1: friction_base)."""
    from actuator_sim.arm import ARMS, arm_simulation

    model = load_model("sts3215/m1")
    sim = arm_simulation(ARMS["so100"], model, model, kp=32.0)
    pose = np.array([math.pi / 2, 0.0])
    sim.reset(pose)
    sim.set_goal(pose)
    sim.step(400)  # 2 s
    g = 9.80665
    elbow = g * (0.035 * 0.0675 + 0.2 * 0.135)
    shoulder = g * (0.045 * 0.058 + 0.055 * 0.116 + 0.035 * (0.116 + 0.0675) + 0.2 * (0.116 + 0.135))
    torque = np.abs(sim.state.motor_torque)
    budget = model.values["friction_base"]
    assert np.abs(sim.velocity).max() < 1e-3
    assert abs(torque[1] - elbow) <= budget + 1e-3 and abs(torque[0] - shoulder) <= budget + 1e-3
    assert np.abs(sim.position - pose).max() < 0.1  # the P law's sag at kp 32


def test_the_law_parameters_are_searched_on_a_log_scale_centred_on_their_nominal_values():
    from actuator_models.objective import SearchSpace

    # declared log-scale (Parameter.log), the law's parameters are log-scale even with the fit's
    # wide-range log scale off (issue 21's log_scale, which would also take kt's 0.1-3.0)
    space = SearchSpace.for_model(new_model("sts3215", "m1"), log_scale=False)
    centre = space.from_unit(np.full(len(space.free), 0.5))
    assert centre["target_speed_limit"] == pytest.approx(STS_TARGET_SPEED)  # geometric mean of 0.1x and 10x
    assert centre["error_gain_ratio"] == pytest.approx(1.0)
    assert centre["kt"] == pytest.approx((0.1 + 3.0) / 2)  # the others stay linear
    values = {**centre, "target_speed_limit": 2.0, "error_gain_ratio": 7.0}
    unit = space.to_unit(values)
    assert unit[space.names.index("target_speed_limit")] == pytest.approx(
        math.log(2.0 / (0.1 * STS_TARGET_SPEED)) / math.log(100))
    assert space.from_unit(unit) == pytest.approx(values)


def test_log_scale_bounds_map_back_inside_the_bounds():
    from actuator_models.objective import SearchSpace

    space = SearchSpace.for_model(new_model("sts3215", "m1"))
    for corner in (0.0, 1.0):
        values = space.from_unit(np.full(len(space.free), corner))
        assert all(p.lower <= values[p.name] <= p.upper for p in space.free)  # optuna refuses a value outside

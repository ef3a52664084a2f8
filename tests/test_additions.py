"""Model additions (latency, backlash, heating) in the numpy rollout (the reference), the compiled
kernel and the step-by-step pendulum simulator, each against an independent reference: a pure
delay shifts a step response by exactly the delay; the output behind a play stays put until the
drive has crossed it; a heated winding moves the drive as the analytic motion with the heated
resistance (tests/additions_reference.py). Params files carry them as ordinary parameters; the
published models carry none."""

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from actuator_models.actuators import actuator
from actuator_models import kernel
from actuator_models.additions import ADDITIONS, carried_by_default
from actuator_models.addition_latency import LATENCY_ADDITION
from actuator_models.model import ParamsError, library_names, load_model, new_model, save_model
from actuator_models.simulation import LogBatch, Pendulum, PendulumSimulator, rollout

sys.path.insert(0, str(Path(__file__).parent))
from additions_reference import BACKLASH, R, drive_travel, frictionless, output_travel, step_log  # noqa: E402


def _three_ways(model, log):
    """Positions of one log by the numpy rollout, the kernel and the step-by-step simulator."""
    batch = LogBatch.from_logs([log], model.actuator.default_vin)
    numpy_q = rollout(model.actuator, model.friction, model.values, batch, model.integrator)[0]
    values = {k: np.array([v]) for k, v in model.values.items()}
    kernel_q = kernel.run(model.actuator, model.friction, values, batch, model.integrator, positions=True)[1][0, 0]
    temperature = log.extra["temp"][0] if "temp" in log.extra else None
    sim = PendulumSimulator(model, Pendulum(log.mass, log.length, log.arm_mass), vin=log.vin, q=log.position[0],
                            temperature=temperature)
    stepped = []
    for goal, enable in zip(log.goal_position, log.torque_enable):
        stepped.append(sim.q)
        sim.step(goal, bool(enable), log.kp, log.dt)
    return numpy_q, kernel_q, np.array(stepped)


def test_latency_shifts_a_step_response_by_exactly_the_delay():
    """A pendulum hanging at rest, goal stepped at sample 40: with a latency of 7 steps the
    response is the one without latency to the goal stepped at sample 47 (time invariance)."""
    dt, lag = 0.005, 7
    model = new_model("xl330", "m6")
    delayed = replace(step_log(dt, 300, goal=0.8, at=40, mass=0.5, length=0.1, kp=400), motor="xl330")
    shifted = replace(delayed, goal_position=np.where(np.arange(300) >= 40 + lag, 0.8, 0.0))
    reference = _three_ways(model, shifted)[0]
    assert np.ptp(reference) > 0.5  # it moved
    for got in _three_ways(model.with_values(latency=lag * dt), delayed):
        assert np.max(np.abs(got - reference)) < 1e-9


def test_latency_interpolates_the_goal_between_samples():
    """Between whole steps the delayed goal is the linear interpolation of the log's goals (the
    cost is continuous in the latency), and the torque enable is the last one sent."""
    goal = [0.0, 1.0, 3.0, 6.0, 10.0, 15.0]
    enable = [True, True, False, False, True, True]
    p = {"latency": 0.0125}
    for batched in (False, True):  # one servo (floats) and a batch of two logs (arrays): the same state
        ring = LATENCY_ADDITION.start(np.zeros(2) if batched else 0.0, p, np.full(2, 0.005) if batched else 0.005)
        got = []
        for g, e in zip(goal, enable):
            ring, g, e = LATENCY_ADDITION.on_command(ring, np.full(2, g) if batched else g, e, p, 0.005)
            got.append((float(np.ravel(g)[-1]), bool(np.ravel(e)[-1])))
        assert [g for g, _ in got] == pytest.approx([0.0, 0.0, 0.0, 0.5, 2.0, 4.5])
        assert [e for _, e in got] == [True] * 5 + [False]


def test_backlash_output_stays_until_the_drive_has_crossed_the_play():
    """Frictionless, gravity-free, saturated drive: the output stays at 0 until the drive has
    moved half the play, then follows it half the play behind (analytic x(t)); without backlash
    it follows x(t). The bam step (0.1 ms) leads the continuous motion by about one step: the
    simulated output lies between x at t and x at t + 1.5 steps."""
    dt, steps = 1e-4, 600
    log = step_log(dt, steps)
    t = np.arange(steps) * dt
    for backlash, model in ((BACKLASH, frictionless(backlash=BACKLASH)), (0.0, frictionless())):
        for got in _three_ways(model, log):
            assert np.all(got >= output_travel(t, backlash) - 1e-12)
            assert np.all(got <= output_travel(t + 1.5 * dt, backlash) + 1e-12)
            if backlash:
                still = output_travel(t + 3 * dt, backlash) == 0.0  # the drive is 3 steps or more short of the play
                assert still.sum() > 50 and np.all(got[still] == 0.0)
                assert got[-1] > 0.2


def test_heating_moves_the_drive_as_the_analytic_motion_with_the_heated_resistance():
    """Frictionless, gravity-free, saturated drive logged at 45 degC: with heating 0.02/K the
    winding has R (1 + 0.02 x 20) = 1.4 R, and the three simulators follow the analytic motion
    of that resistance (not of R); a log without a temperature column is simulated at 25 degC
    (the identified R), and so is a model without heating."""
    dt, steps = 1e-4, 600
    t = np.arange(steps) * dt
    hot, plain = step_log(dt, steps, temperature=45.0), step_log(dt, steps)
    for model, log, r in ((frictionless(heating=0.02), hot, 1.4 * R), (frictionless(heating=0.02), plain, R),
                          (frictionless(), hot, R)):
        for got in _three_ways(model, log):
            assert np.all(got >= drive_travel(t, r) - 1e-12)
            assert np.all(got <= drive_travel(t + 1.5 * dt, r) + 1e-12)
    assert drive_travel(t[-1:], 1.4 * R)[0] < 0.9 * drive_travel(t[-1:] + 1.5 * dt, R)[0]  # the two are told apart


def test_thermal_and_supply_are_carried_by_default_only_when_the_logs_record_a_temperature_span():
    """``fit --carry auto``: thermal (issue 31; heating before) when every log records its
    temperature over 2 K or more (else its effect cannot be told apart from R), with supply for a
    voltage law (Dynamixel, Feetech) and without it for a current law, which gives no duty (eRob);
    none when a log has no temperature."""
    span = [np.array([28.0, 29.0]), np.array([36.0, 38.0])]
    assert carried_by_default(span, actuator("xl330")) == ("thermal", "supply")
    assert carried_by_default(span, actuator("sts3215")) == ("thermal", "supply")
    assert carried_by_default(span, actuator("erob80_50")) == ("thermal",)
    assert carried_by_default([np.array([30.0, 31.0]), np.array([31.5])], actuator("xl330")) == ()
    assert carried_by_default([np.array([28.0]), None], actuator("xl330")) == ()
    assert carried_by_default([], actuator("xl330")) == ()


def test_release_is_carried_by_default_with_thermal_when_a_log_releases_the_torque():
    """``fit --carry auto``: release on top of thermal (and supply) when a training log's torque
    goes from on to off (its shares are identified there alone); not for logs that never release
    it, nor ones starting released and switching on, nor without a temperature span."""
    span = [np.array([28.0, 29.0]), np.array([36.0, 38.0])]
    on, drop, rise = np.ones(4, bool), np.array([True, True, False, False]), np.array([False, True, True, True])
    assert carried_by_default(span, actuator("xl330"), [on, drop]) == ("thermal", "supply", "release")
    assert carried_by_default(span, actuator("erob80_50"), [drop, on]) == ("thermal", "release")
    assert carried_by_default(span, actuator("xl330"), [on, rise]) == ("thermal", "supply")
    assert carried_by_default(span, actuator("xl330")) == ("thermal", "supply")
    assert carried_by_default([np.array([30.0, 31.0]), np.array([31.5])], actuator("xl330"), [drop, drop]) == ()


def test_additions_at_zero_change_nothing_and_published_models_carry_none(xl330_processed):
    """A carried addition at 0 changes nothing measurable (the published MAEs themselves are
    reproduced to 1e-12 rad by test_kernel.py on the path without additions)."""
    from actuator_models.logs import read_logs

    assert all(load_model(name).additions == () for name in library_names())
    logs = read_logs(xl330_processed)[:4]
    model = load_model("xl330/m6")
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    plain = kernel.run(model.actuator, model.friction, model.values, batch, "bam")[0]
    zero = kernel.run(model.actuator, model.friction, {**model.values, "latency": 0.0, "backlash": 0.0, "heating": 0.0},
                      batch, "bam")[0]
    assert np.max(np.abs(plain - zero)) < 1e-12


def test_params_file_carries_additions_as_ordinary_parameters(tmp_path):
    model = new_model("xl330", "m3", additions=("latency",), backlash=0.01)
    assert model.additions == ("latency", "backlash") and model.values["latency"] == 0.0
    assert [p.name for p in model.parameters][-2:] == ["latency", "backlash"]
    assert list(ADDITIONS)[:3] == ["latency", "backlash", "heating"]
    save_model(model.with_values(latency=0.004), tmp_path / "m3.json")
    again = load_model(tmp_path / "m3.json")
    assert again.additions == ("latency", "backlash")
    assert again.values["latency"] == 0.004 and again.values["backlash"] == 0.01
    data = json.loads((tmp_path / "m3.json").read_text())
    del data["latency"], data["backlash"]
    (tmp_path / "none.json").write_text(json.dumps(data))
    assert load_model(tmp_path / "none.json").additions == ()
    data["backlash"] = -0.01
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(ParamsError, match="'backlash' is -0.01"):
        load_model(tmp_path / "bad.json")

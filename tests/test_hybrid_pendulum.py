"""Exact stick/slip reference of the pendulum bench: Coulomb energy balance, sticking, and the
first-order convergence of the project's fixed-step simulators to it."""

from __future__ import annotations

import math

import numpy as np
import pytest

from actuator_models.logs import Log
from actuator_models.model import load_model
from actuator_models.simulation import GRAVITY
from actuator_models.trajectories import trajectory
from hybrid_sim.pendulum import STICK, discretisation_errors, exact_rollout

MASS, LENGTH = 0.49, 0.1


def make_log(goal, enable, q0=0.0, kp=200.0, dt=0.005, duration=1.0):
    t = np.arange(int(round(duration / dt)) + 1) * dt
    n = t.size
    return Log(mass=MASS, length=LENGTH, kp=kp, timestamp=t, position=np.full(n, q0), speed=np.zeros(n),
               goal_position=np.broadcast_to(goal(t), (n,)).astype(float),
               torque_enable=np.broadcast_to(enable(t), (n,)).astype(bool), vin=7.4, motor="xl330",
               trajectory="test", dt=dt)


def test_released_pendulum_with_coulomb_friction_loses_kc_times_path_length():
    """Torque off, M1 with Kv = 0: dE/dt = -Kc |v|, so E0 - E1 = Kc * (path length)."""
    kc = 0.1  # N m, against a gravity torque of up to 0.48 N m: it stops after three half swings
    model = load_model("xl330/m1").with_values(friction_viscous=0.0, friction_base=kc, q_offset=0.0)
    log = make_log(lambda t: 0.0 * t, lambda t: t < 0, q0=1.0, duration=5.0)
    result = exact_rollout(model, log, 0.01)
    assert result.success, result.message
    inertia = MASS * LENGTH ** 2 + model.values["armature"]

    def energy(q, v):
        return 0.5 * inertia * v ** 2 + MASS * GRAVITY * LENGTH * (1.0 - math.cos(q))

    stops = [(0.0, 1.0, 0.0)] + [(e.t, e.state_before[0], e.state_before[1]) for e in result.events]
    stops.append((result.t[-1], result.y[0, -1], result.y[1, -1]))
    path = sum(abs(b[1] - a[1]) for a, b in zip(stops, stops[1:]))
    dissipated = energy(1.0, 0.0) - energy(result.y[0, -1], result.y[1, -1])
    assert dissipated == pytest.approx(kc * path, abs=1e-8)
    assert path > 2.0  # it swung several times before stopping
    # it ends stuck where gravity is within the Coulomb budget, and stays exactly there
    assert result.chart[-1] == STICK
    q_end = result.y[0, -1]
    assert MASS * GRAVITY * LENGTH * abs(math.sin(q_end)) <= kc
    stuck = result.chart == STICK
    first_stuck = np.flatnonzero(stuck)[0]
    assert np.all(stuck[first_stuck:]) and np.all(result.y[0, first_stuck:] == q_end)


def test_a_joint_held_by_static_friction_never_moves_in_either_simulator():
    model = load_model("xl330/m6").with_values(q_offset=0.0)
    q0 = 0.01  # gravity 0.0048 N m, goal = q0: no motor torque; the at-rest budget (0.0099 N m) holds it
    log = make_log(lambda t: q0 + 0.0 * t, lambda t: t >= 0, q0=q0)
    result = exact_rollout(model, log, 0.005)
    assert result.success and np.all(result.chart == STICK) and np.all(result.state("q") == q0)
    row = discretisation_errors(model, log, (0.001, 0.005))
    assert max(row.mae.values()) == 0.0


def test_fixed_step_simulators_converge_to_the_reference_at_first_order():
    model = load_model("xl330/m6")
    sin_sin = trajectory("sin_sin")
    log = make_log(sin_sin.goal, sin_sin.enable, duration=1.0)
    dts = (0.00025, 0.0005, 0.001, 0.005)
    row = discretisation_errors(model, log, dts)
    assert row.transitions > 200  # 200 command updates plus stick/slip transitions
    for integrator in ("bam", "semi-implicit"):
        errors = [row.mae[(integrator, dt)] for dt in dts]
        orders = [math.log2(errors[i + 1] / errors[i]) for i in range(2)]
        assert all(0.6 < order < 1.5 for order in orders), (integrator, errors)
        assert errors[0] < 1e-3 and errors[-1] > 5 * errors[0]
    # the published step's q update (v_new dt + a dt^2 / 2) costs more than the semi-implicit one
    assert row.mae[("bam", 0.005)] > row.mae[("semi-implicit", 0.005)]


def test_cli_names_a_missing_log(tmp_path, capsys):
    from hybrid_sim.cli import main

    missing = tmp_path / "missing.json"
    assert main(["stick-slip", "--params", "xl330/m6", "--log", str(missing)]) == 2
    assert "missing.json" in capsys.readouterr().err


def test_the_reference_runs_the_sts_firmware_target_speed_limit():
    """Feetech STS law (the actuator's declared law, ``SpeedLimitedVoltage``): the reference moves
    the firmware's target at most ``target_speed_limit`` towards the goal and scales the error by
    ``error_gain_ratio``, as the numpy rollout does step by step, so the fixed-step rollouts
    converge to it at first order; a re-enable starts the target from the shaft. With the goal
    itself as setpoint (no firmware state, the reference before issue 22's seam work) the 1 ms rollout
    is 0.20 rad (MAE) from it; with the firmware, 0.0016 rad."""
    model = load_model("sts3215/m1").with_values(target_speed_limit=2.0, error_gain_ratio=1.5, q_offset=0.0)
    goal = lambda t: np.where(t < 0.1, 0.0, np.where(t < 0.8, 1.2, 0.3))  # noqa: E731
    enable = lambda t: (t < 1.2) | (t >= 1.3)  # noqa: E731
    log = make_log(goal, enable, kp=32.0, duration=1.6)
    reference = exact_rollout(model, log, 0.005)
    assert reference.success, reference.message
    q, t = reference.state("q"), reference.t
    ramp = (t > 0.1) & (t < 0.55)  # the target ramps 1.2 rad at 2 rad/s over 0.6 s: the shaft lags behind it
    assert np.all(q[ramp] <= 2.0 * (t[ramp] - 0.1) + 1e-6)
    dts = (0.00025, 0.0005, 0.001)
    row = discretisation_errors(model, log, dts, integrators=("semi-implicit",))
    errors = [row.mae[("semi-implicit", dt)] for dt in dts]
    orders = [math.log2(errors[i + 1] / errors[i]) for i in range(2)]
    assert all(0.6 < order < 1.5 for order in orders) and errors[0] < 1e-3, errors


def _cut(log, n):
    """The first ``n`` samples of a processed log (its extra columns, the temperature, included)."""
    from dataclasses import replace

    return replace(log, **{f: getattr(log, f)[:n] for f in ("timestamp", "position", "speed", "goal_position",
                                                             "torque_enable")},
                   extra={k: np.asarray(v)[:n] for k, v in log.extra.items()})


def test_stick_slip_reference_honours_heating_and_moves_with_the_rollout(xl330_processed):
    """``heating`` acts on the motor's values, so the continuous reference carries it: on a kp-800
    XL330 log (with its logged temperature) switching heating 0.035/K on moves the reference by
    what it moves the 1 ms fixed-step rollout (both see R at the log's temperature), well beyond
    the rollout's own discretisation error. It used to ignore heating (identical output)."""
    from actuator_models.logs import read_logs
    from hybrid_sim.pendulum import discrete_rollout

    log = _cut(next(lg for lg in read_logs(xl330_processed) if lg.kp == 800 and "temp" in lg.extra), 300)
    assert np.mean(log.extra["temp"]) > 30  # warm: R(T) differs from R
    plain = load_model("xl330/m6").with_values(heating=0.0)
    heated = plain.with_values(heating=0.035)
    runs = {}
    for name, model in (("plain", plain), ("heated", heated)):
        reference = exact_rollout(model, log, 0.001)
        assert reference.success, reference.message
        _, q = discrete_rollout(model, log, 0.001, "semi-implicit")
        q_ref = reference.state("q")
        n = min(q.size, q_ref.size)
        runs[name] = (q_ref[:n], q[:n])
    moved_reference = runs["heated"][0] - runs["plain"][0]
    moved_rollout = runs["heated"][1] - runs["plain"][1]
    assert np.max(np.abs(moved_reference)) > 0.02  # heating moves the reference (it used to be ignored)
    assert np.max(np.abs(moved_reference - moved_rollout)) < 0.1 * np.max(np.abs(moved_reference))
    for q_ref, q in runs.values():
        assert np.mean(np.abs(q - q_ref)) < 2e-3  # the 1 ms rollout stays on the reference


def _shifted(log, m):
    """The log with its command (goal, enable) sent ``m`` samples later, the first held before."""
    from dataclasses import replace

    j = np.maximum(np.arange(len(log)) - m, 0)
    return replace(log, goal_position=log.goal_position[j], torque_enable=log.torque_enable[j])


def test_stick_slip_reference_runs_latency_as_the_command_sent_later():
    """``latency`` L in continuous time is a transport delay: the reference with L = m dt_log on a
    log equals the reference without latency on the same log with its command shifted by m samples
    (an independent construction of the delayed command), and the 1 ms rollout (which interpolates
    the delay between its steps) converges to it."""
    from hybrid_sim.pendulum import discrete_rollout, reference_output

    sin_sin = trajectory("sin_sin")
    log = make_log(sin_sin.goal, lambda t: (t < 0.45) | (t >= 0.6), duration=1.0)
    m, plain = 3, load_model("xl330/m6")
    delayed = plain.with_values(latency=m * log.dt)
    ref_delayed = reference_output(exact_rollout(delayed, log, 0.001))
    ref_shifted = reference_output(exact_rollout(plain, _shifted(log, m), 0.001))
    ref_plain = reference_output(exact_rollout(plain, log, 0.001))
    n = min(ref_delayed.size, ref_shifted.size, ref_plain.size)
    assert np.max(np.abs(ref_delayed[:n] - ref_shifted[:n])) < 1e-6
    assert np.mean(np.abs(ref_delayed[:n] - ref_plain[:n])) > 5e-3  # the delay moves the run
    errors = []
    for dt in (0.001, 0.00025):
        _, q = discrete_rollout(delayed, log, dt, "semi-implicit")
        k = min(q.size, n * round(0.001 / dt))
        errors.append(np.mean(np.abs(q[:k:round(0.001 / dt)] - ref_delayed[:len(q[:k:round(0.001 / dt)])])))
    assert errors[1] < errors[0] < 2e-3, errors


def test_stick_slip_reference_runs_backlash_as_a_play_between_drive_and_output():
    """``backlash`` b: the output stays within b/2 of the drive and, between the drive's
    reversals, is held or dragged at the play's edge; the fixed-step rollouts (the play applied
    after every step) converge to the reference as the step shrinks, and the play moves the run."""
    from hybrid_sim.pendulum import discrete_rollout, reference_output

    b, sin_sin = 0.04, trajectory("sin_sin")
    log = make_log(sin_sin.goal, sin_sin.enable, duration=1.0)
    plain = load_model("xl330/m6")
    played = plain.with_values(backlash=b)
    result = exact_rollout(played, log, 0.001)
    assert result.success, result.message
    y, q = reference_output(result), result.state("q")
    assert np.all(np.abs(y - q) <= b / 2 + 1e-12)
    assert np.max(np.abs(y - q)) > 0.9 * b / 2  # the play is crossed
    ref_plain = reference_output(exact_rollout(plain, log, 0.001))
    n = min(y.size, ref_plain.size)
    assert np.mean(np.abs(y[:n] - ref_plain[:n])) > 2e-3
    errors = []
    for dt in (0.001, 0.00025):
        _, q_dt = discrete_rollout(played, log, dt, "semi-implicit")
        every = round(0.001 / dt)
        sampled = q_dt[::every][:n]
        errors.append(float(np.mean(np.abs(sampled - y[:sampled.size]))))
    assert errors[1] < errors[0] < 2e-3, errors


def test_stick_slip_reference_refuses_an_addition_it_has_no_continuous_form_of():
    """An addition acting through a hook it declares no continuous form of is an error naming it,
    never ignored (here latency's command hook, registered without its declaration)."""
    from actuator_models.addition_latency import LATENCY, Latency
    from actuator_models.additions import ADDITIONS, register_addition
    from actuator_models.parameters import Parameter

    class Staircase(Latency):
        name = "staircase"
        parameters = (Parameter("staircase", 0.0, 0.0, 0.05, "s", "an undeclared command delay", "st"),)
        continuous_hooks = ()

        def on_command(self, state, goal, enable, p, dt):
            return super().on_command(state, goal, enable, {**p, LATENCY.name: p["staircase"]}, dt)

    register_addition(Staircase())
    try:
        model = load_model("xl330/m1").with_values(staircase=0.01)
        log = make_log(lambda t: 0.5 + 0.0 * t, lambda t: t >= 0)
        with pytest.raises(ValueError, match="addition 'staircase' acts through on_command"):
            exact_rollout(model, log, 0.01)
    finally:
        del ADDITIONS["staircase"]

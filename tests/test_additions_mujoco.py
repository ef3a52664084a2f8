"""Model additions (latency, backlash, heating) in MuJoCo's joint simulation: a latency shifts
the response by exactly the delay (MuJoCo against itself, time invariance) and matches the
reference pendulum simulator under gravity; the output behind a play stays put until the drive
has crossed it; a heated winding moves the drive as the analytic motion with the heated
resistance (tests/additions_reference.py); a replayed log's temperature reaches the motor."""

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from actuator_models.model import new_model
from actuator_models.simulation import Pendulum, PendulumSimulator
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

sys.path.insert(0, str(Path(__file__).parent))
from additions_reference import BACKLASH, GOAL, KP, R, VIN, drive_travel, frictionless, output_travel  # noqa: E402

DT = 0.002


def _run(model, goals, bench=PendulumBench(mass=0.5, length=0.15, timestep=DT), kp=600.0, vin=7.4, temperature=None):
    sim = JointSimulation.from_xml(pendulum_mjcf(bench), [Servo("pendulum", model, kp=kp, vin=vin, temperature=temperature)])
    out = []
    for goal in goals:
        out.append(sim.position[0])
        sim.set_goal(goal)
        sim.step()
    return np.array(out)


def test_latency_shifts_the_mujoco_response_by_exactly_the_delay_and_matches_the_reference():
    lag, steps = 6, 600
    model = new_model("xl330", "m6", "semi-implicit")
    delayed = model.with_values(latency=lag * DT)
    goals = np.where(np.arange(steps) >= 50, 0.8, 0.0)
    shifted = np.where(np.arange(steps) >= 50 + lag, 0.8, 0.0)
    reference = _run(model, shifted)
    got = _run(delayed, goals)
    assert np.ptp(reference) > 0.5 and np.max(np.abs(got - reference)) < 1e-9
    # against the reference simulator, with the latency in both: the gap MuJoCo has without it
    # (M6 at a hold: its external torque is one step late), 1.7e-5 rad, and no more
    gaps = []
    for m, g, mujoco_q in ((delayed, goals, got), (model, shifted, reference)):
        pendulum = PendulumSimulator(m, Pendulum(0.5, 0.15), vin=7.4)
        stepped = []
        for goal in g:
            stepped.append(pendulum.q)
            pendulum.step(goal, True, 600.0, DT)
        gaps.append(np.max(np.abs(np.array(stepped) - mujoco_q)))
    assert gaps[0] < 1e-4 and abs(gaps[0] - gaps[1]) < 1e-9


def test_backlash_output_in_mujoco_stays_until_the_drive_has_crossed_the_play():
    """Frictionless, (nearly) massless pendulum: output 0 until the drive moved half the play,
    then half the play behind the analytic drive motion (semi-implicit Euler, 0.1 ms: within
    1.5 steps of travel, as the reference rollout)."""
    dt, steps = 1e-4, 600
    bench = PendulumBench(mass=1e-9, length=0.01, timestep=dt)
    t = np.arange(steps) * dt
    for backlash, model in ((BACKLASH, frictionless(backlash=BACKLASH)), (0.0, frictionless())):
        got = _run(model, np.full(steps, GOAL), bench, kp=KP, vin=VIN)
        assert np.all(got >= output_travel(t, backlash) - 1e-9)
        assert np.all(got <= output_travel(t + 1.5 * dt, backlash) + 1e-9)
        if backlash:
            still = output_travel(t + 3 * dt, backlash) == 0.0
            assert still.sum() > 50 and np.all(got[still] == 0.0) and got[-1] > 0.2


def test_heating_in_mujoco_follows_the_servo_temperature():
    """Frictionless, (nearly) massless pendulum, saturated: a servo at 45 degC with heating
    0.02/K moves as the analytic drive of resistance 1.4 R; at no temperature (25 degC) as R."""
    dt, steps = 1e-4, 600
    bench = PendulumBench(mass=1e-9, length=0.01, timestep=dt)
    t = np.arange(steps) * dt
    for temperature, r in ((45.0, 1.4 * R), (None, R)):
        got = _run(frictionless(heating=0.02), np.full(steps, GOAL), bench, kp=KP, vin=VIN, temperature=temperature)
        assert np.all(got >= drive_travel(t, r) - 1e-9)
        assert np.all(got <= drive_travel(t + 1.5 * dt, r) + 1e-9)


def test_replay_feeds_the_logged_temperature_to_a_heated_model(xl330_processed):
    """MuJoCo's replay of a hot (kp 800) log with a model carrying heating stays as close to the
    reference rollout as without heating, while heating itself moves the result."""
    from actuator_models.logs import read_logs
    from actuator_models.model import load_model
    from actuator_sim.replay import mujoco_positions, reference_positions

    log = [x for x in read_logs(xl330_processed) if x.kp == 800][0]
    columns = ("timestamp", "position", "speed", "goal_position", "torque_enable")
    log = replace(log, **{f: getattr(log, f)[:300] for f in columns}, extra={k: v[:300] for k, v in log.extra.items()})
    plain = load_model("xl330/m6")
    heated = plain.with_values(heating=0.03)
    gaps, results = [], []
    for model in (plain, heated):
        mujoco_q = mujoco_positions(model, log)
        results.append(mujoco_q)
        gaps.append(np.max(np.abs(mujoco_q - reference_positions(model, [log])[0])))
    assert np.max(np.abs(results[0] - results[1])) > 10 * max(gaps)
    assert gaps[1] < 2 * gaps[0] + 1e-3


def test_replay_starts_a_thermal_model_at_the_logs_first_temperature(xl330_processed):
    """MuJoCo's replay of a hot (kp 800) log with M6 carrying ``thermal`` (``thermal_initial``
    far from the log's reading) stays as close to the reference rollout, whose nodes start at
    the log's first reading, as plain M6 does; started at ``thermal_initial`` it would not."""
    from actuator_models.logs import read_logs
    from actuator_models.model import load_model
    from actuator_sim.replay import mujoco_positions, reference_positions

    log = [x for x in read_logs(xl330_processed) if x.kp == 800][0]
    columns = ("timestamp", "position", "speed", "goal_position", "torque_enable")
    log = replace(log, **{f: getattr(log, f)[:300] for f in columns}, extra={k: v[:300] for k, v in log.extra.items()})
    plain = load_model("xl330/m6")
    thermal = replace(plain, additions=("thermal",)).with_values(thermal_initial=log.extra["temp"][0] - 15.0)
    gaps = [np.max(np.abs(mujoco_positions(m, log) - reference_positions(m, [log])[0])) for m in (plain, thermal)]
    assert gaps[1] < 2 * gaps[0] + 1e-4, gaps
    unlogged = replace(log, extra={k: v for k, v in log.extra.items() if k != "temp"})
    cold = mujoco_positions(thermal, unlogged)  # no reading: the nodes start at thermal_initial
    assert np.max(np.abs(cold - mujoco_positions(thermal, log))) > 10 * gaps[0]

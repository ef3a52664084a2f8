"""Model additions (latency, backlash) in MuJoCo's joint simulation: a latency shifts the
response by exactly the delay (MuJoCo against itself, time invariance) and matches the reference
pendulum simulator under gravity; the output behind a play stays put until the drive has crossed
it (the analytic drive motion of tests/additions_reference.py)."""

import sys
from pathlib import Path

import numpy as np

from actuator_models.model import new_model
from actuator_models.simulation import Pendulum, PendulumSimulator
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

sys.path.insert(0, str(Path(__file__).parent))
from additions_reference import BACKLASH, GOAL, KP, VIN, frictionless, output_travel  # noqa: E402

DT = 0.002


def _run(model, goals, bench=PendulumBench(mass=0.5, length=0.15, timestep=DT), kp=600.0, vin=7.4):
    sim = JointSimulation.from_xml(pendulum_mjcf(bench), [Servo("pendulum", model, kp=kp, vin=vin)])
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

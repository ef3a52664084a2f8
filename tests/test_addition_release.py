"""The ``release`` addition (with the torque off, the joint's armature and friction budget scaled
down by two shares) in every simulator, against independent references: a released frictionless
pendulum swings with the period of the complete elliptic integral for ``m l^2 + armature (1 -
share)`` (numpy rollout, compiled kernel, MuJoCo); a released joint under Coulomb friction sticks
or slides by the scaled budget; the stick/slip reference's released swing loses exactly ``Kc (1 -
share)`` times its path length; with the torque on nothing changes, to the bit. The Warp step's
twin is checked against the CPU MuJoCo step in ``test_warp_dahl_thermal.py``."""

import sys
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipk

from actuator_models import kernel
from actuator_models.logs import Log, read_logs
from actuator_models.model import load_model, new_model
from actuator_models.objective import Objective
from actuator_models.simulation import GRAVITY, LogBatch, rollout

sys.path.insert(0, str(Path(__file__).parent))
from test_hybrid_pendulum import LENGTH, MASS, make_log  # noqa: E402

ARMATURE = 0.003  # kg m^2
SHARE = 0.6


def frictionless(**values: float):
    return new_model("xl330", "m1", armature=ARMATURE, friction_base=0.0, friction_viscous=0.0, q_offset=0.0,
                     additions=("release",), **values)


def swing_period(released_inertia: float, amplitude: float) -> float:
    """The exact period [s] of the frictionless pendulum ``J q'' = -m g l sin q`` from rest at
    ``amplitude`` [rad]: ``4 sqrt(J / (m g l)) K(sin^2(amplitude / 2))``."""
    return 4.0 * np.sqrt(released_inertia / (MASS * GRAVITY * LENGTH)) * ellipk(np.sin(amplitude / 2) ** 2)


def measured_period(t: np.ndarray, q: np.ndarray) -> float:
    """Mean time [s] between the downward zero crossings of ``q`` (linear interpolation)."""
    down = np.flatnonzero((q[:-1] > 0) & (q[1:] <= 0))
    crossings = t[down] + (t[down + 1] - t[down]) * q[down] / (q[down] - q[down + 1])
    assert len(crossings) >= 3
    return float(np.mean(np.diff(crossings)))


def released_log(q0: float, dt: float, duration: float) -> Log:
    return make_log(lambda t: 0.0 * t, lambda t: t < 0, q0=q0, dt=dt, duration=duration)


def test_a_released_frictionless_swing_has_the_elliptic_period_of_the_released_armature():
    """numpy rollout and compiled kernel: the period of ``m l^2 + armature (1 - share)`` to 2e-4,
    told apart from the driven armature's (13 % longer)."""
    amplitude, dt = 0.5, 2e-4
    log = released_log(amplitude, dt, 2.5)
    batch = LogBatch.from_logs([log], 7.4)
    released = MASS * LENGTH ** 2 + ARMATURE * (1 - SHARE)
    for share in (SHARE, 0.0):
        model = frictionless(release_armature_share=share)
        q = rollout(model.actuator, model.friction, model.values, batch, model.integrator)[0]
        values = {k: np.array([v]) for k, v in model.values.items()}
        kernel_q = kernel.run(model.actuator, model.friction, values, batch, model.integrator, positions=True)[1][0]
        assert np.max(np.abs(kernel_q - q)) < 1e-12
        inertia = released if share else MASS * LENGTH ** 2 + ARMATURE
        assert measured_period(log.timestamp, q) == pytest.approx(swing_period(inertia, amplitude), rel=2e-4)
    assert swing_period(MASS * LENGTH ** 2 + ARMATURE, amplitude) > 1.1 * swing_period(released, amplitude)


def test_a_released_swing_in_mujoco_has_the_elliptic_period_of_the_released_armature():
    from actuator_sim.joint_sim import JointSimulation, Servo as JointServo
    from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

    amplitude, dt = 0.5, 2e-4
    sim = JointSimulation.from_xml(pendulum_mjcf(PendulumBench(mass=MASS, length=LENGTH, timestep=dt)),
                                   [JointServo("pendulum", frictionless(release_armature_share=SHARE), kp=200.0)])
    sim.reset(position=amplitude)
    sim.release()
    t, q = [], []
    for k in range(int(2.5 / dt)):
        t.append(k * dt)
        q.append(sim.position[0])
        sim.step()
    released = MASS * LENGTH ** 2 + ARMATURE * (1 - SHARE)
    assert measured_period(np.array(t), np.array(q)) == pytest.approx(swing_period(released, amplitude), rel=2e-4)


@pytest.mark.parametrize("share, moves", [(0.0, False), (0.3, True)])
def test_a_released_joint_sticks_or_slides_by_the_scaled_coulomb_budget(share, moves):
    """Gravity at 0.8 Kc: the full budget holds the released joint; 70 % of it does not. With the
    torque on and the goal where the joint is, the full budget holds it whatever the share."""
    kc = 0.2  # N m
    q0 = float(np.arcsin(0.8 * kc / (MASS * GRAVITY * LENGTH)))
    model = new_model("xl330", "m1", friction_base=kc, friction_viscous=0.0, q_offset=0.0, additions=("release",),
                      release_friction_share=share)
    released = released_log(q0, 0.005, 0.5)
    held = make_log(lambda t: q0 + 0.0 * t, lambda t: t >= 0, q0=q0, dt=0.005, duration=0.5)
    batch = LogBatch.from_logs([released, held], 7.4)
    q = rollout(model.actuator, model.friction, model.values, batch, model.integrator)
    assert bool(np.abs(q[0, -1] - q0) > 0.05) is moves
    assert np.abs(q[1] - q0).max() == 0.0


def test_the_stick_slip_reference_loses_the_scaled_coulomb_friction_times_the_path():
    """Torque off, M1 with Kv = 0: ``dE/dt = -Kc (1 - share) |v|``, so the released swing's energy
    lost is ``Kc (1 - share)`` times its path length, with ``E`` over the released inertia."""
    from hybrid_sim.pendulum import STICK, exact_rollout

    kc = 0.1
    model = load_model("xl330/m1").with_values(friction_viscous=0.0, friction_base=kc, q_offset=0.0,
                                               release_friction_share=0.5, release_armature_share=SHARE)
    result = exact_rollout(model, released_log(1.0, 0.005, 5.0), 0.01)
    assert result.success, result.message
    inertia = MASS * LENGTH ** 2 + model.values["armature"] * (1 - SHARE)

    def energy(q, v):
        return 0.5 * inertia * v ** 2 + MASS * GRAVITY * LENGTH * (1.0 - np.cos(q))

    # the path between the stops (events: each reversal and the final stick)
    stops = [(1.0, 0.0)] + [(e.state_before[0], e.state_before[1]) for e in result.events]
    stops.append((result.y[0, -1], result.y[1, -1]))
    path = sum(abs(b[0] - a[0]) for a, b in zip(stops, stops[1:]))
    assert energy(1.0, 0.0) - energy(*stops[-1]) == pytest.approx(0.5 * kc * path, abs=1e-8)
    assert path > 2.0  # it swung several times before stopping
    assert result.chart[-1] == STICK  # and sticks where gravity is within the scaled budget
    assert MASS * GRAVITY * LENGTH * abs(np.sin(result.y[0, -1])) <= 0.5 * kc


def test_with_the_torque_on_the_shares_change_nothing_and_after_a_release_they_do(xl330_processed):
    """M6 with thermal and supply on a kp-800 lift_and_drop log (the torque released at 2.005 s)
    and a log that never releases: the shares leave every position before the release equal to
    the bit, move those after it; the kernel equals the numpy step to 1e-12."""
    logs = [log for log in read_logs(xl330_processed) if log.kp == 800.0 and log.trajectory in ("lift_and_drop", "sin_sin")]
    base = new_model("xl330", "m6", additions=("thermal", "supply")).with_values(supply_resistance=0.06)
    shared = base.with_values(release_armature_share=0.35, release_friction_share=0.2)
    assert shared.additions == ("thermal", "supply", "release")
    batch = LogBatch.from_logs(logs, base.actuator.default_vin)
    without = rollout(base.actuator, base.friction, base.values, batch, base.integrator)
    with_it = rollout(shared.actuator, shared.friction, shared.values, batch, shared.integrator)
    values = {k: np.array([v]) for k, v in shared.values.items()}
    assert np.max(np.abs(kernel.run(shared.actuator, shared.friction, values, batch, shared.integrator,
                                    positions=True)[1][0] - with_it)) < 1e-12
    for j, log in enumerate(logs):
        off = np.flatnonzero(~log.torque_enable.astype(bool))
        first = off[0] if off.size else len(log.timestamp)
        assert np.array_equal(with_it[j, :first + 1], without[j, :first + 1])
        assert bool(np.max(np.abs(with_it[j] - without[j])) > 0.01) is bool(off.size)
    assert Objective(shared, logs).engine != "numpy"

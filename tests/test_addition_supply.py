"""The ``supply`` addition (a supply of ``vin`` behind ``supply_resistance``, the H-bridge drawing
``duty x current`` from it) in every simulator, against independent references: the motor's
current equals the circuit ``Vs = vin - Rs d i``, ``d Vs = R i + kt v`` solved numerically
(brentq); a saturated frictionless drive moves as the analytic motion with the resistance
``R + Rs d^2`` (tests/additions_reference.py) in the numpy rollout, the pendulum simulator and
MuJoCo; the stick/slip reference follows the rollout; with ``thermal`` the winding alone heats.
The compiled kernel equals the numpy step to 1e-12; the Warp step's twin is checked against the CPU
MuJoCo step in ``test_warp_dahl_thermal.py``."""

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from actuator_models import kernel
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.objective import Objective
from actuator_models.servo import Drive, Servo, heat, motor_torque, start
from actuator_models.simulation import LogBatch, Pendulum, PendulumSimulator, rollout

sys.path.insert(0, str(Path(__file__).parent))
from additions_reference import GOAL, KP, R, VIN, drive_travel, frictionless, step_log  # noqa: E402

RS = 0.4  # ohm


def test_motor_current_is_the_sagging_supply_circuit_solved_numerically():
    """At several duties and speeds the XL330 motor's torque / kt is the current of the circuit,
    found by brentq on ``i -> d (vin - Rs d i) - R i - kt v``; at Rs = 0 the plain law's."""
    model = new_model("xl330", "m1", supply_resistance=RS)
    p = dict(model.values)
    servo = Servo.of(model)
    state = start(servo, 0.0, p, 0.005)
    vin = 7.4
    for duty, v in ((1.0, 0.0), (-1.0, 0.0), (0.5, 2.0), (-0.3, -4.0), (0.9, -1.5), (0.0, 3.0)):
        drive = Drive(0.0, True, 800.0, vin, 0.005)
        tm = float(motor_torque(servo, duty * vin, True, v, p, drive, state))
        circuit = brentq(lambda i: duty * (vin - RS * duty * i) - p["R"] * i - p["kt"] * v, -50.0, 50.0, xtol=1e-14)
        assert tm / p["kt"] == pytest.approx(circuit, rel=1e-10, abs=1e-12)
        plain = float(motor_torque(Servo.of(new_model("xl330", "m1")), duty * vin, True, v, p, drive))
        assert plain / p["kt"] == pytest.approx((duty * vin - p["kt"] * v) / p["R"], rel=1e-12)
        assert abs(tm) <= abs(plain) + 1e-15
        if duty != 0.0 and v == 0.0:
            assert abs(tm) < abs(plain) * 0.9  # at full duty the sag is told apart from the plain law


def _drives(model, log):
    """Positions of one log by the numpy rollout and the step-by-step pendulum simulator."""
    batch = LogBatch.from_logs([log], model.actuator.default_vin)
    numpy_q = rollout(model.actuator, model.friction, model.values, batch, model.integrator)[0]
    sim = PendulumSimulator(model, Pendulum(log.mass, log.length, log.arm_mass), vin=log.vin, q=log.position[0])
    stepped = []
    for goal, enable in zip(log.goal_position, log.torque_enable):
        stepped.append(sim.q)
        sim.step(goal, bool(enable), log.kp, log.dt)
    return numpy_q, np.array(stepped)


def test_saturated_drive_moves_as_the_analytic_motion_of_the_sagged_resistance():
    """Frictionless, gravity-free, saturated (duty = max_duty): the drive moves as the analytic
    motion of ``R + Rs max_duty^2`` in the rollout and the pendulum simulator (equal to 1e-12)."""
    dt, steps = 1e-4, 600
    t = np.arange(steps) * dt
    model = frictionless(supply_resistance=RS)
    sagged = R + RS * model.actuator.max_duty ** 2
    numpy_q, stepped = _drives(model, step_log(dt, steps))
    assert np.max(np.abs(numpy_q - stepped)) < 1e-12
    assert np.all(numpy_q >= drive_travel(t, sagged) - 1e-12)
    assert np.all(numpy_q <= drive_travel(t + 1.5 * dt, sagged) + 1e-12)
    assert drive_travel(t[-1:], sagged)[0] < 0.9 * drive_travel(t[-1:] + 1.5 * dt, R)[0]  # told apart from R


def test_saturated_drive_in_mujoco_moves_as_the_analytic_motion_of_the_sagged_resistance():
    from actuator_sim.joint_sim import JointSimulation, Servo as JointServo
    from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

    dt, steps = 1e-4, 600
    t = np.arange(steps) * dt
    model = frictionless(supply_resistance=RS)
    sagged = R + RS * model.actuator.max_duty ** 2
    sim = JointSimulation.from_xml(pendulum_mjcf(PendulumBench(mass=1e-9, length=0.01, timestep=dt)),
                                   [JointServo("pendulum", model, kp=KP, vin=VIN)])
    got = []
    for _ in range(steps):
        got.append(sim.position[0])
        sim.set_goal(GOAL)
        sim.step()
    got = np.array(got)
    assert np.all(got >= drive_travel(t, sagged) - 1e-9)
    assert np.all(got <= drive_travel(t + 1.5 * dt, sagged) + 1e-9)


def test_stick_slip_reference_follows_the_rollout_and_the_supply_is_felt():
    """Under gravity, M6 at kp 800 saturating on a 1.2 rad step: the exact stick/slip reference
    carrying the supply ends within the rollout's discretisation of it at dt = 1 ms, and apart
    from the reference without it."""
    from hybrid_sim.pendulum import exact_rollout
    from test_hybrid_pendulum import make_log

    base = replace(new_model("xl330", "m6"), integrator="semi-implicit")
    sagged = base.with_values(supply_resistance=RS)
    log = make_log(lambda t: np.where(t >= 0.05, 1.2, 0.0), lambda t: t >= 0, kp=800.0, dt=0.001, duration=0.4)
    batch = LogBatch.from_logs([log], base.actuator.default_vin)
    refs = [exact_rollout(m, log, 0.001).state("q") for m in (sagged, base)]
    numpy_q = rollout(sagged.actuator, sagged.friction, sagged.values, batch, sagged.integrator)[0]
    n = min(len(refs[0]), len(numpy_q))
    apart = np.max(np.abs(refs[0][:n] - refs[1][:n]))
    assert apart > 5e-3
    assert np.max(np.abs(refs[0][:n] - numpy_q[:n])) < 0.2 * apart


def test_with_thermal_only_the_winding_heats():
    """Carried with thermal, a stalled saturated servo heats its winding by ``i^2 R(Tw)`` with the
    sagged current ``i``: the winding's first-step rise is ``i^2 R dt / Cw`` (not ``i^2 (R + Rs) dt / Cw``)."""
    model = new_model("xl330", "m1", additions=("thermal", "supply")).with_values(supply_resistance=RS)
    p = dict(model.values)
    servo = Servo.of(model)
    t0 = 25.0
    state = start(servo, 0.0, p, 0.005, {"temperature": t0})
    drive = Drive(1.0, True, 800.0, 7.4, 0.005, {"temperature": None})
    tm = motor_torque(servo, 7.4, True, 0.0, p, drive, state)
    i = 7.4 / (p["R"] + RS)
    assert tm / p["kt"] == pytest.approx(i, rel=1e-12)
    heat(servo, state, tm, p, drive)
    thermal = state.additions[list(model.additions).index("thermal")]
    winding = thermal[0]
    assert winding - t0 == pytest.approx(i * i * p["R"] * 0.005 / p["thermal_winding_capacity"], rel=1e-9)


def test_kernel_equals_the_numpy_step_on_the_xl330_logs(xl330_processed):
    """M6 carrying thermal and supply at kp 100-800 (full duty at kp 800): the compiled kernel's
    positions equal the numpy rollout's to 1e-12, and the supply moves them."""
    every = read_logs(xl330_processed)
    logs = [log for log in every if log.kp == 800.0][:2] + [every[0]]
    model = new_model("xl330", "m6", additions=("thermal", "supply")).with_values(supply_resistance=RS)
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    numpy_q = rollout(model.actuator, model.friction, model.values, batch, model.integrator)
    values = {k: np.array([v]) for k, v in model.values.items()}
    kernel_q = kernel.run(model.actuator, model.friction, values, batch, model.integrator, positions=True)[1][0]
    assert np.max(np.abs(kernel_q - numpy_q)) < 1e-12
    plain = dict(model.values, supply_resistance=0.0)
    assert np.max(np.abs(rollout(model.actuator, model.friction, plain, batch, model.integrator) - numpy_q)) > 1e-3
    assert Objective(model, logs).engine != "numpy"

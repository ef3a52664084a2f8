"""Dahl friction and the ``thermal``, ``supply`` and ``release`` additions in the servo step on MuJoCo Warp (run by Warp on the
CPU), checked world by world against the CPU MuJoCo step (:class:`actuator_sim.joint_sim.JointSimulation`,
float64): positions, Dahl's state ``w`` and the winding and case temperatures at every step.

Same six-servo SO-100 MJCF as ``test_warp_servo.py``, so the compiled modules are shared."""

from dataclasses import replace

import mujoco
import numpy as np
import pytest

from actuator_models.actuators import ARMATURE, KT, Q_OFFSET, R, CurrentControlled
from actuator_models.friction import FRICTION_MODELS, friction_model
from actuator_models.model import Model, load_model, new_model
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.models import read_model
from actuator_sim.so100 import JOINT_NAMES, LINKS

pytest.importorskip("warp", reason="the warp extra (make install installs it)")
mjw = pytest.importorskip("mujoco_warp", reason="the warp extra (make install installs it)")
from actuator_sim.warp_servo import WarpServos, check_supported, friction_columns, prepare_model  # noqa: E402

XML = read_model("so100.xml")
STEPS = 200
NWORLD = 16
#: float32 against float64 over 200 steps of 5 ms: measured 3.2e-6 rad at most for the Dahl servos,
#: 3.6e-7 for the thermal ones (2026-11-26); the bound of test_warp_servo.py
TOLERANCE = 2e-5  # rad
#: Dahl's w (dimensionless, |w| <= 1) moves by rho per radian of displacement, so it carries the
#: positions' float32 error times rho (5000 /rad x 3e-6 rad): measured 8.5e-3 at rho 5000, 2.7e-4 at 800
W_TOLERANCE = 0.02
#: winding and case temperatures [K]: measured 2.8e-5 K at most over rises of 3.6-7.9 K
KELVIN_TOLERANCE = 1e-3


def _commands(seed):
    """Per-world goals ``(NWORLD, STEPS, 6)`` [rad] (a ramp to a random point inside 60 % of each
    joint's range, then back and forth around it so Dahl's w reverses) and gains ``(NWORLD, 6)``."""
    rng = np.random.default_rng(seed)
    low, high = np.array([link.limits for link in LINKS]).T
    ramp = np.minimum(np.arange(STEPS) * 0.01, 1.0)[None, :, None]
    target = np.clip(rng.uniform(-0.6, 0.6, (NWORLD, 1, 6)) * (high - low) / 2, 0.6 * low, 0.6 * high)
    wobble = 0.05 * np.sin(np.arange(STEPS)[None, :, None] * 2 * np.pi / rng.uniform(20, 60, (NWORLD, 1, 6)))
    return target * ramp + wobble, rng.uniform(4.0, 32.0, (NWORLD, 6))


def _enabled(world, k):
    return world % 5 != 2 or k < 120  # some worlds let go


def _run_warp(servos, goals, kp):
    """``(positions (W, T, 6), Dahl's w (W, T, 6), temperatures (W, T, 6, 2))`` before each step."""
    mjm = mujoco.MjModel.from_xml_string(XML)
    prepare_model(mjm, servos)
    sim = WarpServos(mjm, mjw.put_model(mjm), mjw.make_data(mjm, nworld=NWORLD), servos)
    sim.set_kp(kp)
    positions, states, temperatures = np.empty(goals.shape), np.empty(goals.shape), np.empty(goals.shape + (2,))
    for k in range(STEPS):
        positions[:, k], states[:, k], temperatures[:, k] = sim.position, sim.friction_state, sim.temperatures
        sim.set_goal(goals[:, k])
        sim.set_torque_enable(np.array([_enabled(w, k) for w in range(NWORLD)])[:, None])
        sim.step()
    return positions, states, temperatures


def _run_cpu(servos, goals, kp, world):
    sim = JointSimulation.from_xml(XML, servos)
    sim.set_kp(kp[world])
    positions, states, temperatures = np.empty(goals.shape[1:]), np.empty(goals.shape[1:]), np.full(goals.shape[1:] + (2,), np.nan)
    for k in range(STEPS):
        positions[k], states[k] = sim.position, sim.friction_state
        for i, nodes in enumerate(sim.temperatures):
            if nodes is not None:
                temperatures[k, i] = nodes
        sim.set_goal(goals[world, k])
        sim.set_torque_enable(_enabled(world, k))
        sim.step()
    return positions, states, temperatures


@pytest.mark.parametrize("name", ["dahl", "dahl+viscous"])
def test_a_dahl_models_budget_is_m6s_with_the_viscous_term_alone(name):
    """The kernels run every budget as M6's: a Dahl model's columns reproduce its own budget (no
    friction, or Kv |v|), not the Coulomb level Fc (which is Dahl's state's)."""
    model = new_model("sts3215", name, friction_base=0.08, friction_viscous=0.3, dahl_rho=900.0)
    columns = friction_columns(model)
    assert columns["dahl_fc"] == 0.08 and columns["dahl_rho"] == 900.0
    rng = np.random.default_rng(0)
    tm, te, v = (rng.uniform(-2.0, 2.0, 64) for _ in range(3))
    expected = friction_model(name).budget(tm, te, v, model.values)
    assert np.allclose(FRICTION_MODELS["m6"].budget(tm, te, v, columns), expected, rtol=0.0, atol=1e-12)
    assert np.abs(expected).max() == (0.0 if name == "dahl" else pytest.approx(0.3 * np.abs(v).max()))


def test_dahl_worlds_match_the_cpu_step():
    """Pure Dahl and Dahl + viscous, stiff (rho 5000 /rad, the upper bound) and soft, per world
    its own commands and gains: positions and w at every step."""
    models = (new_model("sts3215", "dahl", friction_base=0.15, dahl_rho=800.0),
              new_model("sts3215", "dahl+viscous", friction_base=0.1, friction_viscous=0.05, dahl_rho=5000.0))
    servos = [Servo(joint, models[i % 2], 8.0) for i, joint in enumerate(JOINT_NAMES)]
    goals, kp = _commands(seed=4)
    positions, states, _ = _run_warp(servos, goals, kp)
    assert (np.ptp(positions[:, -1], axis=0) > 0.3).all()  # every joint moves, differently per world
    assert states.max() > 0.9 and states.min() < -0.9  # w saturates both ways: Dahl's torque is +-Fc
    for world in range(NWORLD):
        cpu_positions, cpu_states, _ = _run_cpu(servos, goals, kp, world)
        assert np.abs(positions[world] - cpu_positions).max() < TOLERANCE, world
        assert np.abs(states[world] - cpu_states).max() < W_TOLERANCE, world


def test_thermal_worlds_match_the_cpu_step():
    """``thermal`` (small capacities, so the winding heats by kelvins within the second simulated),
    one servo also with ``heating`` and a 40 degC setting: positions, winding and case temperatures."""
    hot = dict(thermal_alpha=0.008, thermal_winding_capacity=0.1, thermal_winding_resistance=5.0,
               thermal_case_capacity=1.5, thermal_ambient=22.0, thermal_initial=30.0)
    thermal = replace(load_model("sts3215/m1"), additions=("thermal",)).with_values(**hot)
    heated = thermal.with_values(heating=0.01)
    servos = [Servo(joint, heated, 8.0, temperature=40.0) if i == 1 else Servo(joint, thermal, 8.0)
              for i, joint in enumerate(JOINT_NAMES)]
    goals, kp = _commands(seed=5)
    positions, _, temperatures = _run_warp(servos, goals, kp)
    assert (temperatures[:, 0, :, 0] == np.array([30.0, 40.0, 30.0, 30.0, 30.0, 30.0])).all()  # setting or initial
    rise = temperatures[:, -1, :, 0] - temperatures[:, 0, :, 0]
    assert rise.max() > 1.0 and (temperatures[:, -1, :, 1] != temperatures[:, 0, :, 1]).all()
    for world in range(NWORLD):
        cpu_positions, _, cpu_temperatures = _run_cpu(servos, goals, kp, world)
        assert np.abs(positions[world] - cpu_positions).max() < TOLERANCE, world
        assert np.abs(temperatures[world] - cpu_temperatures).max() < KELVIN_TOLERANCE, world


def test_supply_worlds_match_the_cpu_step():
    """``supply`` (a 0.4-ohm supply, so full duty sags it by volts) on five servos, one with
    ``thermal`` too (its copper losses stay the winding's), one without: positions and
    temperatures at every step; the sag moves the joints (the same run with no servo carrying it
    differs by far more than the tolerance)."""
    sagging = replace(load_model("sts3215/m1"), additions=("supply",)).with_values(supply_resistance=0.4)
    hot = replace(load_model("sts3215/m1"), additions=("thermal", "supply")).with_values(
        supply_resistance=0.4, thermal_winding_capacity=0.1, thermal_winding_resistance=5.0, thermal_initial=30.0)
    plain = load_model("sts3215/m1")
    servos = [Servo(joint, hot if i == 1 else plain if i == 4 else sagging, 8.0) for i, joint in enumerate(JOINT_NAMES)]
    goals, kp = _commands(seed=6)
    positions, _, temperatures = _run_warp(servos, goals, kp)
    unsagged, _, _ = _run_warp([Servo(joint, plain, 8.0) for joint in JOINT_NAMES], goals, kp)
    assert np.abs(positions - unsagged).max() > 100 * TOLERANCE  # the supply acts
    for world in range(NWORLD):
        cpu_positions, _, cpu_temperatures = _run_cpu(servos, goals, kp, world)
        assert np.abs(positions[world] - cpu_positions).max() < TOLERANCE, world
        assert np.abs(temperatures[world, :, 1] - cpu_temperatures[:, 1]).max() < KELVIN_TOLERANCE, world


def test_release_worlds_match_the_cpu_step():
    """``release`` on four servos (half their armature and friction gone with the torque off), one
    with ``latency`` too (the delayed enable scales them): the worlds that let go after step 120
    match the CPU step at every step, and the release moves them (the same run with no servo
    carrying it differs by far more than the tolerance), the others equal it."""
    plain = load_model("sts3215/m1")
    loose = replace(plain, additions=("release",)).with_values(release_armature_share=0.5, release_friction_share=0.5)
    late = replace(loose, additions=("latency", "release")).with_values(latency=0.012)
    servos = [Servo(joint, late if i == 2 else plain if i in (0, 5) else loose, 8.0) for i, joint in enumerate(JOINT_NAMES)]
    goals, kp = _commands(seed=7)
    positions, _, _ = _run_warp(servos, goals, kp)
    held, _, _ = _run_warp([s if i == 2 else Servo(s.joint, plain, 8.0) for i, s in enumerate(servos)], goals, kp)
    let_go = [w for w in range(NWORLD) if not _enabled(w, STEPS - 1)]
    assert np.abs(positions[let_go] - held[let_go]).max() > 100 * TOLERANCE  # the release acts
    kept = [w for w in range(NWORLD) if w not in let_go]
    assert np.array_equal(positions[kept], held[kept])  # and only with the torque off
    for world in range(NWORLD):
        cpu_positions, _, _ = _run_cpu(servos, goals, kp, world)
        assert np.abs(positions[world] - cpu_positions).max() < TOLERANCE, world


def test_dahl_and_thermal_are_run_and_only_what_has_no_kernel_is_refused():
    """Every shipped friction model, addition and law runs; a law or friction model that only
    looks like a shipped one (a subclass, another budget under a shipped name) is refused by name."""
    for name in ("m1", "m6", "dahl", "dahl+viscous"):
        check_supported(new_model("xl330", name, additions=("thermal", "latency", "backlash", "heating", "supply",
                                                             "release")))
    for actuator in ("sts3215", "erob80_50", "mx64"):
        check_supported(new_model(actuator, "dahl"))

    class Custom(CurrentControlled):  # a user's law: its control may differ from the kernel's
        pass

    custom = Custom("custom", "custom", (KT, R, ARMATURE, Q_OFFSET), max_current=3.0)
    with pytest.raises(ValueError, match="'custom' \\(Custom\\): its control law has no Warp kernel"):
        check_supported(Model(custom, FRICTION_MODELS["m1"]))
    impostor = replace(FRICTION_MODELS["m1"], budget=FRICTION_MODELS["m2"].budget)
    with pytest.raises(ValueError, match="friction model 'm1'"):
        check_supported(Model(load_model("xl330/m1").actuator, impostor))

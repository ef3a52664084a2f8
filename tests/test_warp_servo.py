"""The servo step on MuJoCo Warp (run by Warp on the CPU), checked world by world against the
CPU MuJoCo step (:class:`actuator_sim.joint_sim.JointSimulation`, float64).

Warp compiles the kernels of a model once (about 20 s on 2 cores, then kept in Warp's kernel cache
for later runs); every test here uses the six-servo SO-100 arm's MJCF (``so100.xml``) with a servo
on every joint, so they share the compiled modules."""

import sys
from pathlib import Path

import mujoco
import numpy as np
import pytest

from actuator_models.additions import ADDITIONS, register_addition
from actuator_models.friction import REGISTERED_FRICTION_MODELS, register_friction_model
from actuator_models.model import load_model, new_model
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.models import read_model
from actuator_sim.so100 import JOINT_NAMES, LINKS

wp = pytest.importorskip("warp", reason="the warp extra (make install installs it)")
mjw = pytest.importorskip("mujoco_warp", reason="the warp extra (make install installs it)")
from actuator_sim.warp_servo import WarpServos, check_supported, prepare_model  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from m7_friction import M7  # noqa: E402  (the project's toy friction model and addition)
from toy_addition import TRIM_ADDITION  # noqa: E402

XML = read_model("so100.xml")
STEPS = 200
#: float32 against float64 over 200 steps of 5 ms, six servos: measured 1.5e-6 rad at most (mx64/m6; 4e-7
#: for sts3215/m1; 2026-11-26)
TOLERANCE = 2e-5  # rad


def _run_warp(servos, goals, kp):
    """Positions ``(nworld, steps, nservo)`` of MuJoCo Warp with per-world goals and gains."""
    mjm = mujoco.MjModel.from_xml_string(XML)
    prepare_model(mjm, servos)
    sim = WarpServos(mjm, mjw.put_model(mjm), mjw.make_data(mjm, nworld=goals.shape[0]), servos)
    sim.set_kp(kp)
    out = np.empty(goals.shape)
    for k in range(goals.shape[1]):
        out[:, k] = sim.position
        sim.set_goal(goals[:, k])
        sim.set_torque_enable((np.arange(goals.shape[0])[:, None] % 7 != 3) | (k < 150))  # some worlds let go
        sim.step()
    return out


def _run_cpu(servos, goals, kp, world):
    sim = JointSimulation.from_xml(XML, servos)
    sim.set_kp(kp[world])
    out = np.empty(goals.shape[1:])
    for k in range(goals.shape[1]):
        out[k] = sim.position
        sim.set_goal(goals[world, k])
        sim.set_torque_enable(world % 7 != 3 or k < 150)
        sim.step()
    return out


def _commands(nworld, seed):
    """Per-world goals ``(nworld, STEPS, 6)`` [rad]: a ramp from 0 to a random point inside 60 % of
    each joint's range (the gripper's range is not centred on 0), plus a small jitter; gains."""
    rng = np.random.default_rng(seed)
    low, high = np.array([link.limits for link in LINKS]).T
    ramp = np.minimum(np.arange(STEPS) * 0.01, 1.0)[None, :, None]
    target = np.clip(rng.uniform(-0.6, 0.6, (nworld, 1, 6)) * (high - low) / 2, 0.6 * low, 0.6 * high)
    goals = target * ramp + rng.uniform(-0.02, 0.02, (nworld, STEPS, 6))
    kp = rng.uniform(4.0, 32.0, (nworld, 6))
    return goals, kp


@pytest.mark.parametrize("params", ["sts3215/m1", "mx64/m6"])
def test_64_worlds_of_the_so100_arm_match_the_cpu_step(params):
    """Six servos per world, each world its own commands and gains (sts3215/m1: the SO-100's own)."""
    model = load_model(params)
    servos = [Servo(joint, model, 8.0) for joint in JOINT_NAMES]
    goals, kp = _commands(64, seed=1)
    warp = _run_warp(servos, goals, kp)
    assert np.abs(warp).max() > 0.3  # the worlds move
    assert (np.ptp(warp[:, -1], axis=0) > 0.3).all()  # every joint, differently per world
    for world in range(64):
        cpu = _run_cpu(servos, goals, kp, world)
        assert np.abs(warp[world] - cpu).max() < TOLERANCE, world


def test_additions_and_mixed_laws_match_the_cpu_step():
    """Latency, backlash and heating; a Feetech shoulder (speed-limited firmware) and an eRob
    elbow (current PD law) in the same worlds, beside four plain STS3215."""
    shoulder = load_model("sts3215/m1").with_values(latency=0.012, backlash=0.02, heating=0.01)
    # an eRob on this light arm with armature 0.05 kg m^2: its PD law's damping (up to 9 N m s/rad)
    # stays within what a 5 ms explicit step integrates stably (dt D / J < 1)
    elbow = new_model("erob80_50", "m4", additions=("latency",), latency=0.0075, armature=0.05)
    plain = load_model("sts3215/m1")
    servos = [Servo("shoulder_lift", shoulder, 8.0, temperature=45.0) if joint == "shoulder_lift" else
              Servo("elbow_flex", elbow, 8.0) if joint == "elbow_flex" else Servo(joint, plain, 8.0)
              for joint in JOINT_NAMES]
    goals, kp = _commands(8, seed=2)
    warp = _run_warp(servos, goals, kp)
    for world in range(8):
        assert np.abs(warp[world] - _run_cpu(servos, goals, kp, world)).max() < TOLERANCE, world


def test_what_the_kernels_do_not_run_is_an_error_naming_it():
    register_friction_model(M7)
    register_addition(TRIM_ADDITION)
    try:
        with pytest.raises(ValueError, match="'m7'"):
            check_supported(new_model("xl330", "m7"))
        with pytest.raises(ValueError, match="trim"):
            check_supported(new_model("xl330", "m1", additions=("trim",)))
        with pytest.raises(ValueError, match="trim"):
            mjm = mujoco.MjModel.from_xml_string(XML)
            prepare_model(mjm, [Servo("shoulder_lift", new_model("sts3215", "m1", additions=("latency", "trim")), 8.0)])
    finally:
        del REGISTERED_FRICTION_MODELS[M7.name]
        del ADDITIONS[TRIM_ADDITION.name]


def test_the_native_export_runs_in_mujoco_warp_as_in_plain_mujoco():
    """``actuator-sim export``'s MJCF (a <dcmotor> per joint, with a thermal model's winding as its
    state) needs no servo step: MuJoCo Warp's own dcmotor runs it. Worlds with their own goals
    match plain MuJoCo, positions and winding temperatures."""
    from actuator_sim.native import NativeJoint, export_mjcf

    model = new_model("sts3215", "m1", additions=("thermal",)).with_values(thermal_initial=30.0, thermal_alpha=0.005,
                                                                           thermal_winding_capacity=0.2)
    mjm = mujoco.MjModel.from_xml_string(export_mjcf(XML, [NativeJoint(joint, model, 8.0) for joint in JOINT_NAMES]))
    goals, _ = _commands(8, seed=3)
    d = mjw.make_data(mjm, nworld=8)
    m = mjw.put_model(mjm)
    cpu = [mujoco.MjData(mjm) for _ in range(8)]
    for k in range(STEPS):
        d.ctrl.assign(goals[:, k])
        mjw.step(m, d)
        for world, data in enumerate(cpu):
            data.ctrl[:] = goals[world, k]
            mujoco.mj_step(mjm, data)
    qpos, act = d.qpos.numpy(), d.act.numpy()
    assert np.ptp(qpos[:, 0]) > 0.3 and act.max() > 0.5  # the worlds move differently, the windings heat
    for world, data in enumerate(cpu):
        assert np.abs(qpos[world] - data.qpos).max() < TOLERANCE, world
        assert np.abs(act[world] - data.act).max() < 1e-5, world  # K: float32 (measured 3.3e-7)

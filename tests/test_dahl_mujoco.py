"""Dahl friction in MuJoCo's joint simulation, against MuJoCo's own LuGre friction (the
``dcmotor`` actuator's ``lugre``; with sigma1 = 0 and Fs = Fc LuGre reduces to Dahl with
rho = sigma0 / Fc) and against the reference pendulum simulator."""

import mujoco
import numpy as np
import pytest

from actuator_models.model import new_model
from actuator_models.simulation import Pendulum, PendulumSimulator
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

FC, RHO, ARMATURE = 0.1, 40.0, 0.005
HAS_DCMOTOR = hasattr(mujoco.mjtDyn, "mjDYN_DCMOTOR")


def _lugre_mjcf(bench: PendulumBench) -> str:
    """The bench with a passive dcmotor whose only effect is LuGre friction (no electrical branch)."""
    lugre = f'<dcmotor name="lugre" joint="pendulum" input="none" motorconst="0 0" resistance="1" ' \
            f'lugre="{RHO * FC} 0 {FC} {FC} 1"/>'
    return pendulum_mjcf(bench).replace("</actuator>", f"  {lugre}\n  </actuator>")


def _ours(bench: PendulumBench, steps: int) -> tuple:
    model = new_model("xl330", "dahl", "semi-implicit", friction_base=FC, dahl_rho=RHO, armature=ARMATURE)
    sim = JointSimulation.from_xml(pendulum_mjcf(bench), [Servo("pendulum", model, kp=0.0)])
    sim.reset(position=1.0)
    sim.release()
    q, w = [], []
    for _ in range(steps):
        q.append(sim.position[0])
        sim.step()
        w.append(sim.friction_state[0])
    assert float(sim.model.dof_frictionloss[0]) == 0.0  # Dahl is a joint force, not frictionloss
    return np.array(q), np.array(w)


def _native(bench: PendulumBench, steps: int) -> tuple:
    model = mujoco.MjModel.from_xml_string(_lugre_mjcf(bench))
    data = mujoco.MjData(model)
    model.dof_armature[0] = ARMATURE
    data.qpos[0] = 1.0
    q, z = [], []
    for _ in range(steps):
        q.append(float(data.qpos[0]))
        mujoco.mj_step(model, data)
        z.append(float(data.act[0]))
    return np.array(q), np.array(z)


@pytest.mark.skipif(not HAS_DCMOTOR, reason="the installed MuJoCo has no dcmotor actuator (LuGre), added in MuJoCo 4")
def test_dahl_joint_force_matches_mujoco_native_lugre():
    """Released pendulum, 3 s: same trajectory within a few mrad at 1 ms, and the gap (MuJoCo
    integrates the bristle state explicitly, we exactly) halves with the step."""
    gaps = {}
    for dt in (0.002, 0.001):
        bench = PendulumBench(mass=0.5, length=0.15, timestep=dt)
        steps = int(round(3.0 / dt))
        ours, w = _ours(bench, steps)
        native, z = _native(bench, steps)
        gaps[dt] = np.max(np.abs(ours - native))
        # same friction state: w = sigma0 z / Fc
        assert np.max(np.abs(w - RHO * z)) < 0.1
    assert gaps[0.001] < 4e-3
    assert gaps[0.002] / gaps[0.001] > 1.5


def test_mujoco_dahl_matches_the_reference_pendulum_simulator():
    """JointSimulation with dahl+viscous under servo control vs PendulumSimulator (semi-implicit)."""
    bench = PendulumBench(mass=0.5, length=0.15, timestep=0.002)
    model = new_model("xl330", "dahl+viscous", "semi-implicit", friction_base=0.05, dahl_rho=200.0,
                      friction_viscous=0.02, armature=ARMATURE)
    joint = JointSimulation.from_xml(pendulum_mjcf(bench), [Servo("pendulum", model, kp=600.0, vin=7.4)])
    reference = PendulumSimulator(model, Pendulum(0.5, 0.15), vin=7.4)
    gap = 0.0
    for k in range(1500):
        goal = 0.8 * np.sin(2.0 * k * 0.002)
        joint.set_goal(goal)
        joint.step()
        reference.step(goal, True, 600.0, 0.002)
        gap = max(gap, abs(joint.position[0] - reference.q))
    assert abs(joint.friction_state[0] - reference.friction_state) < 1e-6
    assert gap < 1e-6  # measured 4e-10 rad: the same step, MuJoCo's hard friction constraint aside

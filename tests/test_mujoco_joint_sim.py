"""JointSimulation: commands, state, per-step frictionloss/damping updates, torque routing."""

import mujoco
import numpy as np
import pytest

from actuator_models import load_model, new_model
from actuator_models.simulation import Pendulum
from actuator_sim.friction_split import split_budget
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.models import read_model
from actuator_sim.pendulum import PendulumBench, pendulum_mjcf

BENCH = PendulumBench(mass=1.0, length=0.15)


def pendulum(model, kp=8.0, **options):
    return JointSimulation.from_xml(pendulum_mjcf(BENCH), [Servo("pendulum", model, kp)], **options)


def test_armature_comes_from_the_model():
    model = load_model("mx64/m6")
    sim = pendulum(model)
    assert sim.model.dof_armature[0] == pytest.approx(model.values["armature"])


def test_frictionloss_is_the_budget_every_step():
    model = load_model("mx64/m6")
    sim = pendulum(model)
    sim.reset(0.3)
    sim.set_goal(1.0)
    for _ in range(50):
        v = sim.velocity[0]
        sim.step()
        state = sim.state
        tm = model.actuator.torque(state.control[0], True, v, model.values, 15.0)
        assert state.motor_torque[0] == pytest.approx(tm)
        budget = model.friction.budget(state.motor_torque[0], state.external_torque[0], v, model.values)
        assert sim.model.dof_frictionloss[0] == pytest.approx(budget)
        assert sim.model.dof_damping[0] == 0.0
    assert abs(sim.position[0] - 0.3) > 0.05


def test_damping_mode_splits_the_viscous_part():
    model = load_model("mx64/m1")
    sim = pendulum(model, viscous="damping")
    sim.reset(0.0, 2.0)
    sim.step()
    kv, kc = model.values["friction_viscous"], model.values["friction_base"]
    assert sim.model.dof_damping[0] == pytest.approx(kv)
    assert sim.model.dof_frictionloss[0] == pytest.approx(kc)
    fl, damping = split_budget(np.array([1.0]), 0.5, np.array([3.0]), "damping")
    assert fl[0] == 0.0 and damping == 0.5  # never a negative frictionloss


def test_external_torque_is_the_previous_steps_gravity():
    sim = pendulum(load_model("mx64/m6"))
    sim.reset(0.5)
    previous = sim.position[0]
    sim.step()
    gravity = Pendulum(BENCH.mass, BENCH.length).gravity_torque(previous)
    assert sim.state.external_torque[0] == pytest.approx(gravity, rel=1e-9)


def test_friction_holds_a_released_joint_below_the_budget_and_not_above():
    model = new_model("mx64", "m1", friction_base=0.8, friction_viscous=0.0)
    sim = pendulum(model)
    sim.reset(0.5)  # gravity torque 0.72 N m < 0.8 N m
    sim.set_torque_enable(False)
    sim.step(200)  # 1 s; the 0.9999 constraint impedance leaves a creep of ~1e-5 rad/s
    assert sim.position[0] == pytest.approx(0.5, abs=5e-5)
    assert sim.state.friction_torque[0] == pytest.approx(-sim.state.external_torque[0], rel=1e-3)
    sim.reset(0.7)  # 0.95 N m > 0.8 N m: falls
    sim.set_torque_enable(False)
    sim.step(50)
    assert sim.position[0] < 0.6


def test_without_updates_the_friction_stays_at_the_rest_budget():
    model = load_model("mx64/m6")
    sim = pendulum(model, update_friction=False)
    rest = model.friction.budget(0.0, 0.0, 0.0, model.values)
    sim.set_goal(1.0)
    sim.step(20)
    assert sim.model.dof_frictionloss[0] == pytest.approx(rest)


def test_motor_actuator_and_qfrc_applied_give_the_same_motion():
    model = load_model("mx64/m4")
    xml = pendulum_mjcf(BENCH)
    without_motor = xml[: xml.index("  <actuator>")] + "</mujoco>\n"
    runs = []
    for text in (xml, without_motor):
        sim = JointSimulation.from_xml(text, [Servo("pendulum", model, 16.0)])
        sim.set_goal(1.2)
        sim.step(300)
        runs.append(sim.position[0])
    assert runs[0] == pytest.approx(runs[1], abs=1e-12)
    assert runs[0] > 0.5


def test_commands_by_name_sequence_and_scalar():
    a, b = load_model("mx106/m1"), load_model("mx64/m1")
    sim = JointSimulation.from_xml(read_model("arm_mx.xml"), [Servo("shoulder", a, 4), Servo("elbow", b, 4)])
    assert sim.joint_names == ("shoulder", "elbow")
    sim.set_goal({"elbow": 0.3})
    sim.set_kp([8.0, 16.0])
    sim.set_torque_enable({"shoulder": False})
    state = sim.state
    assert state.goal_position.tolist() == [0.0, 0.3]
    assert state.kp.tolist() == [8.0, 16.0]
    assert state.torque_enable.tolist() == [False, True]
    sim.command([0.1, 0.2], torque_enable=True)
    assert sim.state.torque_enable.tolist() == [True, True]
    assert sim.state.goal_position.tolist() == [0.1, 0.2]
    sim.release()
    assert sim.state.torque_enable.tolist() == [False, False]
    with pytest.raises(ValueError, match="no servo on joint 'wrist'"):
        sim.set_goal({"wrist": 1.0})


def test_torque_disabled_means_no_motor_torque():
    sim = pendulum(load_model("mx64/m6"))
    sim.set_goal(1.0)
    sim.set_torque_enable(False)
    sim.step()
    assert sim.state.motor_torque[0] == 0.0


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda xml: xml, "no joint 'nope'"),
        (lambda xml: xml.replace('<motor name="pendulum" joint="pendulum" gear="1"/>',
                                 '<position name="pendulum" joint="pendulum" kp="10"/>'), "not a plain"),
    ],
)
def test_bad_models_are_reported(change, message):
    joint = "nope" if message.startswith("no joint") else "pendulum"
    with pytest.raises(ValueError, match=message):
        JointSimulation.from_xml(change(pendulum_mjcf(BENCH)), [Servo(joint, load_model("mx64/m1"), 8)])


def test_friction_constraint_is_made_hard_for_the_timestep():
    sim = pendulum(load_model("mx64/m1"))
    sim.timestep = 0.002
    assert sim.model.dof_solref[0].tolist() == [0.004, 1.0]
    assert sim.model.dof_solimp[0, 0] == pytest.approx(0.9999)
    assert int(sim.model.opt.integrator) == int(mujoco.mjtIntegrator.mjINT_EULER)


def test_the_callers_mjmodel_is_left_as_it_was():
    """JointSimulation sets armature, friction loss, damping, solref and the timestep of the
    model it simulates: on its own copy, so a model compiled once can seed several simulations."""
    compiled = mujoco.MjModel.from_xml_string(pendulum_mjcf(BENCH))
    before = {name: np.array(getattr(compiled, name)) for name in
              ("dof_armature", "dof_frictionloss", "dof_damping", "dof_solref")}
    timestep = compiled.opt.timestep
    sim = JointSimulation(compiled, [Servo("pendulum", load_model("mx64/m6"), 8.0)])
    sim.set_goal(1.0)
    sim.step(20)
    assert sim.model.dof_armature[0] != before["dof_armature"][0]  # the simulation's copy was changed
    for name, values in before.items():
        np.testing.assert_array_equal(getattr(compiled, name), values)
    assert compiled.opt.timestep == timestep
    again = JointSimulation(compiled, [Servo("pendulum", load_model("mx64/m6"), 8.0)])
    again.set_goal(1.0)
    again.step(20)
    assert again.position[0] == sim.position[0]  # a second simulation from it starts where the first did

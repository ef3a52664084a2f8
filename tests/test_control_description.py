"""ros2_control descriptions and trajectory goals without ROS: the generated URDF's
``<ros2_control>`` tag names the URDF's own joints, the controllers' YAML names the same joints,
and the identification trajectories become goals with the release where the trajectory says."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
import yaml
from actuator_models.trajectories import TRAJECTORIES

from actuator_bench.control_description import (ROBOTS, SO100_JOINTS, check_backend, controllers_yaml, robot,
                                                robot_description)
from actuator_bench.control_goals import goal_plan


@pytest.mark.parametrize("name", sorted(ROBOTS))
@pytest.mark.parametrize("mock", [False, True])
def test_the_ros2_control_tag_names_the_urdf_joints(name, mock):
    root = ET.fromstring(robot_description(name, mock))
    movable = [j.get("name") for j in root.findall("joint") if j.get("type") in ("revolute", "continuous")]
    (system,) = root.findall("ros2_control")
    assert [j.get("name") for j in system.findall("joint")] == movable == list(robot(name).joints)
    plugin = system.find("hardware/plugin").text
    params = {p.get("name"): p.text for p in system.findall("hardware/param")}
    if mock:
        assert plugin == "mock_components/GenericSystem" and not params
    else:
        assert plugin == "topic_based_ros2_control/TopicBasedSystem"
        assert params == {"joint_commands_topic": "/hardware/joint_commands", "joint_states_topic": "/hardware/joint_states",
                          "trigger_joint_command_threshold": "-1"}
    for joint in system.findall("joint"):
        assert [c.get("name") for c in joint.findall("command_interface")] == ["position"]
        assert [s.get("name") for s in joint.findall("state_interface")] == ["position", "velocity"]


def test_so100_is_a_chain_of_six_joints():
    root = ET.fromstring(robot_description("so100"))
    joints = [j for j in root.findall("joint") if j.get("type") == "revolute"]
    assert [j.get("name") for j in joints] == list(SO100_JOINTS)
    assert [j.find("parent").get("link") for j in joints[1:]] == [j.find("child").get("link") for j in joints[:-1]]


def test_so100_urdf_and_mjcf_carry_the_table_limits():
    """One table (actuator_sim.so100.LINKS) for the simulated arm and the ros2_control URDF."""
    mujoco = pytest.importorskip("mujoco")
    from actuator_sim.models import read_model
    from actuator_sim.so100 import LINKS

    model = mujoco.MjModel.from_xml_string(read_model("so100.xml"))
    joints = {j.get("name"): j for j in ET.fromstring(robot_description("so100")).findall("joint")}
    for link in LINKS:
        limit = joints[link.joint].find("limit")
        urdf = (float(limit.get("lower")), float(limit.get("upper")))
        np.testing.assert_allclose(urdf, link.limits, atol=1e-9)
        np.testing.assert_allclose(model.joint(link.joint).range, link.limits, atol=1e-9)
        np.testing.assert_allclose(model.joint(link.joint).axis, link.axis)


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_controllers_yaml_names_the_robot_joints(name):
    params = yaml.safe_load(controllers_yaml(name, 250))
    manager = params["/**/controller_manager"]["ros__parameters"]
    assert manager["update_rate"] == 250
    assert manager["joint_trajectory_controller"]["type"] == "joint_trajectory_controller/JointTrajectoryController"
    trajectory = params["/**/joint_trajectory_controller"]["ros__parameters"]
    assert trajectory["joints"] == list(robot(name).joints) and trajectory["command_interfaces"] == ["position"]
    with pytest.raises(ValueError, match="update_rate 0"):
        controllers_yaml(name, 0)


def test_bad_robot_and_backend_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown robot 'ur5'; expected one of pendulum, arm2r, so100"):
        robot("ur5")
    with pytest.raises(ValueError, match="so100 runs on backend feetech or feetech_emulator or mujoco or mock, "
                                         "not 'dynamixel'"):
        check_backend(robot("so100"), "dynamixel")
    check_backend(robot("so100"), "mujoco")
    check_backend(robot("so100"), "mock")
    check_backend(robot("pendulum"), "erob_emulator")


@pytest.mark.parametrize("name", sorted(TRAJECTORIES))
def test_identification_goals_sample_the_trajectory(name):
    trajectory = TRAJECTORIES[name]
    plan = goal_plan(name, ("a", "b"))
    assert plan.times[0] == pytest.approx(0.01) and plan.duration == pytest.approx(trajectory.duration)
    assert np.all(np.diff(plan.times) > 0) and plan.positions.shape == (len(plan.times), 2)
    assert np.allclose(plan.positions[:, 0], trajectory.goal(plan.times)) and np.allclose(plan.positions[:, 1],
                                                                                          plan.positions[:, 0])
    off = plan.times[~np.asarray(trajectory.enable(plan.times), dtype=bool)]
    assert plan.release == (pytest.approx(off[0]) if off.size else None)


def test_lift_and_drop_releases_after_two_seconds_and_paths_need_two_joints():
    assert goal_plan("lift_and_drop", ("pendulum",)).release == pytest.approx(2.01)
    with pytest.raises(ValueError, match="drives a 2R arm"):
        goal_plan("circle", ("pendulum",))
    with pytest.raises(ValueError, match="unknown trajectory 'nope'"):
        goal_plan("nope", ("pendulum",))


def test_a_2r_path_is_a_goal_of_shoulder_and_elbow():
    from actuator_bench.player import arm_path_schedule

    plan = goal_plan("circle", ("shoulder", "elbow"))
    assert plan.release is None and plan.positions.shape == (len(plan.times), 2)
    expected = arm_path_schedule("circle", "mx").goal(plan.times[100])
    assert np.allclose(plan.positions[100], expected) and not np.allclose(plan.positions[:, 0], plan.positions[:, 1])


def test_so100_config_limits_are_the_arm_ranges_and_goals_stay_inside():
    """config/so100_arm.yaml gives the driver the URDF's ranges (a goal outside is refused by the
    servo driver), and the player's goals are clipped into them (lift_and_drop's -pi/2 on the
    gripper, whose range starts at -0.17 rad)."""
    from pathlib import Path

    from actuator_bench.control_description import joint_limits

    config = yaml.safe_load((Path(__file__).resolve().parents[1] / "config" / "so100_arm.yaml").read_text())
    bench = config["/**/bench"]["ros__parameters"]
    limits = joint_limits("so100")
    assert bench["joints"] == list(SO100_JOINTS)
    np.testing.assert_allclose(list(zip(bench["min_position"], bench["max_position"])), limits, atol=1e-9)
    plan = goal_plan("lift_and_drop", SO100_JOINTS, limits=limits)
    gripper = SO100_JOINTS.index("gripper")
    assert plan.positions[:, gripper].min() == pytest.approx(-0.17)
    assert plan.positions[:, 0].min() == pytest.approx(-np.pi / 2, abs=1e-3)  # within the pan's range: unclipped
    assert np.allclose(plan.goal(plan.times[150]), plan.positions[150])  # the goal function is clipped too
    assert joint_limits("pendulum") is None
    with pytest.raises(ValueError, match="limits: 1 ranges for 6 joints"):
        goal_plan("lift_and_drop", SO100_JOINTS, limits=[(-1.0, 1.0)])


def test_so100_urdf_effort_and_velocity_limits_are_the_sts3215_ratings():
    """The URDF's effort and velocity limits are the servo model's stall torque and no-load speed
    (actuator_models.ratings), not generic numbers: closed forms of the STS3215 voltage law."""
    from actuator_models.model import load_model
    from actuator_models.ratings import ratings

    from actuator_sim.so100 import SERVO_MODEL, SUPPLY

    model = load_model(SERVO_MODEL)
    p, law = model.values, model.actuator
    stall = p["kt"] * SUPPLY * law.max_duty / p["R"]
    free = (stall - p["friction_base"]) / (p["kt"] ** 2 / p["R"] + p["friction_viscous"])  # M1 steady state
    rated = ratings(model, SUPPLY)
    assert rated.stall_torque == pytest.approx(stall, rel=1e-9)
    assert rated.no_load_speed == pytest.approx(min(free, p["target_speed_limit"]), rel=1e-6)
    unlimited = ratings(model.with_values(target_speed_limit=100.0), SUPPLY)
    assert unlimited.no_load_speed == pytest.approx(free, rel=1e-6)
    joints = {j.get("name"): j.find("limit") for j in ET.fromstring(robot_description("so100")).findall("joint")}
    for name in SO100_JOINTS:
        assert float(joints[name].get("effort")) == pytest.approx(stall, rel=2e-3)
        assert float(joints[name].get("velocity")) == pytest.approx(rated.no_load_speed, rel=2e-3)

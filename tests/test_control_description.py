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
    joints = root.findall("joint")
    assert [j.get("name") for j in joints] == list(SO100_JOINTS)
    assert [j.find("parent").get("link") for j in joints[1:]] == [j.find("child").get("link") for j in joints[:-1]]


@pytest.mark.parametrize("name", sorted(ROBOTS))
def test_controllers_yaml_names_the_robot_joints(name):
    params = yaml.safe_load(controllers_yaml(name, 250))
    manager = params["controller_manager"]["ros__parameters"]
    assert manager["update_rate"] == 250
    assert manager["joint_trajectory_controller"]["type"] == "joint_trajectory_controller/JointTrajectoryController"
    trajectory = params["joint_trajectory_controller"]["ros__parameters"]
    assert trajectory["joints"] == list(robot(name).joints) and trajectory["command_interfaces"] == ["position"]
    with pytest.raises(ValueError, match="update_rate 0"):
        controllers_yaml(name, 0)


def test_bad_robot_and_backend_are_refused_by_name():
    with pytest.raises(ValueError, match="unknown robot 'ur5'; expected one of pendulum, arm2r, so100"):
        robot("ur5")
    with pytest.raises(ValueError, match="so100 runs on backend feetech or feetech_emulator or mock, not 'mujoco'"):
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

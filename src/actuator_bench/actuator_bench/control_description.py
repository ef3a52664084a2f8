"""Robot descriptions for ros2_control (no ROS here): URDF with its ``<ros2_control>`` tag and the
controllers' parameters, for the robots of ``control.launch.py``.

xacro is not in the ROS bundle, so the descriptions are generated in Python: the URDF of
``actuator_sim``'s models folder (generated from the MJCF, so both agree) for the pendulum bench
, the 2R arm and the six-servo SO-100 arm (``so100.urdf``, generated from the MJCF that the
``mujoco`` backend simulates: :mod:`actuator_sim.so100`), each with a ``<ros2_control>``
system whose hardware is either ``topic_based_ros2_control/TopicBasedSystem`` (the servo: the
control node on the other end of its topics) or ``mock_components/GenericSystem`` (command
mirrored to state, no servo). Every joint has a position command interface and position and
velocity state interfaces; the controllers are ``joint_state_broadcaster`` and a
``joint_trajectory_controller`` named so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import numpy as np
from actuator_sim.so100 import JOINT_NAMES

#: Namespace of the control node; the topic-based system's topics live in it.
HARDWARE_NAMESPACE = "hardware"
#: The controller manager's default update rate [Hz].
UPDATE_RATE = 100
#: The hardware argument that runs no servo (ros2_control's mock system).
MOCK = "mock"
#: Joints of the LeRobot SO-100 / SO-101 arm (its names), six Feetech STS3215.
SO100_JOINTS = JOINT_NAMES


@dataclass(frozen=True)
class Robot:
    """A robot of ``control.launch.py``.

    Attributes:
        name: the ``robot`` argument. joints: its actuated joints, in order. urdf: a file of
        actuator_sim's models folder. config: its bench YAML
        (None: the backend's own, as bench.launch.py). backends: the backends it runs on
        (None: every installed one).
    """

    name: str
    joints: Tuple[str, ...]
    urdf: str
    config: Optional[str] = None
    backends: Optional[Tuple[str, ...]] = None


ROBOTS: Dict[str, Robot] = {r.name: r for r in (
    Robot("pendulum", ("pendulum",), "pendulum.urdf"),
    Robot("arm2r", ("shoulder", "elbow"), "arm_mx.urdf", "arm_mx.yaml"),
    Robot("so100", SO100_JOINTS, "so100.urdf", "so100_arm.yaml", ("feetech", "feetech_emulator", "mujoco")),
)}


def robot(name: str) -> Robot:
    """The robot ``name``; ValueError naming the known ones."""
    try:
        return ROBOTS[name]
    except KeyError:
        raise ValueError(f"unknown robot {name!r}; expected one of {', '.join(ROBOTS)}") from None


def check_backend(chosen: Robot, backend: str) -> None:
    """ValueError when ``chosen`` cannot run on ``backend`` (the SO-100's servos are Feetech)."""
    if backend != MOCK and chosen.backends is not None and backend not in chosen.backends:
        raise ValueError(f"robot {chosen.name} runs on backend {' or '.join(chosen.backends)} or {MOCK}, "
                         f"not {backend!r}")


def ros2_control_tag(name: str, joints: Sequence[str], mock: bool, namespace: str = HARDWARE_NAMESPACE) -> str:
    """The ``<ros2_control>`` system of ``joints``: the topic-based system whose topics are
    ``/<namespace>/joint_commands`` and ``/<namespace>/joint_states`` (a command published every
    cycle: threshold -1), or the mock system when ``mock``."""
    if mock:
        hardware = "<plugin>mock_components/GenericSystem</plugin>"
    else:
        hardware = "\n      ".join((
            "<plugin>topic_based_ros2_control/TopicBasedSystem</plugin>",
            f'<param name="joint_commands_topic">/{namespace}/joint_commands</param>',
            f'<param name="joint_states_topic">/{namespace}/joint_states</param>',
            '<param name="trigger_joint_command_threshold">-1</param>'))
    tags = "".join(
        f'\n    <joint name="{j}">\n      <command_interface name="position"/>\n'
        f'      <state_interface name="position"><param name="initial_value">0.0</param></state_interface>\n'
        f'      <state_interface name="velocity"/>\n    </joint>' for j in joints)
    return f'  <ros2_control name="{name}" type="system">\n    <hardware>\n      {hardware}\n    </hardware>{tags}\n  </ros2_control>\n'


def hardware_namespace(namespace: str = "") -> str:
    """The control node's namespace in a graph of namespace ``namespace`` ("": the root):
    ``hardware`` or ``<namespace>/hardware``."""
    return "/".join(part for part in (namespace.strip("/"), HARDWARE_NAMESPACE) if part)


def robot_description(name: str, mock: bool = False, namespace: str = "") -> str:
    """The URDF of robot ``name`` with its ``<ros2_control>`` tag (mock hardware when ``mock``),
    for a control graph in ``namespace`` ("": the root; its topic-based system's topics are
    then in ``<namespace>/hardware``)."""
    from actuator_sim.models import read_model

    chosen = robot(name)
    urdf = read_model(chosen.urdf)
    end = urdf.rindex("</robot>")
    return urdf[:end] + ros2_control_tag(chosen.name, chosen.joints, mock, hardware_namespace(namespace)) + urdf[end:]


def joint_limits(name: str) -> Optional[Tuple[Tuple[float, float], ...]]:
    """(lower, upper) [rad] of each joint of robot ``name``, from its URDF's ``<limit>`` tags
    (one source with the simulated robot); None when no joint is limited (continuous joints)."""
    import xml.etree.ElementTree as ET

    from actuator_sim.models import read_model

    chosen = robot(name)
    found = {j.get("name"): j.find("limit") for j in ET.fromstring(read_model(chosen.urdf)).findall("joint")}
    tags = [found.get(j) for j in chosen.joints]
    if all(tag is None for tag in tags):
        return None
    return tuple((-np.inf, np.inf) if tag is None else (float(tag.get("lower", -np.inf)), float(tag.get("upper", np.inf)))
                 for tag in tags)


def controllers_yaml(name: str, update_rate: int = UPDATE_RATE) -> str:
    """The controller manager's parameters file for robot ``name`` (node names matched in any
    namespace: ``/**/``, so that one file serves a graph in a namespace): ``joint_state_broadcaster``
    and ``joint_trajectory_controller`` (position commands; position and velocity states; no
    stopped-velocity check at the goal: a released pendulum swings on; goal feedback every
    cycle, so that a player releases the torque within a cycle of its instant)."""
    if not update_rate > 0:
        raise ValueError(f"update_rate {update_rate!r}: must be a positive number of Hz")
    joints = ", ".join(robot(name).joints)
    return f"""/**/controller_manager:
  ros__parameters:
    update_rate: {int(update_rate)}
    joint_state_broadcaster:
      type: joint_state_broadcaster/JointStateBroadcaster
    joint_trajectory_controller:
      type: joint_trajectory_controller/JointTrajectoryController

/**/joint_state_broadcaster:
  ros__parameters:
    use_local_topics: false

/**/joint_trajectory_controller:
  ros__parameters:
    joints: [{joints}]
    action_monitor_rate: {float(update_rate)}
    command_interfaces: [position]
    state_interfaces: [position, velocity]
    allow_nonzero_velocity_at_trajectory_end: true
    constraints:
      stopped_velocity_tolerance: 0.0
      goal_time: 0.0
"""

"""What every bench node shares: QoS profiles, message conversions and the spin loop.

QoS: state streams (``joint_states``, ``actuator_states``, ``compare/error``) use the sensor-data
profile (best effort, keep last 5), commands are reliable (keep last 10), ``bench_info`` is
reliable and transient local (keep last 1) so late joiners and the recorder get it.
"""

from __future__ import annotations

import signal
from typing import Callable, Optional

import rclpy
from actuator_interfaces.msg import ActuatorCommand, ActuatorState
from actuator_interfaces.msg import BenchInfo as BenchInfoMsg
from builtin_interfaces.msg import Time
from rcl_interfaces.msg import ParameterDescriptor
from rclpy.executors import Executor, ExternalShutdownException
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import JointState

from ..comparison import States
from ..messages import (
    BenchInfo, Command, JointSample, actuator_state_fields, bench_info_fields, command_fields, command_from_fields,
    joint_state_fields, stamp,
)

SENSOR_QOS = qos_profile_sensor_data
COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)


def read_only(description: str) -> ParameterDescriptor:
    """Descriptor of a parameter fixed at start (set it from the launch file or YAML)."""
    return ParameterDescriptor(description=description, read_only=True)


def time_msg(ns: int) -> Time:
    return Time(**stamp(ns))


def joint_state_msg(sample: JointSample, ns: int) -> JointState:
    msg = JointState(**joint_state_fields(sample))
    msg.header.stamp = time_msg(ns)
    return msg


def actuator_state_msg(sample: JointSample, ns: int) -> ActuatorState:
    msg = ActuatorState(**actuator_state_fields(sample))
    msg.header.stamp = time_msg(ns)
    return msg


def command_msg(command: Command, ns: int) -> ActuatorCommand:
    msg = ActuatorCommand(**command_fields(command))
    msg.header.stamp = time_msg(ns)
    return msg


def bench_info_msg(info: BenchInfo) -> BenchInfoMsg:
    return BenchInfoMsg(**bench_info_fields(info))


def command_of(msg: ActuatorCommand) -> Command:
    return command_from_fields(msg.name, msg.goal_position, msg.torque_enable, msg.kp)


def states_of(msg: JointState) -> States:
    return States.of(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9, msg.name, msg.position,
                     msg.velocity, msg.effort)


def joint_state_of(states: States) -> JointState:
    msg = JointState(name=list(states.name), position=list(states.position), velocity=list(states.velocity),
                     effort=list(states.effort))
    msg.header.stamp = time_msg(round(states.stamp * 1e9))
    return msg


def spin(make_node: Callable[[], Node], args: Optional[list] = None,
         make_executor: Optional[Callable[[], Executor]] = None) -> None:
    """Init, spin a node until Ctrl-C or shutdown, then destroy it (its ``destroy_node`` releases
    what it holds: torque, bags) and shut down.

    Ctrl-C under ``ros2 launch`` arrives twice (from the terminal, then forwarded by launch);
    the second one is ignored so that it cannot interrupt the cleanup.
    """
    rclpy.init(args=args)
    node = None
    try:
        node = make_node()
        rclpy.spin(node, make_executor() if make_executor else None)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()

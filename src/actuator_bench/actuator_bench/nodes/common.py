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

from ..bench_core import Publication
from ..interfaces import ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE
from ..messages import JointSample, joint_state_fields, sample_from_fields, seconds_to_ns, stamp

SENSOR_QOS = qos_profile_sensor_data
COMMAND_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
LATCHED_QOS = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
#: QoS of each kind of :data:`actuator_bench.bench_core.BENCH_TOPICS`.
QOS = {"sensor": SENSOR_QOS, "command": COMMAND_QOS, "latched": LATCHED_QOS}
#: rclpy message class of each bench message type.
MESSAGE_CLASSES = {JOINT_STATE: JointState, ACTUATOR_STATE: ActuatorState, ACTUATOR_COMMAND: ActuatorCommand,
                   BENCH_INFO: BenchInfoMsg}


def read_only(description: str) -> ParameterDescriptor:
    """Descriptor of a parameter fixed at start (set it from the launch file or YAML)."""
    return ParameterDescriptor(description=description, read_only=True)


def time_msg(ns: int) -> Time:
    return Time(**stamp(ns))


def message(publication: Publication, ns: int):
    """The rclpy message of a publication, its header (if any) stamped ``ns`` [ns]."""
    msg = MESSAGE_CLASSES[publication.msgtype](**publication.fields)
    if publication.stamped:
        msg.header.stamp = time_msg(ns)
    return msg


def sample_of(msg: JointState) -> JointSample:
    return sample_from_fields(msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9, msg.name, msg.position,
                              msg.velocity, msg.effort)


def joint_state_of(sample: JointSample) -> JointState:
    msg = JointState(**joint_state_fields(sample))
    msg.header.stamp = time_msg(seconds_to_ns(sample.time))
    return msg


def spin(make_node: Callable[[], Node], args: Optional[list] = None,
         make_executor: Optional[Callable[[], Executor]] = None) -> None:
    """Init, spin a node until Ctrl-C or shutdown, then destroy it (its ``destroy_node`` releases
    what it holds: torque, bags) and shut down.

    Ctrl-C under ``ros2 launch`` arrives twice (from the terminal, then forwarded by launch);
    the second one is ignored so that it cannot interrupt the cleanup. rclpy's own signal
    handler shuts the context down at SIGINT, so a timer or the executor that was already running
    then raises :class:`rclpy.exceptions.RCLError` ("publisher's context is invalid", "failed to
    initialize wait set") or :class:`ExternalShutdownException`: once the context is shut down,
    such errors are the shutdown itself, not faults (cf. ros2/rclpy#398); while it is valid they
    propagate. A node that cannot start logs one line and exits with status 2 for bad parameters
    (ValueError) and 1 for a runtime fault (no bus, bus errors).
    """
    rclpy.init(args=args)
    node = None
    try:
        try:
            node = make_node()
        except (ValueError, OSError, RuntimeError) as error:
            if not rclpy.ok():  # interrupted while starting
                return
            rclpy.logging.get_logger('actuator_bench').fatal(f'cannot start: {error}')
            raise SystemExit(2 if isinstance(error, ValueError) else 1) from None
        rclpy.spin(node, make_executor() if make_executor else None)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:
        if rclpy.ok():
            raise
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        if node is not None:
            node.destroy_node()
        rclpy.try_shutdown()

"""Message fields of the bench records: the one place where the ROS-free records become messages.

The nodes and the no-ROS tools exchange :class:`~actuator_models.bench.JointSample`,
:class:`~actuator_models.bench.Command` (the bench contract, re-exported here) and
:class:`BenchInfo`; :func:`joint_state_fields`,
:func:`actuator_state_fields`, :func:`command_fields` and :func:`bench_info_fields` give the
fields of the corresponding ROS message (header excepted), usable both as rclpy message keyword
arguments and with :func:`actuator_bench.interfaces.build_message`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Dict, List, Sequence

from actuator_models.bench import Command, JointSample  # noqa: F401  (re-exported: the bench contract)

NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class BenchInfo:
    """The experiment running on a bench (``actuator_interfaces/BenchInfo``).

    Attributes:
        actuator: ``actuator_models`` name. trajectory: trajectory or path being played ("" when
        idle). mass [kg], arm_mass [kg], length [m]: pendulum. kp: firmware gain. vin: supply
        voltage [V], 0 when unknown.
    """

    actuator: str
    trajectory: str = ""
    mass: float = 0.0
    arm_mass: float = 0.0
    length: float = 0.0
    kp: float = 0.0
    vin: float = 0.0


def stamp(ns: int) -> Dict[str, int]:
    """``builtin_interfaces/Time`` fields of a time in nanoseconds."""
    sec, nanosec = divmod(int(ns), NS_PER_S)
    return {"sec": sec, "nanosec": nanosec}


def seconds_to_ns(t: float) -> int:
    """Seconds to integer nanoseconds."""
    return int(round(t * NS_PER_S))


def _floats(values: Sequence[float]) -> List[float]:
    return [float(v) for v in values]


def joint_state_fields(sample: JointSample) -> Dict[str, object]:
    """``sensor_msgs/JointState`` fields: effort holds the motor torque estimate [N m]."""
    return {
        "name": list(sample.name),
        "position": _floats(sample.position),
        "velocity": _floats(sample.velocity),
        "effort": _floats(sample.motor_torque),
    }


def actuator_state_fields(sample: JointSample) -> Dict[str, object]:
    """``actuator_interfaces/ActuatorState`` fields."""
    return {
        "name": list(sample.name),
        "position": _floats(sample.position),
        "velocity": _floats(sample.velocity),
        "control": _floats(sample.control),
        "motor_torque": _floats(sample.motor_torque),
        "input_voltage": _floats(sample.input_voltage),
        "temperature": _floats(sample.temperature),
        "torque_enable": [bool(v) for v in sample.torque_enable],
        "comm_errors": [int(v) for v in sample.comm_errors],
    }


def command_fields(command: Command) -> Dict[str, object]:
    """``actuator_interfaces/ActuatorCommand`` fields."""
    return {
        "name": list(command.name),
        "goal_position": _floats(command.goal_position),
        "torque_enable": [bool(v) for v in command.torque_enable],
        "kp": _floats(command.kp),
    }


def bench_info_fields(info: BenchInfo) -> Dict[str, object]:
    """``actuator_interfaces/BenchInfo`` fields."""
    return asdict(info)


def command_from_fields(name: Sequence[str], goal_position: Sequence[float],
                        torque_enable: Sequence[bool] = (), kp: Sequence[float] = ()) -> Command:
    """A :class:`Command` from message fields (any sequences); ValueError if inconsistent."""
    return Command.of(name, goal_position, torque_enable, kp)


def sample_from_fields(stamp_s: float, name: Sequence[str], position: Sequence[float],
                       velocity: Sequence[float] = (), effort: Sequence[float] = ()) -> JointSample:
    """A :class:`JointSample` from ``sensor_msgs/JointState`` fields (effort = motor torque)."""
    return JointSample.of(stamp_s, name, position, velocity, effort)

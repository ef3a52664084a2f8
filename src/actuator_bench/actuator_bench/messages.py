"""ROS-free mirrors of the bench messages, and their message fields.

The nodes and the no-ROS tools exchange these dataclasses; :func:`joint_state_fields`,
:func:`actuator_state_fields`, :func:`command_fields` and :func:`bench_info_fields` give the
fields of the corresponding ROS message (header excepted), usable both as rclpy message keyword
arguments and with :func:`actuator_bench.interfaces.build_message`.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Dict, List, Sequence, Tuple

NS_PER_S = 1_000_000_000


@dataclass(frozen=True)
class Command:
    """Commands for some joints (``actuator_interfaces/ActuatorCommand``).

    Attributes:
        name: joint names. goal_position: one goal per joint [rad]. torque_enable: one flag per
        joint, or empty to leave torque as it is. kp: one firmware gain per joint (actuator
        units), or empty to leave gains as they are.
    """

    name: Tuple[str, ...]
    goal_position: Tuple[float, ...]
    torque_enable: Tuple[bool, ...] = ()
    kp: Tuple[float, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.name)
        if len(self.goal_position) != n:
            raise ValueError(f"command: {len(self.goal_position)} goal positions for {n} joints")
        for field_name in ("torque_enable", "kp"):
            size = len(getattr(self, field_name))
            if size not in (0, n):
                raise ValueError(f"command: {size} {field_name} values for {n} joints (give {n} or none)")

    @classmethod
    def release(cls, names: Sequence[str], goals: Sequence[float]) -> "Command":
        """Torque off on every joint (goals kept for the record)."""
        return cls(tuple(names), tuple(float(g) for g in goals), (False,) * len(names))


@dataclass(frozen=True)
class JointSample:
    """One read of every joint of a bench (``sensor_msgs/JointState`` + ``ActuatorState``).

    Attributes:
        time: when the joints were sampled [s] on the bench's clock.
        name: joint names. position [rad], velocity [rad/s]. motor_torque: model estimate
        [N m]. control: what the firmware applies (V or A). input_voltage [V]. temperature
        [degC] (NaN when unknown). torque_enable. comm_errors: cumulative bus errors.
    """

    time: float
    name: Tuple[str, ...]
    position: Tuple[float, ...]
    velocity: Tuple[float, ...]
    motor_torque: Tuple[float, ...]
    control: Tuple[float, ...]
    input_voltage: Tuple[float, ...]
    temperature: Tuple[float, ...]
    torque_enable: Tuple[bool, ...]
    comm_errors: Tuple[int, ...]


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
    goals = tuple(float(g) for g in goal_position)
    if not all(math.isfinite(g) for g in goals):
        raise ValueError(f"command: goal positions must be finite numbers, got {goals}")
    return Command(tuple(name), goals, tuple(bool(e) for e in torque_enable), tuple(float(k) for k in kp))

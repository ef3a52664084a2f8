"""The hardware contract of a test bench: what every actuator family implements (no I/O here).

A bench is a set of named joints driven by one controller. :class:`Bench` is the seam between
the hardware side (a Dynamixel bus, an EtherCAT eRob, their emulators, a MuJoCo simulation)
and everything above it (the control loop, the trajectory player, the recorders, the ROS
nodes), in the spirit of ros2_control's split between hardware interfaces and controllers.
Above the seam only :class:`Command` goes down and :class:`JointSample` comes up.

Units: SI at the joint: positions [rad], velocities [rad/s], torques [N m], voltages [V],
temperatures [degC], times [s] on the bench's own clock (:attr:`Bench.clock`).

Implementations: ``actuator_bench.driver_bench.DriverBench`` (Dynamixel, real or emulated bus),
``actuator_bench.sim_bench.SimBench`` (MuJoCo).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Protocol, Sequence, Tuple, runtime_checkable


@dataclass(frozen=True)
class Command:
    """Commands for some joints of a bench (``actuator_interfaces/ActuatorCommand``).

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
    def of(cls, name: Sequence[str], goal_position: Sequence[float], torque_enable: Sequence[bool] = (),
           kp: Sequence[float] = ()) -> "Command":
        """A command from any sequences (message fields); ValueError for non-finite goals."""
        goals = tuple(float(g) for g in goal_position)
        if not all(math.isfinite(g) for g in goals):
            raise ValueError(f"command: goal positions must be finite numbers, got {goals}")
        return cls(tuple(name), goals, tuple(bool(e) for e in torque_enable), tuple(float(k) for k in kp))

    @classmethod
    def release(cls, names: Sequence[str], goals: Sequence[float]) -> "Command":
        """Torque off on every joint (goals kept for the record)."""
        return cls(tuple(names), tuple(float(g) for g in goals), (False,) * len(names))


@dataclass(frozen=True)
class JointSample:
    """One read of the joints of a bench: the single joint-state record of the project
    (drivers, simulation, comparison, recorders; ``sensor_msgs/JointState`` + ``ActuatorState``).

    Attributes:
        time: when the joints were sampled [s] on the bench's clock (or a message stamp).
        name: joint names. position [rad], velocity [rad/s]. motor_torque: model estimate
        [N m] (``JointState.effort``). control: what the drive applies (V or A).
        input_voltage [V]. temperature [degC] (NaN when unknown). torque_enable.
        comm_errors: cumulative bus errors. Every per-joint field but ``position`` may be empty
        when the source does not report it (a plain ``JointState``).
    """

    time: float
    name: Tuple[str, ...]
    position: Tuple[float, ...]
    velocity: Tuple[float, ...] = ()
    motor_torque: Tuple[float, ...] = ()
    control: Tuple[float, ...] = ()
    input_voltage: Tuple[float, ...] = ()
    temperature: Tuple[float, ...] = ()
    torque_enable: Tuple[bool, ...] = ()
    comm_errors: Tuple[int, ...] = ()

    def __post_init__(self) -> None:
        n = len(self.name)
        if len(self.position) != n:
            raise ValueError(f"joint sample: {len(self.position)} positions for {n} joints")
        for field_name in ("velocity", "motor_torque", "control", "input_voltage", "temperature", "torque_enable",
                           "comm_errors"):
            size = len(getattr(self, field_name))
            if size not in (0, n):
                raise ValueError(f"joint sample: {size} {field_name} values for {n} joints (give {n} or none)")

    @classmethod
    def from_states(cls, name: Sequence[str], states: Sequence[object], motor_torque: Sequence[float],
                    control: Sequence[float], comm_errors: int) -> "JointSample":
        """A sample from a driver's per-joint states (each with ``time`` [s], ``position`` [rad],
        ``velocity`` [rad/s], ``input_voltage`` [V], ``temperature`` [degC], ``torque_enabled``),
        the first state's time, and the bus's cumulative ``comm_errors`` for every joint."""
        return cls(
            time=states[0].time, name=tuple(name),
            position=tuple(s.position for s in states), velocity=tuple(s.velocity for s in states),
            motor_torque=tuple(motor_torque), control=tuple(control),
            input_voltage=tuple(s.input_voltage for s in states), temperature=tuple(s.temperature for s in states),
            torque_enable=tuple(s.torque_enabled for s in states), comm_errors=(comm_errors,) * len(states),
        )

    @classmethod
    def of(cls, time: float, name: Sequence[str], position: Sequence[float], velocity: Sequence[float] = (),
           motor_torque: Sequence[float] = ()) -> "JointSample":
        """A sample from any sequences (a ``JointState`` message's fields)."""
        def floats(values: Sequence[float]) -> Tuple[float, ...]:
            return tuple(map(float, values))

        return cls(float(time), tuple(name), floats(position), floats(velocity), floats(motor_torque))


class Clock(Protocol):
    """A bench's time base [s]: wall time, an emulator's (possibly sped-up) time, or simulated
    time (where sleeping steps the physics)."""

    def now(self) -> float: ...  # noqa: E704

    def sleep_until(self, t: float) -> None: ...  # noqa: E704


@runtime_checkable
class Bench(Protocol):
    """The hardware contract: the joints of one bench, addressed by name.

    Implementations guarantee: goals outside a joint's limits are refused (ValueError or the
    driver's error) before anything is sent; torque is released on :meth:`close`, on faults,
    and when no command came for the bench's command timeout.

    Attributes:
        joints: joint names, in the order of every :class:`JointSample`.
        clock: the bench's time base; :meth:`sample` stamps with it.
    """

    joints: Tuple[str, ...]
    clock: Clock

    def apply(self, command: Command) -> None:
        """Send a command (write); unknown joints raise ValueError."""

    def sample(self) -> JointSample:
        """Read every joint once (read)."""

    def release(self) -> None:
        """Torque off on every joint."""

    def close(self) -> None:
        """Release the torque and free the hardware (or stop the emulator / simulation)."""


class IdAddressedDriver(Protocol):
    """A driver that addresses its joints by bus id (Dynamixel ids, EtherCAT slave positions)."""

    def set_kp(self, gains: Mapping[int, float]) -> None: ...  # noqa: E704
    def command(self, goals: Mapping[int, float], enable: Optional[Mapping[int, bool]] = None) -> None: ...  # noqa: E704


class CommandRouter:
    """Turns a :class:`Command` by joint name into driver calls by id, sending a gain only when
    it changed since the last one sent.

    Args:
        ids: bus id of each joint name, in the bench's joint order.
    """

    def __init__(self, ids: Mapping[str, int]) -> None:
        self.ids: Dict[str, int] = dict(ids)
        self.sent_kp: Dict[int, float] = {}

    def send(self, driver: IdAddressedDriver, command: Command) -> None:
        """Gains first (those that changed), then goals [rad] and torque enables; a joint this
        bench does not have raises ValueError before anything is sent."""
        unknown = [j for j in command.name if j not in self.ids]
        if unknown:
            raise ValueError(f"command for unknown joint(s) {unknown}; this bench has {list(self.ids)}")
        ids = [self.ids[j] for j in command.name]
        gains = {i: k for i, k in zip(ids, command.kp) if self.sent_kp.get(i) != k}
        if gains:
            driver.set_kp(gains)
            self.sent_kp.update(gains)
        enable = dict(zip(ids, command.torque_enable)) if command.torque_enable else None
        driver.command(dict(zip(ids, command.goal_position)), enable)

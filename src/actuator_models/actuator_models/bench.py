"""The hardware contract of a test bench: what every actuator family implements (no I/O here).

A bench is a set of named joints driven by one controller. :class:`Bench` is the seam between
the hardware side (a Dynamixel bus, an EtherCAT eRob, their emulators, a MuJoCo simulation)
and everything above it (the control loop, the trajectory player, the recorders, the ROS
nodes), in the spirit of ros2_control's split between hardware interfaces and controllers.
Above the seam only :class:`Command` goes down and :class:`JointSample` comes up.

Units: SI at the joint: positions [rad], velocities [rad/s], torques [N m], voltages [V],
temperatures [degC], times [s] on the bench's own clock (:attr:`Bench.clock`).

Every family opens its bench from one :class:`BenchParams` (a :class:`Backend`'s ``open``): the
fields every bench reads, plus the backend's own settings (a dataclass the backend declares).
Implementations: ``actuator_drivers.dynamixel.bench.DynamixelBench`` (a Dynamixel bus, real or
emulated), ``actuator_drivers.erob.bench.ErobBench`` (eRob drives over EtherCAT),
``actuator_sim.bench.SimBench`` (MuJoCo).

Bus health is an optional part of the contract: a bench on a bus has ``counters`` and
``watchdog_trips`` (:mod:`.bench_bus`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Dict, Mapping, Optional, Protocol, Sequence, Tuple, Type, TypeVar, runtime_checkable

from .actuators import actuator
from .drive_state import DriveState
from .model import load_model, published_model

S = TypeVar("S")


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
    def from_states(cls, name: Sequence[str], states: Sequence[DriveState], motor_torque: Sequence[float],
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


@dataclass
class WallClock:
    """Monotonic bench time [s] since construction, ``scale`` times faster than the wall clock."""

    scale: float = 1.0
    _origin: float = field(default_factory=time.monotonic, repr=False)

    lockstep = False  # (a LockstepClock of an in-process emulator says True)

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"clock scale {self.scale!r}: must be a positive number")

    def now(self) -> float:
        """Bench time [s]."""
        return (time.monotonic() - self._origin) * self.scale

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` of bench time (no-op if not positive)."""
        if seconds > 0:
            time.sleep(seconds / self.scale)

    def sleep_until(self, t: float) -> None:
        """Sleep until bench time ``t`` [s]."""
        self.sleep(t - self.now())

    def wall(self, seconds: float) -> float:
        """Wall-clock seconds that ``seconds`` of bench time take."""
        return seconds / self.scale

    def watchdog_time(self) -> float:
        """Seconds the command watchdog counts: wall-clock seconds, so that an emulator running
        faster than real time has the same tolerance to a stalled host as hardware."""
        return time.monotonic()


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

    # Optional members (bus health; absent on a bench without a bus):
    #   counters: ErrorCounters  -- cumulative communication counters of the bus or line
    #   watchdog_trips: int      -- times the command watchdog released the torque
    # and on an emulated bench: set_load(mass, length, arm_mass) (see set_load); emulated_state()
    # -> Optional[str], once closed the emulator's own reading of the torque (the fail-safe check)


def option(help: str, *flags: str) -> Dict[str, Any]:
    """Metadata of a bench-settings field (``field(default=..., metadata=option(...))``): its
    description (node parameter, ``--help``) and its command-line flags (default
    ``--<name-with-dashes>``; for a bool whose default is True, the flag that sets it False)."""
    return {"help": help, "flags": flags}


@dataclass(frozen=True)
class NoSettings:
    """The settings of a backend that has none of its own."""


@dataclass(frozen=True)
class BenchParams:
    """A bench, whatever its backend: what every family reads, plus ``settings``, the backend's
    own parameters (a small dataclass its :class:`Backend` declares: port, bus, driver timing...).

    Attributes:
        joints: joint names. actuators: actuator per joint (``actuator_models`` registry name).
        models: servo model per joint (params file or library name such as ``xl330/m6``; ``""``:
        :func:`~actuator_models.model.published_model`, ``<actuator>/m6`` or ``/m1``): the torque
        estimate, and the emulated or simulated physics.
        ids: bus IDs. min_position, max_position: joint limits [rad]. kp: initial gain per joint
        (actuator units). vin: supply voltage per joint [V], 0 = the actuator's default.
        command_timeout: watchdog [s].
        mass [kg], length [m], arm_mass [kg]: the pendulum. time_scale: bench time per wall
        second (emulators, simulation); None: lockstep, bench time moves only with the control
        loop (an in-process emulator; eRob: process-data cycles run back to back). seed:
        random seed of emulators. settings: an instance of the backend's ``settings`` class
        (None: its defaults).
    """

    joints: Tuple[str, ...] = ("pendulum",)
    actuators: Tuple[str, ...] = ("xl330",)
    models: Tuple[str, ...] = ("",)
    ids: Tuple[int, ...] = (1,)
    min_position: Tuple[float, ...] = (-2.8,)
    max_position: Tuple[float, ...] = (2.8,)
    kp: Tuple[float, ...] = (400.0,)
    vin: Tuple[float, ...] = (0.0,)
    command_timeout: float = 0.5
    mass: float = 1.0
    length: float = 0.15
    arm_mass: float = 0.0
    time_scale: Optional[float] = 1.0
    seed: int = 0
    settings: Any = None

    def __post_init__(self) -> None:
        n = len(self.joints)
        for name in ("actuators", "models", "ids", "min_position", "max_position", "kp", "vin"):
            values = getattr(self, name)
            if len(values) == 1 and n > 1:  # one value for every joint
                object.__setattr__(self, name, tuple(values) * n)
            elif len(values) != n:
                raise ValueError(f"{name}: {len(values)} values for {n} joints {list(self.joints)}")
        for name in self.actuators:
            actuator(name)  # ValueError naming the registry's actuators for an unknown one
        self._check_values()
        object.__setattr__(self, "models", tuple(m or published_model(a) for m, a in zip(self.models, self.actuators)))
        self._check_models()

    def _check_models(self) -> None:
        """ValueError for a joint whose model is another actuator's (an unreadable model: its
        ParamsError): an emulator or a simulation would move one servo while its logs name
        another, a driver would estimate torque with another servo's constants."""
        for joint, name, model in zip(self.joints, self.actuators, self.models):
            modelled = load_model(model).actuator.name
            if modelled != name:
                raise ValueError(f"models {model!r}: a model of the {modelled}, not of joint {joint!r}'s "
                                 f"actuator {name!r}")

    def _check_values(self) -> None:
        """ValueError naming the first field whose value no bench can run on (the sizes are
        checked first): a simulation or an emulator would otherwise run on it (a NaN gain, a
        negative supply, a pendulum of negative mass, a joint range upside down)."""
        def refuse(name: str, value: Any, expected: str) -> None:
            raise ValueError(f"{name} {value!r}: {expected}")

        for joint, kp, vin, low, high in zip(self.joints, self.kp, self.vin, self.min_position, self.max_position):
            if not 0 < kp < math.inf:
                refuse("kp", kp, f"the gain of joint {joint!r} must be a positive number")
            if not 0 <= vin < math.inf:
                refuse("vin", vin, f"the supply of joint {joint!r} must be a number of volts >= 0 (0: the actuator's default)")
            if not (math.isfinite(low) and math.isfinite(high) and low < high):
                raise ValueError(f"min_position {low!r}, max_position {high!r}: the limits of joint {joint!r} "
                                 "must be finite with min_position < max_position")
        for name in ("mass", "length"):
            if not 0 < getattr(self, name) < math.inf:
                refuse(name, getattr(self, name), "must be a positive number")
        if not 0 <= self.arm_mass < math.inf:
            refuse("arm_mass", self.arm_mass, "must be a number >= 0")
        if self.time_scale is not None and not 0 < self.time_scale < math.inf:
            refuse("time_scale", self.time_scale, "must be a positive number of bench seconds per wall second")

    def settings_as(self, kind: Type[S]) -> S:
        """:attr:`settings` as the backend's settings class ``kind`` (its defaults when None);
        TypeError for settings of another backend."""
        if self.settings is None:
            return kind()
        if not isinstance(self.settings, kind):
            raise TypeError(f"bench settings {self.settings!r}: expected {kind.__name__}")
        return self.settings


@dataclass(frozen=True)
class Backend:
    """One way to open a bench: ``name`` (the ``backend`` parameter), a one-line ``help``,
    ``open`` (parameters -> an open bench), ``config``, the bench YAML of
    ``share/actuator_bench/config`` that the launch files use when none is given, and
    ``settings``, the dataclass of its own parameters (each field a node parameter and a
    command-line option of ``record`` / ``record-all``, described by :func:`option` metadata).

    A family lists its backends in its record (``actuator_models.family.Family.backends``); a
    backend without a family (the MuJoCo simulation) is an entry point of group
    ``actuator_bench.backends`` (see ``actuator_bench.backends.installed_backends``).
    """

    name: str
    help: str
    open: Callable[[BenchParams], Bench]
    config: str = "xl330_bench.yaml"
    settings: type = NoSettings

    def settings_from(self, values: Mapping[str, Any]) -> Any:
        """Its settings from parameter values by name (those it does not declare are ignored,
        those missing take its defaults)."""
        names = {f.name for f in fields(self.settings)}
        return self.settings(**{k: v for k, v in values.items() if k in names})


def goal_problem(goal: float, low: float, high: float) -> Optional[str]:
    """Why a goal [rad] cannot be sent to a joint whose limits are ``low``..``high`` [rad] (not a
    finite number, or outside them), or None: the check a bench makes before sending anything."""
    if math.isfinite(goal) and low <= goal <= high:
        return None
    return f"goal {goal!r} rad is outside the joint limits [{low:.4f}, {high:.4f}] rad; nothing was sent"


def set_load(bench: Bench, mass: float, length: float, arm_mass: float = 0.0) -> None:
    """Change the pendulum of an emulated bench [kg, m, kg] (its optional ``set_load`` member);
    ValueError for a bench whose load only a person can change."""
    change = getattr(bench, "set_load", None)
    if change is None:
        raise ValueError(f"{type(bench).__name__}: its load cannot be changed by software")
    change(mass, length, arm_mass)

"""Registry of bench backends: how a bench of each actuator family is opened.

A backend turns :class:`BenchParams` (the bench node's parameters, the CLI's options) into an
open :class:`actuator_models.bench.Bench`. The bench node, the recorder (through the node or
:func:`actuator_bench.session.record_run`) and ``actuator-bench play`` look backends up here by
name, so adding an actuator family is one :class:`Backend` entry:

    registry = BACKENDS.with_backend(Backend("erob", "eRob over EtherCAT", open_erob))

Built in: ``dynamixel`` (a Dynamixel bus), ``dynamixel_emulator`` (the same driver on the
emulated bus), ``mujoco`` (the MuJoCo simulation, wall-clock paced), ``erob`` (eRob drives over
EtherCAT, ``port`` = network interface), ``erob_emulator`` (the eRob driver on emulated drives
over a veth pair; root), ``feetech`` (Feetech STS servos, feetech-servo-sdk) and
``feetech_emulator`` (the same driver on the emulated STS bus).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Mapping, Tuple

from actuator_models.actuators import actuator
from actuator_models.bench import Bench
from actuator_models.model import library_names


@dataclass(frozen=True)
class BenchParams:
    """A bench, whatever its backend (each backend reads the fields it needs).

    Attributes:
        joints: joint names. actuators: actuator per joint (``actuator_models`` registry name).
        models: servo model per joint (params file or library name such as ``xl330/m6``; ``""``:
        ``<actuator>/m6``): the torque estimate, and the emulated or simulated physics.
        ids: bus IDs. min_position, max_position: joint limits [rad]. kp: initial gain per joint
        (actuator units). vin: supply voltage per joint [V], 0 = the actuator's default.
        port: device (serial port, network interface). baudrate [bit/s]. protocol: bus protocol.
        latency_ms: USB latency timer [ms]. command_timeout: watchdog [s].
        mjcf: simulated model (``pendulum`` or an MJCF). timestep: physics step [s].
        mass [kg], length [m], arm_mass [kg]: the pendulum. time_scale: bench time per wall
        second (emulators, simulation). seed: random seed of emulators.
    """

    joints: Tuple[str, ...] = ("pendulum",)
    actuators: Tuple[str, ...] = ("xl330",)
    models: Tuple[str, ...] = ("",)
    ids: Tuple[int, ...] = (1,)
    min_position: Tuple[float, ...] = (-2.8,)
    max_position: Tuple[float, ...] = (2.8,)
    kp: Tuple[float, ...] = (400.0,)
    vin: Tuple[float, ...] = (0.0,)
    port: str = "/dev/ttyUSB0"
    baudrate: int = 57600
    protocol: int = 2
    latency_ms: float = 16.0
    command_timeout: float = 0.5
    mjcf: str = "pendulum"
    timestep: float = 0.005
    mass: float = 1.0
    length: float = 0.15
    arm_mass: float = 0.0
    time_scale: float = 1.0
    seed: int = 0

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
        published = library_names()  # "<actuator>/m6", or "/m1" where only M1 is published (sts3215)
        object.__setattr__(self, "models", tuple(m or (f"{a}/m6" if f"{a}/m6" in published else f"{a}/m1")
                                                 for m, a in zip(self.models, self.actuators)))


@dataclass(frozen=True)
class Backend:
    """One way to open a bench: ``name`` (the ``backend`` parameter), a one-line ``help``,
    ``open`` (parameters -> an open bench) and ``config``, the bench YAML of
    ``share/actuator_bench/config`` that the launch files use when none is given."""

    name: str
    help: str
    open: Callable[[BenchParams], Bench]
    config: str = "xl330_bench.yaml"


class BackendRegistry(Mapping[str, Backend]):
    """Backends by name (immutable: :meth:`with_backend` returns an extended copy)."""

    def __init__(self, *backends: Backend) -> None:
        self._backends = {b.name: b for b in backends}

    def __getitem__(self, name: str) -> Backend:
        try:
            return self._backends[name]
        except KeyError:
            raise ValueError(f"unknown backend {name!r}; expected one of {', '.join(self._backends)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._backends)

    def __len__(self) -> int:
        return len(self._backends)

    def with_backend(self, backend: Backend) -> "BackendRegistry":
        return BackendRegistry(*self._backends.values(), backend)

    def open(self, name: str, params: BenchParams) -> Bench:
        """Open a bench of backend ``name``."""
        return self[name].open(params)

    def describe(self) -> str:
        """``name (help), ...``: for parameter descriptions and CLI help."""
        return ", ".join(f"{b.name} ({b.help})" for b in self._backends.values())


def _dynamixel(emulate: bool) -> Callable[[BenchParams], Bench]:
    def open_bench(p: BenchParams) -> Bench:
        from .driver_bench import DriverBench, DriverConfig

        return DriverBench.open(DriverConfig(
            ids=p.ids, joints=p.joints, actuators=p.actuators, min_position=p.min_position,
            max_position=p.max_position, models=p.models, port=p.port, baudrate=p.baudrate, protocol=p.protocol,
            command_timeout=p.command_timeout, latency_ms=p.latency_ms, emulate=emulate, mass=p.mass,
            length=p.length, arm_mass=p.arm_mass, time_scale=p.time_scale, seed=p.seed))

    return open_bench


def _erob(emulate: bool) -> Callable[[BenchParams], Bench]:
    def open_bench(p: BenchParams) -> Bench:
        from actuator_drivers.erob_bench import ErobBench, ErobConfig

        return ErobBench.open(ErobConfig(
            joints=p.joints, actuators=p.actuators, min_position=p.min_position, max_position=p.max_position,
            models=p.models, iface=p.port, command_timeout=p.command_timeout, emulate=emulate, mass=p.mass,
            length=p.length, arm_mass=p.arm_mass))

    return open_bench


def _feetech(emulate: bool) -> Callable[[BenchParams], Bench]:
    def open_bench(p: BenchParams) -> Bench:
        from actuator_drivers.feetech.bench import FeetechBench, FeetechConfig

        config = FeetechConfig(
            ids=p.ids, joints=p.joints, actuators=p.actuators, min_position=p.min_position,
            max_position=p.max_position, models=p.models, port=p.port, baudrate=p.baudrate,
            command_timeout=p.command_timeout, latency_ms=p.latency_ms)
        if not emulate:
            return FeetechBench.open(config)
        from actuator_drivers.feetech_emulator.emulated import open_emulated_bench

        return open_emulated_bench(config, p.mass, p.length, p.arm_mass, p.time_scale, p.seed)

    return open_bench


def _mujoco(p: BenchParams) -> Bench:
    from .sim_bench import SimBench, SimConfig

    return SimBench.from_config(SimConfig(
        joints=p.joints, models=p.models, kp=p.kp, vin=p.vin, mjcf=p.mjcf, mass=p.mass, length=p.length,
        arm_mass=p.arm_mass, timestep=p.timestep, command_timeout=p.command_timeout, realtime=True,
        time_scale=p.time_scale))


#: The built-in backends.
BACKENDS = BackendRegistry(
    Backend("dynamixel", "Dynamixel servos on a serial bus", _dynamixel(emulate=False)),
    Backend("dynamixel_emulator", "the Dynamixel driver on the emulated bus", _dynamixel(emulate=True)),
    Backend("mujoco", "MuJoCo simulation", _mujoco),
    Backend("erob", "eRob drives over EtherCAT (port = network interface)", _erob(emulate=False), "erob_bench.yaml"),
    Backend("erob_emulator", "the eRob driver on emulated drives over a veth pair (root)", _erob(emulate=True),
            "erob_bench.yaml"),
    Backend("feetech", "Feetech STS servos on a serial bus (feetech-servo-sdk)", _feetech(emulate=False),
            "sts3215_bench.yaml"),
    Backend("feetech_emulator", "the Feetech driver on the emulated STS bus", _feetech(emulate=True),
            "sts3215_bench.yaml"),
)



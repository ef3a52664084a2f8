"""The bench node without ROS: its parameters, its topics, and what it publishes each cycle.

:class:`BenchCore` opens the bench of the ``backend`` parameter (:mod:`actuator_bench.backends`),
runs its :class:`~actuator_bench.loop.BenchLoop` (read -> trajectory player -> write) and turns
every :class:`~actuator_bench.loop.Cycle` into :class:`Publication` s: topic, message type and
fields. The rclpy node only declares :func:`bench_parameters`, creates the publishers of
:data:`BENCH_TOPICS` and converts publications into messages; the same publications feed the
no-ROS bag writer (:mod:`actuator_bench.session`). Topics and QoS therefore do not depend on
the backend.
"""

from __future__ import annotations

import math
from dataclasses import Field, dataclass, fields
from typing import Any, Dict, List, Mapping, Optional, Tuple

from actuator_models.bench import BenchParams

from .backends import BackendRegistry, installed_backends
from .interfaces import ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE
from .loop import BenchLoop, Cycle
from .messages import BenchInfo, actuator_state_fields, bench_info_fields, command_fields, joint_state_fields
from .player import RUN_PREPARE, Prepare, Schedule, TrajectoryPlayer

#: Topics of a bench (relative to its namespace): message type and QoS kind (``sensor``: best
#: effort keep last 5; ``command``: reliable keep last 10; ``latched``: reliable, transient local).
BENCH_TOPICS: Mapping[str, Tuple[str, str]] = {
    "joint_states": (JOINT_STATE, "sensor"),
    "actuator_states": (ACTUATOR_STATE, "sensor"),
    "commands": (ACTUATOR_COMMAND, "command"),
    "bench_info": (BENCH_INFO, "latched"),
}


@dataclass(frozen=True)
class Publication:
    """One message to publish: ``topic`` (a :data:`BENCH_TOPICS` key), its fields and the bench
    time [s] of the cycle it comes from (its header's stamp: the sample's own time on the bench
    clock, the clock of the no-ROS bag, :mod:`actuator_bench.session`; a run's ``bench_info``:
    the stamp of its first command)."""

    topic: str
    fields: Dict[str, object]
    time: float = 0.0

    @property
    def msgtype(self) -> str:
        return BENCH_TOPICS[self.topic][0]


def publications(cycle: Cycle) -> List[Publication]:
    """What a cycle publishes: states of its sample, its command, its bench info."""
    out = []
    if cycle.sample is not None:
        out += [Publication("joint_states", joint_state_fields(cycle.sample), cycle.time),
                Publication("actuator_states", actuator_state_fields(cycle.sample), cycle.time)]
    if cycle.command is not None:
        out.append(Publication("commands", command_fields(cycle.command), cycle.time))
    if cycle.info is not None:
        out.append(Publication("bench_info", bench_info_fields(cycle.info), cycle.time))
    return out


@dataclass(frozen=True)
class Parameter:
    """A node parameter: name, default (its type is the parameter's), description."""

    name: str
    default: Any
    description: str


#: Descriptions of the parameters every backend reads (:class:`~actuator_models.bench.BenchParams`);
#: a backend's own (its ``settings`` dataclass) describe themselves.
_BENCH_DESCRIPTIONS = {
    "joints": "Joint names (shoulder, elbow for 2R paths)",
    "actuators": "actuator_models name of each joint (one value: all joints)",
    "models": "Servo model of each joint (params file or library name such as xl330/m6; empty: <actuator>/m6): "
              "torque estimate and emulated or simulated physics",
    "ids": "Bus ID of each joint",
    "min_position": "Lower joint limit of each joint [rad]",
    "max_position": "Upper joint limit of each joint [rad]",
    "kp": "Initial gain of each simulated joint (actuator units)",
    "vin": "Supply voltage of each joint [V]; 0 = the actuator's default",
    "command_timeout": "Torque is released when no command came for this long [s]",
    "mass": "Pendulum mass [kg] (bench_info, emulated and simulated pendulum)",
    "length": "Pendulum length [m] (bench_info, emulated and simulated pendulum)",
    "arm_mass": "Pendulum arm mass [kg] (bench_info, emulated and simulated pendulum)",
    "time_scale": "Bench seconds per wall second of emulators and simulations",
    "seed": "Random seed of emulators",
}
#: The backend a bench node opens when its parameters name none.
DEFAULT_BACKEND = "dynamixel_emulator"


def _ros_default(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def _common_fields() -> List[Field]:
    return [f for f in fields(BenchParams) if f.name != "settings"]


def _settings_parameters(registry: BackendRegistry, backend: str) -> Dict[str, Parameter]:
    """The settings fields of every backend of ``registry`` as parameters, by name; a field several
    backends declare once, with the default of ``backend`` where it declares it."""
    found: Dict[str, Parameter] = {}
    chosen = [registry[backend]] if backend in registry else []
    for b in chosen + [b for b in registry.values() if b.name != backend]:
        defaults = b.settings()
        for f in fields(b.settings):
            if f.name not in found:
                found[f.name] = Parameter(f.name, getattr(defaults, f.name), f.metadata.get("help", f.name))
    return found


def bench_parameters(registry: Optional[BackendRegistry] = None, backend: str = DEFAULT_BACKEND) -> Tuple[Parameter, ...]:
    """Every parameter of the bench node, with defaults and descriptions (``backend``: one of
    ``registry``, default the installed backends): the loop's, those every backend reads
    (:class:`~actuator_models.bench.BenchParams`), and the settings every backend declares (the
    defaults of ``backend`` where it declares them)."""
    registry = registry if registry is not None else installed_backends()
    defaults = BenchParams()
    return (
        Parameter("backend", DEFAULT_BACKEND, f"Bench backend: {registry.describe()}"),
        Parameter("rate", 100.0, "Control loop rate: read, player, write, publish [Hz]"),
        Parameter("arm", "mx", "Shipped 2R arm whose geometry the paths use: mx or erob"),
        Parameter("trajectory", "sin_sin", "Trajectory played when a request names none (and with autostart)"),
        Parameter("run_kp", 400.0, "Gain of a run whose request gives none (actuator units)"),
        Parameter("autostart", False, "Play the trajectory parameter once at start"),
        Parameter("prepare_time", RUN_PREPARE.move, "Move to a run's first waypoint before it starts [s] "
                  "(0 with settle_time 0: a run starts where the joints are)"),
        Parameter("settle_time", RUN_PREPARE.hold, "Rest at a run's first waypoint before it starts [s]"),
        *(Parameter(f.name, _ros_default(getattr(defaults, f.name)), _BENCH_DESCRIPTIONS[f.name])
          for f in _common_fields()),
        *_settings_parameters(registry, backend).values(),
    )


class BenchCore:
    """A bench and its player, opened from node parameter values.

    Args:
        values: parameter values by name (missing ones take :func:`bench_parameters` defaults).
        registry: backends to choose from.
    """

    def __init__(self, values: Mapping[str, Any], registry: Optional[BackendRegistry] = None) -> None:
        registry = registry if registry is not None else installed_backends()
        self.backend = str(values.get("backend", DEFAULT_BACKEND))
        backend = registry[self.backend]  # unknown backend: ValueError before opening anything
        merged = {p.name: p.default for p in bench_parameters(registry, self.backend)}
        merged.update(values)
        rate = float(merged["rate"])
        if not 0 < rate < math.inf:
            raise ValueError(f"rate {rate!r}: must be positive Hz")
        self.period = 1.0 / rate
        self.trajectory, self.run_kp = str(merged["trajectory"]), float(merged["run_kp"])
        self.autostart = bool(merged["autostart"])
        prepare = Prepare(float(merged["prepare_time"]), float(merged["settle_time"]))
        self.prepare: Optional[Prepare] = prepare if prepare.move + prepare.hold > 0 else None
        params = BenchParams(**{f.name: _tuple(merged[f.name]) for f in _common_fields()},
                             settings=backend.settings_from(merged))
        info = BenchInfo(actuator=params.actuators[0], mass=params.mass, arm_mass=params.arm_mass,
                         length=params.length, vin=float(params.vin[0]))
        self.params = params
        bench = backend.open(params)
        try:
            self.loop = BenchLoop(bench, TrajectoryPlayer(params.joints, info, str(merged["arm"])))
        except BaseException:
            bench.close()
            raise

    @property
    def info(self) -> BenchInfo:
        return self.loop.player.info

    def announce(self) -> List[Publication]:
        """The bench info as it is now, stamped now on the bench clock (published once at start:
        latched)."""
        return [Publication("bench_info", bench_info_fields(self.info), self.loop.bench.clock.now())]

    def start(self, trajectory: str = "", kp: float = 0.0) -> Schedule:
        """Start a run (defaults from the parameters) after the pre-move of the parameters
        (prepare_time, settle_time): its bench info comes with its first command, in the cycle of
        its t = 0; ValueError for a bad name or gain."""
        return self.loop.start(trajectory or self.trajectory, kp or self.run_kp, self.prepare)

    def stop(self) -> List[Publication]:
        """Stop the run: the release command is sent now (nothing when idle)."""
        return publications(self.loop.stop())

    def tick(self) -> List[Publication]:
        """One control cycle."""
        return publications(self.loop.tick())

    def close(self) -> Optional[List[Publication]]:
        """Stop (release) and close the bench; the last publications (None if stopping failed)."""
        try:
            return self.stop()
        except Exception:  # a dead bus must not keep the bench from closing
            return None
        finally:
            self.loop.bench.close()


def _tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, (list, tuple)) else value

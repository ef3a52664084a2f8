"""Bench bags to the JSON logs identification reads (``actuator_models.logs`` format).

A bag holds, per bench namespace (``/real``, ``/sim``, or the root), ``joint_states``,
``commands``, ``bench_info`` and optionally ``actuator_states``. The trajectory player publishes
a ``bench_info`` whose ``trajectory`` is set when a run starts, then the run's commands, and a
``bench_info`` with an empty trajectory when it ends. A run's commands are those the recorder
received between these two (bag time; ``bench_info`` has no header), and each run gives one
log per joint:

* time 0 is the run's first command; entries are the ``joint_states`` samples stamped from it
  to the end of the run: the release that follows it, or the next ``bench_info`` (header
  stamps; bag time where a stamp is zero);
* ``goal_position`` and ``torque_enable`` are those of the latest command at or before each
  sample (a command with no torque_enable keeps the previous one; torque starts enabled);
* ``control``, ``input_volts`` and ``temp`` are interpolated from ``actuator_states`` when the
  bag has them (a column with non-finite values is left out);
* the header comes from the run's ``bench_info`` (gain from the commands when it is 0, supply
  voltage from the measured one when it is 0).

Logs are resampled at ``dt`` (processed logs, what ``actuator-models fit`` reads) unless
``dt`` is None (raw logs). Reads any rosbag2 bag (MCAP or SQLite 3), including those of
``ros2 bag record``; message definitions missing from a bag come from ``actuator_interfaces``.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from actuator_models.logs import Log, resample, write_log
from actuator_models.outputs import refuse_existing
from rosbags.highlevel import AnyReader

from .interfaces import ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE, bench_typestore
from .messages import NS_PER_S, BenchInfo

#: Resampling period of processed logs [s] (that of the published logs).
DEFAULT_DT = 0.005


@dataclass
class Samples:
    """Rows of one message stream: header ``time`` and bag ``received`` time [ns], joint
    ``names``, ``values`` by field."""

    time: List[int] = field(default_factory=list)
    received: List[int] = field(default_factory=list)
    names: List[Tuple[str, ...]] = field(default_factory=list)
    values: Dict[str, List[Sequence[float]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, message: object, log_time_ns: int, **values: Sequence[float]) -> None:
        s = message.header.stamp  # type: ignore[attr-defined]
        stamp_ns = s.sec * NS_PER_S + s.nanosec
        self.time.append(stamp_ns or log_time_ns)
        self.received.append(log_time_ns)
        self.names.append(tuple(message.name))  # type: ignore[attr-defined]
        for key, value in values.items():
            self.values[key].append(value)

    def joint(self, joint: str, start: float, end: float) -> Tuple[np.ndarray, Dict[str, np.ndarray]]:
        """Times [ns] in ``[start, end)`` and values of ``joint`` (rows that include it)."""
        rows = [i for i, (t, names) in enumerate(zip(self.time, self.names)) if start <= t < end and joint in names]
        times = np.array([self.time[i] for i in rows], dtype=np.int64)
        columns = {
            key: np.array([float(values[i][self.names[i].index(joint)]) if len(values[i]) else math.nan for i in rows])
            for key, values in self.values.items()
        }
        return times, columns


@dataclass
class BenchStreams:
    """Everything a bag holds for one bench namespace."""

    states: Samples = field(default_factory=Samples)
    actuator_states: Samples = field(default_factory=Samples)
    commands: Samples = field(default_factory=Samples)
    infos: List[Tuple[int, BenchInfo]] = field(default_factory=list)


@dataclass(frozen=True)
class Run:
    """One trajectory run from ``start`` (its first command) to ``end`` (excluded) [ns]."""

    namespace: str
    index: int
    info: BenchInfo
    start: int
    end: float


def read_streams(bag: Path) -> Dict[str, BenchStreams]:
    """The bench streams of a bag, by namespace (``"/real"``, ``""`` for the root)."""
    streams: Dict[str, BenchStreams] = defaultdict(BenchStreams)
    with AnyReader([Path(bag)], default_typestore=bench_typestore()) as reader:
        types = (JOINT_STATE, ACTUATOR_STATE, ACTUATOR_COMMAND, BENCH_INFO)
        wanted = [c for c in reader.connections if c.msgtype in types]
        for connection, log_time, raw in reader.messages(connections=wanted):
            namespace, _, base = connection.topic.rpartition("/")
            bench = streams[namespace]
            msg = reader.deserialize(raw, connection.msgtype)
            if connection.msgtype == JOINT_STATE and base == "joint_states":
                bench.states.add(msg, log_time, position=msg.position, velocity=msg.velocity)
            elif connection.msgtype == ACTUATOR_STATE:
                bench.actuator_states.add(msg, log_time, control=msg.control, input_volts=msg.input_voltage,
                                          temp=msg.temperature)
            elif connection.msgtype == ACTUATOR_COMMAND:
                bench.commands.add(msg, log_time, goal_position=msg.goal_position, torque_enable=msg.torque_enable,
                                   kp=msg.kp)
            elif connection.msgtype == BENCH_INFO:
                info = BenchInfo(msg.actuator, msg.trajectory, msg.mass, msg.arm_mass, msg.length, msg.kp, msg.vin)
                bench.infos.append((log_time, info))
    return dict(streams)


def find_runs(namespace: str, bench: BenchStreams) -> List[Run]:
    """The runs of a namespace. A run's commands are those received from a bench_info naming a
    trajectory (included) to the next bench_info (excluded); it lasts from the stamp of its first
    command to that of the next command outside it (the release), or to the next bench_info."""
    infos = sorted(bench.infos, key=lambda item: item[0])
    commands = list(zip(bench.commands.time, bench.commands.received))
    runs = []
    for i, (t, info) in enumerate(infos):
        if not info.trajectory:
            continue
        end = infos[i + 1][0] if i + 1 < len(infos) else math.inf
        inside = [stamp for stamp, received in commands if t <= received < end]
        if inside:
            after = [stamp for stamp, received in commands if received >= end and stamp > max(inside)]
            runs.append(Run(namespace, len(runs), info, min(inside), min(after, default=end)))
    return runs


def _hold(times: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Index of the latest of ``times`` at or before each of ``at`` (-1 if none)."""
    return np.searchsorted(times, at, side="right") - 1


def _enable_column(flags: np.ndarray) -> np.ndarray:
    """Commanded torque enable, NaN (left unchanged) carried forward from True."""
    out, current = np.empty(len(flags), dtype=bool), True
    for i, flag in enumerate(flags):
        current = current if math.isnan(flag) else bool(flag)
        out[i] = current
    return out


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_")


def run_log(run: Run, bench: BenchStreams, joint: str, bag_name: str) -> Optional[Log]:
    """The raw log of one joint in a run; None when the run has fewer than 2 samples of it."""
    t, states = bench.states.joint(joint, run.start, run.end)
    tc, commands = bench.commands.joint(joint, run.start, run.end)
    keep = np.concatenate([[True], np.diff(t) > 0]) if len(t) else np.zeros(0, dtype=bool)
    t = t[keep]
    if len(t) < 2 or not len(tc):
        return None
    held = _hold(tc, t)
    valid = held >= 0
    t, held = t[valid], held[valid]
    ta, extras = bench.actuator_states.joint(joint, run.start - NS_PER_S, run.end + NS_PER_S)
    extra = {}
    for key, values in extras.items():
        column = np.interp(t, ta, values) if len(ta) else np.array([])
        if len(column) and np.all(np.isfinite(column)):
            extra[key] = column
    info = run.info
    kp = info.kp or next((k for k in commands["kp"] if math.isfinite(k)), 0.0)
    vin = info.vin or (float(np.mean(extra["input_volts"])) if "input_volts" in extra else None)
    ns = _safe(run.namespace)
    name = "_".join(filter(None, (bag_name, ns, f"{run.index:03d}", _safe(info.trajectory), _safe(joint))))
    return Log(
        mass=info.mass, length=info.length, kp=float(kp), arm_mass=info.arm_mass, vin=vin,
        motor=info.actuator, trajectory=info.trajectory,
        timestamp=(t - run.start) / NS_PER_S,
        position=states["position"][keep][valid],
        speed=states["velocity"][keep][valid],
        goal_position=commands["goal_position"][held],
        torque_enable=_enable_column(commands["torque_enable"])[held],
        extra=extra,
        source=f"{name}.json",
    )


def bag_logs(bag: Path, namespace: Optional[str] = None) -> List[Log]:
    """Raw logs of every run and joint of a bag (of one namespace, e.g. ``"/real"``, if given)."""
    bag = Path(bag)
    logs = []
    for ns, bench in sorted(read_streams(bag).items()):
        if namespace is not None and ns != namespace.rstrip("/"):
            continue
        joints = sorted({j for names in bench.states.names for j in names})
        for run in find_runs(ns, bench):
            logs += [log for joint in joints if (log := run_log(run, bench, joint, bag.name)) is not None]
    return logs


def convert(bag: Path, out_dir: Path, dt: Optional[float] = DEFAULT_DT, namespace: Optional[str] = None,
            overwrite: bool = True) -> List[Path]:
    """Write the logs of a bag into ``out_dir``, resampled at ``dt`` [s] (None: raw logs);
    with ``overwrite`` False, existing logs of the same names are an
    :class:`~actuator_models.outputs.OutputExistsError` and nothing is written."""
    logs = bag_logs(bag, namespace)
    if not logs:
        raise ValueError(f"{bag}: no trajectory run found (needs bench_info, commands and joint_states topics)")
    refuse_existing((Path(out_dir) / log.source for log in logs), overwrite)
    paths = []
    for log in logs:
        path = Path(out_dir) / log.source
        write_log(resample(log, dt) if dt else log, path)
        paths.append(path)
    return paths


def is_bag(path: Path) -> bool:
    """Whether ``path`` is a rosbag2 folder (it holds ``metadata.yaml``)."""
    return (Path(path) / "metadata.yaml").is_file()

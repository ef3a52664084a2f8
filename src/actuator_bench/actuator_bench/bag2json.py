"""Bench bags to the JSON logs identification reads (``actuator_models.logs`` format).

A bag holds, per bench namespace (``/real``, ``/sim``, or the root), ``joint_states``,
``commands``, ``bench_info`` and optionally ``actuator_states``, every message stamped with the
bench's clock (bench time). The trajectory player publishes a ``bench_info`` naming the run with
its first command, stamped as it, and one with an empty trajectory with its release, stamped as
that. A run's commands are those stamped from its ``bench_info`` to the next one, whatever order
the recorder received them in (a busy recorder takes each topic's backlog at its own pace), and
each run gives one log per joint:

* time 0 is the run's first command; entries are the ``joint_states`` samples stamped from it
  up to the next ``bench_info`` (excluded: the release's cycle is not part of the run);
* ``goal_position`` and ``torque_enable`` are those of the latest command at or before each
  sample (a command with no torque_enable keeps the previous one; torque starts enabled);
* ``control``, ``input_volts`` and ``temp`` are interpolated from ``actuator_states`` when the
  bag has them (a column with non-finite values is left out);
* the header comes from the run's ``bench_info`` (gain from the commands when it is 0, supply
  voltage from the measured one when it is 0).

Bags of earlier versions, whose ``bench_info`` had no header, are read by receive order
(:func:`find_runs_by_arrival`). Logs are resampled at ``dt`` (processed logs, what
``actuator-models fit`` reads) unless ``dt`` is None (raw logs). Every log says
``commands_held`` (each command was sent right after its sample and held until the next cycle,
also across the cycles a busy host's loop skipped), so resampling it, here or by
``actuator-models process`` from a raw log, holds the commands instead of interpolating them
(:mod:`actuator_models.resampling`). Reads any rosbag2 bag (MCAP or SQLite 3), including those of
``ros2 bag record``; message definitions missing from a bag come from ``actuator_interfaces``.
"""

from __future__ import annotations

import math
import re
import warnings
from collections import defaultdict
from dataclasses import dataclass, field, fields
from functools import partial
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from actuator_models.log_checks import OddLogWarning
from actuator_models.logs import PROCESSED_DT, Log, write_log
from actuator_models.outputs import refuse_existing
from actuator_models.recording_quality import processing_warning
from actuator_models.resampling import resample
from rosbags.highlevel import AnyReader, AnyReaderError

from .interfaces import ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE, bench_typestore
from .messages import NS_PER_S, BenchInfo

#: Resampling period of processed logs [s] (that of the published logs).
DEFAULT_DT = PROCESSED_DT


@dataclass
class Samples:
    """Rows of one message stream: header ``time`` and bag ``received`` time [ns], joint
    ``names``, ``values`` by field."""

    time: List[int] = field(default_factory=list)
    received: List[int] = field(default_factory=list)
    names: List[Tuple[str, ...]] = field(default_factory=list)
    values: Dict[str, List[Sequence[float]]] = field(default_factory=lambda: defaultdict(list))

    def add(self, stamp_ns: Optional[int], received_ns: int, names: Sequence[str], **values: Sequence[float]) -> None:
        """One row: header stamp (0 or None: use the receive time) and receive time [ns]."""
        self.time.append(stamp_ns or received_ns)
        self.received.append(received_ns)
        self.names.append(tuple(names))
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
    """Everything recorded of one bench namespace: filled from a bag (:func:`read_streams`) or
    straight from the control loop (:class:`actuator_bench.session.StreamSink`), then turned
    into logs by the same code (:func:`streams_logs`)."""

    states: Samples = field(default_factory=Samples)
    actuator_states: Samples = field(default_factory=Samples)
    commands: Samples = field(default_factory=Samples)
    infos: List[Tuple[Optional[int], int, BenchInfo]] = field(default_factory=list)  # (stamp, received [ns], info)

    def add(self, topic: str, stamp_ns: Optional[int], received_ns: int, value: Callable[[str], Any]) -> None:
        """A message of bench topic ``topic`` (last name: ``joint_states``...) whose field
        ``name`` is ``value(name)``, stamped ``stamp_ns`` (None: it has no header) and received at
        ``received_ns``."""
        if topic == "joint_states":
            self.states.add(stamp_ns, received_ns, value("name"), position=value("position"),
                            velocity=value("velocity"))
        elif topic == "actuator_states":
            self.actuator_states.add(stamp_ns, received_ns, value("name"), control=value("control"),
                                     input_volts=value("input_voltage"), temp=value("temperature"))
        elif topic == "commands":
            self.commands.add(stamp_ns, received_ns, value("name"), goal_position=value("goal_position"),
                              torque_enable=value("torque_enable"), kp=value("kp"))
        elif topic == "bench_info":
            self.infos.append((stamp_ns, received_ns, BenchInfo(**{f.name: value(f.name) for f in fields(BenchInfo)})))


@dataclass(frozen=True)
class Run:
    """One trajectory run from ``start`` (its first command) to ``end`` (excluded) [ns]."""

    namespace: str
    index: int
    info: BenchInfo
    start: int
    end: float

    @property
    def duration(self) -> float:
        """From the first command to the run's end [s] (inf: a run the bag does not close)."""
        return (self.end - self.start) / NS_PER_S


#: Message type of each topic a bench stream is read from, by the topic's last name.
STREAM_TYPES = {"joint_states": JOINT_STATE, "actuator_states": ACTUATOR_STATE, "commands": ACTUATOR_COMMAND,
                "bench_info": BENCH_INFO}


def read_streams(bag: Path) -> Dict[str, BenchStreams]:
    """The bench streams of a bag, by namespace (``"/real"``, ``""`` for the root)."""
    streams: Dict[str, BenchStreams] = defaultdict(BenchStreams)
    if not Path(bag).exists():
        raise ValueError(f"{bag}: no such bag (a folder holding metadata.yaml, as 'ros2 bag record' writes)")
    try:  # not a bag, a damaged metadata.yaml, a cut MCAP file: on construction, opening or reading
        with AnyReader([Path(bag)], default_typestore=bench_typestore()) as reader:
            wanted = [c for c in reader.connections
                      if STREAM_TYPES.get(c.topic.rpartition("/")[2]) == c.msgtype]
            for connection, log_time, raw in reader.messages(connections=wanted):
                namespace, _, base = connection.topic.rpartition("/")
                msg = reader.deserialize(raw, connection.msgtype)
                header = getattr(msg, "header", None)
                stamp_ns = header.stamp.sec * NS_PER_S + header.stamp.nanosec if header is not None else None
                streams[namespace].add(base, stamp_ns, log_time, partial(getattr, msg))
    except AnyReaderError as error:
        raise ValueError(f"{bag}: not a readable bag ({error})") from None
    return dict(streams)


def find_runs(namespace: str, bench: BenchStreams) -> List[Run]:
    """The runs of a namespace, by stamp (bench time): a ``bench_info`` naming a trajectory opens
    a run at its stamp, the next ``bench_info`` closes it at its own (excluded: the release's
    cycle). The run's commands are those stamped in between; it starts at the first of them.
    A bag whose ``bench_info`` has no stamp (an earlier version's) is read by receive order."""
    if any(stamp is None for stamp, _, _ in bench.infos):
        return find_runs_by_arrival(namespace, bench)
    infos = sorted(((stamp, info) for stamp, _, info in bench.infos if stamp is not None), key=lambda item: item[0])
    commands = np.sort(np.asarray(bench.commands.time, dtype=np.int64))
    runs: List[Run] = []
    for i, (opened, info) in enumerate(infos):
        if not info.trajectory:
            continue
        closed = infos[i + 1][0] if i + 1 < len(infos) else math.inf
        first = commands[np.searchsorted(commands, opened):]
        if len(first) and first[0] < closed:
            runs.append(Run(namespace, len(runs), info, int(first[0]), closed))
    return runs


def find_runs_by_arrival(namespace: str, bench: BenchStreams) -> List[Run]:
    """The runs of a bag whose ``bench_info`` has no header (earlier versions). A run's commands
    are those received from a bench_info naming a trajectory (included) to the next bench_info
    (excluded); it lasts from the stamp of its first command to that of the next command outside
    it (the release), or to the next bench_info, whichever comes first, the next bench_info's bag
    time brought onto the stamps' clock by the offset of the run's last command (bag time minus
    stamp). A busy recorder that received a run's last commands after the closing bench_info
    cuts the run short there: stamped ``bench_info`` (:func:`find_runs`) has no such limit."""
    infos = sorted(((received, info) for _, received, info in bench.infos), key=lambda item: item[0])
    commands = list(zip(bench.commands.time, bench.commands.received))
    runs: List[Run] = []
    for i, (t, info) in enumerate(infos):
        if not info.trajectory:
            continue
        end = infos[i + 1][0] if i + 1 < len(infos) else math.inf
        inside = [(stamp, received) for stamp, received in commands if t <= received < end]
        if inside:
            last_stamp, last_received = max(inside, key=lambda item: item[1])
            stamps = [stamp for stamp, _ in inside]
            after = [stamp for stamp, received in commands if received >= end and stamp > max(stamps)]
            ends = min(after, default=math.inf), last_stamp + (end - last_received)
            runs.append(Run(namespace, len(runs), info, min(stamps), min(ends)))
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
        commands_held=True,  # the bench loop sends each cycle's command after its sample
        source=f"{name}.json",
    )


def streams_logs(streams: Mapping[str, BenchStreams], name: str, namespace: Optional[str] = None) -> List[Log]:
    """Raw logs of every run and joint of some bench streams (of one namespace, e.g. ``"/real"``,
    if given); ``name`` prefixes the log names."""
    logs = []
    for ns, bench in sorted(streams.items()):
        if namespace is not None and ns != namespace.rstrip("/"):
            continue
        joints = sorted({j for names in bench.states.names for j in names})
        for run in find_runs(ns, bench):
            logs += [log for joint in joints if (log := run_log(run, bench, joint, name)) is not None]
    return logs


def bag_logs(bag: Path, namespace: Optional[str] = None) -> List[Log]:
    """Raw logs of every run and joint of a bag (of one namespace, e.g. ``"/real"``, if given)."""
    return streams_logs(read_streams(Path(bag)), Path(bag).name, namespace)


def write_logs(logs: Sequence[Log], out_dir: Path, dt: Optional[float] = DEFAULT_DT,
               overwrite: bool = False) -> List[Path]:
    """Write logs into ``out_dir`` under their source names, resampled at ``dt`` [s] (None: raw);
    unless ``overwrite``, existing logs of the same names are an
    :class:`~actuator_models.outputs.OutputExistsError` and nothing is written."""
    refuse_existing((Path(out_dir) / log.source for log in logs), overwrite)
    paths = []
    for log in logs:
        sparse = processing_warning(log.timestamp, dt, log.source) if dt else None
        if sparse:  # a loop that skipped cycles (a host too slow for its time scale): the gaps are invented
            warnings.warn(sparse, OddLogWarning, stacklevel=2)
        path = Path(out_dir) / log.source
        write_log(resample(log, dt) if dt else log, path)
        paths.append(path)
    return paths


def convert(bag: Path, out_dir: Path, dt: Optional[float] = DEFAULT_DT, namespace: Optional[str] = None,
            overwrite: bool = True) -> List[Path]:
    """Write the logs of a bag into ``out_dir``, resampled at ``dt`` [s] (None: raw logs);
    with ``overwrite`` False, existing logs of the same names are an
    :class:`~actuator_models.outputs.OutputExistsError` and nothing is written. A ``bag`` that
    is not a bag (a JSON log given by mistake...) is a ValueError naming it."""
    if Path(bag).suffix == ".json":  # issue 34: rosbags' AnyReaderError escaped as a traceback
        raise ValueError(f"{bag}: a JSON log, not a bag (a bag is a folder holding metadata.yaml, as "
                         "'ros2 bag record' writes); JSON logs need no conversion")
    logs = bag_logs(bag, namespace)
    if not logs:
        raise ValueError(f"{bag}: no trajectory run found (needs bench_info, commands and joint_states topics)")
    return write_logs(logs, out_dir, dt, overwrite)


def is_bag(path: Path) -> bool:
    """Whether ``path`` is a rosbag2 folder (it holds ``metadata.yaml``)."""
    return (Path(path) / "metadata.yaml").is_file()

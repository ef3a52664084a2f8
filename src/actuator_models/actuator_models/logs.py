"""Bench logs in the published (BAM) JSON format: read, check, write (:mod:`.resampling`
turns raw logs into processed ones).

A log is ``{"mass", "arm_mass" (or "arm-mass"), "length", "kp", "vin", "motor", "trajectory",
"dt" (processed logs only), "recording" (optional: what happened while recording, see
:mod:`.recording_quality`), "commands_held" (optional, ``true`` for a log whose goal and torque
enable were in force from each entry until the next: this project's bench loop, see
:mod:`.resampling`), "entries": [{"timestamp", "position", "speed", "goal_position",
"torque_enable", ...optional "load", "input_volts", "temp", "control"}]}``.
Units: kg, m, V, s, rad, rad/s. Raw logs have irregular timestamps;
:func:`~.resampling.resample` turns them into processed logs at a fixed ``dt``.

Every problem is reported as one :class:`LogError` line naming the file, the entry index and
the field.
"""

from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from .log_checks import OddLogWarning, check_log
from .recording_quality import RecordingQuality

#: Entry fields every log must have (``timestamp`` may be absent in processed logs).
REQUIRED_FIELDS = ("position", "speed", "goal_position", "torque_enable")
#: Optional numeric entry fields carried through processing.
OPTIONAL_FIELDS = ("load", "input_volts", "temp", "control")
#: Header fields: name -> required.
HEADER_FIELDS = {"mass": True, "length": True, "kp": True, "vin": False, "motor": False, "trajectory": False}
#: Physical range of the numeric header fields: name -> (lowest value, whether it is allowed).
HEADER_RANGES = {
    "mass": (0.0, False),
    "length": (0.0, False),
    "kp": (0.0, True),
    "vin": (0.0, False),
    "arm_mass": (0.0, True),
    "arm-mass": (0.0, True),
}


def check_range(name: str, value: float, where: str) -> float:
    """``value`` if it is in :data:`HEADER_RANGES`'s range for ``name``, else :class:`LogError`."""
    low, inclusive = HEADER_RANGES[name]
    if value < low or (value == low and not inclusive):
        raise LogError(f"{where}: {value!r} is not physical, expected {'>=' if inclusive else '>'} {low:g}")
    return value


#: Resampling period of processed logs [s] (that of the published logs): the one default of
#: ``process --dt``, ``simulate --dt``, ``bag2json --dt``, the demo and the ROS fit job.
PROCESSED_DT = 0.005


class LogError(ValueError):
    """A malformed log. The message is one line: ``file: entry N: field 'x': problem``."""


@dataclass
class Log:
    """One bench log, entries stored column-wise as numpy arrays.

    Attributes:
        mass: pendulum mass [kg]. arm_mass: mass of the arm itself [kg]. length: pendulum
        length [m]. kp: firmware proportional gain. vin: supply voltage [V] (None if unknown).
        motor: actuator name. trajectory: trajectory name. dt: sample period [s] for processed
        logs, None for raw logs. timestamp [s], position [rad], speed [rad/s], goal_position
        [rad], torque_enable (bool): one value per entry. extra: optional entry columns
        (load, input_volts [V], temp [degC], control). recording: the recording's measured
        quality (:meth:`RecordingQuality.to_dict`; empty if unknown). commands_held: each entry's
        goal and torque enable were in force until the next entry (the bench loop that wrote it
        sent each right after its sample); :func:`~.resampling.resample` then holds them. source:
        where it was read from.
    """

    mass: float
    length: float
    kp: float
    timestamp: np.ndarray
    position: np.ndarray
    speed: np.ndarray
    goal_position: np.ndarray
    torque_enable: np.ndarray
    arm_mass: float = 0.0
    vin: Optional[float] = None
    motor: str = ""
    trajectory: str = ""
    dt: Optional[float] = None
    extra: Dict[str, np.ndarray] = field(default_factory=dict)
    recording: Dict[str, float] = field(default_factory=dict)
    commands_held: bool = False
    source: str = "<memory>"

    def __len__(self) -> int:
        return len(self.position)

    @property
    def period(self) -> float:
        """The sample period ``dt`` [s] of a processed log; a :class:`LogError` for a raw log."""
        if self.dt is None:
            raise LogError(f"{self.source}: raw log (no 'dt'); process it first")
        return self.dt

    @property
    def duration(self) -> float:
        """Time span of the entries [s]."""
        return float(self.timestamp[-1] - self.timestamp[0]) if len(self) else 0.0

    def to_dict(self) -> Dict[str, object]:
        """The published JSON structure."""
        header: Dict[str, object] = {
            "mass": self.mass,
            "arm_mass": self.arm_mass,
            "length": self.length,
            "kp": self.kp,
            "motor": self.motor,
            "trajectory": self.trajectory,
        }
        if self.vin is not None:
            header["vin"] = self.vin
        if self.dt is not None:
            header["dt"] = self.dt
        if self.recording:
            header["recording"] = dict(self.recording)
        if self.commands_held:
            header["commands_held"] = True
        columns = {
            "timestamp": self.timestamp,
            "position": self.position,
            "speed": self.speed,
            "goal_position": self.goal_position,
            **self.extra,
        }
        entries = [
            {**{k: float(v[i]) for k, v in columns.items()}, "torque_enable": bool(self.torque_enable[i])}
            for i in range(len(self))
        ]
        return {**header, "entries": entries}


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise LogError(f"{where}: expected a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(value):
        raise LogError(f"{where}: value is {value}, expected a finite number")
    return float(value)


def _fast_columns(entries: List[object], fields: Sequence[str], timestamp: bool) -> Optional[Dict[str, np.ndarray]]:
    """The columns of entries that are all well formed (objects with every field in ``fields``,
    finite numbers), with the :data:`OPTIONAL_FIELDS` (and ``timestamp`` if asked) that every
    entry has; None as soon as anything is not so: :func:`_checked_columns` then names it. A
    whole column at a time (a 12-log fit read its logs entry by entry in 0.1 s)."""
    if set(map(type, entries)) != {dict}:
        return None
    raw: Dict[str, list] = {}
    for name in (*fields, *OPTIONAL_FIELDS, *(("timestamp",) if timestamp else ())):
        try:
            raw[name] = [e[name] for e in entries]  # type: ignore[index]
        except KeyError:
            if name in fields:
                return None
    columns = {}
    for name, values in raw.items():
        if not set(map(type, values)) <= ({bool, int, float} if name == "torque_enable" else {int, float}):
            return None
        try:
            columns[name] = np.array(values, dtype=float)
        except OverflowError:
            return None
        if not np.all(np.isfinite(columns[name])):
            return None
    return columns


def _checked_columns(entries: List[object], fields: Sequence[str], needs_time: bool, source: str) -> Dict[str, np.ndarray]:
    """The columns of ``entries``, checked entry by entry: a :class:`LogError` names the first
    entry and field that is not a finite number (``torque_enable``: a boolean)."""
    optional = [k for k in OPTIONAL_FIELDS if all(isinstance(e, Mapping) and k in e for e in entries)]
    columns: Dict[str, List[float]] = {k: [] for k in (*fields, *optional)}
    for index, entry in enumerate(entries):
        where = f"{source}: entry {index}"
        if not isinstance(entry, Mapping):
            raise LogError(f"{where}: expected an object, got {type(entry).__name__}")
        if not entry:
            raise LogError(f"{where}: entry is empty")
        for name in fields:
            if name not in entry:
                raise LogError(f"{where}: field {name!r}: missing")
            value = entry[name]
            if name == "torque_enable":
                if not isinstance(value, (bool, int, float)) or (
                    isinstance(value, float) and not math.isfinite(value)
                ):
                    raise LogError(f"{where}: field 'torque_enable': expected a boolean, got {value!r}")
                columns[name].append(float(value))
            else:
                columns[name].append(_number(value, f"{where}: field {name!r}"))
        for name in optional:
            columns[name].append(_number(entry[name], f"{where}: field {name!r}"))
    if not needs_time and all(isinstance(e, Mapping) and "timestamp" in e for e in entries):
        columns["timestamp"] = [_number(e["timestamp"], f"{source}: entry {i}: field 'timestamp'")  # type: ignore[index]
                                for i, e in enumerate(entries)]
    return {name: np.asarray(values, dtype=float) for name, values in columns.items()}


def log_from_dict(data: object, source: str = "<dict>") -> Log:
    """Check and convert a decoded JSON log. Raises :class:`LogError` naming the problem."""
    if not isinstance(data, Mapping):
        raise LogError(f"{source}: expected a JSON object at top level, got {type(data).__name__}")
    numbers: Dict[str, float] = {}
    texts: Dict[str, str] = {}
    for name, required in HEADER_FIELDS.items():
        if name not in data:
            if required:
                raise LogError(f"{source}: field {name!r}: missing")
            continue
        if name in ("motor", "trajectory"):
            text = data[name]
            if not isinstance(text, str):
                raise LogError(f"{source}: field {name!r}: expected a string, got {text!r}")
            texts[name] = text
        else:
            where = f"{source}: field {name!r}"
            numbers[name] = check_range(name, _number(data[name], where), where)
    arm_key = "arm_mass" if "arm_mass" in data else "arm-mass"
    arm_where = f"{source}: field {arm_key!r}"
    arm_mass = check_range(arm_key, _number(data[arm_key], arm_where), arm_where) if arm_key in data else 0.0
    dt = _number(data["dt"], f"{source}: field 'dt'") if "dt" in data else None
    if dt is not None and dt <= 0:
        raise LogError(f"{source}: field 'dt': {dt} is not positive")
    recording = {}
    if "recording" in data:
        if not isinstance(data["recording"], Mapping):
            raise LogError(f"{source}: field 'recording': expected an object, got {data['recording']!r}")
        try:
            recording = RecordingQuality.from_dict(data["recording"]).to_dict()
        except ValueError as error:
            raise LogError(f"{source}: {error}") from None
    commands_held = data.get("commands_held", False)
    if not isinstance(commands_held, bool):
        raise LogError(f"{source}: field 'commands_held': expected true or false, got {commands_held!r}")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise LogError(f"{source}: field 'entries': missing or not a list")
    if not entries:
        raise LogError(f"{source}: field 'entries': the log has no entries")
    needs_time = dt is None
    fields = REQUIRED_FIELDS + (("timestamp",) if needs_time else ())
    columns = _fast_columns(entries, fields, not needs_time) or _checked_columns(entries, fields, needs_time, source)
    if dt is None:
        timestamp = columns.pop("timestamp")  # a required field of a log without dt
        if not np.all(np.diff(timestamp) > 0):
            index = int(np.argmin(np.diff(timestamp) > 0)) + 1
            raise LogError(
                f"{source}: entry {index}: field 'timestamp': {float(timestamp[index])} does not increase "
                f"(previous {float(timestamp[index - 1])})"
            )
    else:
        timestamp = columns.pop("timestamp") if "timestamp" in columns else np.arange(len(entries)) * dt
    return Log(
        mass=numbers["mass"],
        length=numbers["length"],
        kp=numbers["kp"],
        vin=numbers.get("vin"),
        motor=texts.get("motor", ""),
        trajectory=texts.get("trajectory", ""),
        arm_mass=arm_mass,
        dt=dt,
        timestamp=timestamp,
        position=columns.pop("position"),
        speed=columns.pop("speed"),
        goal_position=columns.pop("goal_position"),
        torque_enable=columns.pop("torque_enable") > 0.5,
        extra=columns,
        recording=recording,
        commands_held=commands_held,
        source=source,
    )


#: The ``--allow-odd-logs`` option's help, the same in every command that reads logs.
ALLOW_ODD_LOGS_HELP = ("use logs that fail the plausibility checks (positions in degrees, dt in ms, a length in cm, "
                       "two samples...; an error otherwise) and only warn")
#: The ``--allow-mismatch`` option's help, the same in every command that checks a log's motor
#: against a model (:func:`check_motor`).
ALLOW_MISMATCH_HELP = "use logs recorded on another motor than the params' actuator (an error otherwise)"
#: How a refusal of an implausible log says to proceed anyway, from the shell and from Python.
ALLOW_ODD_HINT = "pass --allow-odd-logs (Python: read_log(s)(..., allow_odd=True)) to use it anyway"


Notes = Optional[Callable[[str], None]]


def check_plausible(log: Log, allow_odd: bool = False, notes: Notes = None) -> Log:
    """``log`` after its physical plausibility checks (:mod:`.log_checks`): a fatal finding
    raises :class:`LogError` (unless ``allow_odd``: then it is a warning), every other one is an
    :class:`~.log_checks.OddLogWarning` (a command prints it as one ``warning:`` line), or is
    passed to ``notes`` if given (a server collecting its warnings)."""
    for finding in check_log(log):
        if finding.fatal and not allow_odd:
            raise LogError(f"{finding.line()}; {ALLOW_ODD_HINT}")
        if notes is not None:
            notes(finding.line())
        else:
            warnings.warn(finding.line(), OddLogWarning, stacklevel=4)
    return log


def read_log(path: Union[str, Path], allow_odd: bool = False, notes: Notes = None) -> Log:
    """Read a raw or processed JSON log and check that a bench could have recorded it
    (:func:`check_plausible`). Raises :class:`LogError` naming file, entry and field."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as error:
        raise LogError(f"{path}: cannot read ({error.strerror})") from None
    except UnicodeDecodeError as error:  # found by tests/test_fuzz_readers.py
        raise LogError(f"{path}: not a text (UTF-8) file: byte {error.start} is {error.object[error.start]:#04x}") from None
    try:
        data = json.loads(text, parse_constant=lambda name: float(name))
    except json.JSONDecodeError as error:
        raise LogError(f"{path}: not valid JSON (line {error.lineno}: {error.msg})") from None
    return check_plausible(log_from_dict(data, str(path)), allow_odd, notes)


def log_files(directory: Union[str, Path]) -> List[Path]:
    """The ``*.json`` files of a folder, sorted by name."""
    directory = Path(directory)
    if not directory.is_dir():
        raise LogError(f"{directory}: not a folder of logs")
    files = sorted(directory.glob("*.json"))
    if not files:
        raise LogError(f"{directory}: no *.json logs in this folder")
    return files


def read_logs(directory: Union[str, Path], allow_odd: bool = False, notes: Notes = None) -> List[Log]:
    """Read (and check, see :func:`read_log`) every ``*.json`` log of a folder, sorted by file name."""
    return [read_log(path, allow_odd, notes) for path in log_files(directory)]


def require_processed(logs: Sequence[Log], folder: Union[str, Path]) -> List[Log]:
    """``logs`` if every one is processed (has a ``dt``); else a :class:`LogError` naming the
    first raw one and the command that processes the ``folder`` they came from."""
    for log in logs:
        if log.dt is None:
            raise LogError(f"{log.source}: raw log (no 'dt'); process it first: "
                           f"actuator-models process --logs {folder} --out PROCESSED_DIR")
    return list(logs)


def write_log(log: Log, path: Union[str, Path]) -> None:
    """Write a log in the published JSON format."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(log.to_dict()))


def motor_mismatches(logs: Sequence[Log], actuator_name: str) -> List[Log]:
    """Logs whose ``motor`` names another actuator than ``actuator_name`` (case-insensitive;
    a log without ``motor`` matches any actuator)."""
    return [log for log in logs if log.motor and log.motor.lower() != actuator_name.lower()]


def check_motor(logs: Sequence[Log], actuator_name: str, what: str, allow_mismatch: bool = False) -> List[Log]:
    """Raise :class:`LogError` when a log was recorded on another motor than ``actuator_name``
    (``what`` says where that name comes from, e.g. ``"params xl330/m6"``), unless
    ``allow_mismatch``; returns the mismatching logs either way."""
    wrong = motor_mismatches(logs, actuator_name)
    if wrong and not allow_mismatch:
        first = wrong[0]
        more = f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
        raise LogError(
            f"{first.source}: field 'motor' is {first.motor!r}, not {actuator_name!r} ({what}){more}; "
            "pass --allow-mismatch to use these logs anyway"
        )
    return wrong


def split_names(logs: Sequence[Log]) -> List[str]:
    """Short names of logs (file names) for tables."""
    return [Path(log.source).name for log in logs]

"""Physical plausibility of a bench log: the unit and size mistakes a person makes.

A log can be well formed (every field a finite number, see :mod:`.logs`) and still not come
from a pendulum bench: positions in degrees, a ``dt`` in milliseconds, a length in centimetres,
two samples of a 6 s trajectory, time running backwards. Simulating or fitting such a log gives
confident nonsense, so every log a command reads is checked here first.

:func:`check_log` is a pure function of a :class:`~.logs.Log` returning :class:`Finding` s: a
fatal one cannot come from a real bench (the command refuses, naming file, field and the likely
mistake), a warning can (a real bench could produce it, the command goes on and says so).
:func:`check_dt` checks a time step given on the command line the same way.

The ranges are those of a bench, not of one recording: a servo pendulum turns less than a
turn either way of its zero (|position| <= 2 pi rad), is sampled every 0.1 ms to 50 ms, carries
at most tens of kg at a length of at most a couple of metres.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, List, Optional

import numpy as np

from .exit_codes import InputWarning
from .parameters import temperature_problem
from .trajectories import TRAJECTORIES

if TYPE_CHECKING:  # pragma: no cover - annotations only (logs.py imports this module)
    from .logs import Log

#: The largest |position| or |goal_position| of a bench [rad]: one turn either way of zero.
MAX_POSITION = 2 * math.pi
#: Above this [rad], a position is beyond a turn by more than any wrap-around: degrees or ticks.
DEGREES_LIMIT = 400.0
#: A time step [s] below which a bench cannot sample, and above which it is a warning / an error.
MIN_DT, WARN_DT, MAX_DT = 1e-4, 0.05, 0.2
#: Fewest samples a log can be simulated or identified from.
MIN_SAMPLES = 20
#: A log covering less than this fraction of the trajectory it names is truncated (a warning: a
#: recording stopped by a fault keeps its partial log; too few samples at all is the error).
WARN_COVERAGE = 0.9
#: Bench scale: mass [kg] and length [m] (warning above the first, error above the second).
MASS_RANGE = (20.0, 100.0)
LENGTH_RANGE = (1.5, 5.0)
#: The logged speed against the position's derivative (least-squares slope): a warning outside
#: the first range, an error outside the second (real XL330 logs: 0.87-0.98).
SPEED_WARN, SPEED_ERROR = (0.5, 2.0), (0.1, 10.0)
DEGREES_PER_RADIAN = 180 / math.pi


class OddLogWarning(InputWarning):
    """A log a real bench could produce but that looks odd (a non-fatal :class:`Finding`)."""


@dataclass(frozen=True)
class Finding:
    """One implausible property of a log.

    Attributes:
        source: the log's file. field: the field at fault (``"position"``, ``"dt"``...).
        problem: what is wrong and the likely mistake, one line. fatal: True when no real bench
        produces it (an error), False when one could (a warning).
    """

    source: str
    field: str
    problem: str
    fatal: bool

    def line(self) -> str:
        """``file: field 'x': problem`` - the message a command prints."""
        return f"{self.source}: field {self.field!r}: {self.problem}"


def _factor_hint(ratio: float, larger: str, smaller: str) -> str:
    """The unit mistake a scale ``ratio`` (``larger`` / ``smaller``, as logged) most likely is."""
    for factor, unit in ((DEGREES_PER_RADIAN, "degrees"), (1000.0, "milli-units (ms, mrad)"), (100.0, "centimetres")):
        for value, culprit in ((factor, larger), (1 / factor, smaller)):
            if ratio > 0 and abs(math.log(ratio / value)) < math.log(1.3):
                return f"; {culprit} looks like {unit}"
    return ""


def check_dt(dt: float, source: str, field: str = "dt") -> Optional[Finding]:
    """A finding for a sample period ``dt`` [s] outside a bench's range, else None."""
    if not (math.isfinite(dt) and dt > 0):
        return Finding(source, field, f"{dt:g} is not a positive time step in seconds (e.g. 0.005)", True)
    if dt > MAX_DT:
        hint = f"; looks like milliseconds ({dt:g} ms = {dt / 1000:g} s)" if dt >= 0.5 else ""
        return Finding(source, field, f"{dt:g} s is not a bench's sample period "
                                      f"({MIN_DT:g} to {WARN_DT:g} s){hint}", True)
    if dt < MIN_DT:
        return Finding(source, field, f"{dt:g} s is below any bench's sample period ({MIN_DT:g} s)", True)
    if dt > WARN_DT:
        return Finding(source, field, f"{dt:g} s is a coarse sample period (a bench samples every "
                                      f"{MIN_DT:g} to {WARN_DT:g} s)", False)
    return None


def check_dt_option(dt: float, option: str = "--dt", allow_odd: bool = False) -> None:
    """A resampling period ``dt`` [s] given as ``option`` outside a bench's range: a ValueError
    naming ``option`` (a warning if odd but possible, or if ``allow_odd`` and positive)."""
    finding = check_dt(dt, option)
    if finding and finding.fatal and not (allow_odd and dt > 0):
        raise ValueError(f"{option} {finding.problem}")
    if finding:
        warnings.warn(f"{option} {finding.problem}", OddLogWarning, stacklevel=2)


def check_header(log: "Log") -> List[Finding]:
    """Mass, arm mass and length within a bench's scale."""
    findings = []
    for name, value, (warn, error), hint in (
        ("mass", log.mass, MASS_RANGE, "grams"),
        ("arm_mass", log.arm_mass, MASS_RANGE, "grams"),
        ("length", log.length, LENGTH_RANGE, "centimetres" if log.length <= 500 else "millimetres"),
    ):
        unit = "kg" if "mass" in name else "m"
        if value > error:
            findings.append(Finding(log.source, name, f"{value:g} {unit} is beyond a bench's scale "
                                                      f"(at most {error:g} {unit}); looks like {hint}", True))
        elif value > warn:
            findings.append(Finding(log.source, name, f"{value:g} {unit} is large for a servo bench "
                                                      f"(above {warn:g} {unit})", False))
    return findings


def check_time(log: "Log") -> List[Finding]:
    """Timestamps increasing, a sane sample period, enough samples for the named trajectory."""
    findings = []
    steps = np.diff(log.timestamp)
    if len(log) < 2:
        return [Finding(log.source, "entries", f"{len(log)} sample: nothing to simulate or identify", True)]
    if not np.all(steps > 0):
        index = int(np.argmin(steps > 0)) + 1
        reverse = " (time runs backwards: reversed log?)" if np.all(steps < 0) else ""
        return [Finding(log.source, "timestamp", f"entry {index}: {log.timestamp[index]:g} does not increase "
                                                 f"(previous {log.timestamp[index - 1]:g}){reverse}", True)]
    step = float(log.dt) if log.dt is not None else float(np.median(steps))
    finding = check_dt(step, log.source, "dt" if log.dt is not None else "timestamp")
    if finding:
        return [finding if log.dt is not None else replace(finding, problem=f"median step {finding.problem}")]
    if log.dt is not None and not np.allclose(steps, log.dt, rtol=0.01, atol=0):
        median = float(np.median(steps))
        findings.append(Finding(log.source, "timestamp", f"steps of {median:g} s, but 'dt' is {log.dt:g} s"
                                + _factor_hint(median / log.dt, "the timestamp", "'dt'"), not 0.5 < median / log.dt < 2))
    if len(log) < MIN_SAMPLES:
        findings.append(Finding(log.source, "entries", f"only {len(log)} samples ({log.duration:g} s): too few "
                                                       f"to simulate or identify (at least {MIN_SAMPLES})", True))
    elif log.trajectory in TRAJECTORIES:
        expected = TRAJECTORIES[log.trajectory].duration
        coverage = log.duration / expected
        if coverage < WARN_COVERAGE:
            findings.append(Finding(log.source, "entries", f"{len(log)} samples cover {log.duration:g} s of the "
                                                           f"{expected:g} s trajectory {log.trajectory!r}: truncated log?",
                                    False))  # a recording stopped early (a fault) keeps such a log
    return findings


def check_positions(log: "Log") -> List[Finding]:
    """Positions and goals within a turn of zero [rad]; the speed matching the position's slope."""
    findings = []
    for name, values in (("position", log.position), ("goal_position", log.goal_position)):
        largest = float(np.max(np.abs(values)))
        if largest > MAX_POSITION:
            hint = "degrees" if largest <= DEGREES_LIMIT else "encoder ticks or another unit"
            findings.append(Finding(log.source, name, f"|{name}| reaches {largest:g}, beyond a bench's range "
                                                      f"({MAX_POSITION:.3g} rad); looks like {hint}", True))
    if findings or len(log) < 3:
        return findings
    derivative = np.gradient(log.position, log.timestamp)
    power = float(np.dot(derivative, derivative))
    if power <= 0 or not math.isfinite(power):
        return findings
    slope = float(np.dot(log.speed, derivative)) / power
    low, high = SPEED_WARN
    if not low <= slope <= high:
        fatal = not SPEED_ERROR[0] <= slope <= SPEED_ERROR[1]
        hint = _factor_hint(slope, "the speed", "the position") if slope > 0 else "; the speed has the opposite sign"
        findings.append(Finding(log.source, "speed", f"is {slope:.3g} x the position's derivative "
                                                     f"(a bench logs about 1x){hint}", fatal))
    return findings


def check_temperature(log: "Log") -> List[Finding]:
    """The ``temp`` column [degC], where logged, within the temperatures a servo can be at (a
    fit fixes ``thermal``'s ambient and start from it, a simulation starts from its first reading)."""
    temp = log.extra.get("temp")
    if temp is None or not len(temp):
        return []
    for index in (int(np.argmin(temp)), int(np.argmax(temp))):
        problem = temperature_problem(float(temp[index]))
        if problem:
            return [Finding(log.source, "temp", f"entry {index}: {float(temp[index]):g}: {problem}", True)]
    return []


def check_log(log: "Log") -> List[Finding]:
    """Every plausibility finding of ``log``: header, time, positions and speeds, temperature."""
    time = check_time(log)
    if any(f.fatal for f in time):
        return check_header(log) + time
    return check_header(log) + time + check_positions(log) + check_temperature(log)

"""Bench recording (ROS-free): play an identification trajectory through a servo driver into a log.

:func:`record` moves the servo slowly to the trajectory's start, plays the trajectory at a
fixed control rate (goal position and torque enable from
:func:`actuator_models.trajectories.trajectory`, so ``lift_and_drop`` releases the torque at
t > 2 s), logs every cycle as a raw log entry (timestamp [s], position [rad], speed [rad/s],
goal_position [rad], torque_enable, load [fraction of full drive], input_volts [V], temp
[degC], and control [V] when the servo reports its PWM), then returns slowly to zero and releases
the torque. The log is written in the published JSON format (:func:`actuator_models.logs.write_log`).

If the servo stops answering (or the user interrupts), the entries recorded so far are written
under ``<logdir>/partial/`` (kept out of folder-wide log reads) and :class:`RecordingError`
says where.

Each cycle: compute the goal at the cycle's time (the entry's timestamp), send it, read the
servo (the next instruction on the bus, so the sample follows the goal within a packet time),
log, wait for the next tick.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from datetime import datetime
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Protocol, Union

import numpy as np
from actuator_models.logs import Log, write_log
from actuator_models.recording_quality import RecordingQuality, measure
from actuator_models.trajectories import Trajectory, cubic, trajectory as find_trajectory

from .clock import Clock
from .dynamixel_bus import ErrorCounters
from .dynamixel_driver import ServoState
from .driver_errors import CommandTimeout, DriverError, LimitError
from .dynamixel_errors import WatchdogError


class ServoDriver(Protocol):
    """What :func:`record` needs from a driver (:class:`~.dynamixel_driver.DynamixelDriver` has it)."""

    clock: Clock
    counters: ErrorCounters
    watchdog_trips: int

    @property
    def ids(self) -> List[int]: ...

    def set_kp(self, kp: float) -> None: ...

    def command(self, goals: Mapping[int, float], torque_enable: Optional[Mapping[int, bool]] = None) -> None: ...

    def read(self) -> Dict[int, ServoState]: ...

    def release(self) -> None: ...


@dataclass(frozen=True)
class Bench:
    """Bench metadata written in every log.

    Attributes:
        actuator: actuator name for the log's ``motor`` field (``mx64``, ``mx106``, ``xl330``).
        mass [kg], length [m], arm_mass [kg]: the pendulum.
        vin: supply voltage [V] for the log; None = mean measured input voltage.
    """

    actuator: str
    mass: float
    length: float
    arm_mass: float = 0.0
    vin: Optional[float] = None

    def __post_init__(self) -> None:
        for name in ("mass", "length", "arm_mass"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"bench {name} {value!r}: must be a finite number >= 0")
        if self.length <= 0:
            raise ValueError(f"bench length {self.length!r} m: must be positive")


@dataclass(frozen=True)
class Progress:
    """Progress of a recording: trajectory name, time ``t`` of ``duration`` [s], cycles, errors so far."""

    trajectory: str
    t: float
    duration: float
    cycles: int
    errors: int

    @property
    def fraction(self) -> float:
        return min(1.0, max(0.0, self.t / self.duration))


@dataclass
class Recording:
    """A finished (or partial) recording.

    Attributes:
        log: the raw log. path: where it was written (None if not written). cycles: control
        cycles logged. rate: achieved cycles per second of bench time. errors: communication
        counters accumulated during the recording. complete: the whole trajectory was played.
        quality: achieved rate, gaps, retries and errors (also in the log's ``recording`` field).
    """

    log: Log
    path: Optional[Path]
    cycles: int
    rate: float
    errors: ErrorCounters
    complete: bool
    quality: Optional[RecordingQuality] = None


class RecordingError(RuntimeError):
    """A recording stopped early; ``partial`` is what was kept (None if nothing was recorded)."""

    def __init__(self, message: str, partial: Optional[Recording]) -> None:
        super().__init__(message)
        self.partial = partial


def record(
    driver: ServoDriver,
    trajectory: Union[str, Trajectory],
    bench: Bench,
    kp: float,
    *,
    servo_id: Optional[int] = None,
    rate: float = 200.0,
    logdir: Union[str, Path, None] = None,
    name: Optional[str] = None,
    prepare_time: float = 1.5,
    settle_time: float = 0.5,
    return_time: float = 2.0,
    progress: Optional[Callable[[Progress], None]] = None,
) -> Recording:
    """Play ``trajectory`` on servo ``servo_id`` (the driver's only/first servo by default) at
    gain ``kp`` (core units: MX "P Gain", XL330 "Position P Gain"), ``rate`` cycles per second,
    and write the raw log to ``logdir`` (file name :func:`log_name` unless ``name`` is given).
    Before: ``prepare_time`` [s] to move to the start, ``settle_time`` [s] holding it; after:
    ``return_time`` [s] back to zero, then torque off.

    Raises :class:`RecordingError` (after writing the partial log) if the driver fails.
    """
    traj = find_trajectory(trajectory) if isinstance(trajectory, str) else trajectory
    if not (rate > 0 and math.isfinite(rate)):
        raise ValueError(f"rate {rate!r}: must be a positive number of cycles per second")
    servo = driver.ids[0] if servo_id is None else servo_id
    if servo not in driver.ids:
        raise ValueError(f"servo_id {servo}: not driven by this driver (IDs {driver.ids})")
    clock, before = driver.clock, _copy(driver.counters)
    recorder = _Recorder(traj.name)
    driver.set_kp(kp)
    start_goal = float(traj.goal(0.0))
    _move(driver, servo, start_goal, prepare_time, rate, hold=settle_time)
    t0 = clock.now()
    tick, next_report, trips = 0, 0.0, driver.watchdog_trips
    try:
        while True:
            if driver.watchdog_trips != trips:  # before commanding: a command would enable the torque again
                raise WatchdogError("the command watchdog released the torque: the control loop stalled "
                                    "for longer than the driver's command timeout")
            t = clock.now() - t0
            if t > traj.duration + 1e-9:  # a lockstep clock lands on the last tick give or take rounding
                break
            goal, enable = float(traj.goal(t)), bool(traj.enable(t))
            driver.command({servo: goal}, {servo: enable})
            recorder.add(t, driver.read()[servo], goal, enable)
            if progress is not None and t >= next_report:
                progress(Progress(traj.name, t, traj.duration, len(recorder), _minus(driver.counters, before).errors))
                next_report = t + 0.1
            tick += 1
            late = (clock.now() - t0) * rate - tick
            if late > 1:  # more than a period behind (a stall): resynchronise instead of bursting
                tick += int(late)
            clock.sleep_until(t0 + tick / rate)
    except (DriverError, KeyboardInterrupt) as error:
        partial = _finish(recorder, bench, kp, driver, before, logdir, name, complete=False, rate=rate)
        if isinstance(error, KeyboardInterrupt):
            raise
        if isinstance(error, (LimitError, CommandTimeout)):  # raised by the recorder side: release here
            driver.release()
        where = f"{partial.cycles} entries kept in {partial.path}" if partial and partial.path else "nothing recorded"
        raise RecordingError(
            f"{traj.name}: recording stopped at t = {recorder.last_time:.3f} s: {error}; {where}", partial
        ) from error
    result = _finish(recorder, bench, kp, driver, before, logdir, name, complete=True, rate=rate)
    if result is None:
        raise RecordingError(f"{traj.name}: no cycle recorded (duration {traj.duration} s)", None)
    try:
        _move(driver, servo, 0.0, return_time, rate)
        driver.release()
    except DriverError as error:
        raise RecordingError(f"{traj.name}: log complete in {result.path}, but the return to zero failed: {error}",
                             result) from error
    return result


def log_name(bench: Bench, trajectory: str, kp: float, when: Optional[datetime] = None) -> str:
    """File name of a log: ``<actuator>_<trajectory>_m<mass>_l<length>_kp<kp>_<date-time>.json``."""
    stamp = (when or datetime.now()).strftime("%Y-%m-%d_%Hh%Mm%S")
    return f"{bench.actuator}_{trajectory}_m{bench.mass:g}_l{bench.length:g}_kp{kp:g}_{stamp}.json"


def _move(driver: ServoDriver, servo: int, target: float, duration: float, rate: float, hold: float = 0.0) -> None:
    """Torque on, a cubic move from the present position to ``target`` [rad] in ``duration`` [s],
    then ``hold`` [s] at the target."""
    clock = driver.clock
    q0 = driver.read()[servo].position
    driver.command({servo: q0}, {servo: True})
    t0 = clock.now()
    while True:
        t = clock.now() - t0
        driver.command({servo: float(cubic(min(t, duration), 0.0, max(duration, 1e-9), q0, target))}, {servo: True})
        if t >= duration + hold:
            return
        driver.read()  # keeps the watchdog checked and the bus exercised
        clock.sleep(1.0 / rate)


class _Recorder:
    """Columns of a raw log, one entry per cycle."""

    def __init__(self, trajectory: str) -> None:
        self.trajectory = trajectory
        self.columns: Dict[str, List[float]] = {k: [] for k in (
            "timestamp", "position", "speed", "goal_position", "torque_enable", "load", "input_volts", "temp", "control")}
        self.has_current = True

    def __len__(self) -> int:
        return len(self.columns["timestamp"])

    @property
    def last_time(self) -> float:
        return self.columns["timestamp"][-1] if len(self) else 0.0

    def add(self, t: float, state: ServoState, goal: float, enable: bool) -> None:
        values = dict(timestamp=t, position=state.position, speed=state.velocity, goal_position=goal,
                      torque_enable=float(enable), load=state.load, input_volts=state.input_voltage,
                      temp=state.temperature, control=state.control)
        for key, value in values.items():
            self.columns[key].append(value)
        self.has_current = self.has_current and state.current is not None

    def log(self, bench: Bench, kp: float) -> Log:
        c = {k: np.asarray(v, dtype=float) for k, v in self.columns.items()}
        extra = {k: c[k] for k in ("load", "input_volts", "temp") if not np.isnan(c[k]).all()}  # NaN: not read
        if self.has_current:  # the servo reports its PWM: control = PWM * input voltage
            extra["control"] = c["control"]
        vin = bench.vin if bench.vin is not None else round(float(np.mean(c["input_volts"])), 2)
        return Log(
            mass=bench.mass, length=bench.length, kp=kp, arm_mass=bench.arm_mass, vin=vin,
            motor=bench.actuator, trajectory=self.trajectory,
            timestamp=c["timestamp"], position=c["position"], speed=c["speed"],
            goal_position=c["goal_position"], torque_enable=c["torque_enable"] > 0.5, extra=extra,
        )


def _finish(recorder: _Recorder, bench: Bench, kp: float, driver: ServoDriver, before: ErrorCounters,
            logdir: Union[str, Path, None], name: Optional[str], complete: bool, rate: float) -> Optional[Recording]:
    if not len(recorder):
        return None
    log = recorder.log(bench, kp)
    errors = _minus(driver.counters, before)
    quality = measure(log.timestamp, rate, errors.retries, errors.errors)
    log.recording = quality.to_dict()
    path = None
    if logdir is not None:
        folder = Path(logdir) if complete else Path(logdir) / "partial"
        path = _unique(folder / (name or log_name(bench, recorder.trajectory, kp)))
        write_log(log, path)
        log.source = str(path)
    return Recording(log, path, len(recorder), quality.achieved_rate, errors, complete, quality)


def _unique(path: Path) -> Path:
    candidate, index = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{index}{path.suffix}")
        index += 1
    return candidate


def _copy(counters: ErrorCounters) -> ErrorCounters:
    return ErrorCounters(**{f.name: getattr(counters, f.name) for f in fields(counters)})


def _minus(after: ErrorCounters, before: ErrorCounters) -> ErrorCounters:
    return ErrorCounters(**{f.name: getattr(after, f.name) - getattr(before, f.name) for f in fields(after)})

"""Recording one identification trajectory into a JSON log, without ROS (``actuator-bench record``,
``record-all`` and the demo).

The trajectory is played by the bench node's own control loop (:class:`~.loop.BenchLoop` running
the :class:`~.player.TrajectoryPlayer`) on any :class:`actuator_models.bench.Bench`, and its cycles
become the log through the sample stream that bench bags are converted from
(:class:`~.session.StreamSink`, :func:`~.bag2json.streams_logs`): a JSON recording made here and
an MCAP bag of the same cycles (``bag=``, or the bench node's topics recorded by the recorder
node) convert to the same log.

Around the run, outside the log: a slow cubic move from where the joint is to the
trajectory's start (``prepare_time`` [s]) held for ``settle_time`` [s], and after it a move back
to zero (``return_time`` [s]) and torque off.

The raw log (published JSON format, :func:`actuator_models.logs.write_log`) has one entry per
cycle: timestamp [s] from the run's first command, position [rad], speed [rad/s],
goal_position [rad] and torque_enable of the command of that cycle, and what the actuator
reports (control [V or A], input_volts [V], temp [degC]); its ``recording`` field holds the
achieved rate, gaps, retries and communication errors (:mod:`actuator_models.recording_quality`).

If the bench fails mid-run (or the user interrupts), the torque is released and the entries
recorded so far are written under ``<logdir>/partial/`` (kept out of folder-wide log reads);
:class:`RecordingError` says where. If the command watchdog released the torque (the loop
stalled), the recording stops instead of enabling the torque again.
"""

from __future__ import annotations

import logging
import math
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Union

from actuator_drivers.common import CommandTimeout, DriverError
from actuator_models.bench import Bench, Command
from actuator_models.bench_bus import BusHealth, ErrorCounters, bus_health
from actuator_models.logs import Log, write_log
from actuator_models.outputs import check_folder
from actuator_models.recording_quality import RecordingQuality, measure
from actuator_models.trajectories import TRAJECTORIES, Trajectory

from .loop import BenchLoop, Cycle, Sink
from .messages import BenchInfo
from .player import Prepare, TrajectoryPlayer, identification_schedule, move_schedule
from .session import StreamSink, bag_sink, tee

LOG = logging.getLogger(__name__)


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
        counters accumulated during the recording (zero for a bench without a bus). complete:
        the whole trajectory was played. quality: achieved rate, gaps, retries and errors (also
        in the log's ``recording`` field). bag: the MCAP bag of the same cycles, if asked.
    """

    log: Log
    path: Optional[Path]
    cycles: int
    rate: float
    errors: ErrorCounters
    complete: bool
    quality: RecordingQuality
    bag: Optional[Path] = None


class RecordingError(DriverError):
    """A recording stopped early on a bench fault; ``partial`` is what was kept (None if nothing)."""

    def __init__(self, message: str, partial: Optional[Recording]) -> None:
        super().__init__(message)
        self.partial = partial


def log_name(info: BenchInfo, trajectory: str, kp: float, when: Optional[datetime] = None) -> str:
    """File name of a log: ``<actuator>_<trajectory>_m<mass>_l<length>_kp<kp>_<date-time>.json``."""
    stamp = (when or datetime.now()).strftime("%Y-%m-%d_%Hh%Mm%S")
    return f"{info.actuator}_{trajectory}_m{info.mass:g}_l{info.length:g}_kp{kp:g}_{stamp}.json"


def check_pendulum(info: BenchInfo) -> None:
    """ValueError naming the field unless mass and arm mass [kg] are finite and >= 0 and length [m] > 0."""
    for name in ("mass", "length", "arm_mass"):
        value = getattr(info, name)
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
            raise ValueError(f"bench {name} {value!r}: must be a finite number >= 0")
    if info.length <= 0:
        raise ValueError(f"bench length {info.length!r} m: must be positive")


@dataclass(frozen=True)
class RecordSettings:
    """How :func:`record` plays a trajectory: on ``joint`` (None: the bench's first) at ``rate``
    cycles per second of bench time, after a move to its start in ``prepare_time`` [s] held for
    ``settle_time`` [s], and followed by a move back to zero in ``return_time`` [s]."""

    joint: Optional[str] = None
    rate: float = 200.0
    prepare_time: float = 1.5
    settle_time: float = 0.5
    return_time: float = 2.0


@dataclass(frozen=True)
class RecordOutput:
    """Where :func:`record` writes: the raw log into ``logdir`` (None: not written), named
    ``name`` (None: :func:`log_name`; an existing file is never replaced: ``-1``, ``-2``... are
    appended), and with ``bag`` an MCAP bag of the same cycles (a new folder)."""

    logdir: Union[str, Path, None] = None
    name: Optional[str] = None
    bag: Optional[Path] = None


def record(
    bench: Bench,
    trajectory: Union[str, Trajectory],
    info: BenchInfo,
    kp: float,
    *,
    settings: RecordSettings = RecordSettings(),
    output: RecordOutput = RecordOutput(),
    progress: Optional[Callable[[Progress], None]] = None,
) -> Recording:
    """Play identification ``trajectory`` on ``bench`` as ``settings`` say, at gain ``kp``
    (actuator units: MX "P Gain", XL330 "Position P Gain", eRob A/rad); write the raw log (and
    the bag) as ``output`` says. ``info`` describes the bench (actuator, pendulum, supply
    voltage: 0 = the mean measured one).

    Raises :class:`RecordingError` (after releasing the torque and writing the partial log) if
    the bench fails; ValueError for bad arguments, before anything moves.
    """
    joint, rate = settings.joint, settings.rate
    traj = _identification(trajectory)
    if not (rate > 0 and math.isfinite(rate)):
        raise ValueError(f"rate {rate!r}: must be a positive number of cycles per second")
    check_pendulum(info)
    check_folder(output.logdir, "logdir")  # a recording that cannot be written is refused before it moves
    joint = bench.joints[0] if joint is None else joint
    if joint not in bench.joints:
        raise ValueError(f"joint {joint!r}: not on this bench (joints {list(bench.joints)})")
    before = bus_health(bench)  # None: a bench without a bus (a simulation)
    loop = BenchLoop(bench, TrajectoryPlayer((joint,), replace(info, trajectory="")))
    stream = StreamSink()
    with _released_on_error(bench):
        _move(bench, joint, float(traj.goal(0.0)), settings.prepare_time, rate, kp, hold=settings.settle_time)
    clock = bench.clock  # the run's cycles start on a whole period of bench time: runs at one rate are in phase
    clock.sleep_until(math.ceil(clock.now() * rate - 1e-6) / rate)
    try:
        with bag_sink(output.bag) as to_bag:
            sinks: List[Sink] = [stream, to_bag] if to_bag else [stream]
            if progress is not None:
                sinks.append(_progress(progress, traj, bench, before))
            loop.run(identification_schedule(traj, 1), kp, rate, tee(*sinks), _watchdog_guard(bench))
    except (DriverError, KeyboardInterrupt) as error:
        partial = _finish(stream, bench, before, rate, output, complete=False)
        if isinstance(error, KeyboardInterrupt):
            raise
        last = partial.log.timestamp[-1] if partial else 0.0
        where = f"{partial.cycles} entries kept in {partial.path}" if partial and partial.path else "nothing written"
        raise RecordingError(f"{traj.name}: recording stopped at t = {last:.3f} s: {error}; {where}", partial) from error
    result = _finish(stream, bench, before, rate, output, complete=True)
    if result is None:
        raise RecordingError(f"{traj.name}: no cycle recorded (duration {traj.duration} s)", None)
    try:
        with _released_on_error(bench):
            _move(bench, joint, 0.0, settings.return_time, rate, kp)
        bench.release()
    except DriverError as error:
        raise RecordingError(f"{traj.name}: log complete in {result.path}, but the return to zero failed: {error}",
                             result) from error
    return result


def _identification(trajectory: Union[str, Trajectory]) -> Trajectory:
    if isinstance(trajectory, Trajectory):
        return trajectory
    if trajectory not in TRAJECTORIES:
        raise ValueError(f"unknown trajectory {trajectory!r}; expected one of {', '.join(TRAJECTORIES)}")
    return TRAJECTORIES[trajectory]


@contextmanager
def _released_on_error(bench: Bench) -> Iterator[None]:
    """Release the torque when the block fails (a fault, Ctrl-C), then let the error go on;
    a release that fails too is logged."""
    try:
        yield
    except BaseException as error:
        try:
            bench.release()
        except Exception as failed:
            LOG.error("releasing the torque failed too: %s (after: %s)", failed, error)
        raise


def _move(bench: Bench, joint: str, target: float, duration: float, rate: float, kp: float, hold: float = 0.0) -> None:
    """Torque on, a cubic move of ``joint`` from where it is to ``target`` [rad] in ``duration`` [s]
    at gain ``kp``, then ``hold`` [s] at the target (one read per cycle keeps the bus checked)."""
    clock, index = bench.clock, bench.joints.index(joint)
    move = move_schedule((bench.sample().position[index],), (target,), Prepare(duration, hold))
    t0 = clock.now()
    while True:
        t = clock.now() - t0
        goal = float(move.goal(t)[0])
        bench.apply(Command((joint,), (goal,), (True,), (float(kp),)))
        if t >= duration + hold:
            return
        bench.sample()
        clock.sleep_until(clock.now() + 1.0 / rate)


def _watchdog_guard(bench: Bench) -> Callable[[], None]:
    health = bus_health(bench)
    if health is None:
        return lambda: None

    def guard() -> None:  # before commanding: a command would enable the torque again
        now = bus_health(bench)
        if now is not None and now.watchdog_trips != health.watchdog_trips:
            raise CommandTimeout("the command watchdog released the torque: the control loop stalled "
                                "for longer than the driver's command timeout")
    return guard


def _progress(report: Callable[[Progress], None], traj: Trajectory, bench: Bench, before: Optional[BusHealth]) -> Sink:
    """A sink reporting every 0.1 s of the run."""
    start: Optional[float] = None
    due, cycles = 0.0, 0

    def sink(cycle: Cycle) -> None:
        nonlocal start, due, cycles
        if cycle.sample is None or cycle.command is None:
            return
        if start is None:
            start = cycle.time
        cycles += 1
        t = cycle.time - start
        if t >= due:
            errors = _since(bench, before).errors
            report(Progress(traj.name, t, traj.duration, cycles, errors))
            due = t + 0.1
    return sink


def _finish(stream: StreamSink, bench: Bench, before: Optional[BusHealth], rate: float, output: RecordOutput,
            complete: bool) -> Optional[Recording]:
    logs = stream.logs("run")
    if not logs:
        return None
    log = logs[0]
    errors = _since(bench, before)
    quality = measure(log.timestamp, rate, errors.retries, errors.errors)
    log.recording = quality.to_dict()
    path = None
    if output.logdir is not None:
        folder = Path(output.logdir) if complete else Path(output.logdir) / "partial"
        info = BenchInfo(log.motor, mass=log.mass, length=log.length)
        path = _unique(folder / (output.name or log_name(info, log.trajectory, log.kp)))
        write_log(log, path)
        log.source = str(path)
    return Recording(log, path, len(log), quality.achieved_rate, errors, complete, quality, output.bag)


def _unique(path: Path) -> Path:
    candidate, index = path, 1
    while candidate.exists():
        candidate = path.with_name(f"{path.stem}-{index}{path.suffix}")
        index += 1
    return candidate


def _since(bench: Bench, before: Optional[BusHealth]) -> ErrorCounters:
    """The bench's communication counters accumulated since ``before`` (zero without a bus)."""
    now = bus_health(bench)
    return now.counters - before.counters if now is not None and before is not None else ErrorCounters()

"""``actuator-bench record`` and ``record-all``: identification trajectories recorded into JSON logs
through the bench's control loop (:mod:`.recording`), on a serial bus of any installed family
(``--port``, or an in-process emulator with ``record-all --emulate``; the family of ``--actuator``
is found by registry, :mod:`actuator_drivers.serial_bus.family`) or an eRob line (``--ethercat``).

    actuator-bench record --port /dev/ttyUSB0 --actuator mx64 --trajectory sin_sin --mass 1 --length 0.15 --kp 32 --out logs
    actuator-bench record-all --emulate mx64/m6 --actuator mx64 --out logs --unattended --lockstep

The driver options (bus, servo, faults) are those of :mod:`actuator_drivers.cli`; an open driver
becomes a bench with its family's bench class (``SerialFamily.bench_class().of``) or
``ErobBench.of`` (:mod:`actuator_drivers.erob.bench`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence, TextIO

from actuator_drivers import erob_cli
from actuator_drivers.cli import (
    Command, add_bus_options, add_fault_options, add_servo_options, open_driver, positive,
)
from actuator_models.bench import WallClock
from actuator_drivers.common import UsageError
from actuator_drivers.erob.bench import ErobBench
from actuator_drivers.erob.drive import ErobDriver
from actuator_drivers.serial_bus.family import family_of
from actuator_drivers.serial_bus_emulator.faults import Faults
from actuator_models.outputs import refuse_existing
from actuator_models.trajectories import TRAJECTORIES

from .kept_logs import saying_kept_logs
from .messages import BenchInfo
from .record_grid import Grid, default_grid, parse_values, prompt_bench, record_all, split_names
from .recording import Progress, Recording, record


class ProgressLine:
    """One status line per recording on a terminal stream."""

    def __init__(self, stream: Optional[TextIO] = None) -> None:
        self._stream = stream

    @property
    def stream(self) -> TextIO:
        return self._stream or sys.stderr

    def __call__(self, p: Progress) -> None:
        bar = "#" * int(20 * p.fraction)
        self.stream.write(f"\r{p.trajectory:16s} [{bar:20s}] {p.t:5.2f}/{p.duration:.1f} s  errors {p.errors}")
        self.stream.flush()

    def done(self, recording: Recording) -> None:
        self.stream.write("\r" + " " * 70 + "\r")
        self.stream.write(_summary(recording) + "\n")
        self.stream.flush()


def _summary(r: Recording) -> str:
    e = r.errors
    return (f"{r.log.trajectory:16s} kp {r.log.kp:g}  m {r.log.mass:g} kg  l {r.log.length:g} m: {r.cycles} cycles, "
            f"{r.quality.summary()} (timeouts {e.timeouts}, corrupt {e.corrupt}) -> {r.path}")


def _configure_record(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", help="serial device or emulator pty")
    source.add_argument("--ethercat", metavar="IFACE", help="EtherCAT interface of an eRob (hardware or emulator)")
    add_servo_options(p)
    add_bus_options(p)
    erob_cli.add_driver_options(p)
    p.add_argument("--trajectory", required=True, choices=tuple(TRAJECTORIES),
                   help="identification trajectory (paper section V-A, 6 s each): " + ", ".join(TRAJECTORIES))
    p.add_argument("--mass", type=positive, required=True, help="pendulum mass, kg")
    p.add_argument("--length", type=positive, required=True, help="pendulum length, m")
    p.add_argument("--kp", type=float, required=True, help="firmware P gain (MX: 'P Gain' value; XL330: 'Position P Gain')")
    p.add_argument("--bag", type=Path, help="also write an MCAP bag of the same cycles (a new folder)")


def _serial_bench(actuator: str) -> type:
    """The bench class of a serial-bus actuator's family (found by registry)."""
    return family_of(actuator).bench_class()


def _run_record(args: argparse.Namespace) -> int:
    line = ProgressLine()
    _check_source(args, args.ethercat)
    opened = (erob_cli.erob_driver(args, args.ethercat, args.stepped) if args.ethercat
              else open_driver(args, args.port, WallClock(args.time_scale)))
    info = BenchInfo(args.actuator, mass=args.mass, length=args.length, arm_mass=args.arm_mass, vin=args.vin or 0.0)
    if args.bag is not None:
        refuse_existing([args.bag], False)
    with opened as driver:
        bench = (ErobBench if args.ethercat else _serial_bench(args.actuator)).of(driver, args.actuator)
        recording = record(bench, args.trajectory, info, args.kp, rate=args.rate,
                           logdir=args.logdir, bag=args.bag, progress=line)
    line.done(recording)
    return 0


# ---------------------------------------------------------------------- record-all
def _configure_record_all(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", help="serial device or external emulator pty")
    source.add_argument("--emulate", metavar="P",
                        help="run an in-process emulator driven by params P (a params JSON or a published model such as "
                             "mx64/m6; for eRob a veth pair and an emulator process, root needed)")
    source.add_argument("--ethercat", metavar="IFACE", help="EtherCAT interface of an eRob (hardware or emulator)")
    add_servo_options(p)
    add_bus_options(p)
    erob_cli.add_driver_options(p)
    p.add_argument("--masses", help="comma-separated masses, kg [Table I]")
    p.add_argument("--lengths", help="comma-separated lengths, m [Table I]")
    p.add_argument("--kps", help="comma-separated gains [Table I]")
    p.add_argument("--trajectories", help="comma-separated trajectory names [all four]")
    p.add_argument("--unattended", action="store_true",
                   help="do not prompt between groups (the in-process emulator changes its own load)")
    p.add_argument("--lockstep", action="store_true",
                   help="with --emulate: the emulator's shaft advances with the driver's cycle instead of the wall "
                        "clock (deterministic recordings, as fast as the host allows; --time-scale is ignored)")
    add_fault_options(p)


def _grid(args: argparse.Namespace) -> Grid:
    base = default_grid(args.actuator)
    return Grid(
        parse_values(args.masses, "--masses") if args.masses else base.masses,
        parse_values(args.lengths, "--lengths") if args.lengths else base.lengths,
        parse_values(args.kps, "--kps") if args.kps else base.kps,
        split_names(args.trajectories) if args.trajectories else base.trajectories,
    )


def _check_source(args: argparse.Namespace, ethercat: Optional[str]) -> None:
    if erob_cli.is_erob(args.actuator) and args.port:
        raise UsageError(f"--actuator {args.actuator}: an eRob is reached with --ethercat IFACE (or --emulate), not --port")
    if ethercat and not erob_cli.is_erob(args.actuator):
        raise UsageError(f"--ethercat: --actuator {args.actuator} is a {family_of(args.actuator).title}; use --port")


@saying_kept_logs("record-all")
def _run_record_all(args: argparse.Namespace) -> int:
    grid = _grid(args)
    if args.lockstep and not args.emulate:
        raise ValueError("--lockstep needs --emulate MODEL: only an in-process emulator can share the driver's clock")
    line = ProgressLine()
    emulator = None
    _check_source(args, args.ethercat)
    if erob_cli.is_erob(args.actuator):
        return _run_record_all_erob(args, grid, line)
    if args.emulate:
        mass, length = grid.groups()[0]
        options = dict(servo_id=args.id, vin=args.vin, time_scale=None if args.lockstep else args.time_scale,
                       faults=Faults(args.drop, args.corrupt, args.delay), seed=args.seed)
        emulator = family_of(args.actuator).emulator_class().one_servo(
            args.actuator, args.emulate, mass, length, args.arm_mass, protocol=args.protocol, **options).start()

        def change(m: float, l: float) -> bool:
            emulator.set_bench(m, l, args.arm_mass)
            print(f"emulator load: {m:g} kg at {l:g} m", file=sys.stderr)
            return True
        port, clock = emulator.port, emulator.clock
    else:
        if args.unattended and len(grid.groups()) > 1:
            raise ValueError("--unattended with --port cannot change the mass/length of an external bench; "
                             "use --emulate MODEL, or a single --masses/--lengths group")
        port, clock = args.port, WallClock(args.time_scale)
        change = (lambda m, l: True) if args.unattended else prompt_bench
    print(f"{len(grid)} recordings in {len(grid.groups())} mass/length group(s) -> {args.logdir}", file=sys.stderr)
    try:
        with open_driver(args, port, clock) as driver:
            done = record_all(_serial_bench(args.actuator).of(driver, args.actuator), grid, args.actuator, args.logdir, change, arm_mass=args.arm_mass, vin=args.vin,
                              rate=args.rate, progress=line, on_recording=line.done)
    finally:
        if emulator is not None:
            emulator.stop()
    _report_done(done, args.logdir)
    return 0


def _report_done(done: Sequence[Recording], logdir: str) -> None:
    errors, gaps = sum(r.errors.errors for r in done), sum(r.quality.gaps for r in done)
    longest = max((r.quality.longest_gap for r in done), default=0.0)
    print(f"{len(done)} logs written to {logdir}; communication errors {errors}, "
          f"retries {sum(r.errors.retries for r in done)}, gaps {gaps} (longest {1000 * longest:.1f} ms)", file=sys.stderr)


def _run_record_all_erob(args: argparse.Namespace, grid: Grid, line: ProgressLine) -> int:
    def run(driver: ErobDriver, change: Callable[[float, float], bool]) -> List[Recording]:
        return record_all(ErobBench.of(driver, args.actuator), grid, args.actuator, args.logdir, change, arm_mass=args.arm_mass, vin=args.vin,
                          rate=args.rate, progress=line, on_recording=line.done)

    print(f"{len(grid)} recordings in {len(grid.groups())} mass/length group(s) -> {args.logdir}", file=sys.stderr)
    if args.emulate:
        done = erob_cli.emulated_record_all(args, grid, run)
    else:
        if args.unattended and len(grid.groups()) > 1:
            raise ValueError("--unattended with --ethercat cannot change the mass/length of an external bench; "
                             "use --emulate MODEL, or a single --masses/--lengths group")
        with erob_cli.erob_driver(args, args.ethercat, args.stepped) as driver:
            done = run(driver, (lambda m, l: True) if args.unattended else prompt_bench)
    _report_done(done, args.logdir)
    return 0


#: The recording subcommands.
RECORD_COMMANDS = (
    Command("record", "record one identification trajectory (a serial-bus servo or eRob) into a JSON log", _configure_record, _run_record,
            ("actuator-bench record --port /dev/ttyUSB0 --actuator mx64 --protocol 2 --trajectory lift_and_drop \\\n"
             "      --mass 1.0 --length 0.15 --kp 32 --out logs/raw",
             "actuator-bench record --port /dev/pts/3 --actuator xl330 --trajectory sin_sin --mass 0.5 --length 0.1 \\\n"
             "      --kp 400 --out logs/raw          # against 'actuator-bench emulate' (its printed port)",
             "actuator-bench record --port /dev/pts/3 --actuator xl330 --trajectory sin_sin --mass 0.5 --length 0.1 \\\n"
             "      --kp 400 --out logs/raw --bag bags/sin_sin   # and an MCAP bag of the same cycles")),
    Command("record-all", "record a Table I style grid (prompts to change the load)", _configure_record_all, _run_record_all,
            ("actuator-bench record-all --port /dev/ttyUSB0 --actuator mx64 --out logs/raw",
             "actuator-bench record-all --emulate mx64/m6 --actuator mx64 --out logs/raw --unattended --lockstep")),
)

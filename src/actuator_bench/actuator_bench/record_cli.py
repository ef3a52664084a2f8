"""``actuator-bench record`` and ``record-all``: identification trajectories recorded into JSON logs
through the bench's control loop (:mod:`.recording`), on a bench of any installed family
(``--port``: a serial device or an EtherCAT network interface, alias ``--ethercat``; or the
family's emulator with ``record-all --emulate``). The family of ``--actuator`` is found by
registry (:mod:`actuator_models.family`) and its bench opened through the backend registry
(:mod:`.backends`), as ``play`` and the bench node open theirs; no family is named here.

    actuator-bench record --port /dev/ttyUSB0 --actuator mx64 --trajectory sin_sin --mass 1 --length 0.15 --kp 32 --out logs
    actuator-bench record-all --emulate mx64/m6 --actuator mx64 --out logs --unattended --lockstep

The bench options are those of :mod:`.bench_options`: the settings every installed backend
declares (baud rate, protocol, cycle time, ...), each read by the backends that declare it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, TextIO

from actuator_drivers.cli import Command
from actuator_models.option_numbers import positive
from actuator_drivers.common import UsageError
from actuator_models.bench import Bench, set_load
from actuator_models.divergence import params_named
from actuator_models.family import family_of
from actuator_models.outputs import refuse_existing
from actuator_models.trajectories import TRAJECTORIES

from .backends import installed_backends
from .bench_options import add_bench_options, bench_params
from .kept_logs import saying_kept_logs
from .messages import BenchInfo
from .record_grid import Grid, default_grid, parse_values, prompt_bench, record_all, split_names
from .recording import Progress, Recording, RecordOutput, RecordSettings, record


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
    add_bench_options(p, installed_backends())
    p.add_argument("--trajectory", required=True, choices=tuple(TRAJECTORIES),
                   help="identification trajectory (paper section V-A, 6 s each): " + ", ".join(TRAJECTORIES))
    p.add_argument("--mass", type=positive, required=True, help="pendulum mass, kg")
    p.add_argument("--length", type=positive, required=True, help="pendulum length, m")
    p.add_argument("--kp", type=float, required=True, help="firmware P gain (MX: 'P Gain' value; XL330: 'Position P Gain')")
    p.add_argument("--bag", type=Path, help="also write an MCAP bag of the same cycles (a new folder)")


def _open(args: argparse.Namespace, emulated: bool, **common: Any) -> Bench:
    """The bench of ``--actuator``'s family (found by registry), real or emulated, opened through
    the backend registry as ``play`` and the bench node open theirs."""
    family = family_of(args.actuator)
    registry = installed_backends()
    backend = registry[family.backend(emulated)]
    common.setdefault("models", (family.models.get(args.actuator, ""),))
    return registry.open(backend.name, bench_params(args, backend, **common))


def _run_record(args: argparse.Namespace) -> int:
    line = ProgressLine()
    info = BenchInfo(args.actuator, mass=args.mass, length=args.length, arm_mass=args.arm_mass, vin=args.vin or 0.0)
    if args.bag is not None:
        refuse_existing([args.bag], False)
    bench = _open(args, False, time_scale=args.time_scale, mass=args.mass, length=args.length, arm_mass=args.arm_mass)
    try:
        recording = record(bench, args.trajectory, info, args.kp, settings=RecordSettings(rate=args.rate),
                           output=RecordOutput(args.logdir, bag=args.bag), progress=line)
    finally:
        bench.close()
    line.done(recording)
    return 0


# ---------------------------------------------------------------------- record-all
def _configure_record_all(p: argparse.ArgumentParser) -> None:
    p.add_argument("--emulate", metavar="P",
                   help="instead of a real bench (--port): run the family's emulator driven by params P (a params JSON or a published "
                        "model such as mx64/m6; for eRob a veth pair and an emulator process, root needed)")
    add_bench_options(p, installed_backends())
    p.add_argument("--masses", help="comma-separated masses, kg [Table I]")
    p.add_argument("--lengths", help="comma-separated lengths, m [Table I]")
    p.add_argument("--kps", help="comma-separated gains [Table I]")
    p.add_argument("--trajectories", help="comma-separated trajectory names [all four]")
    p.add_argument("--unattended", action="store_true",
                   help="do not prompt between groups (the emulator changes its own load)")
    p.add_argument("--lockstep", action="store_true",
                   help="with --emulate: the emulator's shaft advances with the driver's cycle instead of the wall "
                        "clock (deterministic recordings, as fast as the host allows; --time-scale is ignored)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the emulator's fault injection [0]")


def _grid(args: argparse.Namespace) -> Grid:
    base = default_grid(args.actuator)
    return Grid(
        parse_values(args.masses, "--masses") if args.masses is not None else base.masses,  # "" is refused
        parse_values(args.lengths, "--lengths") if args.lengths is not None else base.lengths,
        parse_values(args.kps, "--kps") if args.kps is not None else base.kps,
        split_names(args.trajectories, "--trajectories") if args.trajectories is not None else base.trajectories,
    )


@saying_kept_logs("record-all")
def _run_record_all(args: argparse.Namespace) -> int:
    grid = _grid(args)
    if args.lockstep and not args.emulate:
        raise ValueError("--lockstep needs --emulate MODEL: only an in-process emulator can share the driver's clock")
    if args.emulate and "port" in args:
        raise UsageError("record-all: give --port (a bench) or --emulate P (an emulated one), not both")
    line = ProgressLine()
    change: Callable[[float, float], bool]
    if args.emulate:
        mass, length = grid.groups()[0]
        lockstep = args.lockstep or family_of(args.actuator).lockstep
        with params_named(args.emulate):  # a model the emulated servo's step cannot integrate
            bench = _open(args, True, models=(args.emulate,), mass=mass, length=length, arm_mass=args.arm_mass,
                          vin=(args.vin or 0.0,), time_scale=None if lockstep else args.time_scale, seed=args.seed)

        def change(m: float, l: float) -> bool:
            set_load(bench, m, l, args.arm_mass)
            print(f"emulator load: {m:g} kg at {l:g} m", file=sys.stderr)
            return True
    else:
        if args.unattended and len(grid.groups()) > 1:
            raise ValueError("--unattended without --emulate cannot change the mass/length of a real bench; "
                             "use --emulate MODEL, or a single --masses/--lengths group")
        bench = _open(args, False, time_scale=args.time_scale, arm_mass=args.arm_mass)
        change = (lambda m, l: True) if args.unattended else prompt_bench
    print(f"{len(grid)} recordings in {len(grid.groups())} mass/length group(s) -> {args.logdir}", file=sys.stderr)
    try:
        done = record_all(bench, grid, args.actuator, args.logdir, change, arm_mass=args.arm_mass, vin=args.vin,
                          settings=RecordSettings(rate=args.rate), progress=line, on_recording=line.done)
    finally:  # the driver releases the torque, then an emulator stops (also after Ctrl-C) and is read back
        bench.close()
        state = getattr(bench, "emulated_state", lambda: None)()
        if state:
            print(state, file=sys.stderr)
    _report_done(done, args.logdir)
    return 0


def _report_done(done: Sequence[Recording], logdir: str) -> None:
    errors, gaps = sum(r.errors.errors for r in done), sum(r.quality.gaps for r in done)
    longest = max((r.quality.longest_gap for r in done), default=0.0)
    print(f"{len(done)} logs written to {logdir}; communication errors {errors}, "
          f"retries {sum(r.errors.retries for r in done)}, gaps {gaps} (longest {1000 * longest:.1f} ms)", file=sys.stderr)


#: The recording subcommands.
RECORD_COMMANDS = (
    Command("record", "record one identification trajectory on a bench of any installed family into a JSON log",
            _configure_record, _run_record,
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

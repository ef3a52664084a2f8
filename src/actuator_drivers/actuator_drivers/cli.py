"""Command line of the Dynamixel tools: a registry of subcommands (emulate, record, record-all).

Each subcommand is a :class:`Command` (name, help, an argument configurator, a runner); a program
combines command tuples: ``main(argv, commands=DYNAMIXEL_COMMANDS + other_commands)`` (this is
how ``actuator-bench`` of package actuator_bench includes them; stand-alone script:
``actuator-drivers``).

    actuator-bench emulate --actuator mx64 --params mx64/m6 --mass 1.0 --length 0.15 [--protocol 1|2]
    actuator-bench record --port /dev/ttyUSB0 --actuator mx64 --trajectory sin_sin --mass 1 --length 0.15 --kp 32 --out logs
    actuator-bench record-all --emulate mx64/m6 --actuator mx64 --out logs --unattended --lockstep

One vocabulary with ``actuator-models`` and ``actuator-sim``: ``--params`` (a params file or a
published model), ``--out`` (where files go; ``--model`` and ``--logdir`` remain as aliases), and
the exit statuses of :mod:`actuator_models.exit_codes` (2 bad input, 1 runtime fault: the bus,
the servo or the disk failed).

eRob over EtherCAT (``--ethercat IFACE``, ``veth``): see :mod:`.erob_cli`.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, TextIO

from actuator_models.actuator_file import ActuatorFileError
from actuator_models.exit_codes import run_command
from actuator_models.logs import LogError
from actuator_models.model import ParamsError, load_model
from actuator_models.outputs import OutputExistsError
from actuator_models.trajectories import TRAJECTORIES

from . import erob_cli
from .clock import Clock
from .driver_errors import DriverError, UsageError
from .dynamixel_bus import SDK_BAUDRATES
from .dynamixel_driver import DynamixelDriver, ServoConfig
from .dynamixel_emulator import DynamixelEmulator, Faults
from .dynamixel_tables import table_actuators
from .record_grid import Grid, default_grid, parse_values, prompt_bench, record_all, split_names
from .recording import Bench, Progress, Recording, RecordingError, record

PROG = "actuator-bench"


@dataclass(frozen=True)
class Command:
    """A subcommand: ``configure(parser)`` adds its options, ``run(args)`` returns the exit status;
    ``examples`` are shown by its ``--help``."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    examples: Sequence[str] = ()


# ---------------------------------------------------------------------- shared options
def _positive(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def _non_negative(text: str) -> float:
    value = float(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative number")
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in [0, 1]")
    return value


def _add_servo(p: argparse.ArgumentParser, required_actuator: bool = True) -> None:
    p.add_argument("--actuator", required=required_actuator, choices=table_actuators() + erob_cli.EROB_ACTUATORS,
                   help="servo model (erob*: with --ethercat or --emulate)")
    p.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                   help="firmware protocol (MX: 1 or 2; XL330: 2) [2]")
    p.add_argument("--id", type=int, default=1, help="servo ID [1]")
    p.add_argument("--time-scale", type=_positive, default=1.0,
                   help="bench seconds per wall second; must match an emulator's --time-scale [1]")


def _add_bus(p: argparse.ArgumentParser) -> None:
    p.add_argument("--baud", type=int, default=57600, choices=SDK_BAUDRATES, metavar="BAUD",
                   help="baud rate [57600]")
    p.add_argument("--latency-ms", type=float, default=16.0,
                   help="USB latency timer used in receive timeouts, ms (1 for low-latency adapters) [16]")
    p.add_argument("--retries", type=int, help="extra attempts per transaction [3; 10 with --emulate]")
    p.add_argument("--rate", type=_positive, default=200.0, help="control rate, cycles per bench second [200]")
    p.add_argument("--limits", type=float, nargs=2, default=(-2.8, 2.8), metavar=("MIN", "MAX"),
                   help="joint limits, rad [-2.8 2.8]")
    p.add_argument("--out", "--logdir", dest="logdir", required=True, metavar="DIR",
                   help="folder for the JSON logs (each file is named by bench and time: nothing is overwritten)")
    p.add_argument("--arm-mass", type=_non_negative, default=0.0, help="mass of the arm itself, kg [0]")
    p.add_argument("--vin", type=_positive, help="supply voltage for the log, V [measured]")


def _add_faults(p: argparse.ArgumentParser) -> None:
    p.add_argument("--drop", type=_fraction, default=0.0, help="fraction of status packets dropped [0]")
    p.add_argument("--corrupt", type=_fraction, default=0.0, help="fraction of status packets with a bad CRC [0]")
    p.add_argument("--delay", type=float, default=0.0, help="extra delay before each status packet, s [0]")
    p.add_argument("--seed", type=int, help="random seed of the fault injection")


def _driver(args: argparse.Namespace, port: str, clock: Clock) -> DynamixelDriver:
    servo = ServoConfig(args.id, args.actuator, args.limits[0], args.limits[1])
    retries = args.retries if args.retries is not None else (10 if getattr(args, "emulate", None) else 3)
    return DynamixelDriver(port, servo, protocol=args.protocol, baudrate=args.baud, retries=retries,
                           latency_ms=args.latency_ms, clock=clock)


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


# ---------------------------------------------------------------------- emulate
def _configure_emulate(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params", "--model", dest="model", metavar="P",
                   help="servo model driving the shaft: a params JSON or a published model such as mx64/m6 "
                        "(required, except with --chain)")
    _add_servo(p, required_actuator=False)
    p.add_argument("--mass", type=_positive, help="pendulum mass, kg (required, except with --chain)")
    p.add_argument("--length", type=_positive, help="pendulum length, m (required, except with --chain)")
    p.add_argument("--arm-mass", type=_non_negative, default=0.0, help="mass of the arm itself, kg [0]")
    p.add_argument("--vin", type=_positive, help="supply voltage, V [model default]")
    p.add_argument("--physics-dt", type=_positive, default=0.005, help="simulation step, s [0.005]")
    _add_faults(p)
    erob_cli.add_emulate_options(p)


def _run_emulate(args: argparse.Namespace) -> int:
    if args.ethercat:
        return erob_cli.run_emulate(args)
    missing = [f"--{o}" for o, n in (("params", "model"), ("mass", "mass"), ("length", "length"))
               if getattr(args, n) is None]
    if missing:
        raise UsageError(f"emulate: the following arguments are required: {', '.join(missing)}")
    model = load_model(args.model)
    actuator = args.actuator or model.actuator.name
    emulator = DynamixelEmulator.single(
        actuator, model, args.mass, args.length, args.arm_mass, protocol=args.protocol, servo_id=args.id,
        vin=args.vin, physics_dt=args.physics_dt, time_scale=args.time_scale,
        faults=Faults(args.drop, args.corrupt, args.delay), seed=args.seed,
    )
    with emulator:
        servo = emulator.servos[0]
        print(f"Dynamixel emulator: {servo.table.title} (protocol {args.protocol}), ID {args.id}, model {args.model}, "
              f"pendulum {args.mass:g} kg at {args.length:g} m, time scale {args.time_scale:g}")
        print(emulator.port, flush=True)
        print("Ctrl-C to stop.", file=sys.stderr, flush=True)
        stop = threading.Event()
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(0.2):
                pass
        except KeyboardInterrupt:
            pass
        c = emulator.counters
        print(f"\n{c.received} instruction packets, {c.sent} status packets sent, {c.dropped} dropped, "
              f"{c.corrupted} corrupted", file=sys.stderr)
    return 0


# ---------------------------------------------------------------------- record
def _configure_record(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", help="serial device or emulator pty")
    source.add_argument("--ethercat", metavar="IFACE", help="EtherCAT interface of an eRob (hardware or emulator)")
    _add_servo(p)
    _add_bus(p)
    erob_cli.add_driver_options(p)
    p.add_argument("--trajectory", required=True, choices=tuple(TRAJECTORIES),
                   help="identification trajectory (paper section V-A, 6 s each): " + ", ".join(TRAJECTORIES))
    p.add_argument("--mass", type=_positive, required=True, help="pendulum mass, kg")
    p.add_argument("--length", type=_positive, required=True, help="pendulum length, m")
    p.add_argument("--kp", type=float, required=True, help="firmware P gain (MX: 'P Gain' value; XL330: 'Position P Gain')")


def _run_record(args: argparse.Namespace) -> int:
    line = ProgressLine()
    _check_source(args, args.ethercat)
    opened = (erob_cli.erob_driver(args, args.ethercat, args.stepped) if args.ethercat
              else _driver(args, args.port, Clock(args.time_scale)))
    with opened as driver:
        recording = record(driver, args.trajectory, Bench(args.actuator, args.mass, args.length, args.arm_mass, args.vin),
                           args.kp, rate=args.rate, logdir=args.logdir, progress=line)
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
    _add_servo(p)
    _add_bus(p)
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
    _add_faults(p)


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
        raise UsageError(f"--ethercat: --actuator {args.actuator} is a Dynamixel; use --port")


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
        emulator = DynamixelEmulator.single(
            args.actuator, args.emulate, mass, length, args.arm_mass, protocol=args.protocol, servo_id=args.id,
            vin=args.vin, time_scale=None if args.lockstep else args.time_scale,
            faults=Faults(args.drop, args.corrupt, args.delay), seed=args.seed,
        ).start()

        def change(m: float, l: float) -> bool:
            emulator.set_bench(m, l, args.arm_mass)
            print(f"emulator load: {m:g} kg at {l:g} m", file=sys.stderr)
            return True
        port, clock = emulator.port, emulator.clock
    else:
        if args.unattended and len(grid.groups()) > 1:
            raise ValueError("--unattended with --port cannot change the mass/length of an external bench; "
                             "use --emulate MODEL, or a single --masses/--lengths group")
        port, clock = args.port, Clock(args.time_scale)
        change = (lambda m, l: True) if args.unattended else prompt_bench
    print(f"{len(grid)} recordings in {len(grid.groups())} mass/length group(s) -> {args.logdir}", file=sys.stderr)
    try:
        with _driver(args, port, clock) as driver:
            done = record_all(driver, grid, args.actuator, args.logdir, change, arm_mass=args.arm_mass, vin=args.vin,
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
    def run(driver, change) -> List[Recording]:
        return record_all(driver, grid, args.actuator, args.logdir, change, arm_mass=args.arm_mass, vin=args.vin,
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


DYNAMIXEL_COMMANDS = (
    Command("emulate", "emulated Dynamixel on a pseudo-terminal (prints the device path)", _configure_emulate, _run_emulate,
            ("actuator-bench emulate --actuator mx64 --params mx64/m6 --mass 1.0 --length 0.15 --protocol 2",
             "actuator-bench emulate --actuator xl330 --params fit-xl330/m6.json --mass 0.5 --length 0.1 --drop 0.05")),
    Command("record", "record one identification trajectory through a Dynamixel", _configure_record, _run_record,
            ("actuator-bench record --port /dev/ttyUSB0 --actuator mx64 --protocol 2 --trajectory lift_and_drop \\\n"
             "      --mass 1.0 --length 0.15 --kp 32 --out logs/raw",
             "actuator-bench record --port /dev/pts/3 --actuator xl330 --trajectory sin_sin --mass 0.5 --length 0.1 \\\n"
             "      --kp 400 --out logs/raw          # against 'actuator-bench emulate' (its printed port)")),
    Command("record-all", "record a Table I style grid (prompts to change the load)", _configure_record_all, _run_record_all,
            ("actuator-bench record-all --port /dev/ttyUSB0 --actuator mx64 --out logs/raw",
             "actuator-bench record-all --emulate mx64/m6 --actuator mx64 --out logs/raw --unattended --lockstep")),
    Command("veth", "create or remove a veth pair (the virtual EtherCAT cable; root)", erob_cli.configure_veth,
            erob_cli.run_veth,
            ("actuator-bench veth create ecm0 ecs0      # master end, emulator end",
             "actuator-bench veth remove ecm0")),
)
COMMANDS = DYNAMIXEL_COMMANDS

#: Errors that mean bad input (exit status 2); the others of a recording are runtime faults (1).
BAD_INPUT_ERRORS = (ValueError, LogError, ParamsError, ActuatorFileError, OutputExistsError)
RUNTIME_ERRORS = (RecordingError, DriverError, OSError)
EPILOG = """\
Exit status: 0 done, 2 bad input (an unusable argument or file), 1 a runtime fault (the bus,
the servo or the disk failed), 130 interrupted. Each subcommand's --help shows examples."""


def build_parser(commands: Sequence[Command] = COMMANDS) -> argparse.ArgumentParser:
    first = [f"  {command.examples[0]}" for command in commands if command.examples]
    epilog = "\n".join(["examples:", *first, "", EPILOG]) if first else EPILOG
    parser = argparse.ArgumentParser(prog=PROG, description="Servo actuator bench tools (no ROS needed).",
                                     epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        epilog = "examples:\n" + "\n".join(f"  {line}" for line in command.examples) if command.examples else None
        p = sub.add_parser(command.name, help=command.help, description=command.help, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        command.configure(p)
        p.set_defaults(run=command.run)
    return parser


def main(argv: Optional[List[str]] = None, commands: Sequence[Command] = COMMANDS) -> int:
    """Run a subcommand; expected failures print one ``error:`` line and return 2 (bad input)
    or 1 (runtime fault), see :mod:`actuator_models.exit_codes`."""
    args = build_parser(commands).parse_args(argv)
    return run_command(lambda: args.run(args), PROG, BAD_INPUT_ERRORS, RUNTIME_ERRORS)


if __name__ == "__main__":
    sys.exit(main())

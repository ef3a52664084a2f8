"""Command line of the Dynamixel tools: a registry of subcommands (emulate, record, record-all).

Each subcommand is a :class:`Command` (name, help, an argument configurator, a runner); a program
combines command tuples: ``main(argv, commands=DYNAMIXEL_COMMANDS + other_commands)`` (this is
how ``actuator-bench`` of package actuator_bench includes them; stand-alone script:
``actuator-drivers``).

    actuator-bench emulate --actuator mx64 --model mx64/m6 --mass 1.0 --length 0.15 [--protocol 1|2]
    actuator-bench record --port /dev/ttyUSB0 --actuator mx64 --trajectory sin_sin --mass 1 --length 0.15 --kp 32 --logdir logs
    actuator-bench record-all --emulate mx64/m6 --actuator mx64 --logdir logs --unattended --lockstep
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, TextIO

from actuator_models.logs import LogError
from actuator_models.model import ParamsError, load_model

from .clock import Clock
from .dynamixel_bus import SDK_BAUDRATES
from .dynamixel_driver import DynamixelDriver, ServoConfig
from .dynamixel_emulator import DynamixelEmulator, Faults
from .dynamixel_errors import DynamixelError
from .record_grid import Grid, default_grid, parse_values, prompt_bench, record_all, split_names
from .recording import Bench, Progress, Recording, RecordingError, record

PROG = "actuator-bench"


@dataclass(frozen=True)
class Command:
    """A subcommand: ``configure(parser)`` adds its options, ``run(args)`` returns the exit status."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


# ---------------------------------------------------------------------- shared options
def _positive(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in [0, 1]")
    return value


def _add_servo(p: argparse.ArgumentParser, required_actuator: bool = True) -> None:
    p.add_argument("--actuator", required=required_actuator, choices=("mx64", "mx106", "xl330"),
                   help="servo model")
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
    p.add_argument("--logdir", required=True, help="folder for the JSON logs")
    p.add_argument("--arm-mass", type=float, default=0.0, help="mass of the arm itself, kg [0]")
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
    p.add_argument("--model", required=True, help="servo model driving the shaft (library name such as mx64/m6, or a params JSON)")
    _add_servo(p, required_actuator=False)
    p.add_argument("--mass", type=float, required=True, help="pendulum mass, kg")
    p.add_argument("--length", type=_positive, required=True, help="pendulum length, m")
    p.add_argument("--arm-mass", type=float, default=0.0, help="mass of the arm itself, kg [0]")
    p.add_argument("--vin", type=_positive, help="supply voltage, V [model default]")
    p.add_argument("--physics-dt", type=_positive, default=0.005, help="simulation step, s [0.005]")
    _add_faults(p)


def _run_emulate(args: argparse.Namespace) -> int:
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
    p.add_argument("--port", required=True, help="serial device or emulator pty")
    _add_servo(p)
    _add_bus(p)
    p.add_argument("--trajectory", required=True, choices=("sin_time_square", "sin_sin", "up_and_down", "lift_and_drop"))
    p.add_argument("--mass", type=float, required=True, help="pendulum mass, kg")
    p.add_argument("--length", type=_positive, required=True, help="pendulum length, m")
    p.add_argument("--kp", type=float, required=True, help="firmware P gain (MX: 'P Gain' value; XL330: 'Position P Gain')")


def _run_record(args: argparse.Namespace) -> int:
    line = ProgressLine()
    with _driver(args, args.port, Clock(args.time_scale)) as driver:
        recording = record(driver, args.trajectory, Bench(args.actuator, args.mass, args.length, args.arm_mass, args.vin),
                           args.kp, rate=args.rate, logdir=args.logdir, progress=line)
    line.done(recording)
    return 0


# ---------------------------------------------------------------------- record-all
def _configure_record_all(p: argparse.ArgumentParser) -> None:
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--port", help="serial device or external emulator pty")
    source.add_argument("--emulate", metavar="MODEL", help="run an in-process emulator driven by MODEL (e.g. mx64/m6)")
    _add_servo(p)
    _add_bus(p)
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


def _run_record_all(args: argparse.Namespace) -> int:
    grid = _grid(args)
    if args.lockstep and not args.emulate:
        raise ValueError("--lockstep needs --emulate MODEL: only an in-process emulator can share the driver's clock")
    line = ProgressLine()
    emulator = None
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
    errors, gaps = sum(r.errors.errors for r in done), sum(r.quality.gaps for r in done)
    longest = max((r.quality.longest_gap for r in done), default=0.0)
    print(f"{len(done)} logs written to {args.logdir}; communication errors {errors}, "
          f"retries {sum(r.errors.retries for r in done)}, gaps {gaps} (longest {1000 * longest:.1f} ms)", file=sys.stderr)
    return 0


DYNAMIXEL_COMMANDS = (
    Command("emulate", "emulated Dynamixel on a pseudo-terminal (prints the device path)", _configure_emulate, _run_emulate),
    Command("record", "record one identification trajectory through a Dynamixel", _configure_record, _run_record),
    Command("record-all", "record a Table I style grid (prompts to change the load)", _configure_record_all, _run_record_all),
)
COMMANDS = DYNAMIXEL_COMMANDS


def build_parser(commands: Sequence[Command] = COMMANDS) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG, description="Servo actuator bench tools (no ROS needed).")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(p)
        p.set_defaults(run=command.run)
    return parser


def main(argv: Optional[List[str]] = None, commands: Sequence[Command] = COMMANDS) -> int:
    """Run a subcommand; expected failures print one ``error:`` line and return 1."""
    args = build_parser(commands).parse_args(argv)
    try:
        return args.run(args)
    except RecordingError as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    except (DynamixelError, ValueError, LogError, ParamsError, OSError) as error:
        print(f"{PROG}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{PROG}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

"""Command line of the driver tools: a registry of subcommands (emulate, veth) and the options
a driver is opened with.

Each subcommand is a :class:`Command` (name, help, an argument configurator, a runner); a program
combines command tuples: ``main(argv, commands=EMULATOR_COMMANDS + other_commands)`` (this is
how ``actuator-bench`` of package actuator_bench includes them; stand-alone script:
``actuator-drivers``).

    actuator-bench emulate --actuator mx64 --params mx64/m6 --mass 1.0 --length 0.15 [--protocol 1|2]

Recording (``record``, ``record-all``) plays trajectories through the bench's control loop, a
layer up: :mod:`actuator_bench.record_cli` (``actuator-bench``), with these options.

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
from typing import Callable, List, Optional, Sequence

from actuator_models.actuator_file import ActuatorFileError
from actuator_models.exit_codes import ArgumentParser, run_command
from actuator_models.logs import LogError
from actuator_models.model import ParamsError, load_model
from actuator_models.simulation import BENCH_DT
from actuator_models.outputs import OutputExistsError

from actuator_drivers import erob_cli
from actuator_models.bench import WallClock
from actuator_drivers.common import DriverError, UsageError
from actuator_drivers.safe_stop import terminate_as_interrupt
from actuator_drivers.serial_bus.driver import SerialBusDriver
from actuator_drivers.serial_bus.family import family_of, installed_families, serial_actuators
from actuator_drivers.serial_bus.servo import ServoConfig
from actuator_drivers.serial_bus_emulator.faults import Faults

PROG = "actuator-bench"  #: the program the commands' examples are written for


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
def positive(text: str) -> float:
    value = float(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number")
    return value


def non_negative(text: str) -> float:
    value = float(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative number")
    return value


def fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a fraction in [0, 1]")
    return value


def add_servo_options(p: argparse.ArgumentParser, required_actuator: bool = True) -> None:
    families = installed_families().values()
    p.add_argument("--actuator", required=required_actuator,
                   choices=serial_actuators() + erob_cli.EROB_ACTUATORS,
                   help="servo model (erob*: with --ethercat or --emulate; "
                        + "; ".join(f"{', '.join(f.actuators)}: {f.title}, {f.default_baudrate} baud" for f in families) + ")")
    p.add_argument("--protocol", type=int, choices=(1, 2), default=2,
                   help="firmware protocol (MX: 1 or 2; XL330: 2) [2]")
    p.add_argument("--id", type=int, default=1, help="servo ID [1]")
    p.add_argument("--time-scale", type=positive, default=1.0,
                   help="bench seconds per wall second; must match an emulator's --time-scale [1]")


def add_bus_options(p: argparse.ArgumentParser) -> None:
    families = installed_families().values()
    p.add_argument("--baud", type=int, choices=sorted({b for f in families for b in f.baudrates}), metavar="BAUD",
                   help="baud rate [" + "; ".join(f"{f.default_baudrate} for {f.title}" for f in families) + "]")
    p.add_argument("--latency-ms", type=float, default=16.0,
                   help="USB latency timer used in receive timeouts, ms (1 for low-latency adapters) [16]")
    p.add_argument("--retries", type=int, help="extra attempts per transaction [3; 10 with --emulate]")
    p.add_argument("--rate", type=positive, default=200.0, help="control rate, cycles per bench second [200]")
    p.add_argument("--limits", type=float, nargs=2, default=(-2.8, 2.8), metavar=("MIN", "MAX"),
                   help="joint limits, rad [-2.8 2.8]")
    p.add_argument("--out", "--logdir", dest="logdir", required=True, metavar="DIR",
                   help="folder for the JSON logs (each file is named by bench and time: nothing is overwritten)")
    p.add_argument("--arm-mass", type=non_negative, default=0.0, help="mass of the arm itself, kg [0]")
    p.add_argument("--vin", type=positive, help="supply voltage for the log, V [measured]")


def add_fault_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--drop", type=fraction, default=0.0, help="fraction of status packets dropped [0]")
    p.add_argument("--corrupt", type=fraction, default=0.0, help="fraction of status packets with a bad CRC [0]")
    p.add_argument("--delay", type=float, default=0.0, help="extra delay before each status packet, s [0]")
    p.add_argument("--seed", type=int, help="random seed of the fault injection")


def open_driver(args: argparse.Namespace, port: str, clock: WallClock) -> SerialBusDriver:
    """The (unopened) driver of ``--actuator``'s serial-bus family (found by registry) on ``port``."""
    family = family_of(args.actuator)
    servo = ServoConfig(args.id, args.actuator, args.limits[0], args.limits[1])
    retries = args.retries if args.retries is not None else (10 if getattr(args, "emulate", None) else 3)
    return family.bench_class().DRIVER.on_bus(port, servo, args.protocol, args.baud or family.default_baudrate,
                                              retries=retries, latency_ms=args.latency_ms, clock=clock)


# ---------------------------------------------------------------------- emulate
def _configure_emulate(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params", "--model", dest="model", metavar="P",
                   help="servo model driving the shaft: a params JSON or a published model such as mx64/m6 "
                        "(required, except with --chain)")
    add_servo_options(p, required_actuator=False)
    p.add_argument("--mass", type=positive, help="pendulum mass, kg (required, except with --chain)")
    p.add_argument("--length", type=positive, help="pendulum length, m (required, except with --chain)")
    p.add_argument("--arm-mass", type=non_negative, default=0.0, help="mass of the arm itself, kg [0]")
    p.add_argument("--vin", type=positive, help="supply voltage, V [model default]")
    p.add_argument("--physics-dt", type=positive, default=BENCH_DT, help=f"simulation step, s [{BENCH_DT:g}]")
    add_fault_options(p)
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
    family = family_of(actuator)
    emulator = family.emulator_class().one_servo(
        actuator, model, args.mass, args.length, args.arm_mass, protocol=args.protocol, servo_id=args.id, vin=args.vin,
        physics_dt=args.physics_dt, time_scale=args.time_scale, faults=Faults(args.drop, args.corrupt, args.delay),
        seed=args.seed)
    with emulator:
        servo = emulator.servos[0]
        print(f"{family.title} emulator: {servo.table.title}{family.describe(args.protocol)}, ID {args.id}, model {args.model}, "
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


EMULATOR_COMMANDS = (
    Command("emulate", "emulated serial-bus servo on a pseudo-terminal (prints the device path)", _configure_emulate,
            _run_emulate,
            ("actuator-bench emulate --actuator mx64 --params mx64/m6 --mass 1.0 --length 0.15 --protocol 2",
             *(f.example for f in installed_families().values() if f.example),
             "actuator-bench emulate --actuator xl330 --params fit-xl330/m6.json --mass 0.5 --length 0.1 --drop 0.05")),
    Command("veth", "create or remove a veth pair (the virtual EtherCAT cable; root)", erob_cli.configure_veth,
            erob_cli.run_veth,
            ("actuator-bench veth create ecm0 ecs0      # master end, emulator end",
             "actuator-bench veth remove ecm0")),
)
COMMANDS = EMULATOR_COMMANDS

#: Errors that mean bad input (exit status 2); the others of a recording are runtime faults (1).
BAD_INPUT_ERRORS = (ValueError, LogError, ParamsError, ActuatorFileError, OutputExistsError)
RUNTIME_ERRORS = (DriverError, OSError)
EPILOG = """\
Exit status: 0 done, 2 bad input (an unusable argument or file), 1 a runtime fault (the bus,
the servo or the disk failed), 130 interrupted. Each subcommand's --help shows examples."""


def build_parser(commands: Sequence[Command] = COMMANDS, prog: str = "actuator-drivers") -> argparse.ArgumentParser:
    """The parser of ``prog``; the commands' examples (written for ``actuator-bench``) name ``prog``."""
    def examples(command: Command) -> List[str]:
        return [line.replace(PROG, prog, 1) if line.startswith(PROG) else line for line in command.examples]

    first = [f"  {examples(command)[0]}" for command in commands if command.examples]
    epilog = "\n".join(["examples:", *first, "", EPILOG]) if first else EPILOG
    parser = ArgumentParser(prog=prog, description="Servo actuator bench tools (no ROS needed).",
                            epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in commands:
        epilog = "examples:\n" + "\n".join(f"  {line}" for line in examples(command)) if command.examples else None
        p = sub.add_parser(command.name, help=command.help, description=command.help, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        command.configure(p)
        p.set_defaults(run=command.run)
    return parser


def main(argv: Optional[List[str]] = None, commands: Sequence[Command] = COMMANDS, prog: str = "actuator-drivers") -> int:
    """Run a subcommand of ``prog`` (``actuator-drivers``, or ``actuator-bench`` with more
    commands); expected failures print one ``error:`` line and return 2 (bad input) or 1
    (runtime fault), Ctrl-C and SIGTERM 130, see :mod:`actuator_models.exit_codes`."""
    args = build_parser(commands, prog).parse_args(argv)
    with terminate_as_interrupt():  # SIGTERM releases the torque and exits 130, like Ctrl-C
        return run_command(lambda: args.run(args), prog, BAD_INPUT_ERRORS, RUNTIME_ERRORS)


if __name__ == "__main__":
    sys.exit(main())

"""Command line of the driver tools: a registry of subcommands (emulate, veth) and the options
a driver is opened with.

Each subcommand is a :class:`Command` (name, help, an argument configurator, a runner); a program
combines command tuples: ``main(argv, commands=EMULATOR_COMMANDS + other_commands)`` (this is
how ``actuator-bench`` of package actuator_bench includes them; stand-alone script:
``actuator-drivers``).

    actuator-bench emulate --actuator mx64 --params mx64/m6 --mass 1.0 --length 0.15 [--protocol 1|2]

``emulate`` runs the emulator of the family of ``--actuator`` (its ``Family.emulate``,
:mod:`actuator_models.family`); each installed family adds its own options. Recording
(``record``, ``record-all``) plays trajectories through the bench's control loop, a layer up:
:mod:`actuator_bench.record_cli` (``actuator-bench``).

One vocabulary with ``actuator-models`` and ``actuator-sim``: ``--params`` (a params file or a
published model), ``--out`` (where files go; ``--model`` and ``--logdir`` remain as aliases), and
the exit statuses of :mod:`actuator_models.exit_codes` (2 bad input, 1 runtime fault: the bus,
the servo or the disk failed).

A family adds its own tools (``Family.commands``): the eRob family's ``veth`` (the virtual
EtherCAT cable of its emulator, :mod:`.erob_cli`).
"""

from __future__ import annotations

import argparse
import sys
from typing import Dict, List, Optional, Sequence

from actuator_models.actuator_file import ActuatorFileError
from actuator_models.divergence import params_named
from actuator_models.exit_codes import ArgumentParser, run_command
from actuator_models.logs import LogError
from actuator_models.model import ParamsError, load_model
from actuator_models.outputs import OutputExistsError

from actuator_models.family import EmulateCommand, family_actuators, family_of, installed_families

from actuator_drivers.command import Command
from actuator_drivers.common import DriverError, UsageError
from actuator_drivers.safe_stop import terminate_as_interrupt
from actuator_drivers.serial_bus.servo import MAX_SERVO_ID
from actuator_models.option_numbers import fraction, non_negative, positive

PROG = "actuator-bench"  #: the program the commands' examples are written for


# ---------------------------------------------------------------------- shared options
def bus_id(text: str) -> int:
    """A servo's ID on its bus (an argparse type)."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MAX_SERVO_ID:
        raise argparse.ArgumentTypeError(f"{text!r} is not a servo ID (0..{MAX_SERVO_ID})")
    return value


def add_fault_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--drop", type=fraction, default=0.0, help="fraction of status packets dropped [0]")
    p.add_argument("--corrupt", type=fraction, default=0.0, help="fraction of status packets with a bad CRC [0]")
    p.add_argument("--delay", type=non_negative, default=0.0, help="extra delay before each status packet, s [0]")
    p.add_argument("--seed", type=int, help="random seed of the fault injection")


# ---------------------------------------------------------------------- emulate
def _emulate_commands() -> Dict[str, EmulateCommand]:
    """The distinct ``emulate`` of the installed families, by ``"module:attribute"``."""
    return {f.emulate: f.emulate_command() for f in installed_families().values() if f.emulate}


def _configure_emulate(p: argparse.ArgumentParser) -> None:
    p.add_argument("--params", "--model", dest="model", metavar="P",
                   help="servo model driving the shaft: a params JSON or a published model such as mx64/m6 "
                        "(required, except with --chain)")
    p.add_argument("--actuator", choices=family_actuators(), help="servo model [the --params model's actuator]")
    p.add_argument("--id", type=bus_id, default=1, help=f"servo ID, 0..{MAX_SERVO_ID} [1]")
    p.add_argument("--time-scale", type=positive, default=1.0, help="bench seconds per wall second [1]")
    p.add_argument("--mass", type=positive, help="pendulum mass, kg (required, except with --chain)")
    p.add_argument("--length", type=positive, help="pendulum length, m (required, except with --chain)")
    p.add_argument("--arm-mass", type=non_negative, default=0.0, help="mass of the arm itself, kg [0]")
    p.add_argument("--vin", type=positive, help="supply voltage, V [model default]")
    add_fault_options(p)
    for command in _emulate_commands().values():  # each family's own options
        command.configure(p)


def _run_emulate(args: argparse.Namespace) -> int:
    """The ``emulate`` of the family of ``--actuator`` (or of the actuator a family's own options
    name, or of the ``--params`` model's)."""
    named = (command.actuator(args) for command in _emulate_commands().values())
    actuator: Optional[str] = args.actuator or next((a for a in named if a), None)
    if actuator is None and args.model is not None:
        actuator = load_model(args.model).actuator.name
    if actuator is None:
        raise UsageError("emulate: give --actuator or --params")
    with params_named(args.model):  # a model its step cannot integrate
        return family_of(actuator).emulate_command().run(args)


EMULATOR_COMMANDS = (
    Command("emulate", "an emulated servo of any installed family (a serial bus on a pseudo-terminal: prints the "
            "device path; eRob: on a network interface)", _configure_emulate, _run_emulate,
            ("actuator-bench emulate --actuator mx64 --params mx64/m6 --mass 1.0 --length 0.15 --protocol 2",
             *(f.example for f in installed_families().values() if f.example),
             "actuator-bench emulate --actuator xl330 --params fit-xl330/m6.json --mass 0.5 --length 0.1 --drop 0.05")),
    *(command for family in installed_families().values() for command in family.extra_commands()),
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
        own = "examples:\n" + "\n".join(f"  {line}" for line in examples(command)) if command.examples else None
        p = sub.add_parser(command.name, help=command.help, description=command.help, epilog=own,
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

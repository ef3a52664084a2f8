"""``hybrid-sim``: hybrid dynamical simulations from the shell.

Each subcommand lives in its own module exposing ``add_subparser(sub)``, which adds one
subparser and sets ``run`` (a function ``args -> int``) as its default. To add a command,
write such a module and list its ``add_subparser`` in ``SUBCOMMANDS``.

Bad input (``ValueError``/``OSError``) prints one ``error: ...`` line and exits 2; a runtime
fault of a simulation (``SimulationError``) exits 1.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, List, Optional, Sequence

from actuator_models.exit_codes import ArgumentParser, run_command

from .errors import SimulationError

EPILOG = """\
examples:
  hybrid-sim slip --final-time 5 --json
  hybrid-sim slip --final-time 5 --initial y=1.2,xd=1.0,theta=0.2 --plot slip.png
  hybrid-sim hexapod --final-time 10 --plot hexapod.png
  hybrid-sim stick-slip --params xl330/m6 --log data/xl330/processed/2026-01-15_10h28m17.json --plot ref.png
  hybrid-sim wheel --final-time 2 --mujoco --plot wheel.png
  hybrid-sim wheel3d --steer 0.2 --initial course=0 --final-time 1

Units: SI (m, s, kg, rad) unless a model says otherwise."""


def _subcommands() -> List[Callable[[argparse._SubParsersAction], None]]:
    """The ``add_subparser`` functions of the command modules (imported lazily)."""
    from . import hexapod_cli, slip_cli, stick_slip_cli, wheel3d_cli, wheel_cli

    return [slip_cli.add_subparser, hexapod_cli.add_subparser, stick_slip_cli.add_subparser, wheel_cli.add_subparser,
            wheel3d_cli.add_subparser]


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="hybrid-sim", description=__doc__.splitlines()[0], epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in _subcommands():
        add(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    # the project's exit convention; an unusable file or value is bad input (2), a failed run 1
    return run_command(lambda: args.run(args), "hybrid-sim", bad_input=(ValueError, OSError),
                       runtime=(SimulationError,))


if __name__ == "__main__":
    sys.exit(main())

"""``actuator-bench``: the Dynamixel tools of ``actuator_drivers`` plus the bench's own commands.

    actuator-bench bag2json BAG OUT_DIR [--dt 0.005 | --raw] [--namespace /real]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from actuator_drivers.cli import DYNAMIXEL_COMMANDS, Command
from actuator_drivers.cli import main as run_commands

from .bag2json import DEFAULT_DT, convert


def _configure_bag2json(p: argparse.ArgumentParser) -> None:
    p.add_argument("bag", type=Path, help="rosbag2 folder (MCAP or SQLite 3) recorded from a bench")
    p.add_argument("out_dir", type=Path, help="folder for the JSON logs (created)")
    timing = p.add_mutually_exclusive_group()
    timing.add_argument("--dt", type=float, default=DEFAULT_DT,
                        help=f"resampling period of the processed logs, s [{DEFAULT_DT}]")
    timing.add_argument("--raw", action="store_true", help="write raw logs (the samples as recorded)")
    p.add_argument("--namespace", help="only this bench namespace, e.g. /real [all]")


def _run_bag2json(args: argparse.Namespace) -> int:
    paths = convert(args.bag, args.out_dir, None if args.raw else args.dt, args.namespace)
    for path in paths:
        print(path)
    print(f"{len(paths)} log(s) written to {args.out_dir}", file=sys.stderr)
    return 0


def _configure_demo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="a smaller grid and search: about a minute")
    p.add_argument("--out", type=Path, default=Path("demo-out"), help="output folder [demo-out]")


def _run_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo  # imports MuJoCo and optuna: only when asked

    return run_demo(args.out, args.quick)


BENCH_COMMANDS = (
    Command("demo", "the whole pipeline without ROS or hardware: emulated servo, recordings, M1-M6 fits, report, plots",
            _configure_demo, _run_demo),
    Command("bag2json", "convert a bench bag into JSON logs (one per trajectory run and joint) for identification",
            _configure_bag2json, _run_bag2json),
)
COMMANDS = DYNAMIXEL_COMMANDS + BENCH_COMMANDS


def main(argv: Optional[List[str]] = None) -> int:
    return run_commands(argv, COMMANDS)


if __name__ == "__main__":
    sys.exit(main())

"""``actuator-bench``: the Dynamixel tools of ``actuator_drivers`` plus the bench's own commands.

    actuator-bench bag2json BAG --out DIR [--dt 0.005 | --raw] [--namespace /real] [--force]
    actuator-bench demo [--quick] [--out DIR] [--force]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from actuator_drivers.cli import DYNAMIXEL_COMMANDS, Command
from actuator_drivers.cli import main as run_commands

from actuator_models.outputs import refuse_existing

from .bag2json import DEFAULT_DT, convert


def _configure_bag2json(p: argparse.ArgumentParser) -> None:
    p.add_argument("bag", type=Path, help="rosbag2 folder (MCAP or SQLite 3) recorded from a bench")
    p.add_argument("--out", type=Path, metavar="DIR", help="folder for the JSON logs (created)")
    p.add_argument("out_dir", type=Path, nargs="?", help=argparse.SUPPRESS)  # the former positional form
    p.add_argument("--force", action="store_true", help="overwrite logs of an earlier conversion (refused otherwise)")
    timing = p.add_mutually_exclusive_group()
    timing.add_argument("--dt", type=float, default=DEFAULT_DT,
                        help=f"resampling period of the processed logs, s [{DEFAULT_DT}]")
    timing.add_argument("--raw", action="store_true", help="write raw logs (the samples as recorded)")
    p.add_argument("--namespace", help="only this bench namespace, e.g. /real [all]")


def _run_bag2json(args: argparse.Namespace) -> int:
    out = args.out or args.out_dir
    if out is None:
        raise ValueError("bag2json: give --out DIR, the folder for the JSON logs")
    paths = convert(args.bag, out, None if args.raw else args.dt, args.namespace, overwrite=args.force)
    for path in paths:
        print(path)
    print(f"{len(paths)} log(s) written to {out}", file=sys.stderr)
    return 0


def _configure_demo(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quick", action="store_true", help="a smaller grid and search: about a minute")
    p.add_argument("--out", type=Path, default=Path("demo-out"), help="output folder [demo-out]")
    p.add_argument("--force", action="store_true", help="replace the content of a non-empty --out (refused otherwise)")


def _run_demo(args: argparse.Namespace) -> int:
    if args.out.exists() and any(args.out.iterdir()):
        refuse_existing([args.out], args.force)
    from .demo import run_demo  # imports MuJoCo and optuna: only when asked

    return run_demo(args.out, args.quick)


BENCH_COMMANDS = (
    Command("demo", "the whole pipeline without ROS or hardware: emulated servo, recordings, M1-M6 fits, report, plots",
            _configure_demo, _run_demo,
            ("actuator-bench demo --quick --out demo-out      # about a minute",
             "actuator-bench demo --out demo-full --force     # 48 recordings, under 10 minutes on 2 cores")),
    Command("bag2json", "convert a bench bag into JSON logs (one per trajectory run and joint) for identification",
            _configure_bag2json, _run_bag2json,
            ("actuator-bench bag2json bags/run1 --out logs/",
             "actuator-bench bag2json bags/run1 --out logs/raw --raw --namespace /real")),
)
COMMANDS = DYNAMIXEL_COMMANDS + BENCH_COMMANDS


def main(argv: Optional[List[str]] = None) -> int:
    return run_commands(argv, COMMANDS)


if __name__ == "__main__":
    sys.exit(main())

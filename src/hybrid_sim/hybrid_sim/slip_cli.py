"""``hybrid-sim slip``: the SLIP runner of the SimSect manual, section 4."""

from __future__ import annotations

import argparse


def _run(args: argparse.Namespace) -> int:
    raise ValueError("slip: not implemented yet")


def add_subparser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("slip", help="spring-loaded inverted pendulum runner (manual section 4)")
    p.add_argument("--final-time", type=float, required=True, metavar="T", help="final time [s]")
    p.add_argument("--initial", default="", metavar="NAME=VALUE,...",
                   help="override initial states: x, y, xd, yd, foot_x, foot_y, theta")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.set_defaults(run=_run)

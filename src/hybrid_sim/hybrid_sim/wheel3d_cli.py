"""``hybrid-sim wheel3d``: the steered, cambered wheel in space (``wheel3d``) on the plane."""

from __future__ import annotations

import argparse
from dataclasses import fields
from typing import Any, Dict

import numpy as np

from .engine import simulate
from .runopts import (add_run_arguments, check_outputs, finish, parse_assignments, progress_printer, read_config,
                      settings_from_args)
from .wheel import WheelParameters
from .wheel3d import SteeredWheel, Steering, initial_state_3d
from .wheel_cli import DEFAULTS

INITIAL = {"height": 0.05, "speed": 1.0, "spin": 1.0 / 0.3, "course": float("nan")}


def _run(args: argparse.Namespace) -> int:
    names = [f.name for f in fields(WheelParameters)]
    symbols = read_config(args.config, names + ["steer", "camber"] + list(INITIAL))
    given = {n: float(v) for n, v in symbols.items() if n in names}
    given.update(parse_assignments(args.param, "--param"))
    for name in given:
        if name not in names:
            raise ValueError(f"--param: unknown wheel parameter {name!r}; known: {', '.join(names)}")
    initial = dict(INITIAL, **{n: float(v) for n, v in symbols.items() if n in INITIAL})
    for name, value in parse_assignments(args.initial, "--initial").items():
        if name not in initial:
            raise ValueError(f"--initial: unknown name {name!r}; known: {', '.join(initial)}")
        initial[name] = value
    steer = args.steer if args.steer is not None else float(symbols.get("steer", 0.0))
    camber = args.camber if args.camber is not None else float(symbols.get("camber", 0.0))
    steering = Steering(steer, camber)
    params = WheelParameters(**given)
    course = None if np.isnan(initial["course"]) else initial["course"]
    x0 = initial_state_3d(initial["height"], initial["speed"], initial["spin"], params, steering, course)
    settings = settings_from_args(args, DEFAULTS, symbols)
    check_outputs(args, settings)
    model = SteeredWheel(params, steering)
    result = simulate(model, x0, settings, progress=progress_printer(settings))
    aux = dict(zip(result.aux_names, result.aux))
    info: Dict[str, Any] = {"status": result.status, "message": result.message, "transitions": len(result.events),
            "final": {k: float(aux[k][-1]) for k in ("x", "y", "z", "xd", "yd", "phid", "theta", "qy", "energy")},
            "balance_drift": float(np.ptp(aux["balance"])), "max_abs_theta": float(np.abs(aux["theta"]).max()),
            "max_abs_qy": float(np.abs(aux["qy"]).max())}
    f = info["final"]
    print(f"wheel3d {settings.final_time:g} s, steer {steer:g} rad, camber {camber:g} rad: {result.message}; "
          f"{info['transitions']} transitions")
    print(f"  final x {f['x']:.6f} y {f['y']:.6f} z {f['z']:.6f} m, velocity ({f['xd']:.4f}, {f['yd']:.4f}) m/s; "
          f"max |theta| {info['max_abs_theta']:.3g} rad, max |qy| {info['max_abs_qy']:.3g} m; "
          f"energy balance drift {info['balance_drift']:.3g} J")
    return finish(result, model, x0, args, info, plot_states=("x", "y", "z", "theta", "qy"))


def add_subparser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("wheel3d", help="steered, cambered wheel in space on the tire contact (lateral, yaw)",
                       description="The wheel of 'wheel' moving in x, y, z, held by a rig at a fixed steer and "
                       "camber angle and spinning freely about its axle, on the plane z = 0.")
    p.add_argument("--steer", type=float, metavar="RAD", help="steer angle psi about the vertical (default 0)")
    p.add_argument("--camber", type=float, metavar="RAD", help="camber angle gamma (default 0)")
    p.add_argument("--param", default="", metavar="NAME=VALUE,...", help="wheel parameters, as for 'wheel' "
                   "(amplitude must stay 0)")
    p.add_argument("--initial", default="", metavar="NAME=VALUE,...",
                   help="height, speed, spin, course (direction of the velocity from x [rad]; default: the heading)")
    add_run_arguments(p, DEFAULTS)
    p.set_defaults(run=_run)

"""``hybrid-sim stick-slip``: the exact stick/slip reference of a pendulum log and the
discretisation error of the fixed-step simulators against it."""

from __future__ import annotations

import argparse
import math
import json
from pathlib import Path

from actuator_models.divergence import params_named
from actuator_models.logs import ALLOW_MISMATCH_HELP, ALLOW_ODD_LOGS_HELP, check_motor, read_log
from actuator_models.model import load_model

from .pendulum import INTEGRATORS, REFERENCE_SETTINGS, STATE_UNITS, discretisation_errors, exact_rollout
from .plot import plot_run
from .runopts import check_outputs
from .symbols import refuse_overwrite, write_outputs


def _dts(text: str):
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected comma-separated steps [s]") from None
    if not values or not all(0.0 < value < math.inf for value in values):
        raise argparse.ArgumentTypeError(f"{text!r}: steps must be finite and > 0")
    return values


#: at least this many steps of the largest dt over the log, at most MAX_STEPS of the smallest
MIN_STEPS, MAX_STEPS = 100, 1_000_000


def check_dts(dts, duration: float) -> None:
    """Refuse steps that do not resolve the log (fewer than ``MIN_STEPS`` over ``duration`` [s]) or
    that exceed the step budget (more than ``MAX_STEPS``): ``--dts 10`` on a 6 s log gave a reference
    "0.000 s stuck" and both integrators at 0.0000, exit 0."""
    if max(dts) > duration / MIN_STEPS:
        raise ValueError(f"--dts: step {max(dts):g} s is more than 1/{MIN_STEPS} of the log's {duration:g} s")
    if duration / min(dts) > MAX_STEPS:
        raise ValueError(f"--dts: step {min(dts):g} s takes {duration / min(dts):.3g} steps over the log's "
                         f"{duration:g} s, more than the budget of {MAX_STEPS}")


def _run(args: argparse.Namespace) -> int:
    model = load_model(args.params)
    log = read_log(args.log, args.allow_odd_logs)
    check_motor([log], model.actuator.name, f"params {args.params}", args.allow_mismatch)
    check_dts(args.dts, float(log.timestamp[-1] - log.timestamp[0]))
    check_outputs(args)
    with params_named(args.params):
        row = discretisation_errors(model, log, args.dts)
    print(f"{Path(args.log).name} ({log.trajectory}, kp {log.kp:g}), {model.name}: reference with "
          f"{row.transitions} transitions, {row.stick_time:.3f} s stuck; MAE reference vs log "
          f"{row.reference_vs_log * 1e3:.3f} mrad")
    for integrator in INTEGRATORS:
        cells = ", ".join(f"dt {dt * 1e3:g} ms: {row.mae[(integrator, dt)] * 1e3:.4f}" for dt in args.dts)
        print(f"  {integrator:<13} MAE vs reference [mrad]  {cells}")
    if args.plot or args.out:
        reference = exact_rollout(model, log, min(args.dts), REFERENCE_SETTINGS)
        if args.out:
            write_outputs(args.out, reference, reference.y[:, 0], reference_parameters(model, log), force=args.force)
        if args.plot:
            refuse_overwrite(args.plot, args.force)
            plot_run(reference, args.plot, ("q", "v", "goal"), title=f"stick/slip reference: {Path(args.log).name}",
                     units=STATE_UNITS)
    if args.json:
        print(json.dumps({"log": args.log, "model": model.name, "transitions": row.transitions,
                          "stick_time": row.stick_time, "reference_vs_log": row.reference_vs_log,
                          "mae": {f"{i}@{dt:g}": row.mae[(i, dt)] for i in INTEGRATORS for dt in args.dts}}))
    return 0


def reference_parameters(model, log):
    return {**{k: float(v) for k, v in model.values.items()}, "mass": float(log.mass), "length": float(log.length),
            "arm_mass": float(log.arm_mass), "kp": float(log.kp)}


def add_subparser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stick-slip", help="exact stick/slip pendulum reference; discretisation error of bam "
                       "and semi-implicit steps")
    p.add_argument("--params", required=True, help="a params JSON file or a published model such as xl330/m6")
    p.add_argument("--log", required=True, help="a processed pendulum log (JSON)")
    p.add_argument("--dts", type=_dts, default=(0.001, 0.005, 0.01), metavar="DT,...",
                   help="fixed steps to compare [s] (multiples of the smallest; default 0.001,0.005,0.01)")
    p.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    p.add_argument("--plot", metavar="PNG", help="plot of the reference run")
    p.add_argument("--out", metavar="BASE", help="write the reference's BASE.data/.initial/.param")
    p.add_argument("--force", action="store_true", help="overwrite existing output files")
    p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)
    p.add_argument("--allow-mismatch", action="store_true", help=ALLOW_MISMATCH_HELP)
    p.set_defaults(run=_run)

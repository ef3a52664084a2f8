"""``actuator-models``: process logs, simulate and evaluate friction models from the shell.

Bad input (a malformed log or params file) prints one ``error: ...`` line naming the file,
entry and field, and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import numpy as np

from .evaluation import evaluate
from .fit_cli import FitUsageError, add_fit_command
from .logs import LogError, log_files, read_log, resample, write_log
from .model import ParamsError, library_names, load_model
from .recording_quality import processing_warning

PARAMS_HELP = "a params JSON file, or a published model by name such as xl330/m6 (see 'actuator-models library')"

EPILOG = """\
examples:
  actuator-models library
  actuator-models process raw_logs/ processed_logs/ --dt 0.005
  actuator-models simulate --params xl330/m6 --log processed_logs/run.json --out sim.json
  actuator-models evaluate --params xl330/m1 xl330/m6 my_params.json --logs processed_logs/
  actuator-models fit --logs processed_logs/ --actuator xl330 --model all --out fitted/

Units: rad, rad/s, N m, kg, m, V. Models M1-M6 are those of "Extended Friction Models for the
Physics Simulation of Servo Actuators" (Duclusaud et al., ICRA 2025)."""


class UsageError(ValueError):
    """A command-line argument that cannot be used."""


def _cmd_process(args: argparse.Namespace) -> int:
    out_dir = Path(args.out_dir)
    files = log_files(args.raw_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for path in files:
        raw = read_log(path)
        warning = processing_warning(raw.timestamp, args.dt, path.name) if raw.dt is None else None
        if warning:
            print(warning, file=sys.stderr)
        processed = resample(raw, args.dt)
        write_log(processed, out_dir / path.name)
        print(f"{path.name}: {len(processed)} entries at dt={args.dt} s")
    print(f"processed {len(files)} logs into {out_dir}")
    return 0


def _processed(path: str, dt: float) -> "object":
    log = read_log(path)
    if log.dt is None:
        print(f"{path}: raw log, resampled at dt={dt} s", file=sys.stderr)
        log = resample(log, dt)
    return log


def _cmd_simulate(args: argparse.Namespace) -> int:
    model = load_model(args.params)
    log = _processed(args.log, args.dt)
    integrator = args.integrator or model.integrator
    from .simulation import simulate_logs  # local: keeps --help fast

    positions = simulate_logs(model, [log], integrator)[0]
    mae = float(np.mean(np.abs(positions - log.position)))
    print(f"{Path(args.log).name}: MAE {mae:.6f} rad ({model.name}, integrator {integrator})")
    if args.out:
        from dataclasses import replace

        speed = np.gradient(positions, log.dt)
        write_log(replace(log, position=positions, speed=speed, extra={}), args.out)
        print(f"simulated log written to {args.out}")
    return 0


def _cmd_evaluate(args: argparse.Namespace) -> int:
    results = evaluate(args.params, args.logs, args.integrator)
    names = list(next(iter(results.values())).maes)
    width = max(len(n) for n in names)
    header = f"{'log':<{width}}  " + "  ".join(f"{p:>14}" for p in results)
    print(header)
    for name in names:
        print(f"{name:<{width}}  " + "  ".join(f"{r.maes[name]:>14.6f}" for r in results.values()))
    print(f"{'mean':<{width}}  " + "  ".join(f"{r.mean:>14.6f}" for r in results.values()))
    if args.json:
        print(json.dumps({key: r.to_dict() for key, r in results.items()}))
    return 0


def _cmd_library(args: argparse.Namespace) -> int:
    for name in library_names():
        print(name)
    return 0


def _add_core_commands(sub: "argparse._SubParsersAction") -> None:
    p = sub.add_parser("process", help="resample raw logs at a fixed time step",
                       description="Resample every raw JSON log of RAW_DIR at a fixed dt and write them to OUT_DIR.")
    p.add_argument("raw_dir", metavar="RAW_DIR", help="folder of raw JSON logs (irregular timestamps)")
    p.add_argument("out_dir", metavar="OUT_DIR", help="folder for the processed logs (created)")
    p.add_argument("--dt", type=float, default=0.005, help="time step in seconds (default 0.005)")
    p.set_defaults(run=_cmd_process)

    p = sub.add_parser("simulate", help="replay one log in simulation and print its MAE",
                       description="Simulate one logged experiment with a model and print the mean absolute "
                                   "position error (rad) against the log.")
    p.add_argument("--params", required=True, metavar="P", help=PARAMS_HELP)
    p.add_argument("--log", required=True, metavar="L", help="a processed (or raw, resampled at --dt) JSON log")
    p.add_argument("--out", metavar="SIM_JSON", help="write the simulated trajectory as a log file")
    p.add_argument("--dt", type=float, default=0.005, help="resampling step for a raw log (default 0.005 s)")
    p.add_argument("--integrator", choices=("bam", "semi-implicit"),
                   help="override the params file's integrator")
    p.set_defaults(run=_cmd_simulate)

    p = sub.add_parser("evaluate", help="per-log and mean MAE of one or more models",
                       description="Simulate every processed log of a folder with each model and print a "
                                   "table of MAE (rad) per log and the mean.")
    p.add_argument("--params", required=True, nargs="+", metavar="P", help=PARAMS_HELP)
    p.add_argument("--logs", required=True, metavar="DIR", help="folder of processed JSON logs")
    p.add_argument("--json", action="store_true",
                   help='also print one JSON line {"<params>": {"mean": x, "logs": {"<log>": mae}}}')
    p.add_argument("--integrator", choices=("bam", "semi-implicit"),
                   help="override each params file's integrator")
    p.set_defaults(run=_cmd_evaluate)

    p = sub.add_parser("library", help="list the shipped published models",
                       description="List the published models shipped with the package (credit: "
                                   "Duclusaud et al., ICRA 2025, Apache-2.0).")
    p.set_defaults(run=_cmd_library)


#: Functions that add subcommands.
COMMAND_GROUPS: List[Callable[["argparse._SubParsersAction"], None]] = [_add_core_commands, add_fit_command]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="actuator-models",
        description="Friction models M1-M6 for servo actuators: process bench logs, simulate them, "
                    "evaluate and fit models.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for add in COMMAND_GROUPS:
        add(sub)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (LogError, ParamsError, UsageError, FitUsageError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

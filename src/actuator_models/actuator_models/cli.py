"""``actuator-models``: process logs, simulate and evaluate friction models from the shell.

Bad input (a malformed log or params file, an output that exists) prints one ``error: ...``
line naming the file, entry and field, and exits with status 2; a runtime fault (a file that
cannot be written) exits with status 1. One vocabulary with ``actuator-sim`` and
``actuator-bench``: ``--params``, ``--logs``, ``--out``, ``--force``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Callable, List, Optional, Sequence

import numpy as np

from .actuator_file import ActuatorFileError
from .divergence import DivergentStep, params_named
from .dahl_cli import add_dahl_command
from .dahl_identification import DahlDataError
from .evaluation import evaluate_model, evaluation_backends
from .exit_codes import ArgumentParser, json_alone, run_command, whole_process
from .log_checks import check_dt_option
from .fit_cli import FitUsageError, add_fit_command
from .logs import ALLOW_MISMATCH_HELP, ALLOW_ODD_LOGS_HELP, PROCESSED_DT, Log, LogError, check_motor, log_files, read_log, read_logs, require_processed, write_log
from .resampling import resample
from .model import ParamsError, library_names, load_model
from .recording_quality import processing_warning
from .residuals_cli import add_residuals_command
from .outputs import OutputExistsError, refuse_existing, refuse_inside

PARAMS_HELP = "a params JSON file, or a published model by name such as xl330/m6 (see 'actuator-models library')"
FORCE_HELP = "overwrite existing output files (refused otherwise)"

EPILOG = """\
examples:
  actuator-models library
  actuator-models process --logs raw_logs/ --out processed_logs/ --dt 0.005
  actuator-models simulate --params xl330/m6 --log processed_logs/run.json --out sim.json
  actuator-models evaluate --params xl330/m1 xl330/m6 my_params.json --logs processed_logs/
  actuator-models fit --logs processed_logs/ --actuator xl330 --model all --out fitted/
  actuator-models fit --logs processed_logs/ --actuator my_servo.yaml --model m1
  actuator-models dahl identify --constant-velocity A.csv --periodic B.csv --json

A params argument is a JSON file or a published model by name; an actuator argument is a
registry name (mx64, mx106, xl330, erob80_50, erob80_100) or an actuator description file.
Exit status: 0 done, 2 bad input (the one 'error:' line names file, field and value),
1 a runtime fault (a file that cannot be written...), 130 interrupted.
Units: rad, rad/s, N m, kg, m, V. Models M1-M6 are those of "Extended Friction Models for the
Physics Simulation of Servo Actuators" (Duclusaud et al., ICRA 2025)."""

PROCESS_EPILOG = """\
examples:
  actuator-models process --logs data/xl330/raw --out processed/
  actuator-models process --logs logs/raw --out logs/processed --dt 0.002
  actuator-models process logs/raw logs/processed      # the same folders, given by position
  actuator-models process --logs logs/raw --out logs/processed --hold-commands   # another loop's logs, held

The output folder must not be the input folder or inside it, and existing files are not
overwritten without --force."""

SIMULATE_EPILOG = """\
examples:
  actuator-models simulate --params xl330/m6 --log data/xl330/processed/2026-01-15_10h28m10.json
  actuator-models simulate --params fit-xl330/m6.json --log run.json --out sim.json
  actuator-models simulate --params mx64/m6 --log xl330_run.json --allow-mismatch"""

EVALUATE_EPILOG = """\
examples:
  actuator-models evaluate --params xl330/m1 xl330/m6 --logs data/xl330/processed
  actuator-models evaluate --params fit-xl330/m6.json xl330/m6 --logs data/xl330/processed --json"""

LIBRARY_EPILOG = """\
example:
  actuator-models library"""


class UsageError(ValueError):
    """A command-line argument that cannot be used."""


def _print_notes(notes: Sequence[str]) -> None:
    """Notes (defaults used...) go to stderr once the input has been checked, so that bad input
    still gives a single ``error:`` line."""
    for text in notes:
        print(text, file=sys.stderr)


def _warn_sparse(log, dt: float, name: str):
    """The raw ``log``, after a stderr warning if it is too sparse to process at ``dt``."""
    warning = processing_warning(log.timestamp, dt, name) if log.dt is None else None
    if warning:
        print(f"warning: {warning}", file=sys.stderr)
    return log


def _check_dt_option(dt: float, allow_odd: bool) -> None:
    """:func:`check_dt_option` as a usage error (exit 2)."""
    try:
        check_dt_option(dt, "--dt", allow_odd)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _cmd_process(args: argparse.Namespace) -> int:
    for option, named, positional in (("--logs", args.logs, args.raw_dir), ("--out", args.out, args.out_dir)):
        if named and positional and named != positional:
            raise UsageError(f"process: {option} {named} and the positional {positional} disagree; give one")
    raw_dir = args.logs or args.raw_dir
    out_arg = args.out or args.out_dir
    if not (raw_dir and out_arg):
        raise UsageError("process: give --logs RAW_DIR and --out OUT_DIR (or RAW_DIR OUT_DIR)")
    _check_dt_option(args.dt, args.allow_odd_logs)
    out_dir = Path(out_arg)
    files = log_files(raw_dir)
    refuse_inside(out_dir, raw_dir)
    refuse_existing((out_dir / path.name for path in files), args.force)
    processed = [(path, resample(_warn_sparse(read_log(path, args.allow_odd_logs), args.dt, path.name), args.dt,
                                           args.hold_commands)) for path in files]
    for path, log in processed:
        write_log(log, out_dir / path.name)
        print(f"{path.name}: {len(log)} entries at dt={args.dt} s, commands {'held' if log.commands_held else 'interpolated'}")
    print(f"processed {len(files)} logs into {out_dir}")
    return 0


def _processed(path: str, dt: float, allow_odd: bool) -> Log:
    log = read_log(path, allow_odd)
    if log.dt is None:
        print(f"{path}: raw log, resampled at dt={dt} s", file=sys.stderr)
        log = resample(log, dt)
    return log


def _cmd_simulate(args: argparse.Namespace) -> int:
    notes: List[str] = []
    _check_dt_option(args.dt, args.allow_odd_logs)
    model = load_model(args.params, notes.append)
    log = _processed(args.log, args.dt, args.allow_odd_logs)
    check_motor([log], model.actuator.name, f"params {args.params}", args.allow_mismatch)
    if args.out:
        refuse_existing([args.out], args.force)
    _print_notes(notes)
    integrator = args.integrator or model.integrator
    from .simulation import simulate_logs  # local: keeps --help fast

    with params_named(args.params):
        positions = simulate_logs(model, [log], integrator)[0]
    mae = float(np.mean(np.abs(positions - log.position)))
    print(f"{Path(args.log).name}: MAE {mae:.6f} rad ({model.name}, integrator {integrator})")
    if args.out:
        from dataclasses import replace

        speed = np.gradient(positions, log.period)
        write_log(replace(log, position=positions, speed=speed, extra={}), args.out)
        print(f"simulated log written to {args.out}")
    return 0


@json_alone
def _cmd_evaluate(args: argparse.Namespace) -> int:
    logs = require_processed(read_logs(args.logs, args.allow_odd_logs), args.logs)
    notes: List[str] = []
    models = {name: load_model(name, notes.append) for name in args.params}
    for name, model in models.items():
        check_motor(logs, model.actuator.name, f"params {name}", args.allow_mismatch)
    _print_notes(notes)
    results = {}
    for name, model in models.items():
        with params_named(name):
            results[name] = evaluate_model(model, logs, args.integrator, args.backend)
    names = list(next(iter(results.values())).maes)
    width = max(len(n) for n in names)
    header = f"{'log':<{width}}  " + "  ".join(f"{p:>14}" for p in results)
    print(header)
    for name in names:
        print(f"{name:<{width}}  " + "  ".join(f"{r.maes[name]:>14.6f}" for r in results.values()))
    print(f"{'mean':<{width}}  " + "  ".join(f"{r.mean:>14.6f}" for r in results.values()))
    if args.json:
        print(json.dumps({key: r.to_dict() for key, r in results.items()}), file=args.json_stream)
    return 0


def _cmd_library(args: argparse.Namespace) -> int:
    for name in library_names():
        print(name)
    return 0


def _parser(sub: "argparse._SubParsersAction", name: str, help: str, description: str, epilog: str) -> argparse.ArgumentParser:
    return sub.add_parser(name, help=help, description=description, epilog=epilog,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def _add_core_commands(sub: "argparse._SubParsersAction") -> None:
    p = _parser(sub, "process", "resample raw logs at a fixed time step",
                "Resample every raw JSON log of --logs at a fixed dt and write them to --out.", PROCESS_EPILOG)
    p.add_argument("--logs", metavar="DIR", help="folder of raw JSON logs (irregular timestamps)")
    p.add_argument("--out", metavar="DIR", help="folder for the processed logs (created; not inside --logs)")
    p.add_argument("raw_dir", nargs="?", metavar="RAW_DIR", help="the same as --logs RAW_DIR")
    p.add_argument("out_dir", nargs="?", metavar="OUT_DIR", help="the same as --out OUT_DIR")
    p.add_argument("--dt", type=float, default=PROCESSED_DT, help=f"time step in seconds (default {PROCESSED_DT:g})")
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)
    p.add_argument("--hold-commands", action="store_true",
                   help="goal and torque enable held from each entry to the next (the command in force, also across "
                        "cycles a busy host skipped), not interpolated as the published tool does; a log that says "
                        "\"commands_held\" (this project's recordings) is held without it")
    p.set_defaults(run=_cmd_process)

    p = _parser(sub, "simulate", "replay one log in simulation and print its MAE",
                "Simulate one logged experiment with a model and print the mean absolute position error "
                "(rad) against the log.", SIMULATE_EPILOG)
    p.add_argument("--params", required=True, metavar="P", help=PARAMS_HELP)
    p.add_argument("--log", required=True, metavar="L", help="a processed (or raw, resampled at --dt) JSON log")
    p.add_argument("--out", metavar="SIM_JSON", help="write the simulated trajectory as a log file")
    p.add_argument("--dt", type=float, default=PROCESSED_DT,
                   help=f"resampling step for a raw log (default {PROCESSED_DT:g} s)")
    p.add_argument("--integrator", choices=("bam", "semi-implicit"),
                   help="override the params file's integrator")
    p.add_argument("--allow-mismatch", action="store_true", help=ALLOW_MISMATCH_HELP)
    p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)
    p.add_argument("--force", action="store_true", help=FORCE_HELP)
    p.set_defaults(run=_cmd_simulate)

    p = _parser(sub, "evaluate", "per-log and mean MAE of one or more models",
                "Simulate every processed log of a folder with each model and print a table of MAE (rad) "
                "per log and the mean.", EVALUATE_EPILOG)
    p.add_argument("--params", required=True, nargs="+", metavar="P", help=PARAMS_HELP)
    p.add_argument("--logs", required=True, metavar="DIR", help="folder of processed JSON logs")
    p.add_argument("--json", action="store_true",
                   help='print one JSON line {"<params>": {"mean": x, "logs": {"<log>": mae}}} alone on stdout '
                        '(the table goes to stderr)')
    p.add_argument("--integrator", choices=("bam", "semi-implicit"),
                   help="override each params file's integrator (numpy backend)")
    p.add_argument("--backend", choices=evaluation_backends(), default="numpy",
                   help="simulator: numpy (default); mujoco: CPU MuJoCo with the servo step in the loop; "
                        "mujoco-native: the native export (actuator-sim export) in plain MuJoCo, no Python in the "
                        "loop; mjwarp: all logs as one batch of MuJoCo Warp worlds (the MuJoCo ones are "
                        "semi-implicit: compare with --integrator semi-implicit)")
    p.add_argument("--allow-mismatch", action="store_true", help=ALLOW_MISMATCH_HELP)
    p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)
    p.set_defaults(run=_cmd_evaluate)

    p = _parser(sub, "library", "list the shipped published models",
                "List the published models shipped with the package (credit: Duclusaud et al., ICRA 2025, "
                "Apache-2.0).", LIBRARY_EPILOG)
    p.set_defaults(run=_cmd_library)


#: Errors that mean bad input (exit status 2, see :mod:`.exit_codes`).
BAD_INPUT_ERRORS = (LogError, ParamsError, UsageError, FitUsageError, OutputExistsError, ActuatorFileError,
                    DahlDataError, DivergentStep)

#: Functions that add subcommands.
COMMAND_GROUPS: List[Callable[["argparse._SubParsersAction"], None]] = [_add_core_commands, add_fit_command, add_dahl_command,
                                                                    add_residuals_command]


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
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
    args.argv = list(sys.argv[1:] if argv is None else argv)  # as typed: an interrupted fit prints how to resume
    return run_command(lambda: args.run(args), "actuator-models", BAD_INPUT_ERRORS)


def console_main() -> int:
    """The ``actuator-models`` program: :func:`main` as the whole life of the process."""
    return whole_process(main)


if __name__ == "__main__":
    sys.exit(console_main())

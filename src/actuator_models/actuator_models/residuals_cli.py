"""``actuator-models residuals``: where a model's error comes from (see :mod:`.residuals`);
matplotlib and the simulation load only when the command runs."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from .logs import ALLOW_MISMATCH_HELP, ALLOW_ODD_LOGS_HELP


def run_residuals(args: argparse.Namespace) -> int:
    """``actuator-models residuals``: analyse, print a table, write residuals.json and figures."""
    from .logs import check_motor, read_logs
    from .model import load_model
    from .outputs import refuse_existing
    from .residual_plots import plot_bins, plot_log, plot_phases
    from .residuals import analyse, summary_rows, to_dict

    model = load_model(args.params)
    logs = read_logs(args.logs, args.allow_odd_logs)
    check_motor(logs, model.actuator.name, f"--params {args.params}", args.allow_mismatch)
    out = Path(args.out)
    files = [out / name for name in ("residuals.json", "phases.png", "bins.png", "worst_log.png")]
    refuse_existing(files, args.force)
    residuals, simulated = analyse(model, logs)
    for row in summary_rows(residuals):
        print(row)
    out.mkdir(parents=True, exist_ok=True)
    files[0].write_text(json.dumps({"params": str(args.params), **to_dict(residuals)}, indent=2) + "\n")
    name = f"{model.name} ({Path(str(args.params)).name})"
    plot_phases(residuals, files[1], f"{name}: MAE by trajectory phase and gain")
    plot_bins(residuals, files[2], f"{name}: MAE by speed and by load")
    worst = int(np.argmax([r.mae for r in residuals]))
    plot_log(logs[worst], simulated[worst], files[3],
             f"{name} on {residuals[worst].name} (kp {residuals[worst].kp:g}, {residuals[worst].trajectory})")
    print(f"written to {out}")
    return 0


def add_residuals_command(sub: "argparse._SubParsersAction") -> None:
    p = sub.add_parser(
        "residuals", help="where a model's error comes from: by phase, gain, speed and load",
        description="Replay a model on processed logs and split its position error by trajectory phase (torque "
                    "release, reversal, hold under load, high speed), by gain, speed and load; estimate the latency "
                    "(cross-correlation of simulated and measured motion) and the hysteresis at reversals. Writes "
                    "residuals.json, phases.png, bins.png and worst_log.png.",
        epilog="example:\n  actuator-models residuals --params fit-xl330/m6.json --logs data/xl330/processed "
               "--out residuals/", formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--params", required=True, help="a params JSON file or a published model name (xl330/m6)")
    p.add_argument("--logs", required=True, metavar="DIR", help="folder of processed JSON logs")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--allow-mismatch", action="store_true", help=ALLOW_MISMATCH_HELP)
    p.add_argument("--allow-odd-logs", action="store_true", help=ALLOW_ODD_LOGS_HELP)
    p.add_argument("--force", action="store_true", help="overwrite an earlier analysis in --out")
    p.set_defaults(run=run_residuals)

"""Fit M1-M6, Dahl and Dahl + viscous on the 12 XL330 logs (default split) and print the
validation MAE table, overall and per trajectory.

Run by hand (minutes per model on 2 cores):
    .venv/bin/python benchmarks/dahl_xl330.py [--logs data/xl330/processed] [--out dahl-xl330/] [--trials 6000]

Uses only the public ``fit(FitSpec)`` API, so it keeps working whatever engine ``fit`` runs on.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

from actuator_models.fit_data import FitSettings
from actuator_models.fit_outputs import FitOutputs
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.logs import read_logs

MODELS = ("m1", "m2", "m3", "m4", "m5", "m6", "dahl", "dahl+viscous")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", default="data/xl330/processed")
    parser.add_argument("--out", default="dahl-xl330")
    parser.add_argument("--trials", type=int, default=6000)
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    logs = read_logs(args.logs)
    trajectory = {Path(log.source).name: log.trajectory for log in logs}
    rows = {}
    for name in args.models:
        began = time.perf_counter()
        spec = FitSpec(logs, "xl330", (name,), FitSettings(trials=args.trials, seed=0), carry=(),
                       outputs=FitOutputs.in_folder(out, [name]))
        result = fit(spec).result()
        per_trajectory = defaultdict(list)
        for log, mae in result.validation_logs.items():
            per_trajectory[trajectory[log]].append(mae)
        rows[name] = {
            "train_mae": result.train_mae,
            "validation_mae": result.validation_mae,
            "validation_logs": result.validation_logs,
            "per_trajectory": {k: float(np.mean(v)) for k, v in sorted(per_trajectory.items())},
            "trials": result.trials,
            "seconds": time.perf_counter() - began,
            "params": {k: float(v) for k, v in result.model.values.items()},
        }
        (out / "results.json").write_text(json.dumps(rows, indent=2) + "\n")
        print(f"{name}: train {result.train_mae * 1e3:.3f} mrad, validation {result.validation_mae * 1e3:.3f} mrad "
              f"({result.trials} trials, {rows[name]['seconds']:.0f} s)", flush=True)
    trajectories = sorted({t for r in rows.values() for t in r["per_trajectory"]})
    print("\n| model | train MAE [mrad] | validation MAE [mrad] | " + " | ".join(trajectories) + " |")
    print("|---|---|---|" + "---|" * len(trajectories))
    for name, r in rows.items():
        cells = " | ".join(f"{r['per_trajectory'].get(t, float('nan')) * 1e3:.3f}" for t in trajectories)
        print(f"| {name} | {r['train_mae'] * 1e3:.3f} | {r['validation_mae'] * 1e3:.3f} | {cells} |")


if __name__ == "__main__":
    main()

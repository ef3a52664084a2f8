"""Discretisation error of the fixed-step pendulum simulators against the exact stick/slip reference.

    python benchmarks/stick_slip_discretisation.py [--models xl330/m6 xl330/m1]
        [--logs data/xl330/processed] [--dts 0.001 0.005 0.01] [--out table.json]

For every processed log (the real XL330 recordings: the four identification trajectories at
kp 100/200/800, dt 5 ms) and every model, runs the hybrid reference of ``hybrid_sim.pendulum``
(charts SLIDE+, SLIDE-, STICK; the logged command held between samples) and the project's
``bam`` and ``semi-implicit`` steps at each dt on the same held command, and prints the MAE
[rad] between each fixed-step rollout and the reference, next to the MAE of the reference and of
the bam step at the log's 5 ms against the logged positions (what identification minimises).
Takes about a minute per model on a loaded 2-core machine.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from actuator_models.logs import read_logs
from actuator_models.model import load_model
from actuator_models.simulation import log_maes
from hybrid_sim.pendulum import INTEGRATORS, discretisation_errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["xl330/m6", "xl330/m1"])
    parser.add_argument("--logs", default="data/xl330/processed")
    parser.add_argument("--dts", nargs="+", type=float, default=[0.001, 0.005, 0.01])
    parser.add_argument("--out", help="write the table as JSON")
    args = parser.parse_args()
    logs = read_logs(args.logs)
    table = []
    columns = [(i, dt) for i in INTEGRATORS for dt in args.dts]
    for name in args.models:
        model = load_model(name)
        print(f"\n{name} (published parameters; MAE in mrad)")
        head = " | ".join(f"{i[:4]} {dt * 1e3:g}ms" for i, dt in columns)
        print(f"| trajectory | kp | {head} | ref vs log | bam 5ms vs log | transitions | stick [s] |")
        print("|" + "---|" * (len(columns) + 6))
        log_mae = log_maes(model, logs, "bam")
        for log, fit_mae in zip(logs, log_mae):
            row = discretisation_errors(model, log, args.dts)
            cells = " | ".join(f"{row.mae[c] * 1e3:.3f}" for c in columns)
            print(f"| {row.trajectory} | {row.kp:g} | {cells} | {row.reference_vs_log * 1e3:.2f} | "
                  f"{fit_mae * 1e3:.2f} | {row.transitions} | {row.stick_time:.2f} |", flush=True)
            table.append({"model": name, "log": Path(row.log).name, "trajectory": row.trajectory, "kp": row.kp,
                          "mae": {f"{i}@{dt:g}": row.mae[(i, dt)] for i, dt in columns},
                          "reference_vs_log": row.reference_vs_log, "bam_log_dt_vs_log": float(fit_mae),
                          "transitions": row.transitions, "stick_time": row.stick_time})
        rows = [r for r in table if r["model"] == name]
        means = " | ".join(f"{np.mean([r['mae'][f'{i}@{dt:g}'] for r in rows]) * 1e3:.3f}" for i, dt in columns)
        print(f"| **mean** | | {means} | {np.mean([r['reference_vs_log'] for r in rows]) * 1e3:.2f} | "
              f"{np.mean([r['bam_log_dt_vs_log'] for r in rows]) * 1e3:.2f} | | |")
    if args.out:
        Path(args.out).write_text(json.dumps(table, indent=1) + "\n")


if __name__ == "__main__":
    main()

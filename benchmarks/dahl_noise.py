"""Noise study of the two-stage Dahl identification (the paper has none; defined here).

The paper's experiment (section 3: Fc = 1, rho = 1; stage 1 x = t for 30 s, stage 2
x = -cos t for 6 periods; sampled at 100 Hz) with white Gaussian noise on F of 0.1 %, 1 % and
5 % of Fc, and x quantised as by a 4096-count encoder (2 pi / 4096 rad); with ``--x-noise``,
also white noise of the same level times the amplitude (1 rad) on x. For each level, 50
seeds: bias (mean - true) and spread (standard deviation) of Fc and of rho by eq. 39 (Xmin),
eq. 40 (Xmax), eq. 41 (midpoint), the least-squares fit of eq. 35 over the loading branch and
the recommended estimate (the smallest reported uncertainty); "failed" counts seeds where an
equation's argument left its domain (|F| >= Fc) and "refused" seeds the identification refused.

Clean signals come from the exact Dahl update (reversal steps split), accurate to 1e-7 here.

    .venv/bin/python benchmarks/dahl_noise.py [--seeds 50] [--x-noise] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from actuator_models.dahl import dahl_states
from actuator_models.dahl_identification import DahlDataError, Record, identify

FC, RHO, DT = 1.0, 1.0, 0.01
COUNT = 2 * np.pi / 4096  # rad per encoder count
LEVELS = (0.0, 0.001, 0.01, 0.05)
METHODS = (("eq. 39 (Xmin)", "rho_xmin"), ("eq. 40 (Xmax)", "rho_xmax"),
           ("eq. 41 (midpoint)", "rho_mid"), ("least squares (eq. 35)", "rho_fit"),
           ("recommended", "rho"))


def clean_signals():
    t1 = np.arange(0.0, 30.0, DT)
    f1 = FC * dahl_states(t1, RHO, 0.0)
    t2 = np.arange(0.0, 6 * 2 * np.pi, DT)
    f2 = FC * dahl_states(-np.cos(t2), RHO, 0.0, v=np.sin(t2), dt=DT)
    return (t1, t1, f1), (t2, -np.cos(t2), f2)


def quantise(x: np.ndarray) -> np.ndarray:
    return np.round(x / COUNT) * COUNT


def run(seeds: int, x_noise: bool = False) -> dict:
    (t1, x1, f1), (t2, x2, f2) = clean_signals()
    table = {}
    for level in LEVELS:
        estimates = {"Fc": [], **{key: [] for _, key in METHODS}}
        refused = 0
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            x_level = level if x_noise else 0.0
            ramp = Record(t1, quantise(x1 + rng.normal(0.0, x_level, len(t1))),
                          f1 + rng.normal(0.0, level * FC, len(t1)), "ramp")
            wave = Record(t2, quantise(x2 + rng.normal(0.0, x_level, len(t2))),
                          f2 + rng.normal(0.0, level * FC, len(t2)), "wave")
            try:
                result = identify(ramp, wave)
            except DahlDataError:
                refused += 1
                continue
            estimates["Fc"].append(result.fc)
            for _, key in METHODS:
                estimates[key].append(getattr(result.hysteresis, key))
        row: dict = {"refused": refused}
        for key, values in estimates.items():
            if not values:
                continue
            values = np.array(values)
            ok = values[np.isfinite(values)]
            true = FC if key == "Fc" else RHO
            row[key] = {
                "bias": float(ok.mean() - true) if ok.size else math.nan,
                "spread": float(ok.std(ddof=1)) if ok.size > 1 else math.nan,
                "max_error": float(np.max(np.abs(ok - true))) if ok.size else math.nan,
                "failed": int(len(values) - ok.size),
            }
        table[level] = row
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50)
    parser.add_argument("--x-noise", action="store_true", help="also white noise of the same level on x")
    parser.add_argument("--json", help="also write the table as JSON")
    args = parser.parse_args()
    table = run(args.seeds, args.x_noise)
    print(f"Dahl identification, Fc = {FC}, rho = {RHO}, x quantised to 4096 counts/turn, {args.seeds} seeds "
          f"{', same level on x' if args.x_noise else ''} "
          "(bias / spread / max |error|; relative to the true value = absolute here)\n")
    print("| noise on F | estimate | bias | spread (1 sd) | max abs error | failed |")
    print("|---|---|---|---|---|---|")
    for level, row in table.items():
        if row["refused"]:
            print(f"| {level * 100:g} % | refused | {row['refused']} of {args.seeds} | | | |")
        for label, key in (("Fc (eq. 20)", "Fc"), *METHODS):
            if key not in row:
                continue
            s = row[key]
            print(f"| {level * 100:g} % | {label} | {s['bias']:+.2e} | {s['spread']:.2e} | {s['max_error']:.2e} | "
                  f"{s['failed']} |")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({str(k): v for k, v in table.items()}, handle, indent=2)


if __name__ == "__main__":
    main()

"""Held-out quality of default fits, seed by seed, optionally side by side with another install.

For each seed, the 12 shared XL330 logs are split as ``actuator-models fit --seed S`` splits them
(stratified, the same validation logs for every engine at that seed), the model is fitted at
default settings, and the training and validation MAE [rad] are printed. With ``--other
PATH/TO/actuator-models`` the same command of another install (an older checkout, say) runs
one after the other on the same seeds; the table then shows both and the paired differences.

    python benchmarks/held_out_quality.py --model m6 --seeds 0-15
    python benchmarks/held_out_quality.py --model m6 --seeds 0-15 --other ../old/.venv/bin/actuator-models

The held-out MAE of one fit depends on which basin CMA-ES settles in: compare means and the
paired differences over many seeds, not one seed.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional, Tuple

from actuator_models.fit_data import FitSettings
from actuator_models.identification import Identification
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.splits import Dataset

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
LINE = re.compile(r"M\d: train MAE ([\d.]+) rad, validation MAE ([\d.]+) rad")


def ours(logs: list, model: str, seed: int) -> Tuple[float, float, float]:
    """(train MAE, validation MAE, seconds) of this install's default fit."""
    began = time.perf_counter()
    result = Identification(new_model("xl330", model), Dataset.split(logs, None, None, None, seed),
                            FitSettings(seed=seed)).run()
    return result.train_mae, float(result.validation_mae), time.perf_counter() - began


def other(command: str, logdir: Path, model: str, seed: int) -> Tuple[float, float, float]:
    """(train MAE, validation MAE, seconds) of another install's ``actuator-models fit``."""
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        text = subprocess.run([command, "fit", "--logs", str(logdir), "--actuator", "xl330", "--model", model,
                               "--seed", str(seed), "--out", str(Path(out) / "fit"), "--quiet"],
                              capture_output=True, text=True, check=True).stdout
        seconds = time.perf_counter() - began
    match = LINE.search(text)
    if match is None:
        raise RuntimeError(f"{command}: no 'train MAE ..., validation MAE ...' line in its output:\n{text}")
    return float(match[1]), float(match[2]), seconds


def paired_interval(diffs: List[float]) -> str:
    """' (95 % CI lo .. hi)' of the mean paired difference (Student's t), '' for one seed."""
    if len(diffs) < 2:
        return ""
    from scipy.stats import t

    half = t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5
    return f" (95 % CI {statistics.mean(diffs) - half:+.5f} .. {statistics.mean(diffs) + half:+.5f})"


def seeds_of(text: str) -> List[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="m6")
    p.add_argument("--seeds", default="0-7", help="a range, e.g. 0-15 [0-7]")
    p.add_argument("--logs", type=Path, default=LOGS)
    p.add_argument("--other", help="the actuator-models command of another install, run side by side")
    args = p.parse_args(argv)
    logs = read_logs(args.logs)
    rows = []
    for seed in seeds_of(args.seeds):
        a = ours(logs, args.model, seed)
        b = other(args.other, args.logs, args.model, seed) if args.other else None
        rows.append((seed, a, b))
        cells = f"{a[0]:.5f} | {a[1]:.5f} | {a[2]:5.1f}"
        if b:
            cells += f" | {b[0]:.5f} | {b[1]:.5f} | {b[2]:5.1f} | {a[1] - b[1]:+.5f}"
        print(f"| {seed} | {cells} |", flush=True)
    mean = statistics.mean
    print(f"\nours: train {mean(r[1][0] for r in rows):.5f}, validation {mean(r[1][1] for r in rows):.5f} "
          f"(median {statistics.median(r[1][1] for r in rows):.5f}), {mean(r[1][2] for r in rows):.1f} s per fit")
    if args.other:
        diffs = [r[1][1] - r[2][1] for r in rows]
        print(f"other: train {mean(r[2][0] for r in rows):.5f}, validation {mean(r[2][1] for r in rows):.5f} "
              f"(median {statistics.median(r[2][1] for r in rows):.5f}), {mean(r[2][2] for r in rows):.1f} s per fit")
        print(f"validation ours - other: mean {mean(diffs):+.5f}{paired_interval(diffs)}, "
              f"median {statistics.median(diffs):+.5f}, ours lower on {sum(d < 0 for d in diffs)} of {len(diffs)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

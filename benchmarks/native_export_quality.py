"""What a fitted servo model is worth on plain MuJoCo with no Python in the loop (the native export).

``actuator-sim export`` writes MuJoCo's own elements: the control law as a ``<general>`` actuator,
armature, Coulomb-viscous ``frictionloss``/``damping``, ``R`` at one temperature
(:mod:`actuator_sim.native`). It drops the rest: M2-M6's Stribeck and load-dependent terms and the
additions but temperature. Which fit should a plain-MuJoCo user export?

For each seed, three fits of the 12 shared XL330 logs at default settings and the default split
(8 training logs, 4 held out), each simulated by the exact model (the core simulator,
semi-implicit, fed each log's temperature) and by its native export (each log exported at its own
bench, gain, voltage and first temperature reading), position MAE [rad] on the held-out and the
training logs:

- ``fit --model m6`` (the default carry: ``thermal``, ``supply``, ``release`` on these logs);
- ``fit --model m1`` (the same carry);
- ``fit --model m1 --carry none`` (nothing MuJoCo's elements cannot carry but ``R``'s temperature).

No choice is made here: the script reports; the held-out columns took no part in any fit.

    python benchmarks/native_export_quality.py --seeds 0-7
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from actuator_models.fit_cli import parse_carry
from actuator_models.fit_data import FitSettings
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.logs import Log
from actuator_models.model import Model
from actuator_sim.native import approximation_loss
from seeds import seeds_of  # this folder (a script's own folder is on sys.path)

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
#: (label, friction model, fit --carry) of each fit.
FITS: Tuple[Tuple[str, str, str], ...] = (("M6 default", "m6", "auto"), ("M1 default", "m1", "auto"),
                                          ("M1 --carry none", "m1", "none"))


def exact_and_native(model: Model, logs: Sequence[Log]) -> Tuple[float, float]:
    """Mean position MAE [rad] over ``logs`` of the exact model and of its native export."""
    means = approximation_loss(model, logs).means()
    return means["mae_exact"], means["mae_native"]


def one_seed(logs_dir: Path, seed: int) -> Dict[str, Tuple[float, float, float, float]]:
    """Per fit label: (held-out exact, held-out native, training exact, training native) [rad]."""
    row = {}
    for label, friction, carry in FITS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            report = fit(FitSpec(str(logs_dir), "xl330", (friction,), FitSettings(seed=seed),
                                 carry=parse_carry(carry, "xl330")))
            model, data = report.result().model, report.dataset
            row[label] = (*exact_and_native(model, list(data.validation)), *exact_and_native(model, list(data.train)))
    return row


def summary(values: List[float]) -> str:
    return f"{np.median(values):.4f} ({min(values):.4f}-{max(values):.4f})"


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0-7", help="seeds, e.g. 0-7 (default 0-7)")
    p.add_argument("--logs", type=Path, default=LOGS)
    args = p.parse_args(argv)
    print("position MAE [rad], exact / native export; held out (4 logs) | training (8 logs)")
    print("| seed | " + " | ".join(f"{label}, {part}" for label, _, _ in FITS for part in ("held out", "training"))
          + " |")
    print("|---|" + "---|" * 2 * len(FITS))
    rows = []
    for seed in seeds_of(args.seeds):
        row = one_seed(args.logs, seed)
        rows.append(row)
        print(f"| {seed} | " + " | ".join(f"{row[label][0]:.4f} / {row[label][1]:.4f} | {row[label][2]:.4f} / "
                                          f"{row[label][3]:.4f}" for label, _, _ in FITS) + " |", flush=True)
    print("\nmedian (range) over seeds, held-out logs:")
    for label, _, _ in FITS:
        print(f"  {label}: exact {summary([r[label][0] for r in rows])}, native {summary([r[label][1] for r in rows])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

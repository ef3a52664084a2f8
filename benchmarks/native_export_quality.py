"""What a fitted servo model is worth on plain MuJoCo with no Python in the loop (the native export).

``actuator-sim export`` writes MuJoCo's own elements: the PWM law as a ``<dcmotor>`` (with a
``thermal`` model's winding heating), armature, Coulomb-viscous ``frictionloss``/``damping``
(:mod:`actuator_sim.native`). It drops the rest: M2-M6's Stribeck and load-dependent terms, the
case node, and the additions but temperature and the supply's stall. Which fit should a
plain-MuJoCo user export?

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
    python benchmarks/native_export_quality.py --seeds 0-7 --fits FOLDER   # fits kept, or read back
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
from actuator_models.fitting import fit, load_logs
from actuator_models.logs import Log
from actuator_models.model import Model, load_model, save_model
from actuator_models.splits import Dataset
from actuator_sim.native import approximation_loss
from seeds import seeds_of  # this folder (a script's own folder is on sys.path)

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
#: (label, friction model, fit --carry) of each fit.
FITS: Tuple[Tuple[str, str, str], ...] = (("M6 default", "m6", "auto"), ("M1 default", "m1", "auto"),
                                          ("M1 --carry none", "m1", "none"))


def exact_and_native(model: Model, logs: Sequence[Log]) -> Tuple[float, float, float]:
    """Mean position MAE [rad] over ``logs`` of the exact model and of its native export against
    the logs, and of the export against the exact model (how faithfully it runs the model)."""
    means = approximation_loss(model, logs).means()
    return means["mae_exact"], means["mae_native"], means["mae_native_vs_exact"]


def fitted(logs_dir: Path, seed: int, friction: str, carry: str, fits: Optional[Path]) -> Tuple[Model, Dataset]:
    """The default fit of ``friction`` with ``carry`` at ``seed`` and its split; with ``fits`` (a
    folder), read from it when there, else fitted and written to it (to score one set of fits
    with two versions of the export)."""
    spec = FitSpec(str(logs_dir), "xl330", (friction,), FitSettings(seed=seed), carry=parse_carry(carry, "xl330"))
    path = None if fits is None else fits / f"s{seed}_{friction}_{carry}.json"
    if path is not None and path.exists():
        return load_model(path), load_logs(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = fit(spec)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_model(report.result().model, path)
    return report.result().model, report.dataset


def one_seed(logs_dir: Path, seed: int, fits: Optional[Path]) -> Dict[str, Tuple[float, ...]]:
    """Per fit label: held-out exact, native, native vs exact, then the same on the training logs [rad]."""
    row: Dict[str, Tuple[float, ...]] = {}
    for label, friction, carry in FITS:
        model, data = fitted(logs_dir, seed, friction, carry, fits)
        row[label] = (*exact_and_native(model, list(data.validation)), *exact_and_native(model, list(data.train)))
    return row


def summary(values: List[float]) -> str:
    return f"{np.median(values):.4f} ({min(values):.4f}-{max(values):.4f})"


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0-7", help="seeds, e.g. 0-7 (default 0-7)")
    p.add_argument("--logs", type=Path, default=LOGS)
    p.add_argument("--fits", type=Path, help="folder of the fits' params files: read when there, else written")
    args = p.parse_args(argv)
    print("position MAE [rad], exact / native export (native vs exact); held out (4 logs) | training (8 logs)")
    print("| seed | " + " | ".join(f"{label}, {part}" for label, _, _ in FITS for part in ("held out", "training"))
          + " |")
    print("|---|" + "---|" * 2 * len(FITS))
    rows = []
    for seed in seeds_of(args.seeds):
        row = one_seed(args.logs, seed, args.fits)
        rows.append(row)
        print(f"| {seed} | " + " | ".join(f"{v[0]:.4f} / {v[1]:.4f} ({v[2]:.4f}) | {v[3]:.4f} / {v[4]:.4f} ({v[5]:.4f})"
                                          for v in (row[label] for label, _, _ in FITS)) + " |", flush=True)
    print("\nmedian (range) over seeds:")
    for label, _, _ in FITS:
        for part, at in (("held out", 0), ("training", 3)):
            print(f"  {label}, {part}: exact {summary([r[label][at] for r in rows])}, native "
                  f"{summary([r[label][at + 1] for r in rows])}, native vs exact {summary([r[label][at + 2] for r in rows])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

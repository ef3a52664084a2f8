"""Do the model additions (latency, backlash) predict an unseen gain better? Default fits of a
model with and without each addition on the kp-200 protocol (train on the 12 shared XL330 logs
at kp 100 and 800, validate on kp 200), seed by seed.

Each variant is fitted with the default settings (``FitSettings(seed=s)``), the addition
carried from the start (searched like any parameter within its bounds). Prints one JSON line per
fit (training and validation MAE [rad], fitted addition values) and a table: per variant the
median and range over seeds of the validation MAE, and the median paired difference to the
variant without additions (the published path, identical to today's main).

``--paired``: per seed, the default fit without additions, then each addition by the local
search from that fit that ``fit --additions`` uses (one start, step
``addition_selection.LOCAL_SIGMA``): the validation MAE then changes by what the addition
does, not by which of M6's basins an independent fit lands in.

    nice python benchmarks/additions_quality.py --seeds 0-7 --model m6
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Dict, Tuple

from actuator_models.addition_selection import LOCAL_SIGMA
from actuator_models.additions import ADDITIONS
from actuator_models.fit_data import FitSettings
from actuator_models.identification import Identification
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.splits import Dataset
from seeds import seeds_of  # this folder (a script's own folder is on sys.path)

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
VARIANTS: Dict[str, Tuple[str, ...]] = {"none": (), "latency": ("latency",), "backlash": ("backlash",),
                                        "both": ("latency", "backlash")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=seeds_of, default=seeds_of("0-7"))
    parser.add_argument("--model", default="m6")
    parser.add_argument("--variants", default="none,latency,backlash")
    parser.add_argument("--trials", type=int, default=None, help="trial budget (default: the fit's default)")
    parser.add_argument("--paired", action="store_true", help="additions by a local search from the fit without")
    args = parser.parse_args()
    logs = read_logs(LOGS)
    dataset = Dataset.split(logs, validation_kp=200.0)
    results: Dict[str, Dict[int, float]] = {}
    for seed in args.seeds:
        base = None  # this seed's fit without additions: where --paired starts the others
        for variant in args.variants.split(","):
            settings = FitSettings(seed=seed) if args.trials is None else FitSettings(seed=seed, trials=args.trials)
            model = new_model("xl330", args.model, additions=VARIANTS[variant])
            start = None
            if args.paired and variant != "none":
                if base is None:
                    raise SystemExit("error: --paired: list 'none' first in --variants (the others start from its fit)")
                settings, start = replace(settings, starts=1, search_sigma=LOCAL_SIGMA), base.model
            r = Identification(model, dataset, settings, start=start).run()
            base = r if variant == "none" else base
            results.setdefault(variant, {})[seed] = float(r.validation_mae)  # type: ignore[arg-type]
            print(json.dumps({"seed": seed, "variant": variant, "train": r.train_mae, "validation": r.validation_mae,
                              **{a: r.model.values[a] for a in ADDITIONS if a in r.model.values}}), flush=True)
    print("\n| variant | median validation MAE [rad] | range | median paired difference to none |")
    print("|---|---|---|---|")
    for variant, by_seed in results.items():
        values = list(by_seed.values())
        paired = [v - results["none"][s] for s, v in by_seed.items() if s in results.get("none", {})]
        diff = f"{statistics.median(paired):+.4f}" if paired and variant != "none" else "—"
        print(f"| {variant} | {statistics.median(values):.4f} | {min(values):.4f}-{max(values):.4f} | {diff} |")


if __name__ == "__main__":
    main()

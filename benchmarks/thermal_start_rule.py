"""How a simulation without a temperature should start: two rules, leave one gain out (issue 31).

A default M6 fit carries ``thermal``; a simulation without a ``temp`` column starts both nodes at
``thermal_initial``. Two candidates against today's rule (the mean of the training logs' first
readings), each a :class:`~actuator_models.fit_data.FitSettings` switch:

- ``fitted`` (``thermal_start="fitted"``): after the search, the single start temperature that
  minimises the training logs' no-temperature position MAE (:mod:`actuator_models.thermal_start`).
  The fit is today's: only ``thermal_initial`` differs, so one fit serves both rules;
- ``unfed`` (``unfed_share=0.5``): the objective's position term is the mean of the training logs'
  MAE fed their temperature and simulated without it (a second rollout per point).

For each seed and each held-out gain (kp 100, 200, 800), M6 is fitted at default settings on the
other two gains (8 logs); the held-out gain's 4 logs are scored fed the temperature (both nodes at
each log's first reading) and without it (both at ``thermal_initial``), position MAE [rad]; the
case node's MAE [K] against the held-out registers from their first readings. One JSON line per
fit goes to ``--rows`` (appended); ``--summary`` reads such files and prints the paired tables.

    python benchmarks/thermal_start_rule.py --seeds 0-7 --candidate fitted --rows /tmp/start_fitted.jsonl
    python benchmarks/thermal_start_rule.py --seeds 0-7 --candidate unfed --rows /tmp/start_unfed.jsonl
    python benchmarks/thermal_start_rule.py --summary /tmp/start_fitted.jsonl /tmp/start_unfed.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from actuator_models.actuators import actuator
from actuator_models.additions import carried_by_default
from actuator_models.fit_data import FitSettings
from actuator_models.identification import Identification
from actuator_models.logs import read_logs
from actuator_models.model import Model, new_model
from actuator_models.objective import Objective
from actuator_models.splits import Dataset
from actuator_models.thermal_start import fitted_initial
from seeds import seeds_of  # this folder (a script's own folder is on sys.path)

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
GAINS = (100.0, 200.0, 800.0)
#: FitSettings fields of each candidate's fit (``fitted`` fits as today, then refits T0 alone).
CANDIDATES: Dict[str, Dict[str, object]] = {"fitted": {}, "unfed": {"unfed_share": 0.5}}


def scores(model: Model, logs: Sequence) -> Dict[str, float]:
    """Position MAE [rad] fed / without the temperature, case MAE [K] (fed start), means over ``logs``."""
    objective = Objective(model, logs)
    values = {name: [v] for name, v in model.values.items()}
    fed, heat = objective.errors(values)
    return {"fed": float(fed.mean()), "unfed": float(objective.blind_per_log(values).mean()),
            "register": float(heat.mean())}


def one_fold(logs_dir: Path, seed: int, held: float, candidate: str) -> Dict[str, object]:
    logs = read_logs(logs_dir)
    train = tuple(log for log in logs if log.kp != held)
    dataset = Dataset(tuple(logs), train, tuple(log for log in logs if log.kp == held), f"kp {held:g} held out")
    carry = carried_by_default([log.extra.get("temp") for log in train], actuator("xl330"))
    model = new_model("xl330", "m6", additions=carry)
    began = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = Identification(model, dataset, FitSettings(seed=seed, **CANDIDATES[candidate])).run().model  # type: ignore[arg-type]
    cpu = time.process_time() - began
    row: Dict[str, object] = {"seed": seed, "held": held, "candidate": candidate, "cpu_s": cpu,
                              "T0_mean": fitted.values["thermal_initial"],
                              "held_out": scores(fitted, dataset.validation), "train": scores(fitted, train)}
    if candidate == "fitted":
        began = time.process_time()
        t0 = fitted_initial(Objective(fitted, train), fitted.values)
        row["T0_fit_cpu_s"] = time.process_time() - began
        refit = fitted.with_values(thermal_initial=t0)
        row.update(T0_fitted=t0, held_out_fitted=scores(refit, dataset.validation), train_fitted=scores(refit, train))
    return row


def summary(paths: Sequence[Path]) -> None:
    """The paired tables of ``--rows`` files (module docstring)."""
    rows = [json.loads(line) for path in paths for line in path.read_text().splitlines() if line.strip()]
    today = {(r["seed"], r["held"]): r for r in rows if r["candidate"] == "fitted"}
    unfed = {(r["seed"], r["held"]): r for r in rows if r["candidate"] == "unfed"}
    print("Held-out gain, position MAE [rad] fed / without the temperature; T0 [degC]")
    print("| seed | held kp | today: fed / unfed (T0 mean) | fitted T0: unfed (T0) | unfed objective: fed / unfed | "
          "register [K] today / unfed obj | fit CPU s today / unfed obj |")
    print("|---|---|---|---|---|---|---|")
    for key in sorted(today):
        t, u = today[key], unfed.get(key)
        cells = [f"{t['held_out']['fed']:.5f} / {t['held_out']['unfed']:.5f} ({t['T0_mean']:.1f})",
                 f"{t['held_out_fitted']['unfed']:.5f} ({t['T0_fitted']:.1f})",
                 "-" if u is None else f"{u['held_out']['fed']:.5f} / {u['held_out']['unfed']:.5f}",
                 f"{t['held_out']['register']:.2f} / " + ("-" if u is None else f"{u['held_out']['register']:.2f}"),
                 f"{t['cpu_s']:.1f} / " + ("-" if u is None else f"{u['cpu_s']:.1f}")]
        print(f"| {key[0]} | {key[1]:g} | " + " | ".join(cells) + " |")
    print()
    paired("fitted T0 - mean T0, held-out unfed", [today[k]["held_out_fitted"]["unfed"] - today[k]["held_out"]["unfed"]
                                                  for k in sorted(today)])
    paired("fitted T0 - mean T0, training unfed", [today[k]["train_fitted"]["unfed"] - today[k]["train"]["unfed"]
                                                  for k in sorted(today)])
    both = sorted(set(today) & set(unfed))
    if both:
        paired("unfed objective - today, held-out unfed", [unfed[k]["held_out"]["unfed"] - today[k]["held_out"]["unfed"]
                                                           for k in both])
        paired("unfed objective - today, held-out fed", [unfed[k]["held_out"]["fed"] - today[k]["held_out"]["fed"]
                                                         for k in both])
        paired("unfed objective - today, fit CPU s", [unfed[k]["cpu_s"] - today[k]["cpu_s"] for k in both])
    seeds = sorted(s for s in {k[0] for k in today} if all((s, g) in today and (s, g) in unfed for g in GAINS))
    if seeds:  # per seed, the mean over the three folds (the nested protocol's figure), seeds with all folds
        print(f"\nMean over the three held-out gains per seed (seeds with every fold of both: {seeds}):")
        print("| seed | today fed / unfed | fitted T0 unfed | unfed objective fed / unfed |")
        print("|---|---|---|---|")
        means = {}
        for name, group, key in (("today", today, "held_out"), ("fitted", today, "held_out_fitted"),
                                 ("objective", unfed, "held_out")):
            for which in ("fed", "unfed"):
                means[name, which] = [statistics.mean(group[(s, g)][key][which] for g in GAINS) for s in seeds]
        for i, s in enumerate(seeds):
            print(f"| {s} | {means['today', 'fed'][i]:.5f} / {means['today', 'unfed'][i]:.5f} | "
                  f"{means['fitted', 'unfed'][i]:.5f} | {means['objective', 'fed'][i]:.5f} / "
                  f"{means['objective', 'unfed'][i]:.5f} |")
        for name, which in (("today", "fed"), ("today", "unfed"), ("fitted", "unfed"), ("objective", "fed"),
                            ("objective", "unfed")):
            v = means[name, which]
            print(f"{name} {which}: median {statistics.median(v):.5f}, range {min(v):.5f}-{max(v):.5f}, "
                  f"mean {statistics.mean(v):.5f}")
        for which in ("fed", "unfed"):
            paired(f"unfed objective - today, mean over folds, {which}",
                   [a - b for a, b in zip(means["objective", which], means["today", which])], "seeds")


def paired(name: str, diffs: List[float], unit: str = "folds") -> None:
    """One line: mean, median and range of paired differences and how many are below 0."""
    print(f"{name}: mean {statistics.mean(diffs):+.5f}, median {statistics.median(diffs):+.5f}, range "
          f"{min(diffs):+.5f} .. {max(diffs):+.5f}, lower in {sum(d < 0 for d in diffs)} of {len(diffs)} {unit}")


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0-7", help="seeds, e.g. 0-7 [0-7]")
    p.add_argument("--candidate", choices=sorted(CANDIDATES), default="fitted")
    p.add_argument("--gains", default="100,200,800", help="held-out gains, comma-separated [100,200,800]")
    p.add_argument("--rows", type=Path, help="append one JSON line per fit to this file")
    p.add_argument("--summary", type=Path, nargs="+", help="print the paired tables of these --rows files")
    p.add_argument("--logs", type=Path, default=LOGS)
    args = p.parse_args(argv)
    if args.summary:
        summary(args.summary)
        return 0
    for seed in seeds_of(args.seeds):
        for held in (float(g) for g in args.gains.split(",")):
            row = one_fold(args.logs, seed, held, args.candidate)
            print(json.dumps(row), flush=True)
            if args.rows:
                with args.rows.open("a") as out:
                    out.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

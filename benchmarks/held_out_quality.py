"""Held-out quality of default fits over seeds, optionally paired with another install.

Protocols (``--protocol``), on the 12 shared XL330 logs (3 gains x 4 trajectories):

- ``kp200``: train on kp 100 and 800, validate on the unseen gain 200 (the issue-21 protocol);
- ``loto``: leave one trajectory out: 4 fits per seed, each validated on the 3 logs of the
  trajectory it did not see (the seed's figure is the mean of the 4);
- ``split``: the default stratified split of ``actuator-models fit --seed S``;
- ``nested-gain``: leave one gain out (kp 100, 200, 800 in turn), every choice made using only
  the other two gains: with several ``--candidate`` configurations (``CARRY[;FIELD=VALUE...]``,
  e.g. ``thermal`` or ``heating;prior=0.5``), an inner cross-validation over the two training
  gains (fit on one, validate on the other, both ways) picks the candidate with the lowest mean
  inner error, which is then fitted on both training gains and scored on the held-out gain. The
  figures per seed are each fold's validation MAE, their mean and the worst fold. Inner fits
  train on 4 logs, below the fit's one-log-per-two-parameters rule: they run with ``force``.
  ``--other`` runs the other install's defaults (its ``--carry``: auto) on the same outer folds.
- ``nested-trajectory``: the same, leaving one trajectory out (4 folds; inner folds over the
  3 training trajectories, fit on 2, validate on 1).

Fits carry what ``actuator-models fit --carry`` would (``--carry``, default ``auto``: the thermal
and supply additions on these logs, which record the servo temperature of a voltage-controlled
servo, and release where a training log releases the torque; thermal and supply alone before
2026-11-28, thermal alone before 2026-11-27; heating on an install from before issue 31, such as
f636bf1). Every fit runs in a fresh process of the install under test (``python -c``, only API that
today's main also has), one after the other, so that times compare: whole process, imports and
compilation cache loads included. ``--other PATH/TO/python`` runs the same fits with another
install (today's main: ``/work/main/.venv/bin/python``), seed by seed, and prints the paired
differences. The summary gives, per install, the median and range over seeds of the validation
MAE [rad] and the mean seconds per fit.

    python benchmarks/held_out_quality.py --protocol kp200 --seeds 0-7 --other /work/main/.venv/bin/python
    python benchmarks/held_out_quality.py --protocol loto --seeds 0-7 --model m6
    python benchmarks/held_out_quality.py --protocol kp200 --seeds 0-7 --set prior=0.5 --set starts=2
    python benchmarks/held_out_quality.py --protocol nested-gain --seeds 0-7 --candidate thermal \
        --other /work/baseline/.venv/bin/python
    python benchmarks/held_out_quality.py --protocol nested-gain --seeds 0-7 --candidate thermal \
        --candidate heating --candidate none
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from actuator_models.provenance import numpy_blas
from seeds import seeds_of  # this folder (a script's own folder is on sys.path)

LOGS = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"

#: One fit, run by the install under test: argv = logs, model, seed, protocol, fold.
FIT = """
import json, sys
from actuator_models.fit_data import FitSettings
from actuator_models.identification import Identification
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.splits import Dataset
logs_dir, model, seed, protocol, fold = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
overrides = json.loads(sys.argv[6])
try:
    from actuator_models.additions import carried_by_default
except ImportError:  # an install from before the heating addition: its fits carry nothing
    def carried_by_default(temperatures, *actuator):
        return ()
import inspect
from actuator_models.actuators import actuator
# the carry rule takes the actuator since 2026-11-27 (supply for voltage laws), the torque enables since 2026-11-28
# (release); earlier installs the temperatures alone
rule = inspect.signature(carried_by_default).parameters
law = (actuator("xl330"),) if len(rule) > 1 else ()
logs = read_logs(logs_dir)
if protocol == "split":
    dataset = Dataset.split(logs, None, None, None, seed)
elif protocol in ("gains", "trajectories"):  # fold "V|E1,E2": validate on V, train without V and E
    key = (lambda l: str(float(l.kp))) if protocol == "gains" else (lambda l: l.trajectory)
    held, _, excluded = fold.partition("|")
    away = {held, *(e for e in excluded.split(",") if e)}
    dataset = Dataset(tuple(logs), tuple(l for l in logs if key(l) not in away), tuple(l for l in logs if key(l) == held),
                      protocol)
else:
    out = [(l.kp == 200.0) if protocol == "kp200" else (l.trajectory == fold) for l in logs]
    dataset = Dataset(tuple(logs), tuple(l for l, o in zip(logs, out) if not o), tuple(l for l, o in zip(logs, out) if o),
                      protocol)
carry = sys.argv[7]
enables = {"enables": [l.torque_enable for l in dataset.train]} if "enables" in rule else {}
carry = (carried_by_default([l.extra.get("temp") for l in dataset.train], *law, **enables) if carry == "auto"
         else tuple(a for a in carry.split(",") if a not in ("", "none")))
r = Identification(new_model("xl330", model, additions=carry) if carry else new_model("xl330", model), dataset, FitSettings(seed=seed, **overrides)).run()
print(json.dumps({"train": r.train_mae, "validation": r.validation_mae}))
"""
TRAJECTORIES = ("sin_sin", "lift_and_drop", "up_and_down", "sin_time_square")
GAINS = ("100.0", "200.0", "800.0")


#: What an install computes with (actuator_models.provenance, as JSON); an install from before it says so.
RAN_ON = """
import json
try:
    from actuator_models.provenance import provenance
except ImportError:
    print("null")
else:
    print(json.dumps(provenance()))
"""


def ran_on(python: str) -> str:
    """One line: the numpy, BLAS kernels (numpy's: the ones CMA-ES computes with) and processor of
    ``python``'s install. A fit's bits, so each seed's row, depend on them (docs/FIDELITY.md 7.10):
    a table is paired on one machine."""
    done = subprocess.run([python, "-c", RAN_ON], capture_output=True, text=True)
    if done.returncode != 0:
        return f"unknown ({done.stderr.strip().splitlines()[-1:]})"
    m = json.loads(done.stdout.strip().splitlines()[-1])
    if m is None:
        return "not recorded (an install from before actuator_models.provenance)"
    return (f"numpy {m['packages']['numpy']}, " + ", ".join(f"{b['library']} {b['version']} {b['architecture']} kernels"
                                                           for b in numpy_blas(m["blas"])) + f", {m['processor']}")


def print_ran_on(installs: Dict[str, str]) -> None:
    for name, python in installs.items():
        print(f"{name} ran on: {ran_on(python)}")


def one_fit(python: str, logs: Path, model: str, seed: int, protocol: str, fold: str,
            overrides: Dict[str, float], carry: str = "auto") -> Tuple[float, float, float]:
    """(train MAE, validation MAE, seconds of the whole process) of one fit: the defaults, but for
    ``overrides`` (FitSettings fields, e.g. prior and starts)."""
    began = time.perf_counter()
    done = subprocess.run([python, "-c", FIT, str(logs), model, str(seed), protocol, fold, json.dumps(overrides), carry],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        raise RuntimeError(f"{python}: the fit failed:\n{done.stderr}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["train"], result["validation"], seconds


def seed_figures(python: str, logs: Path, model: str, seed: int, protocol: str,
                 overrides: Dict[str, float], carry: str = "auto") -> Tuple[float, float, float]:
    """(train, validation, seconds per fit) of one seed: the mean over folds for ``loto``."""
    folds = TRAJECTORIES if protocol == "loto" else ("",)
    runs = [one_fit(python, logs, model, seed, protocol, fold, overrides, carry) for fold in folds]
    return tuple(statistics.mean(r[i] for r in runs) for i in range(3))  # type: ignore[return-value]


def parse_candidate(text: str) -> Tuple[str, Dict[str, float]]:
    """``"heating;prior=0.5"`` -> ``("heating", {"prior": 0.5})`` (carry, FitSettings overrides)."""
    carry, *fields = text.split(";")
    return carry or "none", dict(parse_field(f) for f in fields if f)


def parse_field(item: str) -> Tuple[str, float]:
    field, _, value = item.partition("=")
    return field, (int(value) if value.lstrip("-").isdigit() else float(value))


def nested_fold(python: str, logs: Path, model: str, seed: int, protocol: str, held: str,
                candidates: List[str], overrides: Dict[str, float]) -> Tuple[float, float, float, str]:
    """(train, validation MAE, seconds, chosen candidate) of one outer fold of a nested protocol:
    the candidate is chosen by the inner cross-validation over the training groups only."""
    groups = GAINS if protocol == "gains" else TRAJECTORIES
    rest = [g for g in groups if g != held]
    chosen, seconds = candidates[0], 0.0
    if len(candidates) > 1:
        scores = []
        for text in candidates:
            carry, fields = parse_candidate(text)
            inner = [one_fit(python, logs, model, seed, protocol, f"{g}|{held}", {**overrides, **fields, "force": 1}, carry)
                     for g in rest]
            seconds += sum(r[2] for r in inner)
            scores.append(statistics.mean(r[1] for r in inner))
        chosen = candidates[scores.index(min(scores))]
    carry, fields = parse_candidate(chosen)
    train, validation, took = one_fit(python, logs, model, seed, protocol, f"{held}|", {**overrides, **fields}, carry)
    return train, validation, seconds + took, chosen


def nested(args: argparse.Namespace, overrides: Dict[str, float]) -> int:
    """The nested protocols (module docstring): a table per seed and fold, then the summary."""
    protocol = "gains" if args.protocol == "nested-gain" else "trajectories"
    groups = GAINS if protocol == "gains" else TRAJECTORIES
    candidates = args.candidate or [args.carry]
    installs: Dict[str, Tuple[str, List[str]]] = {"ours": (args.python, candidates),
                                                  **({"other": (args.other, ["auto"])} if args.other else {})}
    print(f"{args.model}, protocol {args.protocol}, seeds {args.seeds}, settings {overrides or 'default'}, "
          f"candidates {candidates}: validation MAE [rad] of each held-out group (chosen candidate)")
    print_ran_on({name: python for name, (python, _) in installs.items()})
    print("| seed | install | " + " | ".join(groups) + " | mean | worst | s |")
    print("|---" * (5 + len(groups)) + "|")
    means: Dict[str, List[float]] = {name: [] for name in installs}
    worsts: Dict[str, List[float]] = {name: [] for name in installs}
    for seed in seeds_of(args.seeds):
        for name, (python, cands) in installs.items():
            folds = [nested_fold(python, args.logs, args.model, seed, protocol, g, cands, overrides) for g in groups]
            values = [f[1] for f in folds]
            means[name].append(statistics.mean(values))
            worsts[name].append(max(values))
            cells = " | ".join(f"{f[1]:.5f} ({f[3]})" for f in folds)
            print(f"| {seed} | {name} | {cells} | {means[name][-1]:.5f} | {worsts[name][-1]:.5f} | "
                  f"{sum(f[2] for f in folds):.0f} |", flush=True)
    print()
    for name in installs:
        print(f"{name}: mean over folds {spread(means[name])}; worst fold {spread(worsts[name])}")
    if args.other:
        diffs = [a - b for a, b in zip(means["ours"], means["other"])]
        ratio = statistics.mean(means["ours"]) / statistics.mean(means["other"])
        print(f"mean over folds, ours - other: {statistics.mean(diffs):+.5f}{paired_interval(diffs)}, ours lower on "
              f"{sum(d < 0 for d in diffs)} of {len(diffs)} seeds; ours / other {ratio:.3f}; worst fold ours "
              f"{max(worsts['ours']):.5f}, other {max(worsts['other']):.5f}")
    return 0


def spread(values: List[float]) -> str:
    median = statistics.median(values)
    width = max(values) - min(values)
    return f"median {median:.5f}, range {min(values):.5f}-{max(values):.5f} ({width:.5f}, {100 * width / median:.0f} % of the median)"


def paired_interval(diffs: List[float]) -> str:
    """' (95 % CI lo .. hi)' of the mean paired difference (Student's t), '' for one seed."""
    if len(diffs) < 2:
        return ""
    from scipy.stats import t

    half = t.ppf(0.975, len(diffs) - 1) * statistics.stdev(diffs) / len(diffs) ** 0.5
    return f" (95 % CI {statistics.mean(diffs) - half:+.5f} .. {statistics.mean(diffs) + half:+.5f})"


def correlation(x: List[float], y: List[float]) -> str:
    """Pearson's r (finding 2 of issue 21: negative when fitting harder predicts worse)."""
    if len(x) < 3 or statistics.pstdev(x) == 0 or statistics.pstdev(y) == 0:
        return "n/a"
    return f"{statistics.correlation(x, y):+.2f}"


def published(logs_dir: Path) -> float:
    """Validation MAE [rad] of the shipped published model on the kp-200 logs (finding 3)."""
    from actuator_models.logs import read_logs
    from actuator_models.model import load_model
    from actuator_models.simulation import log_maes

    held = [log for log in read_logs(logs_dir) if log.kp == 200.0]
    return float(log_maes(load_model("xl330/m6"), held).mean())


def main(argv: Optional[List[str]] = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="m6")
    p.add_argument("--protocol", choices=("kp200", "loto", "split", "nested-gain", "nested-trajectory"), default="kp200")
    p.add_argument("--candidate", action="append", default=[], metavar="CARRY[;FIELD=VALUE...]",
                   help="nested protocols: a configuration the inner cross-validation may choose (repeatable; "
                        "one: no choice is made; none given: --carry)")
    p.add_argument("--seeds", default="0-7", help="a range, e.g. 0-15 [0-7]")
    p.add_argument("--logs", type=Path, default=LOGS)
    p.add_argument("--python", default=sys.executable, help="the python of the install under test [this one]")
    p.add_argument("--other", help="the python of another install (today's main), run seed by seed after ours")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                   help="a FitSettings field other than the default, for both installs, e.g. --set prior=0.5 "
                        "--set starts=2 (the sweep of docs/FIDELITY.md 4b)")
    p.add_argument("--carry", default="auto", metavar="NAMES",
                   help="additions carried from the start, as fit --carry: auto (the default: thermal when the training "
                        "logs record temperatures, heating on installs before issue 31, none before heating), none, or names")
    args = p.parse_args(argv)
    overrides = {}
    for item in args.set:
        field, _, value = item.partition("=")
        try:
            overrides[field] = int(value) if value.lstrip("-").isdigit() else float(value)
        except ValueError:
            p.error(f"--set {item}: expected FIELD=NUMBER")
    if args.protocol.startswith("nested"):
        return nested(args, overrides)
    installs: Dict[str, str] = {"ours": args.python, **({"other": args.other} if args.other else {})}
    print(f"{args.model}, protocol {args.protocol}, seeds {args.seeds}, settings {overrides or 'default'}"
          f", carry {args.carry}: "
          "train / validation MAE [rad], s per fit")
    print_ran_on(installs)
    print("| seed | " + " | ".join(f"{n} train | {n} validation | {n} s" for n in installs)
          + (" | validation ours - other |" if args.other else " |"))
    print("|---" * (1 + 3 * len(installs) + (1 if args.other else 0)) + "|")
    rows: Dict[str, List[Tuple[float, float, float]]] = {name: [] for name in installs}
    for seed in seeds_of(args.seeds):
        cells = []
        for name, python in installs.items():
            figures = seed_figures(python, args.logs, args.model, seed, args.protocol, overrides, args.carry)
            rows[name].append(figures)
            cells.append(f"{figures[0]:.5f} | {figures[1]:.5f} | {figures[2]:5.1f}")
        if args.other:
            cells.append(f"{rows['ours'][-1][1] - rows['other'][-1][1]:+.5f}")
        print(f"| {seed} | " + " | ".join(cells) + " |", flush=True)
    print()
    for name, figures in rows.items():
        print(f"{name}: validation {spread([f[1] for f in figures])}; train {spread([f[0] for f in figures])}; "
              f"{statistics.mean(f[2] for f in figures):.1f} s per fit (whole process); correlation of train and "
              f"validation MAE over seeds {correlation([f[0] for f in figures], [f[1] for f in figures])}")
    if args.protocol == "kp200":
        print(f"published xl330/m6 (BAM's fit) on the same validation logs: {published(args.logs):.5f}")
    if args.other:
        diffs = [a[1] - b[1] for a, b in zip(rows["ours"], rows["other"])]
        print(f"validation ours - other: mean {statistics.mean(diffs):+.5f}{paired_interval(diffs)}, "
              f"ours lower on {sum(d < 0 for d in diffs)} of {len(diffs)} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Identification speed, measured side by side in one run (run by hand; compare ratios).

    python benchmarks/identification.py [--logs data/xl330/processed] [--model m6] [--trials 600 1500]
        [--reference PATH --reference-command "python -m ... {logs} {trials}"]

Arms, all on the same logs (every log used for fitting, as the published fit does), M6, seed 0,
patience off, no polish (a plain CMA-ES run of exactly the given trials):

- ``kernel``: ``Identification`` with the compiled rollout (:mod:`actuator_models.kernel`);
- ``numpy``: the same with the numpy reference rollout;
- ``reference``: the published implementation's fit, if a copy is given (``--reference`` is its
  folder, the command's working directory; ``--reference-command`` the command, with ``{logs}``
  and ``{trials}`` replaced). Never vendored here.

Also: batched rollout throughput [log-steps/s] of the kernel and of numpy (M6, 16 logs: the 12
logs and 4 again, population 48), the kernel's first-call time in a fresh process (the C library
built at install: nothing is compiled at run time), the share of optuna bookkeeping per trial (in memory and in a
journal file), and the whole ``actuator-models fit ... --trials 1500`` command and ``--help``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from actuator_models import studies
from actuator_models.identification import FitSettings, Identification
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.objective import Objective
from actuator_models.splits import Dataset


class Bookkeeping:
    """Times :func:`actuator_models.studies.record` (optuna add_trials) while installed."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.original = studies.record

    def __enter__(self) -> "Bookkeeping":
        def timed(*args, **kwargs):
            start = time.perf_counter()
            self.original(*args, **kwargs)
            self.seconds += time.perf_counter() - start

        studies.record = timed
        return self

    def __exit__(self, *exc) -> None:
        studies.record = self.original


def fit_arm(model_name: str, actuator: str, dataset: Dataset, trials: int, compiled: bool, storage=None):
    settings = FitSettings(trials=trials, seed=0, patience=None, polish=False, force=True)
    identification = Identification(new_model(actuator, model_name), dataset, settings, storage,
                                    "bench" if storage else None)
    identification.objective.compiled = compiled
    with Bookkeeping() as books:
        start = time.perf_counter()
        result = identification.run(threading.Event())
        seconds = time.perf_counter() - start
    return seconds, result.train_mae, books.seconds


def throughput(logs, actuator: str, model_name: str, compiled: bool, population: int = 48, repeats: int = 3) -> float:
    model = new_model(actuator, model_name)
    objective = Objective(model, logs)
    objective.compiled = compiled
    rng = np.random.default_rng(0)
    values = {p.name: rng.uniform(p.lower, p.upper, population) for p in model.parameters}
    objective(values)  # warm
    best = np.inf
    for _ in range(repeats if compiled else 1):
        start = time.perf_counter()
        objective(values)
        best = min(best, time.perf_counter() - start)
    return population * objective.log_steps / best


def first_call(logs_dir: str) -> float:
    code = (
        "import time; from actuator_models.logs import read_logs; from actuator_models.model import load_model\n"
        "from actuator_models.objective import Objective\n"
        f"m = load_model('xl330/m6'); o = Objective(m, read_logs({logs_dir!r}))\n"
        "t = time.perf_counter(); o.of_model(m); print(time.perf_counter() - t)\n"
    )
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)


def command_time(args) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs", default="data/xl330/processed")
    parser.add_argument("--actuator", default="xl330")
    parser.add_argument("--model", default="m6")
    parser.add_argument("--trials", type=int, nargs="+", default=[600, 1500])
    parser.add_argument("--reference", metavar="PATH", help="folder of a copy of the published implementation")
    parser.add_argument("--reference-command", metavar="CMD", help="its fit command, with {logs} and {trials}")
    parser.add_argument("--skip-numpy", action="store_true", help="no numpy arm (slow)")
    args = parser.parse_args()
    logs = read_logs(args.logs)
    dataset = Dataset.split(logs, validation_logs=0)
    print(f"{args.actuator}/{args.model}, {len(logs)} logs, {os.cpu_count()} CPUs")

    first = min(first_call(args.logs) for _ in range(3))
    print(f"kernel first call in a fresh process: {first * 1e3:.1f} ms (best of 3)")
    fit_arm(args.model, args.actuator, dataset, 24, True)  # load the library in this process

    print("\nfit wall time (patience off, no polish), train MAE [rad], optuna bookkeeping share:")
    print(f"{'arm':<10}{'trials':>8}{'seconds':>10}{'ms/trial':>10}{'train MAE':>12}{'bookkeeping':>13}")
    rows = {}
    for trials in args.trials:
        arms = [("kernel", True)] + ([] if args.skip_numpy else [("numpy", False)])
        for label, compiled in arms:
            seconds, mae, books = fit_arm(args.model, args.actuator, dataset, trials, compiled)
            rows[(label, trials)] = seconds
            print(f"{label:<10}{trials:>8}{seconds:>10.2f}{1e3 * seconds / trials:>10.2f}{mae:>12.5f}{books / seconds:>12.0%}")
        if args.reference and args.reference_command:
            command = args.reference_command.format(logs=os.path.abspath(args.logs), trials=trials)
            start = time.perf_counter()
            subprocess.run(shlex.split(command), cwd=args.reference, check=True, capture_output=True)
            rows[("reference", trials)] = time.perf_counter() - start
            print(f"{'reference':<10}{trials:>8}{rows[('reference', trials)]:>10.2f}")
    for trials in args.trials:
        if ("numpy", trials) in rows:
            print(f"{trials} trials: kernel {rows[('numpy', trials)] / rows[('kernel', trials)]:.1f}x faster than numpy")
        if ("reference", trials) in rows:
            print(f"{trials} trials: kernel {rows[('reference', trials)] / rows[('kernel', trials)]:.1f}x faster than the reference")

    with tempfile.TemporaryDirectory() as folder:
        journal = str(Path(folder) / "bench.journal")
        seconds, _, books = fit_arm(args.model, args.actuator, dataset, 240, True, journal)
        print(f"\njournal file storage, 240 trials: {1e3 * books / 240:.2f} ms/trial bookkeeping "
              f"({books / seconds:.0%} of {seconds:.2f} s; one fsync per trial)")

    sixteen = logs + logs[:4]
    fast = throughput(sixteen, args.actuator, args.model, True)
    slow = throughput(sixteen, args.actuator, args.model, False)
    print(f"\nbatched rollout throughput, {args.model} on 16 logs, population 48: kernel {fast / 1e6:.2f} M log-steps/s, "
          f"numpy {slow / 1e6:.2f} M log-steps/s ({fast / slow:.1f}x); published figure 0.275 M log-steps/s "
          f"({fast / 275e3:.0f}x)")

    exe = [sys.executable, "-m", "actuator_models.cli"]
    help_time = command_time([*exe, "--help"])
    with tempfile.TemporaryDirectory() as folder:
        whole = command_time([*exe, "fit", "--logs", args.logs, "--actuator", args.actuator, "--model", args.model,
                              "--trials", "1500", "--seed", "0", "--out", str(Path(folder) / "fit"), "--quiet"])
    print(f"\nwhole commands: 'actuator-models --help' {help_time:.2f} s; 'actuator-models fit ... --model "
          f"{args.model} --trials 1500 --seed 0' {whole:.2f} s (published implementation, 1500 trials: about "
          f"64.7 s x 1500 / 600 = 162 s by the issue's figure: {162 / whole:.0f}x)")


if __name__ == "__main__":
    main()

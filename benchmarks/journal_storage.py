"""What a journal file costs a fit: the README's resumable fit, paired with the same fit in memory.

Runs whole commands, alternating which goes first in each pair (the host's load drifts):

    actuator-models fit --logs data/xl330/processed --actuator xl330 --model all --quiet   (in memory)
    the same with --storage <tmp>/runs.journal --workers 2                                 (the README's)

and prints each pair's wall times, their ratio, the journal's size, its trials (one per CMA-ES
generation) and the parameter sets they evaluated.
``--bookkeeping`` instead times the storage alone: recording a default M6 search's lockstep
generations (4 starts of 48 evaluated parameter sets, one ``add_trials`` of a trial per start, with
its CMA-ES state) in memory, in this project's journal file and in optuna's own
``JournalFileBackend`` (an fsync and a symlink lock per log), ms per evaluated parameter set.

    python benchmarks/journal_storage.py [--pairs 2] [--model all] [--trials N]
    python benchmarks/journal_storage.py --bookkeeping [--generations 300]

Wall-clock: run it on a quiet machine, or say how loaded it was (it prints the load average).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Tuple

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def fit(out: Path, model: str, trials: str, storage: str = "") -> float:
    argv = [str(BIN / "actuator-models"), "fit", "--logs", str(REPO / "data" / "xl330" / "processed"), "--actuator",
            "xl330", "--model", model, "--out", str(out), "--quiet", "--force"]
    argv += ["--trials", trials] if trials else []
    argv += ["--storage", storage, "--workers", "2"] if storage else []  # workers share a storage only
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def trial_count(journal: Path) -> Tuple[int, int]:
    """The journal's trials (CMA-ES generations) and the parameter sets they evaluated, all studies."""
    import optuna

    from actuator_models.studies import evaluations, open_storage

    storage = open_storage(str(journal))
    trials = [t for x in optuna.get_all_study_summaries(storage)
              for t in optuna.load_study(study_name=x.study_name, storage=storage).trials]
    return len(trials), evaluations(trials)


def bookkeeping(generations: int) -> None:
    import numpy as np
    from optuna.storages.journal import JournalFileBackend, JournalStorage

    from actuator_models import studies
    from actuator_models.cma_es import CMA
    from actuator_models.model import new_model
    from actuator_models.objective import SearchSpace

    space = SearchSpace.for_model(new_model("xl330", "m6"), {}, {})
    rng = np.random.default_rng(0)
    points = [{p.name: p.lower + (p.upper - p.lower) * rng.uniform() for p in space.free} for _ in range(48)]
    dims = len(space.free)
    state = CMA(np.full(dims, 0.5), 1 / 6, np.tile([0.0, 1.0], (dims, 1)), 0, 48).state()
    with tempfile.TemporaryDirectory() as scratch:
        storages = {"memory": lambda: None, "journal (this project)": lambda: studies.open_storage(f"{scratch}/a.journal"),
                    "journal (optuna's backend)": lambda: JournalStorage(JournalFileBackend(f"{scratch}/b.journal"))}
        print(f"{'storage':<28} {'ms/evaluation':>13}")
        for name, make in storages.items():
            study = studies.open_study(make(), "bench")
            start = time.perf_counter()
            for generation in range(generations):
                studies.record(study, space, [
                    studies.Generation(points, rng.uniform(0, 1, 48), {studies.PHASE: "search", studies.RUN: run,
                                                                      studies.WORKER: 0, studies.GENERATION: generation},
                                       state) for run in range(4)])
                studies.completed(study)  # as a worker sharing the study counts it, every generation
            print(f"{name:<28} {1000 * (time.perf_counter() - start) / (4 * 48 * generations):>13.4f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--model", default="all")
    parser.add_argument("--trials", default="", help="budget per model (default: the fit's default)")
    parser.add_argument("--bookkeeping", action="store_true", help="time the storages alone (see above)")
    parser.add_argument("--generations", type=int, default=300, help="with --bookkeeping: lockstep generations recorded")
    args = parser.parse_args()
    if args.bookkeeping:
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        bookkeeping(args.generations)
        return 0
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'pair':>4} {'memory s':>9} {'journal s':>10} {'ratio':>6} {'journal MB':>11} {'trials':>7} {'evaluations':>12}")
    ratios = []
    for pair in range(args.pairs):
        with tempfile.TemporaryDirectory() as scratch:
            tmp = Path(scratch)
            journal = tmp / "runs.journal"
            runs = [("memory", ""), ("journal", str(journal))]
            times = {}
            for name, storage in (runs if pair % 2 == 0 else runs[::-1]):
                times[name] = fit(tmp / name, args.model, args.trials, storage)
            ratio = times["journal"] / times["memory"]
            ratios.append(ratio)
            trials, evaluated = trial_count(journal)
            print(f"{pair + 1:>4} {times['memory']:>9.1f} {times['journal']:>10.1f} {ratio:>6.2f} "
                  f"{journal.stat().st_size / 1e6:>11.1f} {trials:>7} {evaluated:>12}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}; ratio journal/memory: "
          f"{', '.join(f'{r:.2f}' for r in ratios)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

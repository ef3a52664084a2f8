"""Batched identification vs. one trial at a time, same simulator, same trial budget, one run.

    python benchmarks/identification.py [--trials 480] [--model m6] [--logs data/xl330/processed]

Both arms run the same CMA-ES loop (optuna ask/tell, same sampler and population) on the same
training logs; the only difference is how a generation is simulated: one batched rollout of
the whole population, or one rollout per trial (as the published implementation does).
Prints trials/s and log-steps/s for both and their ratio. Run it by hand; machines are noisy,
so compare the ratio, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import time
from typing import Mapping

import numpy as np

from actuator_models.identification import Objective, SearchSpace, default_popsize, make_study, run_study
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.splits import split_logs


class OneAtATime:
    """The same objective, simulating each parameter set on its own."""

    def __init__(self, objective: Objective) -> None:
        self.objective = objective

    def __call__(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        size = len(next(iter(values.values())))
        return np.array([self.objective({k: v[i : i + 1] for k, v in values.items()})[0] for i in range(size)])


def measure(label: str, objective, space: SearchSpace, trials: int, popsize: int, log_steps: int) -> float:
    study = make_study(None, None, 0, popsize)
    start = time.perf_counter()
    run_study(study, space, objective, trials, popsize)
    seconds = time.perf_counter() - start
    rate = trials / seconds
    print(f"{label:<14} {trials} trials in {seconds:6.2f} s: {rate:8.1f} trials/s, "
          f"{rate * log_steps / 1e6:7.3f} M log-steps/s, best MAE {study.best_value:.4f} rad")
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--logs", default="data/xl330/processed")
    parser.add_argument("--actuator", default="xl330")
    parser.add_argument("--model", default="m6")
    parser.add_argument("--trials", type=int, default=480)
    args = parser.parse_args()
    train, _ = split_logs(read_logs(args.logs), 0.25)
    model = new_model(args.actuator, args.model)
    space = SearchSpace.for_model(model)
    popsize = default_popsize(len(space.free))
    objective = Objective(model, train)
    print(f"{args.actuator}/{args.model}: {len(space.free)} parameters, population {popsize}, "
          f"{len(train)} training logs, {objective.log_steps} log-steps per trial")
    batched = measure("batched", objective, space, args.trials, popsize, objective.log_steps)
    single = measure("one-at-a-time", OneAtATime(objective), space, args.trials, popsize, objective.log_steps)
    print(f"speed-up of batched over one-at-a-time: {batched / single:.1f}x")


if __name__ == "__main__":
    main()

"""CMA-ES runs (:mod:`.cma_es`, ask/tell) over a search space, one batched generation at
a time, recorded into an optuna study (:mod:`.studies`). Several independent runs (the starts
of a search) go in lockstep: each generation of all of them is one objective call (one kernel
call) and one ``add_trials`` of one trial per run (:mod:`.studies`: a trial is a generation).

CMA-ES searches the unit cube of the free parameters (0 = lower bound, 1 = upper, on the
scale of :class:`~.objective.SearchSpace`), so ``sigma`` is a fraction of each range. Each
generation draws its population from a random stream of its own (the run's seed and the
generation's number), and its trial holds the optimizer's state after it, so a run resumes
exactly: the optimizer restored from its last recorded generation, the convergence history
rebuilt from the generations' best costs, it draws what the uninterrupted run would have drawn
(a fit killed and resumed ends where the same fit run through ends).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np

from . import studies
from .cma_es import CMA
from .objective import Objective, SearchSpace

#: Relative improvement of the best cost below which a run has converged (see ``patience``).
CONVERGED = 1e-3


def converged(generation_best: Sequence[float], patience: int) -> bool:
    """True when the last ``patience`` generations found nothing better, by :data:`CONVERGED`
    (relative), than the generations before them."""
    if len(generation_best) <= patience:
        return False
    before, recent = min(generation_best[:-patience]), min(generation_best[-patience:])
    return before - recent <= CONVERGED * abs(before)


#: Generations a search run should have room for: fewer, and a wide population cannot settle.
SEARCH_GENERATIONS = 200


def default_popsize(dimensions: int, search_trials: Optional[int] = None) -> int:
    """CMA-ES population for ``dimensions`` free parameters and a search of ``search_trials``.

    Up to four times CMA-ES's usual ``4 + 3 ln D`` (48 for M6 of a Dynamixel, 15 parameters;
    32 for M1): on these multimodal costs a larger population settles in the lower basins more
    often (the rationale of IPOP-CMA-ES, Auger & Hansen 2005); but no more than leaves
    :data:`SEARCH_GENERATIONS` generations in the search budget, and never less than twice the
    usual (a small budget gets a small population: at 2250 trials, M6 reaches 0.049 rad at 24
    and 0.061 at 48). Measured on the 12 XL330 logs over 16 seeds (15000 trials,
    ``benchmarks/held_out_quality.py``): M6 training MAE 0.0311 rad at 48 against 0.0341 at 24
    (9000 trials), held-out 0.0589 against 0.0612.
    """
    usual = 4 + int(3 * math.log(dimensions))
    if search_trials is None:
        return 4 * usual
    return int(min(4 * usual, max(2 * usual, search_trials // SEARCH_GENERATIONS)))


def halving_milestones(runs: int, popsize: int, budget: int) -> List[int]:
    """Generations after which the worse half of ``runs`` lockstep runs stops (successive
    halving): the ``budget`` trials are split evenly among the rungs (all runs, half of them, ...,
    one), so the run that survives gets most of it. With 4 starts of 22500 trials, the last start
    standing evaluates about 13000 trials instead of the 5600 of an even split: on the 12 XL330
    logs, starts given 5600 trials each ended in basins 0.032-0.044 rad apart in training MAE."""
    if runs <= 1:
        return []
    rungs = math.ceil(math.log2(runs)) + 1
    milestones, alive, total = [], runs, 0
    while alive > 1:
        total += max(1, int(budget / rungs / (alive * popsize)))
        milestones.append(total)
        alive = math.ceil(alive / 2)
    return milestones


@dataclass(frozen=True)
class RunSpec:
    """One CMA-ES run: which (``phase``, ``run``, ``worker``) it records as, where it starts
    (``mean`` in the unit cube, step ``sigma``), its population and seed, and the study's
    completed-trial count at which it stops (``limit``)."""

    phase: str
    run: int
    worker: int
    mean: np.ndarray
    sigma: float
    popsize: int
    seed: int
    limit: int


class Counter:
    """The study's evaluated parameter sets (the budget's unit; a trial is a generation of them):
    counted locally when this process is the only writer, re-read from the storage when workers
    share it."""

    def __init__(self, study: Any, shared: bool) -> None:
        self.study, self.shared = study, shared
        self.done = studies.evaluations(studies.completed(study))
        #: the parameter sets this process evaluated (``done`` also counts other workers')
        self.mine = 0

    def add(self, evaluated: int) -> None:
        """Count ``evaluated`` parameter sets this process has just recorded."""
        self.done += evaluated
        self.mine += evaluated

    def refresh(self) -> int:
        if self.shared:
            self.done = studies.evaluations(studies.completed(self.study))
        return self.done


class _Run:
    """One CMA-ES optimizer of a lockstep batch, with its history and next generation number."""

    def __init__(self, spec: RunSpec, space: SearchSpace, past: Mapping[int, Any]) -> None:
        dims = len(space.free)
        self.spec = spec
        self.optimizer = CMA(mean=np.clip(spec.mean, 0.0, 1.0), sigma=spec.sigma, bounds=np.tile([0.0, 1.0], (dims, 1)),
                             seed=spec.seed, population_size=spec.popsize)
        self.history: List[float] = [float(t.value) for t in past.values()]
        self.generation = max(past, default=-1) + 1
        state = studies.state(past[self.generation - 1]) if past else None
        if state is not None:
            self.optimizer.restore(state)
        self.eliminated = False

    def ask(self, count: int) -> List[np.ndarray]:
        """The first ``count`` points of this generation's population, from its own random stream."""
        self.optimizer.rng = np.random.RandomState([self.spec.seed, self.generation])
        return self.optimizer.ask_population(count)

    def active(self, patience: Optional[int]) -> bool:
        return not (self.eliminated or self.optimizer.should_stop() or (patience and converged(self.history, patience)))


def eliminate(runs: Sequence[_Run], milestones: Sequence[int], patience: Optional[int]) -> None:
    """Stop the worse half of the runs at each milestone every still-running run has reached,
    ranked by their best cost up to that generation (a function of the recorded generations
    only, so a resumed search drops the same runs)."""
    alive = list(runs)
    for generation in milestones:
        if any(r.active(patience) and r.generation < generation for r in alive):
            return
        alive.sort(key=lambda r: min(r.history[:generation], default=math.inf))
        for r in alive[math.ceil(len(alive) / 2):]:
            r.eliminated = True
        alive = alive[:math.ceil(len(alive) / 2)]


def cma_runs(
    specs: Sequence[RunSpec],
    study: Any,
    counter: Counter,
    space: SearchSpace,
    objective: Objective,
    stop: threading.Event,
    patience: Optional[int],
    after_generation: Callable[[float, float], None],
) -> Dict[int, List[float]]:
    """Run (or resume) independent CMA-ES runs in lockstep: each generation, every active run's
    population is simulated in one objective call and recorded in one ``add_trials`` (a trial per
    run); a run
    stops on its own (convergence, CMA-ES's stop test) or by successive halving
    (:func:`halving_milestones` of the budget ``limit``), all stop at ``limit`` (the
    smallest of the specs') or ``stop``. Returns each run's best cost per generation, by run index."""
    completed = studies.completed(study)
    runs = [_Run(spec, space, studies.run_trials(completed, spec.phase, spec.run, spec.worker)) for spec in specs]
    limit = min(spec.limit for spec in specs)
    milestones = halving_milestones(len(runs), min(spec.popsize for spec in specs), limit)
    while not stop.is_set():
        remaining = limit - counter.refresh()
        eliminate(runs, milestones, patience)
        active = [r for r in runs if r.active(patience)]
        if remaining <= 0 or not active:
            break
        units: List[List[np.ndarray]] = []
        points: List[Dict[str, float]] = []
        owners: List[_Run] = []
        for r in active:
            if len(points) >= remaining:  # a budget is a budget: the last generation may be cut
                break
            asked = r.ask(min(r.spec.popsize, remaining - len(points)))
            units.append(asked)
            points += space.from_units(np.array(asked))
            owners.append(r)
        costs, maes = objective.evaluate(space.batch(points))
        first = 0
        generations = []
        for r, asked in zip(owners, units):
            mine = costs[first:first + len(asked)]
            if len(asked) == r.spec.popsize:  # a generation cut by the budget is recorded, not told
                r.optimizer.tell(list(zip(asked, mine)))
            attrs = {studies.PHASE: r.spec.phase, studies.RUN: r.spec.run, studies.WORKER: r.spec.worker,
                     studies.GENERATION: r.generation}
            generations.append(studies.Generation(points[first:first + len(asked)], mine, attrs, r.optimizer.state()))
            first += len(asked)
            r.history.append(float(np.min(mine)))
            r.generation += 1
        studies.record(study, space, generations)
        counter.add(len(points))
        lowest = int(np.argmin(costs))
        after_generation(float(costs[lowest]), float(maes[lowest]))
    return {r.spec.run: r.history for r in runs}


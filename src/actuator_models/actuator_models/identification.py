"""Identification of a friction model with CMA-ES (optuna), one generation per batched rollout.

The cost of a parameter set is the mean, over the training logs, of the mean absolute position
error [rad] between simulation and log (paper section V-B). Each CMA-ES generation is asked
from optuna (ask/tell), and the whole population is simulated on all logs in one
:func:`~actuator_models.simulation.rollout` call: numpy's per-call overhead is paid once per
generation instead of once per trial.

Studies live in optuna storages, so a run can be interrupted and resumed, and several workers
(processes or machines sharing an RDB) can cooperate on one study.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import optuna
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState

from .friction import embed, nests
from .logs import Log, read_logs
from .model import Model, new_model, save_model
from .parameters import Parameter
from .sampler import GenerationCmaEsSampler
from .simulation import LogBatch, mean_absolute_errors, rollout
from .splits import split_logs

#: Cost given to a parameter set whose simulation is not finite [rad].
FAILED_COST = 1e3
#: Relative improvement of the best cost below which a run has converged (see ``patience``).
CONVERGED = 1e-3
#: Default patience: generations without a CONVERGED improvement before a fit stops early.
PATIENCE = 60
#: CMA-ES step of the final local run, as a fraction of each parameter's range.
POLISH_SIGMA = 0.02


def converged(generation_best: Sequence[float], patience: int) -> bool:
    """True when the last ``patience`` generations found nothing better, by :data:`CONVERGED`
    (relative), than the generations before them. It follows the search itself (each
    generation's best), not the best trial so far, which may be a given starting point."""
    if len(generation_best) <= patience:
        return False
    before, recent = min(generation_best[:-patience]), min(generation_best[-patience:])
    return before - recent <= CONVERGED * abs(before)


class FitInterrupted(Exception):
    """Raised after Ctrl-C once the best parameters so far are saved (``result``)."""

    def __init__(self, result: "FitResult") -> None:
        super().__init__("identification interrupted; best parameters so far were kept")
        self.result = result


@dataclass(frozen=True)
class SearchSpace:
    """The parameters searched (with bounds) and those fixed at given values."""

    free: Tuple[Parameter, ...]
    fixed: Mapping[str, float]

    @classmethod
    def for_model(
        cls,
        model: Model,
        fixed: Optional[Mapping[str, float]] = None,
        bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
    ) -> "SearchSpace":
        """All of ``model``'s parameters but ``fixed``; ``bounds`` override identification bounds."""
        fixed = dict(fixed or {})
        bounds = dict(bounds or {})
        names = {p.name for p in model.parameters}
        for name in (*fixed, *bounds):
            if name not in names:
                raise ValueError(f"parameter {name!r} is not one of model {model.name}: {', '.join(sorted(names))}")
        free = []
        for p in model.parameters:
            if p.name in fixed:
                continue
            if p.name in bounds:
                low, high = bounds[p.name]
                if not low < high:
                    raise ValueError(f"bounds of {p.name!r}: lower {low} must be below upper {high}")
                p = p.with_bounds(low, high)
            free.append(p)
        return cls(tuple(free), fixed)

    @property
    def distributions(self) -> Dict[str, FloatDistribution]:
        return {p.name: FloatDistribution(p.lower, p.upper) for p in self.free}

    def batch(self, parameter_sets: Sequence[Mapping[str, float]]) -> Dict[str, np.ndarray]:
        """Stack parameter sets into arrays of shape ``(P,)``, fixed values included."""
        size = len(parameter_sets)
        out = {name: np.full(size, float(value)) for name, value in self.fixed.items()}
        for p in self.free:
            out[p.name] = np.array([float(s[p.name]) for s in parameter_sets])
        return out


class Objective:
    """Batched cost: MAE [rad] of many parameter sets on a fixed set of logs."""

    def __init__(self, model: Model, logs: Sequence[Log], integrator: Optional[str] = None) -> None:
        self.model = model
        self.logs = list(logs)
        self.integrator = integrator or model.integrator
        self.batch = LogBatch.from_logs(self.logs, model.actuator.default_vin)

    @property
    def log_steps(self) -> int:
        """Simulated steps per parameter set (all logs)."""
        return int(self.batch.lengths.sum())

    def per_log(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """MAE per parameter set and log, shape ``(P, L)``; the model's values fill the gaps."""
        size = len(next(iter(values.values())))
        full = {name: np.full(size, value) for name, value in self.model.values.items()}
        full.update(values)
        with np.errstate(all="ignore"):
            simulated = rollout(self.model.actuator, self.model.friction, full, self.batch, self.integrator)
            maes = mean_absolute_errors(simulated, self.batch)
        return np.where(np.isfinite(maes), maes, FAILED_COST)

    def __call__(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Mean MAE over the logs, shape ``(P,)``."""
        return self.per_log(values).mean(axis=1)


#: Called after each generation with (completed trials, trial budget, best cost [rad]).
ProgressCallback = Callable[[int, int, float], None]


class Progress:
    """Prints trials done, trials/s, best cost and ETA to stderr, at most every ``every`` s, and
    passes every update to ``callback`` (a GUI, a ROS action's feedback...)."""

    def __init__(
        self, label: str, total: int, enabled: bool = True, every: float = 1.0,
        callback: Optional[ProgressCallback] = None,
    ) -> None:
        self.label, self.total, self.enabled, self.every = label, total, enabled, every
        self.callback = callback
        self.start = time.perf_counter()
        self.last = -math.inf
        self.first_done: Optional[int] = None

    def update(self, done: int, best: float, final: bool = False) -> None:
        now = time.perf_counter()
        if self.callback is not None:
            self.callback(done, self.total, best)
        if self.first_done is None:
            self.first_done = done
        if not self.enabled or (now - self.last < self.every and not final):
            return
        self.last = now
        elapsed = now - self.start
        rate = (done - self.first_done) / elapsed if elapsed > 0 else 0.0
        eta = (self.total - done) / rate if rate > 0 else math.inf
        eta_text = f"{eta:5.0f}s" if math.isfinite(eta) else "    ?"
        print(
            f"[{self.label}] {done:>6}/{self.total} trials  {rate:7.1f} trials/s  "
            f"best MAE {best:.5f} rad  ETA {eta_text}",
            file=sys.stderr,
            flush=True,
        )


def default_popsize(dimensions: int) -> int:
    """Twice CMA-ES's usual ``4 + 3 ln D``: robust on these multimodal costs, and a batch wide
    enough to amortise numpy's per-call overhead (24 for M6 of a Dynamixel, 15 parameters)."""
    return 2 * (4 + int(3 * math.log(dimensions)))


def open_storage(url: Optional[str]) -> Union[None, str, optuna.storages.BaseStorage]:
    """An optuna storage: ``None`` (in memory), a journal file (``*.journal`` or ``journal:PATH``),
    or an RDB URL (``sqlite:///f.db``, ``postgresql://...``)."""
    if url is None:
        return None
    if url.startswith("journal:") or url.endswith(".journal"):
        path = Path(url[len("journal:"):] if url.startswith("journal:") else url)
        path.parent.mkdir(parents=True, exist_ok=True)
        backend = optuna.storages.journal.JournalFileBackend(str(path))
        return optuna.storages.journal.JournalStorage(backend)
    return url


def make_study(
    storage: Optional[str], study_name: Optional[str], seed: Optional[int], popsize: int,
    x0: Optional[Mapping[str, float]] = None, sigma0: Optional[float] = None,
) -> optuna.Study:
    """Create or load the study (``load_if_exists``: re-running continues it); CMA-ES starts
    its search at ``x0`` (the centre of the bounds by default) with step ``sigma0`` (a fraction
    of each parameter's range; 1/6 by default)."""
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():  # optuna 4.9 deprecated x0 (to move to OptunaHub in 6.0)
        warnings.simplefilter("ignore", FutureWarning)
        sampler = GenerationCmaEsSampler(
            seed=seed, popsize=popsize, x0=x0, sigma0=sigma0, warn_independent_sampling=False
        )
    return optuna.create_study(
        storage=open_storage(storage),
        study_name=study_name,
        sampler=sampler,
        direction="minimize",
        load_if_exists=study_name is not None,
    )


def start_point(start: Model, target: Model, space: SearchSpace) -> Dict[str, float]:
    """The free parameters of ``target`` equivalent to the fitted ``start`` (clipped to bounds)."""
    if not nests(start.friction, target.friction):
        raise ValueError(f"{start.name} is not nested in {target.name}: cannot start from it")
    values = {**start.values, **embed(start.values, start.friction, target.friction)}
    return {p.name: float(min(max(values[p.name], p.lower), p.upper)) for p in space.free}


def _completed(study: optuna.Study) -> int:
    return len(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def run_study(
    study: optuna.Study,
    space: SearchSpace,
    objective: Objective,
    trials: int,
    popsize: int,
    progress: Optional[Progress] = None,
    worker: int = 0,
    patience: Optional[int] = None,
) -> None:
    """Ask a generation, simulate it in one batch, tell the costs; until ``trials`` are complete.

    Ctrl-C stops after the current generation is told (then raises KeyboardInterrupt), so the
    study holds no half-done generation and a later run resumes from the completed trials. The first trial of each
    generation records the ``worker`` index (user attribute). With ``patience``, it also stops
    once :func:`converged`.
    """
    history: List[float] = []
    with deferred_interrupt() as interrupted:
        while not interrupted():
            done = _completed(study)
            if done >= trials or (patience and converged(history, patience)):
                break
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pending = [study.ask(space.distributions) for _ in range(min(popsize, trials - done))]
            pending[0].set_user_attr("worker", worker)
            costs = objective(space.batch([t.params for t in pending]))
            for trial, cost in zip(pending, costs):
                study.tell(trial, float(cost))
            if not history:  # a given start point (enqueued) is not the search's own progress
                given = {t.number for t in study.get_trials(deepcopy=False) if "fixed_params" in t.system_attrs}
                costs_searched = [c for t, c in zip(pending, costs) if t.number not in given]
            else:
                costs_searched = list(costs)
            if costs_searched:
                history.append(float(np.min(costs_searched)))
            if progress:
                progress.update(done + len(costs), study.best_value)
    if interrupted():
        raise KeyboardInterrupt


@contextmanager
def deferred_interrupt() -> Iterator[Callable[[], bool]]:
    """Within the block, Ctrl-C (SIGINT) sets a flag instead of raising, so a generation is
    never left half asked or half told; a second Ctrl-C raises at once. Yields the flag getter."""
    caught: List[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return

    def handler(signum: int, frame: object) -> None:
        if caught:
            raise KeyboardInterrupt
        caught.append(True)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield lambda: bool(caught)
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass
class FitResult:
    """A fitted model and its errors [rad].

    Attributes:
        model: the fitted model (fixed and default values included).
        train_mae / validation_mae: mean MAE on the training / validation logs (None if none).
        train_logs / validation_logs: per-log MAE by file name.
        trials: completed trials in the study. seconds: wall time of this run.
        study_name: the optuna study. space: what was searched.
    """

    model: Model
    train_mae: float
    validation_mae: Optional[float]
    train_logs: Dict[str, float]
    validation_logs: Dict[str, float]
    trials: int
    seconds: float
    study_name: str
    space: SearchSpace
    extra: Dict[str, object] = field(default_factory=dict)


def _per_log(model: Model, logs: Sequence[Log], integrator: str) -> Dict[str, float]:
    if not logs:
        return {}
    objective = Objective(model, logs, integrator)
    maes = objective.per_log({name: np.array([v]) for name, v in model.values.items()})[0]
    return {Path(log.source).name: float(m) for log, m in zip(logs, maes)}


def _worker(
    index: int, storage: str, study_name: str, seed: int, popsize: int, space: SearchSpace, model: Model,
    logs: List[Log], integrator: str, trials: int, patience: Optional[int], x0: Optional[Dict[str, float]],
) -> None:
    """A helper process: joins the study and works on it until it has ``trials`` trials."""
    study = make_study(storage, study_name, seed, popsize, x0)
    try:
        run_study(study, space, Objective(model, logs, integrator), trials, popsize, worker=index, patience=patience)
    except KeyboardInterrupt:
        pass


def _search(
    study: optuna.Study, space: SearchSpace, objective: Objective, trials: int, popsize: int,
    progress: Progress, patience: Optional[int], workers: int, storage: Optional[str],
    seed: Optional[int], base: Model, train: List[Log], integrator: str, x0: Optional[Dict[str, float]],
) -> bool:
    """Run one study with ``workers`` processes; True if Ctrl-C stopped it."""
    helpers: List[multiprocessing.Process] = []
    if workers > 1:
        context = multiprocessing.get_context("spawn")
        for index in range(1, workers):
            args = (index, storage, study.study_name, (seed or 0) + index, popsize, space, base, train,
                    integrator, trials, patience, x0)
            helpers.append(context.Process(target=_worker, args=args, daemon=True))
        for process in helpers:
            process.start()
    try:
        run_study(study, space, objective, trials, popsize, progress, patience=patience)
    except KeyboardInterrupt:
        for process in helpers:  # they stop after their current generation
            if process.pid is not None and process.is_alive():
                os.kill(process.pid, signal.SIGINT)
        return True
    finally:
        for process in helpers:
            process.join()
    return False


def fit(
    logs: Union[str, Path, Sequence[Log]],
    actuator: str,
    model: str = "m6",
    trials: int = 6000,
    validation_fraction: float = 0.25,
    validation_kp: Optional[float] = None,
    seed: Optional[int] = 0,
    fixed: Optional[Mapping[str, float]] = None,
    bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
    storage: Optional[str] = None,
    study_name: Optional[str] = None,
    workers: int = 1,
    integrator: str = "bam",
    popsize: Optional[int] = None,
    out: Optional[Union[str, Path]] = None,
    progress: bool = True,
    patience: Optional[int] = PATIENCE,
    start: Optional[Model] = None,
    restarts: int = 0,
    callback: Optional[ProgressCallback] = None,
    polish: bool = True,
) -> FitResult:
    """Identify ``model`` (m1..m6) of ``actuator`` on processed logs with CMA-ES.

    Args:
        logs: a folder of processed JSON logs, or loaded logs.
        trials: total completed trials wanted in the study (a resumed study counts its own).
        validation_fraction / validation_kp: held-out logs (see :mod:`.splits`).
        seed: makes a single-worker run reproducible (the split too).
        fixed: parameters kept out of the search, by name. bounds: override search bounds.
        storage, study_name: optuna storage URL or journal file, and study name; re-running
            with the same ones continues the study.
        workers: processes working on the study together (a journal file is created next to
            ``out`` if no storage is given).
        integrator: ``"bam"`` (published step) or ``"semi-implicit"``; recorded in the params.
        out: params file written with the best parameters (also after Ctrl-C).
        patience: stop early after this many generations without a 0.1 % improvement
            (None: always run all ``trials``).
        start: a fitted model of a friction model this one nests (see
            :func:`~actuator_models.friction.nests`): the search starts from its equivalent
            parameters, which are also the first trial, so the fit is never worse than it.
        restarts: independent CMA-ES runs after the first (IPOP: each with twice the previous
            population and its own seed and study, ``<study>-restart<i>``); the best is kept.
            Each run has the budget ``trials`` and stops early on convergence.
        callback: called after each generation with (completed trials, budget, best MAE).
        polish: end with a local CMA-ES run (step :data:`POLISH_SIGMA` of each range) started
            at the best point found, with half the budget and early stop (study
            ``<study>-polish``): the global runs locate the basin, this one settles in it.

    Raises:
        FitInterrupted: on Ctrl-C, after saving the best parameters so far.
    """
    loaded = read_logs(logs) if isinstance(logs, (str, Path)) else list(logs)
    train, validation = split_logs(loaded, validation_fraction, validation_kp, seed or 0)
    base = new_model(actuator, model, integrator)
    space = SearchSpace.for_model(base, fixed, bounds)
    base = base.with_values(**space.fixed)
    size = popsize or default_popsize(len(space.free))
    if workers > 1 and storage is None:
        where = Path(out).with_suffix(".journal") if out else Path(f"{actuator}_{model}.journal")
        storage = str(where)
    if workers > 1 and study_name is None:
        study_name = f"{actuator}-{model}-{integrator}"
    x0 = start_point(start, base, space) if start is not None else None
    objective = Objective(base, train, integrator)
    began = time.perf_counter()
    studies: List[optuna.Study] = []
    interrupted = False
    for attempt in range(restarts + 1):  # IPOP: each restart doubles the population
        name = study_name if attempt == 0 or study_name is None else f"{study_name}-restart{attempt}"
        attempt_seed = None if seed is None else seed + 1000 * attempt
        study = make_study(storage, name, attempt_seed, size * 2**attempt, x0 if attempt == 0 else None)
        if attempt == 0 and x0 is not None and not study.trials:
            study.enqueue_trial(x0)
        studies.append(study)
        label = f"{actuator}/{model}" + (f" restart {attempt}" if attempt else "")
        interrupted = _search(study, space, objective, trials, size * 2**attempt, Progress(label, trials, progress, callback=callback),
                              patience, workers, storage, attempt_seed, base, train, integrator,
                              x0 if attempt == 0 else None)
        if interrupted:
            break
    finished = [s for s in studies if _completed(s)]
    if not finished:  # stopped before any trial completed: nothing to keep
        raise KeyboardInterrupt
    study = min(finished, key=lambda s: s.best_value)
    if polish and not interrupted:  # a local CMA-ES run around the best point
        best_x = {name: study.best_trial.params[name] for name in space.distributions}
        name = None if study_name is None else f"{study_name}-polish"
        polishing = make_study(storage, name, None if seed is None else seed + 999, size, best_x, POLISH_SIGMA)
        if not polishing.trials:
            polishing.enqueue_trial(best_x)
        studies.append(polishing)
        label = f"{actuator}/{model} polish"
        budget = max(trials // 2, size)
        interrupted = _search(polishing, space, objective, budget, size, Progress(label, budget, progress, callback=callback),
                              patience, workers, storage, seed, base, train, integrator, best_x)
        finished = [s for s in studies if _completed(s)]
        study = min(finished, key=lambda s: s.best_value)
    best = study.best_trial
    fitted = base.with_values(**best.params)
    result = FitResult(
        model=fitted,
        train_mae=float(best.value),
        validation_mae=None,
        train_logs=_per_log(fitted, train, integrator),
        validation_logs=_per_log(fitted, validation, integrator),
        trials=sum(_completed(s) for s in studies),
        seconds=time.perf_counter() - began,
        study_name=study.study_name,
        space=space,
    )
    if result.validation_logs:
        result.validation_mae = float(np.mean(list(result.validation_logs.values())))
    if out is not None:
        save_model(fitted, out)
    if interrupted:
        raise FitInterrupted(result)
    return result

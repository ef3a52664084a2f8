"""Identification of a friction model: CMA-ES (:mod:`.cma_es`) over batched rollouts, optuna as storage.

An :class:`Identification` is built from a model (its actuator, friction model and
integrator), a :class:`~actuator_models.splits.Dataset` (split once) and a storage; its
:meth:`~Identification.run` goes through three phases, all recorded in one optuna study:

1. **start**: a given start point (the fitted parameters of a nested model) is evaluated first,
   so the fit is never worse than it;
2. **search**: a global CMA-ES run from the centre of the bounds (or the start point), then up
   to ``restarts`` IPOP restarts, each with twice the population; a run ends on convergence
   (``patience``) or when the search's share of the budget is spent;
3. **polish**: a local CMA-ES run (step :data:`POLISH_SIGMA` of each range) from the best point
   of the study, with what is left of the budget.

The trial budget (evaluated parameter sets; the study records one optuna trial per CMA-ES
generation, :mod:`.studies`) covers all phases and is never exceeded (the last generation is cut). A
:class:`threading.Event` stops the fit after the current generation (Ctrl-C, a ROS action's
cancel); the result then says ``stopped``. Progress goes to a typed callback.

Several workers on one study (``workers`` processes here, or processes on machines sharing an
RDB, each with its own ``worker`` index) each run their own independent CMA-ES (their own seed
and, but for worker 0, a seeded random start), counting the study's trials together against
the budget; they share their best point through the study: every worker's polish starts from
the best trial of any worker. The ``workers`` helpers stop (after their current generation) when
this process's phases end: a second worker adds starts while the fit runs, it does not lengthen
it (each worker's search run to its own end made a 2-worker fit evaluate 1.6x what the fit in
memory does, and wait for it). Re-running a worker with its index resumes its CMA-ES runs.
"""

from __future__ import annotations

import functools
import math
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np
from multiprocessing.process import BaseProcess

from . import studies
from .additions import settings_from_logs
from .addition_thermal import INITIAL
from .cma_run import CONVERGED, Counter, RunSpec, cma_runs, converged, default_popsize  # noqa: F401 (re-exported)
from .friction import embed, nests
from .logs import Log
from .model import Model
from .objective import FAILED_COST, Objective, Prior, SearchSpace  # noqa: F401 (re-exported)
from .fit_data import (  # noqa: F401 (re-exported: the fit's data lives there)
    DEFAULT_PRIOR, DEFAULT_PRIOR_HEATED, DEFAULT_STARTS, DEFAULT_TRIALS, PATIENCE, FitInterrupted, FitResult, FitSettings,
    PhaseFigures, Progress, ProgressCallback, StartFigures, default_prior,
)
from .data_rule import shortfall
from .divergence import check_maes, out_of_bounds
from .splits import Dataset
from .thermal_start import fitted_initial

#: CMA-ES step of the polish, as a fraction of each parameter's range.
POLISH_SIGMA = 0.02
#: Initial CMA-ES step of a search run, as a fraction of each range (optuna's default).
SEARCH_SIGMA = 1 / 6
#: Share of the budget kept for the polish.
POLISH_SHARE = 0.25


def start_point(start: Model, target: Model, space: SearchSpace) -> Dict[str, float]:
    """The free parameters of ``target`` equivalent to the fitted ``start`` (clipped to bounds);
    an addition ``start`` lacks starts at its default (none acting)."""
    if not nests(start.friction, target.friction):
        raise ValueError(f"{start.name} is not nested in {target.name}: cannot start from it")
    values = {**start.values, **embed(start.values, start.friction, target.friction)}
    return {p.name: float(min(max(values.get(p.name, p.default), p.lower), p.upper)) for p in space.free}


def per_log(model: Model, logs: Sequence[Log]) -> Dict[str, float]:
    """MAE [rad] of ``model`` on each log, by file name."""
    if not logs:
        return {}
    return {Path(log.source).name: float(m) for log, m in zip(logs, Objective(model, logs).of_model(model))}


def refuse_divergent_result(model: Model, logs: Sequence[Log], maes: Dict[str, float]) -> None:
    """Raise :class:`~.divergence.DivergentStep` when a fit's result diverged on ``logs`` (the
    rule of :mod:`.divergence`): its MAEs [rad] ``maes`` (by file name, computed for the report
    anyway) by the rule's MAE form; its positions (one more rollout) only where a value lies
    outside its search bounds, which only ``--set`` or ``--bounds`` put there: within them, a
    rollout that chatters at the step's speed clip (MAE ~0.4 rad) is never the best of a search
    whose fits score ~0.03 rad, and the fit's time stays that of the search."""
    if not logs:
        return
    check_maes(model, np.array(list(maes.values())), list(maes))
    if out_of_bounds(model.parameters, model.values):
        Objective(model, logs).refuse_divergent(model)


class Identification:
    """Fit ``model``'s free parameters on ``dataset.train``, recorded in study ``study_name`` of
    ``storage`` (an optuna storage URL or journal file; None: in memory, one worker)."""

    def __init__(self, model: Model, dataset: Dataset, settings: FitSettings = FitSettings(),
                 storage: Optional[str] = None, study_name: Optional[str] = None, start: Optional[Model] = None) -> None:
        # an addition's settings (thermal: ambient and start temperature) come from the training logs
        fixed = {**settings_from_logs(model.additions, [log.extra.get("temp") for log in dataset.train]),
                 **(settings.fixed or {})}
        self.space = SearchSpace.for_model(model, fixed, settings.bounds, settings.log_scale)
        self.model = model.with_values(**self.space.fixed)
        self.dataset, self.settings = dataset, settings
        short = shortfall(model, [p.name for p in self.space.free], dataset.train)
        if short is not None and not settings.force:
            logs = "" if short.evidence == "positions" else f" recording the {short.evidence}"
            against = "" if short.evidence == "positions" else f" fitted against the {short.evidence}"
            raise ValueError(
                f"{short.have} training log(s){logs} for {short.free} free parameters{against} of {model.name}: "
                f"at least {short.needed} needed (one per two parameters); record more logs, hold out fewer "
                f"(--validation-logs; Python: validation_logs=N), fix parameters (--set; Python: fixed=...) "
                f"or pass --force (Python: force=True)")
        if settings.workers > 1 and storage is None:
            raise ValueError("several workers need a storage they share (--storage FILE.journal or an RDB URL)")
        self.storage, self.study_name = storage, study_name
        self.popsize = settings.popsize or default_popsize(len(self.space.free),
                                                           int(settings.trials * (1 - POLISH_SHARE)) // settings.starts)
        self.x0 = start_point(start, self.model, self.space) if start is not None else None
        #: the weight of the prior toward the defaults (the settings', or the model's default)
        self.prior_weight = settings.prior if settings.prior is not None else default_prior(self.model)
        self._objective: Optional[Objective] = None

    @property
    def objective(self) -> Objective:
        if self._objective is None:
            prior = Prior.toward(self.space, self.model.values, self.prior_weight) if self.prior_weight > 0 else None
            self._objective = Objective(self.model, self.dataset.train, prior, self.settings.unfed_share)
        return self._objective

    def run(self, stop: Optional[threading.Event] = None, progress: Optional[ProgressCallback] = None) -> FitResult:
        """Run the phases (or what is left of them in a resumed study); returns the best model."""
        stop = stop or threading.Event()
        began = time.perf_counter()
        study = studies.open_study(studies.open_storage(self.storage), self.study_name)
        helpers = self._start_helpers(study.study_name) if self.settings.workers > 1 else []
        try:
            phases = self._phases(study, stop, progress or (lambda p: None))
        finally:
            # the fit ends with this worker's phases (or a stop): the helpers stop after their
            # current generation (SIGTERM: one still starting ends silently, having recorded nothing)
            for process in helpers:
                if process.is_alive() and process.pid is not None:
                    os.kill(process.pid, signal.SIGTERM)
            for process in helpers:
                process.join()
        return self._result(study, phases, time.perf_counter() - began, stop.is_set())

    def _phases(self, study: object, stop: threading.Event, report: ProgressCallback) -> List[PhaseFigures]:
        s, space = self.settings, self.space
        counter = Counter(study, shared=self.storage is not None)
        figures: List[PhaseFigures] = []
        polish_share = min(max(int(POLISH_SHARE * s.trials), self.popsize), s.trials // 2) if s.polish else 0
        search_limit = s.trials - polish_share

        known = studies.best(studies.completed(study))
        # best of the study, this worker's view: (cost, its training MAE); they differ with a prior
        overall = [(math.inf, math.inf) if known is None else
                   (float(known.value), float(self.objective.per_log(space.batch([known.params])).mean()))]

        def phase(name: str, body: Callable[[Callable[[float, float], None]], None]) -> None:
            first, t0 = counter.mine, time.perf_counter()

            def after(cost: float, mae: float) -> None:
                overall[0] = min(overall[0], (cost, mae))
                elapsed = time.perf_counter() - t0
                rate = (counter.mine - first) / elapsed if elapsed > 0 else 0.0
                left = max(s.trials - counter.done, 0)
                report(Progress(self.model.friction.name, name, counter.done, s.trials, rate, overall[0][1],
                                left / rate if rate > 0 else math.inf, overall[0][0]))

            body(after)
            if counter.mine > first:  # this process's evaluations: the summary's phases add up to them
                figures.append(PhaseFigures(name, counter.mine - first, time.perf_counter() - t0, overall[0][1],
                                            overall[0][0]))

        def run(spec: RunSpec, after: Callable[[float, float], None]) -> None:
            cma_runs([spec], study, counter, space, self.objective, stop, s.patience, after)

        x0 = self.x0
        if x0 is not None and counter.refresh() == 0 and s.worker == 0:
            def start(after: Callable[[float, float], None]) -> None:
                cost, mae = self.objective.evaluate(space.batch([x0]))
                studies.record(study, space, [studies.Generation([x0], cost, {studies.PHASE: "start",
                                                                               studies.WORKER: s.worker})])
                counter.add(1)
                after(float(cost[0]), float(mae[0]))
            phase("start", start)
        rng = np.random.default_rng(s.seed + s.worker)
        if not stop.is_set() and counter.refresh() < search_limit:
            specs = []
            for index in range(s.starts):
                if index == 0 and s.worker == 0:
                    mean = space.to_unit(self.x0) if self.x0 is not None else np.full(len(space.free), 0.5)
                else:  # independent starts: other starts and other workers begin elsewhere
                    mean = rng.uniform(0.0, 1.0, len(space.free))
                specs.append(RunSpec("search", index, s.worker, mean, s.search_sigma or SEARCH_SIGMA, self.popsize,
                                     s.seed + s.worker + 1000 * index, search_limit))

            def search(after: Callable[[float, float], None]) -> None:
                cma_runs(specs, study, counter, space, self.objective, stop, s.patience, after)
            phase("search", search)
        for attempt in range(1, s.restarts + 1):
            if stop.is_set() or counter.refresh() >= search_limit:
                break
            spec = RunSpec("search", s.starts - 1 + attempt, s.worker, rng.uniform(0.0, 1.0, len(space.free)),
                           SEARCH_SIGMA, self.popsize * 2**attempt, s.seed + s.worker + 1000 * (s.starts - 1 + attempt),
                           search_limit)
            phase(f"restart {attempt}", functools.partial(run, spec))
        if s.polish and not stop.is_set() and counter.refresh() < s.trials:
            best = studies.best(studies.completed(study))
            if best is not None:
                spec = RunSpec("polish", 0, s.worker, space.to_unit(best.params), POLISH_SIGMA, self.popsize,
                               s.seed + s.worker + 999, s.trials)
                phase("polish", lambda after: run(spec, after))
        return figures

    def _result(self, study: object, phases: List[PhaseFigures], seconds: float, stopped: bool) -> FitResult:
        trials = studies.completed(study)
        best = studies.best(trials)
        if best is None:
            raise KeyboardInterrupt("stopped before any trial completed")
        fitted = self._with_start(self.model.with_values(**best.params))
        validation = per_log(fitted, self.dataset.validation)
        starts = self._starts(trials)
        train = per_log(fitted, self.dataset.train)
        refuse_divergent_result(fitted, self.dataset.train, train)  # a result a user reads: not from nonsense
        refuse_divergent_result(fitted, self.dataset.validation, validation)
        return FitResult(
            model=fitted,  # the cost is the training MAE, but with a prior: then its MAE alone
            train_mae=float(best.value) if self.prior_weight == 0 else float(np.mean(list(train.values()))),
            validation_mae=float(np.mean(list(validation.values()))) if validation else None,
            train_logs=train,
            validation_logs=validation,
            trials=studies.evaluations(trials),
            seconds=seconds,
            study_name=self.study_name,
            space=self.space,
            dataset=self.dataset,
            phases=tuple(phases),
            at_bounds=self.space.at_bounds(best.params),
            stopped=stopped,
            starts=starts,
        )

    def _with_start(self, fitted: Model) -> Model:
        """``fitted`` with its ``thermal_initial`` fitted on the training logs (:mod:`.thermal_start`)
        when the settings ask for it and the user did not fix it."""
        if (self.settings.thermal_start != "fitted" or INITIAL.name not in self.space.fixed
                or INITIAL.name in (self.settings.fixed or {})):
            return fitted
        return fitted.with_values(**{INITIAL.name: fitted_initial(Objective(fitted, self.dataset.train), fitted.values)})

    def _starts(self, trials: Sequence[object]) -> Tuple[StartFigures, ...]:
        """The best point (by cost) of each search run of any worker, with its training and
        validation MAE: the spread across independent starts says how much the result depends
        on where CMA-ES began."""
        bests: Dict[Tuple[int, int], object] = {}
        counts: Dict[Tuple[int, int], int] = {}
        for t in trials:
            a = t.user_attrs  # type: ignore[attr-defined]
            if a.get(studies.PHASE) != "search":
                continue
            key = (int(a[studies.WORKER]), int(a[studies.RUN]))
            counts[key] = counts.get(key, 0) + int(a.get(studies.EVALUATIONS, 1))
            if key not in bests or t.value < bests[key].value:  # type: ignore[attr-defined]
                bests[key] = t
        if not bests:
            return ()
        keys = sorted(bests)
        values = self.space.batch([bests[k].params for k in keys])  # type: ignore[attr-defined]
        train = Objective(self.model, self.dataset.train)(values) if self.prior_weight > 0 else [
            bests[k].value for k in keys]  # type: ignore[attr-defined]
        validation = (Objective(self.model, self.dataset.validation)(values) if self.dataset.validation
                      else [None] * len(keys))
        return tuple(StartFigures(w, r, counts[(w, r)], float(cost), None if v is None else float(v))
                     for (w, r), cost, v in zip(keys, train, validation))

    def _start_helpers(self, study_name: str) -> List[BaseProcess]:
        context = multiprocessing.get_context("spawn")
        helpers: List[BaseProcess] = []
        for index in range(1, self.settings.workers):
            settings = replace(self.settings, workers=1, worker=self.settings.worker + index)
            args = (self.model, self.dataset, settings, self.storage, study_name)
            helpers.append(context.Process(target=_helper, args=args, daemon=True))
        for process in helpers:
            process.start()
        return helpers


def _helper(model: Model, dataset: Dataset, settings: FitSettings, storage: str, study_name: str) -> None:
    """A helper process: one more worker on the study, until its phases end or Ctrl-C, or its
    parent dies."""
    end_with_parent()
    stop = threading.Event()
    with stop_on_sigint(stop):
        Identification(model, dataset, replace(settings, force=True), storage, study_name).run(stop)


def end_with_parent() -> None:
    """End this process (at once, as a ``kill -9`` would) when the process that started it dies:
    a fit killed with SIGKILL, which no handler sees, must not leave its helper running beside the
    helper of the same worker index that the resumed fit starts."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="end-with-parent", daemon=True).start()


@contextmanager
def stop_on_sigint(stop: threading.Event) -> Iterator[threading.Event]:
    """Within the block, Ctrl-C (SIGINT) or SIGTERM sets ``stop`` instead of raising, so a
    generation is never left half recorded and the best so far is kept; a second one raises at once. Only in the main thread (signal
    handlers live there); elsewhere the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return

    def handler(signum: int, frame: object) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler_before in previous.items():
            signal.signal(sig, handler_before)

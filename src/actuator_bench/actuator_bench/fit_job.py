"""Friction-model identification jobs (ROS-free core of the identification node).

A :class:`FitJob` fits the requested models with the one fit front end,
``actuator_models.fitting.fit`` (params files ``<output_dir>/<model>.json`` and the report under
``<output_dir>/report``), on a folder of processed JSON logs or on a bench bag (converted first
into ``<output_dir>/logs``). The log checks, the carry rule and the model order are the fit's, as
for ``actuator-models fit``.

:meth:`FitJob.start` runs it in a background thread. The studies are kept in the journal file
``<output_dir>/studies.journal`` (one study per model, ``fit-<model>``), so re-running a job with
the same output folder continues them, losing no completed generation (a study's trial). Progress is what the fit's
typed progress callback last reported (after each CMA-ES generation), readable from any thread.
:meth:`FitJob.cancel` sets the fit's stop event: it stops after the current generation, keeping
the best parameters so far of the model being fitted.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import List, Mapping, Optional, Sequence, Tuple

from actuator_models.actuators import actuator as find_actuator
from actuator_models.fit_data import DEFAULT_TRIALS, FitInterrupted, FitSettings, Progress
from actuator_models.fit_outputs import FitOutputs
from actuator_models.fit_spec import ALL_MODELS, FitSpec
from actuator_models.fitting import ModelReport, TooFewTrainingLogs, fit, prepare
from actuator_models.friction import friction_model, nests
from actuator_models.logs import PROCESSED_DT, LogError, read_logs
from actuator_models.model import ParamsError
from actuator_models.outputs import new_run_folder
from actuator_models.friction import installed_friction_models

from .bag2json import convert, is_bag

#: Journal of the optuna studies, in the output folder.
JOURNAL = "studies.journal"
#: Study names are ``<prefix>-<model>``.
STUDY_PREFIX = "fit"
#: A fit started from a nested model's fit whose training MAE is not below that start's by this
#: relative margin never moved off it (finding 8 of issue 23: M6 after M1 at a small budget).
UNMOVED_MARGIN = 1e-6


@dataclass(frozen=True)
class FitRequest:
    """What to fit (the FitModels goal).

    Attributes:
        logs: folder of processed JSON logs, or a rosbag2 folder. actuator: ``actuator_models``
        name. models: m1..m6 (empty = all). trials: CMA-ES trials per model (default: the
        engine's, as ``actuator-models fit``). validation_fraction: fraction of logs held out,
        in [0, 1) (None: the engine's default split, a quarter covering every gain and
        trajectory, as ``actuator-models fit``). output_dir: where to write
        (empty = a new folder under the job's output root). force: fit even on fewer training
        logs than one per two free parameters (refused otherwise, with the reason as outcome).
    """

    logs: str
    actuator: str
    models: Tuple[str, ...] = ()
    trials: int = DEFAULT_TRIALS
    validation_fraction: Optional[float] = None
    output_dir: str = ""
    force: bool = False

    def check(self) -> None:
        """ValueError naming the first unusable field."""
        if not Path(self.logs).exists():
            raise ValueError(f"logs: {self.logs!r} does not exist")
        try:
            find_actuator(self.actuator)  # a registry name or an actuator description file
        except ValueError as error:
            raise ValueError(f"actuator: {error}") from None
        known = installed_friction_models()  # the registry, as `actuator-models fit --model`
        unknown = [m for m in self.models if m not in known]
        if unknown:
            raise ValueError(f"models: {', '.join(unknown)} not among {', '.join(known)}")
        if self.trials < 1:
            raise ValueError(f"trials: {self.trials} must be at least 1")
        if self.validation_fraction is not None and not 0.0 <= self.validation_fraction < 1.0:
            raise ValueError(f"validation_fraction: {self.validation_fraction} must be in [0, 1)")


@dataclass(frozen=True)
class FitProgress:
    """Feedback: ``trial`` trials done for ``model`` out of the ``trials`` budget (search and
    polish together), best training MAE so far [rad]."""

    model: str
    trial: int
    trials: int
    best_score: float


@dataclass(frozen=True)
class FitOutcome:
    """The FitModels result; MAE [rad] per model, NaN where there is no validation log.
    ``cancelled``: stopped by :meth:`FitJob.cancel` (then ``success`` is False). ``warnings``:
    what the caller should know about a successful fit (also in ``message``), see :func:`unmoved_fits`."""

    success: bool
    message: str
    models: Tuple[str, ...] = ()
    params_files: Tuple[str, ...] = ()
    train_mae: Tuple[float, ...] = ()
    validation_mae: Tuple[float, ...] = ()
    best_model: str = ""
    report_dir: str = ""
    cancelled: bool = False
    warnings: Tuple[str, ...] = ()


class FitJob:
    """One identification run.

    Args:
        request: what to fit. output_root: parent of the output folder when the request has
        none. seed: CMA-ES and split seed. dt: resampling period [s] when converting a bag.
    """

    def __init__(self, request: FitRequest, output_root: Path, seed: int = 0, dt: float = PROCESSED_DT) -> None:
        self.request = request
        self.models: Tuple[str, ...] = tuple(request.models) or ALL_MODELS
        stamp = time.strftime("%Y%m%d-%H%M%S")
        default = new_run_folder(Path(output_root) / f"fit-{request.actuator}-{stamp}")  # another fit's in that second
        self.output_dir = Path(request.output_dir) if request.output_dir else default
        self.seed = seed
        self.dt = dt
        self._journal = self.output_dir / JOURNAL
        self._cancel = threading.Event()
        self._progress: Optional[Progress] = None

    def spec(self, logs: Path) -> FitSpec:
        """The fit of this job's request on the processed logs in ``logs``."""
        request = self.request
        outputs = FitOutputs.in_folder(self.output_dir, self.models)
        return FitSpec(str(logs), request.actuator, self.models,
                       FitSettings(trials=request.trials, seed=self.seed, force=request.force),
                       validation_fraction=request.validation_fraction, storage=str(self._journal),
                       study_prefix=STUDY_PREFIX, outputs=outputs)

    def run(self) -> FitOutcome:
        """Fit every model (blocking). Everything is checked before anything is fitted or written
        (the fields, the logs, and the training log count of every model against ``force``): an
        unusable request gives ``success=False``, why (naming the request's fields), and no file."""
        request = self.request
        odd: List[str] = []  # the logs' plausibility warnings, returned with the outcome
        try:
            request.check()
            self.check_outputs(is_bag(Path(request.logs)))
            with tempfile.TemporaryDirectory(prefix="fit-logs-") as scratch:
                logs = Path(request.logs)
                if is_bag(logs):  # converted aside first: kept only once the request is accepted
                    logs = Path(scratch)
                    convert(Path(request.logs), logs, self.dt)
                read_logs(logs, notes=odd.append)  # refused or noted before the fit (issue 34)
                try:
                    prepared = prepare(self.spec(logs))
                except TooFewTrainingLogs as few:
                    against = "" if few.evidence == "positions" else f" fitted against the {few.evidence}"
                    raise ValueError(
                        f"logs: {few.train} training log(s) for the {few.free} free parameters{against} of {few.model}: at "
                        f"least {few.needed} needed (one per two parameters); give more logs, a smaller "
                        f"validation_fraction, or set force: true") from None
                if logs != Path(request.logs):
                    shutil.copytree(logs, self.output_dir / "logs", dirs_exist_ok=True)
                report = fit(prepared, stop=self._cancel, progress=self._record_progress)
        except FitInterrupted as stop:
            model = stop.result.model
            params = self.output_dir / f"{model.friction.name}.json"
            return FitOutcome(False, f"cancelled while fitting {model.friction.name} ({stop.result.trials} trials); "
                                     f"best parameters so far in {params}", cancelled=True)
        except KeyboardInterrupt:  # cancelled before a generation completed
            return FitOutcome(False, "cancelled before any trial completed", cancelled=True)
        except (ValueError, LogError, ParamsError, OSError) as error:
            return FitOutcome(False, str(error))
        results = [report.models[m].result for m in self.models]
        warnings = (*odd, *unmoved_fits(report.models, self.models))
        return FitOutcome(
            True,
            "; ".join([f"fitted {', '.join(self.models)} on {request.logs}; best by validation MAE: "
                       f"{report.best_model}", *warnings]),
            self.models,
            tuple(str(report.models[m].params_file) for m in self.models),
            tuple(r.train_mae for r in results),
            tuple(math.nan if r.validation_mae is None else r.validation_mae for r in results),
            report.best_model,
            str(self.output_dir / "report"),
            warnings=warnings,
        )

    def check_outputs(self, bag: bool) -> None:
        """ValueError naming ``output_dir`` when it is a file, or when it holds what this fit would
        write (params files, the report, with a ``bag`` the converted logs) and no studies journal
        there continues the fit that wrote them (the same goal sent again updates its own
        outputs): a new fit writes over nothing it did not make."""
        folder = self.output_dir
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"output_dir: {str(folder)!r} is a file, not a folder")
        if self._journal.exists():
            return
        outputs = FitOutputs.in_folder(folder, self.models)
        existing = [p for p in (*outputs.params.values(), outputs.report, *([folder / "logs"] if bag else []))
                    if p.exists()]
        if existing:
            raise ValueError(f"output_dir: {', '.join(map(str, existing))} already exist(s) and no {JOURNAL} there "
                             "continues the fit that wrote them; nothing was written (choose another output_dir)")

    def start(self) -> "Future[FitOutcome]":
        """Run in a daemon thread (the process may exit during a fit: its studies' journal keeps
        the completed trials, and the same job continues them); the future holds the outcome."""
        future: "Future[FitOutcome]" = Future()

        def work() -> None:
            try:
                future.set_result(self.run())
            except BaseException as error:  # noqa: B036 - handed to the waiting thread
                future.set_exception(error)

        threading.Thread(target=work, name=f"fit {self.output_dir.name}", daemon=True).start()
        return future

    def cancel(self) -> None:
        """Stop after the current CMA-ES generation (any thread)."""
        self._cancel.set()

    def _record_progress(self, progress: Progress) -> None:
        self._progress = progress

    def progress(self) -> Optional[FitProgress]:
        """The model being fitted, the completed trials of its study (all phases: the budget
        covers them) and its best training MAE so far; None before the first generation."""
        p = self._progress
        if p is None:
            return None
        return FitProgress(p.model, p.trials, p.budget, p.best)


def request_from_fields(logs: str, actuator: str, models: Sequence[str], trials: int, validation_fraction: float,
                        output_dir: str, force: bool = False) -> FitRequest:
    """A :class:`FitRequest` from the goal's fields (model names lower-cased; ``trials`` 0 and a
    negative ``validation_fraction`` stand for the engine's defaults, as the interface says)."""
    return FitRequest(logs, actuator.lower(), tuple(m.lower() for m in models), int(trials) or DEFAULT_TRIALS,
                      None if validation_fraction < 0 else float(validation_fraction), output_dir, force=bool(force))


def unmoved_fits(reports: Mapping[str, ModelReport], order: Sequence[str]) -> Tuple[str, ...]:
    """One warning per model whose fit started from an earlier, nested model's fit (as
    ``fit`` starts them) and ended with a training MAE no lower than that start's: the
    search never moved off it, usually a budget too small for the richer model."""
    warnings = []
    for k, name in enumerate(order):
        target = friction_model(name)
        nested = [reports[m].result for m in order[:k] if nests(reports[m].result.model.friction, target)]
        if not nested:
            continue
        start = min(nested, key=lambda r: r.train_mae)
        fitted = reports[name].result.train_mae
        if fitted >= start.train_mae * (1 - UNMOVED_MARGIN):
            warnings.append(f"{name} never moved off the {start.model.friction.name} fit it started from "
                            f"(training MAE {fitted:.6g} vs {start.train_mae:.6g} rad): raise trials")
    return tuple(warnings)

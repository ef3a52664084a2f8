"""The one fit front end: :class:`~.fit_spec.FitSpec` in, :class:`FitReport` out.

``actuator-models fit``, the ROS ``FitModels`` service and action (:mod:`actuator_bench.fit_job`)
and the demo all call :func:`fit`; what they share lives here and nowhere else:

* the log checks (processed logs, recorded on this actuator, enough training logs for every
  model's free parameters, each counted against what measures it, :mod:`.data_rule`: checked for
  all models before anything is fitted or written);
* the carry rule (``thermal`` when the training logs record the servo temperature over a span,
  :func:`~.additions.carried_by_default`), unless the spec names what to carry;
* the model order: each model starts from the best already fitted model it nests (M1 in M2, M3;
  M2 and M3 in M4; all in M5 and M6), so a richer model never fits worse on the training logs.

:func:`prepare` does the checks and the split (a caller may act on an accepted spec before the
long part, as the ROS job keeps converted logs); :func:`fit` runs a prepared or a plain spec.
The report files (:mod:`.report`) are written from the :class:`FitReport`.
"""

from __future__ import annotations

import tempfile
import threading
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple, Union

from .additions import carried_by_default
from .argument_names import PYTHON, ArgumentNames
from . import kernel
from .exit_codes import InputWarning
from .fit_data import FitInterrupted, FitResult
from .fit_outputs import budget_warning
from .fit_spec import FitSpec
from .friction import friction_model, nests
from .logs import Log, check_motor, read_logs, require_processed
from .model import Model, new_model, save_model
from .objective import Objective, SearchSpace
from .data_rule import shortfall
from .splits import Dataset

if TYPE_CHECKING:
    from .addition_selection import AdditionSelection
    from .cross_validation import CrossValidation
    from .fit_data import ProgressCallback
    from .figure_process import FigureProcess
    from .uncertainty import ParameterSpread


class TooFewTrainingLogs(ValueError):
    """Fewer training logs than one per two free parameters of ``model``, without ``force``, the
    parameters counted against the measurement that identifies them (``evidence``: ``"positions"``,
    or e.g. ``"temperature"`` for thermal's, :mod:`.data_rule`; ``train``: the training logs that
    record it). The message names the caller's arguments (``names``); callers with other words use
    the attributes."""

    def __init__(self, model: str, train: int, free: int, needed: int, names: ArgumentNames = PYTHON,
                 evidence: str = "positions") -> None:
        logs = "training log(s)" if evidence == "positions" else f"training log(s) recording the {evidence}"
        what = "free parameters" if evidence == "positions" else f"free parameters fitted against the {evidence}"
        super().__init__(
            f"{train} {logs} for {free} {what} of {model}: at least {needed} needed (one per two "
            f"parameters); record more logs, hold out fewer ({names.validation_logs}), fix parameters "
            f"({names.fixed}) or pass {names.switch(names.force)}")
        self.model, self.train, self.free, self.needed, self.evidence = model, train, free, needed, evidence


@dataclass(frozen=True)
class PreparedFit:
    """A checked spec: its logs split, the additions every model carries, what to tell the user."""

    spec: FitSpec
    dataset: Dataset
    carry: Tuple[str, ...]

    @property
    def warnings(self) -> Tuple[str, ...]:
        return self.dataset.warnings

    def model(self, name: str) -> Model:
        """``name``'s model before the fit: the spec's actuator and integrator, the carried additions."""
        return new_model(self.spec.actuator, name, self.spec.integrator, self.carry)


@dataclass
class ModelReport:
    """One model's fit and what the report says of it.

    Attributes:
        result: the fit. params_file: where its params were saved (None: not saved).
        spreads: per-parameter loss slices (:mod:`.uncertainty`).
        by_trajectory / by_gain: validation MAE [rad] grouped by trajectory / gain.
        selection: the additions tried by cross-validation (None when none was).
        default_train_mae / default_validation_mae: the unfitted defaults' MAE [rad].
        switched_off: per carried addition, the MAE [rad] with it switched off.
        without_temperature: training and validation MAE [rad] simulated without the logs'
        ``temp`` column (what a simulation with no temperature input gets).
        other_simulators: per other simulator (:data:`.report.REPORTED_SIMULATORS`), its
        training and validation MAE [rad] there, or why it refused the model.
    """

    result: FitResult
    params_file: Optional[Path]
    spreads: List["ParameterSpread"]
    by_trajectory: Dict[str, float]
    by_gain: Dict[str, float]
    selection: Optional["AdditionSelection"] = None
    default_train_mae: float = float("nan")
    default_validation_mae: Optional[float] = None
    switched_off: Dict[str, Dict[str, Optional[float]]] = field(default_factory=dict)
    without_temperature: Dict[str, Optional[float]] = field(default_factory=dict)
    other_simulators: Dict[str, Dict[str, Any]] = field(default_factory=dict)


@dataclass
class FitReport:
    """What a fit found, in the order it was asked.

    Attributes:
        spec: what was asked. dataset: the split. carry: what every model carried from the start.
        models: each model's report, by name. cv: the cross-validation (None without).
        best_model: the chosen model; chosen_by: how, in words.
        improvement_over_m1: M1's error over the chosen model's (None without M1).
        warnings: what the user must be told of the result (the cross-validation's, the fits'; the
        split's are ``dataset.warnings``).
        report_dir: where report.json/.md and mae.png were written (None: not written).
    """

    spec: FitSpec
    dataset: Dataset
    carry: Tuple[str, ...]
    models: Dict[str, ModelReport]
    cv: Optional["CrossValidation"]
    best_model: str
    chosen_by: str
    improvement_over_m1: Optional[float]
    warnings: Tuple[str, ...]
    report_dir: Optional[Path] = None

    def result(self, model: Optional[str] = None) -> FitResult:
        """The fit of ``model`` (default: the only model fitted)."""
        if model is None:
            if len(self.models) != 1:
                raise ValueError(f"{len(self.models)} models fitted: name one of {', '.join(self.models)}")
            model = next(iter(self.models))
        return self.models[model].result


def load_logs(spec: FitSpec) -> Dataset:
    """The spec's logs, checked (processed, recorded on its actuator unless ``allow_mismatch``) and split."""
    from .actuators import actuator

    if isinstance(spec.logs, Dataset):
        logs: List[Log] = list(spec.logs.logs)
    else:
        logs = read_logs(spec.logs, spec.allow_odd_logs) if isinstance(spec.logs, (str, Path)) else list(spec.logs)
    require_processed(logs, spec.logs if isinstance(spec.logs, (str, Path)) else "LOGS_DIR")
    check_motor(logs, actuator(spec.actuator).name, f"--actuator {spec.actuator}", spec.allow_mismatch)
    if isinstance(spec.logs, Dataset):
        return spec.logs
    return Dataset.split(logs, spec.validation_fraction, spec.validation_logs, spec.validation_kp,
                         spec.settings.seed, spec.validation_match)


def prepare(spec: FitSpec, names: ArgumentNames = PYTHON) -> PreparedFit:
    """Check ``spec`` and split its logs; raises ValueError (:class:`~.logs.LogError`,
    :class:`TooFewTrainingLogs`) before anything is fitted or written. A trial budget too small
    for the CMA-ES search to converge is an :class:`~.exit_codes.InputWarning` (the command line
    prints it as one ``warning:`` line, Python callers get a warning). Refusals and warnings name
    the caller's arguments (``names``: :data:`~.argument_names.COMMAND_LINE` or Python's)."""
    from .actuators import actuator
    from .additions import check_additions

    dataset = load_logs(spec)
    carry = (carried_by_default([log.extra.get("temp") for log in dataset.train], actuator(spec.actuator),
                                [log.torque_enable for log in dataset.train])
             if spec.carry is None else check_additions(spec.carry, "carry"))
    prepared = PreparedFit(spec, dataset, carry)
    s = spec.settings
    budget: Optional[str] = None
    for name in spec.models:
        free = [p.name for p in SearchSpace.for_model(prepared.model(name), s.fixed, s.bounds).free]
        short = shortfall(prepared.model(name), free, dataset.train)
        if short is not None and not s.force:
            raise TooFewTrainingLogs(name, short.have, short.free, short.needed, names, short.evidence)
        budget = budget or budget_warning(name, s.trials, len(free), s.popsize, s.patience, names)
        model = prepared.model(name)
        slow = kernel.unsupported(model.actuator, model.friction, model.additions)
        if slow:  # said, never a silent fallback: the numpy step gives the same numbers, slower
            warnings.warn(f"{name}: {slow}: it is fitted on the numpy servo step (the same numbers, several times "
                          f"slower)", InputWarning, stacklevel=2)
    if budget:  # one warning: the first model short of generations (the simplest has the fewest parameters)
        warnings.warn(budget, InputWarning, stacklevel=2)
    return prepared


def fit(
    spec: Union[FitSpec, PreparedFit],
    *,
    stop: Optional[threading.Event] = None,
    progress: Optional["ProgressCallback"] = None,
    figures: Optional["FigureProcess"] = None,
) -> FitReport:
    """Fit the spec's models in order; save each one's params and, once all are fitted, the
    report (where ``spec.outputs`` says). ``stop``: set it to stop after the current CMA-ES
    generation; ``progress``: called after each generation; ``figures``: a child process that
    draws the report's figure (:mod:`.figure_process`), else it is drawn here.

    Raises:
        FitInterrupted: when ``stop`` is set, once the model being fitted has its best
        parameters so far saved and the models finished before it their report.
    """
    prepared = spec if isinstance(spec, PreparedFit) else prepare(spec)
    stop = stop or threading.Event()
    scratch = None
    if prepared.spec.settings.workers > 1 and prepared.spec.storage is None:
        # workers share a study through a storage: a scratch journal (nothing lands in the current folder)
        scratch = tempfile.TemporaryDirectory(prefix="fit-")
        prepared = replace(prepared, spec=replace(prepared.spec, storage=str(Path(scratch.name) / "fit.journal")))
    try:
        return _fit(prepared, stop, progress, figures)
    finally:
        if scratch is not None:
            scratch.cleanup()


def _fit(prepared: PreparedFit, stop: threading.Event, progress: Optional["ProgressCallback"],
         figures: Optional["FigureProcess"]) -> FitReport:
    from .addition_selection import select_additions
    from .cross_validation import RULES, cross_validate
    from .identification import Identification
    from .report import grouped_mae
    from .uncertainty import loss_slices

    spec, dataset = prepared.spec, prepared.dataset
    reports: Dict[str, ModelReport] = {}
    for index, name in enumerate(spec.models):
        params_file = spec.outputs.params[name] if spec.outputs else None
        selection = select_additions(dataset.train, spec, name, spec.cv_rules or RULES, stop, progress,
                                     prepared.carry) if spec.additions else None
        model = new_model(spec.actuator, name, spec.integrator, selection.kept if selection else prepared.carry)
        start = spec.start if index == 0 else nested_start(reports, name)
        identification = Identification(model, dataset, spec.settings, spec.storage, spec.study_name(name), start)
        result = identification.run(stop, progress)
        if params_file is not None:
            save_model(result.model, params_file)
        if result.stopped:
            if reports:  # the finished models keep their report
                summarise(prepared, reports, None, figures)
            raise FitInterrupted(result)
        reports[name] = ModelReport(
            result, params_file, loss_slices(result.model, identification.objective, result.space),
            grouped_mae(result.validation_logs, dataset.validation, "trajectory"),
            grouped_mae(result.validation_logs, dataset.validation, "kp"), selection)
    cv = None
    if spec.cv_rules:
        cv = cross_validate(dataset.train, spec, list(spec.models), stop, progress,
                            {name: rep.result.model.additions for name, rep in reports.items()})
    return summarise(prepared, reports, cv, figures)


def nested_start(reports: Mapping[str, ModelReport], name: str) -> Optional[Model]:
    """Among the models fitted so far, the best (training MAE) that ``name`` nests, if any."""
    target = friction_model(name)
    nested = [r.result for r in reports.values() if nests(r.result.model.friction, target)]
    return min(nested, key=lambda r: r.train_mae).model if nested else None


def summarise(prepared: PreparedFit, reports: Dict[str, ModelReport], cv: Optional["CrossValidation"],
              figures: Optional["FigureProcess"] = None) -> FitReport:
    """The :class:`FitReport` of the fitted ``reports`` (each completed with its defaults' errors
    and its additions switched off), written where the spec's outputs say."""
    from .figure_process import draw_mae_bars
    from .report import (best_model, fit_warnings, in_other_simulators, mae_figure, switched_off, without_temperature,
                         write_report)

    spec, train, validation = prepared.spec, prepared.dataset.train, prepared.dataset.validation
    folder = spec.outputs.report if spec.outputs else None
    figure = mae_figure(reports, bool(validation), folder, spec.actuator, spec.integrator) if folder else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    if figure is not None and figures is not None:
        figures.draw("mae_bars", *figure)  # drawn by the child while the defaults are simulated here
    warnings: List[str] = cv.warnings() if cv else []  # the split's are the dataset's, said before the fit
    for name, rep in reports.items():
        default = new_model(spec.actuator, name, spec.integrator)
        rep.default_train_mae = float(Objective(default, train).of_model(default).mean())
        rep.default_validation_mae = (float(Objective(default, validation).of_model(default).mean())
                                      if validation else None)
        rep.switched_off = switched_off(rep.result.model, train, validation)
        rep.without_temperature = without_temperature(rep.result.model, train, validation)
        rep.other_simulators = in_other_simulators(rep.result.model, train, validation)
        warnings += fit_warnings(name, rep.result, rep.default_validation_mae)
    chosen = (cv.best() if cv else None) or best_model(reports)

    def key_mae(name: str) -> float:
        r = reports[name].result
        return r.validation_mae if r.validation_mae is not None else r.train_mae

    report = FitReport(
        spec, prepared.dataset, prepared.carry, reports, cv, chosen,
        (f"cross-validation (leave one {' / '.join(cv.errors)} out)" if cv and cv.best() else
         "validation MAE" if validation else "training MAE (no validation logs)"),
        key_mae("m1") / key_mae(chosen) if "m1" in reports else None,
        tuple(warnings), folder)
    if folder is not None and figure is not None:
        write_report(report, folder)
        if figures is not None:
            figures.result()
        else:
            draw_mae_bars(*figure)
    return report


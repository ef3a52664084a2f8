"""Fit several friction models on the same logs and write an honest validation report.

Models are fitted in order, each starting from the best already-fitted model it nests (M1 in
M2, M3; M2 and M3 in M4; all in M5 and M6), so a richer model never fits worse than a simpler
one on the training logs.

The report folder holds ``report.md`` and ``report.json`` (train and validation MAE per model,
the unfitted defaults for comparison, the model chosen by validation MAE and its improvement
factor over M1, per-parameter uncertainty from loss slices, validation MAE per trajectory and
per gain) and ``mae.png`` (bars in the style of the paper's Fig. 5).
"""

from __future__ import annotations

import json
import threading
import warnings
from collections import defaultdict
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .addition_selection import AdditionSelection, select_additions
from .additions import addition, carried, carried_values
from .cross_validation import RULES, CrossValidation, cross_validate
from .figure_process import FigureProcess, draw_mae_bars
from .friction import FRICTION_MODELS, friction_model, nests
from .identification import FitInterrupted, FitResult, FitSettings, Identification, ProgressCallback
from .logs import Log
from .model import Model, new_model, save_model
from .objective import Objective
from .report_markdown import markdown
from .splits import Dataset
from .uncertainty import ParameterSpread, loss_slices

#: The models fitted by default (``--model all``, an empty FitModels list): the registry's static
#: budgets M1-M6; any registered model (:func:`.friction.installed_friction_models`) may be asked for.
ALL_MODELS = tuple(FRICTION_MODELS)


@dataclass
class ModelReport:
    """One model's fit, its slices and its validation errors grouped by trajectory and gain."""

    result: FitResult
    params_file: Optional[Path]
    spreads: List[ParameterSpread]
    by_trajectory: Dict[str, float]
    by_gain: Dict[str, float]
    #: the additions tried by cross-validation (``--additions``), None when none was
    selection: Optional[AdditionSelection] = None


def grouped_mae(per_log: Mapping[str, float], logs: Sequence[Log], key: str) -> Dict[str, float]:
    """Mean MAE of logs grouped by a log attribute (``"trajectory"`` or ``"kp"``)."""
    groups: Dict[str, List[float]] = defaultdict(list)
    for log in logs:
        name = Path(log.source).name
        if name in per_log:
            value = getattr(log, key)
            groups[f"{value:g}" if isinstance(value, float) else str(value)].append(per_log[name])
    return {group: float(np.mean(values)) for group, values in sorted(groups.items())}


def study_name(prefix: Optional[str], model: str, storage: Optional[str]) -> Optional[str]:
    """The study of ``model`` in a storage: ``<prefix>-<model>`` (prefix ``fit`` by default);
    None in memory."""
    if storage is None and prefix is None:
        return None
    return f"{prefix or 'fit'}-{model}"


def fit_models(
    dataset: Dataset,
    actuator: str,
    models: Sequence[str] = ALL_MODELS,
    out_dir: Union[str, Path] = "fit",
    settings: FitSettings = FitSettings(),
    integrator: str = "bam",
    storage: Optional[str] = None,
    study_prefix: Optional[str] = None,
    stop: Optional[threading.Event] = None,
    progress: Optional[ProgressCallback] = None,
    params_files: Optional[Mapping[str, Path]] = None,
    report_dir: Optional[Path] = None,
    cv_rules: Sequence[str] = (),
    cv_trials: Optional[int] = None,
    additions: Sequence[str] = (),
    carry: Sequence[str] = (),
    figures: Optional[FigureProcess] = None,
) -> Dict[str, ModelReport]:
    """Fit each model on ``dataset`` (one split for all), save ``<out_dir>/<model>.json`` (or
    ``params_files[model]``) and the report under ``<out_dir>/report`` (or ``report_dir``).
    Returns the reports by model name. With ``cv_rules`` (``gain``, ``trajectory``), each model
    is also cross-validated on the training logs (:mod:`.cross_validation`, ``cv_trials`` per
    fit, default a quarter of the budget) and the report chooses by the cross-validated error.
    With ``additions`` (``latency``, ``backlash``), each model first tries each one by
    cross-validation on the training logs (:mod:`.addition_selection`, ``cv_rules`` or both
    rules) and carries the ones that lower the held-out error. Every model carries ``carry``
    (e.g. ``heating``) from the start, without a selection. ``figures``: a child process that
    draws the report's figure (:mod:`.figure_process`), else it is drawn here.

    Raises:
        FitInterrupted: when ``stop`` is set, once the model being fitted has its best
        parameters so far saved and the models finished before it their report.
    """
    out_dir = Path(out_dir)
    stop = stop or threading.Event()
    reports: Dict[str, ModelReport] = {}
    cv_settings = replace(settings, trials=cv_trials or max(settings.trials // 4, 1))
    for name in models:
        params_file = Path((params_files or {}).get(name, out_dir / f"{name}.json"))
        selection = select_additions(dataset.train, actuator, name, additions, cv_rules or RULES, cv_settings, integrator,
                                     stop, progress, carry) if additions else None
        identification = Identification(new_model(actuator, name, integrator, selection.kept if selection else carry), dataset,
                                        settings, storage, study_name(study_prefix, name, storage), nested_start(reports, name))
        result = identification.run(stop, progress)
        save_model(result.model, params_file)
        if result.stopped:
            if reports:  # the finished models keep their report
                write_report(reports, dataset, actuator, integrator, report_dir or out_dir / "report", figures=figures)
            raise FitInterrupted(result)
        spreads = loss_slices(result.model, identification.objective, result.space)
        reports[name] = ModelReport(
            result,
            params_file,
            spreads,
            grouped_mae(result.validation_logs, dataset.validation, "trajectory"),
            grouped_mae(result.validation_logs, dataset.validation, "kp"),
            selection,
        )
    cv = None
    if cv_rules:
        cv = cross_validate(dataset.train, actuator, list(models), cv_rules, cv_settings, integrator, stop, progress,
                            {name: rep.result.model.additions for name, rep in reports.items()})
    write_report(reports, dataset, actuator, integrator, report_dir or out_dir / "report", cv, figures)
    return reports


def nested_start(reports: Mapping[str, ModelReport], name: str) -> Optional[Model]:
    """Among the models fitted so far, the best (training MAE) that ``name`` nests, if any."""
    target = friction_model(name)
    nested = [r.result for r in reports.values() if nests(r.result.model.friction, target)]
    return min(nested, key=lambda r: r.train_mae).model if nested else None


def _default_errors(actuator: str, model: str, integrator: str, train: Sequence[Log], validation: Sequence[Log]) -> Tuple[float, Optional[float]]:
    default = new_model(actuator, model, integrator)
    train_mae = float(Objective(default, train).of_model(default).mean())
    val_mae = float(Objective(default, validation).of_model(default).mean()) if validation else None
    return train_mae, val_mae


def switched_off(model: Model, train: Sequence[Log], validation: Sequence[Log]) -> Dict[str, Dict[str, Optional[float]]]:
    """Per addition the model carries, its training and validation MAE [rad] with that addition
    switched off and every other parameter as fitted: how much the fit leans on it."""
    out: Dict[str, Dict[str, Optional[float]]] = {}
    for name in carried(model.values):
        names = addition(name).parameter_names
        off = replace(model, values={k: v for k, v in model.values.items() if k not in names},
                      additions=tuple(a for a in model.additions if a != name))
        out[name] = {"train_mae": float(Objective(off, train).of_model(off).mean()),
                     "validation_mae": float(Objective(off, validation).of_model(off).mean()) if validation else None}
    return out


def without_temperature(model: Model, train: Sequence[Log], validation: Sequence[Log]) -> Dict[str, Optional[float]]:
    """The training and validation MAE [rad] of ``model`` simulated with the logs' ``temp``
    column removed: what a simulation that knows no temperature gets (``heating`` then runs at
    25 degC; ``thermal`` starts at its ``thermal_initial`` setting)."""
    def mae(logs: Sequence[Log]) -> float:
        bare = [replace(log, extra={k: v for k, v in log.extra.items() if k != "temp"}) for log in logs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the warning about heating without a temperature is this number
            return float(Objective(model, bare).of_model(model).mean())
    return {"train_mae": mae(train), "validation_mae": mae(validation) if validation else None}


def fit_warnings(name: str, result: FitResult, default_validation: Optional[float]) -> List[str]:
    """What a user must be told about one fit's validation: an error more than twice the
    training error (the model does not carry over to the validation logs' conditions), or above
    the unfitted defaults' (the fit made the prediction worse than not fitting)."""
    out: List[str] = []
    val, train = result.validation_mae, result.train_mae
    if val is None:
        return out
    if val > 2 * train:
        out.append(f"{name.upper()}: validation MAE {val:.4f} rad is {val / train:.1f}x its training MAE {train:.4f} rad: "
                   "the validation logs hold conditions the training logs lack (record them, or fit fewer parameters)")
    if default_validation is not None and val > default_validation:
        out.append(f"{name.upper()}: validation MAE {val:.4f} rad is above the unfitted defaults' {default_validation:.4f} "
                   "rad: the fit predicts the validation logs worse than not fitting (use the defaults, "
                   "--prior to stay near them, or record logs like the validation ones)")
    return out


def best_model(reports: Mapping[str, ModelReport]) -> str:
    """The model with the lowest validation MAE (training MAE when there is no validation)."""
    def score(name: str) -> float:
        r = reports[name].result
        return r.validation_mae if r.validation_mae is not None else r.train_mae

    return min(reports, key=score)


def write_report(
    reports: Mapping[str, ModelReport],
    dataset: Dataset,
    actuator: str,
    integrator: str,
    folder: Union[str, Path],
    cv: Optional[CrossValidation] = None,
    figures: Optional[FigureProcess] = None,
) -> Dict[str, object]:
    """Write report.json, report.md and mae.png into ``folder``; returns the JSON content. The
    model is chosen by cross-validated error when ``cv`` is given, else by validation MAE.
    ``figures`` draws mae.png while the rest is computed (else it is drawn here, last); it is
    written when this returns either way."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    train, validation = dataset.train, dataset.validation
    groups = {"train": {m.upper(): r.result.train_mae for m, r in reports.items()}}
    if validation:
        groups["validation"] = {m.upper(): r.result.validation_mae for m, r in reports.items()}  # type: ignore[misc]
    figure = (groups, str(folder / "mae.png"), f"{actuator}: MAE per friction model ({integrator} step)")
    if figures is not None:
        figures.draw("mae_bars", *figure)
    chosen = (cv.best() if cv else None) or best_model(reports)
    reference = "m1" if "m1" in reports else None

    def key_mae(name: str) -> float:
        r = reports[name].result
        return r.validation_mae if r.validation_mae is not None else r.train_mae

    factor = key_mae(reference) / key_mae(chosen) if reference else None
    warnings: List[str] = cv.warnings() if cv else []
    content: Dict[str, object] = {
        "actuator": actuator,
        "integrator": integrator,
        "logs": len(dataset.logs),
        "train_logs": dataset.train_names,
        "validation_logs": dataset.validation_names,
        "split": dataset.to_dict(),
        "best_model": chosen,
        "chosen_by": (f"cross-validation (leave one {' / '.join(cv.errors)} out)" if cv and cv.best() else
                      "validation MAE" if validation else "training MAE (no validation logs)"),
        "cross_validation": cv.to_dict() if cv else {},
        "warnings": warnings,
        "improvement_over_m1": factor,
        "models": {},
        "defaults": {},
    }
    for name, rep in reports.items():
        r = rep.result
        default_train, default_val = _default_errors(actuator, name, integrator, train, validation)
        content["defaults"][name] = {"train_mae": default_train, "validation_mae": default_val}  # type: ignore[index]
        warnings += fit_warnings(name, r, default_val)
        content["models"][name] = {  # type: ignore[index]
            "train_mae": r.train_mae,
            "validation_mae": r.validation_mae,
            "trials": r.trials,
            "seconds": r.seconds,
            "params_file": str(rep.params_file) if rep.params_file else None,
            "validation_by_trajectory": rep.by_trajectory,
            "validation_by_gain": rep.by_gain,
            "validation_logs": r.validation_logs,
            "train_logs": r.train_logs,
            "parameters": [{**s.to_dict(), "at_bound": s.name in r.at_bounds} for s in rep.spreads],
            "at_bounds": list(r.at_bounds),
            "phases": [asdict(p) for p in r.phases],
            "fixed": dict(r.space.fixed),
            "starts": [asdict(start) for start in r.starts],
            "additions": {"carried": carried_values(r.model.values),
                          "switched_off": switched_off(r.model, train, validation),
                          "without_temperature": without_temperature(r.model, train, validation),
                          "selection": rep.selection.to_dict() if rep.selection else None},
        }
    (folder / "report.json").write_text(json.dumps(content, indent=2) + "\n")
    (folder / "report.md").write_text(markdown(content))
    if figures is not None:
        figures.result()
    else:
        draw_mae_bars(*figure)
    return content

"""The validation report of a fit, written from its :class:`~.fitting.FitReport`.

The report folder holds ``report.md`` and ``report.json`` (train and validation MAE per model,
the unfitted defaults for comparison, the model chosen by validation MAE and its improvement
factor over M1, per-parameter uncertainty from loss slices, validation MAE per trajectory and
per gain) and ``mae.png`` (bars in the style of the paper's Fig. 5). The helpers here are the
report's figures of merit, pure functions of a fit's results.
"""

from __future__ import annotations

import json
import warnings
from collections import defaultdict
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .additions import addition, carried, carried_values
from .evaluation import evaluate_model, evaluation_backends
from .fit_data import FitResult
from .logs import Log
from .model import Model
from .objective import Objective
from .provenance import provenance
from .report_markdown import markdown
from .thermal_start import RULES

if TYPE_CHECKING:
    from .fitting import FitReport, ModelReport


def grouped_mae(per_log: Mapping[str, float], logs: Sequence[Log], key: str) -> Dict[str, float]:
    """Mean MAE of logs grouped by a log attribute (``"trajectory"`` or ``"kp"``)."""
    groups: Dict[str, List[float]] = defaultdict(list)
    for log in logs:
        name = Path(log.source).name
        if name in per_log:
            value = getattr(log, key)
            groups[f"{value:g}" if isinstance(value, float) else str(value)].append(per_log[name])
    return {group: float(np.mean(values)) for group, values in sorted(groups.items())}


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


#: Simulators besides this package's step whose figures a fit reports, by evaluation backend (when
#: installed: actuator_sim's entry points), each in words: where a user may run the fitted model.
REPORTED_SIMULATORS = {"mujoco-native": "in plain MuJoCo, the native export (actuator-sim export, no Python in the loop)"}


def in_other_simulators(model: Model, train: Sequence[Log], validation: Sequence[Log]) -> Dict[str, Dict[str, Any]]:
    """Per installed simulator of :data:`REPORTED_SIMULATORS`, the training and validation MAE
    [rad] of ``model`` there (each log at its own bench, gain and temperature) and ``what`` it is
    in words, or ``refused``:
    why it cannot run the model (a control law it has no form of, a replay that diverged)."""
    out: Dict[str, Dict[str, Any]] = {}
    for name in REPORTED_SIMULATORS:
        if name not in evaluation_backends():
            continue
        try:
            out[name] = {"what": REPORTED_SIMULATORS[name], "train_mae": evaluate_model(model, train, backend=name).mean,
                         "validation_mae": evaluate_model(model, validation, backend=name).mean if validation else None}
        except ValueError as error:  # DivergentStep and ParamsError are ValueErrors
            out[name] = {"what": REPORTED_SIMULATORS[name], "refused": str(error)}
    return out


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


def mae_figure(reports: Mapping[str, "ModelReport"], validation: bool, folder: Path, actuator: str,
               integrator: str) -> Tuple[Dict[str, Dict[str, float]], str, str]:
    """The arguments of :func:`~.figure_process.draw_mae_bars` for ``folder/mae.png``: training
    (and ``validation``) MAE per model."""
    groups: Dict[str, Dict[str, float]] = {"train": {m.upper(): r.result.train_mae for m, r in reports.items()}}
    if validation:
        groups["validation"] = {m.upper(): r.result.validation_mae for m, r in reports.items()
                                if r.result.validation_mae is not None}
    return groups, str(folder / "mae.png"), f"{actuator}: MAE per friction model ({integrator} step)"


def report_content(report: "FitReport") -> Dict[str, Any]:
    """report.json's content: the :class:`~.fitting.FitReport` as plain data."""
    dataset, cv = report.dataset, report.cv
    content: Dict[str, Any] = {
        "actuator": report.spec.actuator,
        "integrator": report.spec.integrator,
        "logs": len(dataset.logs),
        "train_logs": dataset.train_names,
        "validation_logs": dataset.validation_names,
        "split": dataset.to_dict(),
        "best_model": report.best_model,
        "chosen_by": report.chosen_by,
        "cross_validation": cv.to_dict() if cv else {},
        "warnings": list(report.warnings),
        "improvement_over_m1": report.improvement_over_m1,
        "models": {},
        "defaults": {},
        "ran_on": provenance(),  # a fit's bits depend on it (provenance's docstring)
    }
    for name, rep in report.models.items():
        r = rep.result
        content["defaults"][name] = {"train_mae": rep.default_train_mae, "validation_mae": rep.default_validation_mae}
        content["models"][name] = {
            "train_mae": r.train_mae,
            "validation_mae": r.validation_mae,
            "trials": r.trials,
            "seconds": r.seconds,
            "params_file": str(rep.params_file) if rep.params_file else None,
            "validation_by_trajectory": rep.by_trajectory,
            "validation_by_gain": rep.by_gain,
            "other_simulators": rep.other_simulators,
            "validation_logs": r.validation_logs,
            "train_logs": r.train_logs,
            "parameters": [{**s.to_dict(), "at_bound": s.name in r.at_bounds} for s in rep.spreads],
            "at_bounds": list(r.at_bounds),
            "phases": [asdict(p) for p in r.phases],
            "fixed": dict(r.space.fixed),
            "starts": [asdict(start) for start in r.starts],
            "additions": {"carried": carried_values(r.model.values),
                          "switched_off": rep.switched_off,
                          "without_temperature": rep.without_temperature,
                          "thermal_start": (RULES[report.spec.settings.thermal_start]
                                            if "thermal_initial" in r.model.values else None),
                          "selection": rep.selection.to_dict() if rep.selection else None},
        }
    return content


def write_report(report: "FitReport", folder: Union[str, Path]) -> Dict[str, Any]:
    """Write report.json and report.md into ``folder`` (the figure is the caller's, see
    :func:`mae_figure`); returns the JSON content."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    content = report_content(report)
    (folder / "report.json").write_text(json.dumps(content, indent=2) + "\n")
    (folder / "report.md").write_text(markdown(content))
    return content

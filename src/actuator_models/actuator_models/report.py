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
from collections import defaultdict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .friction import friction_model, nests
from .identification import FitInterrupted, FitResult, FitSettings, Identification, ProgressCallback
from .logs import Log
from .model import Model, new_model, save_model
from .objective import Objective
from .plots import plot_mae_bars
from .splits import Dataset
from .uncertainty import ParameterSpread, loss_slices

ALL_MODELS = ("m1", "m2", "m3", "m4", "m5", "m6")


@dataclass
class ModelReport:
    """One model's fit, its slices and its validation errors grouped by trajectory and gain."""

    result: FitResult
    params_file: Optional[Path]
    spreads: List[ParameterSpread]
    by_trajectory: Dict[str, float]
    by_gain: Dict[str, float]


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
) -> Dict[str, ModelReport]:
    """Fit each model on ``dataset`` (one split for all), save ``<out_dir>/<model>.json`` (or
    ``params_files[model]``) and the report under ``<out_dir>/report`` (or ``report_dir``).
    Returns the reports by model name.

    Raises:
        FitInterrupted: when ``stop`` is set, once the model being fitted has its best
        parameters so far saved and the models finished before it their report.
    """
    out_dir = Path(out_dir)
    stop = stop or threading.Event()
    reports: Dict[str, ModelReport] = {}
    for name in models:
        params_file = Path((params_files or {}).get(name, out_dir / f"{name}.json"))
        identification = Identification(new_model(actuator, name, integrator), dataset, settings, storage,
                                        study_name(study_prefix, name, storage), nested_start(reports, name))
        result = identification.run(stop, progress)
        save_model(result.model, params_file)
        if result.stopped:
            if reports:  # the finished models keep their report
                write_report(reports, dataset, actuator, integrator, report_dir or out_dir / "report")
            raise FitInterrupted(result)
        spreads = loss_slices(result.model, identification.objective, result.space)
        reports[name] = ModelReport(
            result,
            params_file,
            spreads,
            grouped_mae(result.validation_logs, dataset.validation, "trajectory"),
            grouped_mae(result.validation_logs, dataset.validation, "kp"),
        )
    write_report(reports, dataset, actuator, integrator, report_dir or out_dir / "report")
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
) -> Dict[str, object]:
    """Write report.json, report.md and mae.png into ``folder``; returns the JSON content."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    train, validation = dataset.train, dataset.validation
    chosen = best_model(reports)
    reference = "m1" if "m1" in reports else None

    def key_mae(name: str) -> float:
        r = reports[name].result
        return r.validation_mae if r.validation_mae is not None else r.train_mae

    factor = key_mae(reference) / key_mae(chosen) if reference else None
    content: Dict[str, object] = {
        "actuator": actuator,
        "integrator": integrator,
        "logs": len(dataset.logs),
        "train_logs": dataset.train_names,
        "validation_logs": dataset.validation_names,
        "split": dataset.to_dict(),
        "best_model": chosen,
        "improvement_over_m1": factor,
        "models": {},
        "defaults": {},
    }
    for name, rep in reports.items():
        r = rep.result
        default_train, default_val = _default_errors(actuator, name, integrator, train, validation)
        content["defaults"][name] = {"train_mae": default_train, "validation_mae": default_val}  # type: ignore[index]
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
        }
    (folder / "report.json").write_text(json.dumps(content, indent=2) + "\n")
    (folder / "report.md").write_text(markdown(content))
    groups = {"train": {m.upper(): r.result.train_mae for m, r in reports.items()}}
    if validation:
        groups["validation"] = {m.upper(): r.result.validation_mae for m, r in reports.items()}  # type: ignore[misc]
    plot_mae_bars(groups, folder / "mae.png", title=f"{actuator}: MAE per friction model ({integrator} step)")
    return content


def _fmt(value: Optional[float]) -> str:
    return "—" if value is None else f"{value:.4f}"


def markdown(content: Mapping[str, object]) -> str:
    """The report as Markdown."""
    models: Mapping[str, Mapping[str, object]] = content["models"]  # type: ignore[assignment]
    defaults: Mapping[str, Mapping[str, object]] = content["defaults"]  # type: ignore[assignment]
    lines = [
        f"# Identification report: {content['actuator']} ({content['integrator']} step)",
        "",
        f"{content['logs']} logs: {len(content['train_logs'])} to fit, {len(content['validation_logs'])} to validate"  # type: ignore[arg-type]
        f" ({', '.join(content['validation_logs']) or 'none'}): {content['split']['rule']}.",  # type: ignore[index]
        *(f"**Warning:** {w}." for w in content["split"]["warnings"]),  # type: ignore[index]
        "",
        "| model | train MAE [rad] | validation MAE [rad] | default params, validation MAE | trials | time [s] |",
        "|---|---|---|---|---|---|",
    ]
    for name, m in models.items():
        d = defaults[name]
        lines.append(
            f"| {name.upper()} | {_fmt(m['train_mae'])} | {_fmt(m['validation_mae'])} | {_fmt(d['validation_mae'] if d['validation_mae'] is not None else d['train_mae'])} "  # type: ignore[arg-type]
            f"| {m['trials']} | {m['seconds']:.1f} |"
        )
    factor = content["improvement_over_m1"]
    lines += [
        "",
        f"Chosen by validation MAE: **{str(content['best_model']).upper()}**"
        + (f", {factor:.2f}x lower validation MAE than M1." if factor and content["best_model"] != "m1" else "."),
        "",
        "## Validation MAE per trajectory and per gain",
        "",
    ]
    groups = sorted({g for m in models.values() for g in m["validation_by_trajectory"]})  # type: ignore[union-attr]
    gains = sorted({g for m in models.values() for g in m["validation_by_gain"]}, key=float)  # type: ignore[union-attr]
    if groups or gains:
        lines.append("| model | " + " | ".join([*groups, *(f"kp {g}" for g in gains)]) + " |")
        lines.append("|---" * (1 + len(groups) + len(gains)) + "|")
        for name, m in models.items():
            cells = [_fmt(m["validation_by_trajectory"].get(g)) for g in groups]  # type: ignore[union-attr]
            cells += [_fmt(m["validation_by_gain"].get(g)) for g in gains]  # type: ignore[union-attr]
            lines.append(f"| {name.upper()} | " + " | ".join(cells) + " |")
    else:
        lines.append("No validation logs.")
    lines += [
        "",
        "## Parameters and their uncertainty",
        "",
        "Interval: where the training cost stays within 1 % of its fitted value, the other parameters",
        "held at their fitted values (a loss slice). *undetermined*: the cost moves by less than 1 %",
        "across the whole search range, so the logs do not pin this parameter down. *at bound*: the",
        "value ended within 1 % of its range from a search bound, so the bound may have set it",
        "rather than the data (widen it with --bounds and fit again).",
        "",
    ]
    for name, m in models.items():
        lines += [f"### {name.upper()}", "", "| parameter | value | interval | ± | unit | cost sensitivity | |", "|---|---|---|---|---|---|---|"]
        for p in m["parameters"]:  # type: ignore[union-attr]
            flag = ", ".join(f for f, on in (("undetermined", not p["determined"]), ("at bound", p["at_bound"])) if on)
            lines.append(
                f"| {p['name']} | {p['value']:.4g} | [{p['lower']:.4g}, {p['upper']:.4g}] | {p['half_width']:.2g} | {p['unit']} "
                f"| {100 * p['sensitivity']:.1f} % | {flag} |"
            )
        for fixed, value in m["fixed"].items():  # type: ignore[union-attr]
            lines.append(f"| {fixed} | {value:.4g} | fixed | | | | |")
        lines.append("")
    lines.append("![MAE per model](mae.png)")
    return "\n".join(lines) + "\n"

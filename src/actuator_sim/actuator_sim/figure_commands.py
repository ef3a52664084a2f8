"""``actuator-sim plot-diagram``, ``plot-trajectory`` and ``plot-mae``: figures that name every
curve and panel by its params source (positions in rad, torques in N m)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Dict, List

import numpy as np

from actuator_models.logs import check_motor, read_log, read_logs
from actuator_models.model import Model, load_model
from actuator_models.outputs import refuse_existing
from actuator_models.plots import check_figure_path, source_labels

from .cli_params import check_params_motor, load_params, models_title


def cmd_plot_diagram(args: argparse.Namespace) -> int:
    from .drive_backdrive import drive_backdrive, stall_torque
    from actuator_models.plots import plot_drive_backdrive

    refuse_existing([args.out], args.force)
    check_figure_path(args.out, "--out")
    labels = source_labels(args.params)
    models = load_params(args.params)
    top = args.max_torque or 0.5 * max(stall_torque(m) for m in models)
    velocities = [float(v) for v in range(args.velocities)]
    panels = {f"{label}\n{m.name}, {m.friction.title}": drive_backdrive(m, top, velocities)
              for label, m in zip(labels, models)}
    title = args.title or f"Drive/backdrive limits: {models_title(models, labels)}\n(from the params alone, no log)"
    out = plot_drive_backdrive(panels, args.out, title=title)
    print(f"drive/backdrive diagram written to {out} ({len(panels)} panels: {', '.join(labels)})")
    return 0


def cmd_plot_trajectory(args: argparse.Namespace) -> int:
    from actuator_models.simulation import simulate_logs

    from actuator_models.plots import plot_trajectory
    from .replay import mujoco_positions

    refuse_existing([args.out], args.force)
    check_figure_path(args.out, "--out")
    labels = source_labels(args.params)
    models = load_params(args.params)
    log = read_log(args.log, args.allow_odd_logs)
    check_params_motor(log, models, args.params, args.allow_mismatch)
    simulated = {}
    for label, model in zip(labels, models):
        positions = mujoco_positions(model, log) if args.engine == "mujoco" else simulate_logs(model, [log])[0]
        named = "" if label == model.name else f"{model.name}, "  # a library name is said once
        simulated[f"{label} ({named}{args.engine} sim.)"] = positions
        mae = float(np.mean(np.abs(np.asarray(positions) - log.position)))
        print(f"{label}: MAE {mae:.6f} rad ({named}{args.engine} simulator)")
    bench = f"{log.trajectory}, m={log.mass:g} kg, l={log.length:g} m, kp={log.kp:g}"
    title = args.title or (f"data: {Path(args.log).name} ({bench}, motor {log.motor or 'not logged'})\n"
                           f"{models_title(models, labels)}")
    out = plot_trajectory(log.timestamp - log.timestamp[0], log.position, simulated, args.out,
                          goal=log.goal_position, title=title)
    print(f"trajectory figure written to {out}")
    return 0


def mae_groups(data: object, source: str = "evaluation JSON") -> Dict[str, Dict[str, float]]:
    """``{group: {model: mae}}`` from an ``arm-compare`` JSON (``{"maes": ...}``), a grouped
    dictionary, or an ``actuator-models evaluate --json`` line (``{model: {"mean": x}}``); a
    ValueError naming ``source`` (the file), the group and the model when an MAE is not a number
    >= 0 [rad] (a NaN or a negative bar is no error figure)."""
    if isinstance(data, dict) and isinstance(data.get("maes"), dict):
        data = data["maes"]
    if not isinstance(data, dict) or not data:
        raise ValueError(f"{source}: expected a non-empty object")
    if all(isinstance(v, dict) and "mean" in v for v in data.values()):
        data = {"mean over logs": {k: v["mean"] for k, v in data.items()}}
    if not all(isinstance(row, dict) and row for row in data.values()):
        raise ValueError(f"{source}: expected {{group: {{model: mae}}}} or {{model: {{'mean': mae}}}}")
    for group, row in data.items():
        for model, mae in row.items():
            if isinstance(mae, bool) or not isinstance(mae, (int, float)) or not 0 <= mae < math.inf:
                raise ValueError(f"{source}: {group}, {model}: MAE {mae!r} is not a number >= 0")
    return {g: {m: float(x) for m, x in row.items()} for g, row in data.items()}


def _read_json(path: str) -> object:
    """A JSON file, or the last JSON line of a command's saved output (``... --json > file``)."""
    try:
        text = Path(path).read_text()
    except UnicodeDecodeError as error:  # issue 34: the message did not name the file
        raise ValueError(f"--eval {path}: not a text (UTF-8) file: byte {error.start} is "
                         f"{error.object[error.start]:#04x}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        lines = [line for line in text.splitlines() if line.startswith("{")]
        if not lines:
            raise ValueError(f"--eval {path}: no JSON object found") from None
        try:
            return json.loads(lines[-1])
        except json.JSONDecodeError as error:
            raise ValueError(f"--eval {path}: not valid JSON (line {len(lines)}: {error.msg})") from None


def _models_named(row: Dict[str, float]) -> List[Model]:
    """The models named by the keys of an evaluation row, or [] when a key is not a params source."""
    try:
        return [load_model(name) for name in row]
    except ValueError:
        return []


def cmd_plot_mae(args: argparse.Namespace) -> int:
    from actuator_models.plots import plot_mae_bars

    refuse_existing([args.out], args.force)
    check_figure_path(args.out, "--out")
    if args.eval and (args.params or args.logs):
        raise ValueError("give --eval FILE, or --params and --logs, not both")
    if args.eval:
        data = _read_json(args.eval)
        groups = mae_groups(data, f"--eval {args.eval}")
        title = f"MAE from {Path(args.eval).name}"
        models = _models_named(next(iter(groups.values())))
        if models:  # an 'evaluate --json' line: its keys are the params
            title = f"Mean MAE, data: {Path(args.eval).name}\n{models_title(models, list(next(iter(groups.values()))))}"
        if isinstance(data, dict) and "arm" in data:
            real = " + ".join(data.get("real", []))
            title = f"2R arm {data['arm']}: joint MAE against the 'real' arm ({real}), from {Path(args.eval).name}"
    else:
        if not (args.params and args.logs):
            raise ValueError("give --eval FILE, or --params and --logs")
        from actuator_models.evaluation import evaluate_model

        labels = source_labels(args.params)
        models = load_params(args.params)
        logs = read_logs(args.logs, args.allow_odd_logs)
        for model, source in zip(models, args.params):
            check_motor(logs, model.actuator.name, f"params {source}", args.allow_mismatch)
        groups = {f"mean over {len(logs)} logs of {args.logs}": {
            label: evaluate_model(model, logs).mean for label, model in zip(labels, models)}}
        title = f"Mean MAE: {models_title(models, labels)}"
    out = plot_mae_bars(groups, args.out, title=args.title or title)
    print(f"MAE figure written to {out}")
    return 0

"""Evaluate params against logs: per-log and mean MAE [rad]."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence, Union

import numpy as np

from .logs import Log, read_logs
from .model import Model, load_model
from .simulation import log_maes


@dataclass(frozen=True)
class Evaluation:
    """MAE [rad] of one model on a set of logs, by log file name."""

    model: Model
    maes: Dict[str, float]

    @property
    def mean(self) -> float:
        return float(np.mean(list(self.maes.values())))

    def to_dict(self) -> Dict[str, object]:
        return {"mean": self.mean, "logs": dict(self.maes)}


def evaluate_model(model: Model, logs: Sequence[Log], integrator: Optional[str] = None) -> Evaluation:
    """MAE of ``model`` on each processed log (the model's own integrator unless given)."""
    maes = log_maes(model, logs, integrator)
    return Evaluation(model, {Path(log.source).name: float(m) for log, m in zip(logs, maes)})


def evaluate(
    params: Sequence[Union[str, Path, Model]],
    logs: Union[str, Path, Sequence[Log]],
    integrator: Optional[str] = None,
) -> Dict[str, Evaluation]:
    """Evaluate params (file paths, library names like ``"xl330/m6"`` or models) on logs
    (a folder of processed logs or loaded logs). Keys are the params as given."""
    loaded = read_logs(logs) if isinstance(logs, (str, Path)) else list(logs)
    out: Dict[str, Evaluation] = {}
    for item in params:
        model = item if isinstance(item, Model) else load_model(item)
        key = model.name if isinstance(item, Model) else str(item)
        out[key] = evaluate_model(model, loaded, integrator)
    return out

"""Evaluate params against logs: per-log and mean MAE [rad]."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Union

import numpy as np

from .divergence import check_maes
from .plugins import entry_points
from .logs import Log, read_logs
from .model import Model, ParamsError, load_model
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


#: Entry-point group of other simulators' ``log_maes(model, logs) -> (L,) MAEs [rad]`` (a package
#: above this one, e.g. actuator_sim's ``mjwarp``: MuJoCo Warp, which integrates semi-implicitly).
BACKEND_GROUP = "actuator_models.evaluation_backends"
DEFAULT_BACKEND = "numpy"


def evaluation_backends() -> List[str]:
    """Names of the evaluation backends: ``numpy`` (this package's rollout) and the installed ones."""
    return [DEFAULT_BACKEND, *sorted(e.name for e in entry_points(group=BACKEND_GROUP))]


def _backend(name: str) -> Callable[[Model, Sequence[Log]], Sequence[float]]:
    found = [e for e in entry_points(group=BACKEND_GROUP) if e.name == name]
    if not found:
        raise ParamsError(f"unknown evaluation backend {name!r}; installed: {', '.join(evaluation_backends())}")
    return found[0].load()


def evaluate_model(model: Model, logs: Sequence[Log], integrator: Optional[str] = None,
                   backend: str = DEFAULT_BACKEND) -> Evaluation:
    """MAE of ``model`` on each processed log (the model's own integrator unless given; another
    ``backend`` runs its own integrator and refuses ``integrator``); a rollout that diverged is
    refused (:class:`~.divergence.DivergentStep`: :mod:`.divergence`'s rule on the positions, on
    the MAEs for another backend)."""
    if backend == DEFAULT_BACKEND:
        maes = log_maes(model, logs, integrator)
    elif integrator is not None:
        raise ParamsError(f"--integrator applies to the numpy backend; {backend!r} runs its own integrator")
    else:
        maes = np.asarray(_backend(backend)(model, logs), dtype=float)
        check_maes(model, maes, [log.source for log in logs])  # MAEs only: the rule's MAE form
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

"""Model selection by cross-validation: leave one gain out, leave one trajectory out.

A model that fits its training logs best is not the one that predicts best what it has not
seen (on the 12 XL330 logs, training and held-out MAE of M6 fits correlated at -0.66). For each
rule, each fold holds out the logs of one gain (or one trajectory), fits every model on the
rest at the given settings, and measures it on the held-out logs. The model with the lowest
mean error over all folds is the one to choose. CV fits run in memory (they are not the study
of record) with their own budget, so that the option stays affordable (``--cv-trials``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .fit_data import FitInterrupted, ProgressCallback
from .logs import Log
from .model import new_model
from .splits import Dataset

if TYPE_CHECKING:
    from .fit_spec import FitSpec

RULES = ("gain", "trajectory")


@dataclass(frozen=True)
class Fold:
    """One fold: the rule (``gain`` or ``trajectory``), the group held out (``kp 200``,
    ``lift_and_drop``) and the split."""

    rule: str
    name: str
    dataset: Dataset


def folds(logs: Sequence[Log], rule: str) -> List[Fold]:
    """One fold per gain (or trajectory) of ``logs``, holding out its logs; none when the logs
    have fewer than two groups."""
    if rule not in RULES:
        raise ValueError(f"cross-validation rule {rule!r} is not one of {', '.join(RULES)}")

    def group(log: Log) -> str:
        return f"kp {log.kp:g}" if rule == "gain" else (log.trajectory or "unnamed")

    names = sorted({group(log) for log in logs}, key=lambda g: (len(g), g))
    if len(names) < 2:
        return []
    out = []
    for name in names:
        held = tuple(log for log in logs if group(log) == name)
        kept = tuple(log for log in logs if group(log) != name)
        out.append(Fold(rule, name, Dataset(tuple(logs), kept, held, f"{rule} {name} held out")))
    return out


@dataclass
class CrossValidation:
    """Per rule, model and fold: (training MAE, held-out MAE) [rad]."""

    errors: Dict[str, Dict[str, Dict[str, Tuple[float, float]]]]
    trials: int

    def mean(self, model: str) -> Optional[float]:
        """Mean held-out MAE over every fold of every rule (None: no fold)."""
        values = [v for rule in self.errors.values() for v in (f[1] for f in rule.get(model, {}).values())]
        return float(np.mean(values)) if values else None

    def best(self) -> Optional[str]:
        means = {m: self.mean(m) for rule in self.errors.values() for m in rule}
        known = {m: v for m, v in means.items() if v is not None}
        return min(known, key=lambda m: known[m]) if known else None

    def warnings(self) -> List[str]:
        """Folds whose held-out MAE is more than twice their training MAE."""
        out = []
        for rule, models in self.errors.items():
            for model, by_fold in models.items():
                for fold, (train, held) in by_fold.items():
                    if held > 2 * train:
                        out.append(f"{model.upper()}: with {fold} held out (leave-one-{rule}-out) its MAE is "
                                   f"{held:.4f} rad, {held / train:.1f}x its training MAE {train:.4f} rad")
        return out

    def to_dict(self) -> Dict[str, object]:
        return {
            "trials_per_fit": self.trials,
            "rules": {rule: {model: {fold: {"train_mae": t, "validation_mae": v} for fold, (t, v) in by_fold.items()}
                             for model, by_fold in models.items()} for rule, models in self.errors.items()},
            "mean_validation_mae": {m: self.mean(m) for rule in self.errors.values() for m in rule},
            "best_model": self.best(),
        }


def cross_validate(
    logs: Sequence[Log],
    spec: "FitSpec",
    models: Sequence[str],
    stop: Optional[threading.Event] = None,
    progress: Optional[ProgressCallback] = None,
    additions: Optional[Mapping[str, Sequence[str]]] = None,
) -> CrossValidation:
    """Fit each model of ``spec.actuator`` (``spec.integrator``) on each fold of each of
    ``spec.cv_rules`` (in memory, ``spec.cv_settings`` with one worker), carrying
    ``additions[model]`` (:mod:`.additions`) where given.

    Raises:
        FitInterrupted: when ``stop`` is set during a fold's fit.
    """
    from .identification import Identification

    stop = stop or threading.Event()
    actuator, rules, integrator = spec.actuator, spec.cv_rules, spec.integrator
    settings = replace(spec.cv_settings, workers=1, worker=0, force=True)
    errors: Dict[str, Dict[str, Dict[str, Tuple[float, float]]]] = {}
    for rule in rules:
        for fold in folds(logs, rule):
            for name in models:
                model = new_model(actuator, name, integrator, (additions or {}).get(name, ()))
                result = Identification(model, fold.dataset, settings).run(stop, progress)
                if result.stopped:
                    raise FitInterrupted(result)
                by_fold = errors.setdefault(rule, {}).setdefault(name, {})
                by_fold[fold.name] = (result.train_mae, float(result.validation_mae))  # type: ignore[arg-type]
    return CrossValidation(errors, settings.trials)


def markdown(content: Mapping[str, Any]) -> List[str]:
    """The report's cross-validation section (empty without cross-validation)."""
    if not content:
        return []
    lines = ["## Cross-validation", "",
             f"Each fold fits the model on the other training logs ({content['trials_per_fit']} trials) and measures "
             "it on the held-out group [rad, MAE].", ""]
    means: Mapping[str, Optional[float]] = content["mean_validation_mae"]
    for rule, models in content["rules"].items():
        names = list(next(iter(models.values())))
        lines += [f"Leave one {rule} out:", "", "| model | " + " | ".join(names) + " | mean |",
                  "|---" * (len(names) + 2) + "|"]
        for model, by_fold in models.items():
            cells = [f"{by_fold[n]['validation_mae']:.4f}" for n in names]
            lines.append(f"| {model.upper()} | " + " | ".join(cells)
                         + f" | {np.mean([by_fold[n]['validation_mae'] for n in names]):.4f} |")
        lines.append("")
    best = content["best_model"]
    lines += [f"Lowest mean over all folds: **{str(best).upper()}** ({means[best]:.4f} rad)." if best else "", ""]
    return lines

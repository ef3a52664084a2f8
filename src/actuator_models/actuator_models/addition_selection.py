"""Which model additions (latency, backlash) to keep: the ones cross-validation says predict
held-out logs better (``actuator-models fit --additions``).

Forward selection over the folds of the cross-validation rules (:func:`.cross_validation.folds`:
leave one gain out, leave one trajectory out). Each fold is fitted with the additions kept so
far (none at first); then, in rounds, with each remaining candidate on top, by a local search
from the fold's fit without it (one CMA-ES start, step :data:`LOCAL_SIGMA` of each range; the
addition at 0 reproduces that fit, so the training error never rises), against a control: the
same local search from the same fit without a candidate, so that both sides of the comparison
have had the same evaluations (without it, a fit of the known-latency logs whose latency had
not settled in its 400 trials kept a backlash of 7e-4 rad for the 31 % the extra search gained,
seed 0). Local, so that the
comparison is paired: on the XL330 logs a full search lands in another of M6's basins from fit
to fit, and that alone moves a fold's held-out error by up to 0.03 rad. The
candidate of the lowest mean held-out error is kept when that mean is at least :data:`MIN_GAIN`
below the mean without it, and the next round tries the others on top of it; otherwise the
selection stops. Rounds matter: a backlash also fits part of a latency (the output trails the
motion in both), so on logs with only a latency both gain alone, but backlash on top of latency
gains nothing. Fits run in memory with the cross-validation budget (``--cv-trials``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .additions import ADDITIONS
from .cross_validation import Fold, folds
from .fit_data import FitInterrupted, FitSettings, ProgressCallback
from .logs import Log
from .model import Model, new_model

if TYPE_CHECKING:
    from .fit_spec import FitSpec

#: Initial CMA-ES step (fraction of each range) of the fits with a candidate, from the fit without.
LOCAL_SIGMA = 0.05
#: Relative decrease of the mean cross-validated error an addition must bring to be kept: a
#: parameter that only fits noise gains about nothing, and one more parameter is not free.
MIN_GAIN = 0.01


@dataclass(frozen=True)
class Candidate:
    """One addition tried on one model, on top of the additions ``on_top_of`` kept before it:
    held-out MAE [rad] per fold (``rule: group``) without and with it, its fitted value on each
    fold, and whether it was kept."""

    addition: str
    on_top_of: Tuple[str, ...]
    without: Mapping[str, float]
    with_it: Mapping[str, float]
    values: Mapping[str, float]
    kept: bool = False

    @property
    def mean_without(self) -> float:
        return float(np.mean(list(self.without.values())))

    @property
    def mean_with(self) -> float:
        return float(np.mean(list(self.with_it.values())))

    @property
    def gain(self) -> float:
        """Decrease of the mean held-out MAE [rad] the addition brings (negative: it costs)."""
        return self.mean_without - self.mean_with

    @property
    def gains_enough(self) -> bool:
        return self.mean_with < (1.0 - MIN_GAIN) * self.mean_without

    def to_dict(self) -> Dict[str, object]:
        return {"kept": self.kept, "on_top_of": list(self.on_top_of), "gain": self.gain,
                "mean_without": self.mean_without, "mean_with": self.mean_with,
                "folds": {f: {"without": self.without[f], "with": self.with_it[f], "value": self.values[f]}
                          for f in self.without}}


@dataclass(frozen=True)
class AdditionSelection:
    """The additions kept, and each candidate's last trial (kept ones: the trial that kept them)."""

    kept: Tuple[str, ...]
    candidates: Tuple[Candidate, ...]
    trials: int

    def to_dict(self) -> Dict[str, object]:
        return {"trials_per_fit": self.trials, "min_gain": MIN_GAIN, "kept": list(self.kept),
                "candidates": {c.addition: c.to_dict() for c in self.candidates}}


def _fit(model: Model, fold: Fold, settings: FitSettings, start: Optional[Model], stop: threading.Event,
         progress: Optional[ProgressCallback]) -> Tuple[float, Model]:
    from .identification import Identification

    result = Identification(model, fold.dataset, settings, start=start).run(stop, progress)
    if result.stopped:
        raise FitInterrupted(result)
    return float(result.validation_mae), result.model  # type: ignore[arg-type]


def select_additions(
    logs: Sequence[Log],
    spec: "FitSpec",
    model: str,
    rules: Sequence[str],
    stop: Optional[threading.Event] = None,
    progress: Optional[ProgressCallback] = None,
    carry: Sequence[str] = (),
) -> AdditionSelection:
    """Try each of ``spec.additions`` on ``model`` (of ``spec.actuator``, ``spec.integrator``)
    by cross-validation on ``logs`` (the training logs) with ``rules`` (``gain``, ``trajectory``)
    at ``spec.cv_settings`` (one worker, in memory), on top of ``carry`` (additions carried from
    the start, not tried).

    Raises:
        ValueError: when the logs give no fold (one gain and one trajectory).
        FitInterrupted: when ``stop`` is set during a fit.
    """
    actuator, additions, integrator, settings = spec.actuator, spec.additions, spec.integrator, spec.cv_settings
    stop = stop or threading.Event()
    settings = replace(settings, workers=1, worker=0, force=True)
    every: List[Fold] = [f for rule in rules for f in folds(logs, rule)]
    if not every:
        raise ValueError(f"--additions: the training logs have a single {' and a single '.join(rules)}: no fold to "
                         "cross-validate on")

    local = replace(settings, starts=1, restarts=0, search_sigma=LOCAL_SIGMA)

    def fit_folds(carry: Tuple[str, ...], start: Mapping[str, Model]) -> Dict[str, Tuple[float, Model]]:
        return {f"{fold.rule}: {fold.name}": _fit(new_model(actuator, model, integrator, additions=carry), fold,
                                                  local if start else settings, start.get(f"{fold.rule}: {fold.name}"),
                                                  stop, progress)
                for fold in every}

    kept: Tuple[str, ...] = tuple(carry)
    base = fit_folds(kept, {})
    last: Dict[str, Candidate] = {}
    remaining = [a for a in additions if a not in carry]
    while remaining:
        starts = {k: m for k, (_, m) in base.items()}
        # the control: the same local search from the same start without a candidate, so that
        # "without" has had the evaluations "with" has had (else what a candidate gains may be
        # only the extra search settling the fit it starts from)
        control = fit_folds(kept, starts)
        tried: Dict[str, Tuple[Dict[str, Tuple[float, Model]], Candidate]] = {}
        for addition in remaining:
            fits = fit_folds(kept + (addition,), starts)
            tried[addition] = (fits, Candidate(addition, kept, {k: v[0] for k, v in control.items()},
                                               {k: v[0] for k, v in fits.items()},
                                               {k: float(v[1].values[addition]) for k, v in fits.items()}))
            last[addition] = tried[addition][1]
        best = min(tried, key=lambda a: tried[a][1].mean_with)
        if not tried[best][1].gains_enough:
            break
        last[best] = replace(tried[best][1], kept=True)
        kept, base = kept + (best,), tried[best][0]
        remaining.remove(best)
    return AdditionSelection(kept, tuple(last[a] for a in additions if a in last), settings.trials)


def _values(value: object) -> str:
    """``0.0123`` (one parameter) or ``(a 0.1, b 2)`` (several)."""
    if isinstance(value, Mapping):
        return "(" + ", ".join(f"{k} {v:.4g}" for k, v in value.items()) + ")"
    return f"{value:.4g}"


def markdown(models: Mapping[str, Mapping[str, Any]]) -> List[str]:
    """The report's section on additions: per model, what it carries and, for each candidate,
    the held-out MAE per fold without and with it."""
    lines = ["## Model additions", "",
             "What each model carries beyond its friction model (thermal, with supply for a voltage law: carried "
             "from the start when the logs record the servo temperature, `--carry`, and with them release when a "
             "training log releases the torque; heating: `--carry heating`; latency, backlash: tried by "
             "`actuator-models fit --additions`), and what cross-validation said of each candidate.", ""]
    for name, m in models.items():
        info: Mapping[str, Any] = m.get("additions") or {}
        carried: Mapping[str, Any] = info.get("carried", {})
        text = ", ".join(f"{a} = {_values(v)}" for a, v in carried.items()) or "none"
        selection: Mapping[str, Any] = info.get("selection") or {}
        lines.append(f"**{name.upper()}** carries: {text}" + ("" if selection else " (none was tried by cross-validation)") + ".")
        lines.append("")
        for a, v in carried.items():
            if a in ADDITIONS:
                remark = ADDITIONS[a].remark(v if isinstance(v, Mapping) else {ADDITIONS[a].parameter_names[0]: v})
                lines += [remark, ""] if remark else []
        for addition, off in (info.get("switched_off") or {}).items():
            val = "" if off["validation_mae"] is None else f", validation MAE {off['validation_mae']:.4f}"
            lines += [f"With {addition} switched off (every other parameter as fitted): training MAE "
                      f"{off['train_mae']:.4f} rad{val}.", ""]
        bare = info.get("without_temperature")
        if bare:
            val = "" if bare["validation_mae"] is None else f", validation MAE {bare['validation_mae']:.4f}"
            start = info.get("thermal_start")
            at = "" if not start else f" (thermal starts at `thermal_initial` {carried['thermal']['thermal_initial']:.2f} degC: {start})"
            lines += [f"Simulated without the logs' temperature (what a simulation with no `temp` input gets): training "
                      f"MAE {bare['train_mae']:.4f} rad{val}{at}.", ""]
        for addition, c in (selection.get("candidates") or {}).items():
            verdict = "kept" if c["kept"] else "not kept"
            top = f" on top of {', '.join(c['on_top_of'])}" if c["on_top_of"] else ""
            lines += [f"{addition}{top}: mean held-out MAE {c['mean_without']:.4f} rad without, {c['mean_with']:.4f} with "
                      f"(gain {c['gain']:+.4f} rad, {verdict}; kept only for a gain of {100 * MIN_GAIN:g} % or more).",
                      "", "| fold | without [rad] | with [rad] | fitted value |", "|---|---|---|---|"]
            for fold, f in c["folds"].items():
                lines.append(f"| {fold} | {f['without']:.4f} | {f['with']:.4f} | {f['value']:.4g} |")
            lines.append("")
    return lines

"""What identification minimises: the search space and the batched cost of parameter sets.

The cost of a parameter set is the mean, over the training logs, of the mean absolute position
error [rad] between simulation and log (paper section V-B). A whole population is simulated on
all logs in one call: by the compiled kernel (:mod:`.kernel`) where it supports the model, else
by the numpy :func:`~actuator_models.simulation.rollout` (dynamic friction, user control laws).
The integrator is the model's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import kernel
from .logs import Log
from .model import Model
from .parameters import Parameter
from .simulation import LogBatch, mean_absolute_errors, rollout

#: Cost given to a parameter set whose simulation is not finite [rad].
FAILED_COST = 1e3


@dataclass(frozen=True)
class SearchSpace:
    """The parameters searched (with bounds) and those fixed at given values."""

    free: Tuple[Parameter, ...]
    fixed: Mapping[str, float]

    @classmethod
    def for_model(
        cls,
        model: Model,
        fixed: Optional[Mapping[str, float]] = None,
        bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
    ) -> "SearchSpace":
        """All of ``model``'s parameters but ``fixed``; ``bounds`` override identification bounds."""
        fixed = dict(fixed or {})
        bounds = dict(bounds or {})
        names = {p.name for p in model.parameters}
        for name in (*fixed, *bounds):
            if name not in names:
                raise ValueError(f"parameter {name!r} is not one of model {model.name}: {', '.join(sorted(names))}")
        free = []
        for p in model.parameters:
            if p.name in fixed:
                continue
            if p.name in bounds:
                low, high = bounds[p.name]
                if not low < high:
                    raise ValueError(f"bounds of {p.name!r}: lower {low} must be below upper {high}")
                p = p.with_bounds(low, high)
            free.append(p)
        return cls(tuple(free), fixed)

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.free)

    @property
    def lower(self) -> np.ndarray:
        return np.array([p.lower for p in self.free])

    @property
    def upper(self) -> np.ndarray:
        return np.array([p.upper for p in self.free])

    @property
    def _log(self) -> np.ndarray:
        """Which free parameters are searched on a log scale (:attr:`Parameter.log`)."""
        return np.array([p.log for p in self.free], dtype=bool)

    def _scaled(self, x: np.ndarray) -> np.ndarray:
        return np.where(self._log, np.log(np.where(self._log, x, 1.0)), x)

    def to_unit(self, values: Mapping[str, float]) -> np.ndarray:
        """Free parameter values -> the unit cube CMA-ES searches (0 = lower bound, 1 = upper;
        linear, or logarithmic for log-scale parameters)."""
        x = np.array([float(values[p.name]) for p in self.free])
        low, high = self._scaled(self.lower), self._scaled(self.upper)
        return (self._scaled(x) - low) / (high - low)

    def from_unit(self, unit: np.ndarray) -> Dict[str, float]:
        """A point of the unit cube -> free parameter values (clipped to the bounds)."""
        low, high = self._scaled(self.lower), self._scaled(self.upper)
        y = low + np.clip(unit, 0.0, 1.0) * (high - low)
        x = np.clip(np.where(self._log, np.exp(np.where(self._log, y, 0.0)), y), self.lower, self.upper)  # exp(log(b)) may pass b
        return {p.name: float(v) for p, v in zip(self.free, x)}

    def batch(self, parameter_sets: Sequence[Mapping[str, float]]) -> Dict[str, np.ndarray]:
        """Stack parameter sets into arrays of shape ``(P,)``, fixed values included."""
        size = len(parameter_sets)
        out = {name: np.full(size, float(value)) for name, value in self.fixed.items()}
        for p in self.free:
            out[p.name] = np.array([float(s[p.name]) for s in parameter_sets])
        return out

    def at_bounds(self, values: Mapping[str, float], tolerance: float = 0.01) -> Tuple[str, ...]:
        """Free parameters within ``tolerance`` (a fraction of their range) of a search bound:
        the optimum may lie beyond it, so the bound, not the data, set their value."""
        out = []
        for p in self.free:
            margin = tolerance * (p.upper - p.lower)
            if values[p.name] <= p.lower + margin or values[p.name] >= p.upper - margin:
                out.append(p.name)
        return tuple(out)


class Objective:
    """Batched cost: MAE [rad] of many parameter sets of ``model`` on a fixed set of logs,
    simulated with the model's integrator."""

    def __init__(self, model: Model, logs: Sequence[Log]) -> None:
        self.model = model
        self.logs = list(logs)
        self.batch = LogBatch.from_logs(self.logs, model.actuator.default_vin)
        #: whether the compiled kernel simulates this model (else the numpy rollout)
        self.compiled = kernel.supports(model.actuator, model.friction)

    @property
    def log_steps(self) -> int:
        """Simulated steps per parameter set (all logs)."""
        return int(self.batch.lengths.sum())

    def per_log(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """MAE per parameter set and log, shape ``(P, L)``; the model's values fill the gaps."""
        size = len(next(iter(values.values())))
        full = {name: np.full(size, value) for name, value in self.model.values.items()}
        full.update({name: np.asarray(v, dtype=float) for name, v in values.items()})
        with np.errstate(all="ignore"):
            if self.compiled and kernel.values_supported(full):
                maes, _ = kernel.run(self.model.actuator, self.model.friction, full, self.batch, self.model.integrator)
            else:
                simulated = rollout(self.model.actuator, self.model.friction, full, self.batch, self.model.integrator)
                maes = mean_absolute_errors(simulated, self.batch)
        return np.where(np.isfinite(maes), maes, FAILED_COST)

    def __call__(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Mean MAE over the logs, shape ``(P,)``."""
        return self.per_log(values).mean(axis=1)

    def of_model(self, model: Model) -> np.ndarray:
        """MAE of one model's values on each log, shape ``(L,)``."""
        return self.per_log({name: np.array([v]) for name, v in model.values.items()})[0]

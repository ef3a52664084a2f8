"""What identification minimises: the search space and the batched cost of parameter sets.

The cost of a parameter set is the mean, over the training logs, of the mean absolute position
error [rad] between simulation and log (paper section V-B). A whole population is simulated on
all logs in one call: by the compiled kernel (:mod:`.kernel`) where it has a twin of every part of
the model, else by the numpy :func:`~actuator_models.simulation.rollout` (dynamic friction, a user
control law, a friction model or addition defined without a compiled twin): that choice is made
once, by :func:`.kernel.unsupported`, and stated in :attr:`Objective.engine` and
:attr:`Objective.why_numpy` (a sentence naming the part), never by a per-call fallback. The
integrator is the model's own.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import kernel
from .logs import Log
from .model import Model
from .parameters import Parameter
from .addition_thermal import TEMPERATURE_WEIGHT
from .divergence import refuse_divergent
from .simulation import MAX_SPEED, LogBatch, mean_absolute_errors, rollout, rollout_temperatures, temperature_errors

#: Cost given to a parameter set whose simulation is not finite [rad].
FAILED_COST = 1e3


#: A positive parameter whose upper bound is at least this many times its lower one is searched
#: on a logarithmic scale (see :class:`SearchSpace`).
LOG_RATIO = 10.0


@dataclass(frozen=True)
class SearchSpace:
    """The parameters searched (with bounds) and those fixed at given values.

    ``log`` marks the free parameters searched on a logarithmic scale: positive ones whose range
    spans :data:`LOG_RATIO` or more (a Stribeck velocity of 0.1-3 rad/s, an exponent of 0.5-10,
    an armature of 1e-4-0.05 kg m^2, kt of 0.1-3 N m/A). On a linear scale CMA-ES's steps are
    fractions of the range, so the bottom decade is a sliver it rarely explores: on the 12 XL330
    logs the lowest basin of M6 (exponent ~0.7, Stribeck velocity ~0.5 rad/s) was found by 2 of
    20 linear-scale starts, 7 of 16 log-scale ones. Not free: the eRob80 known-model fit of M6
    from M1 at 2500 trials lands at 1.7x the true model's MAE on this scale, 1.1x on the linear
    one (also with only the Stribeck velocity and exponent on a log scale: 1.66x).
    """

    free: Tuple[Parameter, ...]
    fixed: Mapping[str, float]
    log: Tuple[bool, ...] = ()

    def __post_init__(self) -> None:
        if not self.log:
            object.__setattr__(self, "log", (False,) * len(self.free))

    @classmethod
    def for_model(
        cls,
        model: Model,
        fixed: Optional[Mapping[str, float]] = None,
        bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
        log_scale: bool = True,
    ) -> "SearchSpace":
        """All of ``model``'s parameters but ``fixed``; ``bounds`` override identification bounds;
        ``log_scale``: search wide positive ranges on a logarithmic scale (else all linear). A fixed
        value or a bound outside the parameter's physical domain (:meth:`Parameter.problem`: a
        negative armature, a share above 1, NaN) is refused: the fit would write a model that
        nothing loads."""
        fixed = dict(fixed or {})
        bounds = dict(bounds or {})
        names = {p.name for p in model.parameters}
        for name in (*fixed, *bounds):
            if name not in names:
                raise ValueError(f"parameter {name!r} is not one of model {model.name}: {', '.join(sorted(names))}")
        free = []
        for p in model.parameters:
            if p.name in fixed:
                problem = p.problem(float(fixed[p.name]))
                if problem:
                    raise ValueError(f"fixed value of {p.name!r} is {fixed[p.name]!r}: {problem}")
                continue
            if p.name in bounds:
                low, high = bounds[p.name]
                for end, value in (("lower", low), ("upper", high)):
                    problem = p.problem(float(value))
                    if problem:
                        raise ValueError(f"bounds of {p.name!r}: {end} {value!r}: {problem}")
                if not low < high:
                    raise ValueError(f"bounds of {p.name!r}: lower {low} must be below upper {high}")
                p = p.with_bounds(low, high)
            free.append(p)
        # a parameter declared log-scale (Parameter.log: the STS firmware's ratio and speed limit) always is
        log = tuple(p.log or (log_scale and p.lower > 0 and p.upper >= LOG_RATIO * p.lower) for p in free)
        return cls(tuple(free), fixed, log)

    @property
    def names(self) -> Tuple[str, ...]:
        return tuple(p.name for p in self.free)

    @property
    def lower(self) -> np.ndarray:
        return np.array([p.lower for p in self.free])

    @property
    def upper(self) -> np.ndarray:
        return np.array([p.upper for p in self.free])

    def _scaled(self, x: np.ndarray) -> np.ndarray:
        """Values on the scale searched (the log of the ``log`` ones)."""
        return np.where(self.log, np.log(np.where(self.log, x, 1.0)), x)

    def to_unit(self, values: Mapping[str, float]) -> np.ndarray:
        """Free parameter values -> the unit cube CMA-ES searches (0 = lower bound, 1 = upper;
        linear, or logarithmic for the ``log`` parameters)."""
        x = np.array([float(values[p.name]) for p in self.free])
        low, high = self._scaled(self.lower), self._scaled(self.upper)
        return (self._scaled(x) - low) / (high - low)

    def from_unit(self, unit: np.ndarray) -> Dict[str, float]:
        """A point of the unit cube -> free parameter values (clipped to the bounds)."""
        return self.from_units(np.asarray(unit, dtype=float)[None, :])[0]

    def from_units(self, units: np.ndarray) -> List[Dict[str, float]]:
        """Points of the unit cube, ``(P, len(free))`` -> free parameter values of each, in one
        go (a generation: a tenth of the time of point by point)."""
        low, high = self._scaled(self.lower), self._scaled(self.upper)
        y = low + np.clip(units, 0.0, 1.0) * (high - low)
        x = np.clip(np.where(self.log, np.exp(np.where(self.log, y, 0.0)), y), self.lower, self.upper)
        names = self.names  # a property: once per generation, not once per point (~4 % of a default fit)
        return [dict(zip(names, row)) for row in x.tolist()]

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


@dataclass(frozen=True)
class Prior:
    """Regularisation toward a centre (the actuator's defaults): the cost becomes
    ``MAE * (1 + weight * mean(((x - centre) / width)^2))`` over the free parameters. Relative to
    the MAE, so one weight means the same for a servo fitted to 0.03 rad and one fitted to
    0.001 rad. Among parameter sets the logs cannot tell apart (the basins of M6 on the 12 XL330
    logs, within 5 % in training MAE and 0.028-0.053 rad on an unseen gain), it picks the one
    nearest the defaults; with few logs it keeps undetermined parameters near sensible values."""

    names: Tuple[str, ...]
    centre: np.ndarray
    width: np.ndarray
    weight: float

    @classmethod
    def toward(cls, space: SearchSpace, values: Mapping[str, float], weight: float,
               widths: Optional[Mapping[str, float]] = None) -> "Prior":
        """Centred on ``values`` (clipped to the bounds); width: ``widths[name]`` or a quarter of
        each parameter's search range."""
        widths = widths or {}
        centre = np.clip([float(values[p.name]) for p in space.free], space.lower, space.upper)
        width = np.array([float(widths.get(p.name, 0.25 * (p.upper - p.lower))) for p in space.free])
        return cls(space.names, centre, width, float(weight))

    def factor(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """``1 + weight * mean squared deviation`` of each parameter set, shape ``(P,)``."""
        x = np.stack([np.asarray(values[name], dtype=float) for name in self.names], axis=-1)
        return 1.0 + self.weight * np.mean(((x - self.centre) / self.width) ** 2, axis=-1)


class Objective:
    """Batched cost: MAE [rad] of many parameter sets of ``model`` on a fixed set of logs,
    simulated with the model's integrator, times an optional :class:`Prior`'s factor. For a model
    carrying ``thermal`` the cost adds :data:`~.addition_thermal.TEMPERATURE_WEIGHT` [rad/K] times
    the case temperature's MAE [K] against the logs' ``temp`` register (a measurement to fit);
    :meth:`per_log` and the MAE of :meth:`evaluate` stay the position's.

    ``unfed_share`` (0-1, issue 31): the share of the position term given to the logs simulated
    WITHOUT their temperature readings (both thermal nodes start at ``thermal_initial``, as a
    user's simulation does; :meth:`blind_per_log`): the position term becomes ``(1 - s) fed + s
    unfed``, a second rollout per point. 0 (the default): fed only, no second rollout."""

    def __init__(self, model: Model, logs: Sequence[Log], prior: Optional[Prior] = None,
                 unfed_share: float = 0.0) -> None:
        if not 0.0 <= unfed_share <= 1.0:
            raise ValueError(f"unfed_share: {unfed_share} must be within 0-1")
        self.model = model
        self.prior = prior
        self.unfed_share = unfed_share
        self.logs = list(logs)
        self.batch = LogBatch.from_logs(self.logs, model.actuator.default_vin)
        #: the same logs as a simulation without a temperature input sees them (no first reading)
        self.blind = replace(self.batch, measured=np.zeros_like(self.batch.measured))
        #: why the compiled kernel cannot simulate this model (a sentence naming the part), or None
        self.why_numpy = kernel.unsupported(model.actuator, model.friction, model.additions)
        #: whether the compiled kernel simulates this model (else the numpy rollout)
        self.compiled = self.why_numpy is None

    @property
    def engine(self) -> str:
        """``"kernel"`` (compiled) or ``"numpy"``."""
        return "kernel" if self.compiled else "numpy"

    @property
    def log_steps(self) -> int:
        """Simulated steps per parameter set (all logs)."""
        return int(self.batch.lengths.sum())

    def per_log(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """MAE per parameter set and log, shape ``(P, L)``; the model's values fill the gaps."""
        return self.errors(values)[0]

    def blind_per_log(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """Position MAE [rad] per parameter set and log, shape ``(P, L)``, of the logs simulated
        without their temperature readings (``thermal`` starts at ``thermal_initial``)."""
        return self.errors(values, self.blind)[0]

    def errors(self, values: Mapping[str, np.ndarray],
               batch: Optional[LogBatch] = None) -> Tuple[np.ndarray, np.ndarray]:
        """``(position MAE [rad], case temperature MAE [K])`` per parameter set and log, shapes
        ``(P, L)`` (temperature: 0 for a log without ``temp`` or a model without ``thermal``), of
        ``batch`` (default: the logs as recorded)."""
        batch = self.batch if batch is None else batch
        size = len(next(iter(values.values())))
        full = {name: np.full(size, value) for name, value in self.model.values.items()}
        full.update({name: np.asarray(v, dtype=float) for name, v in values.items()})
        with np.errstate(all="ignore"):
            if self.compiled:
                maes, heat, _ = kernel.run_thermal(self.model.actuator, self.model.friction, full, batch,
                                                   self.model.integrator)
            else:
                simulated, temperatures = rollout_temperatures(self.model.actuator, self.model.friction, full,
                                                               batch, self.model.integrator)
                maes = mean_absolute_errors(simulated, batch)
                heat = np.zeros_like(maes) if temperatures is None else temperature_errors(temperatures, batch)
        return (np.where(np.isfinite(maes), maes, FAILED_COST),
                np.where(np.isfinite(heat), heat, FAILED_COST / TEMPERATURE_WEIGHT))

    def evaluate(self, values: Mapping[str, np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
        """(cost, mean MAE [rad] over the logs) of each parameter set, both shape ``(P,)``: the
        cost is the MAE (with ``unfed_share``: mixed with the unfed MAE) plus the weighted temperature MAE (``thermal``), times the prior's factor."""
        maes, heat = self.errors(values)
        mae = maes.mean(axis=1)
        position = mae if self.unfed_share == 0 else (
            (1 - self.unfed_share) * mae + self.unfed_share * self.blind_per_log(values).mean(axis=1))
        cost = position + TEMPERATURE_WEIGHT * heat.mean(axis=1)
        return (cost if self.prior is None else cost * self.prior.factor(values)), mae

    def __call__(self, values: Mapping[str, np.ndarray]) -> np.ndarray:
        """The cost of each parameter set, shape ``(P,)`` (see :meth:`evaluate`)."""
        return self.evaluate(values)[0]

    def of_model(self, model: Model) -> np.ndarray:
        """MAE of one model's values on each log, shape ``(L,)``."""
        return self.per_log({name: np.array([v]) for name, v in model.values.items()})[0]

    def refuse_divergent(self, model: Model) -> None:
        """Raise :class:`~.divergence.DivergentStep` when ``model``'s rollout on these logs
        diverged (the rule of :mod:`.divergence`, on its positions [rad]: one rollout, the cost of
        one candidate). For what a user reads (a fit's result), never in the search: a candidate
        that diverges scores its MAE (or :data:`FAILED_COST`) and the search goes on."""
        values = {name: np.array([v]) for name, v in model.values.items()}
        with np.errstate(all="ignore"):
            if self.compiled:
                _, simulated = kernel.run(model.actuator, model.friction, values, self.batch, model.integrator, True)
            else:
                simulated = rollout(model.actuator, model.friction, values, self.batch, model.integrator)
        refuse_divergent(model, self.batch, simulated, [log.source for log in self.logs], MAX_SPEED)

"""Values the simulation's explicit step cannot integrate: refused, never reported as a number.

Two kinds, one error (:class:`DivergentStep`, bad input: exit status 2 in the commands):

* a ``thermal`` network faster than the step, refused before stepping where the step is known
  (:func:`.addition_thermal.step_problem`);
* a servo rollout that diverged (a params file with ``kt = 1e6``: the loop gain is so high that
  each explicit step overshoots more than the last), found AFTER the rollout, in the simulated
  positions (:func:`first_divergence`), or in the MAEs where only those exist (the compiled
  kernel without positions: :func:`check_maes`). A fit's search scores such candidates badly and
  goes on (:class:`~.objective.Objective` maps a non-finite MAE to its failed cost); only what a
  user reads is refused: ``simulate``, ``evaluate``, a fit's final report, the MuJoCo replay and
  the stick/slip comparison.

The rule (:func:`first_divergence`), per log, the first record ``k`` where the simulated
position [rad] is

1. not finite, or
2. more than :data:`DIVERGED_DISTANCE` (1000 rad, about 160 turns) from the logged position:
   a servo of the shipped kinds (no-load speeds 6-11 rad/s) needs minutes at full speed to get
   that far, and a log records a bench swinging within a turn; or
3. :data:`CLIP_SHARE` or more of the step's velocity clip (100 rad/s) away from the previous
   record, per second: the ``bam`` step's ``0.5 a dt^2`` term is not clipped (it runs past the
   clip), the ``semi-implicit`` step's velocity is (a diverging loop then chatters around the
   goal pinned at the clip, an MAE of 0.4 rad that looks like a poor model). The shipped models
   move at most 14 rad/s on the shipped logs.

Where only MAEs exist, an MAE that is not finite or above :data:`DIVERGED_DISTANCE` (rule 1 or 2
on average); a chattering ``semi-implicit`` run is then found only with its positions.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .parameters import Parameter

#: Distance [rad] from the logged position past which a simulated position has diverged.
DIVERGED_DISTANCE = 1000.0
#: Share of the step's velocity clip [rad/s] at which a simulated speed has diverged (within
#: rounding of the clip: a position difference over ``dt`` is the clipped speed to ~1e-13).
CLIP_SHARE = 0.99
#: How many out-of-bounds values a refusal names, the farthest out first.
SUSPECTS = 3


class DivergentStep(ValueError):
    """Values the simulation's explicit step cannot integrate: a thermal network faster than
    the step (:func:`.addition_thermal.step_problem`) or a servo rollout that diverged
    (:func:`refuse_divergent`); the message names the log, the step and the parameters."""


@dataclass(frozen=True)
class Divergence:
    """Where a rollout diverged: the log's index, the record ``step`` (0 = the first), the
    simulated and logged positions [rad] there and the speed [rad/s] from the previous record
    (NaN at the first)."""

    log: int
    step: int
    simulated: float
    logged: float
    speed: float


def breaks_rule(position: np.ndarray, reference: np.ndarray, speed: np.ndarray, clip: float) -> np.ndarray:
    """Where the module's rule finds a simulation diverged, elementwise: a ``position`` [rad] that
    is not finite or more than :data:`DIVERGED_DISTANCE` from ``reference`` [rad] (the logged
    position, or a live simulation's goal), or a ``speed`` [rad/s] at :data:`CLIP_SHARE` of the
    step's velocity ``clip`` or more (a NaN speed, one not known, breaks nothing)."""
    with np.errstate(invalid="ignore"):
        return ~(np.abs(position - reference) <= DIVERGED_DISTANCE) | (speed >= CLIP_SHARE * clip)


def first_divergence(simulated: np.ndarray, logged: np.ndarray, lengths: np.ndarray, dt: np.ndarray,
                     clip: float) -> Optional[Divergence]:
    """The first record that breaks the module's rule in the simulated positions ``(L, T)``
    [rad] (a leading parameter-set axis: its first set that does) against ``logged`` ``(L, T)``,
    over each log's ``lengths`` ``(L,)`` records of step ``dt`` ``(L,)`` [s], for the step's
    velocity ``clip`` [rad/s]; None when none does."""
    q = np.asarray(simulated, dtype=float).reshape((-1, *np.shape(logged)))
    real = np.arange(q.shape[-1])[None, :] < np.asarray(lengths)[:, None]
    with np.errstate(all="ignore"):
        speed = np.abs(np.diff(q, axis=-1)) / np.asarray(dt, dtype=float)[:, None]
    speed = np.concatenate([np.full((*q.shape[:-1], 1), np.nan), speed], axis=-1)
    bad = breaks_rule(q, logged, speed, clip) & real
    if not bad.any():
        return None
    p, log = np.argwhere(bad.any(axis=-1))[0]
    step = int(np.argmax(bad[p, log]))
    return Divergence(int(log), step, float(q[p, log, step]), float(logged[log, step]), float(speed[p, log, step]))


def out_of_bounds(parameters: Sequence[Parameter], values: Mapping[str, Any]) -> List[Tuple[Parameter, float]]:
    """The parameters whose value (the first set's) lies outside their search bounds, with it."""
    out = []
    for p in parameters:
        value = float(np.ravel(np.asarray(values.get(p.name, p.default), dtype=float))[0])
        if not p.lower <= value <= p.upper:
            out.append((p, value))
    return out


def suspects(parameters: Sequence[Parameter], values: Mapping[str, Any]) -> str:
    """The values most likely to blame: those outside their search bounds, farthest out
    (in decades) first, with the bounds; or a sentence saying none is."""
    out = []
    for p, value in out_of_bounds(parameters, values):
        edge = p.lower if value < p.lower else p.upper
        far = abs(math.log10(abs(value) / abs(edge))) if value and edge else math.inf
        out.append((far, f"{p.name} = {value:g} {p.unit} (searched within {p.lower:g}-{p.upper:g})"))
    if not out:
        return "no value is outside its search bounds: the step is too long for their combination"
    named = [text for _, text in sorted(out, key=lambda pair: -pair[0])[:SUSPECTS]]
    return "likely " + ", ".join(named)


def refuse_divergent(model: Any, batch: Any, simulated: np.ndarray, sources: Sequence[str], clip: float,
                     simulator: str = "") -> None:
    """Raise :class:`DivergentStep` when the rollout ``simulated`` [rad] of ``model`` (a
    :class:`~.model.Model`) on ``batch`` (a :class:`~.simulation.LogBatch` of the logs named
    ``sources``, or anything with its ``position``, ``lengths`` and ``dt``) diverged
    (:func:`first_divergence`); the message names the ``simulator`` (default: the model's
    integrator's step), the log, the time and record where, and the likely parameters."""
    found = first_divergence(simulated, batch.position, batch.lengths, batch.dt, clip)
    if found is None:
        return
    dt = float(batch.dt[found.log])
    where = f"{Path(sources[found.log]).name} diverged at t = {found.step * dt:.3f} s (record {found.step})"
    what = f"simulated position {found.simulated:.3g} rad against the logged {found.logged:.3g} rad"
    if math.isfinite(found.speed):
        what += f", {found.speed:.3g} rad/s from the record before (the reference step's speed clip: {clip:g} rad/s)"
    raise DivergentStep(f"{model.name}, {simulator or model.integrator + ' step'}: its simulation of {where}: {what}; the explicit "
                        f"step cannot integrate these values; {suspects(model.parameters, model.values)}")


def check_maes(model: Any, maes: np.ndarray, sources: Sequence[str]) -> None:
    """Raise :class:`DivergentStep` when an MAE [rad] of ``model`` on the logs ``sources``
    (shape ``(L,)``, or ``(P, L)``: any set) is not finite or above :data:`DIVERGED_DISTANCE`:
    the rule where a rollout returns MAEs only (the compiled kernel)."""
    values = np.asarray(maes, dtype=float).reshape(-1, len(sources))
    bad = np.argwhere(~(values <= DIVERGED_DISTANCE))
    if not bad.size:
        return
    log = int(bad[0][1])
    raise DivergentStep(f"{model.name}, {model.integrator} step: its simulation of {Path(sources[log]).name} "
                        f"diverged (MAE {float(values[tuple(bad[0])]):.3g} rad, over {DIVERGED_DISTANCE:g} rad); the "
                        f"explicit step cannot integrate these values; {suspects(model.parameters, model.values)}")


@contextmanager
def params_named(source: Optional[object]) -> Iterator[None]:
    """Prefix a :class:`DivergentStep` raised inside with the params ``source`` (a file or a
    library name, as the user gave it): the refusal then names the file (None: as it is)."""
    try:
        yield
    except DivergentStep as error:
        if source is None:
            raise
        raise DivergentStep(f"{source}: {error}") from None


#: Goal step a probe asks of a servo [rad], and for how long [s of simulated time]
PROBE_STEP, PROBE_TIME = 0.2, 0.5


def probe_servo(model: Any, bench: Any, kp: float, dt: float, vin: Optional[float] = None,
                temperature: Optional[float] = None) -> None:
    """Raise :class:`DivergentStep` when ``model`` (a :class:`~.model.Model`) on ``bench`` (a
    :class:`~.simulation.Pendulum`), stepped by the scalar step (:class:`~.simulation.PendulumSimulator`)
    over ``dt`` [s] at gain ``kp`` (actuator units), supply ``vin`` [V] and start ``temperature``
    [degC], diverges (the module's rule, the goal for the logged position) holding a goal
    :data:`PROBE_STEP` [rad] from rest for :data:`PROBE_TIME`: what an emulated servo checks
    before it answers on its bus, so that nonsense values are refused, not emulated."""
    from .simulation import MAX_SPEED, PendulumSimulator  # simulation imports this module

    sim = PendulumSimulator(model, bench, vin=vin, temperature=temperature)
    steps = max(1, round(PROBE_TIME / dt))
    positions = np.zeros((1, steps + 1))  # from rest at 0 rad
    with np.errstate(all="ignore"):
        for k in range(1, steps + 1):
            sim.step(PROBE_STEP, True, kp, dt)
            positions[0, k] = sim.q
    found = first_divergence(positions, np.full((1, steps + 1), PROBE_STEP), np.array([steps + 1]), np.array([dt]),
                             MAX_SPEED)
    if found is not None:
        raise DivergentStep(f"{model.name}: its simulation diverged holding a {PROBE_STEP:g} rad goal step at kp {kp:g} "
                            f"(at t = {found.step * dt:.3f} s: position {found.simulated:.3g} rad, speed "
                            f"{found.speed:.3g} rad/s) with a {dt:g} s step: the explicit step cannot integrate these "
                            f"values; {suspects(model.parameters, model.values)}")

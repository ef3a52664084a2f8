"""Compiled batched rollout (numba): the step of :mod:`.simulation` for many parameter sets x logs.

:func:`~actuator_models.simulation.rollout` stays the readable reference and the oracle of the
tests; this module runs the same arithmetic, in the same order, as scalar code compiled by
numba, one log and two parameter sets per iteration of a parallel loop (``prange``) spread over
the machine's cores (the two sets stepped side by side, each with its own arithmetic: their
chains of dependent operations overlap in the processor; 5-8 % less time per step on this
machine's AMD EPYC, every number the same to the bit; ``benchmarks/fit_speed.py``). Compiled code is cached on disk (``cache=True``: the first call of a fresh
install compiles, about ten seconds; later processes load it).

Supported (the compiled twins of :mod:`.kernel_numba`): the control laws of :mod:`.actuators`
(:class:`~.actuators.VoltageControlled`, :class:`~.actuators.CurrentPD`,
:class:`~.actuators.CurrentControlled`, :class:`~.actuators.SpeedLimitedVoltage`, exact classes),
the friction models M1-M6, both integrators and the additions of :data:`ADDITION_TWINS` (each on
only when the parameter values carry it, so that without them the arithmetic is the published
step's; ``supply`` has no switch: its column is 0 without it and ``R + 0 d^2`` is ``R`` exactly). The parameter matrix's columns are named (:data:`COLUMNS`, from the parts' declared
parameters: the actuators', M1-M6's and the twinned additions' ``kernel_columns``) and the
compiled code reads them by those names. :func:`unsupported` names what a model carries that the
kernel has no twin of; :func:`run` refuses such a model with :class:`KernelError` naming it (the
caller decides to run the numpy step instead, and says so: :class:`~.objective.Objective`).

numba is imported on first use (:func:`compiled`), so importing this module is cheap. A model
carrying ``thermal`` and one without it run two specialisations of the kernel (the readings or
None, :func:`~.kernel_numba.simulate`), each compiled (or loaded from the cache) on its first
call in a process. Every call runs inside an :class:`~.interrupts.InterruptShield` (about 30 us,
against milliseconds for the call): a Ctrl-C landing in numba's object-code callback while it
compiles would be dropped there and leave the compiled library without its object code ("no
compiled object yet" when numba saves it to the cache); shielded, it is raised once the call
returns.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from .addition_thermal import step_problem
from .divergence import DivergentStep
from .additions import ADDITIONS, REFERENCE_TEMPERATURE, carried
from .actuators import (ARMATURE, ERROR_GAIN_RATIO, KT, Q_OFFSET, R, TARGET_SPEED_LIMIT, Actuator, CurrentControlled,
                        CurrentPD, SpeedLimitedVoltage, VoltageControlled)
from .friction import FRICTION_MODELS, FrictionModel
from .interrupts import InterruptShield
from .parameters import ParamValues

_LAWS = {VoltageControlled: 0, CurrentPD: 1, CurrentControlled: 2, SpeedLimitedVoltage: 3}
_FRICTIONS = {"m1": 1, "m2": 2, "m3": 3, "m4": 4, "m5": 5, "m6": 6}
_INTEGRATORS = {"bam": 0, "semi-implicit": 1}
#: The additions with a compiled twin in :mod:`.kernel_numba`, in the order of its switches.
ADDITION_TWINS: Tuple[str, ...] = ("latency", "backlash", "heating", "thermal", "supply")
#: Columns of the parameter matrix handed to the kernel, by name, from the declarations: the
#: actuators' parameters, M1-M6's, then each twinned addition's ``kernel_columns`` (absent ones are
#: 0 and unused, but ``q_offset``: 0 is its meaning when a model has none).
COLUMNS: Tuple[str, ...] = tuple(dict.fromkeys([
    *(p.name for p in (KT, R, ARMATURE, Q_OFFSET, ERROR_GAIN_RATIO, TARGET_SPEED_LIMIT)),
    *(p.name for name in _FRICTIONS for p in FRICTION_MODELS[name].parameters),
    *(c for name in ADDITION_TWINS for c in ADDITIONS[name].kernel_columns),
]))


class KernelError(ValueError):
    """A model part or parameter the compiled kernel has no twin of; the message names it."""


def unsupported(actuator: Actuator, friction: FrictionModel, additions: Sequence[str] = ()) -> Optional[str]:
    """What the kernel cannot run among the control law, the friction model and ``additions``
    (a sentence naming it), or None when it runs them all."""
    if type(actuator) not in _LAWS:
        return f"control law {type(actuator).__name__} of actuator {actuator.name!r} has no compiled twin"
    if friction.name not in _FRICTIONS or FRICTION_MODELS.get(friction.name) is not friction:
        return f"friction model {friction.name!r} has no compiled twin"
    missing = [a for a in additions if a not in ADDITION_TWINS]
    if missing:
        return f"addition(s) {', '.join(repr(a) for a in missing)} have no compiled twin"
    return None


def supports(actuator: Actuator, friction: FrictionModel, additions: Sequence[str] = ()) -> bool:
    """Whether the kernel runs this actuator law, friction model and additions."""
    return unsupported(actuator, friction, additions) is None


def law_constants(actuator: Actuator) -> Tuple[int, np.ndarray]:
    """(law code, its constants) for the kernel."""
    if isinstance(actuator, VoltageControlled):
        consts = [actuator.error_gain, actuator.max_duty, 0.0]
    elif isinstance(actuator, CurrentPD):
        consts = [actuator.damping, actuator.max_current, actuator.bus_voltage]
    else:
        consts = [actuator.max_current, 0.0, 0.0]  # type: ignore[attr-defined]
    return _LAWS[type(actuator)], np.array(consts, dtype=float)


def parameter_matrix(values: ParamValues) -> np.ndarray:
    """Parameter sets as a ``(P, len(COLUMNS))`` matrix, by name; values may be floats or ``(P,)``
    arrays. A value whose name is not a column is a :class:`KernelError` naming it."""
    strange = [name for name in values if name not in COLUMNS]
    if strange:
        raise KernelError(f"the compiled rollout has no column for parameter(s) {', '.join(map(repr, strange))}")
    arrays = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in values.items()}
    size = max((a.shape[0] for a in arrays.values()), default=1)
    out = np.zeros((size, len(COLUMNS)))
    for column, name in enumerate(COLUMNS):
        if name in arrays:
            out[:, column] = np.broadcast_to(arrays[name], (size,))
    return out


@lru_cache(maxsize=1)
def compiled() -> Any:
    """The compiled batch function (compiled, or loaded from numba's cache, on first call).

    Unless the environment says otherwise, the OpenMP threads of the parallel loop sleep when
    idle (``OMP_WAIT_POLICY=PASSIVE``, read by libgomp when numba starts its threads, on the
    first call): by default each spins up to ~300000 times after every call, burning CPU while
    the caller runs Python between calls (a fit's CMA-ES step, the report). Where each
    (parameter set, log) pair runs changes no number, only who waits how."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from .kernel_numba import batch

    return batch


def run(actuator: Actuator, friction: FrictionModel, values: ParamValues, batch: Any, integrator: str,
        positions: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """MAE ``(P, L)`` [rad] of each parameter set on each log of a
    :class:`~actuator_models.simulation.LogBatch` and, with ``positions``, the simulated
    positions ``(P, L, T)`` [rad] (else an empty array)."""
    maes, _, out = run_thermal(actuator, friction, values, batch, integrator, positions)
    return maes, out


def run_thermal(actuator: Actuator, friction: FrictionModel, values: ParamValues, batch: Any, integrator: str,
                positions: bool = False) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`run`'s ``(maes, positions)`` with, between them, the MAE ``(P, L)`` [K] of the
    case temperature against each log's ``temp`` readings (0 for a log without one, or a model
    not carrying ``thermal``)."""
    additions = carried(values)
    problem = unsupported(actuator, friction, additions)
    if problem:
        raise KernelError(f"the compiled rollout cannot run {actuator.name}/{friction.name}: {problem}")
    on = [name in additions for name in ADDITION_TWINS]
    law, consts = law_constants(actuator)
    params = parameter_matrix(values)
    out = np.empty((params.shape[0], batch.goal_position.shape[0], batch.steps) if positions else (1, 1, 1))
    bench = batch.bench
    L = batch.kp.shape[0]

    def per_log(x: Any) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=float), (L,)))

    heat = np.zeros((params.shape[0], L))
    on.pop(ADDITION_TWINS.index("supply"))  # no switch: its column, 0 when not carried, changes nothing
    thermal = on.pop(ADDITION_TWINS.index("thermal"))  # the kernel's switch for it: the readings, or None
    reading = np.where(batch.measured[:, None], batch.temperature, np.nan) if thermal else None
    problem = step_problem(values, float(np.max(batch.dt))) if thermal else None
    if problem:
        raise DivergentStep(problem)
    kernel = compiled()
    with InterruptShield():  # a call may compile (module docstring)
        maes = kernel(
            law, consts, _FRICTIONS[friction.name], _INTEGRATORS[integrator] == 1, params,
            *on,
            np.ascontiguousarray(batch.goal_position), np.ascontiguousarray(batch.torque_enable),
            np.ascontiguousarray(batch.temperature - REFERENCE_TEMPERATURE),
            None if reading is None else np.ascontiguousarray(reading),
            np.ascontiguousarray(batch.position), np.ascontiguousarray(batch.speed),
            batch.lengths.astype(np.int64), per_log(bench.mass), per_log(bench.length), per_log(bench.arm_mass),
            per_log(batch.kp), per_log(batch.vin), per_log(batch.dt), out, positions, heat,
        )
    return maes, heat, (out if positions else np.empty(0))

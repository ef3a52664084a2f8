"""Compiled batched rollout (numba): the step of :mod:`.simulation` for many parameter sets x logs.

:func:`~actuator_models.simulation.rollout` stays the readable reference and the oracle of the
tests; this module runs the same arithmetic, in the same order, as scalar code compiled by
numba, one (parameter set, log) pair per iteration of a parallel loop (``prange``) spread over
the machine's cores. Compiled code is cached on disk (``cache=True``: the first call of a fresh
install compiles, about ten seconds; later processes load it).

Supported: the control laws of :mod:`.actuators` (:class:`~.actuators.VoltageControlled`,
:class:`~.actuators.CurrentPD`, :class:`~.actuators.CurrentControlled`,
:class:`~.actuators.SpeedLimitedVoltage`, exact classes), the
friction models M1-M6, both integrators and the additions (:mod:`.additions`: latency and
backlash, each on only when the parameter values carry it, so that without them the
arithmetic is the published step's). :func:`supports` says whether a model can run here;
:class:`~actuator_models.objective.Objective` falls back to the numpy rollout otherwise (dynamic
friction such as Dahl, a user-defined control law).

numba is imported on first use (:func:`compiled`), so importing this module is cheap. The call
that compiles (or loads from the cache) runs inside an :class:`~.interrupts.InterruptShield`: a
Ctrl-C landing in numba's object-code callback would be dropped there and leave the compiled
library without its object code ("no compiled object yet" when numba saves it to the cache);
shielded, it is raised once the call returns.
"""

from __future__ import annotations

from contextlib import nullcontext
from functools import lru_cache
from typing import Any, Mapping, Tuple

import numpy as np

from .additions import REFERENCE_TEMPERATURE
from .actuators import Actuator, CurrentControlled, CurrentPD, SpeedLimitedVoltage, VoltageControlled
from .friction import FRICTION_MODELS, FrictionModel
from .interrupts import InterruptShield
from .parameters import ParamValues

#: Columns of the parameter matrix handed to the kernel (absent ones are 0 and unused, but
#: ``q_offset``: 0 is its meaning when a model has none).
COLUMNS: Tuple[str, ...] = (
    "kt", "R", "armature", "q_offset",
    "friction_base", "friction_viscous", "friction_stribeck", "dtheta_stribeck", "alpha",
    "load_friction_base", "load_friction_stribeck",
    "load_friction_motor", "load_friction_external",
    "load_friction_motor_stribeck", "load_friction_external_stribeck",
    "load_friction_motor_quad", "load_friction_external_quad",
    "error_gain_ratio", "target_speed_limit",  # Feetech STS law (SpeedLimitedVoltage)
    "latency", "backlash", "heating",  # additions (:mod:`.additions`), switched on by the flags given to the kernel
)
_LAWS = {VoltageControlled: 0, CurrentPD: 1, CurrentControlled: 2, SpeedLimitedVoltage: 3}
_FRICTIONS = {"m1": 1, "m2": 2, "m3": 3, "m4": 4, "m5": 5, "m6": 6}
_INTEGRATORS = {"bam": 0, "semi-implicit": 1}


def supports(actuator: Actuator, friction: FrictionModel) -> bool:
    """Whether the kernel runs this actuator law and friction model (else use the numpy rollout)."""
    return (
        type(actuator) in _LAWS
        and friction.name in _FRICTIONS
        and FRICTION_MODELS.get(friction.name) is friction
    )


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
    """Parameter sets as a ``(P, len(COLUMNS))`` matrix; values may be floats or ``(P,)`` arrays."""
    arrays = {k: np.atleast_1d(np.asarray(v, dtype=float)) for k, v in values.items()}
    size = max((a.shape[0] for a in arrays.values()), default=1)
    out = np.zeros((size, len(COLUMNS)))
    for column, name in enumerate(COLUMNS):
        if name in arrays:
            out[:, column] = np.broadcast_to(arrays[name], (size,))
    return out


@lru_cache(maxsize=1)
def compiled() -> Any:
    """The compiled batch function (compiled, or loaded from numba's cache, on first call)."""
    from .kernel_numba import batch

    return batch


def run(actuator: Actuator, friction: FrictionModel, values: ParamValues, batch: Any, integrator: str,
        positions: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """MAE ``(P, L)`` [rad] of each parameter set on each log of a
    :class:`~actuator_models.simulation.LogBatch` and, with ``positions``, the simulated
    positions ``(P, L, T)`` [rad] (else an empty array)."""
    if not supports(actuator, friction):
        raise ValueError(f"the compiled rollout does not support {actuator.name}/{friction.name}")
    law, consts = law_constants(actuator)
    params = parameter_matrix(values)
    out = np.empty((params.shape[0], batch.goal_position.shape[0], batch.steps) if positions else (1, 1, 1))
    bench = batch.bench
    L = batch.kp.shape[0]

    def per_log(x: Any) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=float), (L,)))

    kernel = compiled()
    with nullcontext() if kernel.signatures else InterruptShield():  # the first call compiles (see the docstring)
        maes = kernel(
            law, consts, _FRICTIONS[friction.name], _INTEGRATORS[integrator] == 1, params,
            "latency" in values, "backlash" in values, "heating" in values,
            np.ascontiguousarray(batch.goal_position), np.ascontiguousarray(batch.torque_enable),
            np.ascontiguousarray(batch.temperature - REFERENCE_TEMPERATURE),
            np.ascontiguousarray(batch.position), np.ascontiguousarray(batch.speed),
            batch.lengths.astype(np.int64), per_log(bench.mass), per_log(bench.length), per_log(bench.arm_mass),
            per_log(batch.kp), per_log(batch.vin), per_log(batch.dt), out, positions,
        )
    return maes, (out if positions else np.empty(0))


def values_supported(values: Mapping[str, object]) -> bool:
    """Whether every parameter name is a kernel column (else fall back to numpy)."""
    return all(name in COLUMNS for name in values)

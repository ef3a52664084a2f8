"""Compiled batched rollout: the step of :mod:`.simulation` for many parameter sets x logs.

:func:`~actuator_models.simulation.rollout` stays the readable reference and the oracle of the
tests; this module runs the same arithmetic, in the same order, as scalar C code
(``servo_kernel.c``, built into ``_servo_kernel`` when the package is installed and loaded with
:mod:`ctypes`), one log and two parameter sets per job, the jobs shared out over POSIX threads,
one per core the process may use (the two sets stepped side by side, each with its own
arithmetic: their chains of dependent operations overlap in the processor, every number the same
to the bit). A process's first call takes about a millisecond; numba, which ran this kernel
before, took 0.8-1.2 s of every command's first call to import itself and load its cached code
(measured side by side; ``benchmarks/fit_speed.py`` times whole fits).

Supported (the compiled twins in ``servo_kernel.c``): the control laws of :mod:`.actuators`
(:class:`~.actuators.VoltageControlled`, :class:`~.actuators.CurrentPD`,
:class:`~.actuators.CurrentControlled`, :class:`~.actuators.SpeedLimitedVoltage`, exact classes),
the friction models M1-M6, both integrators and the additions of :data:`ADDITION_TWINS` (each on
only when the parameter values carry it, so that without them the arithmetic is the published
step's; ``supply`` and ``release`` have no switch: their columns are 0 without them, and ``R + 0 d^2`` is
``R``, ``x (1 - 0)`` is ``x`` exactly).
The parameter matrix's columns are named (:data:`COLUMNS`, from the parts' declared parameters:
the actuators', M1-M6's and the twinned additions' ``kernel_columns``); the compiled code names
the parameters it reads (``servo_slot``) and is handed each one's column (:func:`compiled`). :func:`unsupported` names what
a model carries that the kernel has no twin of; :func:`run` refuses such a model with
:class:`KernelError` naming it (the caller decides to run the numpy step instead, and says so:
:class:`~.objective.Objective`).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
from functools import lru_cache
from typing import Any, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from .addition_thermal import step_problem
from .divergence import DivergentStep
from .additions import ADDITIONS, REFERENCE_TEMPERATURE, carried
from .actuators import (ARMATURE, ERROR_GAIN_RATIO, KT, Q_OFFSET, R, TARGET_SPEED_LIMIT, Actuator, CurrentControlled,
                        CurrentPD, SpeedLimitedVoltage, VoltageControlled)
from .friction import FRICTION_MODELS, FrictionModel
from .parameters import ParamValues

_LAWS = {VoltageControlled: 0, CurrentPD: 1, CurrentControlled: 2, SpeedLimitedVoltage: 3}
_FRICTIONS = {"m1": 1, "m2": 2, "m3": 3, "m4": 4, "m5": 5, "m6": 6}
_INTEGRATORS = {"bam": 0, "semi-implicit": 1}
#: The additions with a compiled twin in ``servo_kernel.c``, in the order of its switches.
ADDITION_TWINS: Tuple[str, ...] = ("latency", "backlash", "heating", "thermal", "supply", "release")
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


_DOUBLES = ctypes.POINTER(ctypes.c_double)
_INTS = ctypes.POINTER(ctypes.c_int64)


class Batch(ctypes.Structure):
    """``servo_kernel.c``'s ``Batch``: one call's switches, sizes and arrays (see there)."""

    _fields_ = [
        *((name, ctypes.c_int64) for name in ("law", "kind", "semi", "delayed", "played", "heated", "write",
                                              "threads", "sets", "logs", "steps", "width")),
        ("columns", _INTS), ("consts", _DOUBLES), ("params", _DOUBLES), ("goal", _DOUBLES),
        ("enable", ctypes.POINTER(ctypes.c_uint8)), ("warming", _DOUBLES), ("reading", _DOUBLES),
        ("position", _DOUBLES), ("speed", _DOUBLES), ("lengths", _INTS),
        *((name, _DOUBLES) for name in ("mass", "length", "arm_mass", "kp", "vin", "dt", "out", "maes",
                                        "heat_maes")),
    ]


class Kernel(NamedTuple):
    """The loaded library: its ``servo_batch`` and, for each parameter it reads (its ``SLOTS``, in
    order), that parameter's column in :data:`COLUMNS`."""

    batch: Any
    columns: np.ndarray


@lru_cache(maxsize=1)
def compiled() -> Kernel:
    """The library built from ``servo_kernel.c`` (``ctypes``; a call releases the GIL), with the
    columns of the parameters it reads, by the names it gives for them. A :class:`KernelError`
    says how to build it where the install did not, or names a parameter no part declares."""
    spec = importlib.util.find_spec(f"{__package__}._servo_kernel")
    if spec is None or not spec.origin:
        raise KernelError(f"the compiled servo step (_servo_kernel, from servo_kernel.c) is not built: reinstall "
                          f"{__package__} (pip install -e src/{__package__}, or make install; needs gcc)")
    library = ctypes.CDLL(spec.origin)
    library.servo_slot.argtypes = [ctypes.c_int64]
    library.servo_slot.restype = ctypes.c_char_p
    names = [library.servo_slot(i).decode() for i in range(library.servo_columns())]
    strange = [name for name in names if name not in COLUMNS]
    if strange:
        raise KernelError(f"{spec.origin} reads parameter(s) {', '.join(map(repr, strange))}, which no declared "
                          f"part has: rebuild it (make install)")
    function = library.servo_batch
    function.argtypes = [ctypes.POINTER(Batch)]
    function.restype = ctypes.c_int
    columns = np.array([COLUMNS.index(name) for name in names], dtype=np.int64)
    columns.setflags(write=False)
    return Kernel(function, columns)


def _pointer(array: Optional[np.ndarray], kind: Any = _DOUBLES) -> Any:
    return None if array is None else array.ctypes.data_as(kind)


def run(actuator: Actuator, friction: FrictionModel, values: ParamValues, batch: Any, integrator: str,
        positions: bool = False, threads: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    """MAE ``(P, L)`` [rad] of each parameter set on each log of a
    :class:`~actuator_models.simulation.LogBatch` and, with ``positions``, the simulated
    positions ``(P, L, T)`` [rad] (else an empty array). ``threads``: how many threads share the
    work (default: one per core this process may run on); no number depends on it."""
    maes, _, out = run_thermal(actuator, friction, values, batch, integrator, positions, threads)
    return maes, out


def run_thermal(actuator: Actuator, friction: FrictionModel, values: ParamValues, batch: Any, integrator: str,
                positions: bool = False, threads: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`run`'s ``(maes, positions)`` with, between them, the MAE ``(P, L)`` [K] of the
    case temperature against each log's ``temp`` readings (0 for a log without one, or a model
    not carrying ``thermal``)."""
    additions = carried(values)
    problem = unsupported(actuator, friction, additions)
    if problem:
        raise KernelError(f"the compiled rollout cannot run {actuator.name}/{friction.name}: {problem}")
    on = {name: name in additions for name in ADDITION_TWINS}
    law, consts = law_constants(actuator)
    params = parameter_matrix(values)
    sets, logs, steps = params.shape[0], batch.goal_position.shape[0], batch.steps
    out = np.empty((sets, logs, steps)) if positions else None
    bench = batch.bench

    def per_log(x: Any) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(np.asarray(x, dtype=float), (logs,)))

    maes, heat = np.empty((sets, logs)), np.zeros((sets, logs))
    # supply and release have no switch (their columns, 0 when not carried, change nothing); thermal's is the
    # readings (NaN where a log has none), or none at all
    reading = np.where(batch.measured[:, None], batch.temperature, np.nan) if on["thermal"] else None
    problem = step_problem(values, float(np.max(batch.dt))) if on["thermal"] else None
    if problem:
        raise DivergentStep(problem)
    kernel = compiled()
    arrays = {  # kept referenced until the call returns
        "columns": kernel.columns, "consts": consts, "params": np.ascontiguousarray(params), "goal": np.ascontiguousarray(batch.goal_position, dtype=float),
        "enable": np.ascontiguousarray(batch.torque_enable, dtype=bool).view(np.uint8),  # bytes, no copy
        "warming": np.ascontiguousarray(batch.temperature - REFERENCE_TEMPERATURE, dtype=float),
        "reading": None if reading is None else np.ascontiguousarray(reading, dtype=float),
        "position": np.ascontiguousarray(batch.position, dtype=float),
        "speed": np.ascontiguousarray(batch.speed, dtype=float),
        "lengths": np.ascontiguousarray(batch.lengths, dtype=np.int64),
        **{name: per_log(x) for name, x in (("mass", bench.mass), ("length", bench.length),
                                              ("arm_mass", bench.arm_mass), ("kp", batch.kp), ("vin", batch.vin),
                                              ("dt", batch.dt))},
        "out": out, "maes": maes, "heat_maes": heat,
    }
    kinds = {"columns": _INTS, "lengths": _INTS, "enable": ctypes.POINTER(ctypes.c_uint8)}
    call = Batch(
        law=law, kind=_FRICTIONS[friction.name], semi=_INTEGRATORS[integrator] == 1, delayed=on["latency"],
        played=on["backlash"], heated=on["heating"], write=positions, threads=threads or len(os.sched_getaffinity(0)),
        sets=sets, logs=logs, steps=steps, width=params.shape[1],
        **{name: _pointer(array, kinds.get(name, _DOUBLES)) for name, array in arrays.items()},
    )
    kernel.batch(ctypes.byref(call))
    return maes, heat, (out if out is not None else np.empty(0))

"""``thermal``: the servo's temperature as simulated state (a model addition, :mod:`.addition`).

Two thermal nodes, the motor's winding ``Tw`` and the case ``Tc`` [degC] (what the servo's
``temp`` register reads), each with a thermal capacity [J/K], linked by thermal resistances
[K/W] winding -> case -> ambient ``Ta``, heated by the copper losses of the step's own motor
current ``i = tm / kt`` [A] (issue 31)::

    R(Tw) = R (1 + thermal_alpha (Tw - 25))              R identified at 25 degC
    P     = i^2 R(Tw)                                    [W]
    Cw dTw/dt = P - (Tw - Tc) / Rw
    Cc dTc/dt = (Tw - Tc) / Rw - (Tc - Ta) / Rc

integrated with the servo step (explicit Euler over the step ``dt``, after the motor torque, the
R of the step: :meth:`Thermal.on_current`). Everything ``R`` enters (drive torque ``kt V / R``,
back-EMF damping ``kt^2 v / R``) follows the WINDING temperature; ``thermal_alpha`` is searched
near copper's 0.0039 /K (:data:`ALPHA`'s bounds).

Settings (fixed in a fit, not searched; written to params files): ``thermal_ambient`` [degC], the
ambient temperature (fit default: the lowest temperature the training logs read) and
``thermal_initial`` [degC], the temperature both nodes start at when the first step has no
temperature reading (fit default: the mean of the training logs' first readings). A simulation
with a temperature input starts both nodes at its first reading (the servo at rest, in
equilibrium with its case); the later readings are NOT replayed: the case node is a prediction,
compared with the register by the fit (:data:`TEMPERATURE_WEIGHT`). Replaying a logged
temperature is the ``heating`` addition (:mod:`.addition_heating`).

Carried by default (``fit --carry auto``) when the training logs record the temperature over a
span; its five searched parameters are counted against the logs that record the register, not the
position records (``measured``, :mod:`.data_rule`).

State: ``(Tw, Tc)`` [degC], floats (one servo) or arrays (parameter sets x logs).
"""

from __future__ import annotations

import math
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from .addition import Addition
from .addition_heating import REFERENCE_TEMPERATURE, records_temperature_span
from .divergence import DivergentStep  # raised by Thermal.initial (and kernel.run_thermal): step_problem
from .parameters import Parameter, ParamValues, Value

ALPHA = Parameter("thermal_alpha", 0.0039, 0.003, 0.008, "1/K",
                  "winding resistance rise per kelvin of the winding (copper: 0.0039)", "alpha")
#: How far (relative) ``thermal_alpha`` may sit from copper's before the report says so.
COPPER_TOLERANCE = 0.15
WINDING_RESISTANCE = Parameter("thermal_winding_resistance", 10.0, 1.0, 100.0, "K/W",
                               "thermal resistance winding -> case", "Rw", log=True)
WINDING_CAPACITY = Parameter("thermal_winding_capacity", 1.0, 0.1, 10.0, "J/K", "thermal capacity of the winding",
                             "Cw", log=True)
CASE_RESISTANCE = Parameter("thermal_case_resistance", 30.0, 3.0, 300.0, "K/W", "thermal resistance case -> ambient",
                            "Rc", log=True)
CASE_CAPACITY = Parameter("thermal_case_capacity", 15.0, 1.5, 150.0, "J/K", "thermal capacity of the case", "Cc",
                          log=True)
AMBIENT = Parameter("thermal_ambient", REFERENCE_TEMPERATURE, -20.0, 80.0, "degC",
                    "ambient temperature (a setting: fixed by the fit from the training logs)", "Ta",
                    domain="temperature")
INITIAL = Parameter("thermal_initial", REFERENCE_TEMPERATURE, -20.0, 80.0, "degC",
                    "start temperature without a first reading (a setting: fixed by the fit)", "T0",
                    domain="temperature")
#: The values a fit fixes from the training logs (:meth:`Thermal.settings`) instead of searching.
SETTINGS = (AMBIENT.name, INITIAL.name)
#: Weight [rad/K] of the case temperature's MAE against the register in the fit's objective
#: (1 K of temperature error costs as much as 5 mrad of position error). Declared from the scales
#: (position MAE ~0.03 rad, register resolution 1 K), not chosen by a score.
TEMPERATURE_WEIGHT = 0.005


def heat_rate(state: Tuple[Value, Value], current: Value, p: ParamValues) -> Tuple[Value, Value]:
    """``(dTw/dt, dTc/dt)`` [K/s] of the nodes ``state`` [degC] at motor ``current`` [A]
    (``p["R"]``: the winding's resistance at ``Tw``)."""
    winding, case = state
    power = current * current * p["R"]
    flow = (winding - case) / p["thermal_winding_resistance"]
    loss = (case - p["thermal_ambient"]) / p["thermal_case_resistance"]
    return (power - flow) / p["thermal_winding_capacity"], (flow - loss) / p["thermal_case_capacity"]


def heat_step(state: Tuple[Value, Value], current: Value, p: ParamValues, dt: Value) -> Tuple[Value, Value]:
    """The nodes ``(Tw, Tc)`` [degC] after ``dt`` [s] of motor ``current`` [A] (explicit Euler
    of :func:`heat_rate`)."""
    winding, case = heat_rate(state, current, p)
    return state[0] + dt * winding, state[1] + dt * case


def fastest_time_constant(p: ParamValues) -> Value:
    """The network's fastest time constant [s], ``1 / |lambda|`` of its most negative eigenvalue
    (the 2x2 system ``d(Tw, Tc)/dt = A (Tw, Tc) + ...`` has real eigenvalues)."""
    a = 1.0 / (np.asarray(p["thermal_winding_resistance"]) * np.asarray(p["thermal_winding_capacity"]))
    b = 1.0 / (np.asarray(p["thermal_winding_resistance"]) * np.asarray(p["thermal_case_capacity"]))
    c = 1.0 / (np.asarray(p["thermal_case_resistance"]) * np.asarray(p["thermal_case_capacity"]))
    total = a + b + c
    return 2.0 / (total + np.sqrt(total * total - 4.0 * a * c))


def step_problem(p: ParamValues, dt: Value) -> Optional[str]:
    """Why explicit Euler over ``dt`` [s] (:func:`heat_step`) diverges for values ``p`` (floats or
    arrays: the first set that does), or None: it is stable while ``dt`` is under twice the
    fastest time constant. A search within the declared bounds never comes near it (their fastest
    network: 0.09 s); a params file with, say, a winding capacity of 1e-4 J/K does, and would
    otherwise be simulated to NaN."""
    tau, steps = np.broadcast_arrays(fastest_time_constant(p), np.asarray(dt, dtype=float))
    bad = np.flatnonzero(~(steps < 2.0 * tau))
    if not bad.size:
        return None
    i = int(bad[0])
    names = ", ".join(q.name for q in (WINDING_RESISTANCE, WINDING_CAPACITY, CASE_RESISTANCE, CASE_CAPACITY))
    return (f"thermal network: its fastest time constant is {float(tau.flat[i]):.3g} s (from {names}): "
            f"a simulation step of {float(steps.flat[i]):g} s, over twice that, diverges")


def start_temperature(q: Value, p: ParamValues, reading: Optional[Value]) -> Value:
    """Both nodes' start [degC]: the first ``reading`` where there is one (NaN: none), else the
    ``thermal_initial`` setting; floats or arrays of ``q``'s shape."""
    initial = p["thermal_initial"]
    if reading is None:
        chosen: Value = initial
    else:
        chosen = np.where(np.isnan(reading), initial, reading)
    if isinstance(q, float):
        return float(chosen)
    return np.broadcast_to(np.asarray(chosen, dtype=float), np.shape(q)).copy()


class Thermal(Addition):
    name = "thermal"
    title = "thermal network (winding, case)"
    parameters = (ALPHA, WINDING_RESISTANCE, WINDING_CAPACITY, CASE_RESISTANCE, CASE_CAPACITY, AMBIENT, INITIAL)
    inputs = ("temperature",)
    measured = ("temperature",)  # the case node is fitted against the register (TEMPERATURE_WEIGHT)
    kernel_columns = tuple(p.name for p in parameters)
    continuous_hooks = ("on_motor_state", "on_current")  # rate(): the network's time derivative
    excludes = ("heating",)  # R would follow the logged temperature and the simulated winding's: twice

    def initial(self, q: Value, p: ParamValues, dt: Value, inputs: Mapping[str, Optional[Value]]) -> Any:
        problem = step_problem(p, dt)
        if problem:
            raise DivergentStep(problem)
        t = start_temperature(q, p, inputs.get("temperature"))
        return (t, t.copy() if isinstance(t, np.ndarray) else t)

    def start(self, q: Value, p: ParamValues, dt: Value) -> Any:
        return self.initial(q, p, dt, {})

    def on_motor_state(self, state: Any, p: ParamValues, inputs: Mapping[str, Optional[Value]]) -> ParamValues:
        return {**p, "R": p["R"] * (1.0 + p["thermal_alpha"] * (state[0] - REFERENCE_TEMPERATURE))}

    def on_current(self, state: Any, current: Value, p: ParamValues, dt: Value) -> Any:
        return heat_step(state, current, p, dt)

    def rate(self, state: Any, current: Value, p: ParamValues) -> Tuple[Value, Value]:
        """The state's time derivative [K/s] (the continuous form, for the stick/slip reference)."""
        return heat_rate(state, current, p)

    def settings(self, inputs: Mapping[str, Sequence[Optional[np.ndarray]]]) -> Dict[str, float]:
        """``thermal_ambient``: the lowest reading of the training logs; ``thermal_initial``: the
        mean of their first readings (none when no log reads a temperature)."""
        readings = [np.asarray(t, dtype=float) for t in inputs.get("temperature") or () if t is not None and len(t)]
        if not readings:
            return {}
        return {AMBIENT.name: float(min(np.min(t) for t in readings)),
                INITIAL.name: float(np.mean([t[0] for t in readings]))}

    def carried_by_default(self, inputs: Mapping[str, Sequence[Optional[np.ndarray]]]) -> bool:
        """When every log records its temperature over :data:`~.addition_heating.HEATING_SPAN`
        or more (issue 31: a simulation then predicts the temperature instead of needing it)."""
        return records_temperature_span(inputs)

    def describe(self, value: float) -> str:
        return f"thermal: copper coefficient {value:.4g} /K ({value / ALPHA.default:.2f}x copper's)"

    def remark(self, values: Mapping[str, float]) -> Optional[str]:
        """When ``thermal_alpha`` is more than :data:`COPPER_TOLERANCE` (relative) from copper's:
        the data insisted (issue 31: searched near copper's unless they do)."""
        alpha = float(values[ALPHA.name])
        ratio = alpha / ALPHA.default
        if abs(ratio - 1.0) <= COPPER_TOLERANCE:
            return None
        way = "faster" if ratio > 1 else "slower"
        return (f"thermal_alpha {alpha:.4g} /K is {ratio:.2f}x copper's {ALPHA.default} /K: the logs ask the winding's "
                f"resistance to rise {way} with its temperature than copper's does, so it stands in for more than "
                f"the copper (e.g. the magnets' weakening as they warm) or for an error in the temperature it follows.")


def case_temperature(state: Any) -> Value:
    """What the servo's ``temp`` register reads [degC]: the case node."""
    return state[1]


def register_temperature(nodes: Optional[Tuple[float, float]], setting: Optional[float]) -> float:
    """What a simulated servo's temperature register reads [degC]: the case node of a model
    carrying ``thermal`` (``nodes``: winding, case), else the servo's temperature ``setting``
    (what a ``heating`` model assumes), NaN where there is neither."""
    if nodes is not None:
        return float(case_temperature(nodes))
    return math.nan if setting is None else float(setting)


THERMAL_ADDITION = Thermal()

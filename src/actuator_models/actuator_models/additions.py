"""Model additions: what real servos do and M1-M6 leave out, as optional identifiable parameters.

Any model (M1-M6, Dahl) may carry them; a params file without their key carries none, and the
simulation then runs exactly the published step (bit for bit). Each one is a parameter like
the others (searched by CMA-ES, written to params files); ``actuator-models fit --additions``
keeps one only where cross-validation says it predicts held-out logs better
(:mod:`.addition_selection`).

``latency`` [s] — a **transport delay of the commands**: the goal position and the torque
enable reach the firmware ``latency`` late. On a bench the host writes goals over a serial bus
(or EtherCAT) and reads the position back the same way; both delays lie outside the servo's own
position loop, and for a time-invariant plant delaying every input by ``d`` is delaying the
response by ``d``: one parameter stands for the command and the read-back delay together. In
the log's time base (step ``dt``), with ``d = latency / dt``, ``n = floor(d)``, ``f = d - n``::

    goal_k   = goal[k - n] + f (goal[k - n - 1] - goal[k - n])     (linear interpolation)
    enable_k = enable[k - ceil(d)]                                   (the last command sent)

with indices below 0 clamped to 0 (the first command holds before the log starts). The goal is
interpolated so that the cost is continuous in ``latency`` (a zero-order hold would make it a
staircase CMA-ES cannot descend); the enable is a switch, held.

``backlash`` [rad] — **gear play between the drive and the output** (the standard play, or
"deadzone", model): the simulated state ``(q, v)`` is the drive train (motor, gears and the
arm in contact, all the inertia as before); the output (the arm: where the encoder reads, where
gravity acts, what the log records) stays where it is until the drive has crossed the play::

    q_out <- clip(q_out, q - backlash / 2, q + backlash / 2)         (after each step)

starting centred (``q_out = q``). The firmware's control law and the gravity torque see
``q_out``; the motor's back-EMF and the friction see the drive's velocity ``v``. The output is
kinematic (held by its friction while in the gap): this does not model an output that gravity
throws across the gap.

``heating`` [1/K] — **the winding resistance follows the servo's temperature**: the motor's
``R`` is identified at :data:`REFERENCE_TEMPERATURE` (25 degC) and at a logged temperature ``T``
[degC] (the ``temp`` column the servos report) it is::

    R(T) = R (1 + heating (T - 25))

(copper: 0.0039 per kelvin of the winding; the servo reports the temperature of its case or
board, which rises less than the winding's, so the coefficient per kelvin of the reading is
fitted, bounded by 0.05). Everything ``R`` enters (drive torque ``kt V / R``, back-EMF damping
``kt^2 v / R``) follows. A log without a temperature column is simulated at 25 degC; the step-by-step
simulators (:class:`~actuator_models.simulation.PendulumSimulator`, MuJoCo) take the temperature
as a setting (default 25 degC: the identified ``R``).

Frames and units: rad, rad/s, s, degC, as the rest of :mod:`actuator_models`.
"""

from __future__ import annotations

from collections import deque
from typing import Deque, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from .parameters import Parameter, Value, clip

LATENCY = Parameter("latency", 0.0, 0.0, 0.05, "s", "transport delay of goal and torque-enable commands", "td")
BACKLASH = Parameter("backlash", 0.0, 0.0, 0.1, "rad", "gear play between drive and output", "bl")
HEATING = Parameter("heating", 0.0, 0.0, 0.05, "1/K", "winding resistance rise per kelvin of the logged temperature",
                    "aR")
#: The additions by name, in the order they are listed everywhere.
ADDITIONS: Dict[str, Parameter] = {p.name: p for p in (LATENCY, BACKLASH, HEATING)}
#: The temperature [degC] at which a model's ``R`` is identified (``heating``'s reference).
REFERENCE_TEMPERATURE = 25.0
#: The smallest span [K] of logged temperatures from which ``heating`` can be told apart from ``R``.
HEATING_SPAN = 2.0


def check_additions(names: Sequence[str], source: str = "--additions") -> Tuple[str, ...]:
    """Names validated against :data:`ADDITIONS`, in their canonical order; ``source`` names the
    option or file in the error."""
    for name in names:
        if name not in ADDITIONS:
            raise ValueError(f"{source}: {name!r} is not an addition; expected one of {', '.join(ADDITIONS)}")
    return tuple(name for name in ADDITIONS if name in names)


def carried(values: Mapping[str, object]) -> Tuple[str, ...]:
    """The additions a set of parameter values carries (those whose key is present)."""
    return tuple(name for name in ADDITIONS if name in values)


def delay_steps(latency: Value, dt: Value) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(n, f, n_enable)``: whole steps, fraction and whole steps of the held enable of a delay
    of ``latency`` [s] at step ``dt`` [s] (arrays, broadcast)."""
    delay = np.asarray(latency / dt, dtype=float)
    whole = np.floor(delay)
    fraction = delay - whole
    return whole.astype(np.int64), fraction, (whole + (fraction > 0)).astype(np.int64)


def delayed_commands(goal: np.ndarray, enable: np.ndarray, k: int, delay: Tuple[np.ndarray, np.ndarray, np.ndarray]
                     ) -> Tuple[np.ndarray, np.ndarray]:
    """The goal [rad] and torque enable the firmware sees at step ``k`` of logs ``goal``,
    ``enable`` (shape ``(L, T)``) with a delay from :func:`delay_steps` (shape ``(L,)`` or
    ``(P, L)``); see the module docstring."""
    whole, fraction, held = delay
    rows = np.arange(goal.shape[0])
    at = np.maximum(k - whole, 0)
    before = np.maximum(k - whole - 1, 0)
    g0 = goal[rows, at]
    return g0 + fraction * (goal[rows, before] - g0), enable[rows, np.maximum(k - held, 0)]


def play(q_out: Value, q: Value, backlash: Value) -> Value:
    """The output position [rad] after the drive moved to ``q`` [rad]: unchanged while within
    the play ``backlash`` [rad], else dragged at its edge."""
    half = 0.5 * backlash
    return clip(q_out, q - half, q + half)


class CommandDelay:
    """The latency for step-by-step simulators: commands pushed every step (of constant ``dt``)
    come out ``latency`` [s] later, with the same arithmetic as :func:`delayed_commands`."""

    def __init__(self, latency: float) -> None:
        self.latency = float(latency)
        self._goals: Deque[float] = deque()
        self._enables: Deque[bool] = deque()

    def push(self, goal: float, enable: bool, dt: float) -> Tuple[float, bool]:
        """Send this step's command; returns the one the firmware sees now."""
        steps = delay_steps(self.latency, dt)
        whole, fraction, held = int(steps[0]), float(steps[1]), int(steps[2])
        self._goals.append(float(goal))
        self._enables.append(bool(enable))
        while len(self._goals) > whole + 2:
            self._goals.popleft()
            self._enables.popleft()
        last = len(self._goals) - 1

        def back(items: Deque, count: int) -> object:
            return items[max(last - count, 0)]

        g0 = back(self._goals, whole)
        return g0 + fraction * (back(self._goals, whole + 1) - g0), bool(back(self._enables, held))  # type: ignore[operator]


def heated(values: Mapping[str, Value], temperature: Optional[Value]) -> Mapping[str, Value]:
    """Parameter values with ``R`` at ``temperature`` [degC] (a float or an array broadcast with
    the values) when they carry ``heating``; else (or for ``temperature`` None) ``values`` itself."""
    if "heating" not in values or temperature is None:
        return values
    return {**values, "R": values["R"] * (1.0 + values["heating"] * (temperature - REFERENCE_TEMPERATURE))}


def carried_by_default(temperatures: Sequence[Optional[np.ndarray]]) -> Tuple[str, ...]:
    """The additions a fit carries from the start unless told otherwise (``fit --carry auto``):
    ``heating`` when every log records its temperature [degC] (``temperatures``, one array or
    None per log) and the records span :data:`HEATING_SPAN` or more; else none."""
    if not temperatures or any(t is None or len(t) == 0 for t in temperatures):
        return ()
    span = max(float(np.max(t)) for t in temperatures) - min(float(np.min(t)) for t in temperatures)  # type: ignore[arg-type]
    return ("heating",) if span >= HEATING_SPAN else ()


def describe(values: Mapping[str, float]) -> str:
    """``"latency 4.2 ms, backlash 0.012 rad, heating 1.5 %/K"`` or ``"none"``."""
    parts = []
    if "latency" in values:
        parts.append(f"latency {1000 * float(values['latency']):.3g} ms")
    if "backlash" in values:
        parts.append(f"backlash {float(values['backlash']):.3g} rad")
    if "heating" in values:
        parts.append(f"heating {100 * float(values['heating']):.3g} %/K")
    return ", ".join(parts) or "none"


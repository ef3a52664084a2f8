"""The spring-loaded inverted pendulum (SLIP) runner of the SimSect manual, section 4.

Frame: x forward, y up [m], ground at y = 0. State (manual 4.3.1)
``[x, y, xd, yd, foot_x, foot_y, theta]``: body position [m] and velocity [m/s] (continuous),
foot position [m] and touchdown angle theta [rad] (bookkeeping, changed only at transitions;
theta > 0 places the foot ahead of the body: foot = body + q_rt (sin theta, -cos theta)).

Charts ASCENT -> DESCENT -> COMPRESSION -> DECOMPRESSION -> ASCENT with the boundaries of 4.2
(apex ``yd``, touchdown ``y - q_rt cos theta``, maximal compression ``-d(q_r)/dt``, liftoff
``q_rl - q_r``), all located on their RIGHT side as in the manual's listing.

Spring law (manual eq. 1): ``U(q_r) = k / |i j| * (-sgn(j) (q_r^j - q_0^j))^i``; (i, j) = (1, -2)
gives ``U = k/2 (q_r^-2 - q_0^-2)`` and a leg force ``-dU/dq_r = k q_r^-3`` > 0.

Sign choice: the text of 4.1 writes ``xdd = D U sin(theta) / m``, which with ``D U < 0`` would
pull the body towards the foot; the listing of 4.3.6 uses ``force = -D U`` and pushes the body
away from the foot along the leg. We follow the physics and the listing (a leg spring pushes).

Initial chart (manual 4.3.5): with the leg at q_rt and angle theta, a toe below ground starts in
stance with the foot at ``(x + y tan theta, 0)``; the listing then computes the leg-length rate
from the body position about the origin, which is only right when the foot is at x = 0: we use
the leg vector from the foot. Liftoff (4.3.8) sets theta to the liftoff leg angle, which makes
every later stance the mirror image of the previous one (neutrally stable symmetric orbits).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Dict, Mapping, Optional, Sequence, Union

import numpy as np

from .model import Boundary, HybridModel, Side, Transition

ASCENT, DESCENT, COMPRESSION, DECOMPRESSION = range(4)
CHART_NAMES = ("ASCENT", "DESCENT", "COMPRESSION", "DECOMPRESSION")
STATE_NAMES = ("x", "y", "xd", "yd", "foot_x", "foot_y", "theta")
STATE_UNITS = MappingProxyType({"x": "m", "y": "m", "xd": "m/s", "yd": "m/s", "foot_x": "m", "foot_y": "m",
                                "theta": "rad"})
#: the manual's state names (4.3.1) accepted as aliases
STATE_ALIASES = {"xdot": "xd", "ydot": "yd", "footx": "foot_x", "footy": "foot_y", "touchdown_angle": "theta"}
#: the manual's default initial state (4.3.4): mid-stance, leg vertical, 1 m/s forward
DEFAULT_INITIAL = (0.0, 0.9, 1.0, 0.0, 0.0, 0.0, 0.0)


@dataclass(frozen=True)
class SlipParameters:
    """Manual 4.3.2 and the defaults of 4.3.4 (names as the manual's symbols)."""

    body_mass: float = 50.48  # [kg]
    q_rt: float = 1.0  # touchdown leg length [m]
    q_rl: float = 1.0  # liftoff leg length [m]
    g_stance: float = 10.0  # [m/s^2]
    g_flight: float = 10.0  # [m/s^2]
    q_0: float = 1.0  # spring rest length q_r0 [m]
    spri: float = 1.0  # spring law exponent i
    sprj: float = -2.0  # spring law exponent j
    k: float = 1000.0  # spring constant; for (1, -2) the leg force is k / q_r^3 [N]

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not math.isfinite(value):
                raise ValueError(f"slip parameter {name} = {value!r} is not finite")
        for name in ("body_mass", "q_rt", "q_rl", "q_0", "k", "g_stance", "g_flight"):
            if getattr(self, name) <= 0.0:
                raise ValueError(f"slip parameter {name} = {getattr(self, name)!r} must be > 0")
        if self.spri == 0.0 or self.sprj == 0.0:
            raise ValueError(f"slip parameters spri, sprj = {self.spri!r}, {self.sprj!r} must be non-zero")


def spring_potential(q_r: float, p: SlipParameters) -> float:
    """``U_(i,j)(q_r)`` of manual eq. 1 [J]; zero at the rest length q_0."""
    s = -math.copysign(1.0, p.sprj) * (q_r ** p.sprj - p.q_0 ** p.sprj)
    return p.k / abs(p.spri * p.sprj) * s ** p.spri


def spring_force(q_r: float, p: SlipParameters) -> float:
    """Leg force ``-dU/dq_r`` [N], positive pushing the body away from the foot."""
    s = -math.copysign(1.0, p.sprj) * (q_r ** p.sprj - p.q_0 ** p.sprj)
    ds = -abs(p.sprj) * q_r ** (p.sprj - 1.0)
    return -p.k / abs(p.spri * p.sprj) * p.spri * s ** (p.spri - 1.0) * ds


class Slip(HybridModel):
    """The SLIP hybrid model (see the module docstring for frames, charts and choices)."""

    state_names = STATE_NAMES
    state_units = STATE_UNITS
    n_continuous = 4
    chart_names = CHART_NAMES

    def __init__(self, params: SlipParameters = SlipParameters()) -> None:
        self.p = params

    def parameters(self) -> Mapping[str, float]:
        return asdict(self.p)

    # ----------------------------------------------------------------- geometry
    @staticmethod
    def leg(x: np.ndarray) -> tuple:
        """Leg vector foot -> body [m], its length q_r [m] and its rate d(q_r)/dt [m/s]."""
        legx, legy = x[0] - x[4], x[1] - x[5]
        rho = math.hypot(legx, legy)
        return legx, legy, rho, (legx * x[2] + legy * x[3]) / rho

    def energy(self, x: np.ndarray, chart: int) -> float:
        """Total mechanical energy [J]: kinetic + gravity (+ spring in stance)."""
        kinetic = 0.5 * self.p.body_mass * (x[2] ** 2 + x[3] ** 2)
        if chart in (COMPRESSION, DECOMPRESSION):
            return kinetic + self.p.body_mass * self.p.g_stance * x[1] + spring_potential(self.leg(x)[2], self.p)
        return kinetic + self.p.body_mass * self.p.g_flight * x[1]

    # ----------------------------------------------------------------- hybrid model
    def vector_field(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        if chart in (ASCENT, DESCENT):
            return np.array([x[2], x[3], 0.0, -self.p.g_flight])
        legx, legy, rho, _ = self.leg(x)
        force = spring_force(rho, self.p)
        return np.array([x[2], x[3], force * legx / rho / self.p.body_mass,
                         force * legy / rho / self.p.body_mass - self.p.g_stance])

    def boundaries(self, chart: int) -> Sequence[Boundary]:
        return (Boundary(chart, Side.RIGHT),)

    def boundary(self, t: float, x: np.ndarray, chart: int, index: int) -> float:
        if index == ASCENT:
            return float(x[3])
        if index == DESCENT:
            return float(x[1] - self.p.q_rt * math.cos(x[6]))
        _, _, rho, rho_dot = self.leg(x)
        return -rho_dot if index == COMPRESSION else self.p.q_rl - rho

    def transition(self, t: float, x: np.ndarray, chart: int, index: int) -> Transition:
        new = np.array(x, dtype=float)
        if chart == DESCENT:
            new[4] = x[0] + self.p.q_rt * math.sin(x[6])
            new[5] = x[1] - self.p.q_rt * math.cos(x[6])
        elif chart == DECOMPRESSION:
            legx, legy, _, _ = self.leg(x)
            new[6] = math.atan2(legx, legy)
        return Transition((chart + 1) % 4, new)

    def initial_chart(self, t: float, x: np.ndarray) -> Transition:
        new = np.array(x, dtype=float)
        if x[1] - self.p.q_rt * math.cos(x[6]) < 0.0:
            new[4], new[5] = x[0] + x[1] * math.tan(x[6]), 0.0
            return Transition(COMPRESSION if self.leg(new)[3] < 0.0 else DECOMPRESSION, new)
        return Transition(ASCENT if x[3] > 0.0 else DESCENT, new)

    def validate(self, t: float, x: np.ndarray, chart: int) -> Optional[str]:
        return "body toppled over (y < 0)" if x[1] < 0.0 else None

    def aux_names(self):
        return ("t", "x", "y", "xd", "yd", "energy")

    def auxiliary(self, t: float, x: np.ndarray, chart: int) -> np.ndarray:
        return np.array([t, x[0], x[1], x[2], x[3], self.energy(x, chart)])


def initial_state(overrides: Mapping[str, float]) -> np.ndarray:
    """The manual's default initial state with some states replaced by name (or manual alias)."""
    state = dict(zip(STATE_NAMES, DEFAULT_INITIAL))
    for name, value in overrides.items():
        key = STATE_ALIASES.get(name, name)
        if key not in state:
            raise ValueError(f"--initial: unknown state {name!r}; states: {', '.join(STATE_NAMES)}")
        state[key] = float(value)
    if not state["y"] > 0.0:
        raise ValueError(f"--initial: y = {state['y']!r} m: the body must be above the ground (y > 0)")
    return np.array([state[n] for n in STATE_NAMES])


def state_dict(x: Union[Sequence[float], np.ndarray]) -> Dict[str, float]:
    return dict(zip(STATE_NAMES, map(float, x)))

"""An independent integration of the Dahl ODE (eq. 10) for the Dahl tests: scipy's DOP853 at
tight tolerance, segment by segment between the reversals of x (where |dx/dt| has a kink).
It shares no code with ``actuator_models.dahl`` (no exact update, no closed form)."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
from scipy.integrate import solve_ivp


def dahl_ode_force(
    t: np.ndarray, xdot: Callable[[float], float], fc: float, rho: float,
    w0: float = 0.0, reversals: Sequence[float] = (),
) -> np.ndarray:
    """Force F = Fc w at the times ``t`` for a displacement of velocity ``xdot(t)``."""
    edges = [t[0], *[r for r in reversals if t[0] < r < t[-1]], t[-1]]
    w = np.empty_like(t, dtype=float)
    state = w0
    for a, b in zip(edges[:-1], edges[1:]):
        inside = (t >= a) & (t <= b)

        def rhs(s: float, y: np.ndarray) -> np.ndarray:
            v = xdot(s)
            return rho * (v - abs(v) * y)

        solution = solve_ivp(rhs, (a, b), [state], method="DOP853", rtol=1e-12, atol=1e-14, dense_output=True)
        if inside.any():
            w[inside] = solution.sol(t[inside])[0]
        state = float(solution.sol(b)[0])
    return fc * w


def cosine_record(amplitude: float, omega: float, fc: float, rho: float, periods: float = 6, dt: float = 0.01):
    """x = -A cos(omega t) (wave periodic, T = 2 pi / omega) and its Dahl force from w(0) = 0."""
    period = 2 * np.pi / omega
    t = np.arange(0.0, periods * period, dt * period / (2 * np.pi))
    x = -amplitude * np.cos(omega * t)
    force = dahl_ode_force(t, lambda s: amplitude * omega * np.sin(omega * s), fc, rho,
                           reversals=[k * period / 2 for k in range(1, int(2 * periods) + 1)])
    return t, x, force


def ramp_record(velocity: float, fc: float, rho: float, duration: float, dt: float = 0.01, w0: float = 0.0):
    """x = v t (constant velocity) and its Dahl force from ``w0``."""
    t = np.arange(0.0, duration, dt)
    return t, velocity * t, dahl_ode_force(t, lambda s: velocity, fc, rho, w0)

"""Stage 2 of the Dahl identification: ``rho`` from one steady-state period of the loop, by the
paper's closed forms (eqs. 39, 40, 41: the force at Xmin, at Xmax and at the loop's midpoint) and
by a least-squares fit of eq. 35 over the loading branch (our extension), and the conditioning of
eqs. 39 and 40. Pure functions of floats and arrays; units of ``x`` [rad or m] and ``F`` [N m or N]
as the records'.
"""

from __future__ import annotations

import math

import numpy as np

from .dahl import steady_loading_force


def rho_from_xmin(f_min: float, fc: float, x_min: float, x_max: float) -> float:
    """Eq. 39: ``rho = ln((1 + F(Xmin)/Fc) / (1 - F(Xmin)/Fc)) / (Xmin - Xmax)``; NaN when
    ``|F(Xmin)| >= Fc`` (outside the model's range, e.g. by noise)."""
    r = f_min / fc
    if not -1.0 < r < 1.0:
        return math.nan
    return math.log((1.0 + r) / (1.0 - r)) / (x_min - x_max)


def rho_from_xmax(f_max: float, fc: float, x_min: float, x_max: float) -> float:
    """Eq. 40: ``rho = ln((1 - F(Xmax)/Fc) / (1 + F(Xmax)/Fc)) / (Xmin - Xmax)``; NaN outside
    ``|F(Xmax)| < Fc``."""
    r = f_max / fc
    if not -1.0 < r < 1.0:
        return math.nan
    return math.log((1.0 - r) / (1.0 + r)) / (x_min - x_max)


def rho_from_midpoint(f_mid: float, fc: float, x_min: float, x_max: float) -> float:
    """Eq. 41: with ``g = 1 - F(Xmid)/Fc``, ``rho = 2 ln((1 - sqrt(1 - g^2)) / g) / (Xmin - Xmax)``;
    NaN outside ``0 < g <= 1``."""
    g = 1.0 - f_mid / fc
    if not 0.0 < g <= 1.0:
        return math.nan
    return 2.0 * math.log((1.0 - math.sqrt(1.0 - g * g)) / g) / (x_min - x_max)


def fit_loading_branch(x: np.ndarray, force: np.ndarray, fc: float, x_min: float, x_max: float, rho0: float) -> float:
    """Least-squares ``rho`` of eq. 35 over loading-branch samples ``(x, F)`` (our extension).

    Minimises ``sum (F - Fc (1 - a(rho) exp(-rho (x - Xmin))))^2`` over ``log rho`` (so rho
    stays positive), from ``rho0``, with scipy's trust-region least squares (scipy is imported
    here, not at module level: every ``actuator-models`` command imports this module through
    the CLI, and scipy.optimize alone costs about 0.8 s of start-up).
    """
    from scipy.optimize import least_squares

    def residual(log_rho: np.ndarray) -> np.ndarray:
        return steady_loading_force(x, fc, math.exp(log_rho[0]), x_min, x_max) - force

    start = math.log(rho0) if math.isfinite(rho0) and rho0 > 0 else -math.log(x_max - x_min)
    solution = least_squares(residual, [start], xtol=1e-14, ftol=1e-14, gtol=1e-14)
    return float(math.exp(solution.x[0]))


def conditioning(rho: float, x_min: float, x_max: float) -> float:
    """Condition number of eqs. 39 and 40: |d ln rho / d ln F| at the loop's ends, sinh(u) / u with
    u = rho (Xmax - Xmin) (F(Xmin)/Fc = -tanh(u/2), eq. 35). A relative force error e there moves
    rho by this times e: 1.8 for the paper's u = 2, 3e7 for u = 21."""
    u = rho * (x_max - x_min)
    if not math.isfinite(u) or u <= 0.0:
        return math.nan
    return math.sinh(u) / u if u < 700.0 else math.inf

"""The Dahl model of presliding friction (García-Baños and Ikhouane, eqs. 6-10 and 18-19).

With ``i = 1`` the model is, for a displacement ``x`` (rad or m) and the friction force ``F``
(N m or N) that the contact exerts *against* the motion::

    F = Fc w,        dw/dt = rho (dx/dt - |dx/dt| w),        |w(0)| <= 1

``Fc`` is the Coulomb level (N m), ``rho = sigma / Fc`` (1/rad) the rest stiffness ``sigma``
(N m/rad) over ``Fc``, ``w`` the dimensionless internal state. ``F`` has the sign of the
velocity: the torque on the joint is ``-F``.

Over a displacement ``dx`` of one sign the ODE integrates exactly (eq. 18)::

    w+ = s - (s - w) exp(-rho |dx|),      s = sign(dx)

which depends only on the displacement, not on the time step: it is stable for any step and
keeps ``|w| <= 1``. Explicit Euler (``w+ = w + rho (dx - |dx| w)``) is unstable once
``rho |dx| > 2`` (:func:`euler_update`, kept to show it).

All functions are pure and vectorised (floats or numpy arrays of broadcastable shapes).
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .parameters import Value


def dahl_update(w: Value, dx: Value, rho: Value) -> Value:
    """State after a monotone displacement ``dx`` [rad] (eq. 18), exact for any step size.

    Args:
        w: state before the step (dimensionless, ``|w| <= 1``).
        dx: displacement over the step [rad], of one sign within the step.
        rho: ``sigma / Fc`` [1/rad], > 0.
    """
    s = np.sign(dx)
    return s - (s - w) * np.exp(-rho * np.abs(dx))


def euler_update(w: Value, dx: Value, rho: Value) -> Value:
    """Explicit Euler step of eq. 10 over ``dx`` [rad]: ``w + rho (dx - |dx| w)``.

    Only for comparison: it overshoots ``sign(dx)`` and diverges once ``rho |dx| > 2``.
    """
    return w + rho * (dx - np.abs(dx) * w)


def dahl_torque(w: Value, fc: Value) -> Value:
    """Torque the friction applies to the joint [N m]: ``-Fc w`` (it opposes the motion)."""
    return -fc * w


def dahl_step(w: Value, dx: Value, rho: Value, v0: Value, v1: Value, dt: Value) -> Value:
    """State after one time step [dt s] of displacement ``dx`` [rad] from velocity ``v0`` to
    ``v1`` [rad/s].

    When ``v0`` and ``v1`` have opposite signs the motion reversed inside the step, which is
    then not monotone: it is split at the reversal, placed as under a constant acceleration
    (``dx1 = dt v0^2 / (2 (v0 - v1))`` before it, ``dx - dx1`` after), and :func:`dahl_update`
    is applied to each part. Otherwise it is :func:`dahl_update` over ``dx``.
    """
    reverses = v0 * v1 < 0
    gap = np.where(reverses, v0 - v1, 1.0)
    before = np.where(reverses, dt * v0 * v0 / (2.0 * gap), 0.0)  # has the sign of v0
    return dahl_update(dahl_update(w, before, rho), dx - before, rho)


def dahl_states(
    x: np.ndarray, rho: float, w0: float = 0.0, v: Optional[np.ndarray] = None, dt: Optional[float] = None
) -> np.ndarray:
    """State ``w`` along a sampled displacement ``x`` [rad] (1-D), starting at ``w0``.

    Without velocities each sample interval is taken as monotone (exact per eq. 18 for
    piecewise-monotone inputs whose reversals fall on samples). With the sampled velocity ``v``
    [rad/s] and the sample step ``dt`` [s], intervals where the motion reverses are split at the
    reversal (:func:`dahl_step`).
    """
    x = np.asarray(x, dtype=float)
    if not -1.0 <= w0 <= 1.0:
        raise ValueError(f"initial Dahl state w0 = {w0} is outside [-1, 1] (eq. 11)")
    w = np.empty_like(x)
    w[0] = w0
    steps = np.diff(x)
    if v is None:
        for k in range(len(steps)):
            w[k + 1] = dahl_update(w[k], steps[k], rho)
    else:
        if dt is None:
            raise ValueError("dt is needed with velocities")
        for k in range(len(steps)):
            w[k + 1] = dahl_step(w[k], steps[k], rho, v[k], v[k + 1], dt)
    return w


def steady_loading_force(x: Value, fc: float, rho: float, x_min: float, x_max: float) -> Value:
    """Steady-state force on the loading branch (eq. 35) [N m]:
    ``Fc (1 - a exp(-rho (x - Xmin)))`` with ``a = 2 / (1 + exp(-rho (Xmax - Xmin)))`` (eq. 30)."""
    a = 2.0 / (1.0 + np.exp(-rho * (x_max - x_min)))
    return fc * (1.0 - a * np.exp(-rho * (np.asarray(x) - x_min)))


def steady_unloading_force(x: Value, fc: float, rho: float, x_min: float, x_max: float) -> Value:
    """Steady-state force on the unloading branch (eq. 36) [N m]:
    ``Fc (-1 + a exp(rho (x - Xmax)))``."""
    a = 2.0 / (1.0 + np.exp(-rho * (x_max - x_min)))
    return fc * (-1.0 + a * np.exp(rho * (np.asarray(x) - x_max)))

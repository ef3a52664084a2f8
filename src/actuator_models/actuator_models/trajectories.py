"""The four identification trajectories (paper section V-A), 6 s each.

A trajectory gives the goal position [rad] and torque enable as functions of time [s]. The
functions accept floats or numpy arrays. Names are those of the published logs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Tuple

import numpy as np

from .parameters import Value


def cubic(t: Value, t0: float, t1: float, q0: float, q1: float) -> Value:
    """Cubic from ``q0`` at ``t0`` to ``q1`` at ``t1`` with zero end velocities [rad]."""
    s = np.clip((np.asarray(t, dtype=float) - t0) / (t1 - t0), 0.0, 1.0)
    return q0 + (q1 - q0) * (3 * s**2 - 2 * s**3)


def _sin_time_square(t: Value) -> Value:
    return np.sin(np.asarray(t, dtype=float) ** 2)


def _sin_sin(t: Value) -> Value:
    t = np.asarray(t, dtype=float)
    return np.pi / 2 * np.sin(t) + 0.5 * np.sin(5 * t) * np.sin(2 * t)


def _up_and_down(t: Value) -> Value:
    t = np.asarray(t, dtype=float)
    return np.where(t < 3.0, cubic(t, 0.0, 3.0, 0.0, np.pi / 2), cubic(t, 3.0, 6.0, np.pi / 2, 0.8 * np.pi / 2))


def _lift_and_drop(t: Value) -> Value:
    return cubic(t, 0.0, 2.0, 0.0, -np.pi / 2)


def _always_on(t: Value) -> Value:
    return np.ones_like(np.asarray(t, dtype=float), dtype=bool)


def _on_until_2s(t: Value) -> Value:
    return np.asarray(t, dtype=float) <= 2.0


@dataclass(frozen=True)
class Trajectory:
    """A named identification trajectory.

    Attributes:
        name: name used in logs (``"sin_time_square"`` ...).
        description: one line.
        goal: goal position [rad] as a function of time [s].
        enable: torque enable as a function of time [s].
        duration: length [s].
    """

    name: str
    description: str
    goal: Callable[[Value], Value]
    enable: Callable[[Value], Value]
    duration: float = 6.0

    def __call__(self, t: Value) -> Tuple[Value, Value]:
        """``(goal_position [rad], torque_enable)`` at time ``t`` [s]."""
        return self.goal(t), self.enable(t)

    def sample(self, dt: float) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(t, goal, enable)`` sampled every ``dt`` [s] over the whole duration."""
        t = np.arange(int(round(self.duration / dt)) + 1) * dt
        return t, np.asarray(self.goal(t)), np.asarray(self.enable(t))


TRAJECTORIES: Dict[str, Trajectory] = {
    tr.name: tr
    for tr in (
        Trajectory("sin_time_square", "accelerated oscillations: sin(t^2)", _sin_time_square, _always_on),
        Trajectory(
            "sin_sin",
            "slow oscillations with sub-oscillations: (pi/2) sin(t) + 0.5 sin(5t) sin(2t)",
            _sin_sin,
            _always_on,
        ),
        Trajectory(
            "up_and_down",
            "raise to pi/2 in 3 s, lower slowly to 0.8 pi/2 at 6 s (cubic, zero end velocities)",
            _up_and_down,
            _always_on,
        ),
        Trajectory(
            "lift_and_drop",
            "lift to -pi/2 in 2 s (cubic), then torque released",
            _lift_and_drop,
            _on_until_2s,
        ),
    )
}


def trajectory(name: str) -> Trajectory:
    """Look an identification trajectory up by name."""
    try:
        return TRAJECTORIES[name]
    except KeyError:
        raise ValueError(
            f"unknown trajectory {name!r}; expected one of {', '.join(TRAJECTORIES)}"
        ) from None

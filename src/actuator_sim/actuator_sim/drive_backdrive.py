"""Drive/backdrive limits of a friction model (paper section II-C, Fig. 2 and 4).

A motor torque ``tm >= 0`` [N m] faces an opposing external load ``L = -te >= 0`` [N m]. The
joint is driven (moves with ``tm``) when ``tm - L > tau_fm(tm, -L, v)`` and backdriven (moves
with the load) when ``L - tm > tau_fm(tm, -L, v)``; in between friction holds it. For each
``tm`` the drive torque is the largest load still driven and the backdrive torque the
smallest load that backdrives; with velocity ``v`` [rad/s] the budget of a moving joint is used
(one curve per velocity, as the paper's lighter lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from actuator_models.model import Model


@dataclass(frozen=True)
class DriveBackdrive:
    """Drive/backdrive limits on a grid.

    Attributes:
        motor_torque: ``(N,)`` [N m]. velocities: ``(V,)`` [rad/s].
        drive, backdrive: ``(V, N)`` loads ``-te`` [N m]; NaN where the grid has none.
    """

    motor_torque: np.ndarray
    velocities: np.ndarray
    drive: np.ndarray
    backdrive: np.ndarray


def stall_torque(model: Model, vin: float | None = None) -> float:
    """Largest motor torque [N m] the actuator produces at rest (saturated control law)."""
    act, values = model.actuator, model.values
    vin = act.default_vin if vin is None else vin
    control = act.control(1e3, 0.0, 0.0, 1e3, vin)
    return float(act.torque(control, True, 0.0, values, vin))


def drive_backdrive(
    model: Model,
    max_torque: float,
    velocities: Sequence[float] = (0.0, 1.0, 2.0, 3.0),
    points: int = 400,
) -> DriveBackdrive:
    """Drive and backdrive loads for motor torques in ``[0, max_torque]`` [N m].

    Loads are searched on a grid up to ``3 max_torque`` with ``4 points`` samples.
    """
    tm = np.linspace(0.0, max_torque, points)
    load = np.linspace(0.0, 3.0 * max_torque, 4 * points)
    tm_grid, load_grid = np.meshgrid(tm, load, indexing="ij")
    drive = np.full((len(velocities), points), np.nan)
    backdrive = np.full((len(velocities), points), np.nan)
    for row, v in enumerate(velocities):
        budget = model.friction.budget(tm_grid, -load_grid, v, model.values)
        driven = tm_grid - load_grid > budget
        backdriven = load_grid - tm_grid > budget
        any_driven, any_back = driven.any(axis=1), backdriven.any(axis=1)
        last_driven = len(load) - 1 - np.argmax(driven[:, ::-1], axis=1)
        drive[row, any_driven] = load[last_driven[any_driven]]
        backdrive[row, any_back] = load[np.argmax(backdriven, axis=1)[any_back]]
    return DriveBackdrive(tm, np.asarray(velocities, dtype=float), drive, backdrive)

"""Synthetic pendulum-bench logs: the four identification trajectories played on a model.

A synthetic log has the published log format: the commands of a trajectory
(:func:`command_log`) and, as measurements, positions simulated by the reference simulator
(:func:`synthetic_log`) or by any other simulator (:func:`recorded`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Sequence

import numpy as np

from actuator_models.actuators import actuator
from actuator_models.logs import Log
from actuator_models.model import Model
from actuator_models.simulation import simulate_logs
from actuator_models.trajectories import TRAJECTORIES, trajectory


def command_log(
    actuator_name: str,
    trajectory_name: str,
    mass: float,
    length: float,
    kp: float,
    arm_mass: float = 0.0,
    vin: Optional[float] = None,
    dt: float = 0.005,
) -> Log:
    """A processed log holding only the commands of ``trajectory_name`` (goal position, torque
    enable) for a pendulum (``mass`` [kg] at ``length`` [m], ``arm_mass`` [kg]) at gain ``kp`` and
    supply ``vin`` [V] (the actuator's default if None); positions and speeds are 0."""
    t, goal, enable = trajectory(trajectory_name).sample(dt)
    return Log(
        mass=mass, length=length, kp=kp, timestamp=t, position=np.zeros_like(t), speed=np.zeros_like(t),
        goal_position=goal, torque_enable=np.asarray(enable, dtype=bool), arm_mass=arm_mass,
        vin=actuator(actuator_name).default_vin if vin is None else vin, motor=actuator_name,
        trajectory=trajectory_name, dt=dt,
        source=f"{trajectory_name}_m{mass:g}_l{length:g}_kp{kp:g}.json",
    )


def recorded(log: Log, positions: np.ndarray) -> Log:
    """``log`` with simulated ``positions`` [rad] as its measurements (speed: their gradient,
    0 at the start where the bench is at rest)."""
    speed = np.gradient(positions, log.dt)
    speed[0] = 0.0
    return replace(log, position=np.asarray(positions, dtype=float), speed=speed)


def synthetic_log(
    model: Model,
    trajectory_name: str,
    mass: float,
    length: float,
    kp: float,
    arm_mass: float = 0.0,
    vin: Optional[float] = None,
    dt: float = 0.005,
    integrator: Optional[str] = None,
) -> Log:
    """A log of ``trajectory_name`` recorded on the reference simulator driven by ``model``
    (see :func:`command_log` for the arguments; ``integrator``: the model's own if None)."""
    blank = command_log(model.actuator.name, trajectory_name, mass, length, kp, arm_mass, vin, dt)
    return recorded(blank, simulate_logs(model, [blank], integrator)[0])


def synthetic_logs(
    model: Model,
    mass: float,
    length: float,
    kp: float,
    trajectories: Sequence[str] = tuple(TRAJECTORIES),
    **options: object,
) -> List[Log]:
    """:func:`synthetic_log` for each trajectory (the four identification ones by default)."""
    return [synthetic_log(model, name, mass, length, kp, **options) for name in trajectories]  # type: ignore[arg-type]

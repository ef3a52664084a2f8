"""Synthetic pendulum-bench logs: the four identification trajectories played on a model.

A synthetic log has the published log format; its "measured" positions are the reference
simulator's rollout of a model (the model's own integrator unless given), its speed the
gradient of those positions (0 at the start, where the bench is at rest).
"""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional, Sequence

import numpy as np

from actuator_models.logs import Log
from actuator_models.model import Model
from actuator_models.simulation import simulate_logs
from actuator_models.trajectories import TRAJECTORIES, trajectory


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
    """A processed log of ``trajectory_name`` on a pendulum (``mass`` [kg] at ``length`` [m],
    ``arm_mass`` [kg]) driven by ``model`` at gain ``kp`` and supply ``vin`` [V]."""
    t, goal, enable = trajectory(trajectory_name).sample(dt)
    vin = model.actuator.default_vin if vin is None else vin
    blank = Log(
        mass=mass, length=length, kp=kp, timestamp=t, position=np.zeros_like(t), speed=np.zeros_like(t),
        goal_position=goal, torque_enable=np.asarray(enable, dtype=bool), arm_mass=arm_mass, vin=vin,
        motor=model.actuator.name, trajectory=trajectory_name, dt=dt,
        source=f"synthetic:{model.name}:{trajectory_name}:m{mass}:l{length}:kp{kp}",
    )
    position = simulate_logs(model, [blank], integrator)[0]
    speed = np.gradient(position, dt)
    speed[0] = 0.0
    return replace(blank, position=position, speed=speed)


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

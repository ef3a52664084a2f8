"""A servo model's ratings: stall torque and no-load speed, the joint limits a robot description
gives (URDF ``<limit effort=... velocity=...>``).

Both come from the model itself, not a datasheet: the firmware's control signal saturated (a goal
far off at a very high gain: the Dynamixel and Feetech laws clip the duty at ``max_duty``, the
eRob law its current) through the motor law of :mod:`.actuators`, against the model's friction
with no external load. Stall torque: the motor torque at rest [N m] (what the servo pushes
against a blocked joint; the friction at rest is not subtracted: a blocked joint's load sees the
motor torque). No-load speed: the speed [rad/s] at which the saturated motor torque equals the
friction budget (the steady state of a free joint), bounded by the firmware's target speed
limit where the law has one (Feetech STS: ``target_speed_limit``). Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from scipy.optimize import brentq

from .model import Model

#: A goal [rad] and gain far beyond any servo's linear range: the control law saturates.
FAR_GOAL = 1e3
HIGH_GAIN = 1e6
#: Upper end of the speed search [rad/s]: above any servo's no-load speed.
SPEED_BRACKET = 1e4


@dataclass(frozen=True)
class Ratings:
    """stall_torque [N m] and no_load_speed [rad/s] of a servo model at a supply voltage."""

    stall_torque: float
    no_load_speed: float


def motor_torque(model: Model, v: float, vin: float) -> float:
    """Motor torque [N m] of the saturated control law (goal far ahead) at joint speed ``v``
    [rad/s] and supply ``vin`` [V], torque enabled."""
    actuator = model.actuator
    control = actuator.control(FAR_GOAL, 0.0, v, HIGH_GAIN, vin)
    return float(actuator.torque(control, 1.0, v, model.values, vin))


def ratings(model: Model, vin: float) -> Ratings:
    """Stall torque and no-load speed of ``model`` at supply ``vin`` [V] (see the module
    docstring); ValueError for a non-positive supply."""
    if not vin > 0:
        raise ValueError(f"vin {vin!r}: must be a positive supply voltage [V]")
    budget = model.friction.budget

    def surplus(v: float) -> float:  # drive torque left once the friction budget is paid
        torque = motor_torque(model, v, vin)
        return torque - float(budget(torque, 0.0, v, model.values))

    speed = 0.0 if surplus(0.0) <= 0 else float(brentq(surplus, 0.0, SPEED_BRACKET, xtol=1e-9))
    limit = model.values.get("target_speed_limit")
    return Ratings(motor_torque(model, 0.0, vin), speed if limit is None else min(speed, float(limit)))

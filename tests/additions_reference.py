"""Independent references for the model additions (latency, backlash, heating), shared by the rollout,
kernel, pendulum-simulator and MuJoCo tests.

Backlash, analytic case: no gravity (a negligible pendulum mass), no friction (M1 with zero
coefficients), the voltage law saturated (goal far away), the drive starting at rest: the motor
torque is ``a - c v`` with ``a = kt vin max_duty / R`` and ``c = kt^2 / R``, so the drive moves
``x(t) = (a / c) (t - tau (1 - exp(-t / tau)))``, ``tau = J / c``. The output stays at its start
until the drive has crossed half the play (it starts centred), then follows ``x - backlash / 2``.
Heating: the same motion with ``R (1 + heating (T - 25))`` in place of ``R``.
"""

from typing import Optional

import numpy as np

from actuator_models.logs import Log
from actuator_models.model import new_model

#: The analytic case: an MX-64 law at kp 32 (5 duty/rad: saturated while 0.2 rad or more from the goal).
KT, R, ARMATURE, VIN, KP, GOAL = 1.6, 2.0, 0.05, 15.0, 32.0, 1.0
BACKLASH = 0.02  # rad


def frictionless(**additions: float):
    """M1 with no friction on the MX-64 law, carrying ``additions`` (``latency``, ``backlash``)."""
    return new_model("mx64", "m1", kt=KT, R=R, armature=ARMATURE, friction_base=0.0, friction_viscous=0.0, **additions)


def drive_travel(t: np.ndarray, r: float = R) -> np.ndarray:
    """``x(t)`` [rad] of the saturated, frictionless drive from rest (module docstring), with
    the winding resistance ``r`` [ohm]."""
    act = new_model("mx64", "m1").actuator
    a, c = KT * VIN * act.max_duty / r, KT**2 / r  # type: ignore[attr-defined]
    tau = ARMATURE / c
    return (a / c) * (t - tau * (1.0 - np.exp(-t / tau)))


def output_travel(t: np.ndarray, backlash: float) -> np.ndarray:
    """The output's travel [rad]: 0 until the drive crossed ``backlash / 2``, then behind it."""
    return np.maximum(drive_travel(t) - backlash / 2, 0.0)


def step_log(dt: float, steps: int, goal: float = GOAL, at: int = 0, mass: float = 1e-9, length: float = 0.01,
             kp: float = KP, temperature: Optional[float] = None) -> Log:
    """A log at rest at 0 rad whose goal steps to ``goal`` at sample ``at`` (torque on), with a
    ``temp`` column at ``temperature`` [degC] when given."""
    t = np.arange(steps) * dt
    goals = np.where(np.arange(steps) >= at, goal, 0.0)
    zeros = np.zeros(steps)
    return Log(mass=mass, length=length, kp=kp, timestamp=t, position=zeros, speed=zeros, goal_position=goals,
               torque_enable=np.ones(steps), vin=VIN, motor="mx64", trajectory="step", dt=dt, source="step.json",
               extra={} if temperature is None else {"temp": np.full(steps, temperature)})

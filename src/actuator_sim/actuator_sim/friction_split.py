"""How a friction budget becomes MuJoCo's per-DoF ``frictionloss`` and ``damping`` (paper IV-E).

MuJoCo has a Coulomb-viscous joint friction: ``frictionloss`` bounds a friction *constraint*
force (solved together with everything else, so it brings the joint to rest when it can, like
the stopping torque of Algorithm 1), and ``damping`` adds a viscous force ``-damping v``. The
extended models M1-M6 give one budget ``tau_fm`` [N m] per step; we re-set the two coefficients
from it every step. Two ways to split it:

``"frictionloss"`` (default)
    the whole budget, viscous part ``Kv |v|`` included, goes into ``frictionloss`` and
    ``damping`` is 0. This is exactly Algorithm 1: the viscous part is clipped with the rest
    (it can stop the joint but never reverse it), so the MuJoCo pendulum matches the reference
    simulator to numerical precision.
``"damping"``
    ``frictionloss = tau_fm - Kv |v|`` and ``damping = Kv``: the paper's split. MuJoCo's Euler
    integrator applies damping implicitly (``v' = v + h (M + h D)^-1 (f - D v)``), which damps
    less than the explicit budget when ``h Kv / J`` is not small, and the viscous force is not
    clipped; expect larger differences from the reference simulator.
"""

from __future__ import annotations

from typing import Literal, Tuple

import numpy as np

from actuator_models.parameters import Value

ViscousMode = Literal["frictionloss", "damping"]
VISCOUS_MODES: Tuple[str, ...] = ("frictionloss", "damping")


def split_budget(budget: Value, kv: Value, v: Value, mode: ViscousMode = "frictionloss") -> Tuple[Value, Value]:
    """``(frictionloss [N m], damping [N m s/rad])`` for a budget ``tau_fm`` [N m].

    ``kv`` is the model's viscous coefficient ``Kv`` [N m s/rad] and ``v`` the joint velocity
    [rad/s]; both only matter in ``"damping"`` mode.
    """
    if mode == "frictionloss":
        return budget, np.zeros_like(np.asarray(budget, dtype=float))
    if mode == "damping":
        return np.maximum(budget - kv * np.abs(v), 0.0), kv
    raise ValueError(f"unknown viscous mode {mode!r}; expected one of {', '.join(VISCOUS_MODES)}")

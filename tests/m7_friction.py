"""A friction model M7 defined in this one module (tests/test_servo_parts.py): M1 plus a quadratic
velocity drag, ``Kv |v| + Kc + Kd v^2`` [N m]. No compiled twin: its fits run the numpy step."""

import numpy as np

from actuator_models.friction import KC, KV, FrictionModel
from actuator_models.parameters import Parameter

KD = Parameter("friction_drag", 0.01, 0.0, 0.1, "N m s^2/rad^2", "quadratic velocity drag", "Kd")


def m7(tm, te, v, p):
    """M7 budget: ``Kv |v| + Kc + Kd v^2`` [N m]."""
    return p["friction_viscous"] * np.abs(v) + p["friction_base"] + p["friction_drag"] * v**2


M7 = FrictionModel("m7", "Coulomb-viscous with drag", m7, (KC, KV, KD))

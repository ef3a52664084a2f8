"""Planar 2R kinematics in the arms' vertical plane (pure, vectorised functions).

Frame: the shoulder axis is the world +x axis at the origin; the arm moves in the y-z plane,
``y`` horizontal [m], ``z`` up [m]. Joint angles [rad] are measured as on the pendulum bench:
q1 = 0 is the upper arm hanging down, q2 = 0 the forearm aligned with the upper arm, positive
angles rotate about +x (from -z towards +y). The end effector is at
``(y, z) = l1 (sin q1, -cos q1) + l2 (sin(q1 + q2), -cos(q1 + q2))``.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from actuator_models.parameters import Value


def forward(q1: Value, q2: Value, l1: float, l2: float) -> Tuple[Value, Value]:
    """End-effector ``(y, z)`` [m] of joint angles ``q1, q2`` [rad] for link lengths ``l1, l2`` [m]."""
    y = l1 * np.sin(q1) + l2 * np.sin(q1 + q2)
    z = -l1 * np.cos(q1) - l2 * np.cos(q1 + q2)
    return y, z


def inverse(y: Value, z: Value, l1: float, l2: float, elbow: int = 1) -> Tuple[Value, Value]:
    """Joint angles ``(q1, q2)`` [rad] reaching ``(y, z)`` [m]; ``elbow`` = +1 or -1 picks the branch
    (the sign of q2). Raises ValueError for a point out of reach."""
    # Along the hanging direction (-z) and the horizontal (y), the arm is a standard 2R chain.
    a, b = -np.asarray(z, dtype=float), np.asarray(y, dtype=float)
    cos_q2 = (a**2 + b**2 - l1**2 - l2**2) / (2 * l1 * l2)
    if np.any(np.abs(cos_q2) > 1 + 1e-12):
        raise ValueError(f"end-effector target out of reach of a 2R arm with links {l1} m and {l2} m")
    q2 = elbow * np.arccos(np.clip(cos_q2, -1.0, 1.0))
    q1 = np.arctan2(b, a) - np.arctan2(l2 * np.sin(q2), l1 + l2 * np.cos(q2))
    return q1, q2

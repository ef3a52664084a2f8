"""Twists and wrenches of the contact: relative twist in Psi_c, the projection P, its dual (paper sec. V).

Conventions (paper section II): a twist is (omega, v) with v the velocity of the body point
passing through the origin of the frame it is expressed in; a wrench is (tau, F) with the moment
about that origin. Their dual product is a power [W]. A frame change by the adjoint map keeps it.

The relative twist T_2^{c,1} of body 2 with respect to body 1, expressed in Psi_c, is split by
P (4x6) into the part in se(2) x t(1), (omega_z, v_x, v_y, v_z), that charges the spring, and
the rolling part (omega_x, omega_y) that moves the hinge points. P has orthonormal rows
(P P^T = I), so the spring's wrench W4 enters the 6-D wrench as P^T W4 and
<P^T W4, T> = <W4, P T>: the MTF is power continuous.
"""

from __future__ import annotations

import numpy as np

from .tire_frame import ContactFrame

#: rows pick (omega_z, v_x, v_y, v_z) out of (omega_x, omega_y, omega_z, v_x, v_y, v_z)
P = np.array([[0, 0, 1, 0, 0, 0],
              [0, 0, 0, 1, 0, 0],
              [0, 0, 0, 0, 1, 0],
              [0, 0, 0, 0, 0, 1]], dtype=float)


def skew(w: np.ndarray) -> np.ndarray:
    """The matrix of (w x .)."""
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b for 3-vectors (numpy.cross is slow on single vectors)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def adjoint(rotation: np.ndarray, origin: np.ndarray) -> np.ndarray:
    """Ad of H = [R p; 0 1]: twist coordinates in the moved frame -> in the base frame (6x6)."""
    ad = np.zeros((6, 6))
    ad[:3, :3] = rotation
    ad[3:, :3] = skew(origin) @ rotation
    ad[3:, 3:] = rotation
    return ad


def relative_twist(frame: ContactFrame, origin1: np.ndarray, omega1: np.ndarray, velocity1: np.ndarray,
                   origin2: np.ndarray, omega2: np.ndarray, velocity2: np.ndarray) -> np.ndarray:
    """T_2^{c,1} in Psi_c, shape (6,): twist of body 2 relative to body 1 at the origin of Psi_c.

    Each body i is given in the common frame by a point ``origin_i`` [m] fixed to it, its angular
    velocity ``omega_i`` [rad/s] and the velocity ``velocity_i`` [m/s] of that point.
    """
    r = frame.origin
    v2 = velocity2 + cross(omega2, r - origin2)
    v1 = velocity1 + cross(omega1, r - origin1)
    e = frame.rotation
    return np.concatenate((e.T @ (omega2 - omega1), e.T @ (v2 - v1)))


#: the rolling axes (x_c, y_c) of Psi_c
ROLLING = np.array([1.0, 1.0, 0.0])


def rolling_lever(twist: np.ndarray, lever: np.ndarray) -> np.ndarray:
    """The twist (Psi_c) with the rolling rotation's share of its linear part taken at ``lever``.

    ``lever`` [m, Psi_c axes]: from the origin of Psi_c to body 2's hinge point, where the spring's
    tire end is. Rolling (omega_x, omega_y) turns the tire about its hinge, which the hinge
    coordinates follow: it does not move the spring's end. Taken at Psi_c's origin, which lies at the
    stiff ground's hinge, a spinning tire with a tangential deformation moved that end along the
    normal by omega x lever: a sliding, fast-spinning wheel pumped its normal spring up and jumped
    (issue 35; 1 m at 1000 N m). The spin about the normal keeps its lever (the SE(2) spring's).
    """
    out = np.array(twist, float)
    out[3:] += cross(out[:3] * ROLLING, lever)
    return out


def body_wrench(frame: ContactFrame, wrench4: np.ndarray, point: np.ndarray,
                lever: np.ndarray = np.zeros(3)) -> np.ndarray:
    """The 6-D wrench (tau, F) on body 2, in the common frame with the moment about ``point``.

    ``wrench4`` = (m_z, f_x, f_y, f_z) in Psi_c acts on body 2 at the origin of Psi_c, plus the
    rolling components of ``lever`` x F (the dual of ``rolling_lever``: power continuous with the
    twist it maps); body 1 receives the opposite wrench at the same origin.
    """
    w6 = P.T @ np.asarray(wrench4, float)
    w6[:3] += ROLLING * cross(np.asarray(lever, float), w6[3:])
    e = frame.rotation
    tau_c, force = e @ w6[:3], e @ w6[3:]
    return np.concatenate((tau_c + cross(frame.origin - point, force), force))

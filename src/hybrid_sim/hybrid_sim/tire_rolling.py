"""Motion of the hinge points by the rolling part of the twist (Montana's contact kinematics).

The paper's formula ``f_1* (u1', v1') = (g_1* + g_2*)^-1 (g_1* x omega)`` is garbled (a cross
product of a linear map with a vector). We use Montana's contact equations ("The kinematics of
contact and grasp", 1988) in a coordinate-free form, with the sliding velocity set to zero (the
sliding part of the twist charges the spring instead of moving the hinges):

With n the contact normal (outward of body 1), W_i the Weingarten maps of the two surfaces
(dg = W df, both in the common frame; body 2's is R_2 W_2 R_2^T) and omega the relative angular
velocity of body 2 with respect to body 1, keeping n_2 = -n_1 while both contact points move
over their surfaces with the same velocity a gives

    (W_1 + W_2) a = omega x n,

restricted to the tangent plane. In the tangent basis (x_c, y_c) of Psi_c only the rolling
components (omega_x, omega_y) enter: omega x n = (omega_y, -omega_x). This is Montana's
equation u1' = M1^-1 (K1 + K2~)^-1 (-omega_y, omega_x) up to his sign and axis conventions.
A ball of radius rho on a plane: a = rho (omega_y, -omega_x), the distance rolled.
Each hinge's coordinates then follow from J_i (u_i', v_i') = a (least squares: the surfaces'
tangent planes differ slightly from Psi_c's while the spring is charged).
"""

from __future__ import annotations

import numpy as np

from .tire_frame import ContactFrame


def rolling_velocity(frame: ContactFrame, weingarten1: np.ndarray, weingarten2: np.ndarray,
                     omega_roll: np.ndarray) -> np.ndarray:
    """Velocity a [m/s] (common frame) of both hinge points over their surfaces.

    ``weingarten_i``: 3x3 in the common frame; ``omega_roll`` = (omega_x, omega_y) [rad/s] of the
    relative twist in Psi_c. Raises ``numpy.linalg.LinAlgError`` when W_1 + W_2 is singular on the
    tangent plane (e.g. a cylinder on a plane: contact kinematics are then not unique).
    """
    e = frame.tangent
    curvature = e.T @ (weingarten1 + weingarten2) @ e
    rhs = np.array([omega_roll[1], -omega_roll[0]])
    return e @ np.linalg.solve(curvature, rhs)


def coordinate_rates(tangents: np.ndarray, velocity: np.ndarray) -> np.ndarray:
    """(u', v') with J (u', v') = velocity in the least-squares sense; J (3x2, full rank) in the common frame."""
    return np.linalg.solve(tangents.T @ tangents, tangents.T @ velocity)

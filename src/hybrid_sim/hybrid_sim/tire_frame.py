"""The average contact frame Psi_c of eqs. (1)-(3) of the paper, with the choices the text leaves open.

Inputs are the hinge points and outward normals of both bodies, in one common frame (the world,
or body 1's frame Psi_1 as in the paper):

* p_c = (k1 p1 + k2 p2) / (k1 + k2)                      (eq. 1)
* n_c = (k1 n1 - k2 n2) / |k1 n1 - k2 n2|                (eq. 2)
* H_c = [x_c y_c n_c p_c; 0 0 0 1]                       (eq. 3)

Decisions (the paper leaves them open):

1. The weights k1, k2 are the bodies' normal *stiffnesses* (the paper says "compressibilities",
   but also that the plane lies close to the harder body; with eq. 1 that is only true for
   stiffnesses, and section VI speaks of stiffness tensors). They are passed as compliances
   c_i = 1 / k_i so that a rigid body (k = inf, c = 0) is exact: p_c = p_rigid.
2. Normals are transformed as vectors (rotation only): the paper's homogeneous [n; 1] would add
   the translation to a direction. Callers pass n2 = R_2 g_2 already rotated.
3. The tangent axes vary continuously in time: y_c is the projection onto the average plane of a
   reference axis fixed in body 1 (``TireContact``: the ground's y axis, the axle direction of a
   wheel rolling along x), x_c = y_c x n_c. The frame is right-handed by construction and
   continuous wherever the reference axis is not parallel to n_c; that case raises ValueError
   rather than flipping the axes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ContactFrame:
    """Psi_c in the common frame: origin [m] and rotation E = [x_c y_c n_c] (columns)."""

    origin: np.ndarray
    rotation: np.ndarray

    @property
    def normal(self) -> np.ndarray:
        return self.rotation[:, 2]

    @property
    def tangent(self) -> np.ndarray:
        """The tangent axes [x_c y_c], shape (3, 2)."""
        return self.rotation[:, :2]

    def homogeneous(self) -> np.ndarray:
        """H_c (eq. 3), shape (4, 4)."""
        h = np.eye(4)
        h[:3, :3] = self.rotation
        h[:3, 3] = self.origin
        return h


def average_frame(p1: np.ndarray, n1: np.ndarray, p2: np.ndarray, n2: np.ndarray, compliance1: float,
                  compliance2: float, reference_axis: np.ndarray) -> ContactFrame:
    """Psi_c from hinge points p_i [m] and outward normals n_i, weighted by stiffness k_i = 1 / compliance_i.

    ``reference_axis`` (any length) fixes the tangent axes: y_c is its projection onto the plane.
    """
    if compliance1 < 0.0 or compliance2 < 0.0 or compliance1 + compliance2 <= 0.0:
        raise ValueError(f"contact frame: compliances must be >= 0 and not both 0, got "
                         f"{compliance1!r}, {compliance2!r}")
    # k_i / (k1 + k2) written with compliances: k1 / (k1 + k2) = c2 / (c1 + c2)
    w1 = compliance2 / (compliance1 + compliance2)
    w2 = 1.0 - w1
    origin = w1 * np.asarray(p1, float) + w2 * np.asarray(p2, float)
    m = w1 * np.asarray(n1, float) - w2 * np.asarray(n2, float)
    normal = m / np.linalg.norm(m)
    axis = np.asarray(reference_axis, float)
    y = axis - normal * (normal @ axis)
    norm = np.linalg.norm(y)
    if norm < 1e-9 * max(float(np.linalg.norm(axis)), 1e-300):
        raise ValueError("contact frame: the reference axis is parallel to the contact normal")
    y = y / norm
    x = np.array([y[1] * normal[2] - y[2] * normal[1], y[2] * normal[0] - y[0] * normal[2],
                  y[0] * normal[1] - y[1] * normal[0]])
    return ContactFrame(origin, np.column_stack((x, y, normal)))

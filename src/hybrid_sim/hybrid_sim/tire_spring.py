"""The contact spring on the subgroup SE(2) x T(1), its energy and its wrench W = -dV (paper III, V, VI).

State q = (theta, x, y, z): the pose of hinge frame 2c relative to 1c, in Psi_c, as an element of
SE(2) (rotation theta [rad] about n_c, translation (x, y) [m] in the plane) times T(1) (z [m]
along n_c, negative = compression). It starts at q = 0 (identity: no energy) at touchdown.

Integration on the subgroup: the projected relative twist xi = P T = (omega_z, v_x, v_y, v_z),
with the velocity taken at the origin of Psi_c, is a right-trivialised velocity of the group
element, g' g^-1 = xi^, which in the coordinates q reads q' = A(q) xi with

    A(q) = [[1, 0, 0, 0], [-y, 1, 0, 0], [x, 0, 1, 0], [0, 0, 0, 1]]

(the body-2 hinge point at (x, y) moves with v + omega_z e_z x (x, y)). The SE(2) and T(1)
parts are decoupled (no semi-direct product between them), as section III says.

Wrench: for an energy V(q), power balance V' = dV . q' = dV . A xi = -<W, xi> gives the wrench
on body 2 (at the origin of Psi_c, in Psi_c)

    W = (m_z, f_x, f_y, f_z) = -A(q)^T grad V(q).

For V = q^T K q / 2 with K = diag(k_theta, k_t, k_t, k_z) this is W = -(k_theta theta, k_t x,
k_t y, k_z z): zero at q = 0 and restoring. The paper's printed SE(2) formulas
(m_z = k_z sin theta, f_x = k_c cos theta + ..., f_y = -k_c cos theta + ...) are *not* used:
they give f_x = k_c, f_y = -k_c at the energy minimum theta = x = y = 0 (a nonzero wrench where
the spring is at rest) and m_z = +k_z sin theta pushes theta away from 0 (a wrong sign, an
unstable spring); no energy function has them as its differential.

Stiffness (section VI): K is a symmetric positive definite 4x4 tensor on se(2) x t(1) (isotropic:
diag(k_theta, k_t, k_t, k_z); anisotropic: any SPD K, e.g. longitudinal != lateral, or a coupling
between compression and tangential motion); two bodies' stiffnesses combine in series,
K = (K1^-1 + K2^-1)^-1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def rate_map(q: np.ndarray) -> np.ndarray:
    """A(q), 4x4: q' = A(q) xi for the right-trivialised velocity xi = (omega_z, v_x, v_y, v_z)."""
    _, x, y, _ = q
    return np.array([[1.0, 0.0, 0.0, 0.0], [-y, 1.0, 0.0, 0.0], [x, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def series_stiffness(k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
    """K = (K1^-1 + K2^-1)^-1 (section VI); scalars or SPD matrices; an infinite scalar is rigid."""
    k1, k2 = np.asarray(k1, float), np.asarray(k2, float)
    if k1.ndim == 0:
        return np.asarray(k2 if np.isinf(k1) else k1 if np.isinf(k2) else 1.0 / (1.0 / k1 + 1.0 / k2))
    return np.linalg.inv(np.linalg.inv(k1) + np.linalg.inv(k2))


@dataclass(frozen=True)
class Stiffness:
    """A spring energy on SE(2) x T(1): V = q^T K q / 2, optionally hardening with compression.

    Units: K[0, 0] in N m/rad, K[1:3, 1:3] in N/m (tangential), K[3, 3] in N/m (normal).

    ``hardening`` h [1/m] (section VI: "a higher compression usually corresponds to a higher
    tangential stiffness"): the tangential stiffness becomes k_t exp(-h z) (z < 0 is compression),
    from the energy V = q^T K q / 2 + k_t (exp(-h z) - 1) (x^2 + y^2) / 2, so the wrench stays its
    differential (the stretched tangential spring also pushes the surfaces apart by
    h k_t exp(-h z) (x^2 + y^2) / 2) and energy is conserved. It needs an isotropic tangential
    block (k_t = K[1, 1]); the slip rule needs h = 0 (its friction circle assumes a constant k_t).
    """

    matrix: np.ndarray
    hardening: float = 0.0

    def __post_init__(self) -> None:
        k = np.asarray(self.matrix, float)
        if k.shape != (4, 4) or not np.allclose(k, k.T) or np.min(np.linalg.eigvalsh(k)) <= 0.0:
            raise ValueError(f"stiffness: need a symmetric positive definite 4x4 matrix, got {k.tolist()}")
        object.__setattr__(self, "matrix", k)
        if not (np.isfinite(self.hardening) and self.hardening >= 0.0):
            raise ValueError(f"stiffness: hardening must be >= 0 [1/m], got {self.hardening!r}")
        if self.hardening and not (np.isclose(k[2, 2], k[1, 1]) and np.isclose(k[1, 2], 0.0)):
            raise ValueError("stiffness: hardening needs an isotropic tangential stiffness")

    @classmethod
    def isotropic(cls, k_theta: float, k_t: float, k_z: float, hardening: float = 0.0) -> "Stiffness":
        return cls(np.diag([k_theta, k_t, k_t, k_z]), hardening)

    @classmethod
    def anisotropic(cls, k_theta: float, k_x: float, k_y: float, k_z: float, k_xz: float = 0.0) -> "Stiffness":
        """Longitudinal k_x != lateral k_y, optional compression/longitudinal coupling k_xz [N/m]."""
        k = np.diag([k_theta, k_x, k_y, k_z])
        k[1, 3] = k[3, 1] = k_xz
        return cls(k)

    def series(self, other: "Stiffness") -> "Stiffness":
        """The two in series (section VI); a hardening of either applies to the combination."""
        return Stiffness(series_stiffness(self.matrix, other.matrix), max(self.hardening, other.hardening))

    @property
    def normal(self) -> float:
        return float(self.matrix[3, 3])

    def tangential_isotropic(self) -> float:
        """k_t when the tangential block is k_t I and uncoupled from theta and z, else ValueError."""
        k = self.matrix
        kt = k[1, 1]
        if not (np.isclose(k[2, 2], kt) and np.allclose(k[1:3, [0, 3]], 0.0) and np.isclose(k[1, 2], 0.0)):
            raise ValueError("slip rule: needs an isotropic tangential stiffness uncoupled from theta and z")
        if self.hardening:
            raise ValueError("slip rule: needs a tangential stiffness that does not harden with compression "
                             "(mu = inf with hardening > 0)")
        return float(kt)

    def energy(self, q: np.ndarray) -> float:
        """V(q) [J]."""
        extra = 0.0
        if self.hardening:
            extra = 0.5 * self.matrix[1, 1] * np.expm1(-self.hardening * q[3]) * (q[1] ** 2 + q[2] ** 2)
        return 0.5 * float(q @ self.matrix @ q) + float(extra)

    def gradient(self, q: np.ndarray) -> np.ndarray:
        """grad V(q) in the coordinates q (K q without hardening)."""
        grad = self.matrix @ q
        if self.hardening:
            kt, h = self.matrix[1, 1], self.hardening
            grad = grad + np.array([0.0, kt * np.expm1(-h * q[3]) * q[1], kt * np.expm1(-h * q[3]) * q[2],
                                    -0.5 * h * kt * np.exp(-h * q[3]) * (q[1] ** 2 + q[2] ** 2)])
        return grad

    def wrench(self, q: np.ndarray) -> np.ndarray:
        """W = -dV = -A(q)^T grad V: (m_z [N m], f_x, f_y, f_z [N]) on body 2 in Psi_c."""
        return -rate_map(q).T @ self.gradient(q)

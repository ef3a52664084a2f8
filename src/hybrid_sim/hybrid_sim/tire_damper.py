"""The optional damper (R element) of the contact, in parallel with the spring; it only dissipates.

The damper acts on the spring's deformation rate q' (SE(2) x T(1) coordinates): its wrench on
body 2 in Psi_c is W_d = -A(q)^T D q', with D symmetric positive semi-definite (units: N m s/rad,
N s/m). While the spring follows the twist (q' = A xi, sticking) the power it takes from the
bodies is <W_d, xi> = -q'^T D q' <= 0. While the tangential spring slips, the damper keeps only
its rows on theta and z (``active`` masks the rest): the tangential spring then moves with the
friction limit, not with the bodies, and a tangential damper on the sliding velocity would add a
viscous friction the slip rule does not have. The masked power -q'_a^T D_a q'_a is still <= 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tire_spring import rate_map


@dataclass(frozen=True)
class Damper:
    """D, 4x4 symmetric positive semi-definite on (theta, x, y, z)."""

    matrix: np.ndarray

    def __post_init__(self) -> None:
        d = np.asarray(self.matrix, float)
        if d.shape != (4, 4) or not np.allclose(d, d.T) or np.min(np.linalg.eigvalsh(d)) < -1e-12 * max(1.0, np.abs(d).max()):
            raise ValueError(f"damper: need a symmetric positive semi-definite 4x4 matrix, got {d.tolist()}")
        object.__setattr__(self, "matrix", d)

    @classmethod
    def diagonal(cls, d_theta: float, d_t: float, d_z: float) -> "Damper":
        return cls(np.diag([d_theta, d_t, d_t, d_z]))

    def wrench(self, q: np.ndarray, rate: np.ndarray, active: np.ndarray = np.ones(4, bool)) -> np.ndarray:
        """W_d = -A(q)^T D_a q' with D_a the rows/columns of D where ``active`` is true."""
        mask = np.asarray(active, float)
        d = self.matrix * np.outer(mask, mask)
        return -rate_map(q).T @ (d @ rate)

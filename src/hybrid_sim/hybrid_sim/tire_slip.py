"""The slip rule: the tangential spring is released when |f_t| would exceed mu f_z (paper VII's stick-slip).

The paper leaves stick-slip to future work; this is our rule, an elasto-plastic release:

* sticking: the spring follows the twist, q' = A(q) xi;
* the tangential elastic force f_t = -k_t (x, y) is limited to mu f_n, f_n = -k_z z the elastic
  normal force: |(x, y)| <= r = mu f_n / k_t. When |(x, y)| reaches r while the twist would
  stretch it further, the contact slips;
* slipping: (x, y) stays on the circle of radius r: with s the sticking rate of (x, y) and
  e = (x, y) / |(x, y)|, (x, y)' = s - lambda e, lambda = s.e - r' >= 0. The released part
  lambda e never reaches the spring: the spring's power balance gives a dissipation
  lambda k_t r >= 0, so the rule can only lower the energy (and theta, z stay elastic);
* slipping ends when lambda would become negative (the twist unloads the spring);
* the released sliding lambda e moves the ground's hinge point over its surface (``TireContact``),
  so that the hinges, and Psi_c, follow the tire as it slides, as rolling moves them when it rolls.

Transitions between the two are charts of the hybrid model (``wheel``): crossing
r - |(x, y)| = 0 (stick -> slip) and |(x, y)| lambda = 0 (slip -> stick, ``release_margin``), so
the state never jumps and the slip rule adds no chattering. The rule needs an isotropic, uncoupled tangential stiffness
(``Stiffness.tangential_isotropic``) so that "the force limit" and "the deformation limit" are
the same circle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tire_spring import Stiffness


@dataclass(frozen=True)
class SlipRule:
    """Coulomb limit mu (dimensionless; ``inf`` = never slips) for a stiffness K."""

    mu: float
    stiffness: Stiffness

    def __post_init__(self) -> None:
        if not self.mu > 0.0:
            raise ValueError(f"slip rule: mu must be > 0 (inf = no slip), got {self.mu!r}")
        if np.isfinite(self.mu):
            self.stiffness.tangential_isotropic()

    @property
    def enabled(self) -> bool:
        return bool(np.isfinite(self.mu))

    def radius(self, q: np.ndarray) -> float:
        """r = mu f_n / k_t [m], the largest tangential deformation the friction can hold."""
        k = self.stiffness.matrix
        return self.mu * max(-k[3] @ q, 0.0) / k[1, 1]

    def radius_rate(self, q: np.ndarray, rate: np.ndarray) -> float:
        """r' = mu f_n' / k_t [m/s] for a deformation rate q'.

        The derivative of r = mu f_n / k_t on the compressed side, continued unchanged where
        f_n <= 0 (only reached within the stop precision of liftoff, or at the root finder's trial
        points beyond it): the slip-release boundary ``release`` built on it stays continuous as
        the normal force reaches zero. Clamping it to 0 there (as r itself is clamped) made the
        boundary jump from +lambda to about -lambda at f_n = 0, a crossing no root finder can
        locate: the undamped wheel with friction stopped at its first liftoff (issue 25).
        """
        k = self.stiffness.matrix
        return float(self.mu * (-k[3] @ rate) / k[1, 1])

    def stick_margin(self, q: np.ndarray) -> float:
        """r - |(x, y)| [m]: positive while the friction holds the tangential spring."""
        return self.radius(q) - float(np.hypot(q[1], q[2]))

    @staticmethod
    def direction(q: np.ndarray, stick_rate: np.ndarray) -> np.ndarray:
        """e: direction of (x, y), or of its sticking rate when (x, y) is (numerically) zero."""
        for vec in (q[1:3], stick_rate[1:3]):
            n = float(np.hypot(vec[0], vec[1]))
            if n > 1e-15:
                return vec / n
        return np.array([1.0, 0.0])

    def release(self, q: np.ndarray, stick_rate: np.ndarray) -> float:
        """lambda = s.e - r' [m/s]: how fast the released part leaves; >= 0 while slipping."""
        e = self.direction(q, stick_rate)
        return float(stick_rate[1:3] @ e) - self.radius_rate(q, stick_rate)

    def release_margin(self, q: np.ndarray, stick_rate: np.ndarray) -> float:
        """|(x, y)| lambda = s.(x, y) - r' |(x, y)| [m^2/s]: the slip -> stick boundary.

        Same sign as lambda, but continuous where (x, y) passes through 0, as it does when the
        normal force runs out while slipping (r -> 0): there lambda itself jumps, its direction
        e flipping with (x, y), a crossing no root finder locates (the undamped wheel's first
        liftoff, issue 25). Here it crosses zero there, continuously.
        """
        xy = np.asarray(q[1:3], float)
        return float(stick_rate[1:3] @ xy) - self.radius_rate(q, stick_rate) * float(np.hypot(xy[0], xy[1]))

    def released(self, q: np.ndarray, stick_rate: np.ndarray) -> np.ndarray:
        """lambda e [m/s] in Psi_c's (x, y): the sliding the spring does not take."""
        return self.release(q, stick_rate) * self.direction(q, stick_rate)

    def slip_rate(self, q: np.ndarray, stick_rate: np.ndarray) -> np.ndarray:
        """q' while slipping: the sticking rate less lambda e on (x, y)."""
        rate = np.array(stick_rate, float)
        rate[1:3] -= self.released(q, stick_rate)
        return rate

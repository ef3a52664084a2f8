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

With a tangential damper (d_t > 0, ``Damper``) the circle above would limit the spring alone
while the damper adds d_t q' and the normal force has its own damper term: |f_t| / f_n reached
0.92 at mu 0.8 as the tyre unloaded (issue 35). The rule is then the Kelvin-Voigt element (spring
k_t parallel to damper d_t) in series with a Coulomb slider, limited on the TOTAL forces:

* f_n = -(K q)_z - (D q')_z, spring and damper (the damper's tangential block must be d_t I,
  uncoupled, so f_n does not depend on the sliding);
* trial g = k_t (x, y) + d_t s: the tangential force (f_t = -g) if the contact stuck;
* sticking while |g| <= mu f_n (``stick_margin`` = mu f_n - |g|); else slipping, with
  f_t = -mu f_n e, e = g / |g|, which fixes the rate: (x, y)' = s - lambda e,
  lambda = (|g| - mu f_n) / d_t >= 0 (``release``; ``release_margin`` = |g| - mu f_n).

The slider dissipates mu f_n lambda >= 0 and the state never jumps (both margins are continuous in
the state and are each other's negatives, so stick -> slip -> stick has no chattering).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tire_damper import Damper
from .tire_spring import Stiffness


@dataclass(frozen=True)
class SlipRule:
    """Coulomb limit mu (dimensionless; ``inf`` = never slips) for a stiffness K and a damper D.

    With no damper, or one without tangential and normal blocks, the limit is the elastic circle
    (module docstring, first part); with a tangential damper it is the total force's (second
    part). A normal damper without a tangential one is refused (with a finite mu)."""

    mu: float
    stiffness: Stiffness
    damper: Damper | None = None

    def __post_init__(self) -> None:
        if not self.mu > 0.0:
            raise ValueError(f"slip rule: mu must be > 0 (inf = no slip), got {self.mu!r}")
        if np.isfinite(self.mu):
            self.stiffness.tangential_isotropic()
            if self.damper is not None and not self.viscous and self.damper.matrix[3, 3] != 0.0:
                # the elastic circle holds |f_t| <= mu (-k_z z) only: a normal damper unloading the
                # tyre pushed |f_t| / f_n to 0.92 at mu 0.8 (issue 35)
                raise ValueError("slip rule: a normal damper (d_z > 0) needs a tangential damper (d_t > 0), "
                                 "else the friction limit would hold on the elastic normal force only")
            if self.viscous:
                d = self.damper.matrix  # type: ignore[union-attr]
                if not (np.isclose(d[2, 2], d[1, 1]) and np.allclose(d[1:3, [0, 3]], 0.0) and np.isclose(d[1, 2], 0.0)):
                    raise ValueError("slip rule: needs a tangential damper d_t I uncoupled from theta and z, "
                                     f"got {d.tolist()}")

    @property
    def viscous(self) -> bool:
        """True when a tangential damper takes part in the friction limit (d_t > 0)."""
        return self.damper is not None and bool(np.any(self.damper.matrix[1:3, 1:3] != 0.0))

    def normal_force(self, q: np.ndarray, stick_rate: np.ndarray) -> float:
        """f_n [N] pressing the surfaces together: elastic, plus the damper's when viscous."""
        k = self.stiffness.matrix
        f_n = -float(k[3] @ q)
        if self.viscous:
            f_n -= float(self.damper.matrix[3] @ stick_rate)  # type: ignore[union-attr]
        return f_n

    def trial(self, q: np.ndarray, stick_rate: np.ndarray) -> np.ndarray:
        """g = k_t (x, y) + d_t s [N]: minus the tangential force if the contact stuck (viscous rule)."""
        return self.stiffness.matrix[1, 1] * q[1:3] + self.damper.matrix[1, 1] * stick_rate[1:3]  # type: ignore[union-attr]

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

    def stick_margin(self, q: np.ndarray, stick_rate: np.ndarray) -> float:
        """Positive while the friction holds: r - |(x, y)| [m], or mu f_n - |g| [N] when viscous."""
        if self.viscous:
            g = self.trial(q, stick_rate)
            return self.mu * max(self.normal_force(q, stick_rate), 0.0) - float(np.hypot(g[0], g[1]))
        return self.radius(q) - float(np.hypot(q[1], q[2]))

    @staticmethod
    def direction(q: np.ndarray, stick_rate: np.ndarray, first: np.ndarray | None = None) -> np.ndarray:
        """e: direction of ``first`` (if given), else of (x, y), else of its sticking rate (first nonzero)."""
        vectors = [q[1:3], stick_rate[1:3]] if first is None else [first, q[1:3], stick_rate[1:3]]
        for vec in vectors:
            n = float(np.hypot(vec[0], vec[1]))
            if n > 1e-15:
                return vec / n
        return np.array([1.0, 0.0])

    def release(self, q: np.ndarray, stick_rate: np.ndarray) -> float:
        """lambda = s.e - r' [m/s] (viscous: (|g| - mu f_n) / d_t): how fast the released part leaves;
        >= 0 while slipping."""
        if self.viscous:
            return self.release_margin(q, stick_rate) / float(self.damper.matrix[1, 1])  # type: ignore[union-attr]
        e = self.direction(q, stick_rate)
        return float(stick_rate[1:3] @ e) - self.radius_rate(q, stick_rate)

    def release_margin(self, q: np.ndarray, stick_rate: np.ndarray) -> float:
        """|(x, y)| lambda = s.(x, y) - r' |(x, y)| [m^2/s]: the slip -> stick boundary.

        Same sign as lambda, but continuous where (x, y) passes through 0, as it does when the
        normal force runs out while slipping (r -> 0): there lambda itself jumps, its direction
        e flipping with (x, y), a crossing no root finder locates (the undamped wheel's first
        liftoff, issue 25). Here it crosses zero there, continuously. Viscous rule: |g| - mu f_n [N]
        (f_n not clamped, so it stays continuous through liftoff's root-finder trial points).
        """
        if self.viscous:
            g = self.trial(q, stick_rate)
            return float(np.hypot(g[0], g[1])) - self.mu * self.normal_force(q, stick_rate)
        xy = np.asarray(q[1:3], float)
        return float(stick_rate[1:3] @ xy) - self.radius_rate(q, stick_rate) * float(np.hypot(xy[0], xy[1]))

    def released(self, q: np.ndarray, stick_rate: np.ndarray) -> np.ndarray:
        """lambda e [m/s] in Psi_c's (x, y): the sliding the spring does not take."""
        first = self.trial(q, stick_rate) if self.viscous else None
        return self.release(q, stick_rate) * self.direction(q, stick_rate, first)

    def slip_rate(self, q: np.ndarray, stick_rate: np.ndarray) -> np.ndarray:
        """q' while slipping: the sticking rate less lambda e on (x, y)."""
        rate = np.array(stick_rate, float)
        rate[1:3] -= self.released(q, stick_rate)
        return rate

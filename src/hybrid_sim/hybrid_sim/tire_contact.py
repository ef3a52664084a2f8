"""The lumped spatial-spring contact of Stramigioli and Duindam, assembled (paper Fig. 3).

Per evaluation, from the two bodies' poses and twists, the hinge coordinates (u1, v1, u2, v2) and
the spring state q on SE(2) x T(1):

1. hinge points and normals in the common frame (normals rotated only), the average frame
   Psi_c (``tire_frame``, eqs. 1-3);
2. the relative twist in Psi_c, split by P into xi (charges the spring) and the rolling part
   (``tire_twist``); the rolling rotation's share of xi is taken at the tire's hinge (offset from
   Psi_c's origin by the tangential deflection), where the spring's tire end is, and the wrench's
   rolling moment at the same lever (power continuous): taken at Psi_c's origin, a tyre spinning
   over the ground pumped its normal spring and jumped (issue 35);
3. the wrench W = -dV of the spring plus the damper (``tire_spring``, ``tire_damper``), limited
   by the slip rule while slipping (``tire_slip``; with a tangential damper the total tangential
   force is limited to mu times the total normal force);
4. the rates: q' on the subgroup, hinge coordinates by Montana's kinematics (``tire_rolling``).

Body 1 is the one whose outward normal the contact normal follows (the ground); the wrench is
the one on body 2 (the tire); body 1 gets its opposite at the origin of Psi_c.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .tire_damper import Damper
from .tire_frame import ContactFrame, average_frame
from .tire_rolling import coordinate_rates, rolling_velocity
from .tire_slip import SlipRule
from .tire_spring import Stiffness, rate_map
from .tire_surfaces import Surface
from .tire_twist import ROLLING, P, body_wrench, relative_twist, rolling_lever


@dataclass(frozen=True)
class Body:
    """A rigid body in the common frame: rotation R (body -> common), a body point ``origin`` [m],
    angular velocity ``omega`` [rad/s] and the velocity of ``origin`` [m/s]."""

    rotation: np.ndarray
    origin: np.ndarray
    omega: np.ndarray = field(default_factory=lambda: np.zeros(3))
    velocity: np.ndarray = field(default_factory=lambda: np.zeros(3))


@dataclass(frozen=True)
class ContactState:
    """Everything the contact computes at one instant (common frame unless said otherwise)."""

    frame: ContactFrame
    twist: np.ndarray          # T_2^{c,1} in Psi_c (6)
    wrench: np.ndarray         # (m_z, f_x, f_y, f_z) on body 2 in Psi_c, spring + damper
    spring_rate: np.ndarray    # q' (4)
    hinge_rate: np.ndarray     # (u1', v1', u2', v2')
    dissipation: float         # power lost in damper and slip [W], >= 0
    energy: float              # spring energy V(q) [J]
    lever: np.ndarray = field(default_factory=lambda: np.zeros(3))  # Psi_c origin -> tire hinge [m], Psi_c axes


@dataclass(frozen=True)
class TireContact:
    """Model parameters: the two surfaces, the bodies' stiffnesses, damper, slip rule, axes.

    ``stiffness1`` / ``stiffness2``: per-body tensors (section VI); the contact uses their series
    combination, and their normal entries weight eqs. 1-2 (``numpy.inf`` entries: rigid ground,
    pass ``None``). ``reference_axis``: a body-1 axis whose projection onto the contact plane is
    y_c (default the ground's y axis: a wheel rolling along x has its axle there).

    Why a body-1 axis: the spring state q is integrated in Psi_c's axes. Axes that turned with the
    tire about the normal (its axle) would rotate the coordinates of a held deformation without
    any twist, so a closed sliding loop with a yaw in it would not return q to 0. With axes fixed
    to the ground (up to the tilt of the normal) q is the exact relative SE(2) x T(1) pose of the
    hinge frames whenever nothing rolls. Consequence: anisotropic stiffness directions are the
    ground's x/y projected onto the contact plane (a steered tire with a direction-dependent
    stiffness would need the tire's axes and a correction for their rotation; not done).
    """

    surface1: Surface
    surface2: Surface
    stiffness2: Stiffness
    stiffness1: Stiffness | None = None
    damper: Damper | None = None
    mu: float = float("inf")
    reference_axis: np.ndarray = field(default_factory=lambda: np.array([0.0, 1.0, 0.0]))

    @cached_property
    def stiffness(self) -> Stiffness:
        return self.stiffness2 if self.stiffness1 is None else self.stiffness1.series(self.stiffness2)

    @cached_property
    def slip(self) -> SlipRule:
        return SlipRule(self.mu, self.stiffness, self.damper)

    def compliances(self) -> tuple:
        c1 = 0.0 if self.stiffness1 is None else 1.0 / self.stiffness1.normal
        return c1, 1.0 / self.stiffness2.normal

    def hinges(self, body1: Body, body2: Body, hinge: np.ndarray) -> tuple:
        """(p1, n1, p2, n2) of the hinge points in the common frame."""
        u1, v1, u2, v2 = hinge
        p1 = body1.origin + body1.rotation @ self.surface1.point(u1, v1)
        n1 = body1.rotation @ self.surface1.normal(u1, v1)
        p2 = body2.origin + body2.rotation @ self.surface2.point(u2, v2)
        n2 = body2.rotation @ self.surface2.normal(u2, v2)
        return p1, n1, p2, n2

    def frame(self, body1: Body, body2: Body, hinge: np.ndarray) -> ContactFrame:
        p1, n1, p2, n2 = self.hinges(body1, body2, hinge)
        c1, c2 = self.compliances()
        return average_frame(p1, n1, p2, n2, c1, c2, body1.rotation @ self.reference_axis)

    def evaluate(self, body1: Body, body2: Body, hinge: np.ndarray, q: np.ndarray, slipping: bool) -> ContactState:
        """The contact at one instant; ``slipping`` selects the slip chart's spring rate."""
        q = np.asarray(q, float)
        frame = self.frame(body1, body2, hinge)
        # the tire hinge's offset from Psi_c's origin along the contact plane (its depth along the
        # normal is the compression: the rolling radius stays R - delta, ``hinge_rate``)
        lever = frame.rotation.T @ (self.hinges(body1, body2, hinge)[2] - frame.origin) * ROLLING
        twist = rolling_lever(relative_twist(frame, body1.origin, body1.omega, body1.velocity, body2.origin,
                                             body2.omega, body2.velocity), lever)
        xi = P @ twist
        stick_rate = rate_map(q) @ xi
        stiffness = self.stiffness
        active = np.ones(4, bool)
        rate = stick_rate
        slide = np.zeros(2)
        if slipping:
            slide = self.slip.released(q, stick_rate)
            rate = stick_rate - np.concatenate(([0.0], slide, [0.0]))
            # elastic rule: the tangential damper would add viscous friction; viscous rule: the
            # damper is part of the limited force (spring + damper = mu f_n, ``tire_slip``)
            active = np.array([True, self.slip.viscous, self.slip.viscous, True])
        wrench = stiffness.wrench(q)
        if self.damper is not None:
            wrench = wrench + self.damper.wrench(q, rate, active)
        # power balance: the bodies receive <W, xi>, the spring stores grad V . q'
        dissipation = -float(wrench @ xi) - float(stiffness.gradient(q) @ rate)
        return ContactState(frame, twist, wrench, rate, self.hinge_rate(body1, body2, hinge, frame, twist[:2], slide),
                            dissipation, stiffness.energy(q), lever)

    def hinge_rate(self, body1: Body, body2: Body, hinge: np.ndarray, frame: ContactFrame,
                   omega_roll: np.ndarray, slide: np.ndarray = np.zeros(2)) -> np.ndarray:
        """(u1', v1', u2', v2') from the rolling part of the twist (Montana, ``tire_rolling``).

        ``slide`` (Psi_c's x, y [m/s]): sliding released by the slip rule; it moves body 1's hinge
        with body 2's, so Psi_c stays with the tire while it slides.

        Montana's equations hold for two surfaces touching at one point. While the spring is
        compressed the hinge points are apart, so they are applied to the parallel surfaces
        through p_c: surface i offset along its normal by d_i = (p_c - p_i).(-n_i) (inward when
        positive), with tangents J_i - d_i G_i and Weingarten map G_i (J_i - d_i G_i)^+ (radii
        rho_i - d_i). Both offset points move with one velocity a, and so each hinge keeps facing
        p_c: a wheel compressed by delta rolls with radius R - delta and its ground hinge stays
        under its centre (with the surfaces' own radii the ground hinge would run ahead by
        delta per radian rolled). At zero penetration this is Montana's point contact exactly.
        """
        offset = []
        for body, surface, (u, v) in ((body1, self.surface1, hinge[:2]), (body2, self.surface2, hinge[2:])):
            r = body.rotation
            point = body.origin + r @ surface.point(u, v)
            normal = r @ surface.normal(u, v)
            depth = float((frame.origin - point) @ -normal)
            tangents, normal_derivatives = r @ surface.tangents(u, v), r @ surface.normal_derivatives(u, v)
            shifted = tangents - depth * normal_derivatives
            metric = shifted.T @ shifted
            offset.append((shifted, normal_derivatives @ np.linalg.solve(metric, shifted.T)))
        a = rolling_velocity(frame, offset[0][1], offset[1][1], omega_roll)
        return np.concatenate((coordinate_rates(offset[0][0], a + frame.tangent @ slide),
                               coordinate_rates(offset[1][0], a)))

    def body_wrench(self, state: ContactState, point: np.ndarray) -> np.ndarray:
        """(tau, F) on body 2 in the common frame, moment about ``point`` (e.g. its centre of mass)."""
        return body_wrench(state.frame, state.wrench, point, state.lever)

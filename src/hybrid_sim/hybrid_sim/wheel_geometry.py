"""Geometry of a planar wheel over a ground profile z = h(u): pose, gap, first-contact hinge points.

The wheel moves in the x-z plane: centre (x, 0, z) [m], pitch phi [rad] about +y (the axle), so
a forward roll (+x) has phi' > 0. The ground is a surface with a height profile h(u) that does
not depend on v (``Plane`` or ``Waves``), gently curved (curvature < 1/R).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .tire_contact import Body
from .tire_surfaces import Torus


class Profile(Protocol):
    def height(self, u: float) -> float: ...

    def slope(self, u: float) -> float: ...

    def curvature(self, u: float) -> float: ...


def pitch(phi: float) -> np.ndarray:
    """Rotation by phi about +y (wheel frame -> world)."""
    c, s = np.cos(phi), np.sin(phi)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def wheel_body(x: float, z: float, phi: float, xd: float = 0.0, zd: float = 0.0, phid: float = 0.0) -> Body:
    return Body(pitch(phi), np.array([x, 0.0, z]), np.array([0.0, phid, 0.0]), np.array([xd, 0.0, zd]))


def closest_ground_point(ground: Profile, x: float, z: float, iterations: int = 30) -> float:
    """u of the ground point closest to (x, z): Newton on (x - u) + (z - h(u)) h'(u) = 0 from u = x."""
    u = x
    for _ in range(iterations):
        h, h1, h2 = ground.height(u), ground.slope(u), ground.curvature(u)
        f = (x - u) + (z - h) * h1
        df = -1.0 - h1 * h1 + (z - h) * h2
        step = f / df
        u -= step
        if abs(step) < 1e-15:
            break
    return u


def gap(ground: Profile, tire: Torus, x: float, z: float) -> float:
    """Signed distance [m] from the tread (outer radius) to the ground; negative = overlap."""
    u = closest_ground_point(ground, x, z)
    dx, dz = x - u, z - ground.height(u)
    side = np.sign(dz - ground.slope(u) * dx) or 1.0  # which side of the ground's tangent line
    return float(side * np.hypot(dx, dz) - tire.radius)


def touchdown_hinges(ground: Profile, x: float, z: float, phi: float) -> np.ndarray:
    """(u1, v1, u2, v2) of the first contact: ground point closest to the centre, tread crown facing it."""
    u1 = closest_ground_point(ground, x, z)
    h1 = ground.slope(u1)
    n1 = np.array([-h1, 0.0, 1.0]) / np.hypot(1.0, h1)
    d = pitch(phi).T @ (-n1)  # direction from the centre to the contact, in the wheel frame
    return np.array([u1, 0.0, float(np.arctan2(-d[0], -d[2])), 0.0])

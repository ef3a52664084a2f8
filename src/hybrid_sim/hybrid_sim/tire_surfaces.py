"""Contacting surfaces as maps f(u, v) with their Gauss maps (paper section V).

A surface is given in its body frame by a point map ``f(u, v)`` [m], its partial derivatives
``J = [f_u f_v]`` (3x2), the Gauss map ``g = f_u x f_v / |f_u x f_v|`` (outward unit normal,
the parametrisation is chosen so that this cross product points out of the body) and the
derivatives of the Gauss map ``G = [g_u g_v]`` (3x2). The Weingarten map ``W = G J^+`` sends a
tangent velocity of the contact point to the rate of change of the normal (``dg = W df``); it is
what the rolling kinematics (``tire_rolling``) needs.

All functions are analytic (no finite differences) and pure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

Y_AXIS = np.array([0.0, 1.0, 0.0])


class Surface(Protocol):
    """A parametrised surface in its body frame (all vectors in that frame)."""

    def point(self, u: float, v: float) -> np.ndarray:
        """f(u, v) [m], shape (3,)."""

    def tangents(self, u: float, v: float) -> np.ndarray:
        """J = [f_u f_v], shape (3, 2)."""

    def normal(self, u: float, v: float) -> np.ndarray:
        """Gauss map g(u, v): outward unit normal, shape (3,)."""

    def normal_derivatives(self, u: float, v: float) -> np.ndarray:
        """G = [g_u g_v], shape (3, 2)."""


def weingarten(surface: Surface, u: float, v: float) -> np.ndarray:
    """W = G J^+ (3x3, acting on tangent vectors): dg = W df, curvature 1/rho on a sphere of radius rho."""
    return surface.normal_derivatives(u, v) @ np.linalg.pinv(surface.tangents(u, v))


@dataclass(frozen=True)
class Plane:
    """The plane z = 0, f(u, v) = (u, v, 0), normal +z."""

    def height(self, u: float) -> float:
        return 0.0

    def slope(self, u: float) -> float:
        return 0.0

    def curvature(self, u: float) -> float:
        return 0.0

    def point(self, u: float, v: float) -> np.ndarray:
        return np.array([u, v, 0.0])

    def tangents(self, u: float, v: float) -> np.ndarray:
        return np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])

    def normal(self, u: float, v: float) -> np.ndarray:
        return np.array([0.0, 0.0, 1.0])

    def normal_derivatives(self, u: float, v: float) -> np.ndarray:
        return np.zeros((3, 2))


@dataclass(frozen=True)
class Waves:
    """A gently curved ground z = h(u) = amplitude cos(2 pi u / wavelength), f(u, v) = (u, v, h(u)).

    "Gently": the largest curvature ``amplitude (2 pi / wavelength)^2`` must stay below the
    curvature 1/R of a wheel rolling on it, so that the wheel touches at one point.
    """

    amplitude: float = 0.01
    wavelength: float = 2.0

    def _h(self, u: float) -> tuple:
        k = 2.0 * np.pi / self.wavelength
        a = self.amplitude
        return a * np.cos(k * u), -a * k * np.sin(k * u), -a * k * k * np.cos(k * u)

    def height(self, u: float) -> float:
        return float(self._h(u)[0])

    def slope(self, u: float) -> float:
        return float(self._h(u)[1])

    def curvature(self, u: float) -> float:
        """h''(u) [1/m]."""
        return float(self._h(u)[2])

    def point(self, u: float, v: float) -> np.ndarray:
        return np.array([u, v, self._h(u)[0]])

    def tangents(self, u: float, v: float) -> np.ndarray:
        return np.array([[1.0, 0.0], [0.0, 1.0], [self._h(u)[1], 0.0]])

    def normal(self, u: float, v: float) -> np.ndarray:
        h1 = self._h(u)[1]
        return np.array([-h1, 0.0, 1.0]) / np.hypot(1.0, h1)

    def normal_derivatives(self, u: float, v: float) -> np.ndarray:
        _, h1, h2 = self._h(u)
        m = np.array([-h1, 0.0, 1.0])
        norm = np.linalg.norm(m)
        n = m / norm
        dm_du = np.array([-h2, 0.0, 0.0])
        g_u = (dm_du - n * (n @ dm_du)) / norm
        return np.column_stack((g_u, np.zeros(3)))


@dataclass(frozen=True)
class Torus:
    """A tire: torus around the body y axis (the axle), outer radius ``radius``, crown radius ``crown``.

    f(u, v) = (a + c cos v) e(u) + c sin v y, a = radius - crown, e(u) = (-sin u, 0, -cos u):
    (u, v) = (0, 0) is the lowest point of the tread when the wheel frame is upright; u grows
    backwards along the tread so that f_u x f_v points outward. Outward normal
    g = cos v e(u) + sin v y; principal curvatures 1/radius (rolling direction, at the crown) and
    1/crown (across the tread).
    """

    radius: float = 0.3
    crown: float = 0.05

    def __post_init__(self) -> None:
        if not 0.0 < self.crown < self.radius:
            raise ValueError(f"torus: need 0 < crown < radius, got crown={self.crown!r}, radius={self.radius!r}")

    @staticmethod
    def _e(u: float) -> tuple:
        return np.array([-np.sin(u), 0.0, -np.cos(u)]), np.array([-np.cos(u), 0.0, np.sin(u)])

    def point(self, u: float, v: float) -> np.ndarray:
        e, _ = self._e(u)
        a = self.radius - self.crown
        return (a + self.crown * np.cos(v)) * e + self.crown * np.sin(v) * Y_AXIS

    def tangents(self, u: float, v: float) -> np.ndarray:
        e, de = self._e(u)
        a = self.radius - self.crown
        f_u = (a + self.crown * np.cos(v)) * de
        f_v = self.crown * (-np.sin(v) * e + np.cos(v) * Y_AXIS)
        return np.column_stack((f_u, f_v))

    def normal(self, u: float, v: float) -> np.ndarray:
        e, _ = self._e(u)
        return np.cos(v) * e + np.sin(v) * Y_AXIS

    def normal_derivatives(self, u: float, v: float) -> np.ndarray:
        e, de = self._e(u)
        return np.column_stack((np.cos(v) * de, -np.sin(v) * e + np.cos(v) * Y_AXIS))


@dataclass(frozen=True)
class Sphere:
    """A ball of radius ``radius``: f(u, v) = radius (-cos v sin u, sin v, -cos v cos u), (0, 0) at the bottom."""

    radius: float = 0.1

    def point(self, u: float, v: float) -> np.ndarray:
        return self.radius * self.normal(u, v)

    def tangents(self, u: float, v: float) -> np.ndarray:
        return self.radius * self.normal_derivatives(u, v)

    def normal(self, u: float, v: float) -> np.ndarray:
        return np.array([-np.cos(v) * np.sin(u), np.sin(v), -np.cos(v) * np.cos(u)])

    def normal_derivatives(self, u: float, v: float) -> np.ndarray:
        g_u = np.array([-np.cos(v) * np.cos(u), 0.0, np.cos(v) * np.sin(u)])
        g_v = np.array([np.sin(v) * np.sin(u), np.cos(v), np.sin(v) * np.cos(u)])
        return np.column_stack((g_u, g_v))

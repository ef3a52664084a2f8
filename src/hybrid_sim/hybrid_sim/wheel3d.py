"""A steered, cambered wheel moving in space on the lumped spatial-spring tire (paper sections IV-V).

The planar ``wheel`` exercises only the contact's longitudinal and normal parts. Here the wheel
centre moves in x, y and z, and the wheel is held by a rig at a fixed steer angle psi (about the
vertical) and camber angle gamma (tilt of the wheel plane), spinning freely about its axle:

    R = Rz(psi) Rx(gamma) Ry(phi)            (wheel frame -> world; axle = wheel y axis)

so that rolling with psi != 0 charges the lateral spring (a slip angle) and rolling with
gamma != 0 spins the tread about the contact normal (charges the yaw spring theta): the
lateral force f_y moves the centre sideways, the yaw moment m_z and the other torque
components not about the axle are taken by the rig. The rig's constraint turns the body only
about the axle, so it does no work: E = kinetic + gravity + spring, E + dissipated + released -
work stays constant, as in the planar wheel (same charts FLIGHT, STICK, SLIP and rules).

States: x, y, z, phi, xd, yd, zd, phid, then hinges, spring, work, dissipated, released.
Ground: the plane z = 0 (``WheelParameters.amplitude`` must be 0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .tire_contact import Body
from .wheel import Wheel, WheelParameters
from .wheel_geometry import pitch

STATE_NAMES_3D = ("x", "y", "z", "phi", "xd", "yd", "zd", "phid", "u1", "v1", "u2", "v2", "theta", "qx", "qy",
                  "qz", "work", "dissipated", "released")


def rig(steer: float, camber: float) -> np.ndarray:
    """Rz(steer) Rx(camber): the rig's rotation of the wheel frame [rad]."""
    cs, ss, cc, sc = np.cos(steer), np.sin(steer), np.cos(camber), np.sin(camber)
    rz = np.array([[cs, -ss, 0.0], [ss, cs, 0.0], [0.0, 0.0, 1.0]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cc, -sc], [0.0, sc, cc]])
    return rz @ rx


@dataclass(frozen=True)
class Steering:
    """Steer angle psi and camber angle gamma [rad], held fixed by the rig."""

    steer: float = 0.0
    camber: float = 0.0

    def __post_init__(self) -> None:
        if not (abs(self.steer) < np.pi / 2 and abs(self.camber) < np.pi / 3):
            raise ValueError(f"steered wheel: need |steer| < pi/2 and |camber| < pi/3, got {self}")


class SteeredWheel(Wheel):
    """The wheel of ``Wheel`` in space, steered and cambered by a rig (module docstring)."""

    state_names = STATE_NAMES_3D
    n_continuous = 18
    n_pos = 4

    def __init__(self, params: WheelParameters = WheelParameters(), steering: Steering = Steering()) -> None:
        if params.amplitude != 0.0:
            raise ValueError("steered wheel: the ground must be the plane (amplitude 0)")
        super().__init__(params)
        self.steering = steering
        self.frame = rig(steering.steer, steering.camber)
        self.axle = self.frame[:, 1]

    def rotation(self, phi: float) -> np.ndarray:
        return self.frame @ pitch(phi)

    def body(self, x: np.ndarray) -> Body:
        return Body(self.rotation(x[3]), np.array(x[0:3]), x[7] * self.axle, np.array(x[4:7]))

    def centre(self, x: np.ndarray) -> np.ndarray:
        return np.array(x[0:3])

    def lowest_point(self, x: np.ndarray) -> tuple:
        """(u, v) of the tread point facing straight down, and its height [m] (the gap)."""
        rot = self.rotation(x[3])
        d = rot.T @ np.array([0.0, 0.0, -1.0])  # outward normal wanted, in the wheel frame
        u, v = float(np.arctan2(-d[0], -d[2])), float(np.arcsin(np.clip(d[1], -1.0, 1.0)))
        point = x[0:3] + rot @ self.params.tire().point(u, v)
        return u, v, point

    def gap_of(self, x: np.ndarray) -> float:
        return float(self.lowest_point(x)[2][2])

    def first_hinges(self, x: np.ndarray) -> np.ndarray:
        u, v, point = self.lowest_point(x)
        return np.array([point[0], point[1], u, v])

    def forces(self, wrench: np.ndarray) -> np.ndarray:
        """(F_x, F_y, F_z, torque about the axle) of a wrench (tau, F) about the centre."""
        return np.concatenate((wrench[3:6], [float(wrench[0:3] @ self.axle)]))


def initial_state_3d(height: float = 0.05, speed: float = 1.0, spin: float = 0.0,
                     params: WheelParameters = WheelParameters(), steering: Steering = Steering(),
                     course: Optional[float] = None) -> np.ndarray:
    """The steered wheel with its lowest tread point ``height`` [m] above the plane, moving at
    ``speed`` [m/s] in the direction ``course`` [rad from x] (default: its heading psi; another
    course is a slip angle) and spinning at ``spin`` [rad/s]."""
    state = np.zeros(len(STATE_NAMES_3D))
    wheel = SteeredWheel(params, steering)
    angle = steering.steer if course is None else course
    heading = np.array([np.cos(angle), np.sin(angle), 0.0])
    state[4:7] = speed * heading
    state[7] = spin
    state[2] = height - wheel.gap_of(state)  # gap at z = 0 is the lowest point's height below the centre
    return state

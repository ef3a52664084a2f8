"""The two experiments of the Dahl paper's section 3, simulated (García-Baños and Ikhouane).

Stage 1: constant velocity, ``x = v t``; stage 2: wave-periodic ``x = -A cos(omega t)``. The force
is ``Fc w`` with ``w`` from the exact update (``dahl.dahl_states``, reversal steps split), from
``w(0) = w0``. Optional white Gaussian noise on the displacement models a measured record.
Units: t [s], x [rad], F [N m], rho [1/rad], omega [rad/s].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

import numpy as np

from .dahl import dahl_states


@dataclass(frozen=True)
class PaperExperiments:
    """Parameters of both experiments; defaults are the paper's (Fc = rho = 1, x = t, x = -cos t)."""

    fc: float = 1.0
    rho: float = 1.0
    velocity: float = 1.0
    ramp_time: float = 30.0
    amplitude: float = 1.0
    omega: float = 1.0
    periods: float = 6.0
    dt: float = 0.01
    w0: float = 0.0

    def __post_init__(self) -> None:
        for name in ("fc", "rho", "ramp_time", "amplitude", "omega", "periods", "dt"):
            if not getattr(self, name) > 0.0:
                raise ValueError(f"Dahl experiment: {name} must be > 0, got {getattr(self, name)!r}")
        if self.velocity == 0.0:
            raise ValueError("Dahl experiment: velocity must be nonzero")

    def constant_velocity(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Stage 1 (paper Figs. 6-7): ``(t, x, F)`` under ``x = v t``."""
        t = np.arange(0.0, self.ramp_time, self.dt)
        x = self.velocity * t
        return t, x, self.fc * dahl_states(x, self.rho, self.w0)

    def periodic(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Stage 2 (paper Figs. 8-9): ``(t, x, F)`` under ``x = -A cos(omega t)``."""
        t = np.arange(0.0, self.periods * 2.0 * np.pi / self.omega, self.dt)
        x = -self.amplitude * np.cos(self.omega * t)
        v = self.amplitude * self.omega * np.sin(self.omega * t)
        return t, x, self.fc * dahl_states(x, self.rho, self.w0, v=v, dt=self.dt)


def with_noise(record: Tuple[np.ndarray, np.ndarray, np.ndarray], x_noise: float,
               rng: np.random.Generator) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The record with white Gaussian noise of standard deviation ``x_noise`` [rad] on x."""
    t, x, force = record
    return t, x + rng.normal(0.0, x_noise, x.size) if x_noise > 0.0 else x, force

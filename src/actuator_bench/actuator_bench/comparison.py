"""Live sim-versus-real comparison (ROS-free core of the comparison node).

The latest simulated :class:`~actuator_models.bench.JointSample` is kept; each real sample is
paired with it, joint by joint by name, and gives the error ``sim - real`` (a JointSample) of
position [rad], velocity [rad/s] and, when both report it, motor torque [N m]. A simulated
sample older than ``max_age`` seconds (by stamps) is not paired.
"""

from __future__ import annotations

import math
from typing import Optional, Tuple

from actuator_models.bench import JointSample


def _difference(a: Tuple[float, ...], b: Tuple[float, ...], i: int, j: int) -> Optional[float]:
    return a[i] - b[j] if i < len(a) and j < len(b) else None


class StateComparison:
    """Pairs real states with the latest simulated ones.

    Args:
        max_age: largest stamp difference [s] between a real state and the simulated state it is
            compared with; ``inf`` to always pair.
    """

    def __init__(self, max_age: float = 0.5) -> None:
        if not max_age > 0:
            raise ValueError(f"max_age {max_age!r}: must be positive seconds")
        self.max_age = max_age
        self.sim: Optional[JointSample] = None

    def update_sim(self, states: JointSample) -> None:
        """A new simulated state."""
        self.sim = states

    def update_real(self, real: JointSample) -> Optional[JointSample]:
        """A new real state: the error ``sim - real`` on the joints both have, stamped with the
        real state's stamp; None without a recent simulated state or a common joint."""
        sim = self.sim
        if sim is None or abs(real.time - sim.time) > self.max_age:
            return None
        names, position, velocity, effort = [], [], [], []
        for j, joint in enumerate(real.name):
            if joint not in sim.name:
                continue
            i = sim.name.index(joint)
            names.append(joint)
            position.append(sim.position[i] - real.position[j])
            dv = _difference(sim.velocity, real.velocity, i, j)
            velocity.append(math.nan if dv is None else dv)
            de = _difference(sim.motor_torque, real.motor_torque, i, j)
            effort.append(math.nan if de is None else de)
        if not names:
            return None
        keep_effort = not all(math.isnan(e) for e in effort)
        return JointSample(real.time, tuple(names), tuple(position), tuple(velocity),
                           tuple(effort) if keep_effort else ())

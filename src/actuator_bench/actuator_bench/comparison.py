"""Live sim-versus-real comparison (ROS-free core of the comparison node).

The latest simulated state is kept; each real state is paired with it, joint by joint by name,
and gives the error ``sim - real`` of position [rad], velocity [rad/s] and, when both report
it, effort [N m]. A simulated state older than ``max_age`` seconds (by stamps) is not paired.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple


@dataclass(frozen=True)
class States:
    """A ``sensor_msgs/JointState``: ``stamp`` [s], joint names and per-joint values (effort may be empty)."""

    stamp: float
    name: Tuple[str, ...]
    position: Tuple[float, ...]
    velocity: Tuple[float, ...] = ()
    effort: Tuple[float, ...] = ()

    @classmethod
    def of(cls, stamp: float, name: Sequence[str], position: Sequence[float], velocity: Sequence[float] = (),
           effort: Sequence[float] = ()) -> "States":
        def floats(values: Sequence[float]) -> Tuple[float, ...]:
            return tuple(map(float, values))

        return cls(stamp, tuple(name), floats(position), floats(velocity), floats(effort))


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
        self.sim: Optional[States] = None

    def update_sim(self, states: States) -> None:
        """A new simulated state."""
        self.sim = states

    def update_real(self, real: States) -> Optional[States]:
        """A new real state: the error ``sim - real`` on the joints both have, stamped with the
        real state's stamp; None without a recent simulated state or a common joint."""
        sim = self.sim
        if sim is None or abs(real.stamp - sim.stamp) > self.max_age:
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
            de = _difference(sim.effort, real.effort, i, j)
            effort.append(math.nan if de is None else de)
        if not names:
            return None
        keep_effort = not all(math.isnan(e) for e in effort)
        return States(real.stamp, tuple(names), tuple(position), tuple(velocity), tuple(effort) if keep_effort else ())

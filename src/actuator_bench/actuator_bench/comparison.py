"""Live sim-versus-real comparison (ROS-free core of the comparison node).

Each bench stamps its samples with its own bench time (the sample's time on the bench clock, as
the no-ROS bag does), and each starts its run at its own instant: the comparison node asks the
real bench, then the simulated one, and an emulator or a simulation may run at ``time_scale``
bench seconds per wall second. Samples are therefore paired by *run time*, the bench time since
that bench's trajectory start (the stamp of the run's ``bench_info``: that of its first
command, the run's t = 0), never by arrival: each real sample is compared with the simulated state at the same run time, linearly
interpolated between the simulated samples around it, as soon as the simulation has reached
that time. Joint by joint, by name, the error is ``sim - real`` of position [rad], velocity
[rad/s] and, when both report it, motor torque [N m], stamped with the real sample's stamp. A
simulated sample farther than ``max_age`` seconds of run time from the real one is not paired.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Deque, List, Optional, Tuple

from actuator_models.bench import JointSample


def _difference(a: Tuple[float, ...], b: Tuple[float, ...], i: int, j: int) -> Optional[float]:
    return a[i] - b[j] if i < len(a) and j < len(b) else None


def _between(a: Tuple[float, ...], b: Tuple[float, ...], w: float) -> Tuple[float, ...]:
    return tuple(x + w * (y - x) for x, y in zip(a, b)) if len(a) == len(b) else a


def interpolate(a: JointSample, b: JointSample, t: float) -> JointSample:
    """The state at ``t`` between samples ``a`` and ``b`` (linear in position, velocity, torque;
    ``a`` itself where they name other joints or ``t`` is not after ``a``)."""
    if a.name != b.name or not b.time > a.time or t <= a.time:
        return a
    w = min((t - a.time) / (b.time - a.time), 1.0)
    return JointSample(t, a.name, _between(a.position, b.position, w), _between(a.velocity, b.velocity, w),
                       _between(a.motor_torque, b.motor_torque, w))


def difference(sim: JointSample, real: JointSample, stamp: float) -> Optional[JointSample]:
    """``sim - real`` on the joints both have, stamped ``stamp``; None without a common joint."""
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
    return JointSample(stamp, tuple(names), tuple(position), tuple(velocity), tuple(effort) if keep_effort else ())


class StateComparison:
    """Pairs real states with simulated ones by run time (see the module docstring).

    Args:
        max_age: largest run-time distance [s] between a real state and the nearest simulated
            state it is compared with; ``inf`` to always pair.
    """

    def __init__(self, max_age: float = 0.5) -> None:
        if not max_age > 0:
            raise ValueError(f"max_age {max_age!r}: must be positive seconds")
        self.max_age = max_age
        self.real_start: Optional[float] = None  # bench time [s] of each bench's run start
        self.sim_start: Optional[float] = None
        self._sims: Deque[JointSample] = deque()  # time: run time
        self._reals: Deque[Tuple[JointSample, float]] = deque()  # (sample at run time, its stamp)

    def real_info(self, trajectory: str, stamp: float) -> None:
        """The real bench's info stamped ``stamp`` [s]: one naming a trajectory starts a run
        then, and clears what the last one left."""
        if trajectory:
            self.real_start = stamp
            self._reals.clear()

    def sim_info(self, trajectory: str, stamp: float) -> None:
        """The simulated bench's info stamped ``stamp`` [s]: as :meth:`real_info`."""
        if trajectory:
            self.sim_start = stamp
            self._sims.clear()

    def update_sim(self, sim: JointSample) -> List[JointSample]:
        """A new simulated state: the errors of the real states it completes (oldest first)."""
        if self.sim_start is not None and sim.time >= self.sim_start:  # not a late one of the last run
            self._sims.append(JointSample(sim.time - self.sim_start, sim.name, sim.position, sim.velocity,
                                          sim.motor_torque))
        return self._pair()

    def update_real(self, real: JointSample) -> List[JointSample]:
        """A new real state: the errors ``sim - real`` now known (oldest first), each stamped with
        its real state's stamp; empty while the simulation has not reached its run time."""
        if self.real_start is not None and real.time >= self.real_start:
            self._reals.append((JointSample(real.time - self.real_start, real.name, real.position, real.velocity,
                                            real.motor_torque), real.time))
        return self._pair()

    def _pair(self) -> List[JointSample]:
        errors = []
        while self._reals and self._sims and self._reals[0][0].time <= self._sims[-1].time:
            real, stamp = self._reals.popleft()
            while len(self._sims) > 1 and self._sims[1].time <= real.time:
                self._sims.popleft()
            before = self._sims[0]
            after = self._sims[1] if len(self._sims) > 1 else before
            nearest = min(abs(before.time - real.time), abs(after.time - real.time))
            if nearest > self.max_age:
                continue
            error = difference(interpolate(before, after, real.time), real, stamp)
            if error is not None:
                errors.append(error)
        return errors

"""The bench control loop (ROS-free): read -> controller (trajectory player) -> write, one cycle per tick.

As in ros2_control's ``read() -> update() -> write()``, one cycle samples every joint of the
bench, asks the trajectory player for the command of that sample's time, and sends it: the
command of a cycle is computed from, and stamped with, the sample of the same cycle. The bench
node calls :meth:`BenchLoop.tick` from its loop thread (:class:`~actuator_bench.pacing.LoopThread`);
without ROS, :meth:`BenchLoop.run` paces the same cycles on the bench's clock
(:func:`~actuator_bench.pacing.paced`). Every cycle goes to the caller as a :class:`Cycle`, the
sample stream that recorders (MCAP bags, JSON logs) and publishers consume.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Optional, Union

from actuator_models.bench import Bench, Command, JointSample

from .messages import BenchInfo
from .pacing import paced
from .player import Prepare, Schedule, Step, TrajectoryPlayer

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Cycle:
    """What one cycle read and sent.

    Attributes:
        time: the cycle's time [s] on the bench clock (that of ``sample``, or of the start/stop).
        sample: the joints read (None for a start/stop event outside a tick). command: what was
        sent (None: nothing). info: new bench info (a run started or ended), None if unchanged.
    """

    time: float
    sample: Optional[JointSample] = None
    command: Optional[Command] = None
    info: Optional[BenchInfo] = None


#: A consumer of cycles (publisher, recorder).
Sink = Callable[[Cycle], None]


class BenchLoop:
    """One bench and its trajectory player.

    Args:
        bench: the hardware (:class:`actuator_models.bench.Bench`). player: plays trajectories on
            the bench's joints.
    """

    def __init__(self, bench: Bench, player: TrajectoryPlayer) -> None:
        unknown = set(player.joints) - set(bench.joints)
        if unknown:
            raise ValueError(f"player joints {sorted(unknown)} are not on the bench (joints {list(bench.joints)})")
        self.bench, self.player = bench, player

    def start(self, trajectory: Union[str, Schedule], kp: float, prepare: Optional[Prepare] = None) -> Schedule:
        """Start a run at the next tick (its t = 0), or with ``prepare`` after a move to its first
        waypoint; the cycle of its t = 0 carries the run's bench info."""
        return self.player.start(trajectory, kp, prepare=prepare)

    def stop(self) -> Cycle:
        """Stop the run: the torque-release command is sent now (nothing when idle)."""
        step = self.player.stop()
        if step.command is not None:
            self.bench.apply(step.command)
        return Cycle(self.bench.clock.now(), command=step.command, info=step.info)

    def tick(self) -> Cycle:
        """One cycle: read, update, write."""
        sample = self.bench.sample()
        position = [sample.position[self.bench.joints.index(joint)] for joint in self.player.joints]
        step: Step = self.player.tick(sample.time, position)
        if step.command is not None:
            self.bench.apply(step.command)
        return Cycle(sample.time, sample, step.command, step.info)

    def run(self, trajectory: Union[str, Schedule], kp: float, rate: float, sink: Sink,
            guard: Optional[Callable[[], None]] = None, prepare: Optional[Prepare] = None) -> int:
        """Play one trajectory (a name or a :class:`~.player.Schedule`) to its end at ``rate``
        [Hz] of bench time, every cycle into ``sink``; returns the number of ticks. A late cycle
        is not made up (no burst). ``guard``, called before every tick, may raise to stop the run
        (a recording refuses to go on after the command watchdog released the torque). With
        ``prepare`` the run starts after a move to its first waypoint (:meth:`start`).

        On any exception (a fault, a limit, Ctrl-C) the torque is released before it propagates;
        a release that fails too is logged (the first error is the one that propagates)."""
        if not rate > 0:
            raise ValueError(f"rate {rate!r}: must be positive Hz")
        self.start(trajectory, kp, prepare)
        try:
            return self._run(1.0 / rate, sink, guard or (lambda: None))
        except BaseException as error:
            if self.player.running is not None:
                self.player.stop()
                try:  # not a release command: its goals may be the very ones that were refused
                    self.bench.release()
                except Exception as failed:  # the bus may be what failed: keep the first error
                    LOG.error("releasing the torque failed too: %s (after: %s)", failed, error)
            raise

    def _run(self, period: float, sink: Sink, guard: Callable[[], None]) -> int:
        def cycle() -> bool:
            guard()
            sink(self.tick())
            return self.player.running is not None

        return paced(self.bench.clock, period, cycle)

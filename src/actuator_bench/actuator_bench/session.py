"""The bench graph in one process, without ROS: the trajectory player drives a bench and every
message the nodes would publish is recorded into a bag.

Used where ROS is absent (tests, the no-ROS demo): the messages, topics, stamps and run markers
are those of the ROS graph, so the bag converts and plots the same way. Time is the bench's
clock: an emulator's (``actuator_drivers.clock.Clock``) or the simulated time of a
:class:`~actuator_bench.sim_bench.SimBench` (:class:`~actuator_bench.sim_bench.SimClock`, as fast
as the host allows).
"""

from __future__ import annotations

from typing import Mapping, Optional, Protocol

from .interfaces import ACTUATOR_COMMAND, ACTUATOR_STATE, BENCH_INFO, JOINT_STATE, MessageCodec, bench_topics
from .messages import (
    Command, JointSample, actuator_state_fields, bench_info_fields, command_fields, joint_state_fields, seconds_to_ns,
)
from .player import Step, TrajectoryPlayer
from .recorder import Recorder


class Clock(Protocol):
    def now(self) -> float: ...  # noqa: E704
    def sleep_until(self, t: float) -> None: ...  # noqa: E704


class Bench(Protocol):
    def apply(self, command: Command) -> None: ...  # noqa: E704
    def sample(self) -> JointSample: ...  # noqa: E704


class BenchSession:
    """Plays trajectories on a bench at ``rate`` [Hz] and records what the graph would publish.

    Args:
        bench: the driven bench. player: the trajectory player of its joints. recorder: a
        recorder of :func:`bench_topics` (``namespace``), started by the caller. clock: bench
        time. codec: message encoder (one is made from the recorder's typestore by default).
    """

    def __init__(self, bench: Bench, player: TrajectoryPlayer, recorder: Recorder, clock: Clock,
                 namespace: str = "", rate: float = 100.0, codec: Optional[MessageCodec] = None) -> None:
        if not rate > 0:
            raise ValueError(f"rate {rate!r}: must be positive Hz")
        self.bench, self.player, self.recorder, self.clock = bench, player, recorder, clock
        self.topics = bench_topics(namespace)
        self.period = 1.0 / rate
        self.codec = codec or MessageCodec(recorder.typestore)

    def play(self, trajectory: str, kp: float) -> int:
        """Play one trajectory to its end; returns the number of control cycles."""
        now = self.clock.now()
        _, info = self.player.start(trajectory, kp, now)
        self._publish("bench_info", BENCH_INFO, bench_info_fields(info), now, stamped=False)
        cycles, wake = 0, now
        while True:
            step = self._tick()
            sample = self.bench.sample()
            self._publish("joint_states", JOINT_STATE, joint_state_fields(sample), sample.time)
            self._publish("actuator_states", ACTUATOR_STATE, actuator_state_fields(sample), sample.time)
            cycles += 1
            if step.info is not None:
                return cycles
            wake += self.period
            self.clock.sleep_until(wake)

    def _tick(self) -> Step:
        now = self.clock.now()
        step = self.player.tick(now)
        if step.command is not None:
            self.bench.apply(step.command)
            self._publish("commands", ACTUATOR_COMMAND, command_fields(step.command), now)
        if step.info is not None:
            self._publish("bench_info", BENCH_INFO, bench_info_fields(step.info), now, stamped=False)
        return step

    def _publish(self, base: str, msgtype: str, fields: Mapping[str, object], t: float, stamped: bool = True) -> None:
        ns = seconds_to_ns(t)
        self.recorder.receive(self.topics[base], ns, self.codec.encode(msgtype, fields, ns if stamped else None))

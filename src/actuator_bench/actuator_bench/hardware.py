"""The servo as ros2_control hardware, without ROS: the core of the control node.

ros2_control's hardware interfaces are C++ plugins; a Python driver joins a controller manager
through ``topic_based_ros2_control/TopicBasedSystem``, which publishes the controllers' joint
commands as ``sensor_msgs/JointState`` (positions [rad]) and reads the joint states from a topic.
:class:`TopicHardware` is the other end of those two topics for any
:class:`~actuator_models.bench.Bench` (Dynamixel, Feetech, eRob, their emulators, MuJoCo):
:meth:`~TopicHardware.command` keeps the latest goal of each joint, and every
:meth:`~TopicHardware.tick` is one cycle of the bench loop (read -> write, as
:class:`~actuator_bench.loop.BenchLoop`): it samples the joints, then sends the latest goals with
the torque on and the run's gain. The sample of the cycle is what the node publishes as the
joint states, stamped with its bench time.

Fail-safe: when no command came for ``command_timeout`` seconds of bench time (the controller
manager died, the topic-based system stopped publishing) the torque is released, and it stays
released until :meth:`~TopicHardware.set_torque` re-arms it (a controller that comes back does
not move the servo by itself); :meth:`~TopicHardware.close` releases the torque and closes the
bench. The silence is judged up to the previous cycle, the last time the node could have taken a
command: a node that did not run for a while (a busy host) has the commands that came meanwhile
waiting in its queue, and rclpy's executor runs a due timer before the subscriptions, so the
first cycle after such a stall comes before them; judged up to its own time, that cycle would
release the torque after any stall of the node longer than the timeout. A controller that really
stopped is so noticed one cycle later. Identification needs the torque off in the middle of a
goal (``lift_and_drop`` drops the pendulum after 2 s): :meth:`~TopicHardware.set_torque` does
that too (the controllers only send positions).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

from actuator_models.bench import Bench, Command

from .loop import Cycle

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class HardwareSettings:
    """How commands reach the servo.

    Attributes:
        kp: firmware gain sent with every command, one per bench joint (actuator units).
        command_timeout: torque released when no command came for this long [s of bench time].
    """

    kp: Tuple[float, ...]
    command_timeout: float = 0.5

    def __post_init__(self) -> None:
        if not self.command_timeout > 0:
            raise ValueError(f"command_timeout {self.command_timeout!r}: must be positive seconds")
        if not all(0 < k < math.inf for k in self.kp):
            raise ValueError(f"kp {list(self.kp)}: every gain must be positive")


class TopicHardware:
    """A bench driven by position commands from a topic-based ros2_control system.

    Args:
        bench: the open bench (closed by :meth:`close`). settings: gains and command timeout.
    """

    def __init__(self, bench: Bench, settings: HardwareSettings) -> None:
        if len(settings.kp) != len(bench.joints):
            raise ValueError(f"kp: {len(settings.kp)} gains for {len(bench.joints)} joints {list(bench.joints)}")
        self.bench, self.settings = bench, settings
        self.kp: Dict[str, float] = dict(zip(bench.joints, settings.kp))
        self.goals: Dict[str, float] = {}
        self.applied: Dict[str, float] = {}  # the goals the bench last took
        self.received = -math.inf   # bench time [s] of the last command
        self.ticked: Optional[float] = None  # bench time [s] of the previous cycle
        self.armed = True           # torque may be on (False after a timeout or set_torque(False))
        self.driving = False        # the last cycle sent goals with the torque on
        self.timeouts = 0           # times the command timeout released the torque

    def command(self, name: Sequence[str], position: Sequence[float]) -> None:
        """Take the goals [rad] of a command message (non-finite ones, such as the topic-based
        system's NaN before a controller claims a joint, are ignored); ValueError for a joint
        that is not on the bench (the URDF and the bench disagree) or arrays of other lengths."""
        if len(name) != len(position):  # zip kept the first goals of a message it could not read
            raise ValueError(f"command: {len(position)} positions for {len(name)} joints {list(name)}")
        unknown = [n for n in name if n not in self.kp]
        if unknown:
            raise ValueError(f"command for unknown joint(s) {unknown}; this bench has {list(self.bench.joints)}")
        goals = {n: float(p) for n, p in zip(name, position) if math.isfinite(p)}
        if goals:
            self.goals.update(goals)
            self.received = self.bench.clock.now()

    def set_gain(self, kp: float) -> None:
        """The firmware gain of every joint from the next cycle on (actuator units)."""
        if not 0 < kp < math.inf:
            raise ValueError(f"gain {kp!r}: must be positive")
        self.kp = {j: float(kp) for j in self.kp}

    def set_torque(self, enabled: bool) -> Optional[Command]:
        """Arm (the next fresh command turns the torque on) or release the torque now; the
        release command sent, None when arming."""
        self.armed = enabled
        return None if enabled else self._release()

    def disarm(self) -> None:
        """Release the torque in the next cycle, right after its sample: the release is stamped
        with the cycle's time, as the cycle's goals are (a run's scheduled release). A bench's
        clock and its samples' time may differ (a simulation paced by the wall clock lags it after
        a stall), so a release stamped by the clock between two cycles could precede, in stamps, a
        sample that already shows it."""
        self.armed = False

    def tick(self) -> Cycle:
        """One cycle: read every joint, then write the latest goals (torque on), or release the
        torque when disarmed (:meth:`disarm`) or when, at the previous cycle, no command had come
        for the command timeout. ValueError when the bench refuses a goal (nothing sent): the
        goals the bench last took stay, so one bad command costs one cycle, not every cycle
        until the next."""
        sample = self.bench.sample()
        now = self.bench.clock.now()
        looked, self.ticked = (now if self.ticked is None else self.ticked), now
        fresh = looked - self.received <= self.settings.command_timeout
        if self.driving and not self.armed:
            return Cycle(sample.time, sample, self._release())
        if self.armed and fresh and self.goals:
            names = tuple(j for j in self.bench.joints if j in self.goals)
            command = Command(names, tuple(self.goals[j] for j in names), (True,) * len(names),
                              tuple(self.kp[j] for j in names))
            try:
                self.bench.apply(command)
            except ValueError:  # a goal the bench refuses (outside a joint's limits): nothing was sent
                self.goals = dict(self.applied)  # forgotten: the joints keep their goals, the next cycle runs
                raise
            self.applied = dict(self.goals)
            self.driving = True
            return Cycle(sample.time, sample, command)
        if self.driving and not fresh:
            self.timeouts += 1
            self.armed = False
            LOG.warning("no command for %g s: torque released (re-arm with set_torque(True))",
                        self.settings.command_timeout)
            return Cycle(sample.time, sample, self._release())
        return Cycle(sample.time, sample)

    def _release(self) -> Command:
        """Release every joint; the release command. A release the bench did not take (a driver
        error) leaves the hardware driving and disarmed, so that each cycle tries it again until
        it goes through."""
        command = Command.release(self.bench.joints, [self.goals.get(j, 0.0) for j in self.bench.joints])
        self.bench.release()
        self.driving = False
        return command

    def close(self) -> None:
        """Release the torque and close the bench (closed even when the release fails)."""
        try:
            self._release()
        except Exception as error:  # a dead bus must not keep the bench from closing
            LOG.error("releasing the torque failed: %s", error)
        finally:
            self.bench.close()

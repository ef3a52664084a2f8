"""Trajectory player (ROS-free core of the trajectory node).

Plays, onto a bench's joints, either one of the four identification trajectories of
``actuator_models.trajectories`` (the same goal on every joint) or one of the 2R arm paths of
``actuator_sim.paths`` (end-effector path turned into shoulder and elbow goals by the arm's
inverse kinematics; ``actuator_sim`` and MuJoCo are imported only when a path is played).
Every :meth:`TrajectoryPlayer.tick` gives the command of that instant with the run's gain;
when a run ends (or is stopped) the player sends one last command releasing the torque, and
publishes the bench info with an empty trajectory, which closes the run in recordings.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence, Tuple, Union

import numpy as np
from actuator_models.trajectories import TRAJECTORIES, Trajectory

from .messages import BenchInfo, Command

#: Names of the 2R arm paths (``actuator_sim.paths.PATHS``), listed here to avoid importing MuJoCo.
ARM_PATHS = ("circle", "square", "square_wave", "triangle_wave")


@dataclass(frozen=True)
class Schedule:
    """Goals of every joint over time.

    Attributes:
        name: trajectory or path name. duration [s].
        goal: time [s] -> goal position per joint [rad]. enable: time [s] -> torque enable per joint.
    """

    name: str
    duration: float
    goal: Callable[[float], np.ndarray]
    enable: Callable[[float], np.ndarray]


def identification_schedule(name: Union[str, Trajectory], joints: int) -> Schedule:
    """An identification trajectory (by name, or a :class:`~actuator_models.trajectories.Trajectory`
    such as a shortened one), the same on each of ``joints`` joints."""
    trajectory = TRAJECTORIES[name] if isinstance(name, str) else name
    return Schedule(
        trajectory.name,
        trajectory.duration,
        lambda t: np.full(joints, float(trajectory.goal(t))),
        lambda t: np.full(joints, bool(trajectory.enable(t))),
    )


def arm_path_schedule(name: str, arm: str) -> Schedule:
    """A 2R arm path (shoulder, elbow) of a shipped arm (``"mx"`` or ``"erob"``)."""
    import mujoco
    from actuator_sim.arm import ELBOW_BRANCH, ARMS, link_lengths, workspace
    from actuator_sim.kinematics import inverse
    from actuator_sim.models import read_model
    from actuator_sim.paths import PathTiming, path, path_targets

    if arm not in ARMS:
        raise ValueError(f"unknown arm {arm!r}; expected one of {', '.join(ARMS)}")
    lengths = link_lengths(mujoco.MjModel.from_xml_string(read_model(ARMS[arm].mjcf)))
    timing, unit_path, area = PathTiming(), path(name), workspace(*lengths)

    def goal(t: float) -> np.ndarray:
        y, z = path_targets(unit_path, np.asarray(t), *area, timing)
        return np.array(inverse(y, z, *lengths, elbow=ELBOW_BRANCH), dtype=float)

    return Schedule(name, timing.duration, goal, lambda t: np.ones(2, dtype=bool))


def schedule(name: str, joints: int, arm: str = "mx") -> Schedule:
    """The schedule of an identification trajectory or of a 2R path."""
    if name in TRAJECTORIES:
        return identification_schedule(name, joints)
    if name in ARM_PATHS:
        if joints != 2:
            raise ValueError(f"path {name!r} drives a 2R arm (shoulder, elbow), not {joints} joint(s)")
        return arm_path_schedule(name, arm)
    raise ValueError(f"unknown trajectory {name!r}; expected one of {', '.join((*TRAJECTORIES, *ARM_PATHS))}")


@dataclass(frozen=True)
class Step:
    """What to publish after a tick: a command and/or new bench info (None: nothing)."""

    command: Optional[Command] = None
    info: Optional[BenchInfo] = None


@dataclass(frozen=True)
class _Run:
    schedule: Schedule
    kp: float
    start: Optional[float]  # None: at the next tick


class TrajectoryPlayer:
    """Plays one schedule at a time onto ``joints``.

    Args:
        joints: joint names, in the order of the schedules' goals (shoulder, elbow for paths).
        bench: the bench description published as bench info (its trajectory and kp are set
            per run).
        arm: shipped 2R arm whose geometry paths use (``"mx"`` or ``"erob"``).
    """

    def __init__(self, joints: Sequence[str], bench: BenchInfo, arm: str = "mx") -> None:
        if not joints:
            raise ValueError("the player needs at least one joint")
        self.joints: Tuple[str, ...] = tuple(joints)
        self.arm = arm
        self.info = replace(bench, trajectory="")
        self._run: Optional[_Run] = None
        self._last_goal = np.zeros(len(self.joints))

    @property
    def running(self) -> Optional[str]:
        """Name of the schedule being played, None when idle."""
        return self._run.schedule.name if self._run else None

    def start(self, name: Union[str, Schedule], kp: float, now: Optional[float] = None) -> Tuple[Schedule, BenchInfo]:
        """Start ``name`` (a trajectory or path name, or a :class:`Schedule`) at gain ``kp`` at
        time ``now`` [s], or at the next :meth:`tick` when None (so that the run's first command
        is its t = 0 however late that tick comes); replaces a running one."""
        if not kp > 0:
            raise ValueError(f"gain {kp!r}: must be positive")
        plan = name if isinstance(name, Schedule) else schedule(name, len(self.joints), self.arm)
        self._run = _Run(plan, float(kp), now)
        self.info = replace(self.info, trajectory=plan.name, kp=float(kp))
        return plan, self.info

    def stop(self) -> Step:
        """Stop now: torque released and bench info back to idle (empty Step if already idle)."""
        if self._run is None:
            return Step()
        self._run = None
        self.info = replace(self.info, trajectory="")
        return Step(Command.release(self.joints, self._last_goal.tolist()), self.info)

    def tick(self, now: float) -> Step:
        """The command at time ``now`` [s]; at the end of the run, the release and idle info."""
        run = self._run
        if run is None:
            return Step()
        start = run.start
        if start is None:
            start = now
            run = self._run = replace(run, start=now)
        t = now - start
        if t > run.schedule.duration + 1e-6:  # a tick on the last instant (within 1 us of rounding) plays it
            return self.stop()
        goal, enable = run.schedule.goal(t), run.schedule.enable(t)
        self._last_goal = goal
        n = len(self.joints)
        return Step(Command(self.joints, tuple(map(float, goal)), tuple(map(bool, enable)), (run.kp,) * n))

"""Trajectory player (ROS-free core of the trajectory node).

Plays, onto a bench's joints, either one of the four identification trajectories of
``actuator_models.trajectories`` (the same goal on every joint) or one of the 2R arm paths of
``actuator_sim.paths`` (end-effector path turned into shoulder and elbow goals by the arm's
inverse kinematics; ``actuator_sim`` and MuJoCo are imported only when a path is played).
Every :meth:`TrajectoryPlayer.tick` gives the command of that instant with the run's gain.
A run started with a :class:`Prepare` first moves the joints from where they are to its first
waypoint and holds them there (:func:`move_schedule`, the move ``record`` and the control player
make too), outside the run. A run's bench info comes with its first command (the tick of its
t = 0), so that its stamp is the run's start on the bench clock. When a run ends (or is stopped) the player sends one last command releasing the torque, and
publishes the bench info with an empty trajectory, which closes the run in recordings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence, Tuple, Union

import numpy as np
from actuator_models.trajectories import TRAJECTORIES, Trajectory, cubic

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


@dataclass(frozen=True)
class Prepare:
    """The move before a run: a cubic from where the joints are to the run's first waypoint in
    ``move`` [s], then ``hold`` [s] there (torque on, the run's gain)."""

    move: float
    hold: float

    def __post_init__(self) -> None:
        if not (self.move >= 0 and self.hold >= 0):
            raise ValueError(f"prepare move {self.move!r} s, hold {self.hold!r} s: must be >= 0")


#: The pre-move of the bench node's runs and of the control player's goals (one, so that the two
#: paths start their runs alike): 2 s to the first waypoint, 1 s at rest there.
RUN_PREPARE = Prepare(move=2.0, hold=1.0)


def move_schedule(start: Sequence[float], target: Union[Sequence[float], np.ndarray], prepare: Prepare) -> Schedule:
    """The pre-move of ``prepare`` from ``start`` to ``target`` [rad] per joint (zero end
    velocities), lasting ``prepare.move + prepare.hold`` [s]."""
    q0, q1 = np.asarray(start, dtype=float), np.asarray(target, dtype=float)
    move = max(prepare.move, 1e-9)
    return Schedule("prepare", prepare.move + prepare.hold,
                    lambda t: q0 + (q1 - q0) * float(cubic(min(t, move), 0.0, move, 0.0, 1.0)),
                    lambda t: np.ones(len(q0), dtype=bool))


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


def known_trajectory(name: str) -> str:
    """``name`` when it is an identification trajectory or a 2R path, else ValueError naming them."""
    if name not in TRAJECTORIES and name not in ARM_PATHS:
        raise ValueError(f"unknown trajectory {name!r}; expected one of {', '.join((*TRAJECTORIES, *ARM_PATHS))}")
    return name


def schedule(name: str, joints: int, arm: str = "mx") -> Schedule:
    """The schedule of an identification trajectory or of a 2R path."""
    if known_trajectory(name) in TRAJECTORIES:
        return identification_schedule(name, joints)
    if joints != 2:
        raise ValueError(f"path {name!r} drives a 2R arm (shoulder, elbow), not {joints} joint(s)")
    return arm_path_schedule(name, arm)


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
    prepare: Optional[Prepare] = None  # a move to the first waypoint still to make
    move: Optional[Schedule] = None  # that move, from where the joints were at its first tick
    announced: bool = False  # the run's bench info went out (with its first command)


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

    def start(self, name: Union[str, Schedule], kp: float, now: Optional[float] = None,
              prepare: Optional[Prepare] = None) -> Schedule:
        """Start ``name`` (a trajectory or path name, or a :class:`Schedule`) at gain ``kp`` at
        time ``now`` [s], or at the next :meth:`tick` when None (so that the run's first command
        is its t = 0 however late that tick comes); replaces a running one. With ``prepare`` the
        joints first move to the first waypoint (from the positions the first tick is given) and
        the run starts after the hold. The run's bench info comes with its first command (a
        tick's step), stamped as that command: the run's t = 0."""
        if not 0 < kp < math.inf:  # an infinite gain too: no firmware takes it
            raise ValueError(f"gain {kp!r}: must be positive")
        plan = name if isinstance(name, Schedule) else schedule(name, len(self.joints), self.arm)
        self._run = _Run(plan, float(kp), now, prepare)
        self.info = replace(self.info, trajectory=plan.name, kp=float(kp))
        return plan

    def stop(self) -> Step:
        """Stop now: torque released and bench info back to idle (empty Step if already idle)."""
        if self._run is None:
            return Step()
        self._run = None
        self.info = replace(self.info, trajectory="")
        return Step(Command.release(self.joints, self._last_goal.tolist()), self.info)

    def tick(self, now: float, position: Optional[Sequence[float]] = None) -> Step:
        """The command at time ``now`` [s] (``position``: the joints' positions [rad] then, which
        a pre-move starts from); at the end of the run, the release and idle info."""
        run = self._run
        if run is None:
            return Step()
        if run.prepare is not None:
            return self._prepare(run, run.prepare, now, position)
        start = run.start
        if start is None:
            start = now
            run = self._run = replace(run, start=now)
        t = now - start
        if t > run.schedule.duration + 1e-6:  # a tick on the last instant (within 1 us of rounding) plays it
            return self.stop()
        goal, enable = run.schedule.goal(t), run.schedule.enable(t)
        self._last_goal = goal
        info = None if run.announced else self.info
        if info is not None:
            self._run = replace(run, announced=True)
        return Step(self._command(goal, enable, run.kp), info)

    def _prepare(self, run: _Run, prepare: Prepare, now: float, position: Optional[Sequence[float]]) -> Step:
        """A tick of the pre-move; after its last (the hold done) the run's t = 0 is the next tick."""
        move, start = run.move, run.start
        if move is None or start is None:
            if position is None or len(position) != len(self.joints):
                raise ValueError(f"a pre-move needs the positions of joints {list(self.joints)}")
            move, start = move_schedule(position, run.schedule.goal(0.0), prepare), now
            run = self._run = replace(run, move=move, start=start)
        t = now - start
        goal = move.goal(t)
        self._last_goal = goal
        command = self._command(goal, move.enable(t), run.kp)
        if t < move.duration - 1e-6:
            return Step(command)
        self._run = replace(run, prepare=None, move=None, start=None)
        return Step(command)

    def _command(self, goal: np.ndarray, enable: np.ndarray, kp: float) -> Command:
        return Command(self.joints, tuple(map(float, goal)), tuple(map(bool, enable)), (kp,) * len(self.joints))

"""Identification trajectories as ``FollowJointTrajectory`` goals (no ROS here).

Through ros2_control a trajectory is a goal of the ``joint_trajectory_controller``: its waypoints
(time from start [s], one position [rad] per joint) and, since controllers only command
positions, the instant the torque is released (``lift_and_drop`` drops the pendulum after 2 s),
which the player asks of the control node (its ``torque_enable`` service). The goals come from the
same schedules as the bench node's player (:func:`actuator_bench.player.schedule`): the four
identification trajectories (the same goal on every joint) and the 2R arm paths, clipped into the
robot's joint ranges where it has some (the SO-100's gripper opens from -0.17 rad only: a goal
beyond a joint's range is refused by the servo driver).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Tuple

import numpy as np

from .player import schedule


def check_run_times(start_time: float, release_time: float, end_time: float, now: float = 0.0) -> None:
    """The times of a run named on the control node at ROS time ``now`` [s] (RunTrajectory
    ``start_time``, ROS time [s]; ``release_time`` and ``end_time``, s after it; 0: none):
    ValueError naming the first one it could not keep. Each is a finite number >= 0 (a NaN or
    negative one was taken as none, an infinite one kept the run waiting for ever), a release or an
    end counts from a start_time, and a start_time is after ``now`` (a run named after its start
    began late, with its goal's first commands already gone: the control player names it again)."""
    for name, value in (("start_time", start_time), ("release_time", release_time), ("end_time", end_time)):
        if not 0 <= value < math.inf:
            raise ValueError(f"{name} {value!r}: must be a finite number of seconds >= 0 (0: none)")
    for name, value in (("release_time", release_time), ("end_time", end_time)):
        if value > 0 and not start_time > 0:
            raise ValueError(f"{name} {value!r}: counts from start_time, which is 0 (give the run's start_time)")
    if 0 < start_time <= now:
        raise ValueError(f"start_time {start_time!r}: {now - start_time:.3f} s past when the run was named "
                         f"(name a run before its start)")


#: Waypoint spacing [s]: the controller manager's period at 100 Hz.
WAYPOINT_PERIOD = 0.01


@dataclass(frozen=True)
class GoalPlan:
    """One trajectory as a controller goal.

    Attributes:
        name: trajectory or path name. joints: joint names. times: waypoint times from the
        start [s], increasing, the first one period after the start. positions: waypoints
        [rad], shape ``(len(times), len(joints))``. release: time from the start [s] at which
        the torque goes off (None: on throughout). goal: the schedule's goal function (time
        [s] -> positions per joint [rad]), for comparisons.
    """

    name: str
    joints: Tuple[str, ...]
    times: np.ndarray
    positions: np.ndarray
    release: Optional[float]
    goal: object

    @property
    def duration(self) -> float:
        return float(self.times[-1])


Limits = Optional[Sequence[Tuple[float, float]]]


def clipped(goal: Callable, limits: Limits) -> Callable:
    """``goal`` (time [s] -> positions [rad]) clipped into ``limits`` ((lower, upper) [rad] per
    joint; None: unclipped)."""
    if limits is None:
        return goal
    low, high = (np.array(side, dtype=float) for side in zip(*limits))
    return lambda t: np.clip(np.asarray(goal(t), dtype=float), low, high)


def goal_plan(name: str, joints: Sequence[str], arm: str = "mx", period: float = WAYPOINT_PERIOD,
              limits: Limits = None) -> GoalPlan:
    """The goal of trajectory or path ``name`` on ``joints`` (``arm``: the 2R arm whose geometry
    a path uses), waypoints every ``period`` [s], clipped into ``limits`` ((lower, upper) [rad]
    per joint, :func:`actuator_bench.control_description.joint_limits`; None: unclipped);
    ValueError for an unknown name or limits that do not fit the joints."""
    if not period > 0:
        raise ValueError(f"period {period!r}: must be positive seconds")
    if limits is not None and len(limits) != len(joints):
        raise ValueError(f"limits: {len(limits)} ranges for {len(joints)} joints {list(joints)}")
    plan = schedule(name, len(joints), arm)
    goal = clipped(plan.goal, limits)
    times = np.arange(1, int(round(plan.duration / period)) + 1) * period
    positions = np.array([goal(t) for t in times], dtype=float).reshape(len(times), len(joints))
    enabled = np.array([np.all(plan.enable(t)) for t in times])
    off = np.flatnonzero(~enabled)
    release = float(times[off[0]]) if off.size else None
    return GoalPlan(plan.name, tuple(joints), times, positions, release, goal)

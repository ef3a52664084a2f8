"""Identification trajectories as ``FollowJointTrajectory`` goals (no ROS here).

Through ros2_control a trajectory is a goal of the ``joint_trajectory_controller``: its waypoints
(time from start [s], one position [rad] per joint) and, since controllers only command
positions, the instant the torque is released (``lift_and_drop`` drops the pendulum after 2 s),
which the player asks of the control node (its ``torque_enable`` service). The goals come from the
same schedules as the bench node's player (:func:`actuator_bench.player.schedule`): the four
identification trajectories (the same goal on every joint) and the 2R arm paths.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

import numpy as np

from .player import schedule

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


def goal_plan(name: str, joints: Sequence[str], arm: str = "mx", period: float = WAYPOINT_PERIOD) -> GoalPlan:
    """The goal of trajectory or path ``name`` on ``joints`` (``arm``: the 2R arm whose geometry
    a path uses), waypoints every ``period`` [s]; ValueError for an unknown name."""
    if not period > 0:
        raise ValueError(f"period {period!r}: must be positive seconds")
    plan = schedule(name, len(joints), arm)
    times = np.arange(1, int(round(plan.duration / period)) + 1) * period
    positions = np.array([plan.goal(t) for t in times], dtype=float).reshape(len(times), len(joints))
    enabled = np.array([np.all(plan.enable(t)) for t in times])
    off = np.flatnonzero(~enabled)
    release = float(times[off[0]]) if off.size else None
    return GoalPlan(plan.name, tuple(joints), times, positions, release, plan.goal)

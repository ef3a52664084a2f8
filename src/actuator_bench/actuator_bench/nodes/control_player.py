"""Control player: identification trajectories played through the controllers, recorded.

    ros2 run actuator_bench control_player --ros-args -p robot:=pendulum \
        -p trajectories:="[lift_and_drop, sin_sin]" -p kp:=400.0 -p record:=true

For each trajectory (the four identification trajectories, or the 2R paths with ``robot:=arm2r``;
clipped into the robot's joint ranges) it moves the joints slowly to the trajectory's start and holds them there (2 s + 1 s, not part
of the run: a run starts at rest at its first waypoint, as in the published logs, the
``record`` command's recordings and the bench node's runs), arms the torque, sends the
trajectory as a ``FollowJointTrajectory`` goal to ``/joint_trajectory_controller``, stamped to
start 0.5 s later, names the run on the control node (``/hardware/announce_run``: bench_info
carries the trajectory and gain, as recordings need; with the trajectory's release instant,
``lift_and_drop``: 2 s, at which the control node releases the torque on its own clock; the
control node ends the run at the trajectory's duration, on its own clock) and, once the goal is
done, releases the torque. Where the goal or the name arrived after the start (a busy host), the
goal is cancelled and all is done again with a longer delay. With
``record:=true`` the control node's recorder records all runs into one bag
(``actuator-bench bag2json`` turns it into logs that ``actuator-models fit`` accepts). Ctrl-C or
SIGTERM cancels the goal and releases the torque. ``namespaces:="[real, sim]"`` plays every
goal on the control graphs of those namespaces at once (compare_control.launch.py). Exit
status: 0 every goal succeeded, 1 one failed, 2 bad parameters, 130 interrupted. :class:`ControlPlayer` is the same for tests.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, List, Optional

import rclpy
from actuator_interfaces.srv import RunTrajectory
from builtin_interfaces.msg import Duration, Time
from control_msgs.action import FollowJointTrajectory
from controller_manager_msgs.srv import ListControllers
from rclpy.action import ActionClient
from rclpy.action.client import ClientGoalHandle
from rclpy.executors import Executor, SingleThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions
from std_srvs.srv import SetBool
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from ..control_description import HARDWARE_NAMESPACE, hardware_namespace, joint_limits, robot
from ..control_goals import GoalPlan, goal_plan
from ..node_main import STOP_SIGNALS
from ..player import RUN_PREPARE


#: The move to a run's first waypoint before it starts, and the hold there [s] (those of the bench
#: node's runs).
PREPARE_MOVE = RUN_PREPARE.move
PREPARE_HOLD = RUN_PREPARE.hold
#: A run's goal starts this long after it is sent [s] (the goal's stamp; the control node names
#: the run from that instant: its logs start with the trajectory, two graphs' runs align). The
#: goal and the run's name must reach the controllers before then; where they did not, the goal is
#: tried again with the next delay, up to the last.
START_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
#: Pause between two questions to the controller manager while waiting for a controller [s]: each
#: is a service round trip through the manager's executor, busy with the update loop.
ACTIVE_POLL = 0.2


def duration(seconds: float) -> Duration:
    sec = int(seconds)
    return Duration(sec=sec, nanosec=int(round((seconds - sec) * 1e9)))


def trajectory_msg(plan: GoalPlan) -> JointTrajectory:
    """The goal's waypoints (stamp zero: the controller starts it on arrival)."""
    return JointTrajectory(joint_names=list(plan.joints), points=[
        JointTrajectoryPoint(positions=[float(q) for q in row], time_from_start=duration(float(t)))
        for t, row in zip(plan.times, plan.positions)])


@dataclass
class Played:
    """What a goal gave: the action's ``error_code`` (0 success; None: not accepted or not done),
    ``message``, its feedback (the controller's desired and actual states each cycle) and
    ``start``, the goal's start on the ROS clock [s] (the goal's stamp, a delay of
    :data:`START_DELAYS` after it was sent: the controller leaves the feedback's
    ``time_from_start`` at zero), and ``tries``, how many times the goal was sent."""

    error_code: Optional[int] = None
    message: str = ""
    feedback: List[FollowJointTrajectory.Feedback] = field(default_factory=list)
    start: Optional[float] = None
    tries: int = 0


class ControlPlayer:
    """Plays goals through a controller onto the control node of namespace ``hardware``.

    ``executor`` (holding ``node``) is spun by the player's waits, on the calling thread: an
    ``ActionClient.send_goal_async`` called while another thread spins can lose the goal's
    response (rclpy registers the pending request after sending it; the client then waits forever,
    logging "Ignoring unexpected goal response"), so nothing else may spin it meanwhile."""

    def __init__(self, node: Node, executor: Executor, controller: str = "joint_trajectory_controller",
                 hardware: str = HARDWARE_NAMESPACE) -> None:
        self.node, self.executor = node, executor
        self.controller = controller.rpartition("/")[2]
        manager = "/".join(filter(None, (controller.rpartition("/")[0], "controller_manager")))
        self.manager = node.create_client(ListControllers, f"/{manager}/list_controllers")
        self.action = ActionClient(node, FollowJointTrajectory, f"/{controller}/follow_joint_trajectory")
        self.torque = node.create_client(SetBool, f"/{hardware}/torque_enable")
        self.announce = node.create_client(RunTrajectory, f"/{hardware}/announce_run")
        self.recorder = node.create_client(SetBool, f"/{hardware}/recorder/record")

    @classmethod
    def in_namespace(cls, node: Node, executor: Executor, namespace: str = "") -> "ControlPlayer":
        """The player of the control graph in ``namespace`` (control.launch.py namespace:=; "":
        the root)."""
        prefix = f"{namespace.strip('/')}/" if namespace.strip("/") else ""
        return cls(node, executor, f"{prefix}joint_trajectory_controller", hardware_namespace(namespace))

    def wait_ready(self, timeout: float) -> bool:
        """Whether the controller is active (its action server exists once it is loaded, but it
        refuses goals until the spawner has activated it) and the control node's services are up."""
        deadline = time.monotonic() + timeout
        return (self.action.wait_for_server(timeout_sec=timeout)
                and self.torque.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic()))
                and self.announce.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic()))
                and self.manager.wait_for_service(timeout_sec=max(0.0, deadline - time.monotonic()))
                and self.wait_active(deadline))

    def wait_active(self, deadline: float) -> bool:
        """Whether the controller is active by ``deadline`` (``time.monotonic()`` [s]), asking the
        controller manager every :data:`ACTIVE_POLL` seconds."""
        while not self.active():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            self.wait(lambda: False, min(ACTIVE_POLL, left))
        return True

    def active(self) -> bool:
        """Whether the controller manager lists the controller as active (one query, answered
        within 5 s)."""
        future = self.manager.call_async(ListControllers.Request())
        if not self.wait(future.done, 5.0):
            return False
        return any(c.name == self.controller and c.state == "active" for c in future.result().controller)

    def wait(self, done: Callable[[], bool], timeout: float, stop: Optional[threading.Event] = None) -> bool:
        """Spin until ``done()``, ``timeout`` [s] or ``stop``; whether done."""
        deadline = time.monotonic() + timeout
        while not done() and time.monotonic() < deadline and not (stop and stop.is_set()):
            self.executor.spin_once(timeout_sec=0.01)
        return done()

    def call(self, client, request, timeout: float = 30.0):
        future = client.call_async(request)
        if not self.wait(future.done, timeout):
            raise RuntimeError(f"no answer from {client.srv_name} in {timeout:g} s")
        return future.result()

    def record(self, on: bool) -> str:
        """Start or stop the recorder; its answer (the bag path)."""
        if not self.recorder.wait_for_service(timeout_sec=30.0):
            raise RuntimeError(f"no recorder at {self.recorder.srv_name}")
        return self.call(self.recorder, SetBool.Request(data=on)).message

    def prepare(self, plan: GoalPlan, stop: Optional[threading.Event] = None) -> bool:
        """Arm the torque and move slowly to the plan's first waypoint, then hold it (not part of
        the run: a run starts at rest, as the ``record`` command's recordings do); whether it completed."""
        self.call(self.torque, SetBool.Request(data=True))
        first = [float(q) for q in plan.positions[0]]
        hold = JointTrajectory(joint_names=list(plan.joints), points=[
            JointTrajectoryPoint(positions=first, time_from_start=duration(PREPARE_MOVE)),
            JointTrajectoryPoint(positions=first, time_from_start=duration(PREPARE_MOVE + PREPARE_HOLD))])
        sent = self.action.send_goal_async(FollowJointTrajectory.Goal(trajectory=hold))
        if not self.wait(sent.done, 30.0, stop) or not sent.result().accepted:
            return False
        result = sent.result().get_result_async()
        return self.wait(result.done, PREPARE_MOVE + PREPARE_HOLD + 30.0, stop)

    def play(self, plan: GoalPlan, kp: float, stop: Optional[threading.Event] = None) -> Played:
        """Move to the start and hold (:meth:`prepare`), send ``plan`` as a goal stamped to start
        a delay later (:data:`START_DELAYS`), name the run at gain ``kp`` (0: the bench's default;
        the control node releases the torque at the plan's release instant), wait for the goal,
        end the run (torque off) whatever happened. A goal the controller accepted only after its
        start (it skips the trajectory's beginning) or a run the control node would have named only
        then (it refuses a start already past) is cancelled, and the whole is done again, from the
        move to the start, with the next delay: on a busy host the service calls and the goal took
        longer than 0.5 s (a CI run: 2 s, and the release came before the lift). A goal that came
        after its end is refused by the controller and tried again the same way (a CI run: a goal
        stamped to start 1 s after it was sent reached the controller 10.6 s after)."""
        played = Played()
        try:
            for delay in START_DELAYS:
                if not self.prepare(plan, stop):
                    played.message = "the move to the start did not complete"
                    return played
                played.tries += 1
                handle = self.begin(plan, kp, delay, played, stop)
                if handle is not None:
                    return self.finish(handle, plan, played, stop)
                if played.message:
                    return played
            played.message = (f"the goal or the run's name reached the controllers after the goal's start "
                              f"{played.tries} times, the last {START_DELAYS[-1]:g} s after it was sent: "
                              f"the host is too busy")
            return played
        finally:
            try:  # stopped: the graph may be going down (its control node releases the torque itself)
                self.call(self.announce, RunTrajectory.Request(start=False), 2.0 if stop and stop.is_set() else 30.0)
            except RuntimeError:
                if not (stop and stop.is_set()):
                    raise

    def begin(self, plan: GoalPlan, kp: float, delay: float, played: Played,
              stop: Optional[threading.Event]) -> Optional[ClientGoalHandle]:
        """Send ``plan`` stamped to start ``delay`` [s] from now, then name the run; the goal's
        handle, or None: too late (the goal cancelled, nothing named) or failed
        (``played.message`` says why)."""
        self.call(self.torque, SetBool.Request(data=True))
        start = self.now() + delay
        trajectory = trajectory_msg(plan)
        trajectory.header.stamp = Time(sec=int(start), nanosec=int(round((start - int(start)) * 1e9)) % 1_000_000_000)
        sent = self.action.send_goal_async(FollowJointTrajectory.Goal(trajectory=trajectory),
                                           feedback_callback=lambda message: played.feedback.append(message.feedback))
        if not self.wait(sent.done, 30.0, stop):
            played.message = "interrupted" if stop and stop.is_set() else "goal not answered in 30 s"
            return None
        if not sent.result().accepted:
            if self.now() > start + plan.duration:
                return None  # refused as ending in the past (the controller's rule): it came late
            played.message = "goal not accepted"
            return None
        handle = sent.result()
        name = RunTrajectory.Request(start=True, trajectory=plan.name, kp=float(kp), start_time=start,
                                     release_time=plan.release or 0.0, end_time=plan.duration)
        answer = self.call(self.announce, name) if self.now() < start else None
        if answer is not None and answer.success:
            played.start = start
            return handle
        refused = answer.message if answer is not None and self.now() < start else ""  # in time: not for lateness
        self.wait(handle.cancel_goal_async().done, 30.0, stop)
        if refused:
            raise ValueError(refused)
        return None

    def finish(self, handle: ClientGoalHandle, plan: GoalPlan, played: Played, stop: Optional[threading.Event]) -> Played:
        """Wait for the goal of ``handle`` (``plan``): its error code and message in ``played``."""
        result = handle.get_result_async()
        self.wait(result.done, plan.duration + 60.0, stop)
        if not result.done():
            handle.cancel_goal_async()
            played.message = "interrupted" if stop and stop.is_set() else "goal not done in time"
            return played
        played.error_code = result.result().result.error_code
        played.message = result.result().result.error_string
        return played

    def now(self) -> float:
        """The node's ROS time [s]."""
        return self.node.get_clock().now().nanoseconds * 1e-9


def main(args=None) -> int:
    stop = threading.Event()
    for number in STOP_SIGNALS:
        signal.signal(number, lambda *_: stop.set())
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # held since the executable began (node_main)
    rclpy.init(args=args, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node("control_player")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    log = node.get_logger()
    players: List[ControlPlayer] = []
    try:
        try:
            chosen = robot(node.declare_parameter("robot", "pendulum").value)
            names = list(node.declare_parameter("trajectories", ["lift_and_drop"]).value)
            kp = float(node.declare_parameter("kp", 0.0).value)
            arm = str(node.declare_parameter("arm", "mx").value)
            limits = joint_limits(chosen.name)  # goals within the joints' ranges (the SO-100's gripper)
            plans = [goal_plan(name, chosen.joints, arm, limits=limits) for name in names]
        except ValueError as error:
            log.fatal(f"error: {error}")
            return 2
        recording = bool(node.declare_parameter("record", False).value)
        namespaces = list(node.declare_parameter("namespaces", [""]).value) or [""]
        players.append(ControlPlayer.in_namespace(node, executor, namespaces[0]))
        for index, namespace in enumerate(namespaces[1:], 1):  # each on a node and executor of its own
            extra = rclpy.create_node(f"control_player_{index}")
            extra_executor = SingleThreadedExecutor()
            extra_executor.add_node(extra)
            players.append(ControlPlayer.in_namespace(extra, extra_executor, namespace))
        if not all(player.wait_ready(60.0) for player in players):
            log.fatal(f"no joint_trajectory_controller or control node answered in 60 s (namespaces {namespaces})")
            return 1
        if recording:
            for player in players:
                player.record(True)
        failed = 0
        try:
            for plan in plans:
                if stop.is_set():
                    break
                log.info(f"playing {plan.name} ({plan.duration:g} s) through the controllers")
                played = play_all(players, plan, kp, stop)
                failed += any(p.error_code != 0 for p in played)
                log.info(f"{plan.name}: " + ", ".join("done" if p.error_code == 0 else "failed: " + p.message
                                                       for p in played))
        finally:
            if recording:
                for player in players:
                    log.info(f"bag: {player.record(False)}")
        return 130 if stop.is_set() else int(failed > 0)
    finally:
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
        for player in players[1:]:  # the extra players' own nodes and executors
            player.executor.shutdown()
            player.node.destroy_node()
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()


def play_all(players: List[ControlPlayer], plan: GoalPlan, kp: float, stop: threading.Event) -> List[Played]:
    """``plan`` played by every player at once (a thread each: each spins its own executor)."""
    played: List[Played] = [Played() for _ in players]

    def run(index: int) -> None:
        played[index] = players[index].play(plan, kp, stop)

    threads = [threading.Thread(target=run, args=(index,)) for index in range(len(players))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return played


if __name__ == "__main__":
    sys.exit(main())

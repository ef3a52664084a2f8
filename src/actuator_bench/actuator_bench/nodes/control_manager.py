"""``ros2_control_node`` with a clean stop: its controllers are deactivated before it is stopped.

``ros2_control_node`` (ros2_control 4.19) aborts ("Asked to publish result for goal that does not
exist", exit -6) when Ctrl-C reaches it while a ``FollowJointTrajectory`` goal is active: the
trajectory controller's goal outlives the node's shutdown. This wrapper runs it as a child in a
session of its own (the terminal's Ctrl-C to the launch's process group does not reach it) with the
same arguments, and on SIGINT or SIGTERM first cancels every goal of the graph's action servers
(the trajectory controller's cancel callback ends its goal, the client gets the result; no
controller is deactivated: realtime_tools then retries an invalid EXECUTING -> CANCELED
transition every cycle), then sends the child SIGINT and exits with its status (0: clean). The
child gets SIGTERM when the wrapper dies, even by SIGKILL (Linux ``PR_SET_PDEATHSIG``, set
between fork and exec): in a session of its own, nothing else would stop it.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

from ..node_main import STOP_SIGNALS
from ..process_group import interrupt_group

#: Seconds to wait for the action servers' answers, then for the child to exit.
ANSWER_TIMEOUT = 5.0
#: Seconds to wait for the graph's action servers to be discovered.
DISCOVERY_TIME = 1.5
EXIT_TIMEOUT = 8.0
#: Seconds left to the controller to end cancelled goals before ros2_control_node is stopped.
CANCEL_SETTLE = 0.3


#: prctl option: the signal the calling process gets when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def dies_with(parent: int) -> Callable[[], None]:
    """A ``preexec_fn``: the child (between fork and exec) asks for SIGTERM when its parent dies,
    and sends it to itself if ``parent`` [pid] is already gone (died before the request)."""
    def preexec() -> None:
        if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGTERM)

    return preexec


def cancel_goals() -> str:
    """Cancel every goal of every action server on the graph (the trajectory controller's: its
    cancel callback ends the goal in the node's own executor); what was done, in words."""
    import time

    import rclpy
    from action_msgs.srv import CancelGoal
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.signals import SignalHandlerOptions

    context = rclpy.Context()
    rclpy.init(context=context, signal_handler_options=SignalHandlerOptions.NO)
    node = rclpy.create_node("control_manager_stop", context=context)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        deadline = time.monotonic() + DISCOVERY_TIME
        services: list = []
        while not services and time.monotonic() < deadline:  # the graph's discovery takes a moment
            executor.spin_once(timeout_sec=0.1)
            services = [name for name, types in node.get_service_names_and_types()
                        if name.endswith("/_action/cancel_goal") and "action_msgs/srv/CancelGoal" in types]
        cancelled = 0
        for name in services:
            client = node.create_client(CancelGoal, name)
            if not client.wait_for_service(timeout_sec=ANSWER_TIMEOUT):
                continue
            future = client.call_async(CancelGoal.Request())  # zero goal id and stamp: every goal
            executor.spin_until_future_complete(future, timeout_sec=ANSWER_TIMEOUT)
            cancelled += len(future.result().goals_canceling) if future.result() is not None else 0
        return f"{cancelled} goal(s) cancelled on {len(services)} action server(s)"
    finally:
        executor.remove_node(node)
        node.destroy_node()
        rclpy.try_shutdown(context=context)


def main(args=None) -> int:
    from ament_index_python.packages import get_package_prefix

    stop = threading.Event()
    for number in STOP_SIGNALS:
        signal.signal(number, lambda *_: stop.set())
    executable = Path(get_package_prefix("controller_manager")) / "lib" / "controller_manager" / "ros2_control_node"
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # held since node_main began; the child inherits the mask
    child = subprocess.Popen([str(executable), *sys.argv[1:]], start_new_session=True, preexec_fn=dies_with(os.getpid()))
    while child.poll() is None and not stop.wait(0.1):
        pass
    if child.poll() is None:
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)  # a second Ctrl-C (ros2 launch forwards one) changes nothing
        print(f"control_manager: stopping: {cancel_goals()}", flush=True)
        time.sleep(CANCEL_SETTLE)  # the controller ends the cancelled goal in its next cycles
        return interrupt_group(child, EXIT_TIMEOUT)  # the child leads a session (and group) of its own
    return child.returncode

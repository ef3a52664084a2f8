"""The controller manager's achieved update rate with the servo behind it (issue 36 acceptance).

Needs a sourced ROS 2 with the ros2_control add-on and this workspace built (README "With ROS
2"). Starts ``ros2 launch actuator_bench control.launch.py robot:=pendulum backend:=<backend>`` in
its own ROS domain, plays ``sin_sin`` through the joint_trajectory_controller and, while it plays,
counts the joint_state_broadcaster's ``/joint_states`` (one per controller-manager update, stamped
with the update's time) and the control node's ``/hardware/joint_states`` (one per hardware cycle,
stamped with bench time). Prints, for each stream, the achieved rate from the stamps, its
deviation from ``update_rate``, and the share of periods longer than 1.5 periods.

    python3 benchmarks/control_rate.py [--backend dynamixel_emulator] [--rate 100] [--seconds 5]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import rclpy
from rclpy.executors import SingleThreadedExecutor
from sensor_msgs.msg import JointState

from actuator_bench.control_goals import goal_plan
from actuator_bench.nodes.common import SENSOR_QOS
from actuator_bench.nodes.control_player import ControlPlayer
from actuator_bench.process_group import interrupt_group


def stamp(msg: JointState) -> float:
    return msg.header.stamp.sec + msg.header.stamp.nanosec * 1e-9


def summary(name: str, stamps: list, rate: float) -> str:
    t = np.sort(np.array(stamps))
    if len(t) < 3:
        return f"{name:24s} too few messages ({len(t)})"
    periods = np.diff(t)
    achieved = (len(t) - 1) / (t[-1] - t[0])
    late = np.mean(periods > 1.5 / rate)
    return (f"{name:24s} {achieved:7.2f} Hz ({100 * (achieved / rate - 1):+.1f} % of {rate:g} Hz), "
            f"{len(t)} messages, periods > 1.5/rate: {100 * late:.1f} %, longest {1e3 * periods.max():.1f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="dynamixel_emulator")
    parser.add_argument("--rate", type=float, default=100.0, help="update_rate [Hz]")
    parser.add_argument("--seconds", type=float, default=5.0, help="measured while the goal plays (< 6 s)")
    args = parser.parse_args()
    domain = random.Random(os.getpid()).randrange(101, 200)
    workdir = tempfile.mkdtemp(prefix="control_rate_")
    log = open(os.path.join(workdir, "launch.log"), "w")
    launch = subprocess.Popen(["ros2", "launch", "actuator_bench", "control.launch.py", "robot:=pendulum",
                               f"backend:={args.backend}", f"update_rate:={int(args.rate)}", "recorder:=false"],
                              env={**os.environ, "ROS_DOMAIN_ID": str(domain)}, cwd=workdir, stdout=log,
                              stderr=subprocess.STDOUT, start_new_session=True)
    rclpy.init(domain_id=domain)
    node = rclpy.create_node("control_rate")
    streams: dict = {"/joint_states": [], "/hardware/joint_states": []}
    window = threading.Event()
    for topic, stamps in streams.items():
        node.create_subscription(JointState, topic, lambda m, s=stamps: window.is_set() and s.append(stamp(m)),
                                 SENSOR_QOS)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:
        player = ControlPlayer(node, executor)  # spun by the player's waits (on the playing thread)
        if not player.wait_ready(180.0):
            print(f"error: the controllers did not come up; see {log.name}", file=sys.stderr)
            return 1
        playing = threading.Thread(target=player.play, args=(goal_plan("sin_sin", ("pendulum",)), 0.0), daemon=True)
        playing.start()
        time.sleep(0.5)
        window.set()
        time.sleep(args.seconds)
        window.clear()
        playing.join(timeout=60)
        print(f"control.launch.py robot:=pendulum backend:={args.backend} update_rate:={args.rate:g}, sin_sin playing, "
              f"{args.seconds:g} s, {os.cpu_count()} CPUs")
        print(summary("/joint_states (manager)", streams["/joint_states"], args.rate))
        print(summary("/hardware/joint_states", streams["/hardware/joint_states"], args.rate))
        return 0
    finally:
        interrupt_group(launch)
        executor.shutdown()
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    sys.exit(main())

"""The recorder node keeps every message of a burst it could not take at once (ROS 2 graph;
skipped where ROS 2 is absent).

The recorder's executor is not spun while a publisher (a deep, reliable writer history: only the
recorder's own reader history can drop a message) sends a burst of commands and bench infos,
as when a busy host leaves the recorder behind; then it is spun until it takes nothing more.
With the publishers' depth (10 commands, 1 bench_info) it kept only the last of them. Nothing
here depends on how fast the host is: the deadline only ends a failing wait.
"""

import os
import time

import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy is absent: source a ROS 2 installation to run the node tests")
pytest.importorskip("actuator_interfaces.msg", reason="actuator_interfaces is not built: colcon build and source it")
pytestmark = pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")

from actuator_interfaces.msg import ActuatorCommand, BenchInfo  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy  # noqa: E402

from actuator_bench.nodes.recorder_node import RecorderNode  # noqa: E402

BURST = 500  # commands: 2.5 s at 200 Hz, 50 times the publishers' depth


def test_recorder_keeps_a_burst_it_did_not_take_at_once(tmp_path):
    rclpy.init()
    try:
        recorder = RecorderNode(namespace="burst", parameter_overrides=[
            Parameter("topics", value=["commands", "bench_info"]), Parameter("output_dir", value=str(tmp_path)),
            Parameter("autostart", value=True)])
        source = rclpy.create_node("burst_source", namespace="burst")
        writer = QoSProfile(depth=BURST, reliability=ReliabilityPolicy.RELIABLE)
        commands = source.create_publisher(ActuatorCommand, "commands", writer)
        infos = source.create_publisher(BenchInfo, "bench_info", QoSProfile(
            depth=BURST, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL))
        deadline = time.monotonic() + 60.0
        while (commands.get_subscription_count() < 1 or infos.get_subscription_count() < 1) and time.monotonic() < deadline:
            time.sleep(0.05)  # discovery
        infos.publish(BenchInfo(trajectory="sin_sin", kp=400.0))
        for k in range(BURST):
            commands.publish(ActuatorCommand(name=["pendulum"], goal_position=[0.001 * k]))
        infos.publish(BenchInfo(trajectory=""))
        executor = SingleThreadedExecutor()
        executor.add_node(recorder)
        counts = recorder.recorder.counts
        deadline = time.monotonic() + 60.0
        while (counts["/burst/commands"] < BURST or counts["/burst/bench_info"] < 2) and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
        assert counts["/burst/commands"] == BURST  # depth 10: the last 10
        assert counts["/burst/bench_info"] == 2  # depth 1: only the run's end, its start lost
        executor.shutdown()
        recorder.destroy_node()
        source.destroy_node()
    finally:
        rclpy.try_shutdown()


def test_a_stop_waits_for_what_was_published_before_it(tmp_path):
    """A stop requested while the recorder still holds a burst it has not taken (a busy host: the
    run's end is in the backlog when the caller sees the run end) closes the bag with the whole
    burst, and without what was published after the request. Closed at once, the bag had the
    burst's first messages only (the executor serves the request after one pass over the topics)."""
    from std_srvs.srv import SetBool

    rclpy.init()
    try:
        recorder = RecorderNode(namespace="drain", parameter_overrides=[
            Parameter("topics", value=["commands"]), Parameter("output_dir", value=str(tmp_path)),
            Parameter("autostart", value=True)])
        source = rclpy.create_node("drain_source", namespace="drain")
        commands = source.create_publisher(ActuatorCommand, "commands",
                                           QoSProfile(depth=BURST, reliability=ReliabilityPolicy.RELIABLE))
        record = source.create_client(SetBool, "recorder/record")
        deadline = time.monotonic() + 60.0
        while (commands.get_subscription_count() < 1 or not record.service_is_ready()) and time.monotonic() < deadline:
            time.sleep(0.05)  # discovery
        for k in range(BURST):
            commands.publish(ActuatorCommand(name=["pendulum"], goal_position=[0.001 * k]))
        executor = SingleThreadedExecutor()
        executor.add_node(recorder)
        executor.add_node(source)
        stopped = record.call_async(SetBool.Request(data=False))
        while not stopped.done() and time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
            if recorder.drain is not None:  # the request is in: published after it
                commands.publish(ActuatorCommand(name=["pendulum"], goal_position=[9.0]))
        assert stopped.done() and stopped.result().success, stopped.result()
        from actuator_bench.bag2json import read_streams

        (bench,) = read_streams(stopped.result().message).values()
        goals = [values[0] for values in bench.commands.values["goal_position"]]
        assert goals == [0.001 * k for k in range(BURST)]  # the whole burst, in order; none after the stop
        executor.shutdown()
        recorder.destroy_node()
        source.destroy_node()
    finally:
        rclpy.try_shutdown()

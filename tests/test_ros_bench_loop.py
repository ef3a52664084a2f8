"""The bench node's control loop in its own thread (actuator_bench.pacing.LoopThread), on a real ROS 2
graph with the emulated Dynamixel: skipped where ROS 2 is absent.

The loop cycles without the executor (nothing spins the bench node here but for its service); a
run stopped through the service falls between two cycles, so its release is the last command
published and the servo reads back released; an unexpected error in a cycle ends the node as an
error in a callback would (raised by the executor) and ``destroy_node`` releases the torque, read
back on the emulated servo. No assertion depends on how fast the host is.
"""

import os
import threading
import time

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy is absent: source a ROS 2 installation to run the node tests")
pytest.importorskip("actuator_interfaces.msg", reason="actuator_interfaces is not built: colcon build and source it")
pytestmark = pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")

from actuator_interfaces.msg import ActuatorCommand, ActuatorState  # noqa: E402
from actuator_interfaces.srv import RunTrajectory  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402

from actuator_bench.nodes.bench_node import BenchNode  # noqa: E402
from actuator_bench.nodes.common import SENSOR_QOS  # noqa: E402
from actuator_bench.player import Schedule  # noqa: E402


def wait(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert condition(), f"not done in {timeout} s"


@pytest.fixture
def ros():
    rclpy.init()
    yield
    rclpy.try_shutdown()


def bench_node(namespace: str, rate: float, command_timeout: float = 0.5) -> BenchNode:
    return BenchNode(namespace=f"{namespace}_{os.getpid()}", parameter_overrides=[
        Parameter("backend", value="dynamixel_emulator"), Parameter("rate", value=rate),
        Parameter("command_timeout", value=command_timeout)])


def test_a_run_stopped_through_the_service_ends_on_its_release(ros):
    node = bench_node("stop", 500.0)
    client = rclpy.create_node("stop_client")
    commands, states = [], []
    client.create_subscription(ActuatorCommand, f"{node.get_namespace()}/commands", commands.append, 10)
    client.create_subscription(ActuatorState, f"{node.get_namespace()}/actuator_states", states.append, SENSOR_QOS)
    executor = SingleThreadedExecutor()  # the bench node is spun for its service only
    for n in (node, client):
        executor.add_node(n)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        service = client.create_client(RunTrajectory, f"{node.get_namespace()}/run_trajectory")
        assert service.wait_for_service(timeout_sec=10.0)

        def call(request):
            future = service.call_async(request)
            wait(future.done)
            return future.result()

        assert call(RunTrajectory.Request(start=True, trajectory="sin_sin", kp=400.0)).success
        wait(lambda: len(commands) >= 20 and states and states[-1].torque_enable == [True])
        assert call(RunTrajectory.Request(start=False)).success
        idle = len(states)
        wait(lambda: len(states) > idle + 20)  # the loop goes on, idle: states, no commands
        assert commands[-1].torque_enable == [False] and all(c.torque_enable == [True] for c in commands[:-1])
        assert states[-1].torque_enable == [False]
    finally:
        executor.shutdown()
        spinner.join(timeout=10)
        client.destroy_node()
        node.destroy_node()
    assert node.core.loop.bench.emulator_state().endswith("Torque Enable 0")


def test_an_error_in_a_cycle_ends_the_node_and_its_destruction_releases_the_torque(ros):
    node = bench_node("fault", 200.0, command_timeout=600.0)  # the release is destroy_node's, not the watchdog's

    def goal(t: float) -> np.ndarray:
        if t > 0.1:
            raise ZeroDivisionError("a bug in a trajectory")  # no bus fault: the loop cannot go on
        return np.zeros(1)

    with node.loop_thread.lock:
        node.core.loop.start(Schedule("faulty", 5.0, goal, lambda t: np.ones(1, dtype=bool)), 400.0)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    with pytest.raises(ZeroDivisionError, match="a bug in a trajectory"):
        deadline = time.monotonic() + 60.0
        while time.monotonic() < deadline:
            executor.spin_once(timeout_sec=0.1)
    assert not node.loop_thread.running
    assert node.core.loop.bench.sample().torque_enable == (True,)  # held until the node is destroyed
    executor.remove_node(node)
    node.destroy_node()
    assert node.core.loop.bench.emulator_state().endswith("Torque Enable 0")

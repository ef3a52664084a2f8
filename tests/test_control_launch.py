"""ros2_control on a real ROS 2 graph: ``control.launch.py`` with the servo behind the controllers.

Skipped where ROS 2 with the ros2_control add-on (``../shared/ros/install-control.sh``) or a
built workspace is absent. Each test starts ``ros2 launch actuator_bench control.launch.py`` in
its own process group and ROS domain (other ROS tests may run on the same host), plays a
``FollowJointTrajectory`` goal with :class:`actuator_bench.nodes.control_player.ControlPlayer`
and checks ``/joint_states`` (the joint_state_broadcaster's) against the goal: while the torque
is on (the first 2 s of ``lift_and_drop``) the joint follows it within the servo model's own
tracking error (the published step of ``actuator_models.simulation`` on the same pendulum, an
independent code path) plus what the topic-based path adds (:data:`LATENCY` at the goal's peak
speed); after the release it falls back. No assertion depends on the host's speed: the test
waits for events with generous timeouts.
"""

from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

rclpy = pytest.importorskip("rclpy", reason="rclpy is absent: source a ROS 2 installation to run the control tests")
pytest.importorskip("control_msgs.action", reason="ros2_control is absent: bash ../shared/ros/install-control.sh DEST")
pytest.importorskip("actuator_interfaces.srv", reason="actuator_interfaces is not built: colcon build and source it")
pytestmark = pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")

from actuator_models.model import load_model  # noqa: E402
from actuator_models.simulation import Pendulum, PendulumSimulator  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402

from actuator_bench.control_description import SO100_JOINTS  # noqa: E402
from actuator_bench.control_goals import goal_plan  # noqa: E402
from actuator_bench.nodes.common import SENSOR_QOS  # noqa: E402
from actuator_bench.nodes.control_player import ControlPlayer  # noqa: E402


def installed() -> bool:
    """Whether the sourced workspace has the control node (``colcon build``)."""
    try:
        from ament_index_python.packages import get_package_prefix

        return (Path(get_package_prefix("actuator_bench")) / "lib" / "actuator_bench" / "control_node").is_file()
    except Exception:
        return False


pytestmark = [pytestmark, pytest.mark.skipif(not installed(), reason="actuator_bench is not built with its control "
                                             "node: colcon build the workspace and source install/setup.bash")]

PERIOD = 0.01  # [s] the controller manager at 100 Hz
#: What the topic-based path may add to the servo's lag [s]: a command waits up to a period for the
#: control node's tick and a state up to a period for the controller manager's read (DDS on the
#: same host in between), plus a period for the bus transactions (six servos on the SO-100's bus).
LATENCY = 5 * PERIOD
#: The benches of the configs the launch uses: (model, mass [kg], length [m], vin [V], kp)
XL330 = ("xl330/m6", 0.49, 0.1, 7.4, 400.0)      # config/xl330_bench.yaml
STS3215 = ("sts3215/m1", 0.3, 0.1, 7.4, 32.0)    # config/so100_arm.yaml (each servo its own pendulum)


class Launch:
    """``ros2 launch actuator_bench control.launch.py ARGS`` in a ROS domain of its own."""

    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.domain = random.Random(os.getpid() + hash(args)).randrange(101, 200)
        env = {**os.environ, "ROS_DOMAIN_ID": str(self.domain)}
        self.log = tmp_path / "launch.log"
        with open(self.log, "w") as out:
            self.process = subprocess.Popen(["ros2", "launch", "actuator_bench", "control.launch.py", *args], env=env,
                                            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        rclpy.init(domain_id=self.domain)
        self.node = rclpy.create_node("control_test_client")
        self.executor = SingleThreadedExecutor()
        self.executor.add_node(self.node)
        self.thread = threading.Thread(target=self.executor.spin, daemon=True)
        self.thread.start()
        self.states: list = []
        self.node.create_subscription(JointState, "/joint_states", self.states.append, SENSOR_QOS)
        self.player = ControlPlayer(self.node)

    def ctrl_c(self, timeout: float = 60.0) -> int:
        """SIGINT to the whole process group, as a terminal's Ctrl-C; the launch's exit status."""
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            return -9

    def close(self) -> None:
        if self.process.poll() is None:
            self.ctrl_c()
        self.executor.shutdown()
        self.thread.join(timeout=5)
        self.node.destroy_node()
        rclpy.try_shutdown()

    @property
    def output(self) -> str:
        return self.log.read_text()


def model_tracking(goal, bench: tuple, until: float) -> tuple:
    """The servo model following ``goal`` (torque on) for ``until`` [s]: times and positions."""
    model, mass, length, vin, kp = bench
    sim = PendulumSimulator(load_model(model), Pendulum(mass, length), vin=vin)
    times = np.arange(int(round(until / 0.001)) + 1) * 0.001
    positions = []
    for t in times:
        positions.append(sim.q)
        sim.step(float(np.ravel(goal(t))[0]), True, kp, 0.001)
    return times, np.array(positions)


def follows(launch: Launch, joints: tuple, bench: tuple) -> None:
    """Play lift_and_drop through the controllers and check /joint_states against it."""
    assert launch.player.wait_ready(180.0), launch.output
    plan = goal_plan("lift_and_drop", joints)
    played = launch.player.play(plan, 0.0)
    assert played.error_code == 0, (played.message, launch.output)
    start = played.start  # on the ROS clock: the controller's first feedback
    times, model = model_tracking(plan.goal, bench, plan.release)
    model_error = np.max(np.abs(model - np.array([float(np.ravel(plan.goal(t))[0]) for t in times])))
    speed = 1.5 * (math.pi / 2) / 2.0  # the cubic's peak speed [rad/s]
    states = [(m.header.stamp.sec + m.header.stamp.nanosec * 1e-9 - start, m) for m in list(launch.states)]
    held = [(t, m) for t, m in states if 0.0 <= t <= plan.release]
    fallen = [(t, m) for t, m in states if plan.release + 1.0 <= t <= plan.duration]
    assert len(held) > 50 and fallen, f"{len(held)} joint states while held, {len(fallen)} after the release"
    for joint in joints:
        error = max(abs(m.position[list(m.name).index(joint)] - float(np.ravel(plan.goal(t))[0])) for t, m in held)
        assert error <= model_error + LATENCY * speed, (joint, error, model_error)
        end = [m.position[list(m.name).index(joint)] for t, m in held if t > plan.release - 0.1]
        assert abs(min(end) - model[-1]) < 0.05, (joint, min(end), model[-1])  # lifted as far as the model lifts
        assert max(m.position[list(m.name).index(joint)] for _, m in fallen) > -1.0, joint  # released: it fell


@pytest.mark.parametrize("backend", ["mujoco", "dynamixel_emulator"])
def test_lift_and_drop_goal_follows_within_the_servo_model_tracking_error(backend, tmp_path):
    launch = Launch(tmp_path, "robot:=pendulum", f"backend:={backend}", "recorder:=false")
    try:
        follows(launch, ("pendulum",), XL330)
    finally:
        launch.close()


def test_so100_six_joints_on_the_feetech_emulator_follow_the_goal(tmp_path):
    launch = Launch(tmp_path, "robot:=so100", "backend:=feetech_emulator", "recorder:=false")
    try:
        follows(launch, SO100_JOINTS, STS3215)
    finally:
        launch.close()


def test_ctrl_c_with_a_trajectory_playing_leaves_the_servo_torque_off(tmp_path):
    """The emulated XL330 runs in this process (so that it can be read back after the launch is
    gone); the launch drives it with the real driver on its pseudo-terminal (backend dynamixel,
    the code of backend dynamixel_emulator without the emulator inside the node)."""
    from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator

    emulator = DynamixelEmulator.single("xl330", "xl330/m6", 0.49, 0.1, protocol=2, vin=7.4, time_scale=1.0, seed=0)
    emulator.start()
    launch = Launch(tmp_path, "robot:=pendulum", "backend:=dynamixel", f"port:={emulator.port}", "recorder:=false")
    try:
        assert launch.player.wait_ready(180.0), launch.output
        plan = goal_plan("sin_sin", ("pendulum",))
        played = []
        thread = threading.Thread(target=lambda: played.append(launch.player.play(plan, 0.0)), daemon=True)
        thread.start()
        def moving() -> bool:  # the goal is playing: sin_sin has swung the pendulum out
            return any(abs(m.position[0]) > 0.3 for m in list(launch.states))

        deadline = 60.0
        while deadline > 0 and not moving():
            threading.Event().wait(0.1)
            deadline -= 0.1
        assert moving() and emulator.servo(1).peek("torque_enable") == 1  # playing, torque on
        status = launch.ctrl_c()
        output = launch.output
        assert status == 0, output
        assert emulator.servo(1).peek("torque_enable") == 0, output
        assert "[ERROR]" not in output and "Traceback" not in output, output
        assert output.count("process has finished cleanly") >= 4, output  # every node (spawners exit earlier)
        assert "1 goal(s) cancelled" in output, output  # the trajectory was playing, cancelled before the stop
    finally:
        launch.close()
        emulator.stop()

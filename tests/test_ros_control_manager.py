"""The ``control_manager`` wrapper's ``ros2_control_node`` dies with it, even when the wrapper is
SIGKILLed (it runs in a session of its own: nothing else would stop it). Real processes on a
ROS 2 installation with the ros2_control add-on; skipped where it is absent. No assertion depends
on how fast the host is: the deadlines only end a failing wait."""

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

pytest.importorskip("rclpy", reason="rclpy is absent: source a ROS 2 installation to run the node tests")
pytestmark = pytest.mark.skipif(not os.environ.get("ROS_DISTRO"), reason="ROS_DISTRO is not set: not a ROS 2 environment")


def executable(package: str, name: str) -> Path:
    from ament_index_python.packages import PackageNotFoundError, get_package_prefix

    try:
        return Path(get_package_prefix(package)) / "lib" / package / name
    except PackageNotFoundError:
        pytest.skip(f"{package} is not installed (actuator_bench built, ros2_control add-on)")


def children(pid: int) -> list:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return out


def program(pid: int) -> bytes:
    """The program ``pid`` runs (b"" once gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0]
    except OSError:
        return b""


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not reaped by an init that reaps none, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait(condition, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def test_ros2_control_node_dies_with_a_sigkilled_wrapper():
    executable("controller_manager", "ros2_control_node")
    wrapper = subprocess.Popen([str(executable("actuator_bench", "control_manager")),
                                "--ros-args", "-r", "__ns:=/orphan_test"], start_new_session=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    child = []
    try:
        assert wait(lambda: bool(children(wrapper.pid))), "no child started"
        child += children(wrapper.pid)
        (pid,) = child
        assert wait(lambda: program(pid).endswith(b"ros2_control_node")), program(pid)  # exec done (after the preexec)
        assert alive(pid)  # waiting for a robot description: it would run on
        wrapper.kill()
        wrapper.wait()
        assert wait(lambda: not alive(pid)), "ros2_control_node outlived its SIGKILLed wrapper"
    finally:
        if wrapper.poll() is None:
            wrapper.kill()
            wrapper.wait()
        for pid in child:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

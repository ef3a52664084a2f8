"""The node scripts without ROS 2: one line saying ROS 2 is needed and how to get it, exit 2
(``--help`` too), never an import traceback. Run as installed (the console scripts), in this
environment less what sourcing ROS 2 adds (``PYTHONPATH`` and the ROS variables), so that the
test runs, and means the same, with ROS 2 sourced or not (issue 33: it was skipped with ROS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

NODES = ("bench_node", "recorder_node", "identification_node", "comparison_node")
#: What a ROS 2 setup script (and a colcon workspace's) adds to the environment.
ROS_VARIABLES = ("PYTHONPATH", "AMENT_PREFIX_PATH", "CMAKE_PREFIX_PATH", "COLCON_PREFIX_PATH", "ROS_DISTRO",
                 "ROS_VERSION", "ROS_PYTHON_VERSION", "RMW_IMPLEMENTATION")


def without_ros() -> dict:
    return {name: value for name, value in os.environ.items() if name not in ROS_VARIABLES}


@pytest.mark.parametrize("node", NODES)
@pytest.mark.parametrize("argv", [["--help"], [], ["--ros-args", "-p", "backend:=mujoco"]])
def test_node_script_without_ros_says_so_in_one_line(node, argv):
    result = subprocess.run([str(Path(sys.executable).parent / node), *argv], capture_output=True, text=True,
                            timeout=60, env=without_ros())
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{node}: error: ROS 2 is needed (rclpy is not importable)")
    assert "colcon build" in lines[0] and "actuator-bench" in lines[0]

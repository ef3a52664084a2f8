"""The node scripts without ROS 2: one line saying ROS 2 is needed and how to get it, exit 2
(``--help`` too), never an import traceback. Run as installed (the console scripts)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from actuator_bench.nodes.launcher import missing_ros

NODES = ("bench_node", "recorder_node", "identification_node", "comparison_node")


@pytest.mark.skipif(missing_ros() is None, reason="ROS 2 is installed here: the nodes run (tests/test_ros_nodes.py)")
@pytest.mark.parametrize("node", NODES)
@pytest.mark.parametrize("argv", [["--help"], [], ["--ros-args", "-p", "backend:=mujoco"]])
def test_node_script_without_ros_says_so_in_one_line(node, argv):
    result = subprocess.run([str(Path(sys.executable).parent / node), *argv], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"{node}: error: ROS 2 is needed (rclpy is not importable)")
    assert "colcon build" in lines[0] and "actuator-bench" in lines[0]

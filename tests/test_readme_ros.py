"""The README's "With ROS 2" command-line block, run as written in a sourced ROS 2 workspace.

Skipped where ROS 2 is absent (``ros2`` not on PATH or ``ROS_DISTRO`` unset): the block goes
through ``ros2 run``, which finds the commands where colcon installs them (issue 23, finding 6).
"""

import os
import shutil
import subprocess

import pytest
from actuator_bench.bag2json import is_bag
from actuator_models.logs import read_logs
from test_trustworthy_inputs import _readme_block

pytestmark = pytest.mark.ros


@pytest.mark.skipif(not (os.environ.get("ROS_DISTRO") and shutil.which("ros2")),
                    reason="not a sourced ROS 2 environment (ROS_DISTRO, ros2)")
def test_readme_ros_run_block_runs_as_written(tmp_path):
    block = _readme_block("ros2 run actuator_bench actuator-bench play")
    result = subprocess.run(["bash", "-e", "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert is_bag(tmp_path / "bags" / "play")
    (log,) = read_logs(tmp_path / "logs" / "from_bag")
    assert log.trajectory == "up_and_down" and log.duration == pytest.approx(6.0, abs=0.1)

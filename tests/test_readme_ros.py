"""The README's "With ROS 2" command-line block, run as written in a sourced ROS 2 workspace.

Skipped where ROS 2 is absent (``ros2`` not on PATH or ``ROS_DISTRO`` unset): the block goes
through ``ros2 run``, which finds the commands where colcon installs them (issue 23, finding 6).
"""

import os
import shutil
import signal
import subprocess
import time

import pytest
from actuator_bench.bag2json import is_bag
from actuator_models.logs import read_logs
from graph_turn import graph_turn
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


#: The README's ``ros2 launch`` lines that the graph test starts as written (key), the
#: ``ros2 service call`` lines of the block (by their service) it then runs, as written, against it,
#: and the services those calls reach (the comparison forwards to both benches).
GRAPHS = {"ros2 launch actuator_bench sim.launch.py": (("/sim/run_trajectory", "/sim/recorder/record"),
                                                       {"/sim/run_trajectory", "/sim/recorder/record"}),
          "ros2 launch actuator_bench compare.launch.py": (("/compare/run_trajectory",),
                                                           {"/compare/run_trajectory", "/real/run_trajectory",
                                                            "/sim/run_trajectory"})}


def services() -> set:
    result = subprocess.run(["ros2", "service", "list"], capture_output=True, text=True, timeout=120)
    return set(result.stdout.split())


def wait_for(services_needed: set, graph: subprocess.Popen, timeout: float = 300.0) -> None:
    """Until the graph offers ``services_needed`` (a user calls once the nodes are up: starting
    the MuJoCo bench takes seconds on a busy machine), bounded by ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not services_needed <= services() and graph.poll() is None and time.monotonic() < deadline:
        time.sleep(1.0)
    assert services_needed <= services(), f"not offered: {sorted(services_needed - services())}"


def stop(graph: subprocess.Popen) -> str:
    """Ctrl-C to a launch's process group, as a terminal does; its output."""
    os.killpg(graph.pid, signal.SIGINT)
    try:
        return graph.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        os.killpg(graph.pid, signal.SIGKILL)
        return graph.communicate()[0] + "\n(still running 60 s after Ctrl-C: killed)"


@pytest.mark.slow
@pytest.mark.skipif(not (os.environ.get("ROS_DISTRO") and shutil.which("ros2")),
                    reason="not a sourced ROS 2 environment (ROS_DISTRO, ros2)")
@pytest.mark.parametrize("launch", sorted(GRAPHS))
def test_readme_ros_graph_lines_run_as_written(launch, tmp_path):
    """A ``ros2 launch`` line of the "With ROS 2" block started as written, then the block's
    service calls to that graph (run a trajectory, record), as written: each answers with success,
    and Ctrl-C ends the graph without a traceback. The block's other lines are hardware, root
    (tests/test_erob_*.py), the set-up this suite runs in (source, pip, colcon: .ci/with-ros), a
    viewer (plotjuggler) or placeholders (``<bag>``); the nodes' services, actions and fits are
    tests/test_ros_nodes.py and test_ros_shutdown.py."""
    lines = [line.split("  #")[0].strip() for line in _readme_block(launch).splitlines()]
    assert launch in lines
    called, needed = GRAPHS[launch]
    calls = [line for line in lines for service in called if line.startswith(f"ros2 service call {service} ")]
    assert len(calls) == len(called)
    with graph_turn():  # no other graph of these tests on the machine meanwhile
        graph = subprocess.Popen(["bash", "-c", f"exec {launch}"], cwd=tmp_path, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            wait_for(needed, graph)
            for line in calls:
                result = subprocess.run(["bash", "-e", "-c", line], cwd=tmp_path, capture_output=True, text=True,
                                        timeout=180)
                assert result.returncode == 0 and "success=True" in result.stdout, f"{line}\n{result.stdout}{result.stderr}"
        finally:
            output = stop(graph)
    assert "Traceback" not in output, output[-3000:]

"""Bad launch input on a real ``ros2 launch``: one clear line, a nonzero exit, nothing left running.

Skipped where ROS 2 or the built workspace is absent. Each launch runs in a session of its own
(its process group: every node it starts is in it), in the test's ROS domain; a test waits for
the launch to exit by itself, with a generous timeout, then checks that no process of the group
is left (a node the launch started before a later action failed outlived ``ros2 launch``: with a
hardware backend, a servo with its torque on and nothing to command it).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("launch_ros", reason="launch_ros is part of ROS 2; not installed here")
pytestmark = pytest.mark.skipif(not (os.environ.get("ROS_DISTRO") and shutil.which("ros2")),
                                reason="ROS_DISTRO is not set or ros2 is absent: not a ROS 2 environment")

from actuator_bench.process_group import interrupt_group  # noqa: E402

#: Generous: a launch's nodes import rclpy, optuna and MuJoCo (seconds each on a busy host).
EXIT_TIMEOUT = 180.0


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def launch(tmp_path: Path, *args: str) -> tuple:
    """``ros2 launch actuator_bench ARGS`` run to its own exit: (exit status, output, whether a
    process of its group outlived it). What is left is stopped (SIGINT, then SIGKILL)."""
    process = subprocess.Popen(["ros2", "launch", "actuator_bench", *args], cwd=tmp_path, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=EXIT_TIMEOUT)
    except subprocess.TimeoutExpired:
        interrupt_group(process)
        pytest.fail(f"ros2 launch {' '.join(args)} did not exit by itself in {EXIT_TIMEOUT:g} s")
    left = group_alive(process.pid)
    if left:
        os.killpg(process.pid, signal.SIGINT)
    return process.returncode, output, left


def errors(output: str) -> list:
    return [line for line in output.splitlines() if "ERROR" in line or "FATAL" in line]


def test_a_bad_switch_refuses_in_one_line_with_no_node_left(tmp_path):
    """recorder:=maybe failed at the recorder's condition, after the bench node had started: the
    launch exited 1 and the bench, recorder and identification nodes ran on, orphaned."""
    status, output, left = launch(tmp_path, "bench.launch.py", "recorder:=maybe")
    assert status != 0 and not left, output
    (line,) = errors(output)
    assert "recorder:='maybe': not a boolean" in line and "Traceback" not in output, output
    assert "process started" not in output, output


CONFIG = Path(__file__).resolve().parents[1] / "config" / "xl330_bench.yaml"


def bench_yaml(tmp_path: Path, line: str, replacement: str) -> Path:
    """The shipped XL330 bench YAML with ``line`` (of its bench section) replaced."""
    text = CONFIG.read_text()
    assert f"\n    {line}\n" in text
    path = tmp_path / "bench.yaml"
    path.write_text(text.replace(f"\n    {line}\n", f"\n    {replacement}\n"))
    return path


def test_a_node_that_cannot_start_stops_the_whole_launch(tmp_path):
    """The bench node refused rate -1 (exit 2) while the recorder, identification node and
    robot_state_publisher ran on: a half graph, ros2 launch never exited."""
    config = bench_yaml(tmp_path, "rate: 100.0", "rate: -1.0")
    status, output, left = launch(tmp_path, "bench.launch.py", f"config:={config}")
    assert status != 0 and not left, output
    assert "cannot start: rate -1.0: must be positive Hz" in output and "Traceback" not in output, output
    assert "bench_node-1 exited with status 2: stopping the whole launch" in output, output


@pytest.mark.parametrize("line, replacement, named", [
    ("rate: 100.0", "rat: 100.0", "/**/bench: key 'rat' (value 100.0) is not a bench parameter (did you mean 'rate'?)"),
    ("rate: 100.0", "rate: fast", "cannot start: Trying to set parameter 'rate' to 'fast'"),
    ("kp: [400.0]                 # initial gain of the simulation", "kp: [abc]",
     "cannot start: Trying to set parameter 'kp' to '['abc']'"),
])
def test_a_misspelt_or_mistyped_bench_key_is_refused_in_one_line(tmp_path, line, replacement, named):
    """A misspelt key was ignored (the bench ran at the default rate): refused with the config,
    before any node; a value of the wrong type was an rclpy traceback (exit 1) with the rest of
    the graph left running."""
    config = bench_yaml(tmp_path, line, replacement)
    status, output, left = launch(tmp_path, "bench.launch.py", f"config:={config}", "description:=false")
    assert status != 0 and not left, output
    assert named in output and "Traceback" not in output, output


def test_a_simulated_bench_whose_step_cannot_integrate_its_model_stops_the_launch(tmp_path):
    """A params file with kt = 1e6: the sim node published positions of 1e10 rad; now its bench
    refuses at open (actuator_sim.stability.probe), one line naming the file, and the launch stops."""
    from dataclasses import replace

    from actuator_models.model import load_model, save_model

    model = load_model("xl330/m6")
    params = tmp_path / "kt.json"
    save_model(replace(model, values={**model.values, "kt": 1e6}), params)
    config = bench_yaml(tmp_path, "models: [xl330/m6]          # torque estimate (effort), emulated and simulated physics",
                        f"models: ['{params}']")
    status, output, left = launch(tmp_path, "sim.launch.py", f"config:={config}", "description:=false")
    assert status != 0 and not left, output
    assert f"cannot start: {params}: joint 'pendulum' (xl330/m6) at kp 400: its MuJoCo simulation diverged" in output
    assert "likely kt = 1e+06" in output and "Traceback" not in output, output
    assert "exited with status 2: stopping the whole launch" in output, output

"""Ctrl-C on ``ros2 launch actuator_bench compare.launch.py``, repeated (issue 23 acceptance).

Needs a sourced ROS 2 workspace with actuator_bench built (see README "With ROS 2"). Each run
starts the launch in its own process group, waits until the graph serves, puts it to work
(``fit``: a FitModels goal on the shipped XL330 logs, in flight once it reports feedback;
``trajectory``: a run started on both benches through ``/compare/run_trajectory``), then sends
SIGINT to the whole group, as a terminal's Ctrl-C does, and checks: launch exits within
``--deadline`` s, every process "finished cleanly", no ``[ERROR]``, no traceback. Prints one line
per run and a summary; the launch output of failed runs is kept in ``--logs``.

    python3 benchmarks/ros_ctrl_c.py --runs 10 --mode fit trajectory [--args record:=true]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import rclpy
from actuator_interfaces.action import FitModels
from actuator_interfaces.srv import RunTrajectory
from rclpy.action import ActionClient
from rclpy.executors import SingleThreadedExecutor

DATA = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
PROBLEMS = re.compile(r"\[ERROR\]|Traceback|never retrieved|exception", re.IGNORECASE)


def wait(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


def put_to_work(action: ActionClient, service, mode: str) -> str:
    """Start the work of ``mode``; returns what was in flight at Ctrl-C."""
    if mode == "fit":
        if not action.wait_for_server(timeout_sec=60.0):
            return "no fit_models server"
        feedback = []
        goal = FitModels.Goal(logs=str(DATA), actuator="xl330", models=["m6"], trials=100_000, validation_fraction=-1.0)
        sent = action.send_goal_async(goal, feedback_callback=lambda f: feedback.append(f.feedback))
        if not wait(lambda: sent.done() and feedback, 180):
            return "no feedback"
        return f"fit m6, trial {feedback[-1].trial}"
    if not service.wait_for_service(timeout_sec=60.0):
        return "no run_trajectory service"
    answer = service.call_async(RunTrajectory.Request(start=True, trajectory="sin_sin", kp=400.0))
    if not wait(answer.done, 30) or not answer.result().success:
        return "trajectory not started"
    time.sleep(2.0)  # playing
    return "trajectory playing"


def one_run(clients: tuple, mode: str, extra: list, deadline: float, logs: Path, index: int) -> bool:
    log_path = logs / f"{mode}_{index:02d}.log"
    with open(log_path, "w") as log:
        launch = subprocess.Popen(["ros2", "launch", "actuator_bench", "compare.launch.py", *extra],
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=logs)
        try:
            state = put_to_work(*clients, mode)
            began = time.monotonic()
            os.killpg(launch.pid, signal.SIGINT)
            try:
                launch.wait(timeout=deadline)
            except subprocess.TimeoutExpired:
                os.killpg(launch.pid, signal.SIGKILL)
                launch.wait()
            took = time.monotonic() - began
        finally:
            if launch.poll() is None:
                os.killpg(launch.pid, signal.SIGKILL)
    text = log_path.read_text()
    started = len(re.findall(r"process started with pid", text))
    clean = len(re.findall(r"process has finished cleanly", text))
    problems = [line for line in text.splitlines() if PROBLEMS.search(line)]
    ok = took < deadline and started > 0 and clean == started and not problems and launch.returncode == 0
    print(f"{mode} {index:2d}: {state:28s} exit {launch.returncode} in {took:5.2f} s, {clean}/{started} finished "
          f"cleanly, {len(problems)} error lines -> {'ok' if ok else 'FAIL ' + str(log_path)}", flush=True)
    for line in problems[:5]:
        print("    " + line)
    if ok:
        log_path.unlink()
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--mode", nargs="+", choices=("fit", "trajectory"), default=["fit", "trajectory"])
    parser.add_argument("--args", nargs="*", default=[], help="launch arguments (name:=value)")
    parser.add_argument("--deadline", type=float, default=15.0, help="launch must exit within [s]")
    parser.add_argument("--logs", type=Path, default=None, help="folder of the launch output of failed runs")
    args = parser.parse_args()
    logs = args.logs or Path(tempfile.mkdtemp(prefix="ctrl_c_"))
    logs.mkdir(parents=True, exist_ok=True)
    rclpy.init(args=[])  # not this script's arguments
    client = rclpy.create_node("ctrl_c_client")
    executor = SingleThreadedExecutor()
    executor.add_node(client)
    spinning = threading.Thread(target=executor.spin, daemon=True)
    spinning.start()
    clients = (ActionClient(client, FitModels, "/compare/fit_models"),  # one of each for all runs
               client.create_client(RunTrajectory, "/compare/run_trajectory"))
    results = {mode: [one_run(clients, mode, args.args, args.deadline, logs, k) for k in range(args.runs)]
               for mode in args.mode}
    for mode, oks in results.items():
        print(f"{mode}: {sum(oks)}/{len(oks)} clean")
    executor.shutdown()
    spinning.join(timeout=5)
    client.destroy_node()
    rclpy.try_shutdown()
    sys.exit(0 if all(all(oks) for oks in results.values()) else 1)


if __name__ == "__main__":
    main()

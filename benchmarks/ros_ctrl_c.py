"""Ctrl-C on ``ros2 launch actuator_bench compare.launch.py`` or ``control.launch.py``, repeated
(issues 23 and 36 acceptance).

Needs a sourced ROS 2 workspace with actuator_bench built (see README "With ROS 2"; ``control``
also the ros2_control add-on). Each run starts the launch in its own process group, waits until
the graph serves, puts it to work (``fit``: a FitModels goal on the shipped XL330 logs, in flight
once it reports feedback; ``trajectory``: a run started on both benches through
``/compare/run_trajectory``; ``control``: ``control.launch.py robot:=pendulum`` on an emulated
XL330 (the Dynamixel emulator runs in this process, the launch drives it with the real driver
through its pseudo-terminal: backend ``dynamixel``, i.e. ``dynamixel_emulator`` with the emulator
outside the node, so that it can be read back once the launch is gone), a ``sin_sin``
FollowJointTrajectory goal playing and the servo's torque on), then sends SIGINT to the whole
group, as a terminal's Ctrl-C does, and checks: launch exits within ``--deadline`` s with status
0, every process "finished cleanly", no ``[ERROR]``, no traceback, and for ``control`` the servo
reads back torque off. Prints one line per run and a summary; the launch output of failed runs
is kept in ``--logs``.

    python3 benchmarks/ros_ctrl_c.py --runs 10 --mode fit trajectory [--args record:=true]
    python3 benchmarks/ros_ctrl_c.py --runs 10 --mode control
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

from actuator_bench.process_group import interrupt_group

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


def play_on_control(player, emulator, log_path: Path) -> str:
    """Start a sin_sin goal through the controllers (a thread: the player spins its own executor)
    and wait until it plays with the torque on and the spawners are done; returns what was in
    flight, and the (thread, stop event) to end the player with after Ctrl-C in ``player.ending``."""
    from actuator_bench.control_goals import goal_plan

    if not player.wait_ready(180.0):
        return "no controller or control node"
    stop = threading.Event()
    thread = threading.Thread(target=player.play, args=(goal_plan("sin_sin", ("pendulum",)), 0.0, stop), daemon=True)
    thread.start()
    player.ending = (thread, stop)

    def playing() -> bool:  # the spawners exited (a spawner still working dies of the SIGINT)
        text = log_path.read_text()
        return (emulator.servo(1).peek("torque_enable") == 1 and abs(emulator.servo(1).sim.q) > 0.3
                and "spawner-3]: process has finished" in text and "spawner-4]: process has finished" in text)

    if not wait(playing, 60):
        return "goal not playing"
    return "sin_sin goal playing, torque on"


def one_run(clients: tuple, mode: str, extra: list, deadline: float, logs: Path, index: int) -> bool:
    log_path = logs / f"{mode}_{index:02d}.log"
    emulator = start_emulator() if mode == "control" else None
    command = (["control.launch.py", "robot:=pendulum", "backend:=dynamixel", f"port:={emulator.port}",
                "recorder:=false"] if emulator else ["compare.launch.py"])
    with open(log_path, "w") as log:
        launch = subprocess.Popen(["ros2", "launch", "actuator_bench", *command, *extra],
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=logs)
        try:
            state = (play_on_control(clients[2], emulator, log_path) if emulator else put_to_work(*clients[:2], mode))
            began = time.monotonic()
            interrupt_group(launch, deadline)
            took = time.monotonic() - began
        finally:
            if launch.poll() is None:
                os.killpg(launch.pid, signal.SIGKILL)
            torque = "" if emulator is None else end_control(clients[2], emulator)
    text = log_path.read_text()
    started = len(re.findall(r"process started with pid", text))
    clean = len(re.findall(r"process has finished cleanly", text))
    problems = [line for line in text.splitlines() if PROBLEMS.search(line)]
    ok = (took < deadline and started > 0 and clean == started and not problems and launch.returncode == 0
          and torque in ("", "torque off"))
    print(f"{mode} {index:2d}: {state:32s} exit {launch.returncode} in {took:5.2f} s, {clean}/{started} finished "
          f"cleanly, {len(problems)} error lines{', servo ' + torque if torque else ''} "
          f"-> {'ok' if ok else 'FAIL ' + str(log_path)}", flush=True)
    for line in problems[:5]:
        print("    " + line)
    if ok:
        log_path.unlink()
    return ok


def control_player():
    """A ControlPlayer on a node and executor of its own: it spins them in its waits, nothing else
    may (actuator_bench.nodes.control_player)."""
    from actuator_bench.nodes.control_player import ControlPlayer

    node = rclpy.create_node("ctrl_c_control_client")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    return ControlPlayer(node, executor)


def start_emulator():
    """An emulated XL330 (the published xl330/m6 on config/xl330_bench.yaml's pendulum) on a
    pseudo-terminal, in real time."""
    from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
    from actuator_drivers.serial_bus_emulator.firmware import ServoSetup

    emulator = DynamixelEmulator.single("xl330", "xl330/m6", 0.49, 0.1, protocol=2, setup=ServoSetup(vin=7.4),
                                        time_scale=1.0, seed=0)
    emulator.start()
    return emulator


def end_control(player, emulator) -> str:
    """Stop the player's goal thread, read the servo's torque back and stop the emulator."""
    thread, stop = getattr(player, "ending", (None, None))
    if thread is not None:
        stop.set()
        thread.join(timeout=30)  # it stops spinning before the next run uses the executor
        player.ending = (None, None)
    try:
        return "torque off" if emulator.servo(1).peek("torque_enable") == 0 else "TORQUE ON"
    finally:
        emulator.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--mode", nargs="+", choices=("fit", "trajectory", "control"), default=["fit", "trajectory"])
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
               client.create_client(RunTrajectory, "/compare/run_trajectory"),
               control_player() if "control" in args.mode else None)
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

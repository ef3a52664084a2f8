"""Fit from logs recorded through the controllers against the direct path (issue 36).

Needs a sourced ROS 2 workspace with the ros2_control add-on and actuator_bench built (README
"With ROS 2"). Records the four identification trajectories at each ``--kp`` on the MuJoCo
XL330 pendulum (config/xl330_bench.yaml, backend mujoco) twice: by the bench node itself
(``sim.launch.py``, ``/sim/run_trajectory``, its recorder) and as FollowJointTrajectory goals
through ``control.launch.py`` (:class:`ControlPlayer`, the control node's recorder), each run on
both paths from rest at its first waypoint (``player.RUN_PREPARE``: 2 s move, 1 s hold); each bag
becomes processed logs (bag2json), then M1 and M6 are fitted on each log set with each seed,
the ``--validation-kp`` logs held out, and the table prints training and validation MAE per
path, model and seed, and the median and range (min-max) over the seeds. Each path validates on
its own recording; the last column scores every fit on the same logs (the direct path's
validation logs), so that the two paths' fits are compared on one yardstick, not on two
recordings.

    python3 benchmarks/control_fit.py --out /tmp/control_fit --trials 3000
    python3 benchmarks/control_fit.py --out /tmp/control_fit --skip-recording   # refit the logs there
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Tuple

import rclpy
from actuator_interfaces.msg import BenchInfo
from actuator_interfaces.srv import RunTrajectory
from actuator_models.evaluation import evaluate_model
from actuator_models.fit_data import FitSettings
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.logs import Log, read_logs
from actuator_models.trajectories import TRAJECTORIES
from rclpy.executors import SingleThreadedExecutor
from std_srvs.srv import SetBool

from actuator_bench.bag2json import convert
from actuator_bench.control_goals import goal_plan
from actuator_bench.nodes.common import LATCHED_QOS
from actuator_bench.nodes.control_player import ControlPlayer
from actuator_bench.process_group import interrupt_group


def launched(args: List[str], cwd: Path) -> subprocess.Popen:
    log = open(cwd / "launch.log", "w")
    return subprocess.Popen(["ros2", "launch", "actuator_bench", *args], cwd=cwd, stdout=log,
                            stderr=subprocess.STDOUT, start_new_session=True)


def record_direct(folder: Path, gains: List[float], player: ControlPlayer) -> Path:
    """Every trajectory at every gain played by the bench node itself; the bag's path."""
    graph = launched(["sim.launch.py", "identification:=false"], folder)
    node = player.node
    try:
        idle: List[str] = []
        node.create_subscription(BenchInfo, "/sim/bench_info", lambda m: idle.append(m.trajectory), LATCHED_QOS)
        record = node.create_client(SetBool, "/sim/recorder/record")
        run = node.create_client(RunTrajectory, "/sim/run_trajectory")
        if not (record.wait_for_service(timeout_sec=180.0) and run.wait_for_service(timeout_sec=180.0)):
            raise RuntimeError(f"sim.launch.py did not serve in 180 s: {folder / 'launch.log'}")
        player.call(record, SetBool.Request(data=True))
        for kp in gains:
            for name in TRAJECTORIES:
                idle.clear()
                answer = player.call(run, RunTrajectory.Request(start=True, trajectory=name, kp=kp))
                if not answer.success:
                    raise RuntimeError(answer.message)
                player.wait(lambda: name in idle and idle[-1] == "", answer.duration + 30.0)  # the run's end
                player.wait(lambda: False, 1.0)  # at rest before the next run, as between the control path's
                print(f"direct  {name:16s} kp {kp:g}", flush=True)
        return folder / player.call(record, SetBool.Request(data=False)).message
    finally:
        interrupt_group(graph)


def record_control(folder: Path, gains: List[float], player: ControlPlayer) -> Path:
    """Every trajectory at every gain as a goal through the controllers; the bag's path."""
    graph = launched(["control.launch.py", "robot:=pendulum", "backend:=mujoco"], folder)
    try:
        if not player.wait_ready(180.0):
            raise RuntimeError(f"control.launch.py did not serve in 180 s: {folder / 'launch.log'}")
        player.record(True)
        for kp in gains:
            for name in TRAJECTORIES:
                played = player.play(goal_plan(name, ("pendulum",)), kp)
                if played.error_code != 0:
                    raise RuntimeError(f"{name} at kp {kp:g}: {played.message}")
                print(f"control {name:16s} kp {kp:g}", flush=True)
        return folder / player.record(False)
    finally:
        interrupt_group(graph)


def fits(logs: Path, models: List[str], seeds: List[int], trials: int, validation_kp: float,
         common: List[Log]) -> Dict[Tuple[str, int], tuple]:
    """(train MAE, validation MAE, MAE on the ``common`` logs) per (model, seed) [rad]."""
    out = {}
    for model in models:
        for seed in seeds:
            spec = FitSpec(str(logs), "xl330", (model,), FitSettings(trials=trials, seed=seed), validation_kp=validation_kp)
            result = fit(spec).result(model)
            on_common = evaluate_model(result.model, common).mean
            out[(model, seed)] = (result.train_mae, result.validation_mae, on_common)
            print(f"{logs.parent.name:8s} {model} seed {seed}: train {result.train_mae:.4f} "
                  f"validation {result.validation_mae:.4f} common {on_common:.4f}", flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="folder of the bags, logs and table")
    parser.add_argument("--kp", type=float, nargs="+", default=[200.0, 400.0, 800.0])
    parser.add_argument("--validation-kp", type=float, default=800.0)
    parser.add_argument("--models", nargs="+", default=["m1", "m6"])
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(8)))
    parser.add_argument("--trials", type=int, default=3000, help="fit budget per model and seed")
    parser.add_argument("--skip-recording", action="store_true", help="fit the logs already in --out")
    args = parser.parse_args()
    paths = {"direct": args.out / "direct", "control": args.out / "control"}
    if not args.skip_recording:
        rclpy.init(args=[])
        node = rclpy.create_node("control_fit_benchmark")
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        player = ControlPlayer(node, executor)
        try:
            for path, record in ((paths["direct"], record_direct), (paths["control"], record_control)):
                path.mkdir(parents=True, exist_ok=True)
                began = time.monotonic()
                bag = record(path, args.kp, player)
                written = convert(bag, path / "logs")
                print(f"{path.name}: {len(written)} logs from {bag} in {time.monotonic() - began:.0f} s", flush=True)
        finally:
            executor.shutdown()
            node.destroy_node()
            rclpy.try_shutdown()
    common = [log for log in read_logs(paths["direct"] / "logs") if log.kp == args.validation_kp]
    results = {name: fits(path / "logs", args.models, args.seeds, args.trials, args.validation_kp, common)
               for name, path in paths.items()}
    lines = [f"| path | model | train MAE, median (range) | validation MAE, median (range) | seeds {args.seeds} "
             "| on the direct validation logs, median (range) |", "|---|---|---|---|---|---|"]

    def stat(values: List[float]) -> str:
        return f"{statistics.median(values):.4f} ({min(values):.4f}-{max(values):.4f})"

    for name, table in results.items():
        for model in args.models:
            rows = [table[(model, s)] for s in args.seeds]
            valid = [r[1] for r in rows]
            lines.append(f"| {name} | {model} | {stat([r[0] for r in rows])} | {stat(valid)} | "
                         + ", ".join(f"{v:.4f}" for v in valid) + f" | {stat([r[2] for r in rows])} |")
    table = "\n".join(lines)
    (args.out / "table.md").write_text(table + "\n")
    print(table)


if __name__ == "__main__":
    main()

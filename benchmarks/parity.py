"""Parity and throughput of the servo step across backends: numpy, compiled kernel, MuJoCo CPU, MuJoCo Warp.

Parity: the same processed logs (default: the 12 XL330 logs, cut to ``--steps`` entries) through
the numpy rollout (semi-implicit, float64: the reference; every backend runs the published models
with the semi-implicit integrator, so the table shows the backends' arithmetic alone), the compiled kernel, MuJoCo on the CPU
(``JointSimulation``, one log at a time) and MuJoCo Warp (all logs as one batch of worlds, float32,
Warp on the CPU unless a GPU is there); per model, the MAE [rad] of each backend against the
reference and against the logs.

Throughput (world-steps/s, wall clock, ``--worlds``): the six-servo SO-100 arm of ``actuator_sim``
(``so100.xml``, an STS3215 at every joint) with the servo step in MuJoCo Warp, the same arm with MuJoCo Warp's own actuators (the native export of
``actuator-sim export``: the cost of the servo model is the ratio), and MuJoCo CPU with the
servo step (one world, as reference).

Usage: ``python benchmarks/parity.py`` (quick: 400 steps, 1 and 64 worlds);
``python benchmarks/parity.py --steps 0 --worlds 1 64 1024 4096`` (whole logs, the issue's sizes).
On a CUDA device each throughput step is one captured CUDA graph (servo kernels and
``mujoco_warp.step``), as batched trainers run it. Numbers depend on the machine and its load:
print them side by side, compare ratios.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from dataclasses import replace
from pathlib import Path
from typing import Dict, List

import mujoco
import mujoco_warp as mjw
import numpy as np
import warp as wp

from actuator_models import kernel
from actuator_models.logs import read_logs
from actuator_models.model import Model, load_model, new_model
from actuator_models.simulation import LogBatch, rollout
from actuator_sim.joint_sim import JointSimulation, Servo
from actuator_sim.models import read_model
from actuator_sim.native import NativeJoint, export_mjcf
from actuator_sim.replay import mujoco_positions
from actuator_sim.so100 import JOINT_NAMES
from actuator_sim.warp_evaluate import mjwarp_positions
from actuator_sim.warp_servo import WarpServos, prepare_model

DATA = Path(__file__).resolve().parents[1] / "data" / "xl330" / "processed"
#: The arm's goals in the throughput runs [rad], one per SO-100 joint (held: the arm moves to them).
GOAL = (0.3, -0.4, 0.5, 0.3, 0.6, 0.4)
LOG_FIELDS = ("timestamp", "position", "speed", "goal_position", "torque_enable")


def _cut(logs: list, steps: int) -> list:
    if steps <= 0:
        return logs
    return [replace(log, **{f: getattr(log, f)[:steps] for f in LOG_FIELDS},
                    extra={k: v[:steps] for k, v in log.extra.items()}) for log in logs]


def parity(models: Dict[str, Model], logs: list) -> None:
    batch = LogBatch.from_logs(logs, 7.4)
    print(f"parity on {len(logs)} logs of {batch.steps} steps; MAE [rad] against the reference "
          "(numpy, semi-implicit, float64) and against the logs")
    print(f"{'model':<18} {'backend':<14} {'vs reference':>13} {'vs logs':>10} {'time [s]':>9}")
    for name, model in models.items():
        t = time.perf_counter()
        reference = rollout(model.actuator, model.friction, model.values, batch, "semi-implicit")
        runs = {"numpy": (reference, time.perf_counter() - t)}
        if kernel.supports(model.actuator, model.friction, model.additions):
            t = time.perf_counter()
            _, positions = kernel.run(model.actuator, model.friction, dict(model.values),
                                      batch, "semi-implicit", positions=True)
            runs["compiled kernel"] = (positions[0], time.perf_counter() - t)
        t = time.perf_counter()
        cpu = np.full(batch.position.shape, np.nan)
        for i, log in enumerate(logs):
            cpu[i, : len(log)] = mujoco_positions(model, log)
            cpu[i, len(log):] = cpu[i, len(log) - 1]
        runs["MuJoCo CPU"] = (cpu, time.perf_counter() - t)
        t = time.perf_counter()
        runs[f"MuJoCo Warp {wp.get_device()}"] = (mjwarp_positions(model, logs), time.perf_counter() - t)
        for backend, (positions, seconds) in runs.items():
            mask = batch.mask
            vs_ref = float(np.abs(positions - reference)[mask].mean())
            vs_log = float(np.abs(positions - batch.position)[mask].mean())
            print(f"{name:<18} {backend:<14} {vs_ref:>13.2e} {vs_log:>10.5f} {seconds:>9.2f}")


def _warp_rate(xml: str, servos: List[Servo], nworld: int, steps: int, with_servo: bool) -> float:
    mjm = mujoco.MjModel.from_xml_string(xml)
    if with_servo:
        prepare_model(mjm, servos)
    m, d = mjw.put_model(mjm), mjw.make_data(mjm, nworld=nworld)
    sim = WarpServos(mjm, m, d, servos) if with_servo else None
    goal = wp.array(np.tile(GOAL, (nworld, 1)), dtype=float)
    if sim is None:
        d.ctrl.assign(goal.numpy())
    else:
        sim.set_goal(goal.numpy())

    def once() -> None:
        if sim is not None:
            sim.before_step()
        mjw.step(m, d)
        if sim is not None:
            sim.after_step()

    once()  # compile
    run = once
    if wp.get_device().is_cuda:  # on a GPU, one captured graph per step, as batched trainers run it
        with wp.ScopedCapture() as capture:
            once()
        graph = capture.graph

        def run() -> None:
            wp.capture_launch(graph)
    run()
    wp.synchronize()
    t = time.perf_counter()
    for _ in range(steps):
        run()
    wp.synchronize()
    return nworld * steps / (time.perf_counter() - t)


def throughput(worlds: List[int], steps: int) -> None:
    model = load_model("sts3215/m1")
    arm_xml = read_model("so100.xml")
    servos = [Servo(joint, model, 8.0) for joint in JOINT_NAMES]
    native = export_mjcf(arm_xml, [NativeJoint(s.joint, model, 8.0) for s in servos])
    cpu = JointSimulation.from_xml(arm_xml, servos)
    cpu.set_goal(GOAL)
    t = time.perf_counter()
    cpu.step(steps)
    cpu_rate = steps / (time.perf_counter() - t)
    print(f"\nthroughput, SO-100 arm (6 x STS3215, sts3215/m1), {steps} steps, world-steps/s; "
          f"MuJoCo CPU + servo step, 1 world: {cpu_rate:,.0f}")
    print(f"{'worlds':>7} {'Warp + servo step':>18} {'Warp native actuators':>22} {'ratio':>6}")
    for n in worlds:
        servo_rate = _warp_rate(arm_xml, servos, n, steps, True)
        native_rate = _warp_rate(native, servos, n, steps, False)
        print(f"{n:>7} {servo_rate:>18,.0f} {native_rate:>22,.0f} {servo_rate / native_rate:>6.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", default=str(DATA), help="folder of processed logs (one bench)")
    parser.add_argument("--steps", type=int, default=400, help="log entries used (0: whole logs; default 400)")
    parser.add_argument("--worlds", type=int, nargs="+", default=[1, 64], help="batch sizes (default 1 64)")
    parser.add_argument("--throughput-steps", type=int, default=100, help="steps per throughput run (default 100)")
    parser.add_argument("--no-parity", action="store_true", help="throughput only")
    args = parser.parse_args()
    wp.config.quiet = True
    device = wp.get_device()
    name = f" ({device.name})" if device.is_cuda else ""
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, Warp device {device}{name}")
    m1, m6 = (replace(load_model(f"xl330/{name}"), integrator="semi-implicit") for name in ("m1", "m6"))
    dahl = new_model("xl330", "dahl+viscous", "semi-implicit", dahl_rho=300.0,
                     **{k: m1.values[k] for k in ("kt", "R", "armature", "q_offset", "friction_base", "friction_viscous")})
    thermal = replace(m6, additions=("thermal",)).with_values(thermal_ambient=24.0, thermal_initial=30.0)
    models = {"xl330/m1": m1, "xl330/m6": m6, "xl330/m6+heating": m6.with_values(heating=0.01),
              "xl330/m6+thermal": thermal, "xl330/dahl+viscous": dahl}
    if not args.no_parity:
        parity(models, _cut(read_logs(args.logs), args.steps))
    throughput(args.worlds, args.throughput_steps)


if __name__ == "__main__":
    main()

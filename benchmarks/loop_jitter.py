"""Period jitter of the bench control loop (read -> player -> write) on the emulated Dynamixel.

Runs :class:`actuator_bench.loop.BenchLoop` (the loop the bench node runs in its loop thread) on
the ``dynamixel_emulator`` backend in real time (time scale 1: the driver talks to the emulator
over a pseudo-terminal through dynamixel-sdk) at each requested rate, playing ``sin_sin``, and
prints, per rate, the achieved rate and the distribution of the cycle period (wall clock between
successive reads): mean, standard deviation, 1st/50th/99th percentiles, max, and the share of
cycles later than 1.5 periods. Speed targets live here, never in tests.

With ``--ros`` (a sourced ROS 2 workspace), each rate is measured again on the bench node itself,
in this process, spun as its executable spins it (a single-threaded executor, in 0.1 s slices,
:func:`actuator_bench.nodes.common.spin_until`): its loop thread runs the cycles and publishes the
four topics (:mod:`actuator_bench.pacing`). The table then has a row per loop and rate, the
ROS-free loop's and the node's measured one after the other under the same load.

Usage: ``python benchmarks/loop_jitter.py [--rates 100 500] [--seconds 6] [--latency-ms 1] [--ros]``.
"""

from __future__ import annotations

import argparse
import time
from typing import List

import numpy as np

from actuator_bench.backends import installed_backends
from actuator_models.bench import BenchParams
from actuator_drivers.serial_bus.settings import EmulatedSerialSettings
from actuator_bench.loop import BenchLoop, Cycle
from actuator_bench.messages import BenchInfo
from actuator_bench.player import TrajectoryPlayer


def periods(rate: float, seconds: float, latency_ms: float) -> np.ndarray:
    """Wall-clock periods [s] between successive cycles of one run at ``rate`` [Hz]."""
    bench = installed_backends().open("dynamixel_emulator", BenchParams(mass=0.49, length=0.1, settings=EmulatedSerialSettings(latency_ms=latency_ms)))
    stamps: List[float] = []

    def sink(cycle: Cycle) -> None:
        if cycle.sample is not None:
            stamps.append(time.perf_counter())

    try:
        loop = BenchLoop(bench, TrajectoryPlayer(bench.joints, BenchInfo("xl330", mass=0.49, length=0.1)))
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            loop.run("sin_sin", 400.0, rate, sink)
    finally:
        bench.close()
    return np.diff(stamps)


def ros_periods(rate: float, seconds: float, latency_ms: float) -> np.ndarray:
    """The same, cycles run by the bench node (its loop thread), the executor spun as its
    executable does; a run is started again whenever one ends."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from actuator_bench.nodes.bench_node import BenchNode
    from actuator_bench.nodes.common import spin_until

    rclpy.init()
    stamps: List[float] = []
    try:
        node = BenchNode(parameter_overrides=[
            Parameter("backend", value="dynamixel_emulator"), Parameter("rate", value=rate),
            Parameter("latency_ms", value=latency_ms), Parameter("mass", value=0.49), Parameter("length", value=0.1)])
        tick = node.core.tick

        def timed_tick():
            stamps.append(time.perf_counter())
            return tick()

        node.core.tick = timed_tick
        executor = SingleThreadedExecutor()
        executor.add_node(node)
        deadline = time.perf_counter() + seconds
        try:
            while time.perf_counter() < deadline:
                if node.core.loop.player.running is None:
                    node.start("sin_sin", 400.0)
                spin_until(executor, lambda: node.core.loop.player.running is None or time.perf_counter() > deadline)
        finally:
            executor.remove_node(node)
            node.destroy_node()
    finally:
        rclpy.try_shutdown()
    return np.diff(stamps[1:])  # from the second cycle: the first comes at the loop's start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[100.0, 500.0], help="loop rates [Hz]")
    parser.add_argument("--seconds", type=float, default=6.0, help="run length per rate [s]")
    parser.add_argument("--latency-ms", type=float, default=1.0, help="USB latency timer of the driver [ms]")
    parser.add_argument("--ros", action="store_true", help="measure the bench node too (needs ROS 2)")
    args = parser.parse_args()
    loops = [("ROS-free", periods)] + ([("node", ros_periods)] if args.ros else [])
    print(f"{'loop':>8} {'rate Hz':>8} {'achieved':>9} {'mean ms':>8} {'std ms':>7} {'p1 ms':>6} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'max ms':>7} {'>1.5T':>6}")
    for rate in args.rates:
        for name, measure in loops:
            p = measure(rate, args.seconds, args.latency_ms) * 1e3
            late = np.mean(p > 1.5e3 / rate)
            print(f"{name:>8} {rate:8.0f} {1e3 / p.mean():9.1f} {p.mean():8.3f} {p.std():7.3f} "
                  f"{np.percentile(p, 1):6.2f} {np.median(p):7.3f} {np.percentile(p, 99):7.3f} {p.max():7.2f} "
                  f"{late:6.1%}", flush=True)


if __name__ == "__main__":
    main()

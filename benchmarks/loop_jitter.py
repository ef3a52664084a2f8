"""Period jitter of the bench control loop (read -> player -> write) on the emulated Dynamixel.

Runs :class:`actuator_bench.loop.BenchLoop` (the loop the bench node runs in its loop thread) on
the ``dynamixel_emulator`` backend in real time (time scale 1: the driver talks to the emulator
over a pseudo-terminal through dynamixel-sdk) at each requested rate, playing ``sin_sin``, and
prints, per rate, the achieved rate and the distribution of the cycle period (wall clock between
successive reads): mean, standard deviation, 1st/50th/99th percentiles, max, the share of
cycles later than 1.5 periods, and the process's CPU time per cycle (every thread: the loop, the
emulator answering it, and for the node the executor and DDS), which the load of other processes
changes less than the periods. Speed targets live here, never in tests.

With ``--ros`` (a sourced ROS 2 workspace), each rate is measured again on the bench node itself,
in this process, spun as its executable spins it (a single-threaded executor, in 0.1 s slices,
:func:`actuator_bench.nodes.common.spin_until`): its loop thread runs the cycles and publishes the
four topics (:mod:`actuator_bench.pacing`). The table then has a row per loop and rate, the
ROS-free loop's and the node's measured one after the other under the same load, each in a
process of its own. ``--timer``
adds the node cycled by an rclpy timer of its executor (the design before the loop thread: the
executor's work around each callback is what it adds).

Usage: ``python benchmarks/loop_jitter.py [--rates 100 500] [--seconds 6] [--latency-ms 1] [--ros [--timer]]``.
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing
import time
from typing import List, Tuple

import numpy as np

from actuator_bench.backends import installed_backends
from actuator_models.bench import BenchParams
from actuator_drivers.serial_bus.settings import EmulatedSerialSettings
from actuator_bench.loop import BenchLoop, Cycle
from actuator_bench.messages import BenchInfo
from actuator_bench.player import TrajectoryPlayer


class Stamps:
    """Wall clock and process CPU time at the start of each cycle."""

    def __init__(self) -> None:
        self.wall: List[float] = []
        self.cpu: List[float] = []

    def add(self) -> None:
        self.wall.append(time.perf_counter())
        self.cpu.append(time.process_time())

    def result(self, skip: int = 0) -> Tuple[np.ndarray, float]:
        """Periods [s] between successive cycles from cycle ``skip`` on, CPU time [s] per cycle."""
        wall, cpu = self.wall[skip:], self.cpu[skip:]
        return np.diff(wall), (cpu[-1] - cpu[0]) / (len(cpu) - 1)


def periods(rate: float, seconds: float, latency_ms: float) -> Tuple[np.ndarray, float]:
    """Wall-clock periods [s] between successive cycles of one run at ``rate`` [Hz], and the CPU
    time [s] per cycle."""
    bench = installed_backends().open("dynamixel_emulator", BenchParams(mass=0.49, length=0.1, settings=EmulatedSerialSettings(latency_ms=latency_ms)))
    stamps = Stamps()

    def sink(cycle: Cycle) -> None:
        if cycle.sample is not None:
            stamps.add()

    try:
        loop = BenchLoop(bench, TrajectoryPlayer(bench.joints, BenchInfo("xl330", mass=0.49, length=0.1)))
        deadline = time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            loop.run("sin_sin", 400.0, rate, sink)
    finally:
        bench.close()
    return stamps.result()


def ros_periods(rate: float, seconds: float, latency_ms: float, timer: bool = False) -> Tuple[np.ndarray, float]:
    """The same, cycles run by the bench node (its loop thread), the executor spun as its
    executable does; a run is started again whenever one ends. ``timer``: the node's cycles run
    by an rclpy timer of the executor instead (the design before its loop thread), for comparison."""
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from actuator_bench.nodes.bench_node import BenchNode
    from actuator_bench.nodes.common import spin_until

    rclpy.init()
    stamps = Stamps()
    try:
        node = BenchNode(parameter_overrides=[
            Parameter("backend", value="dynamixel_emulator"), Parameter("rate", value=rate),
            Parameter("latency_ms", value=latency_ms), Parameter("mass", value=0.49), Parameter("length", value=0.1)])
        if timer:
            node.loop_thread.stop()
            node.create_timer(node.core.period, node.on_cycle)
        tick = node.core.tick

        def timed_tick():
            stamps.add()
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
    return stamps.result(skip=1)  # from the second cycle: the first comes at the loop's start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", type=float, nargs="+", default=[100.0, 500.0], help="loop rates [Hz]")
    parser.add_argument("--seconds", type=float, default=6.0, help="run length per rate [s]")
    parser.add_argument("--latency-ms", type=float, default=1.0, help="USB latency timer of the driver [ms]")
    parser.add_argument("--ros", action="store_true", help="measure the bench node too (needs ROS 2)")
    parser.add_argument("--timer", action="store_true",
                        help="with --ros, also the node cycled by an rclpy timer (its design before the loop thread)")
    args = parser.parse_args()
    loops = [("ROS-free", periods)] + ([("node", ros_periods)] if args.ros else [])
    if args.ros and args.timer:
        loops.append(("timer", functools.partial(ros_periods, timer=True)))
    print(f"{'loop':>8} {'rate Hz':>8} {'achieved':>9} {'mean ms':>8} {'std ms':>7} {'p1 ms':>6} {'p50 ms':>7} "
          f"{'p99 ms':>7} {'max ms':>7} {'>1.5T':>6} {'cpu ms':>6}")
    for rate in args.rates:
        for name, measure in loops:
            with multiprocessing.get_context("spawn").Pool(1) as pool:  # a fresh process each: no thread
                period_s, cpu = pool.apply(measure, (rate, args.seconds, args.latency_ms))  # of an earlier one
            p = period_s * 1e3
            late = np.mean(p > 1.5e3 / rate)
            print(f"{name:>8} {rate:8.0f} {1e3 / p.mean():9.1f} {p.mean():8.3f} {p.std():7.3f} "
                  f"{np.percentile(p, 1):6.2f} {np.median(p):7.3f} {np.percentile(p, 99):7.3f} {p.max():7.2f} "
                  f"{late:6.1%} {cpu * 1e3:6.3f}", flush=True)


if __name__ == "__main__":
    main()

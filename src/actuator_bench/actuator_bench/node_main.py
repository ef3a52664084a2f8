"""Entry points of the node executables (``ros2 run actuator_bench <node>``, launch files).

SIGINT and SIGTERM are held pending (blocked, not lost) from the executable's first instruction
until the node's spin loop handles them (:func:`actuator_bench.nodes.common.spin` installs its
handlers, then unblocks them): a Ctrl-C that arrives while a node still imports rclpy, optuna or
MuJoCo, seconds on a busy machine, would otherwise be a ``KeyboardInterrupt`` traceback. Only
the standard library (and :mod:`actuator_bench.nodes.launcher`, which only looks for ROS 2) is
imported here, before the signals are blocked. Without ROS 2 a node script prints one line and
exits 2.
"""

from __future__ import annotations

import importlib
import signal
import sys

from actuator_bench.nodes.launcher import refusal

#: The signals a node stops on.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def run(node: str) -> "int | None":
    """Block the stop signals, then import and run ``actuator_bench.nodes.<node>``'s ``main``
    (its return value: an exit status or None); without ROS 2, one line on stderr and exit 2."""
    line = refusal(node)
    if line is not None:
        print(line, file=sys.stderr)
        sys.exit(2)
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    return importlib.import_module(f"actuator_bench.nodes.{node}").main()


def bench_node() -> None:
    run("bench_node")


def recorder_node() -> None:
    run("recorder_node")


def identification_node() -> None:
    run("identification_node")


def comparison_node() -> None:
    run("comparison_node")


def control_node() -> None:
    run("control_node")


def control_player() -> None:
    sys.exit(run("control_player"))


def control_manager() -> None:
    sys.exit(run("control_manager"))

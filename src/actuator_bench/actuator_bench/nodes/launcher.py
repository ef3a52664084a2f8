"""Entry points of the node scripts (``bench_node``, ``recorder_node``, ...): without ROS 2 they
print one line saying what is missing and how to get it, and exit 2, instead of an import
traceback (``--help`` included: the options are ROS parameters, read by rclpy)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Callable, Optional, Sequence

#: what a node script needs, and where it comes from
ROS_MODULES = ("rclpy", "actuator_interfaces")
HOW = ("source a ROS 2 (Humble or Jazzy) setup and this workspace's install/setup.bash after "
       "`colcon build` (README: 'With ROS 2'); without ROS use `actuator-bench`")
BAD_INPUT = 2


def missing_ros() -> Optional[str]:
    """The first ROS 2 module that cannot be imported (None: all there)."""
    for name in ROS_MODULES:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def run(node: str, argv: Optional[Sequence[str]] = None) -> int:
    """Run ``actuator_bench.nodes.<node>.main`` or, without ROS 2, say so in one line (exit 2)."""
    missing = missing_ros()
    if missing is not None:
        print(f"{node}: error: ROS 2 is needed ({missing} is not importable): {HOW}", file=sys.stderr)
        return BAD_INPUT
    main: Callable[..., None] = importlib.import_module(f"actuator_bench.nodes.{node}").main
    main(list(argv) if argv is not None else None)
    return 0


def bench_node() -> int:
    return run("bench_node")


def recorder_node() -> int:
    return run("recorder_node")


def identification_node() -> int:
    return run("identification_node")


def comparison_node() -> int:
    return run("comparison_node")

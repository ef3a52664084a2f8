"""What the node scripts (``bench_node``, ``recorder_node``, ...; entry points in
:mod:`actuator_bench.node_main`) need: without ROS 2 they print one line saying what is missing
and how to get it, and exit 2, instead of an import traceback (``--help`` included: the options
are ROS parameters, read by rclpy)."""

from __future__ import annotations

import importlib.util
from typing import Optional

#: what a node script needs, and where it comes from
ROS_MODULES = ("rclpy", "actuator_interfaces")
HOW = ("source a ROS 2 (Humble or Jazzy) setup and this workspace's install/setup.bash after "
       "`colcon build` (README: 'With ROS 2'); without ROS use `actuator-bench`")


def missing_ros() -> Optional[str]:
    """The first ROS 2 module that cannot be imported (None: all there)."""
    for name in ROS_MODULES:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def refusal(node: str) -> Optional[str]:
    """The one line a node script prints without ROS 2 (None: ROS 2 is there)."""
    missing = missing_ros()
    if missing is None:
        return None
    return f"{node}: error: ROS 2 is needed ({missing} is not importable): {HOW}"

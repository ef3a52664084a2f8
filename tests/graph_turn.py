"""One ROS graph of these tests at a time on the machine (every pytest worker, every run).

A test that starts a graph (``ros2 launch`` or nodes of its own) holds an exclusive ``flock`` on
:data:`GRAPH_LOCK` from the graph's start to its end. An idle pendulum graph with the emulated
Dynamixel in its control node takes about 1.3 cores of a 2-core machine here (control node 0.85,
ros2_control_node 0.5): with the compare test's two graphs and another launch at once the control
node starved (no command taken for 0.7-1.4 s, the torque released mid-run; no status packet from
its own emulator after 11 attempts), and three runs of the control tests on two workers failed 2,
1 and 1 tests. A full CI run later failed ``test_ros_nodes``' graph (five nodes in one process:
a bench node's log ended 1.4 s before its run did) while a control launch may have run beside it.
"""

from __future__ import annotations

import fcntl
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from time import monotonic, sleep
from typing import IO, Iterator

GRAPH_LOCK = Path(tempfile.gettempdir()) / "actuator_bench_graph.lock"
#: Seconds a graph waits for its turn before it starts anyway (saying so on stderr).
GRAPH_TURN_TIMEOUT = 900.0


def take_turn(lock_file: IO[str]) -> None:
    """Wait until ``lock_file`` (:data:`GRAPH_LOCK`, open) is locked by this process, at most
    :data:`GRAPH_TURN_TIMEOUT` s (then say so and go on). Released when the file is closed."""
    deadline = monotonic() + GRAPH_TURN_TIMEOUT
    while True:
        try:
            fcntl.flock(lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if monotonic() > deadline:
                print(f"{GRAPH_LOCK} still held after {GRAPH_TURN_TIMEOUT:g} s: starting anyway", file=sys.stderr)
                return
            sleep(0.5)


@contextmanager
def graph_turn() -> Iterator[None]:
    """The machine's turn for a graph, from entering to leaving."""
    with open(GRAPH_LOCK, "a") as turn:
        take_turn(turn)
        yield

"""Stopping a command started in a session of its own (``start_new_session=True``, e.g. ``ros2
launch``) as a terminal's Ctrl-C stops it: SIGINT to its whole process group, then SIGKILL to the
group when it has not exited in time (used by the tests and benchmarks that launch ROS graphs)."""

from __future__ import annotations

import os
import signal
import subprocess


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except ProcessLookupError:
        pass  # the whole group has exited already


def interrupt_group(process: subprocess.Popen, timeout: float = 60.0) -> int:
    """SIGINT to the process group ``process`` leads, up to ``timeout`` [s] for it to exit (its
    pipes, if any, read meanwhile so that a full pipe cannot hold it), then SIGKILL to the group;
    its exit status (negative: the signal that ended it)."""
    _signal_group(process, signal.SIGINT)
    try:
        process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _signal_group(process, signal.SIGKILL)
        process.communicate()
    return process.returncode

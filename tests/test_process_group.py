"""actuator_bench.process_group: a Ctrl-C to a whole process group, SIGKILL when ignored."""

from __future__ import annotations

import signal
import subprocess
import sys

from actuator_bench.process_group import interrupt_group


def started(code: str) -> subprocess.Popen:
    """A Python child in a session of its own that prints "ready" once its handlers are set."""
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                               start_new_session=True)
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def test_a_group_that_honours_sigint_exits_with_it():
    process = started("import time; print('ready', flush=True); time.sleep(120)")
    assert interrupt_group(process, timeout=60.0) == -signal.SIGINT  # Python ends on an unhandled Ctrl-C by it


def test_a_group_that_ignores_sigint_is_killed():
    process = started("import signal, time; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                      "print('ready', flush=True); time.sleep(120)")
    assert interrupt_group(process, timeout=0.5) == -signal.SIGKILL


def test_a_group_already_gone_is_no_error():
    process = subprocess.Popen([sys.executable, "-c", "pass"], start_new_session=True)
    process.wait()
    assert interrupt_group(process, timeout=5.0) == 0

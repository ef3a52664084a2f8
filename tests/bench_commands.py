"""Helpers of the end-to-end command tests: the README's bench commands as child processes
against the stand-alone emulators, interrupted on cue, and the emulated servo read back."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, List, Optional, Sequence, Tuple

from actuator_drivers.dynamixel.bus import DynamixelBus
from actuator_drivers.dynamixel.tables import control_table
from actuator_drivers.serial_bus_emulator.bench import EMULATOR_LATENCY_MS

BIN = Path(sys.executable).parent
ENV = dict(os.environ, PYTHONUNBUFFERED="1")


@contextmanager
def ctrl_c_raises() -> Iterator[None]:
    """Within the block Ctrl-C raises KeyboardInterrupt, here and in the children started
    meanwhile, as in a terminal: a shell that runs the tests in the background (``make test &``)
    ignores SIGINT, and an ignored signal stays ignored in the children it starts."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def dynamixel_emulator(*options: str) -> Iterator[str]:
    """``actuator-bench emulate`` (the README's stand-alone emulator) as a child process; yields
    its pty (the second line it prints)."""
    process = subprocess.Popen([str(BIN / "actuator-bench"), "emulate", *options], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, env=ENV)
    try:
        process.stdout.readline()
        yield process.stdout.readline().strip()
    finally:
        process.send_signal(signal.SIGTERM)  # its own stop signal
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def torque_enable(port: str, actuator: str = "mx64", protocol: int = 2, servo_id: int = 1) -> int:
    """Torque Enable read from the servo on ``port`` through a new bus (another program). The
    emulator behind ``port`` is another process of a possibly busy host: each attempt waits as an
    emulated bench's bus does (a USB adapter's 16 ms gave up after 6 x 34 ms in a run here at load 26)."""
    register = control_table(actuator, protocol)["torque_enable"]
    bus = DynamixelBus(port, protocol, retries=5, latency_ms=EMULATOR_LATENCY_MS)
    bus.open()
    try:
        return bus.read(servo_id, register.address, register.size)
    finally:
        bus.close()


def interrupted(command: Sequence[str], cue: "bytes | re.Pattern[bytes]", signum: int = signal.SIGINT,
                after: float = 0.0, timeout: float = 300.0, group: bool = False) -> Tuple[int, str]:
    """Run an ``actuator-bench`` command; send it ``signum`` ``after`` seconds after ``cue`` (bytes,
    or a pattern: a progress line can skip any one value on a busy machine) first shows on its
    stderr (never, if the command ended first); ``(exit status, stderr)``. ``group``: the command
    leads a process group of its own and the signal goes to the whole group, as a Ctrl-C typed at
    a terminal reaches the command and every child it started."""
    process = subprocess.Popen([str(BIN / "actuator-bench"), *command], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, env=ENV, start_new_session=group)
    deadline = time.monotonic() + timeout
    cued: Optional[float] = None
    sent = False
    chunks: List[bytes] = []
    fd = process.stderr.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], 0.02)
        data = os.read(fd, 65536) if ready else b""
        if ready and not data:  # the command ended
            break
        chunks.append(data)
        seen = b"".join(chunks)
        if cued is None and (cue.search(seen) if isinstance(cue, re.Pattern) else cue in seen):
            cued = time.monotonic()
        if not sent and cued is not None and time.monotonic() >= cued + after:
            if group:
                os.killpg(process.pid, signum)
            else:
                process.send_signal(signum)
            sent = True
        if time.monotonic() > deadline:
            process.kill()
            break
    code = process.wait()
    return code, b"".join(chunks).decode(errors="replace")


def children(pid: int) -> List[int]:
    """The live processes whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            state, parent = stat.read_text().rsplit(")", 1)[1].split()[:2]
        except (OSError, IndexError):
            continue
        if int(parent) == pid and state != "Z":
            found.append(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not reaped by an init that reaps none, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False

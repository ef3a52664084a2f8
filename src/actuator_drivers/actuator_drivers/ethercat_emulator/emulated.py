"""Emulated eRobs with the real driver on them, in one call (tests, record-all, no hardware).

    with emulated_erob([EmulatedJoint("erob80_100/m6", 3.1, 0.5)]) as (emulator, driver):
        recording = record(driver, "sin_sin", Bench("erob80_100", 3.1, 0.5), kp=25)

A uniquely named veth pair is created (root or CAP_NET_ADMIN), the emulator runs as a separate
process on one end (``actuator-bench emulate --ethercat``: pysoem holds the GIL while it waits
for a frame, so an emulator thread in the same process could not answer), and an
:class:`~actuator_drivers.erob.drive.ErobDriver` with stepped pacing opens the other end through pysoem. Everything
is torn down on exit, the veth pair included.
"""

from __future__ import annotations

import os
import re
import signal
import struct
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO, Dict, Iterator, List, Optional, Sequence, Tuple

from actuator_drivers.erob.drive import ErobDriver, ErobJoint
from actuator_drivers.erob.master import LineTiming
from actuator_drivers.erob.pacing import Stepped
from actuator_drivers.ethercat_emulator.veth import veth_pair


#: receive timeout [s] against an emulator sharing a loaded host. On a veth pair a frame is never
#: lost unless the emulator is told to lose it, only late: a starved host can leave the emulator
#: process unscheduled for a long time (CI on a busy 2-core machine once lost a cycle at 0.5 s,
#: earlier at 0.1 s), and a frame later than this would be a lost cycle, making the recording
#: depend on the host's load. A dead emulator is noticed after ``max_lost + 1`` such waits
#: (42 s at the driver's default of 20). A line paced in real time waits as long: at the
#: hardware's 2 ms a cycle, a CI run's control node lost 21 cycles in a row (about 2 s into
#: the run, torque released, the run lost); the emulated drive's cycles run on the wall clock
#: through such a wait (``--realtime``), holding the last current command, as a drive does
#: between frames.
EMULATOR_RECEIVE_TIMEOUT = 2.0

#: receive timeout [s] against an emulator told to drop or corrupt frames (a lossy link): the
#: losses are the point, and each would cost the whole wait (at 1 % of 1 kHz cycles, 20 s a second)
LOSSY_EMULATOR_RECEIVE_TIMEOUT = 0.02


@dataclass(frozen=True)
class EmulatedJoint:
    """One emulated drive: its shaft model (library name or params file) and pendulum."""

    model: str
    mass: float
    length: float
    arm_mass: float = 0.0

    @property
    def spec(self) -> str:
        return f"{self.model}:{self.mass:g}:{self.length:g}:{self.arm_mass:g}"

    @property
    def actuator(self) -> str:
        return self.model.split("/")[0] if "/" in self.model else "erob80_100"


class EmulatorError(RuntimeError):
    """The emulator process did not start or died."""


class EmulatorProcess:
    """``actuator-bench emulate --ethercat IFACE`` as a child process.

    ``options``: extra command-line options (fault injection: ``["--drop", "0.01"]``, ...).
    ``fifo_priority``: run the emulator with SCHED_FIFO at this priority (what ``chrt -f`` does;
    root only; benchmarks). After :meth:`stop`, :attr:`counters` holds the emulator's final
    counters (frames, dropped, ...) and :attr:`op_exit` the CiA 402 state each drive was in
    when the line last left OP (``{1: "switched on"}``: the master had released the torque).
    """

    def __init__(self, iface: str, joints: Sequence[EmulatedJoint], options: Sequence[str] = (),
                 start_timeout: float = 60.0, fifo_priority: Optional[int] = None) -> None:
        self.fifo_priority = fifo_priority
        self.iface = iface
        self.joints = list(joints)
        self.options = list(options)
        self.start_timeout = start_timeout
        self.counters: Dict[str, int] = {}
        self.op_exit: Dict[int, str] = {}
        self.stderr = ""
        self._process: Optional[subprocess.Popen] = None
        self._stderr_lines: List[str] = []

    @property
    def command(self) -> List[str]:
        cmd = [sys.executable, "-m", "actuator_drivers.cli", "emulate", "--ethercat", self.iface, "--parent", str(os.getpid()),
               "--chain"]
        return cmd + [j.spec for j in self.joints] + self.options

    def start(self) -> "EmulatorProcess":
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        priority = self.fifo_priority
        preexec = (lambda: os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))) if priority else None
        # its own session: a Ctrl-C at the terminal reaches the master, which releases the torque
        # through the emulator and then stops it; in the terminal's process group the emulator would
        # die first and every release frame would time out (--parent: it stops if the master is killed)
        process = subprocess.Popen(self.command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   env=env, preexec_fn=preexec, start_new_session=True)
        self._process = process
        assert process.stdout is not None and process.stderr is not None  # both piped
        reader = threading.Thread(target=self._drain_stderr, args=(process.stderr,), daemon=True)
        reader.start()
        deadline = time.monotonic() + self.start_timeout
        while True:
            line = process.stdout.readline()
            if line.strip() == self.iface:
                return self
            if not line and process.poll() is not None:
                reader.join(timeout=2)
                raise EmulatorError(f"emulator exited with status {process.returncode}: "
                                    + "".join(self._stderr_lines).strip())
            if time.monotonic() > deadline:
                self.stop()
                raise EmulatorError(f"emulator on {self.iface} not ready after {self.start_timeout} s")

    def _drain_stderr(self, stderr: IO[str]) -> None:
        for line in stderr:
            self._stderr_lines.append(line)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        time.sleep(0.05)
        self.stderr = "".join(self._stderr_lines)
        self.counters = parse_counters(self.stderr)
        self.op_exit = parse_op_exit(self.stderr)

    def __enter__(self) -> "EmulatorProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def parse_counters(text: str) -> Dict[str, int]:
    """``{"frames": 123, "dropped": 4, ...}`` from the emulator's closing ``counters:`` line."""
    match = re.search(r"counters: (.*)", text)
    if not match:
        return {}
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", match.group(1))}


def set_bench(driver: ErobDriver, slave_id: int, mass: float, length: float, arm_mass: float = 0.0) -> None:
    """Change an emulated drive's pendulum [kg, m, kg] (object 0x2F00:01-03, which real drives
    lack): the load change between groups of an emulated recording grid."""
    for sub, value in ((1, mass), (2, length), (3, arm_mass)):
        driver.sdo_write(slave_id, 0x2F00, sub, struct.pack("<f", value))


def parse_op_exit(text: str) -> Dict[int, str]:
    """``{slave: CiA 402 state}`` from the emulator's closing ``slave N left OP in: STATE`` lines."""
    return {int(n): state.strip() for n, state in re.findall(r"slave (\d+) left OP in: (.*)", text)}


@contextmanager
def emulated_erob(
    joints: Sequence[EmulatedJoint],
    *,
    options: Sequence[str] = (),
    names: Optional[Tuple[str, str]] = None,
    limits: Tuple[float, float] = (-2.8, 2.8),
    timing: LineTiming = LineTiming(receive_timeout=EMULATOR_RECEIVE_TIMEOUT),
    **driver_options,
) -> Iterator[Tuple[EmulatorProcess, ErobDriver]]:
    """Veth pair + emulator process + stepped driver; all closed on exit.

    ``timing`` and ``driver_options`` go to :class:`ErobDriver` (``max_lost``, ``pacing``, ...);
    the receive timeout defaults to :data:`EMULATOR_RECEIVE_TIMEOUT` (the emulator shares a loaded host). A driver paced
    otherwise than :class:`Stepped` (``Realtime``) gets an emulator whose drive cycles run on the
    wall clock (``--realtime``), as its bench time does.
    """
    driver_options.setdefault("pacing", Stepped())
    if not isinstance(driver_options["pacing"], Stepped):
        options = [*options, "--realtime"]
    with veth_pair(names) as (master_end, slave_end):
        with EmulatorProcess(slave_end, joints, options) as emulator:
            erob_joints = [ErobJoint(f"joint{i + 1}", j.actuator, *limits) for i, j in enumerate(joints)]
            with ErobDriver(master_end, erob_joints, timing=timing, **driver_options) as driver:
                yield emulator, driver

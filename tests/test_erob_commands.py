"""The README's eRob commands as written, each a separate process: ``veth create``, the
stand-alone EtherCAT emulator (``emulate --ethercat``), ``record --ethercat --stepped`` and
``veth remove``; then Ctrl-C during that recording (exit 130, partial log, and the emulated drive
had left "operation enabled" before the line went down: read from the emulator's own record).
Root is needed for the veth pair and raw sockets (CI runs as root)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from actuator_drivers.ethercat_emulator import veth
from actuator_drivers.ethercat_emulator.emulated import parse_op_exit

from bench_commands import BIN, ENV, alive, children, ctrl_c_raises, interrupted
from test_erob_driver import REASON

pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

RECORD = ["record", "--stepped", "--actuator", "erob80_100", "--trajectory", "sin_sin", "--mass", "3.1",
          "--length", "0.5", "--kp", "25", "--cycle-time", "0.002"]


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt as in a terminal (see bench_commands.ctrl_c_raises)."""
    with ctrl_c_raises():
        yield


def bench(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "actuator-bench"), *command], capture_output=True, text=True, env=ENV, timeout=120)


def emulator(iface: str) -> subprocess.Popen:
    process = subprocess.Popen([str(BIN / "actuator-bench"), "emulate", "--ethercat", iface, "--actuator", "erob80_100",
                                "--params", "erob80_100/m6", "--mass", "3.1", "--length", "0.5"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    assert process.stdout.readline().strip() == iface  # ready
    return process


def stop(process: subprocess.Popen) -> str:
    process.send_signal(signal.SIGTERM)  # the emulator's own stop signal
    _, err = process.communicate(timeout=30)
    return err


@pytest.fixture()
def cable():
    master, slave = veth.unique_names("ecr")
    assert bench("veth", "create", master, slave).returncode == 0
    try:
        yield master, slave
    finally:
        assert bench("veth", "remove", master).returncode == 0


def test_readme_erob_record_writes_a_raw_log(cable, tmp_path):
    master, slave = cable
    process = emulator(slave)
    try:
        result = bench(*RECORD, "--ethercat", master, "--out", str(tmp_path))
    finally:
        err = stop(process)
    assert result.returncode == 0, result.stderr
    (path,) = tmp_path.glob("*.json")
    log = json.loads(path.read_text())
    assert (log["motor"], log["trajectory"], log["mass"], log["kp"]) == ("erob80_100", "sin_sin", 3.1, 25)
    assert len(log["entries"]) in (1200, 1201)  # 6 s at 200 Hz, clocked by the process-data cycles
    assert parse_op_exit(err) == {1: "switched on"}  # released before the line went down


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_erob_record_exits_130_and_releases(cable, tmp_path, signum):
    master, slave = cable
    process = emulator(slave)
    try:
        code, err = interrupted([*RECORD, "--ethercat", master, "--out", str(tmp_path)], re.compile(rb" 1\.\d\d/"), signum)
    finally:
        emulated = stop(process)
    assert code == 130, err
    assert "interrupted" in err and "release failed" not in err and "Traceback" not in err
    (partial,) = (tmp_path / "partial").glob("*.json")
    assert 0 < len(json.loads(partial.read_text())["entries"]) < 1200
    assert parse_op_exit(emulated) == {1: "switched on"}  # torque off before the line went down


def test_ctrl_c_at_the_terminal_during_an_emulated_grid_releases_through_the_emulator(tmp_path):
    """``record-all --emulate`` starts the emulator as a child; a Ctrl-C typed at the terminal
    reaches the whole process group. The emulator is in a session of its own, so it still answers
    while the master releases the torque, then stops and is read back: the drive had left
    "operation enabled" (had it died with the Ctrl-C, every release frame would have timed out)."""
    code, err = interrupted(["record-all", "--emulate", "erob80_100/m6", "--actuator", "erob80_100", "--masses", "8.2",
                             "--kps", "25", "--trajectories", "sin_sin,up_and_down", "--unattended", "--cycle-time",
                             "0.002", "--rate", "100", "--out", str(tmp_path)],
                            re.compile(rb"up_and_down +\[[# ]+\] +1\.\d\d/"), group=True)
    assert code == 130, err
    assert "emulated drive when the line left OP: switched on" in err, err
    assert "releasing the torque failed" not in err and "Traceback" not in err, err
    assert len(list(tmp_path.glob("*.json"))) == 1 and len(list((tmp_path / "partial").glob("*.json"))) == 1


def test_an_emulator_whose_master_is_killed_stops(tmp_path):
    """The emulator a bench starts is in a session of its own (the test above), so a SIGKILL of
    the master, which runs no cleanup, would leave it serving forever: it is told its parent's pid
    and stops once that parent is gone. The master is killed mid-recording, the emulator serving.
    (The veth pair stays, as after any SIGKILL; removed here.)"""
    process = subprocess.Popen([str(BIN / "actuator-bench"), "record-all", "--emulate", "erob80_100/m6", "--actuator",
                                "erob80_100", "--masses", "8.2", "--unattended", "--cycle-time", "0.002",
                                "--out", str(tmp_path)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV, start_new_session=True)
    iface = None
    try:
        seen = b""
        while re.search(rb"\] +1\.\d\d/", seen) is None:  # a trajectory under way: the emulator serves
            chunk = process.stderr.read1(65536)
            assert chunk, seen.decode(errors="replace")
            seen += chunk
        (emulator,) = [p for p in children(process.pid) if b"--ethercat" in Path(f"/proc/{p}/cmdline").read_bytes()]
        args = Path(f"/proc/{emulator}/cmdline").read_bytes().split(b"\0")
        iface = args[args.index(b"--ethercat") + 1].decode()
        assert args[args.index(b"--parent") + 1] == str(process.pid).encode()
        process.kill()
        process.wait()
        deadline = time.monotonic() + 60  # it looks every 0.2 s; the margin is for a busy host
        while alive(emulator) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not alive(emulator), "the emulator outlived its killed master"
    finally:
        if process.poll() is None:
            process.kill()
        if iface is not None and veth.exists(iface):
            veth.remove(iface)

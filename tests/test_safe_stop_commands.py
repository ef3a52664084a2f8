"""Ctrl-C and SIGTERM during the README's ``actuator-bench record`` against the stand-alone
emulator (``actuator-bench emulate``, another process): exit 130, the partial log kept, no
failed release, and the emulated servo reads back torque off afterwards (through a new bus).

The signal is sent on cue (the progress line of the run, or the run half done), not after a
wall-clock delay, so what is asserted does not depend on the machine's speed. The 10-run
acceptance loop (record and demo at spread moments) is ``benchmarks/safe_stop.py``.
"""

from __future__ import annotations

import json
import re
import signal

import pytest

from bench_commands import ctrl_c_raises, dynamixel_emulator, interrupted, torque_enable

SCALE = "4"  # bench seconds per wall second, emulator and recorder alike: a 6 s trajectory in 1.5 s


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt as in a terminal (see bench_commands.ctrl_c_raises)."""
    with ctrl_c_raises():
        yield


# cues: the progress line's bench time in a window (it prints every ~0.1 s, and can skip any one value)
@pytest.mark.parametrize("signum, cue", [(signal.SIGINT, re.compile(rb" 0\.[5-9]\d/")),
                                         (signal.SIGINT, re.compile(rb" 3\.\d\d/")),
                                         (signal.SIGTERM, re.compile(rb" 1\.\d\d/"))],
                         ids=["sigint-0.5", "sigint-3", "sigterm-1"])
def test_interrupted_record_exits_130_keeps_the_partial_log_and_releases(tmp_path, signum, cue):
    with dynamixel_emulator("--actuator", "mx64", "--params", "mx64/m6", "--mass", "1.0", "--length", "0.15",
                            "--protocol", "2", "--time-scale", SCALE) as port:
        code, err = interrupted(["record", "--port", port, "--actuator", "mx64", "--protocol", "2",
                                 "--trajectory", "sin_sin", "--mass", "1.0", "--length", "0.15", "--kp", "32",
                                 "--time-scale", SCALE, "--command-timeout", "5", "--out", str(tmp_path)], cue, signum)
        assert torque_enable(port) == 0
    assert code == 130, err
    assert "interrupted" in err and "release failed" not in err and "Traceback" not in err
    (partial,) = (tmp_path / "partial").glob("*.json")
    entries = json.loads(partial.read_text())["entries"]
    assert 0 < len(entries) < 1200 and not list(tmp_path.glob("*.json"))


def test_ctrl_c_while_the_command_still_imports_exits_130_in_one_line():
    """A Ctrl-C during the seconds the command spends importing (a busy machine) was a
    KeyboardInterrupt traceback, exit -2; the signal is sent here from inside the import of the
    command's module, deterministically."""
    import subprocess
    import sys

    code = ("import builtins, os, signal, sys\n"
            "signal.signal(signal.SIGINT, signal.default_int_handler)  # a background parent may ignore it\n"
            "import actuator_bench.console as console\n"
            "real = builtins.__import__\n"
            "def interrupting(name, *args, **kwargs):\n"
            "    if name == 'actuator_bench.cli':\n"
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "    return real(name, *args, **kwargs)\n"
            "builtins.__import__ = interrupting\n"
            "sys.exit(console.main())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 130, done.stderr
    assert done.stderr.splitlines() == ["actuator-bench: interrupted while starting; nothing was opened or written"]

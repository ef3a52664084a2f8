"""The eRob command line: veth pairs, record-all against its own emulator, clear input errors."""

import json

import pytest

from actuator_drivers.ethercat_emulator import veth
from actuator_bench.cli import main

from test_erob_driver import REASON

needs_root = pytest.mark.skipif(REASON is not None, reason=REASON or "")


@needs_root
def test_veth_create_and_remove(capsys):
    a, b = veth.unique_names("ect")
    assert main(["veth", "create", a, b]) == 0
    assert capsys.readouterr().out.split() == [a, b]
    try:
        assert veth.exists(a) and veth.exists(b)
        assert main(["veth", "create", a, b]) == 1
        assert "already exists" in capsys.readouterr().err
    finally:
        assert main(["veth", "remove", b]) == 0
    assert not veth.exists(a) and not veth.exists(b)


@needs_root
def test_record_all_against_its_own_emulator(tmp_path, capsys):
    code = main(["record-all", "--emulate", "erob80_100/m6", "--actuator", "erob80_100", "--masses", "8.2",
                 "--kps", "50", "--trajectories", "lift_and_drop", "--unattended", "--cycle-time", "0.002",
                 "--rate", "100", "--out", str(tmp_path)])
    assert code == 0, capsys.readouterr().err
    (path,) = tmp_path.glob("*.json")
    log = json.loads(path.read_text())
    assert (log["motor"], log["mass"], log["length"], log["kp"]) == ("erob80_100", 8.2, 0.5, 50)
    entries = log["entries"]
    assert len(entries) in (600, 601) and "temp" not in entries[0]  # 6 s at 100 Hz; temperature is not read
    held = [e for e in entries if e["torque_enable"]]
    released = [e for e in entries if not e["torque_enable"]]
    assert held and released and all(e["control"] == 0 for e in released[1:])  # [0]: the last driven cycle
    assert held[-1]["position"] < -1.2 and released[-1]["position"] > 0  # lifted toward -pi/2 (sags), then dropped
    assert "1 logs written" in capsys.readouterr().err


def test_input_errors_are_clear(capsys):
    assert main(["record", "--ethercat", "nonexistent0", "--actuator", "mx64", "--trajectory", "sin_sin",
                 "--mass", "1", "--length", "0.1", "--kp", "8", "--out", "/tmp"]) == 2
    assert "--ethercat: not a setting of the dynamixel backend (--actuator mx64)" in capsys.readouterr().err
    assert main(["emulate", "--ethercat", "nonexistent0", "--actuator", "erob80_100"]) == 2
    assert "give --params, --mass and --length, or --chain" in capsys.readouterr().err
    assert main(["emulate", "--ethercat", "x", "--chain", "erob80_100/m6:3.1"]) == 2
    assert "expected MODEL:MASS:LENGTH" in capsys.readouterr().err
    assert main(["emulate", "--actuator", "mx64", "--mass", "1", "--length", "0.1"]) == 2  # Dynamixel path
    assert "required: --params" in capsys.readouterr().err

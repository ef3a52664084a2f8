"""The README's bench commands that no other test runs: ``play`` on the emulated Dynamixel backend
(as written, sped up 4x), and the demo's recording stage on an emulated eRob (``demo --quick
--actuator erob80_100``, one recording of its grid; root). ``record`` and ``record-all`` on
both families, and the Dynamixel demo, are run by test_recording_cli, test_safe_stop_commands,
test_erob_commands, test_erob_cli and test_demo."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from actuator_bench import cli
from actuator_bench.bag2json import bag_logs, find_runs, read_streams
from actuator_bench.demo import record_logs
from actuator_bench.demo_settings import demo_settings
from actuator_bench.record_grid import Grid
from actuator_models.logs import read_log

from test_erob_driver import REASON


def test_readme_play_on_the_emulated_dynamixel_writes_a_log_and_the_same_bag(tmp_path, capsys):
    argv = ["play", "--backend", "dynamixel_emulator", "--trajectory", "sin_sin", "--kp", "400", "--time-scale", "4",
            "--command-timeout", "5", "--out", str(tmp_path / "logs"), "--bag", str(tmp_path / "bags"), "--raw"]
    # (a 5 s command timeout: a busy host's stall of the loop must not release the torque)
    assert cli.main(argv) == 0, capsys.readouterr().err
    (path,) = (tmp_path / "logs").glob("*.json")
    log = read_log(path)
    assert (log.motor, log.trajectory, log.kp) == ("xl330", "sin_sin", 400.0)
    (from_bag,) = bag_logs(tmp_path / "bags")
    np.testing.assert_array_equal(from_bag.position, log.position)
    # the 6 s trajectory played to its end: its run (bench_info) closes at the first cycle past 6 s of
    # bench time. The log ends at the cycle before, which a stall of a busy host (the emulator runs at
    # 4x wall time) may put 1 s early or more (CI: 4.89 s), so its end is checked against the run's
    streams = read_streams(tmp_path / "bags")
    (namespace,) = streams
    (run,) = find_runs(namespace, streams[namespace])
    played = run.duration
    assert played > 6.0 and 0.0 < log.timestamp[-1] < played and np.ptp(log.position) > 1.0  # swinging


@pytest.mark.skipif(REASON is not None, reason=REASON or "")
def test_demo_records_on_an_emulated_erob_and_reads_the_drive_back(tmp_path, capsys):
    settings = replace(demo_settings()["erob80_100"][1], grid=Grid((3.1,), (0.5,), (25,), ("lift_and_drop",)))
    (path,) = record_logs(settings, tmp_path)
    log = read_log(path)
    assert (log.motor, log.mass, log.kp, len(log)) == ("erob80_100", 3.1, 25, 1201)  # 6 s at 200 Hz
    assert "emulated drive when the line left OP: switched on" in capsys.readouterr().err  # torque was off

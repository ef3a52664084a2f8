"""Recordings measure and report what happened: achieved rate, gaps over 2 dt, retries, comm errors."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from actuator_models.cli import main as models_main
from actuator_models.logs import LogError, read_log, write_log
from actuator_models.recording_quality import RecordingQuality, measure, processing_warning
from actuator_models.trajectories import trajectory

from actuator_bench.cli import main as bench_main
from actuator_drivers.dynamixel_emulator.emulator import Faults
from actuator_drivers.dynamixel_emulator.emulated import Emulation, emulated_dynamixel
from actuator_bench.messages import BenchInfo
from actuator_drivers.dynamixel.bench import DynamixelBench
from actuator_bench.recording import RecordOutput, RecordSettings, record

FAST = RecordSettings(prepare_time=0.3, settle_time=0.1, return_time=0.3)


def test_measure_counts_gaps_longer_than_two_periods():
    t = np.arange(0, 1.0 + 1e-9, 0.005)  # 201 samples at 200 Hz
    t = np.delete(t, [10, 11, 12, 50, 100])  # a 20 ms interval, a 10 ms one (not a gap: not > 2 dt), a 10 ms one
    q = measure(t, 200.0, retries=3, comm_errors=4)
    assert (q.samples, q.gaps, q.retries, q.comm_errors) == (196, 1, 3, 4)
    assert q.longest_gap == pytest.approx(0.020)
    assert q.achieved_rate == pytest.approx(195 / 1.0)
    assert measure(np.arange(0, 2.0, 1 / 164), 200.0).achieved_rate == pytest.approx(164)
    assert RecordingQuality.from_dict(q.to_dict()) == q
    assert q.summary() == "200 Hz asked, 195 Hz achieved, 1 gaps > 10 ms (longest 20.0 ms), 3 retries, 4 comm errors"
    with pytest.raises(ValueError, match="requested rate 0"):
        measure(t, 0)


def test_stalls_longer_than_two_periods_are_the_gaps_of_a_recording(tmp_path):
    """Three stalls injected in bench time during the trajectory (lockstep: exact): the two longer
    than 2 dt = 10 ms are the recording's gaps; the 50 ms one outlasts the 34 ms receive timeout
    (one timeout, one retry)."""
    stalls = ((1.0, 0.050), (2.0, 0.030), (3.0, 0.008))
    emulation = Emulation(protocol=2, time_scale=None, faults=Faults(stalls=stalls))
    with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=emulation) as (emu, driver):
        start = emu.clock.now() + FAST.prepare_time + FAST.settle_time
        recording = record(DynamixelBench.of(driver, "mx64"), "sin_sin", BenchInfo("mx64", mass=1.0, length=0.15), 32,
                           output=RecordOutput(tmp_path), settings=FAST)
    assert start < 1.0 and start + trajectory("sin_sin").duration > 3.1  # every stall falls in the trajectory
    q = recording.quality
    assert q.gaps == 2
    assert 0.050 - 0.005 < q.longest_gap <= 0.050 + 0.002  # the stall, give or take one period and the return delay
    assert (q.retries, q.comm_errors, recording.errors.timeouts) == (1, 1, 1)
    assert q.samples == recording.cycles and q.achieved_rate < 200.0
    stored = read_log(recording.path).recording
    assert RecordingQuality.from_dict(stored) == q  # in the raw log's metadata
    intervals = np.diff(read_log(recording.path).timestamp)
    assert np.count_nonzero(intervals > 0.010) == 2


def test_a_clean_lockstep_recording_reports_no_gaps(tmp_path):
    with emulated_dynamixel("xl330", "xl330/m6", 0.2, 0.1, emulation=Emulation(time_scale=None)) as (_, driver):
        recording = record(DynamixelBench.of(driver, "xl330"), replace(trajectory("sin_sin"), duration=1.0), BenchInfo("xl330", mass=0.2, length=0.1), 400, settings=FAST)
    q = recording.quality
    assert (q.samples, q.gaps, q.retries, q.comm_errors) == (201, 0, 0, 0)
    assert q.achieved_rate == pytest.approx(200.0) and q.longest_gap == pytest.approx(0.005)


def test_bad_recording_metadata_is_a_log_error(tmp_path):
    data = {"mass": 1.0, "length": 0.1, "kp": 8, "entries": [
        {"timestamp": 0.0, "position": 0, "speed": 0, "goal_position": 0, "torque_enable": True}],
        "recording": {"requested_rate": 200, "achieved_rate": 200, "samples": 1, "gaps": -1, "longest_gap": 0}}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(LogError, match=r"bad.json: field 'recording.gaps': expected a number >= 0, got -1"):
        read_log(path)
    data["recording"] = [1, 2]
    path.write_text(json.dumps(data))
    with pytest.raises(LogError, match=r"field 'recording': expected an object"):
        read_log(path)


def test_processing_warns_when_the_raw_rate_is_far_below_the_processing_rate(tmp_path, capsys):
    regular = np.arange(0, 2.0, 0.005)
    assert processing_warning(regular, 0.005) is None
    assert processing_warning(np.arange(0, 2.0, 1 / 164), 0.005) is None  # 82 % of 200 Hz, no long gap
    sparse = processing_warning(np.arange(0, 2.0, 0.01), 0.005, "slow.json")
    assert sparse.startswith("slow.json: achieved rate 100 Hz is far below the processing rate 200 Hz")
    holed = np.concatenate([regular[:100], regular[118:]])  # one 95 ms hole
    assert "a gap of 95 ms spans 19 steps of 5 ms" in processing_warning(holed, 0.005)

    with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=Emulation(time_scale=None, faults=Faults(delay=0.012))) as (_, driver):
        slow = record(DynamixelBench.of(driver, "mx64"), replace(trajectory("sin_sin"), duration=1.0), BenchInfo("mx64", mass=1.0, length=0.15), 32,
                      output=RecordOutput(tmp_path / "raw", "slow.json"), settings=FAST)
    assert slow.quality.achieved_rate == pytest.approx(80.0)  # each cycle waits 12 ms + 0.5 ms for its reply
    good = read_log("data/xl330/raw/" + sorted(p.name for p in __import__("pathlib").Path("data/xl330/raw").glob("*.json"))[0])
    write_log(good, tmp_path / "raw" / "real.json")
    assert models_main(["process", str(tmp_path / "raw"), str(tmp_path / "out"), "--dt", "0.005"]) == 0
    err = capsys.readouterr().err
    assert "warning: slow.json: achieved rate 80 Hz is far below the processing rate 200 Hz" in err
    assert "real.json" not in err  # a real XL330 bench log (185-250 Hz) is fine


def test_record_all_prints_the_quality_of_each_recording(tmp_path, capsys):
    status = bench_main(["record-all", "--emulate", "xl330/m6", "--actuator", "xl330", "--logdir", str(tmp_path),
                           "--masses", "0.2", "--lengths", "0.1", "--kps", "400", "--trajectories", "sin_sin",
                           "--unattended", "--lockstep", "--delay", "0.012"])
    assert status == 0
    err = capsys.readouterr().err
    assert "200 Hz asked, 80 Hz achieved, 480 gaps > 10 ms (longest 12.5 ms), 0 retries, 0 comm errors" in err
    assert "1 logs written" in err and "gaps 480 (longest 12.5 ms)" in err

"""One recording pipeline: JSON logs and MCAP bags come from the same control-loop cycles and
the same conversion, whether recorded without ROS or by the ROS graph.

Real parts: the Dynamixel driver (dynamixel-sdk) on the emulated servo over a pseudo-terminal,
the rosbags MCAP writer and reader. No timing-dependent assertion: two runs on the emulator
are compared within the jitter those very runs measured (their largest sample gap).
"""

import numpy as np
import pytest

from actuator_bench.backends import installed_backends
from actuator_models.bench import BenchParams
from actuator_bench.bag2json import bag_logs
from actuator_bench.messages import BenchInfo
from actuator_bench.session import RunOutput, record_run
from actuator_models.resampling import resample

PARAMS = BenchParams(mass=0.49, length=0.1, time_scale=2.0, seed=7)
INFO = BenchInfo("xl330", mass=0.49, length=0.1, vin=7.4)
COLUMNS = ("timestamp", "position", "speed", "goal_position", "torque_enable")


def emulated_run(tmp_path, name, bag=True):
    bench = installed_backends().open("dynamixel_emulator", PARAMS)
    try:
        return record_run(bench, INFO, "sin_sin", 400.0, rate=100.0,
                          output=RunOutput(bag=tmp_path / name if bag else None, dt=None, name=name))
    finally:
        bench.close()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("runs")
    return tmp, emulated_run(tmp, "a"), emulated_run(tmp, "b", bag=False)


def test_json_and_mcap_recordings_of_a_run_are_the_same_log(runs):
    tmp, a, _ = runs
    (json_log,) = a.logs
    (bag_log,) = bag_logs(tmp / "a")
    for column in COLUMNS:
        np.testing.assert_array_equal(getattr(bag_log, column), getattr(json_log, column))
    for key in ("control", "input_volts", "temp"):
        np.testing.assert_allclose(bag_log.extra[key], json_log.extra[key])
    assert (bag_log.motor, bag_log.mass, bag_log.length, bag_log.kp, bag_log.vin) == ("xl330", 0.49, 0.1, 400.0, 7.4)


def test_same_trajectory_and_seed_give_the_same_processed_log_within_jitter(runs):
    _, a, b = runs
    (raw_a,), (raw_b,) = a.logs, b.logs
    jitter = max(np.diff(raw_a.timestamp).max(), np.diff(raw_b.timestamp).max())  # s, as measured
    pa, pb = resample(raw_a, 0.005), resample(raw_b, 0.005)
    n = min(len(pa), len(pb))
    assert abs(len(pa) - len(pb)) <= int(jitter / 0.005) + 1
    goal_rate = np.abs(np.diff(pa.goal_position) / 0.005).max()  # rad/s
    # the same player: goals differ only by where each run sampled (held, then interpolated)
    assert np.abs(pa.goal_position[:n] - pb.goal_position[:n]).max() <= 2 * goal_rate * jitter + 1e-9
    speed = max(np.abs(pa.speed).max(), np.abs(pb.speed).max())
    error = np.abs(pa.position[:n] - pb.position[:n])
    assert error.max() <= 2 * speed * jitter + 0.01  # rad: the two runs differ by their sampling only
    assert np.median(error) < np.median(np.abs(pa.position[:n] - pa.goal_position[:n]))  # not just both near goal


def test_cli_recording_and_its_bag_are_the_same_log_and_match_a_played_run(tmp_path):
    """``actuator-bench record`` (moves to the start, records, returns) goes through the same loop
    and stream: its JSON log is the conversion of the MCAP bag it writes beside it, and it agrees
    with a ``play`` run of the same trajectory on the same emulator seed (lockstep: no jitter
    but where each run started from)."""
    from actuator_bench.recording import RecordOutput, RecordSettings, record
    from actuator_drivers.dynamixel_emulator.emulated import Emulation, emulated_dynamixel

    with emulated_dynamixel("xl330", "xl330/m6", 0.49, 0.1, emulation=Emulation(time_scale=None, seed=7)) as (_, driver):
        from actuator_drivers.dynamixel.bench import DynamixelBench

        recording = record(DynamixelBench.of(driver, "xl330"), "sin_sin", INFO, 400.0,
                           settings=RecordSettings(rate=100.0, prepare_time=0.3, settle_time=0.1, return_time=0.3),
                           output=RecordOutput(tmp_path, bag=tmp_path / "bag"))
    (bag_log,) = bag_logs(tmp_path / "bag")
    for column in COLUMNS:
        np.testing.assert_array_equal(getattr(bag_log, column), getattr(recording.log, column))
    assert recording.complete and len(recording.log) == 601  # 6 s at 100 Hz, both ends

    lockstep = BenchParams(mass=0.49, length=0.1, time_scale=None, seed=7)
    bench = installed_backends().open("dynamixel_emulator", lockstep)
    try:
        played = record_run(bench, INFO, "sin_sin", 400.0, rate=100.0, output=RunOutput(dt=None, name="play")).logs[0]
    finally:
        bench.close()
    pa, pb = resample(recording.log, 0.005), resample(played, 0.005)
    assert len(pa) == len(pb)
    np.testing.assert_allclose(pa.goal_position, pb.goal_position, atol=1e-12)  # the same player
    # sin_sin starts at rest at 0, where both runs start: the same shaft, sampled the same way,
    # within one encoder count
    count = 2 * np.pi / 4096  # rad: one XL330 encoder count
    assert np.abs(pa.position - pb.position).max() <= count + 1e-12 < 0.01 * np.abs(pa.position).max()

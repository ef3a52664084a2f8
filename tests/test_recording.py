"""Bench recording (the bench loop and trajectory player, as in the bench node) through the real
driver and dynamixel-sdk against the emulated servo.

The emulator runs in lockstep with the driver (``time_scale=None``): its shaft moves by exactly
the bench time the recording loop lets pass, so each recording here is the same on any machine
and load. The real-time emulation is measured by ``benchmarks/emulated_recording.py``.
"""

from __future__ import annotations

import json
import time
from dataclasses import replace

import numpy as np
import pytest
from actuator_models import load_model, read_log, resample, simulate_logs
from actuator_models.trajectories import trajectory

from actuator_drivers.dynamixel_emulator.emulator import Faults
from actuator_drivers.dynamixel_emulator.emulated import Emulation, emulated_dynamixel
from actuator_bench.messages import BenchInfo
from actuator_drivers.dynamixel.bench import DynamixelBench
from actuator_bench.record_grid import Grid, record_all
from actuator_bench.recording import RecordingError, RecordOutput, RecordSettings, check_pendulum, record

FAST = RecordSettings(prepare_time=0.3, settle_time=0.1, return_time=0.3)
LOCKSTEP = None  # emulated_dynamixel(emulation=Emulation(time_scale=None))


MX64 = BenchInfo("mx64", mass=1.0, length=0.15)


def play(driver, trajectory, info: BenchInfo, kp: float, **options):
    """Record on the bench of an open driver (the driver stays open: the test closes it)."""
    return record(DynamixelBench.of(driver, info.actuator), trajectory, info, kp, **options)


def short(name: str, duration: float):
    return replace(trajectory(name), duration=duration)


@pytest.mark.parametrize("protocol, name", [(1, "sin_sin"), (2, "lift_and_drop"), (1, "lift_and_drop"), (2, "sin_sin")])
def test_recording_matches_a_direct_simulation_of_the_logged_goals(tmp_path, protocol, name):
    """Acceptance: the emulated servo recorded through the driver follows the core model."""
    model = load_model("mx64/m6")
    with emulated_dynamixel("mx64", model, 1.0, 0.15, emulation=Emulation(protocol=protocol, time_scale=LOCKSTEP)) as (emu, driver):
        recording = play(driver, name, MX64, 32, output=RecordOutput(tmp_path), settings=FAST)
        torque_after = emu.servo(1).torque_enabled
    log = read_log(recording.path)
    duration = trajectory(name).duration
    assert recording.complete and len(log) == recording.cycles == round(duration * 200) + 1  # every 5 ms tick
    assert np.allclose(np.diff(log.timestamp), 0.005, atol=1e-9)
    assert log.vin == 15.0 and log.motor == "mx64" and log.trajectory == name and log.kp == 32
    assert set(log.extra) >= {"control", "input_volts", "temp"}  # the actuator_states stream's columns
    processed = resample(log, 0.005)
    mae = float(np.abs(simulate_logs(model, [processed])[0] - processed.position).mean())
    assert mae < 0.005, f"recording vs simulation MAE {mae:.4f} rad"
    if name == "lift_and_drop":
        assert log.torque_enable[log.timestamp < 1.99].all() and not log.torque_enable[log.timestamp > 2.01].any()
    assert not torque_after  # returned to zero, then released


def test_lockstep_recordings_are_identical_on_any_machine(tmp_path):
    """Same settings, same bytes: the recording does not depend on how the host schedules threads."""
    logs = []
    for run in range(2):
        emulation = Emulation(protocol=1, time_scale=LOCKSTEP, faults=Faults(drop=0.02, corrupt=0.02), seed=7)
        with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=emulation) as (_, driver):
            recording = play(driver, short("sin_time_square", 1.5), MX64, 32,
                               output=RecordOutput(tmp_path, f"run{run}.json"), settings=FAST)
        logs.append((tmp_path / f"run{run}.json").read_bytes())
        assert recording.errors.retries > 0  # faults were injected, and recovered from identically
    assert logs[0] == logs[1]


def test_recording_with_dropped_replies_completes_and_counts_errors(tmp_path):
    emulation = Emulation(protocol=2, time_scale=LOCKSTEP, faults=Faults(drop=0.05), latency_ms=4)
    with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=emulation) as (emu, driver):
        recording = play(driver, "up_and_down", MX64, 16, output=RecordOutput(tmp_path), settings=FAST)
    assert recording.complete and recording.cycles > 100
    assert recording.errors.timeouts > 0 and recording.errors.failures == 0
    assert recording.errors.errors == recording.errors.timeouts + recording.errors.corrupt + recording.errors.other
    assert 0 < recording.errors.timeouts <= emu.counters.dropped  # the preparation and return drop some too
    assert 5.8 < read_log(recording.path).duration <= 6.0


def test_dead_servo_stops_safely_and_keeps_the_partial_log(tmp_path):
    seen = []

    def kill_at_one_second(progress):
        seen.append(progress)
        if progress.t > 1.0:
            emu.set_faults(dead=True)

    emulation = Emulation(protocol=1, time_scale=LOCKSTEP, retries=2, latency_ms=4)
    with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=emulation) as (emu, driver):
        with pytest.raises(RecordingError, match=r"sin_sin: recording stopped at t = 1\.\d+ s: servo 1: .* entries kept in") as info:
            play(driver, "sin_sin", MX64, 32, output=RecordOutput(tmp_path), progress=kill_at_one_second, settings=FAST)
        assert not any(driver.torque.values())
        emu.set_faults(dead=False)
    partial = info.value.partial
    assert partial is not None and not partial.complete and partial.path.parent == tmp_path / "partial"
    kept = read_log(partial.path)
    assert len(kept) == partial.cycles > 50 and 1.0 < kept.timestamp[-1] < 1.3
    assert not list(tmp_path.glob("*.json"))  # nothing complete-looking in the log folder
    assert seen and seen[0].trajectory == "sin_sin"


def test_goal_beyond_the_joint_limits_stops_the_recording_with_torque_off(tmp_path):
    with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=Emulation(time_scale=LOCKSTEP, limits=(-1.0, 1.0))) as (emu, driver):
        with pytest.raises(RecordingError, match=r"goal 1\.\d+ rad is outside the joint limits \[-1\.0000, 1\.0000\]") as info:
            play(driver, "sin_sin", MX64, 32, output=RecordOutput(tmp_path), settings=FAST)
        assert not emu.servo(1).torque_enabled
    assert info.value.partial.log.goal_position.max() <= 1.0


@pytest.mark.parametrize("time_scale", [LOCKSTEP, 2.0])
def test_a_stalled_control_loop_stops_the_recording(tmp_path, time_scale):
    def stall_once(progress):
        if 0.5 < progress.t < 0.7:  # longer than the 0.5 s command timeout: the watchdog releases the torque
            time.sleep(0.7) if time_scale else driver.clock.sleep(0.7)

    with emulated_dynamixel("mx64", "mx64/m6", 1.0, 0.15, emulation=Emulation(time_scale=time_scale)) as (emu, driver):
        with pytest.raises(RecordingError, match="the command watchdog released the torque") as info:
            play(driver, "up_and_down", MX64, 32, output=RecordOutput(tmp_path), progress=stall_once, settings=FAST)
        assert not emu.servo(1).torque_enabled
    assert info.value.partial.path.parent == tmp_path / "partial"


def test_record_all_changes_the_emulated_load_between_groups(tmp_path):
    grid = Grid(masses=(0.5, 1.0), lengths=(0.1,), kps=(16,), trajectories=("up_and_down",))
    groups = []
    with emulated_dynamixel("mx64", "mx64/m6", 0.5, 0.1, emulation=Emulation(protocol=2, time_scale=LOCKSTEP)) as (emu, driver):
        def change(mass, length):
            emu.set_bench(mass, length)
            groups.append((mass, length, emu.servo(1).sim.bench.mass))
            return True

        done = record_all(DynamixelBench.of(driver, "mx64"), grid, "mx64", tmp_path, change, settings=FAST)
    assert groups == [(0.5, 0.1, 0.5), (1.0, 0.1, 1.0)]
    logs = sorted((read_log(r.path) for r in done), key=lambda log: log.mass)
    assert [(log.mass, log.length, log.kp) for log in logs] == [(0.5, 0.1, 16), (1.0, 0.1, 16)]
    # the heavier pendulum sags more at the same gain
    assert np.abs(logs[1].position - logs[1].goal_position).mean() > np.abs(logs[0].position - logs[0].goal_position).mean()


def test_bad_input_is_named(tmp_path):
    with pytest.raises(ValueError, match="bench mass -1"):
        check_pendulum(BenchInfo("mx64", mass=-1.0, length=0.15))
    with pytest.raises(ValueError, match="bench length 0"):
        check_pendulum(BenchInfo("mx64", mass=1.0, length=0.0))
    with emulated_dynamixel("xl330", "xl330/m6", 0.2, 0.1, emulation=Emulation(time_scale=LOCKSTEP)) as (_, driver):
        with pytest.raises(ValueError, match="unknown trajectory 'circle'"):
            play(driver, "circle", BenchInfo("xl330", mass=0.2, length=0.1), 100, output=RecordOutput(tmp_path))
        with pytest.raises(ValueError, match=r"joint 'joint5': not on this bench \(joints \['joint1'\]\)"):
            play(driver, "sin_sin", BenchInfo("xl330", mass=0.2, length=0.1), 100, settings=RecordSettings(joint="joint5"))
        with pytest.raises(ValueError, match="kp 100000"):
            play(driver, short("sin_sin", 0.2), BenchInfo("xl330", mass=0.2, length=0.1), 100000)


def test_log_file_is_the_published_json_format(tmp_path):
    with emulated_dynamixel("xl330", "xl330/m6", 0.2, 0.1, emulation=Emulation(time_scale=LOCKSTEP)) as (_, driver):
        recording = play(driver, short("sin_time_square", 0.5), BenchInfo("xl330", mass=0.2, length=0.1, arm_mass=0.01), 400,
                           output=RecordOutput(tmp_path, "one.json"), settings=FAST)
    data = json.loads((tmp_path / "one.json").read_text())
    assert {k: data[k] for k in ("mass", "length", "arm_mass", "kp", "motor", "trajectory")} == {
        "mass": 0.2, "length": 0.1, "arm_mass": 0.01, "kp": 400, "motor": "xl330", "trajectory": "sin_time_square"}
    assert data["vin"] == pytest.approx(7.4) and "dt" not in data
    assert data["commands_held"] is True  # each cycle's command followed its sample: process holds it
    entry = data["entries"][0]
    assert set(entry) == {"timestamp", "position", "speed", "goal_position", "torque_enable",
                          "input_volts", "temp", "control"}  # control = PWM x input voltage [V]
    assert recording.rate == pytest.approx(200.0) and recording.cycles == 101

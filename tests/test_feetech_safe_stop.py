"""Safe stops of the Feetech driver (issue 22 on issue 20's seam): Ctrl-C at chosen points of an
STS recording, inside feetech-servo-sdk transactions included, ends with the torque off, read
back from the emulated servo's memory; a hardware alarm during a run ends with a verified
release although every status packet of the servo carries the alarm.

The interrupting emulator is the serial-bus emulator hook of ``test_safe_stop`` over the STS bus."""

from __future__ import annotations

from dataclasses import replace

import pytest
from actuator_models.trajectories import trajectory

from actuator_bench.messages import BenchInfo
from actuator_bench.recording import RecordingError, RecordOutput, record
from actuator_drivers.serial_bus.servo import ServoConfig
from actuator_drivers.feetech.bench import FeetechBench
from actuator_drivers.feetech.driver import FeetechDriver
from actuator_drivers.feetech.errors import HardwareError
from actuator_drivers.feetech_emulator.emulator import FeetechEmulator

from test_safe_stop import (  # noqa: F401 (_ctrl_c_raises: the autouse fixture)
    FAST, Interrupting, _ctrl_c_raises, assert_interrupted_recording_released,
)

STS = BenchInfo("sts3215", mass=0.3, length=0.1)


class InterruptingFeetech(Interrupting, FeetechEmulator):
    """The STS bus that sends SIGINT to the host when its ``at``-th instruction packet arrives."""


def open_sts(at: int):
    emulator = InterruptingFeetech.single("sts3215/m1", 0.3, 0.1, time_scale=None, seed=0)
    emulator.at = at
    emulator.start()
    driver = FeetechDriver(emulator.port, ServoConfig(1, "sts3215"), retries=10, clock=emulator.clock).open()
    return emulator, driver


# Instruction packets of this recording (2 s at 50 Hz), measured: setup 1-11, the prepare move
# 12-42, the run 43-246, the return and the release 247-273. (at, the run was under way)
POINTS = [(12, False), (100, True), (101, True), (260, False), (270, False)]


@pytest.mark.parametrize("at, in_run", POINTS)
def test_interrupt_anywhere_in_an_sts_recording_ends_with_torque_off(tmp_path, caplog, at, in_run):
    emulator, driver = open_sts(at)
    assert_interrupted_recording_released(FeetechBench.of(driver, "sts3215"), emulator, STS, tmp_path, caplog, in_run)


def test_sts_alarm_during_a_recording_releases_and_reads_back(tmp_path, caplog):
    emulator, driver = open_sts(0)
    try:
        def overload(progress):
            if progress.t > 0.5:
                emulator.inject_hardware_error("overload")

        with pytest.raises(RecordingError, match="overload") as info:
            record(FeetechBench.of(driver, "sts3215"), replace(trajectory("sin_sin"), duration=2.0), STS, 32,
                   output=RecordOutput(tmp_path), progress=overload, settings=FAST)
        assert isinstance(info.value.__cause__, HardwareError) and emulator.servo(1).peek("torque_enable") == 0
        driver.release()  # read back: Torque Enable 0 although every status packet carries the alarm
    finally:
        driver.close()
        emulator.stop()
    assert "release failed" not in caplog.text

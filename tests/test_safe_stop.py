"""Safe stops: Ctrl-C or SIGTERM at any point of a recording, even inside a bus transaction,
ends with the torque off, read back from the emulated servo.

The interrupts are real signals sent to the main thread at chosen points: the lockstep
emulator signals the host when it receives its Nth instruction packet, so the host is then
inside that transaction (between dynamixel-sdk's ``txPacket`` and the end of its ``rxPacket``,
waiting for the status packet). Without the interrupt shield the SDK's port stays marked busy
and every release is refused with "Port is in use!".
"""

from __future__ import annotations

import logging
import signal
import threading
from dataclasses import replace

import pytest
from actuator_models.trajectories import trajectory

from actuator_drivers.dynamixel.driver import DynamixelDriver, ServoConfig
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
from actuator_drivers.safe_stop import InterruptShield
from actuator_drivers.dynamixel.bench import DynamixelBench
from actuator_bench.loop import BenchLoop
from actuator_bench.messages import BenchInfo
from actuator_bench.player import TrajectoryPlayer, identification_schedule
from actuator_bench.recording import RecordOutput, RecordSettings, record

from bench_commands import ctrl_c_raises

MX64 = BenchInfo("mx64", mass=1.0, length=0.15)
FAST = RecordSettings(prepare_time=0.2, settle_time=0.05, return_time=0.2, rate=50.0)


@pytest.fixture(autouse=True)
def _ctrl_c_raises():
    """Ctrl-C raises KeyboardInterrupt as in a terminal (see bench_commands.ctrl_c_raises)."""
    with ctrl_c_raises():
        yield


class Interrupting:
    """Mixin for any family's emulator (the serial-bus emulator core's ``_execute``): sends
    ``signum`` to the host's main thread when its ``at``-th instruction packet arrives (the host
    is then inside that transaction, waiting for the status packet)."""

    at = 0
    signum = signal.SIGINT

    def _execute(self, packet):
        if self.counters.received + 1 == self.at:
            signal.pthread_kill(threading.main_thread().ident, self.signum)
        return super()._execute(packet)


class InterruptingEmulator(Interrupting, DynamixelEmulator):
    """The Dynamixel bus with the :class:`Interrupting` hook."""


def open_bench(at: int, signum: int = signal.SIGINT, protocol: int = 2):
    emulator = InterruptingEmulator.single("mx64", "mx64/m6", 1.0, 0.15, protocol=protocol, time_scale=None, seed=0)
    emulator.at, emulator.signum = at, signum
    emulator.start()
    driver = DynamixelDriver(emulator.port, ServoConfig(1, "mx64"), protocol=protocol, retries=10,
                             clock=emulator.clock).open()
    return emulator, driver


def sigterm_raises(signum, frame):
    raise KeyboardInterrupt("SIGTERM")


# Instruction packets of this recording (2 s at 50 Hz), measured: Protocol 1.0 setup 1-8, the
# prepare move 9-38, the run 39-243, the return and the release 244-268; Protocol 2.0 setup 1-11,
# prepare 12-41, run 42-245, return and release 246-271. (at, protocol, the run was under way)
POINTS = [(9, 1, False), (20, 1, False), (100, 1, True), (101, 1, True), (201, 1, True), (250, 1, False),
          (267, 1, False), (268, 1, False), (12, 2, False), (60, 2, True), (150, 2, True), (151, 2, True),
          (260, 2, False), (270, 2, False)]


@pytest.mark.parametrize("at, protocol, in_run", POINTS)
def test_interrupt_anywhere_in_a_recording_ends_with_torque_off(tmp_path, caplog, at, protocol, in_run):
    emulator, driver = open_bench(at, protocol=protocol)
    assert_interrupted_recording_released(DynamixelBench.of(driver, "mx64"), emulator, MX64, tmp_path, caplog, in_run)


def assert_interrupted_recording_released(bench, emulator, info: BenchInfo, tmp_path, caplog, in_run: bool) -> None:
    """Record until the emulator's interrupt: Torque Enable reads 0 in the emulated servo, the
    port is usable again, no release failed, and a partial log is kept when the run was under
    way. Closes the bench's driver and the emulator."""
    caplog.set_level(logging.WARNING)
    driver = bench.driver
    try:
        with pytest.raises(KeyboardInterrupt):
            record(bench, replace(trajectory("sin_sin"), duration=2.0), info, 32, output=RecordOutput(tmp_path), settings=FAST)
        assert emulator.counters.received >= emulator.at
        assert emulator.servo(1).peek("torque_enable") == 0  # released while the program goes on
        assert not driver.bus.port.is_using and not driver.read()[1].torque_enabled  # the bus answers
    finally:
        driver.close()
        emulator.stop()
    assert emulator.servo(1).peek("torque_enable") == 0
    assert "release failed" not in caplog.text and "Port is in use" not in caplog.text
    partial = list((tmp_path / "partial").glob("*.json"))
    assert len(partial) == int(in_run)  # interrupted during the run: the cycles so far are kept


def test_sigterm_inside_a_transaction_is_delivered_after_it(tmp_path):
    previous = signal.signal(signal.SIGTERM, sigterm_raises)
    emulator, driver = open_bench(100, signal.SIGTERM)
    try:
        bench = DynamixelBench.of(driver, "mx64")
        loop = BenchLoop(bench, TrajectoryPlayer(bench.joints, MX64))
        with pytest.raises(KeyboardInterrupt, match="SIGTERM"):
            loop.run(identification_schedule(replace(trajectory("sin_sin"), duration=3.0), 1), 32, 50.0, lambda cycle: None)
        assert emulator.counters.received > 100 and emulator.servo(1).peek("torque_enable") == 0
    finally:
        driver.close()
        emulator.stop()
        signal.signal(signal.SIGTERM, previous)


def test_shield_defers_a_signal_to_the_end_of_the_block_and_nests():
    shield, seen = InterruptShield(), []
    with pytest.raises(KeyboardInterrupt):
        with shield:
            with shield:
                signal.raise_signal(signal.SIGINT)
                seen.append("inner block finished")
            seen.append("outer block finished")
    assert seen == ["inner block finished", "outer block finished"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handlers put back


def test_fault_during_a_recording_releases_and_reads_back(tmp_path, caplog):
    """A hardware alarm in the run: the recording stops, the torque release is verified even
    though every status packet of the servo carries the alarm."""
    emulator, driver = open_bench(0, protocol=1)
    try:
        def overload(progress):
            if progress.t > 0.5:
                emulator.inject_hardware_error("overload")

        with pytest.raises(Exception, match="overload"):
            record(DynamixelBench.of(driver, "mx64"), replace(trajectory("sin_sin"), duration=2.0), MX64, 32,
                   output=RecordOutput(tmp_path), progress=overload, settings=FAST)
        assert emulator.servo(1).peek("torque_enable") == 0
    finally:
        driver.close()
        emulator.stop()
    assert "release failed" not in caplog.text


def test_loop_reports_a_failed_release_without_hiding_the_first_error(caplog):
    """The loop's fault path (Python 3.10: no exception notes): the bus dies mid-run, the
    release fails too; the first error propagates and the failed release is logged."""
    emulator, driver = open_bench(0)
    emulator.set_faults(dead=False)
    try:
        bench = DynamixelBench.of(driver, "mx64")
        loop = BenchLoop(bench, TrajectoryPlayer(bench.joints, MX64))

        def die(cycle):
            if cycle.sample is not None and cycle.sample.time > 0.3:
                emulator.set_faults(dead=True)

        with pytest.raises(Exception, match="read 23 bytes") as info:
            loop.run(identification_schedule(replace(trajectory("sin_sin"), duration=2.0), 1), 32, 50.0, die)
        assert "releasing the torque failed too" in caplog.text
        assert not hasattr(info.value, "__notes__")
    finally:
        emulator.set_faults(dead=False)
        driver.close()
        emulator.stop()
    assert emulator.servo(1).peek("torque_enable") == 0  # the closing release, once the bus answers again

"""Feetech STS family (issue 22): the stock vendor SDK against the pty emulator, byte-level
framing, sign-magnitude registers checked against the SDK's own conversion, and the driver's
safety guarantees read back from the emulated servo (limits, fault bits, a dead bus, the
watchdog, Ctrl-C during a recording). Lockstep emulation wherever a number is asserted."""

from __future__ import annotations

import os
import signal
import time

import pytest
import scservo_sdk as sdk

from actuator_bench.messages import BenchInfo
from actuator_bench.recording import RecordingError, RecordOutput, RecordSettings, record
from actuator_drivers.common import CommandTimeout
from actuator_drivers.feetech.bench import FeetechBench
from actuator_drivers.feetech.errors import CommunicationError, HardwareError, JointLimitError, ModelMismatchError
from actuator_drivers.feetech.tables import sts3215
from actuator_drivers.feetech_emulator.emulated import Emulation, emulated_feetech
from actuator_drivers.feetech_emulator.emulator import FeetechEmulator

FAST = RecordSettings(prepare_time=0.3, settle_time=0.1, return_time=0.3)
STS = BenchInfo("sts3215", mass=0.3, length=0.1)


def _until_ok(call, *args):
    """A stock SDK call repeated until it succeeds (at most 20 times): the wall-clock emulator
    shares a loaded host, and a user's script retries the same way."""
    for _ in range(20):
        *values, result, error = call(*args)
        if result == sdk.COMM_SUCCESS:
            return (*values, error)
    raise AssertionError(f"{call.__name__}{args[1:]}: no success in 20 attempts (last result {result})")


def test_stock_vendor_sdk_pings_moves_and_releases_the_emulated_servo(monkeypatch):
    """Acceptance: plain scservo_sdk calls, as in the vendor's examples, on the wall-clock
    emulator. The SDK's receive timeout is 2 x LATENCY_TIMER + 2 ms (34 ms); a loaded CI host can
    hold the emulator's thread longer, so the latency timer is raised as for a slow adapter."""
    monkeypatch.setattr(sdk.port_handler, "LATENCY_TIMER", 250)
    with FeetechEmulator.single("sts3215/m1", 0.3, 0.1, time_scale=1.0) as emulator:
        port, handler = sdk.PortHandler(emulator.port), sdk.PacketHandler(0)
        assert port.openPort()
        assert _until_ok(handler.ping, port, 1) == (777, 0)
        start, _ = _until_ok(handler.read2ByteTxRx, port, 1, 56)
        goal = start + 500  # counts
        assert _until_ok(handler.write1ByteTxRx, port, 1, 40, 1) == (0,)
        assert _until_ok(handler.write2ByteTxRx, port, 1, 42, goal) == (0,)
        deadline, position = time.monotonic() + 30.0, start
        while time.monotonic() < deadline and abs(goal - position) > 100:
            time.sleep(0.05)
            position, _ = _until_ok(handler.read2ByteTxRx, port, 1, 56)
        assert abs(goal - position) <= 100 < abs(goal - start)  # moved most of the way (gravity sags it)
        assert _until_ok(handler.write1ByteTxRx, port, 1, 40, 0) == (0,)
        assert _until_ok(handler.read1ByteTxRx, port, 1, 40) == (0, 0)
        assert not emulator.servo(1).torque_enabled
        port.closePort()


def test_packets_are_the_documented_bytes(monkeypatch):
    monkeypatch.setattr(sdk.port_handler, "LATENCY_TIMER", 250)  # as above: a loaded host
    with FeetechEmulator.single("sts3215/m1", 0.3, 0.1, time_scale=None, trace=True) as emulator:
        port, handler = sdk.PortHandler(emulator.port), sdk.PacketHandler(0)
        assert port.openPort()
        handler.ping(port, 1)
        handler.write2ByteTxRx(port, 1, 42, 0x0123)
        port.closePort()
    trace = emulator.trace
    # ping: FF FF ID LEN=2 INSTR=1 CHK=~(1+2+1); status FF FF ID 2 ERR=0 CHK=~(1+2)
    assert trace[0] == ("rx", bytes([0xFF, 0xFF, 0x01, 0x02, 0x01, 0xFB]))
    assert trace[1] == ("tx", bytes([0xFF, 0xFF, 0x01, 0x02, 0x00, 0xFC]))
    # model number read (SDK ping reads address 3): 777 = 0x0309 little-endian
    assert trace[3] == ("tx", bytes([0xFF, 0xFF, 0x01, 0x04, 0x00, 0x09, 0x03, (~(1 + 4 + 9 + 3)) & 0xFF]))
    # write goal position 0x0123 little-endian at 42 (0x2A)
    body = [0x01, 0x05, 0x03, 0x2A, 0x23, 0x01]
    assert trace[4] == ("rx", bytes([0xFF, 0xFF, *body, (~sum(body)) & 0xFF]))


@pytest.mark.parametrize("name, bit", [("goal_position", 15), ("present_velocity", 15), ("homing_offset", 11),
                                       ("present_load", 10)])
@pytest.mark.parametrize("value", [-1000, -1, 0, 1, 777])
def test_sign_magnitude_registers_match_the_sdk_conversion(name, bit, value):
    register = sts3215()[name]
    raw = sdk.SCS_TOSCS(value, bit)
    assert register.encode(value) == raw
    assert register.decode(raw) == sdk.SCS_TOHOST(raw, bit) == value


def test_driver_reads_si_units_and_moves_with_the_sts_speed_limit():
    # (a 5 s command timeout: a busy host's stall of this loop must not release the torque)
    with emulated_feetech("sts3215/m1", 0.3, 0.1, emulation=Emulation(command_timeout=5.0)) as (emulator, driver):
        driver.set_kp(32)
        assert emulator.servo(1).peek("p_coefficient") == 32 and emulator.servo(1).peek("d_coefficient") == 0
        start, positions = driver.clock.now(), []
        for _ in range(40):  # ~0.2 s towards 1 rad: the firmware's target moves at most 5.2 rad/s
            driver.command(1.0, True)
            driver.clock.sleep(0.005)
            positions.append(driver.read()[1].position)
        state = driver.read()[1]
        assert state.input_voltage == pytest.approx(7.4) and state.torque_enabled
        # no faster than the speed limit over the bench time that passed (0.2 s when the host is
        # quiet: a CI run's busy host let more pass, and the shaft went 1.054 rad, over 0.2 s's 1.053)
        elapsed = state.time - start
        assert 0.3 < positions[-1] < 2 * 3.14159 * 3400 / 4096 * elapsed + 0.01, (positions[-1], elapsed)
        assert driver.counters.transactions > 80 and driver.counters.errors == 0


def test_joint_limits_refuse_a_goal_and_send_nothing():
    with emulated_feetech("sts3215/m1", 0.3, 0.1, emulation=Emulation(time_scale=None, limits=(-1.0, 1.0))) as (emulator, driver):
        before = emulator.servo(1).peek("goal_position")
        with pytest.raises(JointLimitError, match=r"goal 1\.5 rad is outside the joint limits"):
            driver.command(1.5, True)
        assert emulator.servo(1).peek("goal_position") == before and not emulator.servo(1).torque_enabled


def test_fault_bits_become_clear_errors_and_torque_is_off():
    with emulated_feetech("sts3215/m1", 0.3, 0.1) as (emulator, driver):
        driver.command(0.2, True)
        emulator.inject_hardware_error("overload")
        with pytest.raises(HardwareError, match="servo 1: hardware error overload"):
            driver.read()
        assert not emulator.servo(1).torque_enabled and not any(driver.torque.values())


def test_dead_bus_is_a_clear_error_after_retries_and_counted():
    with emulated_feetech("sts3215/m1", 0.3, 0.1, emulation=Emulation(time_scale=None, retries=2)) as (emulator, driver):
        driver.command(0.2, True)
        emulator.set_faults(dead=True)
        with pytest.raises(CommunicationError, match="servo 1: read 15 bytes at address 56: There is no status packet! after 3 attempt"):
            driver.read()
        assert driver.counters.timeouts >= 3 and driver.counters.failures >= 1
        emulator.set_faults(dead=False)
        assert emulator.servo(1).torque_enabled  # the release could not reach it while dead ...
        driver.release()
        assert not emulator.servo(1).torque_enabled  # ... and goes through once the bus answers


def test_corrupt_and_dropped_replies_are_retried_and_counted():
    with emulated_feetech("sts3215/m1", 0.3, 0.1, emulation=Emulation(time_scale=None, seed=3)) as (emulator, driver):
        emulator.set_faults(drop=0.2, corrupt=0.2)
        for _ in range(30):
            driver.command(0.1, True)
            driver.clock.sleep(0.005)
            driver.read()
        c = driver.counters
        assert c.timeouts > 0 and c.corrupt > 0 and c.retries == c.errors and c.failures == 0


def test_watchdog_releases_the_torque_in_bench_time():
    with emulated_feetech("sts3215/m1", 0.3, 0.1) as (emulator, driver):
        driver.command(0.3, True)
        driver.clock.sleep(0.6)  # no command for longer than the 0.5 s timeout
        driver.read()
        assert driver.watchdog_trips == 1 and not emulator.servo(1).torque_enabled


def test_model_number_is_checked():
    with FeetechEmulator.single("sts3215/m1", 0.3, 0.1, time_scale=None) as emulator:
        emulator.servo(1).poke("model_number", 1234)
        from actuator_drivers.serial_bus.servo import ServoConfig
        from actuator_drivers.feetech.driver import FeetechDriver

        driver = FeetechDriver(emulator.port, ServoConfig(1, "sts3215"), clock=emulator.clock)
        with pytest.raises(ModelMismatchError, match="model number 1234 does not match the configured Feetech STS3215"):
            driver.open()


def test_ctrl_c_during_a_recording_leaves_the_torque_off(tmp_path):
    def interrupt(progress):
        if progress.t > 0.5:
            os.kill(os.getpid(), signal.SIGINT)

    with emulated_feetech("sts3215/m1", 0.3, 0.1) as (emulator, driver):
        with pytest.raises(KeyboardInterrupt):
            record(FeetechBench.of(driver, "sts3215"), "sin_sin", STS, 32, output=RecordOutput(tmp_path), progress=interrupt,
                   settings=FAST)
        assert not emulator.servo(1).torque_enabled  # read back from the emulated servo's memory
        assert emulator.servo(1).peek("torque_enable") == 0
    assert list((tmp_path / "partial").glob("*.json"))


def test_a_stalled_loop_stops_an_sts_recording_with_torque_off(tmp_path):
    def stall(progress):
        if 0.5 < progress.t < 0.52:
            driver.clock.sleep(0.7)

    with emulated_feetech("sts3215/m1", 0.3, 0.1) as (emulator, driver):
        with pytest.raises(RecordingError) as info:
            record(FeetechBench.of(driver, "sts3215"), "up_and_down", STS, 32, output=RecordOutput(tmp_path), progress=stall,
                   settings=FAST)
        assert isinstance(info.value.__cause__, CommandTimeout) and not emulator.servo(1).torque_enabled


def test_feetech_emulator_backend_publishes_what_the_other_backends_publish():
    """ROS-free core of ``bench.launch.py backend:=feetech_emulator`` (rclpy is not in CI): the same
    topics, message types and stamping as the Dynamixel emulator backend."""
    from actuator_bench.bench_core import BenchCore

    seen = {}
    for backend, params in (("dynamixel_emulator", {"kp": [400.0]}),
                            ("feetech_emulator", {"actuators": ["sts3215"], "models": ["sts3215/m1"], "kp": [32.0],
                                                 "baudrate": 1000000})):
        core = BenchCore({"backend": backend, "mass": 0.3, "length": 0.1, "time_scale": 4.0, **params})
        try:
            core.start("sin_sin", params["kp"][0])
            pubs = core.tick() + core.tick() + (core.close() or [])
        finally:
            core.loop.bench.close()
        seen[backend] = [(p.topic, p.msgtype, sorted(p.fields)) for p in pubs]
    assert seen["feetech_emulator"] == seen["dynamixel_emulator"]


def test_emulate_command_prints_a_description_then_the_pty_path():
    import subprocess
    import sys

    from actuator_drivers.serial_bus.servo import ServoConfig
    from actuator_drivers.feetech.driver import FeetechDriver

    command = [sys.executable, "-m", "actuator_drivers.cli", "emulate", "--actuator", "sts3215", "--params", "sts3215/m1",
               "--mass", "0.3", "--length", "0.1", "--id", "2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = process.stdout.readline()
        port = process.stdout.readline().strip()
        assert "Feetech emulator: Feetech STS3215, ID 2, model sts3215/m1" in banner and port.startswith("/dev/")
        with FeetechDriver(port, ServoConfig(2, "sts3215"), retries=10, latency_ms=200) as driver:
            assert abs(driver.read()[2].position) < 0.01
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=10)
    assert process.returncode == 0 and "status packets sent" in err


def test_reg_write_waits_for_action_and_two_servos_share_one_sync_read(monkeypatch):
    from actuator_drivers.serial_bus.servo import ServoConfig
    from actuator_drivers.feetech.driver import FeetechDriver
    from actuator_drivers.feetech.tables import sts3215 as table
    from actuator_drivers.feetech_emulator.firmware import StsServo
    from actuator_models.model import load_model
    from actuator_models.simulation import Pendulum

    model = load_model("sts3215/m1")
    def bus(time_scale):
        servos = [StsServo(table(), model, Pendulum(0.3, 0.1), servo_id=i) for i in (1, 2)]
        return FeetechEmulator(servos, time_scale=time_scale, trace=True)

    monkeypatch.setattr(sdk.port_handler, "LATENCY_TIMER", 250)
    with bus(1.0) as emulator:  # the stock SDK's port keeps wall-clock time
        port, handler = sdk.PortHandler(emulator.port), sdk.PacketHandler(0)
        assert port.openPort()
        assert _until_ok(handler.regWriteTxRx, port, 2, 42, 2, [0x00, 0x09]) == (0,)
        assert emulator.servo(2).peek("goal_position") == 2048 and emulator.servo(2).peek("registered") == 1
        executed = len(emulator.trace)
        handler.action(port, sdk.BROADCAST_ID)  # broadcast: no status packet to wait for
        deadline = time.monotonic() + 10.0
        while len(emulator.trace) == executed and time.monotonic() < deadline:  # traced once executed
            time.sleep(0.01)
        assert emulator.servo(2).peek("goal_position") == 0x0900 and emulator.servo(2).peek("registered") == 0
        port.closePort()
    with bus(None) as emulator:
        with FeetechDriver(emulator.port, [ServoConfig(1, "sts3215"), ServoConfig(2, "sts3215")],
                           clock=emulator.clock) as driver:
            before = len(emulator.trace)
            states = driver.read()
            packets = emulator.trace[before:]
    assert sorted(states) == [1, 2]
    received = [raw for kind, raw in packets if kind == "rx"]
    assert len(received) == 1 and received[0][4] == 0x82 and list(received[0][5:9]) == [56, 15, 1, 2]
    assert [raw[2] for kind, raw in packets if kind == "tx"] == [1, 2]  # one status packet per servo, in order

"""The emulated Dynamixel: firmware rules, physics, bus behaviour and fault injection."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from actuator_models import load_model
from actuator_models.simulation import Pendulum, PendulumSimulator
from dynamixel_sdk import COMM_RX_CORRUPT, COMM_RX_TIMEOUT, COMM_SUCCESS, PacketHandler

from actuator_drivers.common import LockstepClock
from actuator_models.bench import WallClock as Clock
from actuator_drivers.dynamixel.bus import BusPort
from actuator_drivers.dynamixel.driver import DynamixelDriver, ServoConfig
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator, Faults
from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo
from actuator_drivers.dynamixel.tables import POSITION_LSB, control_table


def servo(actuator="mx64", protocol=2, **kw) -> EmulatedServo:
    model = load_model("xl330/m6" if actuator == "xl330" else f"{actuator}/m6")
    return EmulatedServo(control_table(actuator, protocol), model, Pendulum(1.0, 0.15), **kw)


def sdk(emulator: DynamixelEmulator, latency_ms: float = 16.0):
    """The SDK's packet handler on the emulator's pty (a lockstep emulator's clock drives the port's deadlines)."""
    port = BusPort(emulator.port, latency_ms, emulator.clock)
    assert port.setBaudRate(57600)
    return port, PacketHandler(float(emulator.protocol))


def timeout_ms(port: BusPort, packet_length: int) -> float:
    """The receive timeout of a status packet of ``packet_length`` bytes [ms]: tx time + 2 latencies + 2 ms."""
    return 1000.0 / 57600 * 10 * packet_length + 2 * port.latency_ms + 2.0


@pytest.mark.parametrize("actuator, protocol", [("mx64", 1), ("mx106", 2), ("xl330", 2)])
def test_shaft_follows_the_core_simulator_exactly(actuator, protocol):
    emulated = servo(actuator, protocol)
    table = emulated.table
    assert emulated.write(table["goal_position"].address, (2048 + 400).to_bytes(table["goal_position"].size, "little")) is None
    assert emulated.write(table["torque_enable"].address, b"\x01") is None
    emulated.advance(1.0)
    direct = PendulumSimulator(emulated.model, Pendulum(1.0, 0.15), vin=emulated.sim.vin)
    kp = table[table.gain_register].initial * table.kp_per_lsb
    for _ in range(200):
        direct.step(400 * POSITION_LSB, True, kp, 0.005)
    assert emulated.sim.q == direct.q and emulated.time == pytest.approx(1.0)
    assert emulated.peek("present_position") == round(direct.q / POSITION_LSB) + 2048  # 4096 counts/rev
    assert emulated.value("present_speed" if protocol == 1 else "present_velocity") == pytest.approx(direct.v, abs=0.013)


def test_power_up_values_are_the_control_table_defaults():
    p1, p2, xl = servo("mx64", 1), servo("mx106", 2), servo("xl330", 2)
    assert [p1.peek(n) for n in ("model_number", "p_gain", "return_delay_time", "ccw_angle_limit")] == [310, 32, 250, 4095]
    assert [p2.peek(n) for n in ("model_number", "position_p_gain", "operating_mode", "current_limit")] == [321, 850, 3, 2047]
    assert [xl.peek(n) for n in ("model_number", "position_p_gain", "pwm_limit", "temperature_limit")] == [1200, 400, 885, 70]
    assert p1.return_delay == pytest.approx(500e-6) and p1.peek("goal_position") == 2048


def test_bad_emulator_setup_is_named():
    with pytest.raises(ValueError, match="faults.drop = 2"):
        Faults(drop=2)
    with pytest.raises(ValueError, match="one protocol"):
        DynamixelEmulator([servo("mx64", 1), servo("mx64", 2, servo_id=2)])
    with pytest.raises(ValueError, match="distinct"):
        DynamixelEmulator([servo(), servo()])
    with pytest.raises(ValueError, match="does not drive a MX-64"):
        EmulatedServo(control_table("mx64", 2), load_model("xl330/m6"), Pendulum(1, 0.1))
    with pytest.raises(ValueError, match="unknown error bit 'motor_encoder'"):
        servo("mx64", 1).inject_hardware_error("motor_encoder")  # not a Protocol 1.0 bit
    with pytest.raises(ValueError, match="unknown fault option"):
        DynamixelEmulator([servo()]).set_faults(lost=0.1)


def test_status_return_level_and_reg_write_action():
    with DynamixelEmulator([servo("mx64", 2)], time_scale=None) as emu:
        port, ph = sdk(emu)
        assert ph.write1ByteTxRx(port, 1, 68, 1) == (COMM_SUCCESS, 0)  # Status Return Level 1: no WRITE status
        assert ph.write1ByteTxRx(port, 1, 65, 1)[0] == COMM_RX_TIMEOUT
        assert ph.read1ByteTxRx(port, 1, 65) == (1, COMM_SUCCESS, 0)
        assert ph.write1ByteTxOnly(port, 1, 68, 0) == COMM_SUCCESS  # level 0: only PING answers
        assert ph.read1ByteTxRx(port, 1, 65)[1] == COMM_RX_TIMEOUT
        assert ph.ping(port, 1) == (311, COMM_SUCCESS, 0)
        emu.servo(1).poke("status_return_level", 2)
        assert ph.regWriteTxRx(port, 1, 65, 1, [0]) == (COMM_SUCCESS, 0)
        assert (emu.servo(1).peek("led"), emu.servo(1).peek("registered_instruction")) == (1, 1)
        assert ph.action(port, 1) == COMM_SUCCESS
        assert ph.read1ByteTxRx(port, 1, 65) == (0, COMM_SUCCESS, 0)  # after ACTION, in bus order
        assert (emu.servo(1).peek("led"), emu.servo(1).peek("registered_instruction")) == (0, 0)
        port.closePort()


def test_fault_injection_delay_corrupt_dead_in_lockstep():
    """Bench time is the emulator's and the driver's: every delay and timeout is an exact number."""
    with DynamixelEmulator([servo("mx64", 1)], time_scale=None, seed=1) as emu:
        port, ph = sdk(emu)
        clock, return_delay = emu.clock, emu.servo(1).return_delay
        assert return_delay == pytest.approx(500e-6)  # MX Return Delay Time 250 x 2 us
        emu.set_faults(delay=0.015)
        start = clock.now()
        assert ph.read2ByteTxRx(port, 1, 0) == (310, COMM_SUCCESS, 0)
        assert clock.now() - start == pytest.approx(0.015 + return_delay, abs=1e-9)
        emu.set_faults(delay=0.050)  # later than the receive timeout: a timeout on a real bus
        start = clock.now()
        assert ph.read2ByteTxRx(port, 1, 0)[1] == COMM_RX_TIMEOUT
        assert clock.now() - start == pytest.approx(0.050 + return_delay, abs=1e-9)
        assert timeout_ms(port, 2 + 6) < 50.0
        emu.set_faults(delay=0.0)
        assert ph.read2ByteTxRx(port, 1, 0) == (310, COMM_SUCCESS, 0)  # the late reply was discarded
        emu.set_faults(corrupt=1.0)
        assert ph.read2ByteTxRx(port, 1, 0)[1] == COMM_RX_CORRUPT
        emu.set_faults(corrupt=0.0, dead=True)
        start = clock.now()
        assert ph.ping(port, 1)[1] == COMM_RX_TIMEOUT
        assert (clock.now() - start) * 1000 == pytest.approx(timeout_ms(port, 6), abs=1e-6)  # the ping's timeout
        c = emu.counters
        assert (c.received, c.sent, c.corrupted, c.dropped) == (5, 4, 1, 0)
        port.closePort()


def test_fault_injection_in_real_time_with_a_generous_timeout():
    """Real time: a delayed status packet still arrives (the 1 s timeout is not what is tested)."""
    with DynamixelEmulator([servo("mx64", 1)], time_scale=1, seed=1) as emu:
        port, ph = sdk(emu, latency_ms=500)
        emu.set_faults(delay=0.015)
        start = time.monotonic()
        assert ph.read2ByteTxRx(port, 1, 0) == (310, COMM_SUCCESS, 0)
        assert time.monotonic() - start >= 0.015  # a sleep is never shorter
        emu.set_faults(delay=0.0, corrupt=1.0)
        assert ph.read2ByteTxRx(port, 1, 0)[1] == COMM_RX_CORRUPT
        assert (emu.counters.received, emu.counters.corrupted) == (2, 1)
        port.closePort()


def test_stall_windows_hold_status_packets_until_they_end():
    with DynamixelEmulator([servo("mx64", 2)], time_scale=None, faults=Faults(stalls=((1.0, 0.02),))) as emu:
        port, ph = sdk(emu)
        clock, delay = emu.clock, emu.servo(1).return_delay
        clock.sleep_until(0.99)
        assert ph.ping(port, 1)[1] == COMM_SUCCESS and clock.now() == pytest.approx(0.99 + delay)
        clock.sleep_until(1.005)
        assert ph.ping(port, 1)[1] == COMM_SUCCESS and clock.now() == pytest.approx(1.02 + delay)
        assert ph.ping(port, 1)[1] == COMM_SUCCESS and clock.now() == pytest.approx(1.02 + 2 * delay)
        port.closePort()
    assert Faults(stalls=((1.0, 0.02), (1.01, 0.05))).hold(1.015) == pytest.approx(0.045)
    with pytest.raises(ValueError, match=r"faults.stalls window \(1.0, -0.1\)"):
        Faults(stalls=((1.0, -0.1),))


def test_lockstep_shaft_moves_only_with_bench_time():
    with DynamixelEmulator([servo("mx64", 2, q=0.5)], time_scale=None) as emu:
        port, ph = sdk(emu)
        shaft = emu.servo(1)
        time.sleep(0.05)  # wall time passes: the shaft does not move
        assert ph.ping(port, 1)[1] == COMM_SUCCESS and shaft.steps == 0 and shaft.sim.q == 0.5
        emu.clock.sleep(1.0)
        assert ph.ping(port, 1)[1] == COMM_SUCCESS and shaft.steps == 200  # 1 s of 5 ms steps
        direct = PendulumSimulator(shaft.model, Pendulum(1.0, 0.15), vin=shaft.sim.vin, q=0.5)
        for _ in range(200):
            direct.step(0.0, False, 0.0, 0.005)
        assert shaft.sim.q == direct.q  # the same falling pendulum, torque off
        port.closePort()


def test_time_scale():
    with DynamixelEmulator([servo("mx64", 2, q=0.5)], time_scale=8) as emu:
        port, ph = sdk(emu, latency_ms=500)
        shaft = emu.servo(1)
        time.sleep(0.05)
        before = emu.clock.now()
        assert before >= 8 * 0.05  # bench time runs 8x faster than the wall clock
        assert ph.ping(port, 1)[1] == COMM_SUCCESS  # the shaft is advanced to the bench time of each packet
        reached = shaft.time
        assert before - 0.005 <= reached <= emu.clock.now()  # and never beyond the clock
        port.closePort()
    assert Clock(4).wall(1.0) == 0.25 and LockstepClock().wall(1.0) == 0.0


def test_set_bench_keeps_the_shaft_state_and_swings_on_with_the_new_load():
    with DynamixelEmulator([servo("mx64", 2, q=0.5)], time_scale=None) as emu:
        port, ph = sdk(emu)
        shaft = emu.servo(1)
        emu.clock.sleep(0.2)
        emu.set_bench(0.5, 0.2, arm_mass=0.1)  # advances the old load to now first
        assert shaft.steps == 40 and (shaft.sim.bench.mass, shaft.sim.bench.length, shaft.sim.bench.arm_mass) == (0.5, 0.2, 0.1)
        direct = PendulumSimulator(shaft.model, Pendulum(1.0, 0.15), vin=shaft.sim.vin, q=0.5)
        for _ in range(40):
            direct.step(0.0, False, 0.0, 0.005)
        assert (shaft.sim.q, shaft.sim.v) == (direct.q, direct.v)  # the state carried over exactly
        direct = PendulumSimulator(shaft.model, Pendulum(0.5, 0.2, 0.1), vin=shaft.sim.vin, q=direct.q, v=direct.v)
        emu.clock.sleep(0.1)
        assert ph.ping(port, 1)[1] == COMM_SUCCESS
        for _ in range(20):
            direct.step(0.0, False, 0.0, 0.005)
        assert shaft.sim.q == direct.q  # then the new load
        port.closePort()


def test_emulate_command_prints_the_port_and_serves_the_driver():
    command = [sys.executable, "-m", "actuator_drivers.cli", "emulate", "--actuator", "mx106", "--model", "mx106/m6",
               "--mass", "1.0", "--length", "0.15", "--protocol", "1", "--id", "3", "--drop", "0.0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = process.stdout.readline()
        port = process.stdout.readline().strip()
        assert "MX-106 (protocol 1), ID 3" in banner and port.startswith("/dev/")
        with DynamixelDriver(port, ServoConfig(3, "mx106"), protocol=1, retries=10, latency_ms=200) as driver:
            assert abs(driver.read()[3].position) < 0.01
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=10)
    assert process.returncode == 0 and "status packets sent" in err

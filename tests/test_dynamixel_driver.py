"""The Dynamixel driver through the real dynamixel-sdk over the emulator's pseudo-terminal.

The emulator runs in lockstep with the driver (bench time moves only with the driver's cycle),
so every count below is the same on a quiet or a saturated machine; the real-time paths (the
background watchdog, the wall-clock receive timeout) are tested with generous margins.
"""

from __future__ import annotations

import math
import time

import pytest
from actuator_models import load_model
from actuator_models.simulation import Pendulum

from actuator_drivers.dynamixel.bus import DynamixelBus
from actuator_drivers.dynamixel.driver import DynamixelDriver, ServoConfig
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator, Faults
from actuator_drivers.dynamixel.errors import (
    CommunicationError,
    HardwareError,
    JointLimitError,
    ModelMismatchError,
    PortError,
    StatusError,
)
from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo
from actuator_drivers.dynamixel.tables import POSITION_LSB, control_table
from actuator_drivers.dynamixel_emulator.emulated import Emulation, emulated_dynamixel

CASES = [("mx64", 1), ("mx106", 1), ("mx64", 2), ("mx106", 2), ("xl330", 2)]
MODEL = {"mx64": "mx64/m6", "mx106": "mx106/m6", "xl330": "xl330/m6"}
KP = {"mx64": 32, "mx106": 32, "xl330": 800}
LOAD = {"mx64": (1.0, 0.15), "mx106": (1.0, 0.15), "xl330": (0.2, 0.1)}


def emulated(actuator: str, protocol: int, **options):
    """The emulated servo of ``actuator`` in lockstep unless ``options`` (of :class:`Emulation`) say otherwise."""
    mass, length = LOAD[actuator]
    options.setdefault("time_scale", None)
    return emulated_dynamixel(actuator, MODEL[actuator], mass, length, emulation=Emulation(protocol=protocol, **options))


@pytest.mark.parametrize("actuator, protocol", CASES)
def test_open_configures_the_servo_and_reads_si_units(actuator, protocol):
    with emulated(actuator, protocol) as (emu, driver):
        servo, table = emu.servo(1), control_table(actuator, protocol)
        assert servo.peek("torque_enable") == 0
        assert servo.peek("d_gain" if protocol == 1 else "position_d_gain") == 0
        state = driver.read()[1]
        assert abs(state.position - servo.sim.q) <= POSITION_LSB
        assert state.input_voltage == pytest.approx(servo.sim.vin, abs=0.05)
        assert state.temperature == 30.0
        assert (state.current is None) == (protocol == 1)
        driver.set_kp(KP[actuator])
        assert servo.peek(table.gain_register) == table.kp_to_raw(KP[actuator])


@pytest.mark.parametrize("actuator, protocol", CASES)
def test_command_moves_the_shaft(actuator, protocol):
    with emulated(actuator, protocol) as (emu, driver):
        driver.set_kp(KP[actuator])
        t_end = driver.clock.now() + 1.5
        while driver.clock.now() < t_end:
            driver.command(0.5, torque_enable=True)
            state = driver.read()[1]
            driver.clock.sleep(0.005)
        assert emu.servo(1).torque_enabled and state.torque_enabled
        assert 0.3 < state.position < 0.55  # P law with gravity sag
        assert state.load > 0  # drives counter-clockwise, against gravity
        driver.command(0.5, torque_enable=False)
        assert not emu.servo(1).torque_enabled


def test_joint_limits_refuse_a_goal_and_send_nothing():
    with emulated("mx64", 2, limits=(-1.0, 1.0), trace=True) as (emu, driver):
        driver.command(0.2, torque_enable=True)
        received, goal = emu.counters.received, emu.servo(1).peek("goal_position")
        for bad in (1.2, -3.0, math.nan):
            with pytest.raises(JointLimitError, match=r"servo 1 \(joint1\): goal .* outside the joint limits"):
                driver.command(bad, torque_enable=True)
        driver.read()  # the next instruction on the bus is this read: nothing came in between
        assert emu.counters.received == received + 1
        assert emu.servo(1).peek("goal_position") == goal


def test_joint_limits_include_the_servo_position_limits():
    with _bus("xl330", 2, (1,)) as emu:
        emu.servo(1).poke("max_position_limit", 2048 + 512)
        with DynamixelDriver(emu.port, ServoConfig(1, "xl330"), clock=emu.clock) as driver:
            assert driver.limits[1] == (-2.8, pytest.approx(math.pi / 4))
            with pytest.raises(JointLimitError, match=r"\[-2.8000, 0.7854\]"):
                driver.command(1.0)


def test_model_number_is_checked():
    with emulated("mx64", 2) as (emu, _):
        wrong = DynamixelDriver(emu.port, ServoConfig(1, "mx106"), protocol=2, clock=emu.clock)
        with pytest.raises(ModelMismatchError, match=r"servo 1: model number 311 \(MX-64\(2.0\)\) does not match the configured MX-106"):
            wrong.open()


def _bus(actuator: str, protocol: int, ids) -> DynamixelEmulator:
    model = load_model(MODEL[actuator])
    servos = [EmulatedServo(control_table(actuator, protocol), model, Pendulum(1.0, 0.15), servo_id=i) for i in ids]
    return DynamixelEmulator(servos, time_scale=None, trace=True)


@pytest.mark.parametrize("protocol, instruction", [(2, 0x82), (1, 0x92)])
def test_one_block_read_per_cycle_for_several_servos(protocol, instruction):
    """SYNC READ on Protocol 2.0, BULK READ on Protocol 1.0: one instruction, one reply per servo."""
    with _bus("mx106", protocol, (3, 7)) as emu:
        configs = [ServoConfig(3, "mx106"), ServoConfig(7, "mx106")]
        with DynamixelDriver(emu.port, configs, protocol=protocol, clock=emu.clock) as driver:
            driver.command({3: 0.3, 7: -0.3}, torque_enable=True)
            mark = len(emu.trace)
            states = driver.read()
            wire = emu.trace[mark:]  # replies are traced before they are written
        assert sorted(states) == [3, 7]
        instructions = [raw for kind, raw in wire if kind == "rx"]
        assert len(instructions) == 1 and instructions[0][4 if protocol == 1 else 7] == instruction
        assert [raw[2 if protocol == 1 else 4] for kind, raw in wire if kind == "tx"] == [3, 7]


@pytest.mark.parametrize("protocol", [1, 2])
def test_hardware_error_bits_become_clear_errors_and_torque_is_off(protocol):
    with emulated("mx64", protocol) as (emu, driver):
        driver.command(0.1, torque_enable=True)
        emu.inject_hardware_error("overload")
        with pytest.raises(HardwareError, match="servo 1: hardware error overload") as info:
            driver.read()
        assert info.value.servo_id == 1 and info.value.bits == ["overload"]
        assert not emu.servo(1).torque_enabled and not any(driver.torque.values())


def test_refused_instruction_names_servo_and_error():
    with emulated("xl330", 2) as (emu, driver):
        driver.command(0.0, torque_enable=True)
        with pytest.raises(StatusError, match="servo 1: write operating_mode: the servo reported error access"):
            driver._write(1, "operating_mode", 3)  # EEPROM while torque is on


@pytest.mark.parametrize("protocol", [1, 2])
def test_timeouts_and_corrupt_packets_are_retried_and_counted(protocol):
    faults = Faults(drop=0.2, corrupt=0.2)
    with emulated("mx64", protocol, faults=faults, retries=8, latency_ms=4) as (emu, driver):
        for _ in range(60):
            driver.command(0.0, torque_enable=True)
            driver.read()
        c = driver.counters
        assert c.timeouts > 0 and c.corrupt > 0 and c.failures == 0
        assert c.retries == c.timeouts + c.corrupt + c.other
        # every dropped status packet is one timeout, every corrupted one a corrupt packet: nothing else
        assert (c.timeouts, c.corrupt) == (emu.counters.dropped, emu.counters.corrupted)


@pytest.mark.parametrize("protocol", [1, 2])
def test_a_refused_read_is_a_status_error_not_an_sdk_crash(protocol):
    """The servo answers a READ beyond its table with an error and no data; dynamixel-sdk's
    read2ByteTxRx indexes the missing data (IndexError) - the bus receives the status packet itself."""
    with emulated("mx64", protocol) as (emu, driver):
        size = control_table("mx64", protocol).size
        with pytest.raises(StatusError, match="servo 1: read past the table: the servo reported error"):
            driver.bus.read(1, size - 1, 2, "read past the table")
        assert driver.bus.read(1, 0, 2) == emu.servo(1).peek("model_number")


def test_dead_servo_raises_a_clear_error_and_releases_torque():
    with emulated("mx64", 2, retries=2, latency_ms=2) as (emu, driver):
        driver.command(0.0, torque_enable=True)
        emu.set_faults(dead=True)
        with pytest.raises(CommunicationError, match=r"servo 1: read 23 bytes at address 124: .* after 3 attempt"):
            driver.read()
        assert driver.counters.failures >= 1 and not any(driver.torque.values())
        emu.set_faults(dead=False)


def test_watchdog_releases_torque_when_commands_stop():
    with emulated("mx64", 2, command_timeout=0.3, time_scale=2.0, latency_ms=200) as (emu, driver):
        driver.command(0.2, torque_enable=True)
        t_end = time.monotonic() + 30.0  # generous: the trip is under test, not its latency
        while time.monotonic() < t_end and driver.watchdog_trips == 0:  # reading without commanding
            driver.read()
        assert not emu.servo(1).torque_enabled and driver.watchdog_trips == 1
        driver.command(0.2, torque_enable=True)  # an explicit command enables again
        assert emu.servo(1).torque_enabled
        t_end = time.monotonic() + 30.0
        while time.monotonic() < t_end and driver.watchdog_trips == 1:
            time.sleep(0.01)  # no call at all: the background watchdog (wall-clock seconds)
        assert not emu.servo(1).torque_enabled and driver.watchdog_trips == 2


def test_watchdog_counts_bench_time_in_lockstep():
    with emulated("mx64", 2, command_timeout=0.3) as (emu, driver):
        driver.command(0.2, torque_enable=True)
        time.sleep(0.4)  # wall time does not count
        driver.read()
        driver.clock.sleep(0.29)
        driver.read()
        assert emu.servo(1).torque_enabled and driver.watchdog_trips == 0
        driver.clock.sleep(0.02)  # 0.31 s of bench time without a command
        driver.read()
        assert not emu.servo(1).torque_enabled and driver.watchdog_trips == 1
        driver.command(0.2, torque_enable=True)
        driver.clock.sleep(0.31)
        driver.command(0.2, torque_enable=True)  # a late command finds the torque released first
        assert driver.watchdog_trips == 2 and emu.servo(1).torque_enabled


def test_close_releases_torque_and_is_idempotent():
    with emulated("xl330", 2) as (emu, driver):
        driver.command(0.1, torque_enable=True)
        driver.close()
        assert not emu.servo(1).torque_enabled
        driver.close()


def test_bad_configuration_is_named():
    with pytest.raises(ValueError, match="baudrate 12345"):
        DynamixelBus("/dev/null", baudrate=12345)
    with pytest.raises(ValueError, match=r"no Dynamixel control table for actuator 'xl330' protocol 1"):
        DynamixelDriver("/dev/null", ServoConfig(1, "xl330"), protocol=1)
    with pytest.raises(ValueError, match=r"joint limits \[1.0, -1.0\]"):
        ServoConfig(1, "mx64", 1.0, -1.0)
    with pytest.raises(ValueError, match="kp 3.3"):
        control_table("mx64", 2).kp_to_raw(3.3)
    with pytest.raises(PortError, match="cannot open /nonexistent/tty"):
        DynamixelDriver("/nonexistent/tty", ServoConfig(1, "mx64")).open()


def test_emulated_dynamixel_refuses_an_actuator_of_another_family():
    """The registry opens an STS3215 for "sts3215": the Dynamixel helper says so instead of
    handing back a Feetech emulator and driver under Dynamixel names (both are closed again)."""
    with pytest.raises(ValueError, match="actuator 'sts3215' is not a Dynamixel \\(its driver: FeetechDriver\\)"):
        with emulated_dynamixel("sts3215", "sts3215/m1", 0.3, 0.1, emulation=Emulation(time_scale=None)):
            pass

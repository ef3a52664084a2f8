"""A status packet that arrives after the driver's receive timeout must never be taken as the
answer to a later instruction (the CI flake of joint limits read as [-2.8, -3.1416]).

Real parts: each family's vendor SDK against its protocol-faithful emulator on a pty. The late
reply is injected at the emulator's side (``Faults.late``: the status packet of a READ is held
back until the next instruction packet arrives, then sent before that instruction's own status
packet), so what the driver sees does not depend on the host's timing: a timeout, then a
retried read, whose late answer comes while the driver reads the next register.
"""

from __future__ import annotations

import math
from typing import Tuple

import pytest
from dynamixel_sdk import COMM_SUCCESS, PacketHandler

from actuator_drivers.common import LimitError
from actuator_drivers.dynamixel.bus import BusPort
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
from actuator_drivers.dynamixel.tables import control_table
from actuator_drivers.serial_bus.family import serial_family_of
from actuator_drivers.serial_bus.servo import ServoConfig
from actuator_drivers.serial_bus_emulator.emulated import Emulation, emulated_servo
from actuator_drivers.serial_bus_emulator.faults import Faults

#: (actuator, model, protocol): Dynamixel protocol 2.0 and 1.0, Feetech STS
FAMILIES = [("xl330", "xl330/m6", 2), ("mx64", "mx64/m6", 1), ("sts3215", "sts3215/m1", 0)]


def test_the_sdk_alone_takes_a_late_reply_as_the_answer_to_the_next_read():
    """What the vendor SDK cannot check: a protocol 2.0 status packet carries the ID, no address,
    so a late 4-byte reply (Min Position Limit, 0) is the SDK's answer to the next 4-byte READ
    (Max Position Limit, 4095)."""
    table = control_table("xl330", 2)
    low, high = table[table.min_limit], table[table.max_limit]
    with emulated_servo("xl330", "xl330/m6", 0.1, 0.1, emulation=Emulation(time_scale=None)) as (emu, driver):
        driver.close()
        port = BusPort(emu.port, 16.0, emu.clock)
        assert port.setBaudRate(57600)
        handler = PacketHandler(2.0)
        emu.set_faults(late=(low.address,))
        _, result, _ = handler.readTxRx(port, 1, low.address, low.size)
        assert result != COMM_SUCCESS  # held back past the receive timeout
        value, result, _ = handler.read4ByteTxRx(port, 1, high.address)
        assert (value, result) == (0, COMM_SUCCESS)  # the SDK's answer: Min Position Limit's value
        assert handler.read4ByteTxRx(port, 1, high.address)[:2] == (4095, COMM_SUCCESS)
        port.closePort()


@pytest.mark.parametrize("time_scale", [None, 1.0], ids=["lockstep", "real-time"])
@pytest.mark.parametrize("actuator, model, protocol", FAMILIES)
def test_a_late_reply_to_a_retried_limit_read_is_not_taken_for_the_next_register(actuator, model, protocol, time_scale):
    """Min Position Limit is read three times (the first two replies come late, each after the
    next instruction): before the fix the second late reply was the driver's Max Position Limit,
    the joint limits became [-2.8, -pi] and every goal was refused."""
    probe = control_table(actuator, protocol) if protocol else None
    address = probe[probe.min_limit].address if probe else 9  # STS Min Position Limit (9)
    faults = Faults(late=(address, address))
    emulation = Emulation(protocol=protocol or 2, time_scale=time_scale, faults=faults, trace=True)
    with emulated_servo(actuator, model, 0.1, 0.1, emulation=emulation) as (emu, driver):
        table = driver.tables[1]
        assert table[table.min_limit].address == address
        servo = emu.servo(1)
        eeprom_low = table[table.min_limit].to_si(servo.peek(table.min_limit))
        eeprom_high = table[table.max_limit].to_si(servo.peek(table.max_limit))
        assert eeprom_low < -2.8 and eeprom_high > 2.8  # the configured limits lie inside the servo's
        assert driver.limits[1] == (-2.8, 2.8)
        assert driver.counters.timeouts >= 2 and driver.counters.failures == 0
        driver.command(0.5, torque_enable=True)  # a goal inside the limits is sent
        state = driver.read()[1]
        assert state.torque_enabled and math.isfinite(state.position)


def open_driver(emulator, actuator: str, protocol: int):
    """The family's driver on ``emulator`` (joint limits configured at [-2.8, 2.8] rad), unopened."""
    family = serial_family_of(actuator)
    return family.bench_class().DRIVER.on_bus(emulator.port, ServoConfig(1, actuator, -2.8, 2.8), protocol,
                                              family.default_baudrate, retries=3, clock=emulator.clock)


@pytest.mark.parametrize("actuator, model, protocol", FAMILIES)
def test_inverted_limit_registers_in_the_eeprom_are_a_clear_limit_error(actuator, model, protocol):
    """A servo whose EEPROM holds Min Position Limit above Max Position Limit: the driver reads
    them twice, then refuses to open with one message naming the servo, registers and values;
    the servo is left with torque off."""
    family = serial_family_of(actuator)
    with family.emulator_class().one_servo(actuator, model, 0.1, 0.1, protocol=protocol or 2, time_scale=None,
                                           trace=True) as emu:
        servo = emu.servo(1)
        table = servo.table
        servo.poke(table.min_limit, 3000)
        servo.poke(table.max_limit, 1000)
        driver = open_driver(emu, actuator, protocol or 2)
        with pytest.raises(LimitError) as caught:
            driver.open()
        message = str(caught.value)
        assert message.startswith("servo 1 ")
        assert f"{table.min_limit} = 3000" in message and f"{table.max_limit} = 1000" in message
        low = table[table.min_limit].address
        reads = [raw for way, raw in emu.trace if way == "rx" and low in emu_read_addresses(raw, protocol)]
        assert len(reads) == 2  # read once more before refusing
        assert servo.peek("torque_enable") == 0 and not driver.bus.is_open
        assert isinstance(caught.value, ValueError)  # the command lines: one error: line, exit status 2


def emu_read_addresses(raw: bytes, protocol: int) -> Tuple[int, ...]:
    """The start address of a READ instruction packet on the wire (empty for other packets)."""
    if protocol == 2:  # FF FF FD 00 ID LEN_L LEN_H INST ADDR_L ADDR_H LEN_L LEN_H CRC CRC
        return (raw[8] | raw[9] << 8,) if len(raw) == 14 and raw[7] == 0x02 else ()
    return (raw[5],) if len(raw) == 8 and raw[4] == 0x02 else ()  # FF FF ID LEN INST ADDR LEN CHK


def test_limits_read_inverted_once_are_read_again():
    """One glitched answer (Max Position Limit read as 0 once; the emulated servo's ``read`` is
    wrapped in this test to answer it, the bus and SDK are real): the second reading is used."""
    with DynamixelEmulator.one_servo("xl330", "xl330/m6", 0.1, 0.1, protocol=2, time_scale=None) as emu:
        servo = emu.servo(1)
        high = servo.table[servo.table.max_limit]
        glitches = [high.address]
        honest = servo.read

        def glitching_read(address: int, length: int):
            data, fault = honest(address, length)
            if address in glitches:
                glitches.remove(address)
                return bytes(length), fault
            return data, fault

        servo.read = glitching_read
        with open_driver(emu, "xl330", 2) as driver:
            assert not glitches  # the glitch was answered
            assert driver.limits[1] == (-2.8, 2.8)

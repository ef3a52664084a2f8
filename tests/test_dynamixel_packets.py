"""Packet bytes against the ROBOTIS e-manual's published examples (Protocol 1.0 and 2.0).

Two levels: the emulator's encoder/decoder on the exact example bytes, and the real
dynamixel-sdk talking to the emulator over a pseudo-terminal, where the bytes on the wire (both
directions) are compared with the same examples.
"""

from __future__ import annotations

import time

import pytest
from actuator_models import load_model
from actuator_models.simulation import Pendulum
from dynamixel_sdk import COMM_SUCCESS, GroupBulkRead, GroupSyncRead, GroupSyncWrite, PacketHandler

from actuator_drivers.dynamixel_emulator import packets as pk
from actuator_drivers.dynamixel.bus import BusPort
from actuator_drivers.dynamixel_emulator.emulator import DynamixelEmulator
from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo
from actuator_drivers.dynamixel.tables import POSITION_LSB, control_table


def h(text: str) -> bytes:
    return bytes.fromhex(text)


# e-manual Protocol 2.0 "Instruction Details" examples (XM430-W210, IDs 1 and 2)
P2_PING = h("FF FF FD 00 01 03 00 01 19 4E")
P2_PING_STATUS = h("FF FF FD 00 01 07 00 55 00 06 04 26 65 5D")  # model 1030, firmware 38
P2_BROADCAST_PING = h("FF FF FD 00 FE 03 00 01 31 42")
P2_READ = h("FF FF FD 00 01 07 00 02 84 00 04 00 1D 15")  # Present Position(132), 4 bytes
P2_READ_STATUS = h("FF FF FD 00 01 08 00 55 00 A6 00 00 00 8C C0")  # = 166
P2_WRITE = h("FF FF FD 00 01 09 00 03 74 00 00 02 00 00 CA 89")  # Goal Position(116) = 512
P2_EMPTY_STATUS = h("FF FF FD 00 01 04 00 55 00 A1 0C")
P2_REBOOT = h("FF FF FD 00 01 03 00 08 2F 4E")
P2_SYNC_READ = h("FF FF FD 00 FE 09 00 82 84 00 04 00 01 02 CE FA")
P2_SYNC_READ_STATUS_2 = h("FF FF FD 00 02 08 00 55 00 1F 08 00 00 BA BE")  # = 2079
P2_SYNC_WRITE = h("FF FF FD 00 FE 11 00 83 74 00 04 00 01 96 00 00 00 02 AA 00 00 00 82 87")
P2_BULK_READ = h("FF FF FD 00 FE 0D 00 92 01 90 00 02 00 02 92 00 01 00 1A 05")
P2_BULK_READ_STATUS_1 = h("FF FF FD 00 01 06 00 55 00 77 00 C3 69")  # Present Input Voltage = 119
P2_BULK_READ_STATUS_2 = h("FF FF FD 00 02 05 00 55 00 24 8B A9")  # Present Temperature = 36

# e-manual Protocol 1.0 examples
P1_PING = h("FF FF 01 02 01 FB")
P1_PING_STATUS = h("FF FF 01 02 00 FC")
P1_READ = h("FF FF 01 04 02 2B 01 CC")  # Present Temperature(43), 1 byte
P1_READ_STATUS = h("FF FF 01 03 00 20 DB")  # = 32 degC
P1_WRITE = h("FF FF 01 05 03 0C 64 AA DC")  # checksum worked example
P1_BROADCAST_WRITE_ID = h("FF FF FE 04 03 03 01 F6")
P1_SYNC_WRITE = h("FF FF FE 0E 83 1E 04 00 10 00 50 01 01 20 02 60 03 67")
P1_BULK_READ = h("FF FF FE 09 92 00 02 01 1E 02 02 24 1D")
P1_BULK_READ_STATUS_1 = h("FF FF 01 04 00 00 80 7A")
P1_ERROR_STATUS = h("FF FF 01 02 24 D8")  # overload + overheating


# ---------------------------------------------------------------------- codec on the exact bytes
@pytest.mark.parametrize(
    "packet, servo_id, instruction, params",
    [
        (P2_PING, 1, pk.PING, b""),
        (P2_BROADCAST_PING, 0xFE, pk.PING, b""),
        (P2_READ, 1, pk.READ, h("84 00 04 00")),
        (P2_WRITE, 1, pk.WRITE, h("74 00 00 02 00 00")),
        (P2_REBOOT, 1, pk.REBOOT, b""),
        (P2_SYNC_READ, 0xFE, pk.SYNC_READ, h("84 00 04 00 01 02")),
        (P2_SYNC_WRITE, 0xFE, pk.SYNC_WRITE, h("74 00 04 00 01 96 00 00 00 02 AA 00 00 00")),
        (P2_BULK_READ, 0xFE, pk.BULK_READ, h("01 90 00 02 00 02 92 00 01 00")),
    ],
)
def test_protocol2_instruction_examples(packet, servo_id, instruction, params):
    assert pk.encode_p2_instruction(servo_id, instruction, params) == packet
    (decoded,) = pk.Protocol2Parser().feed(packet)
    assert (decoded.servo_id, decoded.instruction, decoded.params, decoded.crc_ok) == (servo_id, instruction, params, True)


@pytest.mark.parametrize(
    "packet, servo_id, params",
    [
        (P2_PING_STATUS, 1, h("06 04 26")),
        (P2_READ_STATUS, 1, h("A6 00 00 00")),
        (P2_EMPTY_STATUS, 1, b""),
        (P2_SYNC_READ_STATUS_2, 2, h("1F 08 00 00")),
        (P2_BULK_READ_STATUS_1, 1, h("77 00")),
        (P2_BULK_READ_STATUS_2, 2, h("24")),
    ],
)
def test_protocol2_status_examples(packet, servo_id, params):
    assert pk.encode_p2_status(servo_id, 0, params) == packet
    (decoded,) = pk.Protocol2Parser().feed(packet)
    assert (decoded.servo_id, decoded.instruction, decoded.error, decoded.params) == (servo_id, pk.STATUS, 0, params)


@pytest.mark.parametrize(
    "packet, servo_id, code, params",
    [
        (P1_PING, 1, pk.PING, b""),
        (P1_READ, 1, pk.READ, h("2B 01")),
        (P1_WRITE, 1, pk.WRITE, h("0C 64 AA")),
        (P1_BROADCAST_WRITE_ID, 0xFE, pk.WRITE, h("03 01")),
        (P1_SYNC_WRITE, 0xFE, pk.SYNC_WRITE, h("1E 04 00 10 00 50 01 01 20 02 60 03")),
        (P1_BULK_READ, 0xFE, pk.BULK_READ, h("00 02 01 1E 02 02 24")),
        (P1_PING_STATUS, 1, 0x00, b""),
        (P1_READ_STATUS, 1, 0x00, h("20")),
        (P1_BULK_READ_STATUS_1, 1, 0x00, h("00 80")),
        (P1_ERROR_STATUS, 1, 0x24, b""),
    ],
)
def test_protocol1_examples(packet, servo_id, code, params):
    assert pk.encode_p1(servo_id, code, params) == packet
    (decoded,) = pk.Protocol1Parser().feed(packet)
    assert (decoded.servo_id, decoded.instruction, decoded.params, decoded.crc_ok) == (servo_id, code, params, True)


def test_crc_and_checksum_values():
    assert pk.crc16(P2_PING[:-2]) == 0x4E19
    assert pk.crc16(P2_PING_STATUS[:-2]) == 0x5D65
    assert pk.checksum(h("01 05 03 0C 64 AA")) == 0xDC


def test_byte_stuffing_round_trip_and_length():
    payload = h("FF FF FD 01 FF FF FD FD")
    assert pk.stuff(payload) == h("FF FF FD FD 01 FF FF FD FD FD")
    assert pk.unstuff(pk.stuff(payload)) == payload
    packet = pk.encode_p2_instruction(1, pk.WRITE, h("74 00 FF FF FD 00"))
    assert packet[5] | packet[6] << 8 == 3 + 6 + 1  # stuffed FD counted in LEN
    (decoded,) = pk.Protocol2Parser().feed(packet)
    assert decoded.params == h("74 00 FF FF FD 00") and decoded.crc_ok


def test_parsers_are_incremental_and_flag_bad_crc():
    parser = pk.Protocol2Parser()
    stream = b"\x00\x13" + P2_READ + P2_WRITE[:-1] + bytes([P2_WRITE[-1] ^ 1])
    packets = [p for byte in stream for p in parser.feed(bytes([byte]))]
    assert [p.instruction for p in packets] == [pk.READ, pk.WRITE]
    assert [p.crc_ok for p in packets] == [True, False]
    p1 = pk.Protocol1Parser()
    assert [p.crc_ok for p in p1.feed(b"\xff" + P1_PING + P1_READ[:-1] + b"\x00")] == [True, False]


# ---------------------------------------------------------------------- the SDK over the pty
def _servo(actuator: str, protocol: int, servo_id: int, q: float = 0.0, **kw) -> EmulatedServo:
    model = load_model("xl330/m6" if actuator == "xl330" else f"{actuator}/m6")
    servo = EmulatedServo(control_table(actuator, protocol), model, Pendulum(0.1, 0.1), servo_id=servo_id, q=q, **kw)
    servo.poke("return_delay_time", 0)
    return servo


def _count(counts: int) -> float:
    """Angle [rad] whose encoder reading is ``counts``."""
    return (counts - 2048) * POSITION_LSB


def _frozen_bus(servos) -> DynamixelEmulator:
    """An emulated bus whose shafts do not move: lockstep bench time, and nobody sleeps."""
    return DynamixelEmulator(servos, time_scale=None, trace=True)


def _open(emulator: DynamixelEmulator, protocol: int):
    port, handler = BusPort(emulator.port, clock=emulator.clock), PacketHandler(float(protocol))
    assert port.setBaudRate(1000000)
    return port, handler


def _wire(emulator: DynamixelEmulator, since: int = 0, count: int = 1):
    """The trace from ``since`` once it holds ``count`` entries (an instruction is traced once executed)."""
    deadline = time.monotonic() + 30.0  # generous: only a broken emulator takes this long
    while time.monotonic() < deadline and len(emulator.trace) < since + count:
        time.sleep(0.001)
    return emulator.trace[since:]


def test_sdk_protocol2_read_write_ping_on_the_wire():
    with _frozen_bus([_servo("xl330", 2, 1, q=_count(166))]) as emu:
        port, ph = _open(emu, 2)
        assert ph.read4ByteTxRx(port, 1, 132) == (166, COMM_SUCCESS, 0)
        assert _wire(emu) == [("rx", P2_READ), ("tx", P2_READ_STATUS)]
        mark = len(emu.trace)
        assert ph.write4ByteTxRx(port, 1, 116, 512) == (COMM_SUCCESS, 0)
        assert _wire(emu, mark) == [("rx", P2_WRITE), ("tx", P2_EMPTY_STATUS)]
        assert emu.servo(1).peek("goal_position") == 512
        mark = len(emu.trace)
        assert ph.ping(port, 1) == (1200, COMM_SUCCESS, 0)  # XL330-M288
        assert _wire(emu, mark)[0] == ("rx", P2_PING)
        port.closePort()


def test_sdk_protocol2_sync_read_sync_write_bulk_read_on_the_wire():
    servos = [_servo("xl330", 2, 1, q=_count(166), vin=11.9), _servo("xl330", 2, 2, q=_count(2079), temperature=36)]
    with _frozen_bus(servos) as emu:
        port, ph = _open(emu, 2)
        group = GroupSyncRead(port, ph, 132, 4)
        assert group.addParam(1) and group.addParam(2)
        assert group.txRxPacket() == COMM_SUCCESS
        assert (group.getData(1, 132, 4), group.getData(2, 132, 4)) == (166, 2079)
        assert _wire(emu) == [("rx", P2_SYNC_READ), ("tx", P2_READ_STATUS), ("tx", P2_SYNC_READ_STATUS_2)]

        mark = len(emu.trace)
        writer = GroupSyncWrite(port, ph, 116, 4)
        writer.addParam(1, [0x96, 0, 0, 0])
        writer.addParam(2, [0xAA, 0, 0, 0])
        assert writer.txPacket() == COMM_SUCCESS
        assert _wire(emu, mark) == [("rx", P2_SYNC_WRITE)]
        assert (emu.servo(1).peek("goal_position"), emu.servo(2).peek("goal_position")) == (150, 170)

        mark = len(emu.trace)
        bulk = GroupBulkRead(port, ph)
        assert bulk.addParam(1, 144, 2) and bulk.addParam(2, 146, 1)
        assert bulk.txRxPacket() == COMM_SUCCESS
        assert (bulk.getData(1, 144, 2), bulk.getData(2, 146, 1)) == (119, 36)
        assert _wire(emu, mark) == [("rx", P2_BULK_READ), ("tx", P2_BULK_READ_STATUS_1), ("tx", P2_BULK_READ_STATUS_2)]

        broadcast = ph.broadcastPing(port)
        assert broadcast == ({1: [1200, 46], 2: [1200, 46]}, COMM_SUCCESS)
        port.closePort()


def test_sdk_protocol1_ping_read_sync_write_bulk_read_on_the_wire():
    servos = [_servo("mx64", 1, 1, temperature=32), _servo("mx64", 1, 0)]
    with _frozen_bus(servos) as emu:
        port, ph = _open(emu, 1)
        assert ph.ping(port, 1) == (310, COMM_SUCCESS, 0)  # PING, then READ of Model Number
        assert _wire(emu)[:2] == [("rx", P1_PING), ("tx", P1_PING_STATUS)]

        mark = len(emu.trace)
        assert ph.read1ByteTxRx(port, 1, 43) == (32, COMM_SUCCESS, 0)
        assert _wire(emu, mark) == [("rx", P1_READ), ("tx", P1_READ_STATUS)]

        mark = len(emu.trace)
        writer = GroupSyncWrite(port, ph, 30, 4)
        writer.addParam(0, [0x10, 0x00, 0x50, 0x01])
        writer.addParam(1, [0x20, 0x02, 0x60, 0x03])
        assert writer.txPacket() == COMM_SUCCESS
        assert _wire(emu, mark) == [("rx", P1_SYNC_WRITE)]
        assert [(emu.servo(i).peek("goal_position"), emu.servo(i).peek("moving_speed")) for i in (0, 1)] == [
            (0x010, 0x150), (0x220, 0x360)]

        mark = len(emu.trace)  # BULK READ: Goal Position of ID 1, Present Position of ID 2 (absent: silent)
        param = [2, 1, 0x1E, 2, 2, 0x24]
        assert ph.bulkReadTx(port, param, len(param)) == COMM_SUCCESS
        data, result, error = ph.readRx(port, 1, 2)
        assert (result, error, data) == (COMM_SUCCESS, 0, [0x20, 0x02])
        assert _wire(emu, mark)[0] == ("rx", P1_BULK_READ)

        mark = len(emu.trace)
        assert ph.write1ByteTxOnly(port, 0xFE, 3, 1) == COMM_SUCCESS  # broadcast: no status packet
        assert ph.ping(port, 1)[1] == COMM_SUCCESS  # answered after the broadcast, in bus order
        assert [kind for kind, _ in emu.trace[mark:]] == ["rx", "rx", "tx", "rx", "tx"]  # SDK P1 ping: PING + READ
        assert emu.trace[mark] == ("rx", P1_BROADCAST_WRITE_ID)
        port.closePort()


def test_status_errors_on_the_wire():
    with _frozen_bus([_servo("xl330", 2, 1)]) as emu:
        port, ph = _open(emu, 2)
        assert ph.write1ByteTxRx(port, 1, 132, 0) == (COMM_SUCCESS, 7)  # read-only: access error
        assert ph.write2ByteTxRx(port, 1, 116, 5) == (COMM_SUCCESS, 5)  # half of a 4-byte item: data length
        assert ph.write1ByteTxRx(port, 1, 64, 2) == (COMM_SUCCESS, 4)  # torque enable 2: data range
        assert ph.write4ByteTxRx(port, 1, 116, 5000) == (COMM_SUCCESS, 6)  # beyond Max Position Limit
        assert ph.write1ByteTxRx(port, 1, 64, 1) == (COMM_SUCCESS, 0)
        assert ph.write1ByteTxRx(port, 1, 11, 1) == (COMM_SUCCESS, 7)  # EEPROM with torque on
        emu.inject_hardware_error("overload")
        assert ph.read1ByteTxRx(port, 1, 70) == (1 << 5, COMM_SUCCESS, 0x80)  # Alert bit + Hardware Error Status
        assert ph.reboot(port, 1) == (COMM_SUCCESS, 0x80)
        assert ph.read1ByteTxRx(port, 1, 70) == (0, COMM_SUCCESS, 0)
        port.closePort()
    with _frozen_bus([_servo("mx106", 1, 1)]) as emu:
        port, ph = _open(emu, 1)
        emu.inject_hardware_error("overload", "overheating")
        assert ph.read1ByteTxRx(port, 1, 24) == (0, COMM_SUCCESS, 0x24)  # as the e-manual's 0x24 example
        assert emu.trace[-1] == ("tx", h("FF FF 01 03 24 00 D7"))
        port.closePort()

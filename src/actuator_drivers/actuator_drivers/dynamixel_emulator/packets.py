"""Dynamixel Protocol 1.0 and 2.0 packet framing: encode, decode, checksum, CRC-16, byte stuffing.

Protocol 1.0 (e-manual "Protocol 1.0"; the serial-bus core's framing,
:mod:`actuator_drivers.serial_bus_emulator.framing`, re-exported here)::

    FF FF | ID | LEN = N + 2 | INST or ERROR | P1 .. PN | CHECKSUM = ~(ID + LEN + INST + sum(P)) & 0xFF

Protocol 2.0 (e-manual "Protocol 2.0")::

    FF FF FD 00 | ID | LEN_L LEN_H | INST | (ERROR) | P1 .. PN | CRC_L CRC_H

where LEN counts instruction, error (status only), parameters and CRC *after* byte stuffing
(``FF FF FD`` inside instruction..parameters becomes ``FF FF FD FD``), and the CRC-16
(polynomial 0x8005, initial 0, not reflected) covers every byte from the first header byte to
the byte before the CRC.

Decoding is incremental (:class:`Protocol1Parser`, :class:`Protocol2Parser`): feed bytes as they
arrive; complete packets come out in order, with ``crc_ok`` False when the checksum/CRC fails.
"""

from __future__ import annotations

from typing import List, Sequence

from actuator_drivers.serial_bus_emulator.framing import (  # noqa: F401 (the Protocol 1.0 framing, re-exported)
    ACTION, BROADCAST_ID, BULK_READ, BULK_WRITE, CLEAR, FACTORY_RESET, FAST_BULK_READ, FAST_SYNC_READ, P1_HEADER, PING,
    READ, REBOOT, REG_WRITE, SYNC_READ, SYNC_WRITE, WRITE, Packet, Protocol1Parser, _check_byte, checksum, encode_p1,
)

STATUS = 0x55  # Protocol 2.0 status packet instruction
P2_HEADER = b"\xff\xff\xfd\x00"


def _crc_table() -> List[int]:
    table = []
    for byte in range(256):
        crc = byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x8005) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return table


_CRC_TABLE = _crc_table()


def crc16(data: bytes) -> int:
    """Dynamixel Protocol 2.0 CRC-16 (poly 0x8005, init 0, no reflection, no final XOR)."""
    crc = 0
    for byte in data:
        crc = ((crc << 8) ^ _CRC_TABLE[((crc >> 8) ^ byte) & 0xFF]) & 0xFFFF
    return crc


def stuff(payload: bytes) -> bytes:
    """Protocol 2.0 byte stuffing: append ``FD`` after every ``FF FF FD`` (no overlap reuse)."""
    out = bytearray()
    for byte in payload:
        out.append(byte)
        if byte == 0xFD and out[-3:-1] == b"\xff\xff":
            out.append(0xFD)
    return bytes(out)


def unstuff(payload: bytes) -> bytes:
    """Undo :func:`stuff`: drop the ``FD`` that follows every ``FF FF FD``."""
    out = bytearray()
    skip = False
    for index, byte in enumerate(payload):
        if skip:
            skip = False
            continue
        out.append(byte)
        if byte == 0xFD and out[-3:-1] == b"\xff\xff" and index + 1 < len(payload) and payload[index + 1] == 0xFD:
            skip = True
    return bytes(out)


def encode_p2_instruction(servo_id: int, instruction: int, params: Sequence[int] = ()) -> bytes:
    """A Protocol 2.0 instruction packet (stuffed, with CRC)."""
    return _encode_p2(servo_id, bytes([instruction]) + bytes(params))


def encode_p2_status(servo_id: int, error: int, params: Sequence[int] = ()) -> bytes:
    """A Protocol 2.0 status packet (instruction 0x55, error byte, parameters)."""
    return _encode_p2(servo_id, bytes([STATUS, error]) + bytes(params))


def _encode_p2(servo_id: int, payload: bytes) -> bytes:
    _check_byte("servo_id", servo_id)
    stuffed = stuff(payload)
    length = len(stuffed) + 2
    head = P2_HEADER + bytes([servo_id, length & 0xFF, length >> 8])
    crc = crc16(head + stuffed)
    return head + stuffed + bytes([crc & 0xFF, crc >> 8])


class Protocol2Parser:
    """Incremental Protocol 2.0 decoder (header search ignores stuffed ``FF FF FD FD``)."""

    protocol = 2
    max_length = 1024

    def __init__(self) -> None:
        self.buffer = bytearray()

    def _find_header(self) -> int:
        start = 0
        while True:
            index = self.buffer.find(b"\xff\xff\xfd", start)
            if index < 0 or index + 3 >= len(self.buffer) or self.buffer[index + 3] != 0xFD:
                return index
            start = index + 1

    def feed(self, data: bytes) -> List[Packet]:
        """Append received bytes; return the complete packets found (garbage is skipped)."""
        self.buffer += data
        packets: List[Packet] = []
        while True:
            start = self._find_header()
            if start < 0:
                del self.buffer[: max(0, len(self.buffer) - 2)]
                return packets
            del self.buffer[:start]
            if len(self.buffer) < 7:
                return packets
            length = self.buffer[5] | (self.buffer[6] << 8)
            if self.buffer[3] != 0x00 or length < 3 or length > self.max_length:
                del self.buffer[0]
                continue
            total = 7 + length
            if len(self.buffer) < total:
                return packets
            raw = bytes(self.buffer[:total])
            del self.buffer[:total]
            crc_ok = crc16(raw[:-2]) == (raw[-2] | (raw[-1] << 8))
            payload = unstuff(raw[7:-2])
            instruction = payload[0]
            is_status = instruction == STATUS
            packets.append(
                Packet(
                    protocol=2,
                    servo_id=raw[4],
                    instruction=instruction,
                    error=payload[1] if is_status and len(payload) > 1 else 0,
                    params=payload[2:] if is_status else payload[1:],
                    crc_ok=crc_ok,
                    raw=raw,
                )
            )


def encode_instruction(protocol: int, servo_id: int, instruction: int, params: Sequence[int] = ()) -> bytes:
    """An instruction packet in either protocol."""
    if protocol == 1:
        return encode_p1(servo_id, instruction, params)
    return encode_p2_instruction(servo_id, instruction, params)


def encode_status(protocol: int, servo_id: int, error: int, params: Sequence[int] = ()) -> bytes:
    """A status packet in either protocol."""
    if protocol == 1:
        return encode_p1(servo_id, error, params)
    return encode_p2_status(servo_id, error, params)


def instruction_parser(protocol: int):
    """A parser for the instruction packets a servo receives."""
    if protocol == 1:
        return Protocol1Parser(status=False)
    if protocol == 2:
        return Protocol2Parser()
    raise ValueError(f"protocol {protocol!r}: expected 1 or 2")

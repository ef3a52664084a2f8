"""The Protocol-1.0-style packet framing every serial-bus family of this package speaks (Dynamixel
Protocol 1.0, and other vendors' servos with the same framing): encode, incremental decode,
checksum, and the instruction codes::

    FF FF | ID | LEN = N + 2 | INST or ERROR | P1 .. PN | CHECKSUM = ~(ID + LEN + INST + sum(P)) & 0xFF

Decoding is incremental (:class:`Protocol1Parser`): feed bytes as they arrive; complete packets
come out in order, with ``crc_ok`` False when the checksum fails. A family with another framing
(Dynamixel Protocol 2.0) adds its own parser producing the same :class:`Packet`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Sequence

BROADCAST_ID = 0xFE

# Instructions (P2: Dynamixel Protocol 2.0 only)
PING = 0x01
READ = 0x02
WRITE = 0x03
REG_WRITE = 0x04
ACTION = 0x05
FACTORY_RESET = 0x06
REBOOT = 0x08  # P2
CLEAR = 0x10  # P2
SYNC_READ = 0x82  # P2
SYNC_WRITE = 0x83
FAST_SYNC_READ = 0x8A  # P2
BULK_READ = 0x92
BULK_WRITE = 0x93  # P2
FAST_BULK_READ = 0x9A  # P2

P1_HEADER = b"\xff\xff"

def checksum(body: bytes) -> int:
    """Protocol 1.0 checksum of ``ID .. last parameter``: ``~sum & 0xFF``."""
    return ~sum(body) & 0xFF


@dataclass(frozen=True)
class Packet:
    """A decoded packet.

    Attributes:
        protocol: 1 or 2. servo_id: ID field. instruction: instruction code (instruction
        packets) or :data:`STATUS` for Protocol 2.0 status packets (Protocol 1.0 status packets
        carry no instruction: 0 here). error: status error byte (0 for instruction packets).
        params: parameters, unstuffed. crc_ok: checksum/CRC matched. raw: bytes on the wire.
    """

    protocol: int
    servo_id: int
    instruction: int
    params: bytes
    error: int = 0
    crc_ok: bool = True
    raw: bytes = b""


def encode_p1(servo_id: int, instruction_or_error: int, params: Sequence[int] = ()) -> bytes:
    """A Protocol 1.0 packet (instruction or status: the byte after LEN is the same slot)."""
    _check_byte("servo_id", servo_id)
    body = bytes([servo_id, len(params) + 2, instruction_or_error]) + bytes(params)
    return P1_HEADER + body + bytes([checksum(body)])


def _check_byte(name: str, value: int) -> None:
    if not 0 <= value <= 0xFF:
        raise ValueError(f"{name} {value} does not fit in one byte")


class Protocol1Parser:
    """Incremental Protocol 1.0 decoder. ``status=True`` parses status packets (error byte)."""

    protocol = 1

    def __init__(self, status: bool = False) -> None:
        self.status = status
        self.buffer = bytearray()

    def feed(self, data: bytes) -> List[Packet]:
        """Append received bytes; return the complete packets found (garbage is skipped)."""
        self.buffer += data
        packets: List[Packet] = []
        while True:
            start = self.buffer.find(P1_HEADER)
            if start < 0:
                del self.buffer[: max(0, len(self.buffer) - 1)]
                return packets
            del self.buffer[:start]
            if len(self.buffer) < 4:
                return packets
            # FF FF FF ...: the first FF is noise, resynchronise one byte later
            if self.buffer[2] == 0xFF:
                del self.buffer[0]
                continue
            length = self.buffer[3]
            if length < 2:
                del self.buffer[:2]
                continue
            total = 4 + length
            if len(self.buffer) < total:
                return packets
            raw = bytes(self.buffer[:total])
            del self.buffer[:total]
            body = raw[2:-1]
            code = raw[4]
            packets.append(
                Packet(
                    protocol=1,
                    servo_id=raw[2],
                    instruction=0 if self.status else code,
                    error=code if self.status else 0,
                    params=raw[5:-1],
                    crc_ok=checksum(body) == raw[-1],
                    raw=raw,
                )
            )

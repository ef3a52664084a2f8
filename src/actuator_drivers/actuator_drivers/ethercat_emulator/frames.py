"""EtherCAT frames and datagrams (ETG.1000.4): decode, encode, nothing else.

A frame is an Ethernet II frame of ethertype 0x88A4 whose payload is an EtherCAT header (11-bit
length, type 1 = datagrams) followed by datagrams. A datagram is a 10-byte header (command,
index, address, 11-bit length + "more follows" flag, IRQ), its data and a 16-bit working
counter. All integers are little-endian; Ethernet addresses and the ethertype are big-endian.

Addresses: position (APxx, auto-increment: 16-bit ADP, 16-bit ADO), node (FPxx: station address
+ register), broadcast (Bxx) and logical (Lxx: one 32-bit address).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import List, Sequence

ETHERTYPE = 0x88A4
ETH_HEADER = 14
ECAT_HEADER = 2
DATAGRAM_HEADER = 10
WKC_SIZE = 2
MIN_FRAME = 60  # Ethernet minimum without FCS


class Cmd(IntEnum):
    """Datagram commands."""

    NOP = 0
    APRD = 1
    APWR = 2
    APRW = 3
    FPRD = 4
    FPWR = 5
    FPRW = 6
    BRD = 7
    BWR = 8
    BRW = 9
    LRD = 10
    LWR = 11
    LRW = 12
    ARMW = 13
    FRMW = 14


POSITION = (Cmd.APRD, Cmd.APWR, Cmd.APRW, Cmd.ARMW)
NODE = (Cmd.FPRD, Cmd.FPWR, Cmd.FPRW, Cmd.FRMW)
BROADCAST = (Cmd.BRD, Cmd.BWR, Cmd.BRW)
LOGICAL = (Cmd.LRD, Cmd.LWR, Cmd.LRW)


class FrameError(ValueError):
    """Bytes that are not a well-formed EtherCAT frame."""


@dataclass(frozen=True)
class Datagram:
    """One datagram. ``adp``/``ado``: position or station address and register (physical
    commands); ``logical``: the 32-bit address of Lxx commands (``adp | ado << 16``)."""

    cmd: int
    index: int
    adp: int
    ado: int
    data: bytes
    wkc: int = 0
    irq: int = 0

    @property
    def logical(self) -> int:
        return self.adp | (self.ado << 16)

    def with_(self, **changes) -> "Datagram":
        return replace(self, **changes)


@dataclass(frozen=True)
class Frame:
    """An EtherCAT frame: Ethernet addresses and its datagrams."""

    dst: bytes
    src: bytes
    datagrams: tuple

    @property
    def index(self) -> int:
        """Index of the first datagram (what SOEM matches replies by)."""
        return self.datagrams[0].index if self.datagrams else -1


def decode(raw: bytes) -> Frame:
    """Parse an Ethernet frame; raises :class:`FrameError` when it is not a valid EtherCAT frame."""
    if len(raw) < ETH_HEADER + ECAT_HEADER:
        raise FrameError(f"frame of {len(raw)} bytes: too short")
    (ethertype,) = struct.unpack_from(">H", raw, 12)
    if ethertype != ETHERTYPE:
        raise FrameError(f"ethertype 0x{ethertype:04X}: not EtherCAT (0x{ETHERTYPE:04X})")
    (header,) = struct.unpack_from("<H", raw, ETH_HEADER)
    length, ftype = header & 0x07FF, header >> 12
    if ftype != 1:
        raise FrameError(f"EtherCAT frame type {ftype}: only datagrams (1) are supported")
    end = ETH_HEADER + ECAT_HEADER + length
    if end > len(raw):
        raise FrameError(f"EtherCAT length {length} exceeds the frame ({len(raw)} bytes)")
    datagrams: List[Datagram] = []
    at, more = ETH_HEADER + ECAT_HEADER, True
    while more:
        if at + DATAGRAM_HEADER + WKC_SIZE > end:
            raise FrameError(f"datagram at byte {at}: truncated header")
        cmd, index, adp, ado, dlen, irq = struct.unpack_from("<BBHHHH", raw, at)
        size, more = dlen & 0x07FF, bool(dlen & 0x8000)
        data_at = at + DATAGRAM_HEADER
        if data_at + size + WKC_SIZE > end:
            raise FrameError(f"datagram at byte {at}: {size} data bytes exceed the frame")
        (wkc,) = struct.unpack_from("<H", raw, data_at + size)
        datagrams.append(Datagram(cmd, index, adp, ado, bytes(raw[data_at:data_at + size]), wkc, irq))
        at = data_at + size + WKC_SIZE
    return Frame(bytes(raw[0:6]), bytes(raw[6:12]), tuple(datagrams))


def encode(frame: Frame) -> bytes:
    """Bytes of ``frame`` (padded to the Ethernet minimum)."""
    body = bytearray()
    count = len(frame.datagrams)
    for i, d in enumerate(frame.datagrams):
        if len(d.data) > 0x07FF:
            raise FrameError(f"datagram {i}: {len(d.data)} data bytes (at most 2047)")
        dlen = len(d.data) | (0x8000 if i < count - 1 else 0)
        body += struct.pack("<BBHHHH", d.cmd, d.index, d.adp & 0xFFFF, d.ado & 0xFFFF, dlen, d.irq)
        body += d.data
        body += struct.pack("<H", d.wkc & 0xFFFF)
    raw = frame.dst + frame.src + struct.pack(">H", ETHERTYPE) + struct.pack("<H", len(body) | 0x1000) + body
    return raw.ljust(MIN_FRAME, b"\x00")


def datagram_frame(datagrams: Sequence[Datagram], src: bytes = b"\x01" * 6) -> Frame:
    """A broadcast frame carrying ``datagrams`` (what a master sends)."""
    return Frame(b"\xff" * 6, src, tuple(datagrams))

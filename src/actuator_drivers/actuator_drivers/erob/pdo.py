"""The process-data image of one eRob drive in cyclic synchronous torque: the PDO mapping
:class:`~.master.ErobLine` writes at bring-up and the bytes :class:`~.drive.ErobDriver` exchanges
each cycle by it (little endian, as EtherCAT sends them).

Outputs (RxPDO 0x1600, 6 bytes): controlword 0x6040 (u16), target torque 0x6071 (i16, per mille
of the rated current), mode of operation 0x6060 (i8, 10 = CST), 8 bits padding.
Inputs (TxPDO 0x1A00, 12 bytes): statusword 0x6041 (u16), position actual 0x6064 (i32, counts),
velocity actual 0x606C (i32, counts/s), torque actual 0x6077 (i16, per mille).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from actuator_drivers.erob import cia402

#: Mapping entries (index << 16 | subindex << 8 | bits) of the outputs and inputs.
RX_MAPPING = (0x60400010, 0x60710010, 0x60600008, 0x00000008)
TX_MAPPING = (0x60410010, 0x60640020, 0x606C0020, 0x60770010)
RX_BYTES, TX_BYTES = 6, 12
_RX, _TX = struct.Struct("<HhbB"), struct.Struct("<Hiih")


@dataclass(frozen=True)
class Inputs:
    """One drive's inputs of a cycle, in drive units."""

    statusword: int
    position: int  # counts
    velocity: int  # counts/s
    torque: int  # per mille of the rated current


def pack_outputs(controlword: int, torque_permille: int) -> bytes:
    """The outputs of one drive: ``controlword``, target torque [per mille], mode CST."""
    return _RX.pack(controlword, torque_permille, cia402.MODE_CST, 0)


def unpack_inputs(data: bytes) -> Inputs:
    """The inputs of one drive from its bytes of the process-data image."""
    return Inputs(*_TX.unpack_from(data, 0))

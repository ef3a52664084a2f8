"""CANopen over EtherCAT (CoE) on the slave side: an object dictionary, SDO upload/download
through the mailbox, and the PDO mapping it defines (ETG.1000.6, CiA 301).

Mailbox frame: 6-byte header (length of what follows, address, channel/priority, type in the low
nibble with 3 = CoE and a 3-bit counter in bits 4-6), then the CoE header (16 bits: number, and
service in the top 4 bits: 2 SDO request, 3 SDO response), then the SDO: command byte, index
(16 bits), subindex, 4 data bytes (expedited) or a 32-bit size followed by the data.

Uploads of 1-4 bytes are answered expedited with the exact size (0x4F, 0x4B, 0x47, 0x43: SOEM
reads some objects into 1-byte buffers and rejects longer replies); longer values as a normal
transfer (0x41 + size + data) that must fit one mailbox. Downloads answer 0x60; errors abort
(0x80 + 32-bit abort code).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

MBX_COE = 3
COE_SDO_REQUEST, COE_SDO_RESPONSE = 2, 3

ABORT_TOGGLE = 0x05030000
ABORT_UNSUPPORTED = 0x06010000
ABORT_READ_ONLY = 0x06010002
ABORT_NO_OBJECT = 0x06020000
ABORT_MAPPING = 0x06040041
ABORT_LENGTH = 0x06070010
ABORT_NO_SUBINDEX = 0x06090011
ABORT_VALUE = 0x06090030
ABORT_STATE = 0x08000022


class SdoAbort(Exception):
    """An SDO request refused with an abort code."""

    def __init__(self, code: int) -> None:
        super().__init__(f"SDO abort 0x{code:08X}")
        self.code = code


@dataclass(frozen=True)
class Entry:
    """One object dictionary entry: ``fmt`` a struct format (``"<H"``, ``"<i"``, ...), access
    ``"rw"``, ``"ro"``; ``writable_in``: AL states in which a download is allowed (None: any)."""

    name: str
    fmt: str
    access: str = "rw"
    writable_in: Optional[Tuple[int, ...]] = None

    @property
    def size(self) -> int:
        return struct.calcsize(self.fmt)

    @property
    def bits(self) -> int:
        return 8 * self.size


Key = Tuple[int, int]
#: an object's value: an integer, or a float for a REAL32 object (struct format ``"<f"``)
Value = Union[int, float]


class ObjectDictionary:
    """Typed values by (index, subindex): ``od[key]`` reads an integer object, :meth:`real` a
    REAL32 one. ``hooks`` run after a successful download."""

    def __init__(self) -> None:
        self.entries: Dict[Key, Entry] = {}
        self.values: Dict[Key, Value] = {}
        self.hooks: Dict[Key, Callable[[Value], None]] = {}
        self._mappings: Dict[int, List[Tuple[int, int, int]]] = {}

    def add(self, index: int, sub: int, entry: Entry, value: Value = 0) -> None:
        self.entries[(index, sub)] = entry
        self.values[(index, sub)] = value
        self._mappings.clear()

    def __getitem__(self, key: Key) -> int:
        """The value of an integer object (TypeError for a REAL32 one: :meth:`real`)."""
        value = self.values[key]
        if isinstance(value, float):
            raise TypeError(f"object 0x{key[0]:04X}:{key[1]:02X} is a REAL32: read it with real()")
        return value

    def real(self, key: Key) -> float:
        """The value of an object as a float (a REAL32's own; an integer's converted)."""
        return float(self.values[key])

    def __setitem__(self, key: Key, value: Value) -> None:
        if key not in self.entries:
            raise KeyError(f"object 0x{key[0]:04X}:{key[1]:02X} does not exist")
        self.values[key] = value
        if 0x1600 <= key[0] < 0x1C00 or key[0] in (0x1C12, 0x1C13):
            self._mappings.clear()

    def encode(self, key: Key) -> bytes:
        entry = self.entries[key]
        if entry.fmt.endswith("f"):
            return struct.pack(entry.fmt, self.values[key])
        value = self[key]
        mask = (1 << entry.bits) - 1
        signed = entry.fmt[-1].islower()
        value = ((value + (1 << entry.bits)) & mask) if signed else value & mask
        return value.to_bytes(entry.size, "little")

    def decode(self, key: Key, data: bytes) -> Value:
        return struct.unpack(self.entries[key].fmt, data)[0]

    def upload(self, index: int, sub: int) -> bytes:
        """The bytes of an object (SDO upload); raises :class:`SdoAbort`."""
        key = self._key(index, sub)
        return self.encode(key)

    def download(self, index: int, sub: int, data: bytes, state: int) -> None:
        """Write an object (SDO download); raises :class:`SdoAbort`."""
        key = self._key(index, sub)
        entry = self.entries[key]
        if entry.access == "ro":
            raise SdoAbort(ABORT_READ_ONLY)
        if entry.writable_in is not None and state not in entry.writable_in:
            raise SdoAbort(ABORT_STATE)
        if len(data) < entry.size:
            raise SdoAbort(ABORT_LENGTH)
        value = self.decode(key, bytes(data[:entry.size]))
        before = self.values[key]
        self.values[key] = value
        if 0x1600 <= index < 0x1C00 or index in (0x1C12, 0x1C13):
            self._mappings.clear()
        hook = self.hooks.get(key)
        if hook is not None:
            try:
                hook(value)
            except SdoAbort:  # the drive refused the value: the object keeps the one it had
                self.values[key] = before
                raise

    def _key(self, index: int, sub: int) -> Key:
        if (index, sub) in self.entries:
            return (index, sub)
        if any(i == index for i, _ in self.entries):
            raise SdoAbort(ABORT_NO_SUBINDEX)
        raise SdoAbort(ABORT_NO_OBJECT)

    # -------------------------------------------------------------- PDO mapping
    def mapping(self, assign_index: int) -> List[Tuple[int, int, int]]:
        """The (index, subindex, bits) entries assigned to a sync manager (0x1C12 or 0x1C13)."""
        cached = self._mappings.get(assign_index)
        if cached is not None:
            return cached
        out: List[Tuple[int, int, int]] = []
        for n in range(1, self._integer((assign_index, 0)) + 1):
            pdo = self._integer((assign_index, n))
            for m in range(1, self._integer((pdo, 0)) + 1):
                word = self._integer((pdo, m))
                out.append((word >> 16, (word >> 8) & 0xFF, word & 0xFF))
        self._mappings[assign_index] = out
        return out

    def _integer(self, key: Key) -> int:
        """An integer object's value, 0 where it does not exist."""
        return self[key] if key in self.values else 0

    def mapped_size(self, assign_index: int) -> int:
        """Bytes of the process data mapped through ``assign_index``."""
        return sum(bits for _, _, bits in self.mapping(assign_index)) // 8

    def check_mapping(self, assign_index: int) -> None:
        """Raise :class:`SdoAbort` (0x06040041) when a mapped object cannot be mapped."""
        for index, sub, bits in self.mapping(assign_index):
            if index == 0:
                continue  # padding
            entry = self.entries.get((index, sub))
            if entry is None or entry.bits != bits:
                raise SdoAbort(ABORT_MAPPING)

    def pack(self, assign_index: int) -> bytes:
        """Process data image of the objects mapped through ``assign_index`` (inputs)."""
        out = bytearray()
        for index, sub, bits in self.mapping(assign_index):
            out += bytes(bits // 8) if index == 0 else self.encode((index, sub))
        return bytes(out)

    def unpack(self, assign_index: int, data: bytes) -> None:
        """Store the mapped objects from a process data image (outputs)."""
        at = 0
        for index, sub, bits in self.mapping(assign_index):
            size = bits // 8
            if index and (index, sub) in self.entries:
                self.values[(index, sub)] = self.decode((index, sub), data[at:at + size])
            at += size


def sdo_reply(request: bytes, od: ObjectDictionary, state: int) -> Optional[bytes]:
    """The mailbox reply to one mailbox request (None for what is not a CoE SDO request)."""
    if len(request) < 16:
        return None
    length, _address, _channel, mtype = struct.unpack_from("<HHBB", request, 0)
    if mtype & 0x0F != MBX_COE:
        return None
    counter = (mtype >> 4) & 0x07
    (coe,) = struct.unpack_from("<H", request, 6)
    if coe >> 12 != COE_SDO_REQUEST:
        return None
    command, index, sub = struct.unpack_from("<BHB", request, 8)
    ccs = command >> 5
    try:
        if command & 0x10:
            raise SdoAbort(ABORT_UNSUPPORTED)  # complete access is not advertised
        if ccs == 2:  # upload
            data = od.upload(index, sub)
            if len(data) <= 4:
                sdo = struct.pack("<BHB", 0x43 | ((4 - len(data)) << 2), index, sub) + data.ljust(4, b"\x00")
            else:
                sdo = struct.pack("<BHBI", 0x41, index, sub, len(data)) + data
        elif ccs == 1:  # download
            if command & 0x02:  # expedited
                size = 4 - ((command >> 2) & 0x03) if command & 0x01 else 4
                data = request[12:12 + size]
            else:
                (size,) = struct.unpack_from("<I", request, 12)
                data = request[16:16 + size]
                if len(data) < size or size > length - 10:
                    raise SdoAbort(ABORT_LENGTH)
            od.download(index, sub, data, state)
            sdo = struct.pack("<BHBI", 0x60, index, sub, 0)
        else:
            raise SdoAbort(ABORT_UNSUPPORTED)
    except SdoAbort as abort:
        sdo = struct.pack("<BHBI", 0x80, index, sub, abort.code)
    body = struct.pack("<H", COE_SDO_RESPONSE << 12) + sdo
    return struct.pack("<HHBB", len(body), 0, 0, MBX_COE | (counter << 4)) + body


def pdo_word(index: int, sub: int, bits: int) -> int:
    """A mapping entry: ``index << 16 | subindex << 8 | bit length``."""
    return (index << 16) | (sub << 8) | bits


def add_pdo_objects(od: ObjectDictionary, rx: Sequence[int], tx: Sequence[int], preop: Tuple[int, ...]) -> None:
    """Sync-manager types (0x1C00), mappings 0x1600 / 0x1A00 and assignments 0x1C12 / 0x1C13,
    with the given initial mapping words; writable only in ``preop`` states."""
    od.add(0x1C00, 0, Entry("sync manager types", "<B", "ro"), 4)
    for sub, kind in enumerate((1, 2, 3, 4), start=1):
        od.add(0x1C00, sub, Entry("sync manager type", "<B", "ro"), kind)
    for pdo, assign, words in ((0x1600, 0x1C12, rx), (0x1A00, 0x1C13, tx)):
        od.add(pdo, 0, Entry("mapped objects", "<B", "rw", preop), len(words))
        for sub in range(1, 11):
            od.add(pdo, sub, Entry("mapping entry", "<I", "rw", preop), words[sub - 1] if sub <= len(words) else 0)
        od.add(assign, 0, Entry("assigned PDOs", "<B", "rw", preop), 1)
        od.add(assign, 1, Entry("assigned PDO", "<H", "rw", preop), pdo)


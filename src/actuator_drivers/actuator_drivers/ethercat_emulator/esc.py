"""An EtherCAT slave controller (ESC) in software, and a segment of them on one link.

What an unmodified SOEM master (pysoem) needs from a slave, register by register (facts in
``shared/docs/ETHERCAT_EMULATION.md``): 64 KiB of registers and process RAM, the SII EEPROM read
through 0x0502-0x050B, the AL state machine (0x0120 control, 0x0130 status, 0x0134 status code),
the mailbox sync managers SM0/SM1 (request handled on the write of its last byte, reply flagged
in 0x080D bit 3 until its last byte is read), FMMUs mapping logical addresses to process RAM,
and the distributed-clock registers (receive-time latch, 64-bit system time, SYNC0 activation).

An :class:`Esc` holds no application: a :class:`SlaveApplication` (the CoE drive of
:mod:`.drive`) answers mailbox requests, approves state transitions and exchanges the
process data. A :class:`Segment` passes each datagram through its slaves in order, as a frame
travels down a line: auto-increment addresses are incremented by every slave, broadcast reads
are ORed, working counters add up.

Working counters: a read +1, a write +1, a read-write +3 (read 1 + write 2); logical commands
count +1 for a slave with a matching read FMMU and +1 (LWR) or +2 (LRW) for a matching write
FMMU. Outputs (write FMMUs) are taken only in OP; in SAFE-OP the slave's output sync manager is
off and its write share of the working counter is missing, as on real slaves.
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Protocol, Sequence, Tuple

from actuator_drivers.common import (AL_ACK, AL_CODES, AL_ERROR_FLAG, AL_INVALID_DC_SYNC, AL_INVALID_INPUT_SM,  # noqa: F401
                                     AL_INVALID_OUTPUT_SM, AL_INVALID_TRANSITION, AL_SYNC_ERROR, AL_UNKNOWN_STATE,
                                     BOOT, INIT, OP, PREOP, SAFEOP, STATE_NAMES, state_name)
from actuator_drivers.ethercat_emulator.frames import BROADCAST, LOGICAL, NODE, POSITION, Cmd, Datagram, Frame

MEMORY = 0x10000

# registers
REG_TYPE, REG_REVISION, REG_BUILD = 0x0000, 0x0001, 0x0002
REG_FMMUS, REG_SMS, REG_RAM, REG_PORTS, REG_FEATURES = 0x0004, 0x0005, 0x0006, 0x0007, 0x0008
REG_STATION, REG_ALIAS = 0x0010, 0x0012
REG_DL_STATUS = 0x0110
REG_AL_CONTROL, REG_AL_STATUS, REG_AL_CODE = 0x0120, 0x0130, 0x0134
REG_PDI_CONTROL = 0x0140
REG_EEP_CONFIG, REG_EEP_CONTROL, REG_EEP_ADDRESS, REG_EEP_DATA = 0x0500, 0x0502, 0x0504, 0x0508
REG_FMMU = 0x0600
REG_SM = 0x0800
REG_DC_RECEIVE, REG_DC_SYSTEM_TIME, REG_DC_RECEIVE_PU = 0x0900, 0x0910, 0x0918
REG_DC_OFFSET, REG_DC_ACTIVATION, REG_DC_START0, REG_DC_CYCLE0 = 0x0920, 0x0981, 0x0990, 0x09A0


EEP_READ = 0x0100
MAILBOX_FULL = 0x08


# ---------------------------------------------------------------------- SII EEPROM
@dataclass(frozen=True)
class SyncManagerInfo:
    """A sync manager as the SII describes it: physical start, length, control byte, type
    (1 mailbox out, 2 mailbox in, 3 outputs, 4 inputs)."""

    start: int
    length: int
    control: int
    kind: int


#: eRob-like layout: 128-byte mailboxes at 0x1000/0x1080, process data at 0x1100/0x1180.
DEFAULT_SYNC_MANAGERS = (
    SyncManagerInfo(0x1000, 128, 0x26, 1),
    SyncManagerInfo(0x1080, 128, 0x22, 2),
    SyncManagerInfo(0x1100, 0, 0x64, 3),
    SyncManagerInfo(0x1180, 0, 0x20, 4),
)


@dataclass(frozen=True)
class SiiInfo:
    """What the SII EEPROM of a slave says (ETG.2010).

    ``coe_details``: General category byte 5 (0x01 SDO, 0x04 PDO assign, 0x08 PDO configuration,
    0x20 complete access); ``mailbox_protocols``: 0x0004 = CoE.
    """

    vendor: int
    product: int
    revision: int = 1
    serial: int = 1
    name: str = "slave"
    sync_managers: Tuple[SyncManagerInfo, ...] = DEFAULT_SYNC_MANAGERS
    mailbox_protocols: int = 0x0004
    coe_details: int = 0x01 | 0x04 | 0x08


def _category(kind: int, data: bytes) -> bytes:
    if len(data) % 2:
        data += b"\x00"
    return struct.pack("<HH", kind, len(data) // 2) + data


def sii_image(info: SiiInfo) -> bytes:
    """The EEPROM contents (bytes, word-addressed by the master) for ``info``."""
    words = bytearray(0x80)  # words 0x00-0x3F
    struct.pack_into("<IIII", words, 0x10, info.vendor, info.product, info.revision, info.serial)
    mbx_out = next(s for s in info.sync_managers if s.kind == 1)
    mbx_in = next(s for s in info.sync_managers if s.kind == 2)
    struct.pack_into("<HHHHH", words, 0x30, mbx_out.start, mbx_out.length, mbx_in.start, mbx_in.length,
                     info.mailbox_protocols)
    struct.pack_into("<HH", words, 0x7C, 0x0001, 0x0001)  # EEPROM size (kbit - 1), version
    name = info.name.encode("ascii")[:255]
    strings = bytes([1, len(name)]) + name
    general = bytearray(32)
    general[3] = 1  # name: string 1
    general[5] = info.coe_details
    fmmu = bytes([1, 2, 3, 0xFF])  # FMMU0 outputs, FMMU1 inputs, FMMU2 mailbox status
    sms = b"".join(struct.pack("<HHBBBB", s.start, s.length, s.control, 0, 1, s.kind) for s in info.sync_managers)
    body = _category(10, strings) + _category(30, bytes(general)) + _category(40, fmmu) + _category(41, sms)
    return bytes(words) + body + b"\xff\xff" + b"\xff" * 16


# ---------------------------------------------------------------------- the application side
class SlaveApplication(Protocol):
    """What runs behind an ESC (the "PDI" side): mailbox protocols, state checks, process data."""

    def mailbox(self, request: bytes) -> Optional[bytes]:
        """Handle one mailbox request; the reply (or None)."""

    def check_transition(self, esc: "Esc", current: int, requested: int) -> int:
        """0 to accept a state change, or an AL status code to refuse it."""

    def entered(self, esc: "Esc", state: int) -> None:
        """Called after every state change."""

    def exchange(self, esc: "Esc", outputs: Optional[bytes]) -> bytes:
        """One process-data cycle: ``outputs`` (SM2 contents; None outside OP) in, SM3 contents out."""


@dataclass
class SyncManager:
    """A sync manager as programmed by the master (0x0800 + 8 n)."""

    start: int
    length: int
    control: int
    enabled: bool

    @property
    def end(self) -> int:
        return self.start + self.length


@dataclass
class Fmmu:
    """An FMMU as programmed by the master (0x0600 + 16 n); bit granularity is not supported."""

    logical: int
    length: int
    physical: int
    kind: int  # 1 read (inputs), 2 write (outputs)
    active: bool


def _now_ns() -> int:
    return time.monotonic_ns()


class Esc:
    """One slave controller. ``ports``: how many ports have a link (1 = last slave of a line)."""

    def __init__(self, sii: SiiInfo, application: SlaveApplication, *, ports: int = 1, dc: bool = True,
                 clock_ns: Callable[[], int] = _now_ns) -> None:
        self.sii = sii
        self.eeprom = sii_image(sii)
        self.application = application
        self.mem = bytearray(MEMORY)
        self.dc = dc
        self._clock = clock_ns
        self.exchanges = 0  # process-data cycles seen in SAFE-OP / OP
        struct.pack_into("<BBHBBH", self.mem, REG_TYPE, 0x11, 0x01, 0x0001, 8, 8, 8)  # 8 FMMUs, 8 SMs, 8 KiB
        self.mem[REG_PORTS] = 0x0F  # port descriptor: MII on port 0 and 1
        struct.pack_into("<H", self.mem, REG_FEATURES, 0x000C if dc else 0x0000)  # DC, 64-bit DC
        dl = 0
        for port in range(ports):
            dl |= (0x0200 << (2 * port)) | (0x0010 << port)  # port open + communication, link
        struct.pack_into("<H", self.mem, REG_DL_STATUS, dl)
        struct.pack_into("<H", self.mem, REG_PDI_CONTROL, 0x0005)  # SPI, a typical drive PDI
        self._set_al(INIT, 0)

    # -------------------------------------------------------------- state
    @property
    def station(self) -> int:
        return struct.unpack_from("<H", self.mem, REG_STATION)[0]

    @property
    def al_status(self) -> int:
        return struct.unpack_from("<H", self.mem, REG_AL_STATUS)[0]

    @property
    def state(self) -> int:
        return self.al_status & 0x0F

    @property
    def al_code(self) -> int:
        return struct.unpack_from("<H", self.mem, REG_AL_CODE)[0]

    @property
    def sync0_active(self) -> bool:
        """Cyclic unit and SYNC0 activated (0x0981 bits 0 and 1)."""
        return self.mem[REG_DC_ACTIVATION] & 0x03 == 0x03

    @property
    def sync0_cycle_ns(self) -> int:
        return struct.unpack_from("<I", self.mem, REG_DC_CYCLE0)[0]

    def sync_manager(self, n: int) -> SyncManager:
        start, length, control, _status, activate, _pdi = struct.unpack_from("<HHBBBB", self.mem, REG_SM + 8 * n)
        return SyncManager(start, length, control, bool(activate & 0x01))

    def fmmus(self) -> List[Fmmu]:
        out = []
        for n in range(8):
            logical, length, _sb, _eb, physical, _pb, kind, active = struct.unpack_from(
                "<IHBBHBBB", self.mem, REG_FMMU + 16 * n)
            if active & 0x01 and length:
                out.append(Fmmu(logical, length, physical, kind, True))
        return out

    def _set_al(self, state: int, code: int) -> None:
        struct.pack_into("<H", self.mem, REG_AL_STATUS, state | (AL_ERROR_FLAG if code else 0))
        struct.pack_into("<H", self.mem, REG_AL_CODE, code)

    def fail(self, code: int, state: int = SAFEOP) -> None:
        """Drop to ``state`` with the error flag and ``code`` (a slave-side error, e.g. 0x001A)."""
        self._set_al(min(state, self.state), code)
        self.application.entered(self, self.state)

    def _al_control(self, value: int) -> None:
        requested, ack = value & 0x0F, bool(value & AL_ACK)
        current, error = self.state, bool(self.al_status & AL_ERROR_FLAG)
        if error and not ack and requested > current:
            return  # an error must be acknowledged before going up
        if requested not in STATE_NAMES:
            self._set_al(current, AL_UNKNOWN_STATE)
            return
        if requested == current:
            self._set_al(current, 0 if ack or not error else self.al_code)
            return
        allowed = {INIT: (PREOP, BOOT), PREOP: (INIT, SAFEOP), SAFEOP: (INIT, PREOP, OP), OP: (INIT, PREOP, SAFEOP),
                   BOOT: (INIT,)}
        if requested not in allowed[current]:
            self._set_al(current, AL_INVALID_TRANSITION)
            return
        code = self.application.check_transition(self, current, requested)
        if code:
            self._set_al(current, code)
            return
        self._set_al(requested, 0)
        self.application.entered(self, requested)

    # -------------------------------------------------------------- register access
    def read(self, address: int, size: int) -> bytes:
        """Read ``size`` bytes at ``address`` with the ESC's read side effects."""
        end = address + size
        if address < REG_DC_SYSTEM_TIME + 8 and end > REG_DC_SYSTEM_TIME:
            offset = struct.unpack_from("<Q", self.mem, REG_DC_OFFSET)[0]
            struct.pack_into("<Q", self.mem, REG_DC_SYSTEM_TIME, (self._clock() + offset) & 0xFFFFFFFFFFFFFFFF)
        data = bytes(self.mem[address:end])
        mbx_in = self.sync_manager(1)
        if mbx_in.length and address < mbx_in.end <= end:
            self.mem[REG_SM + 8 + 5] &= ~MAILBOX_FULL & 0xFF  # the master took the reply
        return data

    def write(self, address: int, data: bytes) -> None:
        """Write ``data`` at ``address`` with the ESC's write side effects."""
        end = address + len(data)
        if address <= REG_DC_RECEIVE < end and len(data) >= 1:  # BWR 0x0900 latches receive times
            self._latch_receive_times()
            return
        self.mem[address:end] = data
        if address <= REG_AL_CONTROL < end:
            self._al_control(struct.unpack_from("<H", self.mem, REG_AL_CONTROL)[0])
        if address <= REG_EEP_CONTROL < end or address <= REG_EEP_CONTROL + 1 < end:
            self._eeprom_command()
        mbx_out = self.sync_manager(0)
        if mbx_out.length and address < mbx_out.end <= end and self.state != INIT:
            self._mailbox(bytes(self.mem[mbx_out.start:mbx_out.end]))

    def _latch_receive_times(self) -> None:
        now = self._clock()
        for port in range(4):
            struct.pack_into("<I", self.mem, REG_DC_RECEIVE + 4 * port, (now + 40 * port) & 0xFFFFFFFF)
        struct.pack_into("<Q", self.mem, REG_DC_RECEIVE_PU, now)

    def _eeprom_command(self) -> None:
        command, word = struct.unpack_from("<HI", self.mem, REG_EEP_CONTROL)
        status = 0x0000  # never busy, no error, 4-byte reads (0x0040 clear)
        if command & EEP_READ:
            at = 2 * (word & 0xFFFF)
            chunk = self.eeprom[at:at + 4].ljust(4, b"\xff")
            self.mem[REG_EEP_DATA:REG_EEP_DATA + 4] = chunk
        struct.pack_into("<H", self.mem, REG_EEP_CONTROL, status)

    def _mailbox(self, request: bytes) -> None:
        reply = self.application.mailbox(request)
        if reply is None:
            return
        mbx_in = self.sync_manager(1)
        self.mem[mbx_in.start:mbx_in.end] = reply[:mbx_in.length].ljust(mbx_in.length, b"\x00")
        self.mem[REG_SM + 8 + 5] |= MAILBOX_FULL

    # -------------------------------------------------------------- process data
    def logical(self, cmd: int, address: int, data: bytearray) -> int:
        """Apply a logical datagram to this slave; returns its working-counter share."""
        end = address + len(data)
        wkc = 0
        hits = [f for f in self.fmmus() if f.logical < end and address < f.logical + f.length]
        writes = [f for f in hits if f.kind == 2] if cmd in (Cmd.LWR, Cmd.LRW) else []
        reads = [f for f in hits if f.kind == 1] if cmd in (Cmd.LRD, Cmd.LRW) else []
        if self.state not in (SAFEOP, OP) or not (writes or reads):
            return 0
        outputs = None
        if writes and self.state == OP:
            for f in writes:
                lo, hi = max(address, f.logical), min(end, f.logical + f.length)
                phys = f.physical + lo - f.logical
                self.mem[phys:phys + hi - lo] = data[lo - address:hi - address]
            sm2 = self.sync_manager(2)
            outputs = bytes(self.mem[sm2.start:sm2.end])
            wkc += 1 if cmd == Cmd.LWR else 2
        self.exchanges += 1
        sm3 = self.sync_manager(3)
        inputs = self.application.exchange(self, outputs)
        if sm3.length:
            self.mem[sm3.start:sm3.end] = inputs[:sm3.length].ljust(sm3.length, b"\x00")
        if reads:
            for f in reads:
                lo, hi = max(address, f.logical), min(end, f.logical + f.length)
                phys = f.physical + lo - f.logical
                data[lo - address:hi - address] = self.mem[phys:phys + hi - lo]
            wkc += 1
        return wkc


class Segment:
    """Slaves on one line, in order from the master."""

    def __init__(self, slaves: Sequence[Esc]) -> None:
        if not slaves:
            raise ValueError("a segment needs at least one slave")
        self.slaves = list(slaves)

    def process(self, frame: Frame) -> Frame:
        """The frame as it returns to the master after passing every slave."""
        out = tuple(self._datagram(d) for d in frame.datagrams)
        return Frame(frame.dst, b"\x03" + frame.src[1:], out)

    def _datagram(self, d: Datagram) -> Datagram:
        data, wkc, adp = bytearray(d.data), d.wkc, d.adp
        cmd, size = d.cmd, len(d.data)
        for esc in self.slaves:
            if cmd in LOGICAL:
                wkc += esc.logical(cmd, d.logical, data)
                continue
            if cmd in POSITION:
                hit = adp == 0
                adp = (adp + 1) & 0xFFFF
            elif cmd in NODE:
                hit = adp == esc.station
            elif cmd in BROADCAST:
                hit = True
                adp = (adp + 1) & 0xFFFF
            else:
                hit = False
            if cmd in (Cmd.ARMW, Cmd.FRMW):  # the addressed slave (reference clock) reads, the others write
                if hit:
                    data[:] = esc.read(d.ado, size)
                else:
                    esc.write(d.ado, bytes(data))
                wkc += 1
                continue
            if not hit:
                continue
            if cmd in (Cmd.APRD, Cmd.FPRD):
                data[:] = esc.read(d.ado, size)
                wkc += 1
            elif cmd == Cmd.BRD:
                got = esc.read(d.ado, size)
                data[:] = bytes(a | b for a, b in zip(data, got))
                wkc += 1
            elif cmd in (Cmd.APWR, Cmd.FPWR, Cmd.BWR):
                esc.write(d.ado, bytes(data))
                wkc += 1
            elif cmd in (Cmd.APRW, Cmd.FPRW, Cmd.BRW):
                old = esc.read(d.ado, size)
                esc.write(d.ado, bytes(data))
                data[:] = old
                wkc += 3
        return d.with_(adp=adp, data=bytes(data), wkc=wkc)

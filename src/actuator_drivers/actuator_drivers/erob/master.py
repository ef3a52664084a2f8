"""Bring-up of an EtherCAT line of eRob drives with pysoem, up to OP in cyclic synchronous torque
(the first half of ``shared/docs/HARDWARE_ROS_REFERENCE.md`` 3.4-3.5, ZeroErr's CST demo); the
cyclic exchange is :mod:`.drive`'s.

1. ``config_init`` (slaves reach PRE-OP); count and identity check (vendor 0x5A65726F, product).
2. PDO remap by SDO in PRE-OP: 0x1C12:00 = 0, 0x1600:00 = 0, entries (0x6040 controlword,
   0x6071 target torque, 0x6060 mode, 8 bits padding), 0x1600:00 = 4, 0x1C12:01 = 0x1600,
   0x1C12:00 = 1; likewise 0x1A00 (0x6041 statusword, 0x6064 position, 0x606C velocity, 0x6077
   torque actual) on 0x1C13. 0x1C32:02 = cycle time (best effort), 0x6060 = 10.
3. ``config_map`` with manual state changes; the mapped sizes are checked (6 bytes out, 12 in).
4. Distributed clocks where the slave offers them: ``config_dc`` + SYNC0 at the cycle time, then
   SAFE-OP. **Fallback without DC**: if SAFE-OP is refused while SYNC0 is configured (eRob drives
   have been reported stuck in SAFE-OP + ERROR with DC, ICube ethercat_driver_ros2 #154), the
   error is acknowledged, SYNC0 is switched off and SAFE-OP is requested again; the drive then
   runs free (SM-synchronous) on the master's frames. ``dc=False`` skips DC altogether.
   :attr:`ErobLine.dc_active` says which one is in use.
5. One process-data frame, then OP; mode 10 (CST) written by SDO.
"""

from __future__ import annotations

import struct
import time
from dataclasses import dataclass
from typing import List, Optional, Sequence

from actuator_drivers.common import AL_CODES, INIT, OP, PREOP, SAFEOP, state_name
from actuator_drivers.erob import cia402
from actuator_drivers.erob.errors import ErobError, IdentityError, InterfaceError, SetupError
from actuator_drivers.erob.pdo import RX_BYTES, RX_MAPPING, TX_BYTES, TX_MAPPING
from actuator_drivers.erob.soem import SoemMaster, SoemSlave
from actuator_drivers.erob.units import ErobUnits

EROB_VENDOR = 0x5A65726F
EROB_PRODUCT = 0x00029252
STATE_ACK = 0x10


@dataclass(frozen=True)
class LineTiming:
    """Timing of an EtherCAT line: ``cycle_time`` [s] of the process data, ``dc`` use distributed
    clocks when offered, ``receive_timeout`` [s] of one exchange, ``state_timeout`` [s] of one AL
    state change."""

    cycle_time: float = 0.001
    dc: bool = True
    receive_timeout: float = 0.002
    state_timeout: float = 5.0


class ErobLine:
    """One EtherCAT line of eRob drives, brought up to OP by :meth:`connect`.

    Args:
        iface: network interface. products: expected product code per slave, in line order.
        units: scaling per slave, updated in place from 0x6075 where ``read_rated`` says so.
        read_rated: per slave, read the rated current 0x6075 from the drive. max_currents:
        current limit per slave [A] (0x6072). timing: :class:`LineTiming`.
    """

    def __init__(self, iface: str, products: Sequence[int], units: List[ErobUnits], read_rated: Sequence[bool],
                 max_currents: Sequence[float], timing: LineTiming) -> None:
        self.iface, self.products, self.units = iface, list(products), units
        self.read_rated, self.max_currents = list(read_rated), list(max_currents)
        self.cycle_time, self.use_dc = timing.cycle_time, timing.dc
        self.receive_timeout, self.state_timeout = timing.receive_timeout, timing.state_timeout
        #: the pysoem master while connected
        self.master: Optional[SoemMaster] = None
        self.dc_active = False
        self.dc_fallback_reason = ""
        self.sync_modes: List[Optional[int]] = []  # 0x1C32:01 per slave after SAFE-OP (2 = DC SYNC0)

    def connect(self) -> None:
        """Open the interface and bring the line to OP (:class:`SetupError` if it fails)."""
        import pysoem

        master = pysoem.Master()
        try:
            master.open(self.iface)
        except ConnectionError as error:
            raise InterfaceError(f"cannot open EtherCAT interface {self.iface!r}: {error} (does it exist? "
                                 "raw sockets need root or CAP_NET_RAW)") from error
        self.master = master
        self._bring_up(pysoem)

    def connected(self) -> SoemMaster:
        """The pysoem master of the connected line (:class:`ErobError` before :meth:`connect`)."""
        if self.master is None:
            raise ErobError(f"the EtherCAT line on {self.iface!r} is not connected")
        return self.master

    def _bring_up(self, pysoem) -> None:
        m = self.connected()
        self.dc_fallback_reason = ""
        found = m.config_init()
        if found <= 0:
            raise SetupError(f"no EtherCAT slave answers on {self.iface!r} (config_init returned {found})")
        if found != len(self.products):
            raise IdentityError(f"{found} slave(s) on {self.iface!r}, {len(self.products)} joint(s) configured")
        for i, (slave, product) in enumerate(zip(m.slaves, self.products)):
            if slave.man == 0 and slave.id == 0:  # the SII EEPROM was not read (lost frames): try again
                raise SetupError(f"slave {i + 1}: identity unreadable (SII EEPROM read failed)")
            if slave.man != EROB_VENDOR or slave.id != product:
                raise IdentityError(
                    f"slave {i + 1} ({slave.name!r}): vendor 0x{slave.man:08X} product 0x{slave.id:08X}, expected an eRob "
                    f"(vendor 0x{EROB_VENDOR:08X}, product 0x{product:08X})")
        self._wait_state(PREOP, "after config_init")
        for i, slave in enumerate(m.slaves):
            self._remap(i, slave, pysoem)
        m.manual_state_change = True
        try:
            m.config_map()
        except pysoem.ConfigMapError as error:
            raise SetupError(f"config_map failed: {error}") from error
        for i, slave in enumerate(m.slaves):
            if len(slave.output) != RX_BYTES or len(slave.input) != TX_BYTES:
                raise SetupError(f"slave {i + 1}: mapped {len(slave.output)} output / {len(slave.input)} input bytes, "
                                 f"expected {RX_BYTES} / {TX_BYTES}")
        self._safe_op(pysoem)
        self.sync_modes = [self._sync_mode(slave) for slave in m.slaves]
        m.send_processdata()
        m.receive_processdata(self.timeout_us)
        m.state = OP
        m.write_state()
        deadline = time.monotonic() + self.state_timeout
        while m.read_state() != OP:
            if time.monotonic() > deadline:
                raise SetupError(f"OP not reached: {self.states_text()}")
            m.send_processdata()
            m.receive_processdata(self.timeout_us)
        for i, slave in enumerate(m.slaves):
            self._sdo(slave, i, 0x6060, 0, struct.pack("<b", cia402.MODE_CST))

    def _remap(self, i: int, slave: SoemSlave, pysoem) -> None:
        """PDO remap by SDO in PRE-OP, rated current, cycle time."""
        for assign, pdo, words in ((0x1C12, 0x1600, RX_MAPPING), (0x1C13, 0x1A00, TX_MAPPING)):
            self._sdo(slave, i, assign, 0, b"\x00")
            self._sdo(slave, i, pdo, 0, b"\x00")
            for sub, word in enumerate(words, start=1):
                self._sdo(slave, i, pdo, sub, struct.pack("<I", word))
            self._sdo(slave, i, pdo, 0, bytes([len(words)]))
            self._sdo(slave, i, assign, 1, struct.pack("<H", pdo))
            self._sdo(slave, i, assign, 0, b"\x01")
        if self.read_rated[i]:
            rated = int.from_bytes(self._sdo_read(slave, i, 0x6075, 0)[:4].ljust(4, b"\x00"), "little")
            self.units[i] = ErobUnits.from_drive(rated)
        try:  # retried on lost frames like every other SDO (a lost frame here failed bring-up on a lossy line)
            self._sdo(slave, i, 0x1C32, 2, struct.pack("<I", int(round(self.cycle_time * 1e9))))
        except SetupError as error:
            if not isinstance(error.__cause__, pysoem.SdoError):
                raise
            # read-only on some firmware (an abort): the drive then follows the frames (SM-synchronous)
        self._sdo(slave, i, 0x6060, 0, struct.pack("<b", cia402.MODE_CST))
        self._sdo(slave, i, 0x6072, 0, struct.pack("<H", self.units[i].permille(self.max_currents[i])))

    def _sdo(self, slave: SoemSlave, i: int, index: int, sub: int, data: bytes) -> None:
        """SDO download, retried on lost frames (the writes are idempotent); an abort is final."""
        self._mailbox(i, f"SDO write 0x{index:04X}:{sub:02X} = {data.hex()}", lambda: slave.sdo_write(index, sub, data))

    def _sdo_read(self, slave: SoemSlave, i: int, index: int, sub: int) -> bytes:
        return self._mailbox(i, f"SDO read 0x{index:04X}:{sub:02X}", lambda: slave.sdo_read(index, sub))

    def _mailbox(self, i: int, what: str, call, attempts: int = 3):
        import pysoem

        for attempt in range(attempts):
            try:
                return call()
            except pysoem.SdoError as error:  # the drive refused: abort code in the message
                raise SetupError(f"slave {i + 1}: {what} refused: {error.desc} (abort 0x{error.abort_code:08X})") from error
            except Exception as error:  # WkcError, MailboxError, PacketError: a lost or garbled frame
                if attempt == attempts - 1:
                    raise SetupError(f"slave {i + 1}: {what} failed after {attempts} attempts: "
                                     f"{type(error).__name__} {error}") from error

    def _safe_op(self, pysoem) -> None:
        m = self.connected()
        self.dc_active = False
        if self.use_dc and m.config_dc():  # True when the line has DC-capable slaves
            for slave in m.slaves:
                slave.dc_sync(True, int(round(self.cycle_time * 1e9)))
            self.dc_active = True
        if self._request(SAFEOP):
            return
        if not self.dc_active:
            raise SetupError(f"SAFE-OP not reached: {self.states_text()}")
        self.dc_fallback_reason = self.states_text()
        for slave in m.slaves:  # fallback without DC: acknowledge, SYNC0 off, retry
            slave.dc_sync(False, 0)
        m.state = PREOP | STATE_ACK
        m.write_state()
        self.dc_active = False
        if not self._request(SAFEOP):
            raise SetupError(f"SAFE-OP not reached with DC ({self.dc_fallback_reason}) nor without "
                             f"({self.states_text()})")

    @staticmethod
    def _sync_mode(slave: SoemSlave) -> Optional[int]:
        """0x1C32:01 (0 free run, 1 SM-synchronous, 2 DC SYNC0), None where the drive lacks it."""
        try:
            return int.from_bytes(slave.sdo_read(0x1C32, 1)[:2], "little")
        except Exception:
            return None

    def _request(self, state: int) -> bool:
        m = self.connected()
        m.state = state
        m.write_state()
        deadline = time.monotonic() + self.state_timeout
        while True:
            reached = m.read_state()
            if reached == state:
                return True
            if any(s.state & 0x10 for s in m.slaves) or time.monotonic() > deadline:
                return False
            time.sleep(0.001)

    def _wait_state(self, state: int, when: str) -> None:
        if self.connected().state_check(state, int(self.state_timeout * 1e6)) != state:
            raise SetupError(f"{state_name(state)} not reached {when}: {self.states_text()}")

    def states_text(self) -> str:
        m = self.connected()
        m.read_state()
        return "; ".join(
            f"slave {i + 1} {state_name(s.state)}" + (f" AL 0x{s.al_status:04X} ({AL_CODES.get(s.al_status, 'unknown')})"
                                                      if s.al_status else "")
            for i, s in enumerate(m.slaves))

    @property
    def timeout_us(self) -> int:
        """The receive timeout [us] of a process-data exchange."""
        return max(1, int(self.receive_timeout * 1e6))

    def shutdown(self) -> None:
        """Slaves to INIT (best effort), interface closed."""
        m, self.master = self.master, None
        if m is None:
            return
        try:
            m.state = INIT
            m.write_state()
        except Exception:
            pass
        m.close()

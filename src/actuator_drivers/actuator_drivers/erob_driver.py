"""eRob (ZeroErr) actuators over EtherCAT with pysoem: CiA 402, cyclic synchronous torque (mode 10),
and the project's custom current PD law computed on the master every cycle.

Bring-up (``shared/docs/HARDWARE_ROS_REFERENCE.md`` 3.4-3.5, ZeroErr's CST demo):

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
   :attr:`ErobDriver.dc_active` says which one is in use.
5. One process-data frame, then OP; the CiA 402 enable sequence (fault reset 0x0080 when in fault,
   shutdown 0x0006, switch on 0x0007, enable operation 0x000F) is played by the cyclic exchange
   with statusword checks, within ``enable_timeout`` cycles per transition.

Every cycle: target torque from the PD law ``I = clip(kp (goal - q) - d sqrt(kp) v, +-12 A)``
(``actuator_models``' :class:`CurrentPD`, d = 1 for 80:50 and 2 for 80:100) on the last sample,
one LRW, and the working counter is compared with pysoem's ``expected_wkc``. A wrong counter or
no frame is a lost cycle (counted: ``counters.timeouts`` no frame, ``counters.corrupt`` wrong
counter); after a wrong counter the AL states are read, and a slave that left OP ends the run
with :class:`ALStatusError` (AL status code named, e.g. 0x001A synchronization error).
``max_lost`` consecutive lost cycles end it with :class:`LostFramesError`; a statusword fault
bit with :class:`DriveFaultError` (0x603F read); no :meth:`ErobDriver.command` for
``command_timeout`` seconds releases the torque (``watchdog_trips``). Torque is released on all
of these, on :meth:`ErobDriver.release` and on :meth:`ErobDriver.close`. Goals outside the joint
limits raise :class:`ErobLimitError` before anything is sent.

Clocking (``mode``):

* ``"stepped"``: the process-data exchange is the clock. ``driver.clock.now()`` is cycles x cycle
  time and ``clock.sleep(s)`` runs the cycles that ``s`` seconds hold, back to back. With the
  emulator (whose shaft advances one cycle per frame) a recording is then independent of the
  host's scheduling: the emulator's choice for tests and identification data.
* ``"realtime"``: a thread runs the cycles at the cycle time on the wall clock (hardware).
"""

from __future__ import annotations

import math
import struct
import threading
import time
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Union

from actuator_models.actuators import CurrentPD, actuator as find_actuator

from . import cia402
from .clock import Clock
from .driver_errors import CommandTimeout, DriverError, LimitError
from .dynamixel_bus import ErrorCounters
from .erob_units import ErobUnits
from .esc_emulator import AL_CODES, state_name
from .safe_stop import InterruptShield

EROB_VENDOR = 0x5A65726F
EROB_PRODUCT = 0x00029252
RX_MAPPING = (0x60400010, 0x60710010, 0x60600008, 0x00000008)
TX_MAPPING = (0x60410010, 0x60640020, 0x606C0020, 0x60770010)
RX_BYTES, TX_BYTES = 6, 12
NOMINAL_BUS_VOLTAGE = 48.0  # V, not measured: no bus-voltage object is documented for eRob
#: receive timeout [s] against an emulator sharing a loaded host: a frame later than this would be
#: a lost cycle, and the recording would depend on the host's load
EMULATOR_RECEIVE_TIMEOUT = 0.5

PREOP, SAFEOP, OP, INIT = 2, 4, 8, 1
STATE_ACK = 0x10


class ErobError(DriverError):
    """Base class of the eRob driver errors."""


class SetupError(ErobError):
    """Bring-up failed (no slaves, wrong identity, mapping refused, state not reached)."""


class IdentityError(SetupError):
    """The line holds other slaves than configured (count, vendor or product)."""


class ALStatusError(ErobError):
    """A slave left OP (AL status error, e.g. 0x001A synchronization error)."""


class DriveFaultError(ErobError):
    """A drive reports the CiA 402 fault bit."""


class LostFramesError(ErobError):
    """Too many consecutive cycles without a valid process-data frame."""


class ErobLimitError(ErobError, LimitError):
    """A goal outside the joint limits; nothing was sent."""


class ErobWatchdogError(ErobError, CommandTimeout):
    """Torque released: no command within the command timeout."""


@dataclass(frozen=True)
class ErobJoint:
    """One drive of the chain (in auto-increment order).

    Attributes:
        name: joint name. actuator: ``erob80_50`` or ``erob80_100`` (PD law damping).
        lower, upper: joint limits [rad]. product: expected product code.
        units: scaling; None reads the rated current 0x6075 from the drive (the eRob80 ratings
        are not published, see :mod:`.erob_units`).
    """

    name: str = "joint1"
    actuator: str = "erob80_100"
    lower: float = -2.8
    upper: float = 2.8
    product: int = EROB_PRODUCT
    units: Optional[ErobUnits] = None

    def __post_init__(self) -> None:
        law = find_actuator(self.actuator)
        if not isinstance(law, CurrentPD):
            raise ValueError(f"joint {self.name}: actuator {self.actuator!r} is not an eRob (current PD law)")
        if not self.lower < self.upper:
            raise ValueError(f"joint {self.name}: limits [{self.lower}, {self.upper}] are empty")


@dataclass(frozen=True)
class ErobState:
    """One drive's reading of one cycle (SI units).

    Attributes: position [rad], velocity [rad/s], current [A] (torque actual 0x6077 scaled),
    load: current as a fraction of the law's 12 A limit, input_voltage: nominal bus voltage [V]
    (not measured), temperature: NaN (not read), torque_enabled: drive in "operation enabled",
    time: bench time of the cycle [s], statusword, cycle: process-data cycle number.
    """

    position: float
    velocity: float
    load: float
    current: float
    input_voltage: float
    temperature: float
    torque_enabled: bool
    time: float
    statusword: int = 0
    cycle: int = 0

    @property
    def control(self) -> float:
        """What the drive applies [A] (the log's ``control`` column)."""
        return self.current


class CycleClock(Clock):
    """Bench time = process-data cycles x cycle time; sleeping runs the cycles."""

    def __init__(self, driver: "ErobDriver") -> None:
        super().__init__(1.0)
        self._driver = driver

    def now(self) -> float:
        return self._driver.cycles * self._driver.cycle_time

    def sleep(self, seconds: float) -> None:
        target = self.now() + seconds
        while self.now() < target - 1e-9:
            self._driver.cycle()

    def sleep_until(self, t: float) -> None:
        self.sleep(t - self.now())

    def wall(self, seconds: float) -> float:
        return seconds


Goals = Union[float, Mapping[int, float]]
Flags = Union[bool, Mapping[int, bool]]


class ErobDriver:
    """A chain of eRob drives on one EtherCAT interface (see the module docstring).

    Args:
        iface: network interface of the EtherCAT segment.
        joints: one :class:`ErobJoint` per slave, in line order.
        cycle_time: process-data period [s] (1 ms = 1 kHz).
        mode: ``"stepped"`` or ``"realtime"``.
        dc: use distributed clocks when the slaves offer them (with the fallback above).
        receive_timeout: how long one cycle waits for its frame [s].
        max_lost: consecutive lost cycles tolerated.
        command_timeout: seconds of bench time without :meth:`command` before the torque is
            released; None disables it.
        enable_timeout: cycles allowed for each CiA 402 transition.
        state_timeout: seconds allowed for each AL state change.
    """

    def __init__(self, iface: str, joints: Sequence[ErobJoint] = (ErobJoint(),), *, cycle_time: float = 0.001,
                 mode: str = "stepped", dc: bool = True, receive_timeout: float = 0.002, max_lost: int = 20,
                 command_timeout: Optional[float] = 0.5, enable_timeout: int = 500, state_timeout: float = 5.0,
                 kp: float = 10.0) -> None:
        if mode not in ("stepped", "realtime"):
            raise ValueError(f"mode {mode!r}: expected 'stepped' or 'realtime'")
        if not joints:
            raise ValueError("at least one joint is needed")
        if not cycle_time > 0:
            raise ValueError(f"cycle_time {cycle_time!r} s: must be positive")
        self.iface = iface
        self.joints = list(joints)
        self.cycle_time = float(cycle_time)
        self.mode = mode
        self.use_dc = dc
        self.receive_timeout = receive_timeout
        self.max_lost = max_lost
        self.command_timeout = command_timeout
        self.enable_timeout = enable_timeout
        self.state_timeout = state_timeout
        self.laws = [find_actuator(j.actuator) for j in self.joints]
        self.units: List[ErobUnits] = [j.units or ErobUnits() for j in self.joints]
        n = len(self.joints)
        self.kp = [float(kp)] * n
        self.goals = [0.0] * n
        self.enable = [False] * n
        self.cycles = 0
        self.counters = ErrorCounters()
        self.watchdog_trips = 0
        self.consecutive_lost = 0
        self.dc_active = False
        self.dc_fallback_reason = ""
        self.sync_modes: List[Optional[int]] = []  # 0x1C32:01 per slave after SAFE-OP (2 = DC SYNC0)
        self.clock: Clock = CycleClock(self) if mode == "stepped" else Clock()
        self._states: List[Optional[ErobState]] = [None] * n
        self._controlwords = [cia402.SHUTDOWN] * n
        self._last_command = 0.0
        self._master = None
        self._lock = threading.RLock()
        self._shield = InterruptShield()  # Ctrl-C / SIGTERM wait for the end of a frame exchange
        self._thread: Optional[threading.Thread] = None
        self._stop = threading.Event()
        self._error: Optional[BaseException] = None
        self._armed = False
        self.late_cycles = 0
        self.cycle_starts: Optional[List[float]] = None  # set to [] to record wall start times (benchmarks)
        self.cycle_ends: List[float] = []  # with cycle_starts: when each cycle's exchange finished

    # ------------------------------------------------------------------ properties
    @property
    def ids(self) -> List[int]:
        """Slave positions, 1-based (the record tools' servo ids)."""
        return list(range(1, len(self.joints) + 1))

    @property
    def master(self):
        if self._master is None:
            raise ErobError("the driver is not open")
        return self._master

    # ------------------------------------------------------------------ bring-up
    def open(self, attempts: int = 4) -> "ErobDriver":
        """Bring the line up; a failed bring-up (lost frames during configuration: SOEM's own
        retry windows are a few ms, and a link losing 1 % of its frames, or a loaded host running
        an emulator, misses one of them now and then) is tried again from INIT, ``attempts`` times
        in all (a wrong slave is not retried)."""
        import pysoem

        for attempt in range(attempts):
            master = pysoem.Master()
            try:
                master.open(self.iface)
            except ConnectionError as error:
                raise SetupError(f"cannot open EtherCAT interface {self.iface!r}: {error} (does it exist? "
                                 "raw sockets need root or CAP_NET_RAW)") from error
            self._master = master
            try:
                self._bring_up(pysoem)
                break
            except IdentityError:
                self._shutdown_master()
                raise
            except SetupError:
                self._shutdown_master()
                if attempt == attempts - 1:
                    raise
            except BaseException:
                self._shutdown_master()
                raise
        if self.mode == "realtime":
            self._thread = threading.Thread(target=self._run, name="erob-cycle", daemon=True)
            self._thread.start()
        return self

    def _bring_up(self, pysoem) -> None:
        m = self._master
        n = len(self.joints)
        self._states, self._controlwords = [None] * n, [cia402.SHUTDOWN] * n
        self.cycles, self.counters, self.consecutive_lost = 0, ErrorCounters(), 0
        self._armed = False  # fault checks start once the drives are enabled (bring-up resets faults)
        self.dc_fallback_reason = ""
        found = m.config_init()
        if found <= 0:
            raise SetupError(f"no EtherCAT slave answers on {self.iface!r} (config_init returned {found})")
        if found != len(self.joints):
            raise IdentityError(f"{found} slave(s) on {self.iface!r}, {len(self.joints)} joint(s) configured")
        for i, (slave, joint) in enumerate(zip(m.slaves, self.joints)):
            if slave.man != EROB_VENDOR or slave.id != joint.product:
                raise IdentityError(
                    f"slave {i + 1} ({slave.name!r}): vendor 0x{slave.man:08X} product 0x{slave.id:08X}, expected an eRob "
                    f"(vendor 0x{EROB_VENDOR:08X}, product 0x{joint.product:08X})")
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
        m.receive_processdata(self._timeout_us)
        m.state = OP
        m.write_state()
        deadline = time.monotonic() + self.state_timeout
        while m.read_state() != OP:
            if time.monotonic() > deadline:
                raise SetupError(f"OP not reached: {self._states_text()}")
            m.send_processdata()
            m.receive_processdata(self._timeout_us)
        for i, slave in enumerate(m.slaves):
            self._sdo(slave, i, 0x6060, 0, struct.pack("<b", cia402.MODE_CST))
        self._read_positions()
        self._enable_sequence()

    def _remap(self, i: int, slave, pysoem) -> None:
        """PDO remap by SDO in PRE-OP, rated current, cycle time."""
        for assign, pdo, words in ((0x1C12, 0x1600, RX_MAPPING), (0x1C13, 0x1A00, TX_MAPPING)):
            self._sdo(slave, i, assign, 0, b"\x00")
            self._sdo(slave, i, pdo, 0, b"\x00")
            for sub, word in enumerate(words, start=1):
                self._sdo(slave, i, pdo, sub, struct.pack("<I", word))
            self._sdo(slave, i, pdo, 0, bytes([len(words)]))
            self._sdo(slave, i, assign, 1, struct.pack("<H", pdo))
            self._sdo(slave, i, assign, 0, b"\x01")
        if self.joints[i].units is None:
            rated = int.from_bytes(self._sdo_read(slave, i, 0x6075, 0)[:4].ljust(4, b"\x00"), "little")
            self.units[i] = ErobUnits.from_drive(rated)
        try:
            slave.sdo_write(0x1C32, 2, struct.pack("<I", int(round(self.cycle_time * 1e9))))
        except pysoem.SdoError:
            pass  # read-only on some firmware: the drive then follows the frames (SM-synchronous)
        self._sdo(slave, i, 0x6060, 0, struct.pack("<b", cia402.MODE_CST))
        self._sdo(slave, i, 0x6072, 0, struct.pack("<H", self.units[i].permille(self.laws[i].max_current)))

    def _sdo(self, slave, i: int, index: int, sub: int, data: bytes) -> None:
        """SDO download, retried on lost frames (the writes are idempotent); an abort is final."""
        self._mailbox(i, f"SDO write 0x{index:04X}:{sub:02X} = {data.hex()}", lambda: slave.sdo_write(index, sub, data))

    def _sdo_read(self, slave, i: int, index: int, sub: int) -> bytes:
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
        m = self._master
        self.dc_active = False
        if self.use_dc and m.config_dc():  # True when the line has DC-capable slaves
            for slave in m.slaves:
                slave.dc_sync(True, int(round(self.cycle_time * 1e9)))
            self.dc_active = True
        if self._request(SAFEOP):
            return
        if not self.dc_active:
            raise SetupError(f"SAFE-OP not reached: {self._states_text()}")
        self.dc_fallback_reason = self._states_text()
        for slave in m.slaves:  # fallback without DC: acknowledge, SYNC0 off, retry
            slave.dc_sync(False, 0)
        m.state = PREOP | STATE_ACK
        m.write_state()
        self.dc_active = False
        if not self._request(SAFEOP):
            raise SetupError(f"SAFE-OP not reached with DC ({self.dc_fallback_reason}) nor without "
                             f"({self._states_text()})")

    @staticmethod
    def _sync_mode(slave) -> Optional[int]:
        """0x1C32:01 (0 free run, 1 SM-synchronous, 2 DC SYNC0), None where the drive lacks it."""
        try:
            return int.from_bytes(slave.sdo_read(0x1C32, 1)[:2], "little")
        except Exception:
            return None

    def _request(self, state: int) -> bool:
        m = self._master
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
        if self._master.state_check(state, int(self.state_timeout * 1e6)) != state:
            raise SetupError(f"{state_name(state)} not reached {when}: {self._states_text()}")

    def _states_text(self) -> str:
        m = self._master
        m.read_state()
        return "; ".join(
            f"slave {i + 1} {state_name(s.state)}" + (f" AL 0x{s.al_status:04X} ({AL_CODES.get(s.al_status, 'unknown')})"
                                                      if s.al_status else "")
            for i, s in enumerate(m.slaves))

    @property
    def _timeout_us(self) -> int:
        return max(1, int(self.receive_timeout * 1e6))

    def _read_positions(self) -> None:
        """A few exchanges to get the first sample; goals start at the present positions."""
        for _ in range(self.max_lost + 1):
            self._exchange()
            if all(s is not None for s in self._states):
                self.goals = [s.position for s in self._states]
                return
        raise SetupError("no valid process data after OP")

    def _enable_sequence(self) -> None:
        """Fault reset / shutdown / switch on / enable operation, checked on the statusword."""
        self.enable = [True] * len(self.joints)
        self._last_command = self.clock.now()
        for _ in range(4 * self.enable_timeout):
            states = [cia402.decode(s.statusword) for s in self._states]
            if all(s == cia402.State.OPERATION_ENABLED for s in states):
                self.enable = [False] * len(self.joints)  # torque off until the first command
                self._armed = True
                self._run_until_released()
                return
            self._exchange()
        raise SetupError("CiA 402 enable sequence timed out: " + ", ".join(
            f"{j.name} {cia402.decode(s.statusword).value} (statusword 0x{s.statusword:04X})"
            for j, s in zip(self.joints, self._states)))

    # ------------------------------------------------------------------ the cycle
    def cycle(self) -> None:
        """One process-data cycle (stepped mode; the realtime thread calls it too)."""
        with self._lock, self._shield:
            self._check_watchdog()
            self._exchange()

    def _exchange(self) -> None:
        m = self._master
        now = self.cycles * self.cycle_time if self.mode == "stepped" else self.clock.now()
        for i, slave in enumerate(m.slaves):
            slave.output = self._outputs(i)
        m.send_processdata()
        wkc = m.receive_processdata(self._timeout_us)
        self.cycles += 1
        self.counters.transactions += 1
        if wkc == m.expected_wkc:
            self.consecutive_lost = 0
            for i, slave in enumerate(m.slaves):
                self._states[i] = self._decode(i, bytes(slave.input), now)
            if self._armed:
                self._check_faults()
            return
        self.consecutive_lost += 1
        self.counters.failures += 1
        if wkc <= 0:
            self.counters.timeouts += 1
        else:
            self.counters.corrupt += 1
            self._check_al_states(wkc)
        if self.consecutive_lost > self.max_lost:
            self._emergency_release()
            raise LostFramesError(f"{self.consecutive_lost} consecutive cycles without valid process data "
                                  f"(working counter {wkc}, expected {m.expected_wkc}); torque released")

    def _outputs(self, i: int) -> bytes:
        state = self._states[i]
        drive = cia402.decode(state.statusword) if state is not None else cia402.State.SWITCH_ON_DISABLED
        target = cia402.State.OPERATION_ENABLED if self.enable[i] else cia402.State.SWITCHED_ON
        cw = cia402.next_command(drive, target)
        if cw == cia402.FAULT_RESET and not self.enable[i]:
            cw = cia402.DISABLE_VOLTAGE  # releasing: leave a fault latched for the user to read
        elif cw == cia402.FAULT_RESET and self._controlwords[i] & cia402.FAULT_RESET:
            cw = cia402.DISABLE_VOLTAGE  # a reset needs a rising edge
        self._controlwords[i] = cw
        permille = 0
        if self.enable[i] and state is not None and drive == cia402.State.OPERATION_ENABLED:
            amps = float(self.laws[i].control(self.goals[i], state.position, state.velocity, self.kp[i],
                                              NOMINAL_BUS_VOLTAGE))
            permille = self.units[i].permille(amps)
        return struct.pack("<HhbB", cw, permille, cia402.MODE_CST, 0)

    def _decode(self, i: int, data: bytes, now: float) -> ErobState:
        sw, pos, vel, torque = struct.unpack_from("<Hiih", data, 0)
        u = self.units[i]
        current = u.amps(torque)
        law = self.laws[i]
        return ErobState(u.rad(pos), u.rad(vel), current / law.max_current, current, NOMINAL_BUS_VOLTAGE,
                         math.nan, cia402.decode(sw) == cia402.State.OPERATION_ENABLED, now, sw, self.cycles)

    def _check_faults(self) -> None:
        faulted = [i for i, s in enumerate(self._states) if cia402.decode(s.statusword) in
                   (cia402.State.FAULT, cia402.State.FAULT_REACTION_ACTIVE)]
        if not faulted:
            return
        self._emergency_release()
        details = []
        for i in faulted:
            try:
                code = int.from_bytes(self.master.slaves[i].sdo_read(0x603F, 0)[:2], "little")
                details.append(f"{self.joints[i].name} (slave {i + 1}): drive fault, statusword "
                               f"0x{self._states[i].statusword:04X}, error code 0x{code:04X}")
            except Exception as error:  # the mailbox may be down too
                details.append(f"{self.joints[i].name} (slave {i + 1}): drive fault, error code unreadable ({error})")
        raise DriveFaultError("; ".join(details) + "; torque released")

    def _check_al_states(self, wkc: int) -> None:
        m = self._master
        m.read_state()
        left = [(i, s) for i, s in enumerate(m.slaves) if s.state != OP]
        if not left:
            return
        self._emergency_release()
        raise ALStatusError("; ".join(
            f"{self.joints[i].name} (slave {i + 1}) left OP: {state_name(s.state)}, AL status code "
            f"0x{s.al_status:04X} ({AL_CODES.get(s.al_status, 'unknown')})" for i, s in left)
            + f" (working counter {wkc}, expected {m.expected_wkc}); torque released")

    def _check_watchdog(self) -> None:
        if self.command_timeout is None or not any(self.enable):
            return
        if self.clock.now() - self._last_command > self.command_timeout:
            self.enable = [False] * len(self.joints)
            self.watchdog_trips += 1

    # ------------------------------------------------------------------ commands
    def set_kp(self, kp: Union[float, Mapping[int, float]]) -> None:
        """PD gain [A/rad] of the master-side law, per slave id or for all."""
        values = self._per_joint(kp, "kp")
        for i, value in values.items():
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"kp {value!r} for slave {i + 1}: must be a finite number >= 0")
        with self._lock:
            for i, value in values.items():
                self.kp[i] = float(value)

    def command(self, goals: Goals, torque_enable: Optional[Flags] = None) -> None:
        """Goal positions [rad] (and torque enable when given); limits checked before anything
        changes; resets the command watchdog."""
        self._raise_pending()
        targets = self._per_joint(goals, "goal")
        for i, goal in targets.items():
            j = self.joints[i]
            if not (math.isfinite(goal) and j.lower <= goal <= j.upper):
                raise ErobLimitError(f"{j.name} (slave {i + 1}): goal {goal!r} rad outside the joint limits "
                                     f"[{j.lower:.4f}, {j.upper:.4f}]; nothing sent")
        flags = self._per_joint(torque_enable, "torque_enable") if torque_enable is not None else {}
        with self._lock:
            for i, goal in targets.items():
                self.goals[i] = float(goal)
            for i, flag in flags.items():
                self.enable[i] = bool(flag)
            self._last_command = self.clock.now()

    def read(self) -> Dict[int, ErobState]:
        """The last valid sample of every drive, by slave id."""
        self._raise_pending()
        with self._lock:
            self._check_watchdog()
            return {i + 1: s for i, s in enumerate(self._states)}

    def release(self) -> None:
        """Torque off on every drive (disable operation: switched on, zero target torque),
        verified on the statuswords the drives report; :class:`ErobError` names a drive still in
        "operation enabled" after ``enable_timeout`` cycles."""
        with self._lock, self._shield:
            self.enable = [False] * len(self.joints)
            if self._master is None:
                return
            if self.mode == "stepped":
                self._run_until_released()
        if self.mode == "realtime":  # the cycle thread sends the release; wait for the drives to report it
            deadline = time.monotonic() + self.enable_timeout * self.cycle_time + self.receive_timeout
            while self._still_enabled() and self._thread is not None and time.monotonic() < deadline:
                time.sleep(self.cycle_time)
        still = self._still_enabled()
        if still:
            raise ErobError("torque release failed: " + ", ".join(still) + " still report operation enabled")

    def _still_enabled(self) -> List[str]:
        return [f"{j.name} (slave {i + 1})" for i, (j, s) in enumerate(zip(self.joints, self._states))
                if s is not None and s.torque_enabled]

    def _run_until_released(self) -> None:
        for _ in range(self.enable_timeout):
            if not self._still_enabled():
                return
            self._exchange()

    def _emergency_release(self) -> None:
        """Best-effort torque off while failing: a few frames with zero torque, no checks."""
        self.enable = [False] * len(self.joints)
        m = self._master
        try:
            for _ in range(3):
                for i, slave in enumerate(m.slaves):
                    slave.output = self._outputs(i)
                m.send_processdata()
                m.receive_processdata(self._timeout_us)
        except Exception:
            pass

    def set_bench(self, slave_id: int, mass: float, length: float, arm_mass: float = 0.0) -> None:
        """Change an *emulated* drive's pendulum (object 0x2F00, absent on real drives)."""
        slave = self.master.slaves[slave_id - 1]
        with self._lock:
            try:
                for sub, value in ((1, mass), (2, length), (3, arm_mass)):
                    slave.sdo_write(0x2F00, sub, struct.pack("<f", value))
            except Exception as error:
                raise ErobError(f"slave {slave_id}: cannot set the emulated bench (object 0x2F00): {error}; "
                                "only the emulator has it") from error

    def _per_joint(self, value, what: str) -> Dict[int, float]:
        if isinstance(value, Mapping):
            out = {}
            for key, v in value.items():
                if key not in self.ids:
                    raise ValueError(f"{what}: slave id {key} not driven (ids {self.ids})")
                out[key - 1] = v
            return out
        return {i: value for i in range(len(self.joints))}

    # ------------------------------------------------------------------ realtime thread
    def _run(self) -> None:
        period = self.cycle_time
        start = time.perf_counter()
        tick = 0
        try:
            while not self._stop.is_set():
                began = time.perf_counter()
                if self.cycle_starts is not None:
                    self.cycle_starts.append(began)
                self.cycle()
                if self.cycle_starts is not None:
                    self.cycle_ends.append(time.perf_counter())
                tick += 1
                target = start + tick * period
                now = time.perf_counter()
                if now > target:
                    self.late_cycles += 1
                    if now - target > period:  # a stall: resynchronise instead of bursting
                        tick += int((now - target) / period)
                        target = start + tick * period
                while True:
                    remaining = target - time.perf_counter()
                    if remaining <= 0:
                        break
                    time.sleep(remaining if remaining > 0.0005 else 0)
        except BaseException as error:  # handed to the next command/read
            self._error = error

    def _raise_pending(self) -> None:
        if self._error is not None:
            error, self._error = self._error, None
            raise error

    # ------------------------------------------------------------------ shutdown
    def close(self) -> None:
        """Torque off, slaves to INIT, interface closed."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self._thread = None
        if self._master is None:
            return
        try:
            with self._lock, self._shield:
                self.enable = [False] * len(self.joints)
                self._emergency_release()
                try:  # read back: the drives report torque off before the line goes to INIT
                    self._run_until_released()
                except ErobError:
                    pass  # the line itself failed: the drives disable themselves leaving OP
        finally:
            self._shutdown_master()

    def _shutdown_master(self) -> None:
        m, self._master = self._master, None
        if m is None:
            return
        try:
            m.state = INIT
            m.write_state()
        except Exception:
            pass
        m.close()

    def __enter__(self) -> "ErobDriver":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

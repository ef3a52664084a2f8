"""eRob (ZeroErr) actuators over EtherCAT with pysoem: CiA 402, cyclic synchronous torque (mode 10),
and the project's custom current PD law computed on the master every cycle.

Bring-up (identity, PDO remap, distributed clocks, OP) is :class:`~.master.ErobLine`; after it
the CiA 402 enable sequence (fault reset 0x0080 when in fault, shutdown 0x0006, switch on
0x0007, enable operation 0x000F) is played by the cyclic exchange with statusword checks, within
``enable_timeout`` cycles per transition.

Every cycle (the bytes: :mod:`.pdo`): target torque from the PD law (``actuator_models``' :class:`CurrentPD`) on the last
sample, one LRW, and the working counter is compared with pysoem's ``expected_wkc``. A wrong counter or
no frame is a lost cycle (counted: ``counters.timeouts`` no frame, ``counters.corrupt`` wrong
counter); after a wrong counter the AL states are read, and a slave that left OP ends the run
with :class:`ALStatusError` (AL status code named, e.g. 0x001A synchronization error).
``max_lost`` consecutive lost cycles end it with :class:`LostFramesError`; a statusword fault
bit with :class:`DriveFaultError` (0x603F read); no :meth:`ErobDriver.command` for
``command_timeout`` seconds releases the torque (``watchdog_trips``). Torque is released on all
of these, on :meth:`ErobDriver.release` and on :meth:`ErobDriver.close`. Goals outside the joint
limits raise :class:`ErobLimitError` before anything is sent.

Pacing (:mod:`.pacing`):

* :class:`Stepped`: the process-data exchange is the clock (cycles x cycle time; sleeping runs the
  cycles back to back): with the emulator a recording does not depend on the host's scheduling.
* :class:`Realtime`: a thread runs the cycles at the cycle time on the wall clock (hardware).
"""

from __future__ import annotations

import math
import threading
from dataclasses import replace
from typing import Dict, List, Mapping, Optional, Sequence, Union

from actuator_models.bench import WallClock

from actuator_drivers.common import AL_CODES, OP, ErrorCounters, state_name
from actuator_drivers.erob import cia402, pdo
from actuator_drivers.erob.errors import (ALStatusError, DriveFaultError, ErobError, ErobLimitError, IdentityError,
                                          InterfaceError, LostFramesError, SetupError)
from actuator_drivers.erob.joint import ErobJoint, ErobState
from actuator_drivers.erob.master import ErobLine, LineTiming
from actuator_drivers.erob.pacing import Pacing, Stepped
from actuator_drivers.erob.soem import SoemMaster
from actuator_drivers.erob.units import ErobUnits
from actuator_drivers.safe_stop import InterruptShield

NOMINAL_BUS_VOLTAGE = 48.0  # V, not measured: no bus-voltage object is documented for eRob


Goals = Union[float, Mapping[int, float]]
Flags = Union[bool, Mapping[int, bool]]


class ErobDriver:
    """A chain of eRob drives on one EtherCAT interface (see the module docstring).

    Args:
        iface: network interface of the EtherCAT segment.
        joints: one :class:`ErobJoint` per slave, in line order.
        timing: :class:`~.master.LineTiming`: process-data period ``cycle_time`` [s] (1 ms =
            1 kHz), ``dc`` use distributed clocks when the slaves offer them (with the fallback
            above), ``receive_timeout`` how long one cycle waits for its frame [s],
            ``state_timeout`` seconds allowed for each AL state change.
        pacing: :class:`~.pacing.Stepped` (default) or :class:`~.pacing.Realtime`.
        max_lost: consecutive lost cycles tolerated.
        command_timeout: seconds of bench time without :meth:`command` before the torque is
            released; None disables it.
        enable_timeout: cycles allowed for each CiA 402 transition.
        kp: initial proportional gain of each joint's PD law.
    """

    def __init__(self, iface: str, joints: Sequence[ErobJoint] = (ErobJoint(),), *,
                 timing: LineTiming = LineTiming(), pacing: Optional[Pacing] = None, max_lost: int = 20,
                 command_timeout: Optional[float] = 0.5, enable_timeout: int = 500, kp: float = 10.0) -> None:
        if not joints:
            raise ValueError("at least one joint is needed")
        if not timing.cycle_time > 0:
            raise ValueError(f"cycle_time {timing.cycle_time!r} s: must be positive")
        self.iface = iface
        self.joints = list(joints)
        self.cycle_time = float(timing.cycle_time)
        self.pacing: Pacing = pacing if pacing is not None else Stepped()
        self.receive_timeout = timing.receive_timeout
        self.max_lost = max_lost
        self.command_timeout = command_timeout
        self.enable_timeout = enable_timeout
        self.state_timeout = timing.state_timeout
        self.laws = [j.law() for j in self.joints]
        self.units: List[ErobUnits] = [j.units or ErobUnits() for j in self.joints]
        n = len(self.joints)
        self.kp = [float(kp)] * n
        self.goals = [0.0] * n
        self.enable = [False] * n
        self.cycles = 0
        self.counters = ErrorCounters()
        self.watchdog_trips = 0
        self.consecutive_lost = 0
        self.line = ErobLine(iface, [j.product for j in self.joints], self.units, [j.units is None for j in self.joints],
                             [law.max_current for law in self.laws], replace(timing, cycle_time=self.cycle_time))
        self.clock: WallClock = self.pacing.clock(self)
        self._states: List[Optional[ErobState]] = [None] * n
        self._controlwords = [cia402.SHUTDOWN] * n
        self._last_command = 0.0
        self._lock = threading.RLock()
        self._shield = InterruptShield()  # Ctrl-C / SIGTERM wait for the end of a frame exchange
        self._armed = False

    # ------------------------------------------------------------------ properties
    @property
    def ids(self) -> List[int]:
        """Slave positions, 1-based (the record tools' servo ids)."""
        return list(range(1, len(self.joints) + 1))

    @property
    def master(self) -> SoemMaster:
        """The pysoem master of the open line."""
        if self.line.master is None:
            raise ErobError("the driver is not open")
        return self.line.master

    @property
    def dc_active(self) -> bool:
        """Distributed clocks (SYNC0) in use (False: the fallback without DC, or ``dc=False``)."""
        return self.line.dc_active

    @property
    def dc_fallback_reason(self) -> str:
        return self.line.dc_fallback_reason

    @property
    def sync_modes(self) -> List[Optional[int]]:
        return self.line.sync_modes

    # ------------------------------------------------------------------ bring-up
    def open(self, attempts: int = 4) -> "ErobDriver":
        """Bring the line up; a failed bring-up (lost frames during configuration: SOEM's own
        retry windows are a few ms, and a link losing 1 % of its frames, or a loaded host running
        an emulator, misses one of them now and then) is tried again from INIT, ``attempts`` times
        in all (a wrong slave is not retried)."""
        for attempt in range(attempts):
            n = len(self.joints)
            self._states, self._controlwords = [None] * n, [cia402.SHUTDOWN] * n
            self.cycles, self.counters, self.consecutive_lost = 0, ErrorCounters(), 0
            self._armed = False  # fault checks start once the drives are enabled (bring-up resets faults)
            try:
                self.line.connect()
                self._read_positions()
                self._enable_sequence()
                break
            except (IdentityError, InterfaceError):
                self.line.shutdown()
                raise
            except SetupError:
                self.line.shutdown()
                if attempt == attempts - 1:
                    raise
            except BaseException:
                self.line.shutdown()
                raise
        self.pacing.start(self)
        return self

    def _read_positions(self) -> None:
        """A few exchanges to get the first sample; goals start at the present positions."""
        for _ in range(self.max_lost + 1):
            self._exchange()
            states = [s for s in self._states if s is not None]
            if len(states) == len(self._states):
                self.goals = [s.position for s in states]
                return
        raise SetupError("no valid process data after OP")

    def _enable_sequence(self) -> None:
        """Fault reset / shutdown / switch on / enable operation, checked on the statusword."""
        self.enable = [True] * len(self.joints)
        self._last_command = self.clock.now()
        for _ in range(4 * self.enable_timeout):
            states = [cia402.decode(s.statusword) for s in self._sampled()]
            if all(s == cia402.State.OPERATION_ENABLED for s in states):
                self.enable = [False] * len(self.joints)  # torque off until the first command
                self._armed = True
                self.run_until_released()
                return
            self._exchange()
        raise SetupError("CiA 402 enable sequence timed out: " + ", ".join(
            f"{j.name} {cia402.decode(s.statusword).value} (statusword 0x{s.statusword:04X})"
            for j, s in zip(self.joints, self._sampled())))

    # ------------------------------------------------------------------ the cycle
    def cycle(self) -> None:
        """One process-data cycle (the pacing runs it: stepped sleeps, the realtime thread)."""
        with self._lock, self._shield:
            self._check_watchdog()
            self._exchange()

    def _exchange(self) -> None:
        m = self.master
        now = self.clock.now()
        for i, slave in enumerate(m.slaves):
            slave.output = self._outputs(i)
        m.send_processdata()
        wkc = m.receive_processdata(self.line.timeout_us)
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
        cw = self._controlwords[i] = cia402.controlword(drive, self.enable[i], self._controlwords[i])
        permille = 0
        if self.enable[i] and state is not None and drive == cia402.State.OPERATION_ENABLED:
            amps = float(self.laws[i].control(self.goals[i], state.position, state.velocity, self.kp[i],
                                              NOMINAL_BUS_VOLTAGE))
            permille = self.units[i].permille(amps)
        return pdo.pack_outputs(cw, permille)

    def _decode(self, i: int, data: bytes, now: float) -> ErobState:
        raw, u = pdo.unpack_inputs(data), self.units[i]
        current = u.amps(raw.torque)
        return ErobState(u.rad(raw.position), u.rad(raw.velocity), current / self.laws[i].max_current, current,
                         NOMINAL_BUS_VOLTAGE, math.nan, cia402.decode(raw.statusword) == cia402.State.OPERATION_ENABLED,
                         now, raw.statusword, self.cycles)

    def _check_faults(self) -> None:
        states = self._sampled()
        faulted = [i for i, s in enumerate(states) if cia402.decode(s.statusword) in
                   (cia402.State.FAULT, cia402.State.FAULT_REACTION_ACTIVE)]
        if not faulted:
            return
        self._emergency_release()
        details = []
        for i in faulted:
            try:
                code = int.from_bytes(self.master.slaves[i].sdo_read(0x603F, 0)[:2], "little")
                details.append(f"{self.joints[i].name} (slave {i + 1}): drive fault, statusword "
                               f"0x{states[i].statusword:04X}, error code 0x{code:04X}")
            except Exception as error:  # the mailbox may be down too
                details.append(f"{self.joints[i].name} (slave {i + 1}): drive fault, error code unreadable ({error})")
        raise DriveFaultError("; ".join(details) + "; torque released")

    def _check_al_states(self, wkc: int) -> None:
        m = self.master
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
        self.pacing.raise_pending()
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
        self.pacing.raise_pending()
        with self._lock:
            self._check_watchdog()
            return {i + 1: s for i, s in enumerate(self._sampled())}

    def _sampled(self) -> List[ErobState]:
        """The last valid sample of every drive (:class:`ErobError` before the first: not open)."""
        states = [s for s in self._states if s is not None]
        if len(states) != len(self._states):
            raise ErobError("no process data yet: the driver is not open")
        return states

    def release(self) -> None:
        """Torque off on every drive (disable operation: switched on, zero target torque),
        verified on the statuswords the drives report; :class:`ErobError` names a drive still in
        "operation enabled" after ``enable_timeout`` cycles."""
        with self._lock, self._shield:
            self.enable = [False] * len(self.joints)
            if self.line.master is None:
                return
        self.pacing.settle_release(self)
        still = self.still_enabled()
        if still:
            raise ErobError("torque release failed: " + ", ".join(still) + " still report operation enabled")

    def still_enabled(self) -> List[str]:
        """The drives reporting "operation enabled" in their last statusword."""
        return [f"{j.name} (slave {i + 1})" for i, (j, s) in enumerate(zip(self.joints, self._states))
                if s is not None and s.torque_enabled]

    def run_until_released(self) -> None:
        """Run cycles until no drive reports torque on (at most ``enable_timeout``)."""
        with self._lock, self._shield:
            for _ in range(self.enable_timeout):
                if not self.still_enabled():
                    return
                self._exchange()

    def _emergency_release(self) -> None:
        """Best-effort torque off while failing: a few frames with zero torque, no checks."""
        self.enable = [False] * len(self.joints)
        m = self.master
        try:
            for _ in range(3):
                for i, slave in enumerate(m.slaves):
                    slave.output = self._outputs(i)
                m.send_processdata()
                m.receive_processdata(self.line.timeout_us)
        except Exception:
            pass

    def sdo_write(self, slave_id: int, index: int, sub: int, data: bytes) -> None:
        """One SDO download to slave ``slave_id`` (1-based) between cycles; ErobError if refused."""
        with self._lock:
            try:
                self.master.slaves[slave_id - 1].sdo_write(index, sub, data)
            except Exception as error:
                raise ErobError(f"slave {slave_id}: SDO write 0x{index:04X}:{sub:02X} failed: {error}") from error

    def _per_joint(self, value, what: str) -> Dict[int, float]:
        if isinstance(value, Mapping):
            out = {}
            for key, v in value.items():
                if key not in self.ids:
                    raise ValueError(f"{what}: slave id {key} not driven (ids {self.ids})")
                out[key - 1] = v
            return out
        return {i: value for i in range(len(self.joints))}

    # ------------------------------------------------------------------ shutdown
    def close(self) -> None:
        """Torque off, slaves to INIT, interface closed."""
        self.pacing.stop()
        if self.line.master is None:
            return
        try:
            with self._lock, self._shield:
                self.enable = [False] * len(self.joints)
                self._emergency_release()
                try:  # read back: the drives report torque off before the line goes to INIT
                    self.run_until_released()
                except ErobError:
                    pass  # the line itself failed: the drives disable themselves leaving OP
        finally:
            self.line.shutdown()

    def __enter__(self) -> "ErobDriver":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

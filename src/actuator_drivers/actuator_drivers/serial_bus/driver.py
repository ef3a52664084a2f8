"""The driver core of every serial-bus family (ROS-free): one bus of servos, SI units, joint
limits, command watchdog, safe torque release.

:class:`SerialBusDriver` opens the bus, runs the family's setup on every servo (ping and model
number check, torque off, the plain P position law the servo models assume) and each control
cycle sends goals with :meth:`~SerialBusDriver.command` (one SYNC WRITE; torque enable written
when it changes) and reads every servo with :meth:`~SerialBusDriver.read` (one block read),
decoded by the family into SI units: rad (2048 counts = 0 rad, counter-clockwise positive),
rad/s, V, A, degC. A family (``dynamixel.driver``, ...) supplies its control tables
(:meth:`~SerialBusDriver._table`), its bus (:meth:`~SerialBusDriver._bus`), the registers its setup
zeroes and its position mode, :meth:`~SerialBusDriver._decode` and its errors.

Safety:

* goals are checked against each servo's joint limits (the configured ones intersected with the
  servo's own position limits) before anything is sent: the family's limit error, nothing sent;
* torque is released on :meth:`~SerialBusDriver.close` (also from ``with`` and at interpreter
  exit), on any communication or hardware fault, and by a watchdog when no command came for
  ``command_timeout`` seconds of wall-clock time (checked every read, before every command and
  by a background thread; wall time, so that an emulator running faster than real time gets the
  same tolerance to a stalled host as hardware); each release is read back (Torque Enable). With
  a lockstep emulator (:class:`~actuator_drivers.common.LockstepClock`) the watchdog counts bench
  time and has no thread: bench time only passes when the control loop lets it;
* Ctrl-C or SIGTERM inside a transaction waits for its end (the bus's
  :class:`~actuator_drivers.safe_stop.InterruptShield`).
"""

from __future__ import annotations

import atexit
import logging
import threading
from typing import Callable, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union

from actuator_models.bench import WallClock, goal_problem
from actuator_drivers.common import DriverError, ErrorCounters, LimitError, LockstepClock
from actuator_drivers.serial_bus.bus import SerialBus
from actuator_drivers.serial_bus.servo import Flags, Goals, ServoConfig, ServoState
from actuator_drivers.serial_bus.tables import ControlTable

LOG = logging.getLogger(__name__)
V = TypeVar("V")  # a per-servo value (goal, flag, gain)
R = TypeVar("R")  # what a guarded bus action returns


class SerialBusDriver:
    """Driver of the servos on one serial bus (a family subclasses, see the module docstring).

    Args:
        port: serial device or emulator pty.
        servos: the servos; a single :class:`ServoConfig` is accepted.
        protocol: the family's protocol (Dynamixel 1 or 2; a family with one protocol ignores it).
        baudrate: bits/s (pty: any accepted value).
        retries: extra attempts per transaction after a timeout/corrupt packet.
        command_timeout: watchdog [s of wall-clock time]; None disables it.
        latency_ms: USB latency timer used in receive timeouts [ms].
        clock: bench clock of the timestamps; wall clock by default (a lockstep emulator's clock
            for an in-process emulator clocked by this driver's cycle).
    """

    #: the family's errors: base class of its bus faults, goal outside limits, failed release,
    #: wrong model number
    faults: ClassVar[Type[DriverError]]
    limit_error: ClassVar[Type[LimitError]]
    release_error: ClassVar[Type[DriverError]]
    mismatch_error: ClassVar[Type[DriverError]]
    #: registers zeroed at setup so that the firmware runs the plain P law (a family whose list
    #: depends on the protocol sets it per driver)
    PLAIN_P: Tuple[str, ...] = ()

    def __init__(
        self,
        port: str,
        servos: Union[ServoConfig, Sequence[ServoConfig]],
        protocol: int,
        baudrate: int,
        retries: int = 3,
        command_timeout: Optional[float] = 0.5,
        latency_ms: float = 16.0,
        clock: Union[WallClock, LockstepClock, None] = None,
    ) -> None:
        configs = [servos] if isinstance(servos, ServoConfig) else list(servos)
        if not configs:
            raise ValueError("servos: at least one servo is needed")
        ids = [c.servo_id for c in configs]
        if len(set(ids)) != len(ids):
            raise ValueError(f"servos: IDs must be distinct, got {ids}")
        if command_timeout is not None and not command_timeout > 0:
            raise ValueError(f"command_timeout {command_timeout!r}: must be positive seconds or None")
        self.configs: Dict[int, ServoConfig] = {c.servo_id: c for c in configs}
        self.tables: Dict[int, ControlTable] = {c.servo_id: self._table(c.actuator, protocol) for c in configs}
        self.clock = clock or WallClock()
        self.bus = self._bus(port, protocol, baudrate, retries, latency_ms)
        self.protocol = protocol
        self.command_timeout = command_timeout
        self.limits: Dict[int, tuple] = {c.servo_id: (c.min_position, c.max_position) for c in configs}
        self.torque: Dict[int, bool] = {i: False for i in ids}
        self.watchdog_trips = 0
        self._last_command = self.clock.watchdog_time()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._watchdog: Optional[threading.Thread] = None
        self._block = self._state_block()
        self.bus.answer_sizes.add(self._block[1])  # no resynchronising READ answers like a block read

    @classmethod
    def on_bus(cls, port: str, servos: Union[ServoConfig, Sequence[ServoConfig]], protocol: int, baudrate: int,
               retries: int = 3, command_timeout: Optional[float] = 0.5, latency_ms: float = 16.0,
               clock: Union[WallClock, LockstepClock, None] = None) -> "SerialBusDriver":
        """The (unopened) driver, one signature for every family (``protocol`` is ignored by a
        family with one protocol)."""
        return cls(port, servos, protocol, baudrate, retries, command_timeout, latency_ms, clock)

    def _table(self, actuator: str, protocol: int) -> ControlTable:
        """The family's control table of ``actuator``."""
        raise NotImplementedError

    def _bus(self, port: str, protocol: int, baudrate: int, retries: int, latency_ms: float) -> SerialBus:
        """The family's (unopened) bus, with ``self.clock``."""
        raise NotImplementedError

    def _table_for_model_number(self, model_number: int) -> Optional[ControlTable]:
        """The family's table of a model number (None if unknown), for the mismatch message."""
        raise NotImplementedError

    def _position_mode(self, servo_id: int) -> Optional[Tuple[str, int]]:
        """``(register, value)`` of the position operating mode setup ensures (None: no such register)."""
        return None

    def _check_limit_mode(self, servo_id: int, low_raw: int, high_raw: int) -> None:
        """Refuse position limits that select a mode other than joint mode (family rule)."""

    def _decode(self, servo_id: int, data: bytes, now: float) -> ServoState:
        """One servo's block-read bytes -> :class:`ServoState` (the family's registers)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ lifecycle
    @property
    def ids(self) -> List[int]:
        return list(self.configs)

    @property
    def counters(self) -> ErrorCounters:
        """Communication error counters (cumulative)."""
        return self.bus.counters

    def open(self) -> "SerialBusDriver":
        """Open the port, check every servo, release torque and configure the P law."""
        self.bus.open()
        atexit.register(self.close)
        try:
            with self._lock, self.bus.shield:
                for servo_id in self.ids:
                    self._setup(servo_id)
        except BaseException:
            self.bus.close()  # setup turns torque off first; a mismatched device is left untouched
            atexit.unregister(self.close)
            raise
        self._last_command = self.clock.watchdog_time()
        if self.command_timeout is not None and not self.clock.lockstep:
            self._stop.clear()
            self._watchdog = threading.Thread(target=self._watch, args=(self.command_timeout / 4,),
                                              name=f"{type(self).__name__}-watchdog", daemon=True)
            self._watchdog.start()
        return self

    def close(self) -> None:
        """Release torque (best effort) and close the port. Safe to call twice."""
        self._stop.set()
        if self._watchdog is not None and self._watchdog is not threading.current_thread():
            self._watchdog.join(timeout=2.0)
        self._watchdog = None
        if self.bus.is_open:
            with self._lock, self.bus.shield:
                self._release_all()
                self.bus.close()
        atexit.unregister(self.close)

    def __enter__(self) -> "SerialBusDriver":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def _setup(self, servo_id: int) -> None:
        """Check the model number, torque off, position mode, plain P law, joint limits."""
        table = self.tables[servo_id]
        model = self.bus.ping(servo_id)
        if model != table.model_number:
            found = self._table_for_model_number(model)
            raise self.mismatch_error(f"servo {servo_id}: model number {model}{f' ({found.title})' if found else ''} "
                                      f"does not match the configured {table.title} "
                                      f"(model number {table.model_number}{self._protocol_note()})")
        self._write(servo_id, "torque_enable", 0)
        self.torque[servo_id] = False
        mode = self._position_mode(servo_id)
        if mode is not None and self._read(servo_id, mode[0]) != mode[1]:
            self._write(servo_id, *mode)
        for name in self.PLAIN_P:
            self._write(servo_id, name, 0)
        self._intersect_limits(servo_id)

    def _protocol_note(self) -> str:
        """What the model-number mismatch message adds about the protocol (family rule)."""
        return ""

    def _intersect_limits(self, servo_id: int) -> None:
        """Joint limits = configured limits within the servo's own position limits (joint mode).
        Limits that leave no range (high <= low) are read once more (a transient bus fault must
        not make the bench useless); if they still do, the family's limit error names the servo,
        the registers and the values."""
        raws = self._limit_registers(servo_id)
        limits = self._within_servo_limits(servo_id, *raws)
        if limits[1] <= limits[0]:
            raws = self._limit_registers(servo_id)
            limits = self._within_servo_limits(servo_id, *raws)
        if limits[1] <= limits[0]:
            table, config = self.tables[servo_id], self.configs[servo_id]
            raise self.limit_error(
                f"servo {servo_id} ({config.joint}): no joint range: {table.min_limit} = {raws[0]} and "
                f"{table.max_limit} = {raws[1]} counts (read twice) with the configured limits "
                f"[{config.min_position:.4f}, {config.max_position:.4f}] rad give [{limits[0]:.4f}, {limits[1]:.4f}] rad; "
                "set the servo's limits (or the configured ones) so that low < high")
        self.limits[servo_id] = limits

    def _limit_registers(self, servo_id: int) -> Tuple[int, int]:
        """The servo's two position limit registers [counts] (its joint mode checked)."""
        table = self.tables[servo_id]
        low_raw, high_raw = self._read(servo_id, table.min_limit), self._read(servo_id, table.max_limit)
        self._check_limit_mode(servo_id, low_raw, high_raw)
        return low_raw, high_raw

    def _within_servo_limits(self, servo_id: int, low_raw: int, high_raw: int) -> Tuple[float, float]:
        """The configured limits within the servo's limit registers ``low_raw``, ``high_raw`` [rad]."""
        table, config = self.tables[servo_id], self.configs[servo_id]
        low, high = table[table.min_limit].to_si(low_raw), table[table.max_limit].to_si(high_raw)
        return max(config.min_position, low), min(config.max_position, high)

    # ------------------------------------------------------------------ commands
    def set_kp(self, kp: Union[float, Mapping[int, float]]) -> None:
        """Firmware position P gain in the core library's units (MX: P1 'P Gain' value; XL330:
        'Position P Gain' value); one value for every servo or ``{id: kp}``."""
        gains = self._per_servo(kp, "kp")
        raws = {i: self.tables[i].kp_to_raw(float(k)) for i, k in gains.items()}

        def write() -> None:
            for i, raw in raws.items():
                self._write(i, self.tables[i].gain_register, raw)

        with self._lock, self.bus.shield:
            self._guarded(write)

    def command(self, goals: Goals, torque_enable: Optional[Flags] = None) -> None:
        """Send goal positions [rad] (and torque enable when given); resets the watchdog.

        Every goal is checked against its joint limits first; if one is outside, nothing is sent
        and :class:`JointLimitError` names the servo, the goal and the limits.
        """
        targets = self._per_servo(goals, "goals")
        raws = {}
        for servo_id, value in targets.items():
            try:
                goal = float(value)
            except (TypeError, ValueError):
                raise ValueError(f"servo {servo_id}: goal {value!r} is not a number of radians") from None
            problem = goal_problem(goal, *self.limits[servo_id])
            if problem:
                raise self.limit_error(f"servo {servo_id} ({self.configs[servo_id].joint}): {problem}")
            raws[servo_id] = self.tables[servo_id]["goal_position"].from_si(goal)
        enable = self._per_servo(torque_enable, "torque_enable") if torque_enable is not None else {}

        def send() -> None:
            off = [i for i, on in enable.items() if not on and self.torque[i]]
            on = [i for i, flag in enable.items() if flag and not self.torque[i]]
            self._set_torque(off, False)
            if raws:
                goal = self.tables[next(iter(raws))]["goal_position"]
                self.bus.sync_write(goal.address, goal.size, raws)
            self._set_torque(on, True)

        with self._lock, self.bus.shield:
            self._check_watchdog()  # a command after the timeout finds the torque released, whoever checks first
            self._last_command = self.clock.watchdog_time()
            self._guarded(send)

    def release(self) -> None:
        """Torque off on every servo, each one read back; :class:`ReleaseError` names the servos
        that still report torque on (or could not be reached) after the bus's retries."""
        with self._lock, self.bus.shield:
            failed = self._release_all()
        if failed:
            raise self.release_error("torque release failed: " + "; ".join(failed))

    def read(self) -> Dict[int, ServoState]:
        """One synchronised read of every servo (checks the watchdog first)."""
        with self._lock, self.bus.shield:
            self._check_watchdog()
            return self._guarded(self._read_states)

    # ------------------------------------------------------------------ internals
    def _per_servo(self, value: Union[V, Mapping[int, V]], what: str) -> Dict[int, V]:
        """``{id: value}`` of one value for every servo or of ``{id: value}`` (unknown IDs refused)."""
        if isinstance(value, Mapping):
            unknown = set(value) - set(self.configs)
            if unknown:
                raise ValueError(f"{what}: unknown servo ID(s) {sorted(unknown)}; configured: {self.ids}")
            return dict(value)
        return {i: value for i in self.ids}

    def _guarded(self, action: Callable[[], R]) -> R:
        """Run a bus action; on any fault of the family release torque everywhere, then re-raise."""
        try:
            return action()
        except self.faults:
            self._release_all()
            raise

    def _release_all(self) -> List[str]:
        """Torque off on every servo, verified by reading Torque Enable back, with the bus's
        retries (a lost packet must not leave a servo powered); first the port is made usable
        again (a transaction cut short leaves it marked busy). A servo that still fails is
        logged and the others are released; returns what failed, one line per servo."""
        failed = []
        if self.bus.is_open:
            self.bus.port.recover()
        for servo_id in self.ids:
            try:
                self._release_verified(servo_id)
            except self.faults as error:
                LOG.warning("servo %d: torque release failed: %s", servo_id, error)
                failed.append(str(error))
            self.torque[servo_id] = False
        return failed

    def _release_verified(self, servo_id: int, attempts: int = 3) -> None:
        """Torque off, then Torque Enable read back; up to ``attempts`` writes."""
        reg = self.tables[servo_id]["torque_enable"]
        for _ in range(attempts):
            self.bus.write(servo_id, reg.address, reg.size, 0, "torque off", hardware_ok=True)
            if self.bus.read(servo_id, reg.address, reg.size, "read back torque_enable", hardware_ok=True) == 0:
                return
        raise self.release_error(f"servo {servo_id}: Torque Enable still reads 1 after {attempts} torque-off writes")

    def _set_torque(self, servo_ids: Sequence[int], on: bool) -> None:
        for servo_id in servo_ids:
            self._write(servo_id, "torque_enable", int(on))
            self.torque[servo_id] = on

    def _write(self, servo_id: int, name: str, raw: int) -> None:
        reg = self.tables[servo_id][name]
        self.bus.write(servo_id, reg.address, reg.size, raw, f"write {name}")

    def _read(self, servo_id: int, name: str) -> int:
        reg = self.tables[servo_id][name]
        return self.bus.read(servo_id, reg.address, reg.size, f"read {name}")

    def _state_block(self) -> tuple:
        blocks = {t.state_block for t in self.tables.values()}
        if len(blocks) != 1:
            raise ValueError(f"servos with different state blocks {sorted(blocks)} cannot share one bus")
        return blocks.pop()

    def _read_states(self) -> Dict[int, ServoState]:
        start, length = self._block
        now = self.clock.now()  # the servos sample when the instruction arrives
        blocks = self.bus.read_block(self.ids, start, length)
        return {servo_id: self._decode(servo_id, data, now) for servo_id, data in blocks.items()}

    def _field(self, servo_id: int, data: bytes, name: str) -> float:
        """Register ``name`` of a block read's bytes in SI units (little-endian words)."""
        reg = self.tables[servo_id][name]
        start = self._block[0]
        return reg.to_si(int.from_bytes(data[reg.address - start : reg.end - start], "little"))

    def _check_watchdog(self) -> None:
        """Release torque if torque is on and no command came for ``command_timeout``."""
        if self.command_timeout is None or not any(self.torque.values()):
            return
        idle = self.clock.watchdog_time() - self._last_command
        if idle > self.command_timeout:
            LOG.warning("no command for %.3f s (timeout %.3f s): releasing torque", idle, self.command_timeout)
            self._release_all()
            self.watchdog_trips += 1  # after the release: whoever sees the count sees the torque off

    def _watch(self, period: float) -> None:
        """The watchdog thread: check every ``period`` [s] of wall time."""
        while not self._stop.wait(period):
            if self._lock.acquire(timeout=period):
                try:
                    if self.bus.is_open:
                        self._check_watchdog()
                finally:
                    self._lock.release()

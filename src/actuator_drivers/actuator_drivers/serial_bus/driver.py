"""Dynamixel driver (ROS-free): MX-64 / MX-106 (Protocol 1.0 or 2.0 firmware) and XL330 (Protocol 2.0).

:class:`DynamixelDriver` opens the bus, pings every servo and checks its model number, turns
the torque off and puts the firmware in the plain P position law the servo models assume (D and
I gains 0, no profile, position mode). Each control cycle the caller sends goals with
:meth:`command` (one SYNC WRITE; torque enable written when it changes) and reads every servo
with :meth:`read` (one block read of position, velocity, load/PWM, current, input voltage and
temperature), in SI units: rad (2048 counts = 0 rad, counter-clockwise positive), rad/s, V, A,
degC.

Safety:

* goals are checked against each servo's joint limits (the configured ones intersected with the
  servo's own position limits) before anything is sent: :class:`JointLimitError`, nothing sent;
* torque is released on :meth:`close` (also from ``with`` and at interpreter exit), on any
  communication or hardware fault, and by a watchdog when no :meth:`command` came for
  ``command_timeout`` seconds of wall-clock time (checked every :meth:`read`, before every
  :meth:`command` and by a background thread; wall time, so that an emulator running faster
  than real time gets the same tolerance to a stalled host as hardware). With a lockstep
  emulator (:class:`~actuator_drivers.common.LockstepClock`) the watchdog counts bench time and has no thread:
  bench time only passes when the control loop lets it.
"""

from __future__ import annotations

import atexit
import logging
import math
import threading
from dataclasses import dataclass
from typing import Dict, List, Mapping, Optional, Sequence, Union

from actuator_models.bench import WallClock
from actuator_drivers.common import LockstepClock
from actuator_drivers.dynamixel.bus import DynamixelBus, ErrorCounters
from actuator_drivers.dynamixel.errors import DynamixelError, JointLimitError, ModelMismatchError, ReleaseError
from actuator_drivers.dynamixel.tables import ControlTable, control_table, table_for_model_number

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServoConfig:
    """One servo on the bus.

    Attributes:
        servo_id: Dynamixel ID. actuator: ``mx64``, ``mx106`` or ``xl330``.
        min_position, max_position: joint limits [rad]; goals outside are refused.
        name: joint name (default ``joint<ID>``).
    """

    servo_id: int
    actuator: str
    min_position: float = -2.8
    max_position: float = 2.8
    name: str = ""

    def __post_init__(self) -> None:
        if not 0 <= self.servo_id <= 252:
            raise ValueError(f"servo_id {self.servo_id!r}: must be 0..252")
        if not (math.isfinite(self.min_position) and math.isfinite(self.max_position)
                and self.min_position < self.max_position):
            raise ValueError(f"servo {self.servo_id}: joint limits [{self.min_position}, {self.max_position}] rad "
                             "must be finite with min < max")

    @property
    def joint(self) -> str:
        return self.name or f"joint{self.servo_id}"


@dataclass(frozen=True)
class ServoState:
    """One servo's reading of one cycle (SI units).

    Attributes:
        position [rad], velocity [rad/s]; load: signed drive output as a fraction of full scale
        (Protocol 1.0 Present Load / 1023, Protocol 2.0 Present PWM / 885); current [A] (Protocol
        2.0 Present Current; None on Protocol 1.0); input_voltage [V]; temperature [degC];
        torque_enabled: as last commanded by this driver; time: bench time [s] at which the read
        instruction was sent (when the servo samples).
    """

    position: float
    velocity: float
    load: float
    current: Optional[float]
    input_voltage: float
    temperature: float
    torque_enabled: bool
    time: float

    @property
    def control(self) -> float:
        """Voltage the firmware applies [V]: ``load * input_voltage`` (exact for PWM, estimated on P1)."""
        return self.load * self.input_voltage


Goals = Union[float, Mapping[int, float]]
Flags = Union[bool, Mapping[int, bool]]


class DynamixelDriver:
    """Driver of the servos on one Dynamixel bus.

    Args:
        port: serial device or emulator pty.
        servos: the servos (all of one protocol); a single :class:`ServoConfig` is accepted.
        protocol: 1 (MX Protocol 1.0 firmware) or 2.
        baudrate: bits/s (pty: any accepted value).
        retries: extra attempts per transaction after a timeout/corrupt packet.
        command_timeout: watchdog [s of wall-clock time]; None disables it.
        latency_ms: USB latency timer used in receive timeouts [ms].
        clock: bench clock of the timestamps; wall clock by default (a lockstep emulator's clock
            for an in-process emulator clocked by this driver's cycle).
    """

    def __init__(
        self,
        port: str,
        servos: Union[ServoConfig, Sequence[ServoConfig]],
        protocol: int = 2,
        baudrate: int = 57600,
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

    #: the errors of this driver's bus (a subclass for another family, Feetech, sets its own)
    faults, limit_error, release_error = DynamixelError, JointLimitError, ReleaseError

    @staticmethod
    def _table(actuator: str, protocol: int) -> ControlTable:
        return control_table(actuator, protocol)

    def _bus(self, port: str, protocol: int, baudrate: int, retries: int, latency_ms: float) -> DynamixelBus:
        return DynamixelBus(port, protocol, baudrate, retries, latency_ms, clock=self.clock)

    # ------------------------------------------------------------------ lifecycle
    @property
    def ids(self) -> List[int]:
        return list(self.configs)

    @property
    def counters(self) -> ErrorCounters:
        """Communication error counters (cumulative)."""
        return self.bus.counters

    def open(self) -> "DynamixelDriver":
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
            self._watchdog = threading.Thread(target=self._watch, name="dynamixel-watchdog", daemon=True)
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

    def __enter__(self) -> "DynamixelDriver":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def _setup(self, servo_id: int) -> None:
        table = self.tables[servo_id]
        model = self.bus.ping(servo_id)
        if model != table.model_number:
            found = table_for_model_number(model, self.protocol)
            raise ModelMismatchError(f"servo {servo_id}: model number {model}{f' ({found.title})' if found else ''} "
                                     f"does not match the configured {table.title} "
                                     f"(model number {table.model_number}, protocol {self.protocol})")
        self._write(servo_id, "torque_enable", 0)
        self.torque[servo_id] = False
        if self.protocol == 2:
            if self._read(servo_id, "operating_mode") != 3:
                self._write(servo_id, "operating_mode", 3)
            plain_p = ("position_d_gain", "position_i_gain", "feedforward_1st_gain", "feedforward_2nd_gain",
                       "profile_velocity", "profile_acceleration")
        else:
            plain_p = ("d_gain", "i_gain", "moving_speed")
        for name in plain_p:
            self._write(servo_id, name, 0)
        self._intersect_limits(servo_id)

    def _intersect_limits(self, servo_id: int) -> None:
        """Joint limits = configured limits within the servo's own position limits (joint mode)."""
        table = self.tables[servo_id]
        low_raw, high_raw = self._read(servo_id, table.min_limit), self._read(servo_id, table.max_limit)
        if self.protocol == 1 and (low_raw == high_raw == 0 or low_raw == high_raw == 4095):
            raise DynamixelError(f"servo {servo_id}: CW/CCW angle limits {low_raw}/{high_raw} select wheel or "
                                 "multi-turn mode; set joint mode limits (e.g. 0 and 4095)")
        low = table[table.min_limit].to_si(low_raw)
        high = table[table.max_limit].to_si(high_raw)
        config = self.configs[servo_id]
        self.limits[servo_id] = (max(config.min_position, low), min(config.max_position, high))

    # ------------------------------------------------------------------ commands
    def set_kp(self, kp: Union[float, Mapping[int, float]]) -> None:
        """Firmware position P gain in the core library's units (MX: P1 'P Gain' value; XL330:
        'Position P Gain' value); one value for every servo or ``{id: kp}``."""
        gains = self._per_servo(kp, "kp")
        raws = {i: self.tables[i].kp_to_raw(float(k)) for i, k in gains.items()}
        with self._lock, self.bus.shield:
            self._guarded(lambda: [self._write(i, self.tables[i].gain_register, raw) for i, raw in raws.items()])

    def command(self, goals: Goals, torque_enable: Optional[Flags] = None) -> None:
        """Send goal positions [rad] (and torque enable when given); resets the watchdog.

        Every goal is checked against its joint limits first; if one is outside, nothing is sent
        and :class:`JointLimitError` names the servo, the goal and the limits.
        """
        targets = self._per_servo(goals, "goals")
        raws = {}
        for servo_id, value in targets.items():
            try:
                goal = float(value)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ValueError(f"servo {servo_id}: goal {value!r} is not a number of radians") from None
            low, high = self.limits[servo_id]
            if not (math.isfinite(goal) and low <= goal <= high):
                raise self.limit_error(f"servo {servo_id} ({self.configs[servo_id].joint}): goal {goal!r} rad is "
                                      f"outside the joint limits [{low:.4f}, {high:.4f}] rad; nothing was sent")
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
    def _per_servo(self, value, what: str) -> Dict[int, object]:
        if isinstance(value, Mapping):
            unknown = set(value) - set(self.configs)
            if unknown:
                raise ValueError(f"{what}: unknown servo ID(s) {sorted(unknown)}; configured: {self.ids}")
            return dict(value)
        return {i: value for i in self.ids}

    def _guarded(self, action):
        """Run a bus action; on any Dynamixel fault release torque everywhere, then re-raise."""
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

    def _decode(self, servo_id: int, data: bytes, now: float) -> ServoState:
        table = self.tables[servo_id]
        start = self._block[0]

        def si(name: str) -> float:
            reg = table[name]
            return reg.to_si(int.from_bytes(data[reg.address - start : reg.end - start], "little"))

        p1 = self.protocol == 1
        return ServoState(
            position=si("present_position"), velocity=si("present_speed" if p1 else "present_velocity"),
            load=si(table.effort_register), current=None if p1 else si(table.current_register),
            input_voltage=si("present_voltage" if p1 else "present_input_voltage"),
            temperature=si("present_temperature"), torque_enabled=self.torque[servo_id], time=now,
        )

    def _check_watchdog(self) -> None:
        """Release torque if torque is on and no command came for ``command_timeout``."""
        if self.command_timeout is None or not any(self.torque.values()):
            return
        idle = self.clock.watchdog_time() - self._last_command
        if idle > self.command_timeout:
            LOG.warning("no command for %.3f s (timeout %.3f s): releasing torque", idle, self.command_timeout)
            self._release_all()
            self.watchdog_trips += 1  # after the release: whoever sees the count sees the torque off

    def _watch(self) -> None:
        period = self.command_timeout / 4
        while not self._stop.wait(period):
            if self._lock.acquire(timeout=period):
                try:
                    if self.bus.is_open:
                        self._check_watchdog()
                finally:
                    self._lock.release()

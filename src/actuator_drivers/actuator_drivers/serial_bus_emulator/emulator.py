"""The emulator core of every serial-bus family: emulated servos on a pseudo-terminal bus that
answer byte for byte.

:class:`SerialBusEmulator` opens a pty (``os.openpty``), gives the slave path (:attr:`port`,
e.g. ``/dev/pts/5``) for the vendor SDK's ``PortHandler`` and, in a background thread, decodes
the instruction packets written there (the family's framing; the core's is the Protocol-1.0-style
:mod:`.framing`), executes them on its :class:`~.firmware.SerialServo` objects and writes the
status packets back after each servo's Return Delay Time. The same thread advances every
servo's shaft in bench time: ``time_scale`` times faster than the wall clock, or, with
``time_scale=None``, in lockstep with the driver (a :class:`~actuator_drivers.common.LockstepClock`
shared with the driver: the shaft advances by exactly the bench time the control loop lets pass,
so recordings are deterministic whatever the host's load).

The core serves PING, READ, WRITE, REG WRITE, ACTION to one servo (:meth:`SerialBusEmulator._unicast`),
SYNC WRITE and the status packets of a multi-servo read in request order
(:meth:`SerialBusEmulator._reads`); a family subclass supplies :meth:`SerialBusEmulator._execute`
(which instructions it answers, broadcast rules) and, for another framing, its parser and status
encoder.

Fault injection (:class:`~.faults.Faults`, changeable while running with :meth:`set_faults`):
drop a fraction of status packets, corrupt the checksum/CRC of a fraction, delay every status
packet, stall (hold every status packet back until the end of given bench-time windows), answer
given READs late (after the next instruction packet arrived), or play dead (never answer).
"""

from __future__ import annotations

import os
import random
import select
import threading
import tty
from dataclasses import fields, replace
from typing import Generic, Iterator, List, Optional, Sequence, Tuple, TypeVar, Union

from actuator_models.bench import WallClock
from actuator_models.model import Model
from actuator_models.simulation import Pendulum

from actuator_drivers.common import LockstepClock, make_clock
from actuator_drivers.serial_bus_emulator import framing as pk
from actuator_drivers.serial_bus_emulator.faults import BusCounters, Faults
from actuator_drivers.serial_bus_emulator.firmware import SerialServo

#: the family's servo class (a :class:`~.firmware.SerialServo`)
S = TypeVar("S", bound=SerialServo)
#: the emulator class itself (what :meth:`SerialBusEmulator.start` returns)
E = TypeVar("E", bound="SerialBusEmulator")
#: status packets to send, in order, each with the servo that answers
Replies = List[Tuple[S, bytes]]


class SerialBusEmulator(Generic[S]):
    """Emulated servos on one pseudo-terminal bus (all speaking one protocol); a family subclasses
    it with its servo class (``SerialBusEmulator[StsServo]``; see the module docstring). Use as a
    context manager, or call :meth:`start` and :meth:`stop`.

    Args:
        servos: the servos on the bus (distinct IDs, same protocol).
        faults: injected faults.
        time_scale: bench time per wall-clock second (physics and return delays run this much
            faster); None: lockstep with the driver (share :attr:`clock` with it).
        seed: random seed of the fault injection.
        trace: keep every packet in :attr:`trace` as ``("rx" | "tx", bytes)`` (for tests and debugging).
    """

    @property
    def address_width(self) -> int:
        """Bytes of an address and of a length in READ/WRITE/SYNC WRITE parameters (a family whose
        width depends on the protocol overrides it)."""
        return 1

    def __init__(
        self,
        servos: Sequence[S],
        faults: Faults = Faults(),
        time_scale: Optional[float] = 1.0,
        seed: Optional[int] = None,
        trace: bool = False,
    ) -> None:
        if not servos:
            raise ValueError("an emulated bus needs at least one servo")
        protocols = {s.protocol for s in servos}
        if len(protocols) != 1:
            raise ValueError(f"all servos on one emulated bus must speak one protocol, got {sorted(protocols)}")
        ids = [s.servo_id for s in servos]
        if len(set(ids)) != len(ids):
            raise ValueError(f"servo IDs on one bus must be distinct, got {ids}")
        self.servos = list(servos)
        self.protocol = protocols.pop()
        self.faults = faults
        self.clock: Union[WallClock, LockstepClock] = make_clock(time_scale)
        self.counters = BusCounters()
        self.trace: Optional[List[Tuple[str, bytes]]] = [] if trace else None
        self._random = random.Random(seed)
        self._lock = threading.RLock()
        self._thread: Optional[threading.Thread] = None
        self._stop = threading.Event()
        self._master = self._slave = -1
        self._port = ""
        self._late = list(faults.late)  # READ addresses whose next status packet comes late
        self._deferred: Replies[S] = []  # status packets held until the next instruction packet

    @classmethod
    def one_servo(cls, actuator: str, model: "str | Model", mass: float, length: float, arm_mass: float = 0.0,
                  protocol: int = 2, **options) -> "SerialBusEmulator":
        """One servo of ``actuator`` driven by ``model`` (a library name, a params file or a
        :class:`Model`) on a pendulum of ``mass`` [kg] at ``length`` [m]; ``protocol`` for a family
        with several; ``options``: ``setup`` (:class:`~.firmware.ServoSetup`) and this class's arguments. One
        signature for every family (the command lines' ``emulate``, ``record-all --emulate``)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ lifecycle
    @property
    def port(self) -> str:
        """Path of the pty slave to open with ``PortHandler`` (set by :meth:`start`)."""
        if not self._port:
            raise RuntimeError("the emulator is not started; call start() or use it as a context manager")
        return self._port

    def start(self: E) -> E:
        """Open the pseudo-terminal and start answering."""
        if self._thread is not None:
            return self
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line editing, 8-bit clean until a client configures it
        self._port = os.ttyname(self._slave)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name=f"{type(self).__name__} {self._port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop answering and close the pseudo-terminal."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join(timeout=2.0)
        self._thread = None
        for fd in (self._master, self._slave):
            try:
                os.close(fd)
            except OSError:
                pass
        self._master = self._slave = -1

    def __enter__(self: E) -> E:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ control from the host
    def servo(self, servo_id: int) -> S:
        """The servo answering to ``servo_id``."""
        for servo in self.servos:
            if servo.servo_id == servo_id:
                return servo
        raise KeyError(f"no emulated servo with ID {servo_id} (IDs: {[s.servo_id for s in self.servos]})")

    def set_faults(self, **changes) -> None:
        """Change injected faults while running, e.g. ``set_faults(dead=True)``."""
        names = {f.name for f in fields(Faults)}
        unknown = set(changes) - names
        if unknown:
            raise ValueError(f"unknown fault option(s) {sorted(unknown)}; expected {sorted(names)}")
        self.faults = replace(self.faults, **changes)
        if "late" in changes:
            self._late = list(self.faults.late)

    def set_bench(self, mass: float, length: float, arm_mass: float = 0.0, servo_id: Optional[int] = None) -> None:
        """Change the pendulum of one servo (or of every servo): the user changing the load."""
        bench = Pendulum(mass, length, arm_mass)
        with self._lock:
            self._advance()  # the old load up to now
            for servo in self.servos if servo_id is None else [self.servo(servo_id)]:
                servo.set_bench(bench)

    def inject_hardware_error(self, *names: str, servo_id: Optional[int] = None) -> None:
        """Raise hardware error bits (``overload``, ``overheating``, ...) on one or every servo."""
        with self._lock:
            for servo in self.servos if servo_id is None else [self.servo(servo_id)]:
                servo.inject_hardware_error(*names)

    # ------------------------------------------------------------------ framing (a family with another overrides)
    def parser(self) -> pk.Protocol1Parser:
        """An incremental parser of the instruction packets the servos receive."""
        return pk.Protocol1Parser(status=False)

    def encode_status(self, servo_id: int, error: int, data: bytes) -> bytes:
        """A status packet on the wire."""
        return pk.encode_p1(servo_id, error, data)

    # ------------------------------------------------------------------ the bus thread
    def _serve(self) -> None:
        parser = self.parser()
        lockstep = isinstance(self.clock, LockstepClock)
        # real time: the shafts move between packets too; lockstep: only at packets (0.05 s: notice stop())
        wait = 0.05 if lockstep else min(self.clock.wall(min(s.physics_dt for s in self.servos)), 0.05)
        while not self._stop.is_set():
            ready, _, _ = select.select([self._master], [], [], wait)
            if not lockstep:
                with self._lock:
                    self._advance()
            if not ready:
                continue
            try:
                data = os.read(self._master, 4096)
            except OSError:
                return
            for packet in parser.feed(data):
                with self._lock:
                    self._advance()
                    late, self._deferred = self._deferred, []
                    replies = late + self._execute(packet)
                if self.trace is not None:  # after executing: a reader who sees it traced sees its effect
                    self.trace.append(("rx", packet.raw))
                self._send(replies)
            if isinstance(self.clock, LockstepClock):
                self.clock.handled(len(data))

    def _advance(self) -> None:
        now = self.clock.now()
        for servo in self.servos:
            servo.advance(now)

    def _send(self, replies: Replies[S]) -> None:
        faults = self.faults
        for servo, packet in replies:
            if faults.dead:
                return
            self.clock.sleep(servo.return_delay + faults.delay + faults.hold(self.clock.now()))
            if self._random.random() < faults.drop:
                self.counters.dropped += 1
                continue
            if self._random.random() < faults.corrupt:
                packet = packet[:-1] + bytes([packet[-1] ^ 0x5A])
                self.counters.corrupted += 1
            if self.trace is not None:
                self.trace.append(("tx", packet))  # before the write: a reader of the reply sees it traced
            self.counters.sent += 1
            os.write(self._master, packet)
            if isinstance(self.clock, LockstepClock):
                self.clock.replied(len(packet))

    # ------------------------------------------------------------------ instruction semantics
    def _execute(self, packet: pk.Packet) -> Replies[S]:
        """Run one instruction packet; return the status packets to send, in order (family rule)."""
        raise NotImplementedError

    def _find(self, servo_id: int) -> Optional[S]:
        for servo in self.servos:
            if servo.servo_id == servo_id:
                return servo
        return None

    def _unicast(self, servo: S, code: int, params: bytes) -> Replies[S]:
        """Instructions addressed to one servo (also run, without status, for broadcast WRITE)."""
        level = servo.status_return_level
        if code == pk.PING:
            return [self._ping(servo)]
        if code == pk.READ:
            address, length = self._address_length(params)
            if address is None:
                return [self._status(servo, "data_length")] if level >= 1 else []
            data, fault = servo.read(address, length)
            replies = [self._status(servo, fault, data)] if level >= 1 else []
            if replies and address in self._late:  # Faults.late: sent once the next instruction arrives
                self._late.remove(address)
                self._deferred += replies
                return []
            return replies
        if code in (pk.WRITE, pk.REG_WRITE):
            split = self.address_width
            if len(params) <= split:
                return [self._status(servo, "data_length")] if level >= 2 else []
            address = int.from_bytes(params[:split], "little")
            apply = servo.write if code == pk.WRITE else servo.reg_write
            fault = apply(address, params[split:])
            return [self._status(servo, fault)] if level >= 2 else []
        if code == pk.ACTION:
            fault = servo.action()
            return [self._status(servo, fault)] if level >= 2 else []
        return self._other(servo, code, params)

    def _other(self, servo: S, code: int, params: bytes) -> Replies[S]:
        """An instruction to one servo the core does not know: an instruction error."""
        return [self._status(servo, "instruction")]

    def _address_length(self, params: bytes) -> Tuple[Optional[int], int]:
        width = self.address_width
        if len(params) != 2 * width:
            return None, 0
        return int.from_bytes(params[:width], "little"), int.from_bytes(params[width:], "little")

    def _ping(self, servo: S) -> Tuple[S, bytes]:
        """The status packet of a PING (no parameters; the SDK reads the model number after it)."""
        return self._status(servo, None)

    def _status(self, servo: S, fault: Optional[str], data: bytes = b"") -> Tuple[S, bytes]:
        error = servo.status_error(fault)
        return servo, self.encode_status(servo.servo_id, error, data if not fault else b"")

    def _sync_write(self, params: bytes) -> None:
        width = self.address_width
        head = 2 * width
        if len(params) < head:
            return
        address = int.from_bytes(params[:width], "little")
        length = int.from_bytes(params[width:head], "little")
        for servo_id, data in _records(params[head:], 1 + length):
            servo = self._find(servo_id[0])
            if servo is not None:
                servo.write(address, data)

    def _reads(self, requests: Sequence[Tuple[int, int, int]]) -> Replies[S]:
        """Status packets of a SYNC/BULK READ, in request order (absent IDs stay silent)."""
        replies: Replies[S] = []
        seen = set()
        for servo_id, address, length in requests:
            servo = self._find(servo_id)
            if servo is None or servo_id in seen:
                continue
            seen.add(servo_id)
            data, fault = servo.read(address, length)
            replies.append(self._status(servo, fault, data))
        return replies


def _records(data: bytes, size: int) -> Iterator[Tuple[bytes, bytes]]:
    """Split SYNC WRITE parameters into ``(id byte, data)`` records of ``size`` bytes."""
    for index in range(0, len(data) - size + 1, size):
        yield data[index : index + 1], data[index + 1 : index + size]


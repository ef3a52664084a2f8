"""A Dynamixel bus on a pseudo-terminal: emulated servos that answer like real ones.

:class:`DynamixelEmulator` opens a pty (``os.openpty``), gives the slave path (:attr:`port`,
e.g. ``/dev/pts/5``) for ``dynamixel_sdk.PortHandler`` and, in a background thread, decodes the
instruction packets written there (Protocol 1.0 checksum or Protocol 2.0 CRC-16 with byte
stuffing), executes them on its :class:`~.firmware.EmulatedServo` objects and writes
the status packets back after each servo's Return Delay Time. The same thread advances every
servo's shaft in bench time: ``time_scale`` times faster than the wall clock, or, with
``time_scale=None``, in lockstep with the driver (a :class:`~actuator_drivers.common.LockstepClock` shared with
the driver: the shaft advances by exactly the bench time the control loop lets pass, so
recordings are deterministic whatever the host's load).

Instructions: PING (P2 broadcast ping too), READ, WRITE, REG WRITE, ACTION, REBOOT (P2),
SYNC WRITE, SYNC READ (P2), BULK READ (P1 and P2), BULK WRITE (P2). Status Return Level and
broadcast rules are those of the e-manual. FAST SYNC/BULK READ, CLEAR and FACTORY RESET are
answered with an instruction error (unicast) or ignored (broadcast).

Fault injection (:class:`Faults`, changeable while running with :meth:`set_faults`): drop a
fraction of status packets, corrupt the checksum/CRC of a fraction, delay every status packet,
stall (hold every status packet back until the end of given bench-time windows), or play dead
(never answer).
"""

from __future__ import annotations

import os
import random
import select
import threading
import tty
from dataclasses import fields, replace
from typing import Iterator, List, Optional, Sequence, Tuple, Union

from actuator_models.model import Model, load_model
from actuator_models.simulation import Pendulum

from actuator_drivers.dynamixel_emulator import packets as pk
from actuator_drivers.common import LockstepClock, make_clock
from actuator_models.bench import WallClock
from actuator_drivers.dynamixel_emulator.faults import BusCounters, Faults
from actuator_drivers.dynamixel_emulator.firmware import EmulatedServo
from actuator_drivers.dynamixel.tables import control_table


class DynamixelEmulator:
    """Emulated servos on one pseudo-terminal bus (all speaking one protocol).

    Use as a context manager, or call :meth:`start` and :meth:`stop`::

        with DynamixelEmulator.single("mx64", "mx64/m6", mass=1.0, length=0.15, protocol=1) as emu:
            driver = DynamixelDriver(emu.port, ...)

    Args:
        servos: the servos on the bus (distinct IDs, same protocol).
        faults: injected faults.
        time_scale: bench time per wall-clock second (physics and return delays run this much
            faster); None: lockstep with the driver (share :attr:`clock` with it).
        seed: random seed of the fault injection.
        trace: keep every packet in :attr:`trace` as ``("rx" | "tx", bytes)`` (for tests and debugging).
    """

    def __init__(
        self,
        servos: Sequence[EmulatedServo],
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

    @classmethod
    def single(
        cls,
        actuator: str,
        model: "str | Model",
        mass: float,
        length: float,
        arm_mass: float = 0.0,
        protocol: int = 2,
        servo_id: int = 1,
        vin: Optional[float] = None,
        physics_dt: float = 0.005,
        **kwargs,
    ) -> "DynamixelEmulator":
        """One servo of ``actuator`` driven by ``model`` (a library name such as ``mx64/m6`` or a
        :class:`Model`) on a pendulum of ``mass`` [kg] at ``length`` [m]."""
        model = load_model(model) if isinstance(model, str) else model
        servo = EmulatedServo(
            control_table(actuator, protocol), model, Pendulum(mass, length, arm_mass),
            servo_id=servo_id, vin=vin, physics_dt=physics_dt,
        )
        return cls([servo], **kwargs)

    # ------------------------------------------------------------------ lifecycle
    @property
    def port(self) -> str:
        """Path of the pty slave to open with ``PortHandler`` (set by :meth:`start`)."""
        if not self._port:
            raise RuntimeError("the emulator is not started; call start() or use it as a context manager")
        return self._port

    def start(self) -> "DynamixelEmulator":
        """Open the pseudo-terminal and start answering."""
        if self._thread is not None:
            return self
        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # no echo, no line editing, 8-bit clean until a client configures it
        self._port = os.ttyname(self._slave)
        self._stop.clear()
        self._thread = threading.Thread(target=self._serve, name=f"dynamixel-emulator {self._port}", daemon=True)
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

    def __enter__(self) -> "DynamixelEmulator":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ control from the host
    def servo(self, servo_id: int) -> EmulatedServo:
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

    # ------------------------------------------------------------------ the bus thread
    def _serve(self) -> None:
        parser = pk.instruction_parser(self.protocol)
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
                    replies = self._execute(packet)
                if self.trace is not None:  # after executing: a reader who sees it traced sees its effect
                    self.trace.append(("rx", packet.raw))
                self._send(replies)
            if lockstep:
                self.clock.handled(len(data))

    def _advance(self) -> None:
        now = self.clock.now()
        for servo in self.servos:
            servo.advance(now)

    def _send(self, replies: List[Tuple[EmulatedServo, bytes]]) -> None:
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
    def _execute(self, packet: pk.Packet) -> List[Tuple[EmulatedServo, bytes]]:
        """Run one instruction packet; return the status packets to send, in order."""
        self.counters.received += 1
        if self.faults.dead:
            return []
        broadcast = packet.servo_id == pk.BROADCAST_ID
        target = None if broadcast else self._find(packet.servo_id)
        if not packet.crc_ok:
            self.counters.bad_crc += 1
            return [self._status(target, "crc")] if target else []
        code, params = packet.instruction, packet.params
        if code == pk.SYNC_WRITE:
            self._sync_write(params)
            return []
        if code == pk.BULK_WRITE and self.protocol == 2:
            self._bulk_write(params)
            return []
        if code == pk.SYNC_READ and self.protocol == 2:
            return self._sync_read(params)
        if code == pk.BULK_READ:
            return self._bulk_read(params)
        if code == pk.PING and broadcast and self.protocol == 2:
            return [self._ping(s) for s in self.servos]
        if target is None:  # broadcast (no status) or nobody with that ID
            if broadcast:
                for servo in self.servos:
                    self._unicast(servo, code, params)
            return []
        return self._unicast(target, code, params)

    def _find(self, servo_id: int) -> Optional[EmulatedServo]:
        for servo in self.servos:
            if servo.servo_id == servo_id:
                return servo
        return None

    def _unicast(self, servo: EmulatedServo, code: int, params: bytes) -> List[Tuple[EmulatedServo, bytes]]:
        """Instructions addressed to one servo (also run, without status, for broadcast WRITE)."""
        level = servo.status_return_level
        if code == pk.PING:
            return [self._ping(servo)]
        if code == pk.READ:
            address, length = self._address_length(params)
            if address is None:
                return [self._status(servo, "data_length")] if level >= 1 else []
            data, fault = servo.read(address, length)
            return [self._status(servo, fault, data)] if level >= 1 else []
        if code in (pk.WRITE, pk.REG_WRITE):
            split = 1 if self.protocol == 1 else 2
            if len(params) <= split:
                return [self._status(servo, "data_length")] if level >= 2 else []
            address = int.from_bytes(params[:split], "little")
            apply = servo.write if code == pk.WRITE else servo.reg_write
            fault = apply(address, params[split:])
            return [self._status(servo, fault)] if level >= 2 else []
        if code == pk.ACTION:
            fault = servo.action()
            return [self._status(servo, fault)] if level >= 2 else []
        if code == pk.REBOOT and self.protocol == 2:
            reply = self._status(servo, None)
            servo.reboot()
            return [reply]
        return [self._status(servo, "instruction")]

    def _address_length(self, params: bytes) -> Tuple[Optional[int], int]:
        width = 1 if self.protocol == 1 else 2
        if len(params) != 2 * width:
            return None, 0
        return int.from_bytes(params[:width], "little"), int.from_bytes(params[width:], "little")

    def _ping(self, servo: EmulatedServo) -> Tuple[EmulatedServo, bytes]:
        if self.protocol == 1:
            return self._status(servo, None)
        model = servo.peek("model_number")
        return self._status(servo, None, bytes([model & 0xFF, model >> 8, servo.peek("firmware_version")]))

    def _status(self, servo: EmulatedServo, fault: Optional[str], data: bytes = b"") -> Tuple[EmulatedServo, bytes]:
        error = servo.status_error(fault)
        return servo, pk.encode_status(self.protocol, servo.servo_id, error, data if not fault else b"")

    def _sync_write(self, params: bytes) -> None:
        width = 1 if self.protocol == 1 else 2
        head = 2 * width
        if len(params) < head:
            return
        address = int.from_bytes(params[:width], "little")
        length = int.from_bytes(params[width:head], "little")
        for servo_id, data in _records(params[head:], 1 + length):
            servo = self._find(servo_id[0])
            if servo is not None:
                servo.write(address, data)

    def _bulk_write(self, params: bytes) -> None:
        index = 0
        while index + 5 <= len(params):
            servo_id, address, length = params[index], _u16(params, index + 1), _u16(params, index + 3)
            data = params[index + 5 : index + 5 + length]
            servo = self._find(servo_id)
            if servo is not None:
                servo.write(address, data)
            index += 5 + length

    def _sync_read(self, params: bytes) -> List[Tuple[EmulatedServo, bytes]]:
        if len(params) < 5:
            return []
        address, length = _u16(params, 0), _u16(params, 2)
        return self._reads([(servo_id, address, length) for servo_id in params[4:]])

    def _bulk_read(self, params: bytes) -> List[Tuple[EmulatedServo, bytes]]:
        if self.protocol == 1:  # 0x00, then [length, id, address] per servo
            requests = [(r[1], r[2], r[0]) for r in (params[i : i + 3] for i in range(1, len(params) - 2, 3))]
        else:  # [id, address L/H, length L/H] per servo
            requests = [(params[i], _u16(params, i + 1), _u16(params, i + 3)) for i in range(0, len(params) - 4, 5)]
        return self._reads(requests)

    def _reads(self, requests: Sequence[Tuple[int, int, int]]) -> List[Tuple[EmulatedServo, bytes]]:
        """Status packets of a SYNC/BULK READ, in request order (absent IDs stay silent)."""
        replies, seen = [], set()
        for servo_id, address, length in requests:
            servo = self._find(servo_id)
            if servo is None or servo_id in seen:
                continue
            seen.add(servo_id)
            data, fault = servo.read(address, length)
            replies.append(self._status(servo, fault, data))
        return replies


def _u16(data: bytes, index: int) -> int:
    return data[index] | (data[index + 1] << 8)


def _records(data: bytes, size: int) -> Iterator[Tuple[bytes, bytes]]:
    """Split SYNC WRITE parameters into ``(id byte, data)`` records of ``size`` bytes."""
    for index in range(0, len(data) - size + 1, size):
        yield data[index : index + 1], data[index + 1 : index + size]


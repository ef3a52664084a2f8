"""A serial bus of Protocol-1.0-style servos over a vendor SDK: transactions with retries, error
counters, Ctrl-C deferral; the family-neutral core of every serial-bus family's bus.

:class:`SerialBus` wraps one SDK ``PortHandler`` (as a :class:`~actuator_drivers.serial_port.LockstepSerialPort`)
and one SDK ``PacketHandler``: the vendors' Protocol-1.0-style SDKs have the same method names
(``ping``, ``readTx``, ``writeTxOnly``, ``rxPacket``, ``GroupSyncWrite``...). Every transaction
is retried on a timeout or a corrupt status packet (and counted in
:class:`~actuator_drivers.common.ErrorCounters`), inside the bus's
:class:`~actuator_drivers.safe_stop.InterruptShield` (Ctrl-C / SIGTERM wait for its end). A
family subclass (e.g. :mod:`actuator_drivers.dynamixel.bus`) supplies its SDK (port class, packet handler,
result codes, group sync write, baud rates), its errors, :meth:`SerialBus.check_status` (its
status error bits) and :meth:`SerialBus._block_sender` (the instruction of the block read of
every cycle, whose status packets are received one by one (:meth:`SerialBus._receive`) so that each servo's
error field is checked: the SDKs' group classes drop it).

Stale status packets. A status packet names its servo but not the instruction it answers
(Protocol 2.0 echoes no address, Protocol 1.0 / STS no instruction), and the SDKs accept the
first packet with the right ID: a reply that comes after the receive timeout (a loaded host, a
slow adapter) was taken as the answer to the next instruction to that servo, e.g. Min Position
Limit's value read as Max Position Limit. So every status packet is received here
(:meth:`SerialBus._receive`): accepted only from the servo asked, with the parameter count that
instruction's answer has (and, Protocol 2.0, the status instruction 0x55); anything else is
discarded. A late reply of the same shape (two 4-byte reads) cannot be told apart, so after a
timeout or a corrupt packet the servos concerned are *resynchronised* before their next
transaction: a READ at address 0 of a size no other transaction answers with, nor the
resynchronisations before it (:data:`SYNC_SIZES` in turn), is sent and every status packet before
its answer discarded; a servo answers in order, so nothing older is left to come.
"""

from __future__ import annotations

from typing import Callable, ClassVar, Dict, List, Optional, Sequence, Set, Tuple, Type, TypeVar, Union

from actuator_models.bench import WallClock

from actuator_drivers.common import DriverError, ErrorCounters, LockstepClock
from actuator_drivers.safe_stop import InterruptShield
from actuator_drivers.serial_bus.errors import BusFailure
from actuator_drivers.serial_port import LockstepSerialPort

#: what one attempt of a transaction returns besides its result code and status error
Data = TypeVar("Data")
#: bytes of the resynchronising READs at address 0, used in turn (those no other transaction of
#: the bus answers with, :attr:`SerialBus.answer_sizes`): each one's answer differs in shape from
#: the answers of the resynchronisations before it, which may still come late (a PING answered by
#: one reads the same model number: its first bytes)
SYNC_SIZES = range(3, 32)
#: status packets of other instructions discarded in one receive before it counts as corrupt
MAX_DISCARDED = 16


class SerialBus:
    """One serial port of one family's servos; SDK transactions with retries.

    Args:
        port: serial device (``/dev/ttyUSB0``, or an emulator's pty).
        baudrate: bits/s, one of the family's :attr:`BAUDRATES`.
        retries: extra attempts after a timeout/corrupt packet.
        latency_ms: USB latency timer assumed in receive timeouts [ms] (SDK default 16).
        clock: the bench clock; a :class:`~actuator_drivers.common.LockstepClock` shared with an
            in-process emulator makes receive timeouts bench-time events (see
            :class:`~actuator_drivers.serial_port.LockstepSerialPort`).

    Class attributes a family sets: ``SDK`` (its name, for messages), ``BAUDRATES``,
    ``PORT`` (its ``PortHandler`` with :class:`LockstepSerialPort` mixed in), ``GROUP_SYNC_WRITE``
    (its ``GroupSyncWrite``), its result codes ``SUCCESS``, ``TIMEOUT``, ``CORRUPT`` and the
    errors ``failure`` (a :class:`~actuator_drivers.serial_bus.errors.BusFailure`) and ``port_failure``.
    """

    SDK: ClassVar[str]
    BAUDRATES: ClassVar[Tuple[int, ...]]
    PORT: ClassVar[Type[LockstepSerialPort]]
    GROUP_SYNC_WRITE: ClassVar[Callable]
    SUCCESS: ClassVar[int]
    TIMEOUT: ClassVar[int]
    CORRUPT: ClassVar[int]
    failure: ClassVar[Type[BusFailure]]
    port_failure: ClassVar[Type[DriverError]]

    def __init__(self, port: str, baudrate: int, retries: int = 3, latency_ms: float = 16.0,
                 clock: Union[WallClock, LockstepClock, None] = None) -> None:
        if baudrate not in self.BAUDRATES:
            raise ValueError(f"baudrate {baudrate!r}: {self.SDK} accepts only {', '.join(map(str, self.BAUDRATES))}")
        if retries < 0:
            raise ValueError(f"retries {retries!r}: must be >= 0")
        if not latency_ms >= 0:
            raise ValueError(f"latency_ms {latency_ms!r}: must be >= 0")
        self.port_name, self.baudrate, self.retries = port, baudrate, retries
        self.counters = ErrorCounters()
        self.port = self.PORT(port, latency_ms, clock)
        self.handler = self.packet_handler()
        self.is_open = False
        #: defers Ctrl-C / SIGTERM to the end of a transaction (the driver holds it around whole operations)
        self.shield = InterruptShield()
        #: servos whose late status packets may still come (resynchronised before their next transaction)
        self.unsynced: Set[int] = set()
        #: parameter counts of the answers of register reads and block reads (a driver adds its
        #: block length before its first transaction): no resynchronisation uses them
        self.answer_sizes: Set[int] = {1, 2, 4}
        self._syncs = 0  # resynchronising READs sent

    def packet_handler(self):
        """The SDK's packet handler of this bus (the family's protocol)."""
        raise NotImplementedError

    def open(self) -> None:
        """Open the port at the configured baud rate."""
        try:
            ok = self.port.setBaudRate(self.baudrate)  # opens the serial port
        except Exception as error:  # serial.SerialException, OSError
            raise self.port_failure(f"cannot open {self.port_name}: {error}") from None
        if not ok:
            raise self.port_failure(f"cannot open {self.port_name} at {self.baudrate} baud")
        self.is_open = True

    def close(self) -> None:
        if self.is_open:
            self.port.closePort()
            self.is_open = False

    # ------------------------------------------------------------------ transactions
    def _attempts(self, servo_ids: Sequence[int], operation: str, attempt: Callable[[], Tuple[Data, int, int]],
                  tries: int) -> Tuple[Data, int]:
        """Run ``attempt() -> (data, comm_result, error)`` until it succeeds; return ``(data, error)``.
        ``servo_ids``: the servos that answer it (resynchronised after a failed attempt; the
        first is named if every attempt fails). An interrupt arriving meanwhile is raised once
        the transaction is over."""
        with self.shield:
            return self._attempt_all(servo_ids, operation, attempt, tries)

    def _attempt_all(self, servo_ids: Sequence[int], operation: str, attempt: Callable[[], Tuple[Data, int, int]],
                     tries: int) -> Tuple[Data, int]:
        self.counters.transactions += 1
        result = self.SUCCESS
        for index in range(tries):
            if index:
                self.counters.retries += 1
            result = self._resync(servo_ids)
            if result == self.SUCCESS:
                try:
                    data, result, error = attempt()
                except IndexError:  # the SDK indexes a valid status packet shorter than asked for
                    result = self.CORRUPT
                else:
                    if result == self.SUCCESS:
                        return data, error
                self.unsynced.update(servo_ids)  # its status packets may still come, late
            if result == self.TIMEOUT:
                self.counters.timeouts += 1
            elif result == self.CORRUPT:
                self.counters.corrupt += 1
            else:
                self.counters.other += 1
        self.counters.failures += 1
        raise self.failure(servo_ids[0] if servo_ids else -1, operation,
                           self.handler.getTxRxResult(result).replace("[TxRxResult] ", ""), tries)

    def _resync(self, servo_ids: Sequence[int]) -> int:
        """Discard every late status packet of the servos in ``servo_ids`` that may have some:
        READ at address 0 the next of :data:`SYNC_SIZES` and receive until its answer; the SDK's
        result code (a failure leaves the servo unsynchronised)."""
        for servo_id in servo_ids:
            if servo_id in self.unsynced:
                sizes = [size for size in SYNC_SIZES if size not in self.answer_sizes]
                size = sizes[self._syncs % len(sizes)]
                self._syncs += 1
                _, result, _ = self._read_once(servo_id, 0, size, refusal=False)
                if result != self.SUCCESS:
                    return result
                self.unsynced.discard(servo_id)
        return self.SUCCESS

    def _read_once(self, servo_id: int, address: int, size: int, refusal: bool = True) -> Tuple[List[int], int, int]:
        """One READ instruction and its status packet: ``(data, comm_result, error)`` (``refusal``:
        see :meth:`_receive`)."""
        result = self.handler.readTx(self.port, servo_id, address, size)
        if result != self.SUCCESS:
            return [], result, 0
        return self._receive(servo_id, size, refusal)

    def _write_once(self, servo_id: int, address: int, size: int, raw: int) -> Tuple[None, int, int]:
        """One WRITE instruction and its status packet: ``(None, comm_result, error)``."""
        data = list(int(raw).to_bytes(size, "little", signed=False))
        result = self.handler.writeTxOnly(self.port, servo_id, address, size, data)
        if result != self.SUCCESS:
            return None, result, 0
        self.port.setPacketTimeout(self.status_bytes())
        return None, *self._receive(servo_id, 0)[1:]

    def _receive(self, servo_id: int, params: int, refusal: bool = False) -> Tuple[List[int], int, int]:
        """The status packet of ``servo_id`` with ``params`` parameters (``refusal``: or none and
        an error, a refused instruction), within the packet timeout the transmission set:
        ``(data, comm_result, error)``; every other packet (a late answer to an earlier
        instruction, another servo's) is discarded."""
        for _ in range(MAX_DISCARDED):
            packet, result = self.receive_packet()
            if result != self.SUCCESS:
                return [], result, 0
            status = self.status_fields(packet)
            if status is not None and status[0] == servo_id:
                _, error, data = status
                if len(data) == params or (refusal and error and not data):
                    return data, result, error
        return [], self.CORRUPT, 0

    def status_bytes(self) -> int:
        """Bytes of a status packet without parameters (its receive timeout after a WRITE):
        FF FF ID LENGTH ERROR CHECKSUM."""
        return 6

    def receive_packet(self) -> Tuple[List[int], int]:
        """The SDK's next packet and its result code (``PacketHandler.rxPacket``)."""
        return self.handler.rxPacket(self.port)

    def status_fields(self, packet: List[int]) -> Optional[Tuple[int, int, List[int]]]:
        """``(id, error, parameters)`` of a status packet (Protocol 1.0 layout: FF FF ID LENGTH
        ERROR PARAMETERS... CHECKSUM); None if it is no status packet."""
        return packet[2], packet[4], list(packet[5 : 5 + packet[3] - 2])

    def check_status(self, servo_id: int, operation: str, error: int, hardware_ok: bool = False) -> None:
        """Raise the family's error for a status packet's error field. ``hardware_ok``: a
        hardware error alone (the instruction was executed; the servo is in alarm) is no error
        (the torque release of a servo in alarm)."""
        raise NotImplementedError

    def ping(self, servo_id: int) -> int:
        """Model number of servo ``servo_id``."""
        model, error = self._attempts([servo_id], "ping", lambda: self.handler.ping(self.port, servo_id), 1 + self.retries)
        self.check_status(servo_id, "ping", error)
        return int(model)

    def read(self, servo_id: int, address: int, size: int, operation: str = "read", hardware_ok: bool = False) -> int:
        """Unsigned value of ``size`` (1, 2 or 4) bytes at ``address`` (``hardware_ok``: see
        :meth:`check_status`)."""
        def attempt() -> Tuple[List[int], int, int]:
            data, result, error = self._read_once(servo_id, address, size)
            if result == self.SUCCESS and len(data) < size:  # a refusal, or a late status of a WRITE
                self.check_status(servo_id, operation, error, hardware_ok)  # a refusal raises
                result = self.CORRUPT  # a hardware error alone carries data: a late status of a WRITE
            return data, result, error

        data, error = self._attempts([servo_id], operation, attempt, 1 + self.retries)
        self.check_status(servo_id, operation, error, hardware_ok)  # a refused read has an error and no data
        return int.from_bytes(bytes(data[:size]), "little")

    def write(self, servo_id: int, address: int, size: int, raw: int, operation: str = "write", tries: int = 0,
              hardware_ok: bool = False) -> None:
        """Write ``size`` (1, 2 or 4) bytes and check the status packet (``hardware_ok``: see
        :meth:`check_status`)."""
        _, error = self._attempts([servo_id], operation, lambda: self._write_once(servo_id, address, size, raw),
                                  tries or 1 + self.retries)
        self.check_status(servo_id, operation, error, hardware_ok)

    def sync_write(self, address: int, size: int, values: Dict[int, int]) -> None:
        """One SYNC WRITE (0x83) of ``size``-byte values ``{id: raw}`` (no status packets)."""
        group = self.GROUP_SYNC_WRITE(self.port, self.handler, address, size)
        for servo_id, raw in values.items():
            group.addParam(servo_id, list(int(raw).to_bytes(size, "little", signed=False)))
        self._attempts([], "sync write", lambda: (None, group.txPacket(), 0), 1 + self.retries)

    def read_block(self, servo_ids: Sequence[int], address: int, length: int) -> Dict[int, bytes]:
        """``length`` bytes at ``address`` from every servo in one transaction; ``{id: bytes}``."""
        ids = list(servo_ids)
        self.answer_sizes.add(length)
        operation = f"read {length} bytes at address {address}"
        send = self._block_sender(ids, address, length)
        failed_id = ids[0]

        def attempt() -> Tuple[List[Tuple[int, List[int], int]], int, int]:
            nonlocal failed_id
            result = send()
            if result != self.SUCCESS:
                return [], result, 0
            replies: List[Tuple[int, List[int], int]] = []
            for servo_id in ids:
                data, result, error = self._receive(servo_id, length)
                if result != self.SUCCESS:
                    failed_id = servo_id
                    return [], result, 0
                replies.append((servo_id, data, error))
            return replies, self.SUCCESS, 0

        try:
            replies, _ = self._attempts(ids, operation, attempt, 1 + self.retries)
        except self.failure as error:
            raise self.failure(failed_id, error.operation, error.result, error.attempts) from None
        out: Dict[int, bytes] = {}
        for servo_id, data, status in replies:
            self.check_status(servo_id, operation, status)
            out[servo_id] = bytes(data[:length])
        return out

    def _block_sender(self, ids: List[int], address: int, length: int) -> Callable[[], int]:
        """The instruction of the block read of every cycle (sent once per attempt; returns the
        SDK's result code); the status packets follow, one per servo in ``ids`` order."""
        raise NotImplementedError

"""A Feetech STS bus on the vendor SDK ``feetech-servo-sdk`` (``scservo_sdk``): transactions with
retries, error counters and status error bits as exceptions.

:class:`FeetechBus` wraps one SDK ``PortHandler`` and the SDK's packet handler
(``PacketHandler(0)``: little-endian STS words). Every transaction is retried on a timeout or a
corrupt status packet and counted in :class:`~actuator_drivers.dynamixel_bus.ErrorCounters`; a
status packet with fault bits set becomes a :class:`~.errors.HardwareError` naming the servo.

The block read of every cycle is one SYNC READ (0x82): ``syncReadTx`` sends it, and each
servo's status packet is received with ``readRx`` so that its error byte is checked (the SDK's
``GroupSyncRead`` drops it).

Two SDK facts the port corrects (``docs/FEETECH.md``): ``PortHandler.clearPort`` of
feetech-servo-sdk 1.0.0 flushes the *output* before each transmission, so a late status packet
would be taken as the answer to the next instruction: :class:`FeetechPort` also discards the
input there (as dynamixel-sdk and the vendor's newer ftservo-python-sdk do); and the SDK keeps
its byte order in a module global set by ``PacketHandler(end)``: this bus sets 0 (STS/SMS), so
SCS servos (big-endian) cannot share a process with it.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from scservo_sdk import (
    COMM_RX_CORRUPT,
    COMM_RX_TIMEOUT,
    COMM_SUCCESS,
    GroupSyncWrite,
    PacketHandler,
    PortHandler,
)

from ..clock import LockstepClock
from ..dynamixel_bus import ErrorCounters
from ..serial_port import LockstepSerialPort
from .errors import CommunicationError, HardwareError, PortError, bit_names
from .tables import SDK_BAUDRATES, STS_END


class FeetechPort(LockstepSerialPort, PortHandler):
    """The SDK's ``PortHandler`` that sleeps while it waits, follows a lockstep emulator
    (:class:`~actuator_drivers.serial_port.LockstepSerialPort`) and discards stale input before
    each transmission."""

    def clearPort(self):  # noqa: N802 (SDK name)
        super().clearPort()
        self.ser.reset_input_buffer()


class FeetechBus:
    """One serial port of STS servos; SDK transactions with retries.

    Args:
        port: serial device (``/dev/ttyACM0`` on the SO-100 adapter board, or an emulator's pty).
        baudrate: bits/s, one of :data:`~.tables.SDK_BAUDRATES` (STS default 1000000).
        retries: extra attempts after a timeout/corrupt packet.
        latency_ms: USB latency timer assumed in receive timeouts [ms].
        clock: a :class:`~actuator_drivers.clock.LockstepClock` shared with an in-process emulator.
    """

    def __init__(self, port: str, baudrate: int = 1_000_000, retries: int = 3, latency_ms: float = 16.0,
                 clock: Optional[LockstepClock] = None) -> None:
        if baudrate not in SDK_BAUDRATES:
            raise ValueError(f"baudrate {baudrate!r}: feetech-servo-sdk accepts only {', '.join(map(str, SDK_BAUDRATES))}")
        if retries < 0:
            raise ValueError(f"retries {retries!r}: must be >= 0")
        if not latency_ms >= 0:
            raise ValueError(f"latency_ms {latency_ms!r}: must be >= 0")
        self.port_name, self.baudrate, self.retries = port, baudrate, retries
        self.counters = ErrorCounters()
        self.port = FeetechPort(port, latency_ms, clock)
        self.handler = PacketHandler(STS_END)
        self.is_open = False

    def open(self) -> None:
        """Open the port at the configured baud rate."""
        try:
            ok = self.port.setBaudRate(self.baudrate)
        except Exception as error:  # serial.SerialException, OSError
            raise PortError(f"cannot open {self.port_name}: {error}") from None
        if not ok:
            raise PortError(f"cannot open {self.port_name} at {self.baudrate} baud")
        self.is_open = True

    def close(self) -> None:
        if self.is_open:
            self.port.closePort()
            self.is_open = False

    def _attempts(self, servo_id: int, operation: str, attempt: Callable[[], Tuple[object, int, int]]
                  ) -> Tuple[object, int]:
        """Run ``attempt() -> (data, comm_result, error)`` until it succeeds; ``(data, error)``."""
        self.counters.transactions += 1
        result = COMM_SUCCESS
        for index in range(1 + self.retries):
            if index:
                self.counters.retries += 1
            try:
                data, result, error = attempt()
            except IndexError:  # the SDK indexes a status packet shorter than it expects
                data, result, error = None, COMM_RX_CORRUPT, 0
            if result == COMM_SUCCESS:
                return data, error
            if result == COMM_RX_TIMEOUT:
                self.counters.timeouts += 1
            elif result == COMM_RX_CORRUPT:
                self.counters.corrupt += 1
            else:
                self.counters.other += 1
        self.counters.failures += 1
        raise CommunicationError(servo_id, operation, self.handler.getTxRxResult(result).replace("[TxRxResult] ", ""),
                                 1 + self.retries)

    @staticmethod
    def check_status(servo_id: int, error: int) -> None:
        """Raise :class:`~.errors.HardwareError` for fault bits in a status packet."""
        if error:
            raise HardwareError(servo_id, bit_names(error))

    def ping(self, servo_id: int) -> int:
        """Model number of servo ``servo_id`` (the SDK pings, then reads address 3)."""
        model, error = self._attempts(servo_id, "ping", lambda: self.handler.ping(self.port, servo_id))
        self.check_status(servo_id, error)
        return int(model)

    def read(self, servo_id: int, address: int, size: int, operation: str = "read") -> int:
        """Unsigned little-endian value of ``size`` (1 or 2) bytes at ``address``."""
        def attempt() -> Tuple[object, int, int]:
            data, result, error = self.handler.readTxRx(self.port, servo_id, address, size)
            if result == COMM_SUCCESS and len(data) < size:
                result = COMM_RX_CORRUPT  # a short status packet: a late reply to another instruction
            return data, result, error

        data, error = self._attempts(servo_id, operation, attempt)
        self.check_status(servo_id, error)
        return int.from_bytes(bytes(data[:size]), "little")  # type: ignore[index]

    def write(self, servo_id: int, address: int, size: int, raw: int, operation: str = "write",
              check: bool = True) -> None:
        """Write ``size`` (1 or 2) bytes and wait for the status packet; ``check`` raises for its
        fault bits (a torque-off write is not refused for them)."""
        data = list(int(raw).to_bytes(size, "little"))
        _, error = self._attempts(servo_id, operation,
                                  lambda: (None, *self.handler.writeTxRx(self.port, servo_id, address, size, data)))
        if check:
            self.check_status(servo_id, error)

    def sync_write(self, address: int, size: int, values: Dict[int, int]) -> None:
        """One SYNC WRITE (0x83) of ``size``-byte values ``{id: raw}`` (no status packets)."""
        group = GroupSyncWrite(self.port, self.handler, address, size)
        for servo_id, raw in values.items():
            group.addParam(servo_id, list(int(raw).to_bytes(size, "little")))
        self._attempts(-1, "sync write", lambda: (None, group.txPacket(), 0))

    def read_block(self, servo_ids: Sequence[int], address: int, length: int) -> Dict[int, bytes]:
        """``length`` bytes at ``address`` of every servo in one SYNC READ; ``{id: bytes}``."""
        ids = list(servo_ids)
        failed = ids[0]

        def attempt() -> Tuple[object, int, int]:
            nonlocal failed
            result = self.handler.syncReadTx(self.port, address, length, ids, len(ids))
            if result != COMM_SUCCESS:
                return None, result, 0
            replies: List[Tuple[int, list, int]] = []
            for servo_id in ids:
                data, result, error = self.handler.readRx(self.port, servo_id, length)
                if result == COMM_SUCCESS and len(data) < length:
                    result = COMM_RX_CORRUPT
                if result != COMM_SUCCESS:
                    failed = servo_id
                    return None, result, 0
                replies.append((servo_id, data, error))
            return replies, COMM_SUCCESS, 0

        try:
            replies, _ = self._attempts(ids[0], f"sync read {length} bytes at address {address}", attempt)
        except CommunicationError as error:
            raise CommunicationError(failed, error.operation, error.result, error.attempts) from None
        for servo_id, _, error in replies:  # type: ignore[union-attr]
            self.check_status(servo_id, error)
        return {servo_id: bytes(data) for servo_id, data, _ in replies}  # type: ignore[union-attr]

"""A Dynamixel bus on ``dynamixel_sdk``: transactions with retries, error counters and decoded errors.

:class:`DynamixelBus` wraps one ``PortHandler`` and one ``PacketHandler``. Every transaction is
retried on a timeout or a corrupt status packet (and counted in :class:`ErrorCounters`); a
status packet whose error field is set becomes a :class:`~actuator_drivers.dynamixel.errors.HardwareError`
(Protocol 1.0 voltage/overheating/overload bits, Protocol 2.0 Alert bit: the bits of Hardware
Error Status(70) are read and named) or a :class:`~actuator_drivers.dynamixel.errors.StatusError` (a refused
instruction), each naming the servo ID.

The block read of every cycle is one SYNC READ (Protocol 2.0), one BULK READ (Protocol 1.0, two
servos or more; MX firmware supports it) or one READ (Protocol 1.0, one servo). The
SDK's ``GroupSyncRead`` sends the SYNC READ; status packets are then received one by one with
``PacketHandler.readRx`` so that each servo's error field is checked (the group classes drop
it). Protocol 1.0 BULK READ is sent with ``Protocol1PacketHandler.bulkReadTx`` directly:
``GroupBulkRead.txPacket`` of dynamixel-sdk 4.x passes a Protocol 2.0-only argument to it.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

from dynamixel_sdk import (
    COMM_RX_CORRUPT,
    COMM_RX_TIMEOUT,
    COMM_SUCCESS,
    GroupSyncRead,
    GroupSyncWrite,
    PacketHandler,
    PortHandler,
)

from actuator_drivers.common import ErrorCounters, LockstepClock
from actuator_drivers.safe_stop import InterruptShield
from actuator_drivers.serial_port import LockstepSerialPort
from actuator_drivers.dynamixel.errors import (
    HARDWARE_ERROR_BITS,
    P1_ERROR_BITS,
    P1_HARDWARE_BITS,
    P2_ALERT,
    P2_ERROR_NUMBERS,
    CommunicationError,
    HardwareError,
    PortError,
    StatusError,
    bit_names,
)

#: Baud rates ``PortHandler.setBaudRate`` accepts.
SDK_BAUDRATES = (9600, 19200, 38400, 57600, 115200, 230400, 460800, 500000, 576000, 921600,
                 1000000, 1152000, 2000000, 2500000, 3000000, 3500000, 4000000)
HARDWARE_ERROR_STATUS = 70  # Protocol 2.0 address of Hardware Error Status (MX(2.0), X series)


class BusPort(LockstepSerialPort, PortHandler):
    """dynamixel-sdk's ``PortHandler`` with the waiting, lockstep and recovery rules of
    :class:`~actuator_drivers.serial_port.LockstepSerialPort`."""


class DynamixelBus:
    """One serial port, one protocol; SDK transactions with retries.

    Args:
        port: serial device (``/dev/ttyUSB0``, or an emulator's pty).
        protocol: 1 or 2.
        baudrate: bits/s, one of :data:`SDK_BAUDRATES`.
        retries: extra attempts after a timeout/corrupt packet.
        latency_ms: USB latency timer assumed in receive timeouts [ms] (SDK default 16).
        clock: the bench clock; a :class:`~actuator_drivers.common.LockstepClock` shared with an in-process
            emulator makes receive timeouts bench-time events (see :class:`BusPort`).
    """

    #: the SDK's result codes and the error a failed transaction raises (another SDK's bus, such as
    #: the Feetech one, subclasses with its own)
    SUCCESS, TIMEOUT, CORRUPT = COMM_SUCCESS, COMM_RX_TIMEOUT, COMM_RX_CORRUPT
    failure, port_failure = CommunicationError, PortError

    def __init__(self, port: str, protocol: int = 2, baudrate: int = 57600, retries: int = 3,
                 latency_ms: float = 16.0, clock: Optional[LockstepClock] = None) -> None:
        if protocol not in (1, 2):
            raise ValueError(f"protocol {protocol!r}: expected 1 or 2")
        if baudrate not in SDK_BAUDRATES:
            raise ValueError(f"baudrate {baudrate!r}: dynamixel-sdk accepts only {', '.join(map(str, SDK_BAUDRATES))}")
        if retries < 0:
            raise ValueError(f"retries {retries!r}: must be >= 0")
        if not latency_ms >= 0:
            raise ValueError(f"latency_ms {latency_ms!r}: must be >= 0")
        self.port_name, self.protocol, self.baudrate, self.retries = port, protocol, baudrate, retries
        self.counters = ErrorCounters()
        self.port = BusPort(port, latency_ms, clock)
        self.handler = PacketHandler(float(protocol))
        self.is_open = False
        #: defers Ctrl-C / SIGTERM to the end of a transaction (the driver holds it around whole operations)
        self.shield = InterruptShield()

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
    def _attempts(self, servo_id: int, operation: str, attempt: Callable[[], Tuple[object, int, int]],
                  tries: int) -> Tuple[object, int]:
        """Run ``attempt() -> (data, comm_result, error)`` until it succeeds; return ``(data, error)``.
        An interrupt arriving meanwhile is raised once the transaction is over."""
        with self.shield:
            return self._attempt_all(servo_id, operation, attempt, tries)

    def _attempt_all(self, servo_id: int, operation: str, attempt: Callable[[], Tuple[object, int, int]],
                     tries: int) -> Tuple[object, int]:
        self.counters.transactions += 1
        result = self.SUCCESS
        for index in range(tries):
            if index:
                self.counters.retries += 1
            try:
                data, result, error = attempt()
            except IndexError:  # dynamixel_sdk indexes a valid status packet shorter than asked for
                data, result, error = None, self.CORRUPT, 0  # (a late reply to an earlier instruction)
            if result == self.SUCCESS:
                return data, error
            if result == self.TIMEOUT:
                self.counters.timeouts += 1
            elif result == self.CORRUPT:
                self.counters.corrupt += 1
            else:
                self.counters.other += 1
        self.counters.failures += 1
        raise self.failure(servo_id, operation, self.handler.getTxRxResult(result).replace("[TxRxResult] ", ""), tries)

    def check_status(self, servo_id: int, operation: str, error: int, hardware_ok: bool = False) -> None:
        """Raise for a status packet's error field (hardware errors first). ``hardware_ok``: a
        hardware error alone (the instruction was executed; the servo is in alarm) is no error
        (the torque release of a servo in alarm)."""
        if not error:
            return
        if self.protocol == 1:
            names = bit_names(error, P1_ERROR_BITS)
            hardware = [n for n in names if n in P1_HARDWARE_BITS]
            if hardware_ok and hardware and len(hardware) == len(names):
                return
            if hardware:
                raise HardwareError(servo_id, hardware)
            raise StatusError(servo_id, operation, names)
        if hardware_ok and error == P2_ALERT:
            return
        if error & P2_ALERT:
            status, _ = self._attempts(
                servo_id, "read Hardware Error Status",
                lambda: self.handler.read1ByteTxRx(self.port, servo_id, HARDWARE_ERROR_STATUS), 1 + self.retries,
            )
            raise HardwareError(servo_id, bit_names(int(status), HARDWARE_ERROR_BITS) or ["alert"])
        number = error & 0x7F
        raise StatusError(servo_id, operation, [P2_ERROR_NUMBERS.get(number, f"error number {number}")])

    def ping(self, servo_id: int) -> int:
        """Model number of servo ``servo_id``."""
        model, error = self._attempts(servo_id, "ping", lambda: self.handler.ping(self.port, servo_id), 1 + self.retries)
        self.check_status(servo_id, "ping", error)
        return int(model)

    def read(self, servo_id: int, address: int, size: int, operation: str = "read", hardware_ok: bool = False) -> int:
        """Unsigned value of ``size`` (1, 2 or 4) bytes at ``address`` (``hardware_ok``: see
        :meth:`check_status`)."""
        def attempt() -> Tuple[object, int, int]:
            data, result, error = self.handler.readTxRx(self.port, servo_id, address, size)
            if result == self.SUCCESS and len(data) < size and not error:
                result = self.CORRUPT  # a short status packet: a late reply to another instruction
            return data, result, error

        data, error = self._attempts(servo_id, operation, attempt, 1 + self.retries)
        self.check_status(servo_id, operation, error, hardware_ok)  # a refused read has an error and no data
        return int.from_bytes(bytes(data[:size]), "little")  # type: ignore[index]

    def write(self, servo_id: int, address: int, size: int, raw: int, operation: str = "write", tries: int = 0,
              hardware_ok: bool = False) -> None:
        """Write ``size`` (1, 2 or 4) bytes and check the status packet (``hardware_ok``: see
        :meth:`check_status`)."""
        call = {1: self.handler.write1ByteTxRx, 2: self.handler.write2ByteTxRx, 4: self.handler.write4ByteTxRx}[size]
        _, error = self._attempts(
            servo_id, operation, lambda: (None, *call(self.port, servo_id, address, raw)), tries or 1 + self.retries
        )
        self.check_status(servo_id, operation, error, hardware_ok)

    def sync_write(self, address: int, size: int, values: Dict[int, int]) -> None:
        """One SYNC WRITE of ``size``-byte values ``{id: raw}`` (no status packets)."""
        group = GroupSyncWrite(self.port, self.handler, address, size)
        for servo_id, raw in values.items():
            group.addParam(servo_id, list(int(raw).to_bytes(size, "little", signed=False)))
        self._attempts(-1, "sync write", lambda: (None, group.txPacket(), 0), 1 + self.retries)

    def read_block(self, servo_ids: Sequence[int], address: int, length: int) -> Dict[int, bytes]:
        """``length`` bytes at ``address`` from every servo in one transaction; ``{id: bytes}``."""
        ids = list(servo_ids)
        operation = f"read {length} bytes at address {address}"
        send = self._block_sender(ids, address, length)
        failed_id = ids[0]

        def attempt() -> Tuple[object, int, int]:
            nonlocal failed_id
            result = send()
            if result != self.SUCCESS:
                return None, result, 0
            replies: List[Tuple[int, list, int]] = []
            for servo_id in ids:
                data, result, error = self.handler.readRx(self.port, servo_id, length)
                if result == self.SUCCESS and len(data) < length:
                    result = self.CORRUPT
                if result != self.SUCCESS:
                    failed_id = servo_id
                    return None, result, 0
                replies.append((servo_id, data, error))
            return replies, self.SUCCESS, 0

        try:
            replies, _ = self._attempts(ids[0], operation, attempt, 1 + self.retries)
        except self.failure as error:
            raise self.failure(failed_id, error.operation, error.result, error.attempts) from None
        out: Dict[int, bytes] = {}
        for servo_id, data, error in replies:  # type: ignore[union-attr]
            self.check_status(servo_id, operation, error)
            out[servo_id] = bytes(data[:length])
        return out

    def _block_sender(self, ids: List[int], address: int, length: int) -> Callable[[], int]:
        """The instruction of a block read: SYNC READ (P2), BULK READ (P1, several servos), READ (P1, one)."""
        if self.protocol == 2:
            group = GroupSyncRead(self.port, self.handler, address, length)
            for servo_id in ids:
                group.addParam(servo_id)
            return group.txPacket
        if len(ids) == 1:
            return lambda: self.handler.readTx(self.port, ids[0], address, length)
        param = [byte for servo_id in ids for byte in (length, servo_id, address)]
        return lambda: self.handler.bulkReadTx(self.port, param, len(param))

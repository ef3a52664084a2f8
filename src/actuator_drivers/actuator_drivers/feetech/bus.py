"""A Feetech STS bus on the vendor SDK ``feetech-servo-sdk`` (``scservo_sdk``): transactions with
retries, error counters and status error bits as exceptions.

:class:`FeetechBus` wraps one SDK ``PortHandler`` and the SDK's packet handler
(``PacketHandler(0)``: little-endian STS words); the transactions (retries, counters, ping, read,
write, block read) are those of :class:`~actuator_drivers.dynamixel.bus.DynamixelBus`, whose SDK
has the same method names, with this SDK's result codes and errors; so is its safe stop: every
transaction inside the bus's :class:`~actuator_drivers.safe_stop.InterruptShield`, and
:meth:`~actuator_drivers.serial_port.LockstepSerialPort.recover` clearing the SDK port's busy
flag before a torque release. A status packet with fault
bits set becomes a :class:`~.errors.HardwareError` naming the servo.

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

from typing import Callable, Dict, List, Optional

from scservo_sdk import (
    COMM_RX_CORRUPT,
    COMM_RX_TIMEOUT,
    COMM_SUCCESS,
    GroupSyncWrite,
    PacketHandler,
    PortHandler,
)

from ..common import ErrorCounters, LockstepClock
from ..dynamixel.bus import DynamixelBus
from ..safe_stop import InterruptShield
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


class FeetechBus(DynamixelBus):
    """One serial port of STS servos; SDK transactions with retries.

    Args:
        port: serial device (``/dev/ttyACM0`` on the SO-100 adapter board, or an emulator's pty).
        baudrate: bits/s, one of :data:`~.tables.SDK_BAUDRATES` (STS default 1000000).
        retries: extra attempts after a timeout/corrupt packet.
        latency_ms: USB latency timer assumed in receive timeouts [ms].
        clock: a :class:`~actuator_drivers.common.LockstepClock` shared with an in-process emulator.
    """

    SUCCESS, TIMEOUT, CORRUPT = COMM_SUCCESS, COMM_RX_TIMEOUT, COMM_RX_CORRUPT
    failure, port_failure = CommunicationError, PortError

    def __init__(self, port: str, baudrate: int = 1_000_000, retries: int = 3,  # pylint: disable=super-init-not-called
                 latency_ms: float = 16.0, clock: Optional[LockstepClock] = None) -> None:
        if baudrate not in SDK_BAUDRATES:
            raise ValueError(f"baudrate {baudrate!r}: feetech-servo-sdk accepts only {', '.join(map(str, SDK_BAUDRATES))}")
        if retries < 0:
            raise ValueError(f"retries {retries!r}: must be >= 0")
        if not latency_ms >= 0:
            raise ValueError(f"latency_ms {latency_ms!r}: must be >= 0")
        self.port_name, self.baudrate, self.retries, self.protocol = port, baudrate, retries, STS_END
        self.counters = ErrorCounters()
        self.port = FeetechPort(port, latency_ms, clock)
        self.handler = PacketHandler(STS_END)
        self.is_open = False
        #: defers Ctrl-C / SIGTERM to the end of a transaction (the driver holds it around whole operations)
        self.shield = InterruptShield()

    def check_status(self, servo_id: int, operation: str, error: int, hardware_ok: bool = False) -> None:
        """Raise :class:`~.errors.HardwareError` for fault bits in a status packet; with
        ``hardware_ok`` (the torque release of a servo in alarm: every STS status bit is a
        hardware fault, and the instruction was executed) they are no error."""
        if error and not hardware_ok:
            raise HardwareError(servo_id, bit_names(error))

    def sync_write(self, address: int, size: int, values: Dict[int, int]) -> None:
        """One SYNC WRITE (0x83) of ``size``-byte values ``{id: raw}`` (no status packets)."""
        group = GroupSyncWrite(self.port, self.handler, address, size)
        for servo_id, raw in values.items():
            group.addParam(servo_id, list(int(raw).to_bytes(size, "little")))
        self._attempts(-1, "sync write", lambda: (None, group.txPacket(), 0), 1 + self.retries)

    def _block_sender(self, ids: List[int], address: int, length: int) -> Callable[[], int]:
        """The block read of every cycle: one SYNC READ (0x82), whatever the number of servos."""
        return lambda: self.handler.syncReadTx(self.port, address, length, ids, len(ids))

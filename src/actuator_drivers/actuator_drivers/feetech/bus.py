"""A Feetech STS bus on the vendor SDK ``feetech-servo-sdk`` (``scservo_sdk``): transactions with
retries, error counters and status error bits as exceptions.

:class:`FeetechBus` wraps one SDK ``PortHandler`` and the SDK's packet handler
(``PacketHandler(0)``: little-endian STS words); the transactions (retries, counters, ping, read,
write, sync write, block read) are those of the serial-bus core
(:class:`~actuator_drivers.serial_bus.bus.SerialBus`), with this SDK's port, result codes and
errors; so is its safe stop: every
transaction inside the bus's :class:`~actuator_drivers.safe_stop.InterruptShield`, and
:meth:`~actuator_drivers.serial_port.LockstepSerialPort.recover` clearing the SDK port's busy
flag before a torque release. A status packet with fault
bits set becomes a :class:`~.errors.HardwareError` naming the servo.

The block read of every cycle is one SYNC READ (0x82): ``syncReadTx`` sends it, and each
servo's status packet is received by the serial-bus core's checked receive so that its error byte
is checked (the SDK's ``GroupSyncRead`` drops it) and no late reply is taken.

Two SDK facts the port corrects (``docs/FEETECH.md``): ``PortHandler.clearPort`` of
feetech-servo-sdk 1.0.0 flushes the *output* before each transmission, so a late status packet
would be taken as the answer to the next instruction: :class:`FeetechPort` also discards the
input there (as dynamixel-sdk and the vendor's newer ftservo-python-sdk do); and the SDK keeps
its byte order in a module global set by ``PacketHandler(end)``: this bus sets 0 (STS/SMS), so
SCS servos (big-endian) cannot share a process with it.
"""

from __future__ import annotations

from typing import Callable, List, Union

from scservo_sdk import (
    COMM_RX_CORRUPT,
    COMM_RX_TIMEOUT,
    COMM_SUCCESS,
    GroupSyncWrite,
    PacketHandler,
    PortHandler,
)

from ..common import LockstepClock, WallClock
from ..serial_bus.bus import SerialBus
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


class FeetechBus(SerialBus):
    """One serial port of STS servos; SDK transactions with retries.

    Args:
        port: serial device (``/dev/ttyACM0`` on the SO-100 adapter board, or an emulator's pty).
        baudrate: bits/s, one of :data:`~.tables.SDK_BAUDRATES` (STS default 1000000).
        retries, latency_ms, clock: see :class:`~actuator_drivers.serial_bus.bus.SerialBus`.
    """

    SDK, BAUDRATES, PORT, GROUP_SYNC_WRITE = "feetech-servo-sdk", SDK_BAUDRATES, FeetechPort, GroupSyncWrite
    SUCCESS, TIMEOUT, CORRUPT = COMM_SUCCESS, COMM_RX_TIMEOUT, COMM_RX_CORRUPT
    failure, port_failure = CommunicationError, PortError
    protocol = STS_END  # the SDK's "protocol end" (0: little-endian STS/SMS words)

    def __init__(self, port: str, baudrate: int = 1_000_000, retries: int = 3, latency_ms: float = 16.0,
                 clock: Union[WallClock, LockstepClock, None] = None) -> None:
        super().__init__(port, baudrate, retries, latency_ms, clock)

    def packet_handler(self):
        return PacketHandler(STS_END)

    def check_status(self, servo_id: int, operation: str, error: int, hardware_ok: bool = False) -> None:
        """Raise :class:`~.errors.HardwareError` for fault bits in a status packet; with
        ``hardware_ok`` (the torque release of a servo in alarm: every STS status bit is a
        hardware fault, and the instruction was executed) they are no error."""
        if error and not hardware_ok:
            raise HardwareError(servo_id, bit_names(error))

    def _block_sender(self, ids: List[int], address: int, length: int) -> Callable[[], int]:
        """The block read of every cycle: one SYNC READ (0x82), whatever the number of servos."""
        return lambda: self.handler.syncReadTx(self.port, address, length, ids, len(ids))

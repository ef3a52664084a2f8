"""A Dynamixel bus on ``dynamixel_sdk``: the serial-bus core's transactions
(:class:`~actuator_drivers.serial_bus.bus.SerialBus`: retries, error counters, Ctrl-C deferral)
with Protocol 1.0 or 2.0 and the Dynamixel status errors.

A status packet whose error field is set becomes a
:class:`~actuator_drivers.dynamixel.errors.HardwareError` (Protocol 1.0
voltage/overheating/overload bits, Protocol 2.0 Alert bit: the bits of Hardware Error Status(70)
are read and named) or a :class:`~actuator_drivers.dynamixel.errors.StatusError` (a refused
instruction), each naming the servo ID.

The block read of every cycle is one SYNC READ (Protocol 2.0), one BULK READ (Protocol 1.0, two
servos or more; MX firmware supports it) or one READ (Protocol 1.0, one servo). The SDK's
``GroupSyncRead`` sends the SYNC READ; status packets are then received one by one with
the serial-bus core's checked receive so that each servo's error field is checked (the group
classes drop it) and no late reply is taken (:mod:`actuator_drivers.serial_bus.bus`). Protocol 1.0 BULK READ is sent with ``Protocol1PacketHandler.bulkReadTx`` directly:
``GroupBulkRead.txPacket`` of dynamixel-sdk 4.x passes a Protocol 2.0-only argument to it.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Tuple, Union

from dynamixel_sdk import (
    COMM_RX_CORRUPT,
    COMM_RX_TIMEOUT,
    COMM_SUCCESS,
    GroupSyncRead,
    GroupSyncWrite,
    PacketHandler,
    PortHandler,
)
from dynamixel_sdk.protocol2_packet_handler import PKT_ERROR, PKT_ID, PKT_INSTRUCTION, PKT_LENGTH_H, PKT_LENGTH_L

from actuator_drivers.common import ErrorCounters, LockstepClock, WallClock  # noqa: F401 (ErrorCounters re-exported)
from actuator_drivers.dynamixel.family import BAUDRATES
from actuator_drivers.serial_bus.bus import SerialBus
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
SDK_BAUDRATES = BAUDRATES
HARDWARE_ERROR_STATUS = 70  # Protocol 2.0 address of Hardware Error Status (MX(2.0), X series)
P2_STATUS = 0x55  # Protocol 2.0 instruction field of a status packet


class BusPort(LockstepSerialPort, PortHandler):
    """dynamixel-sdk's ``PortHandler`` with the waiting, lockstep and recovery rules of
    :class:`~actuator_drivers.serial_port.LockstepSerialPort`."""


class DynamixelBus(SerialBus):
    """One serial port, one protocol; SDK transactions with retries.

    Args:
        port: serial device (``/dev/ttyUSB0``, or an emulator's pty).
        protocol: 1 or 2.
        baudrate: bits/s, one of :data:`SDK_BAUDRATES`.
        retries, latency_ms, clock: see :class:`~actuator_drivers.serial_bus.bus.SerialBus`.
    """

    SDK, BAUDRATES, PORT, GROUP_SYNC_WRITE = "dynamixel-sdk", SDK_BAUDRATES, BusPort, GroupSyncWrite
    SUCCESS, TIMEOUT, CORRUPT = COMM_SUCCESS, COMM_RX_TIMEOUT, COMM_RX_CORRUPT
    failure, port_failure = CommunicationError, PortError

    def __init__(self, port: str, protocol: int = 2, baudrate: int = 57600, retries: int = 3,
                 latency_ms: float = 16.0, clock: Union[WallClock, LockstepClock, None] = None) -> None:
        if protocol not in (1, 2):
            raise ValueError(f"protocol {protocol!r}: expected 1 or 2")
        self.protocol = protocol
        super().__init__(port, baudrate, retries, latency_ms, clock)

    def status_bytes(self) -> int:
        """Protocol 2.0: FF FF FD 00 ID LEN_L LEN_H 0x55 ERROR CRC_L CRC_H."""
        return 6 if self.protocol == 1 else 11

    def receive_packet(self) -> Tuple[List[int], int]:
        if self.protocol == 1:
            return super().receive_packet()
        return self.handler.rxPacket(self.port, False)  # False: no FAST SYNC READ framing

    def status_fields(self, packet: List[int]) -> Optional[Tuple[int, int, List[int]]]:
        """Protocol 2.0: FF FF FD 00 ID LEN_L LEN_H 0x55 ERROR PARAMETERS... CRC_L CRC_H (a
        packet with another instruction, e.g. an adapter's echo, is no status packet)."""
        if self.protocol == 1:
            return super().status_fields(packet)
        if packet[PKT_INSTRUCTION] != P2_STATUS:
            return None
        length = packet[PKT_LENGTH_L] | packet[PKT_LENGTH_H] << 8  # instruction, error, parameters, CRC
        return packet[PKT_ID], packet[PKT_ERROR], list(packet[PKT_ERROR + 1 : PKT_ERROR + 1 + length - 4])

    def packet_handler(self):
        return PacketHandler(float(self.protocol))

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
                [servo_id], "read Hardware Error Status",
                lambda: self._read_once(servo_id, HARDWARE_ERROR_STATUS, 1), 1 + self.retries,
            )
            raise HardwareError(servo_id, bit_names(status[0] if status else 0, HARDWARE_ERROR_BITS) or ["alert"])
        number = error & 0x7F
        raise StatusError(servo_id, operation, [P2_ERROR_NUMBERS.get(number, f"error number {number}")])

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

"""Dynamixel errors: the status-packet error field decoded into named bits, and the exceptions.

Protocol 1.0 error byte (e-manual "Protocol 1.0", Status Packet): one flag per bit.
Protocol 2.0 error byte (e-manual "Protocol 2.0"): bit 7 = Alert (a hardware error, details in
Hardware Error Status(70)), bits 0-6 = one error number. Hardware Error Status(70) bits (MX(2.0),
X series): 0 input voltage, 2 overheating, 3 motor encoder, 4 electrical shock, 5 overload.
"""

from __future__ import annotations

from typing import Dict, List, Sequence

from actuator_drivers.common import CommandTimeout, DriverError, LimitError
from actuator_drivers.serial_bus.errors import BusFailure

P1_ERROR_BITS: Dict[int, str] = {
    0: "input_voltage",
    1: "angle_limit",
    2: "overheating",
    3: "range",
    4: "checksum",
    5: "overload",
    6: "instruction",
}
#: Protocol 1.0 bits that report the servo's hardware state (the others report a bad instruction).
P1_HARDWARE_BITS = ("input_voltage", "overheating", "overload")

P2_ALERT = 0x80
P2_ERROR_NUMBERS: Dict[int, str] = {
    1: "result_fail",
    2: "instruction",
    3: "crc",
    4: "data_range",
    5: "data_length",
    6: "data_limit",
    7: "access",
}
HARDWARE_ERROR_BITS: Dict[int, str] = {
    0: "input_voltage",
    2: "overheating",
    3: "motor_encoder",
    4: "electrical_shock",
    5: "overload",
}


def bit_names(value: int, names: Dict[int, str]) -> List[str]:
    """Names of the bits set in ``value`` (unknown bits as ``bit<N>``)."""
    return [names.get(bit, f"bit{bit}") for bit in range(8) if value & (1 << bit)]


def bits_of(names: Sequence[str], table: Dict[int, str]) -> int:
    """The byte with the named bits set; raises ValueError naming an unknown bit."""
    value = 0
    lookup = {name: bit for bit, name in table.items()}
    for name in names:
        if name not in lookup:
            raise ValueError(f"unknown error bit {name!r}; expected one of {', '.join(lookup)}")
        value |= 1 << lookup[name]
    return value


class DynamixelError(DriverError):
    """Base class of every Dynamixel driver error."""


class PortError(DynamixelError):
    """The serial port cannot be opened."""


class CommunicationError(DynamixelError, BusFailure):
    """No valid status packet after every retry (timeout or corrupt packets).

    Attributes: servo_id, operation, result (SDK ``COMM_*`` code), attempts.
    """

    ADVICE = "check power, cable, baud rate, protocol and ID"


class StatusError(DynamixelError):
    """The servo refused an instruction (Protocol 1.0 range/angle/instruction bits,
    Protocol 2.0 error number). Attributes: servo_id, operation, errors (names)."""

    def __init__(self, servo_id: int, operation: str, errors: Sequence[str]) -> None:
        self.servo_id, self.operation, self.errors = servo_id, operation, list(errors)
        super().__init__(f"servo {servo_id}: {operation}: the servo reported error {', '.join(errors)}")


class HardwareError(DynamixelError):
    """The servo reports a hardware fault (overload, overheating, input voltage, ...).

    Attributes: servo_id, bits (names, e.g. ``["overload"]``).
    """

    def __init__(self, servo_id: int, bits: Sequence[str]) -> None:
        self.servo_id, self.bits = servo_id, list(bits)
        super().__init__(f"servo {servo_id}: hardware error {', '.join(bits)}; torque is off "
                         "(Protocol 2.0: reboot the servo to clear it)")


class ModelMismatchError(DynamixelError):
    """Ping answered with another model number than configured."""


class JointLimitError(DynamixelError, LimitError):
    """A goal outside the joint limits; nothing was sent."""


class WatchdogError(DynamixelError, CommandTimeout):
    """Torque was released because no command arrived within the command timeout."""


class ReleaseError(DynamixelError):
    """A servo still reports torque on (or did not answer) after the torque release."""

"""Feetech status errors and the driver's exceptions.

The status packet's error byte carries the servo's fault bits, named after the SDK's
``ERRBIT_*`` constants (``scservo_sdk/protocol_packet_handler.py``): bit 0 input voltage,
bit 1 angle (magnetic encoder) sensor, bit 2 overheating, bit 3 overcurrent ("OverEle"),
bit 5 overload. The SDK rejects a status packet whose error byte is above 0x7F.
"""

from __future__ import annotations

from typing import Dict, List, Sequence

from ..common import CommandTimeout, DriverError, LimitError
from ..serial_bus.errors import BusFailure

STATUS_BITS: Dict[int, str] = {0: "input_voltage", 1: "angle_sensor", 2: "overheating", 3: "overcurrent",
                               5: "overload"}


def bit_names(value: int) -> List[str]:
    """Names of the bits set in a status error byte (unknown bits as ``bit<N>``)."""
    return [STATUS_BITS.get(bit, f"bit{bit}") for bit in range(8) if value & (1 << bit)]


def status_byte(names: Sequence[str]) -> int:
    """The error byte with the named bits set; ValueError naming an unknown bit."""
    lookup = {name: bit for bit, name in STATUS_BITS.items()}
    value = 0
    for name in names:
        if name not in lookup:
            raise ValueError(f"unknown Feetech error bit {name!r}; expected one of {', '.join(lookup)}")
        value |= 1 << lookup[name]
    return value


class FeetechError(DriverError):
    """Base class of every Feetech driver error."""


class PortError(FeetechError):
    """The serial port cannot be opened."""


class CommunicationError(FeetechError, BusFailure):
    """No valid status packet after every retry. Attributes: servo_id, operation, result, attempts."""

    ADVICE = "check power, cable, baud rate (STS default 1000000) and ID"


class HardwareError(FeetechError):
    """The servo's status packet reports fault bits. Attributes: servo_id, bits (names)."""

    def __init__(self, servo_id: int, bits: Sequence[str]) -> None:
        self.servo_id, self.bits = servo_id, list(bits)
        super().__init__(f"servo {servo_id}: hardware error {', '.join(bits)}; torque is off")


class ModelMismatchError(FeetechError):
    """The servo's model number is not the configured one."""


class JointLimitError(FeetechError, LimitError):
    """A goal outside the joint limits; nothing was sent."""


class WatchdogError(FeetechError, CommandTimeout):
    """Torque was released because no command arrived within the command timeout."""


class ReleaseError(FeetechError):
    """Torque Enable still reads 1 after the torque-off writes (or the servo could not be reached)."""

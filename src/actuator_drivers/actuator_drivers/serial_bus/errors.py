"""The error every serial-bus family raises when a transaction fails every attempt
(:attr:`~actuator_drivers.serial_bus.bus.SerialBus.failure`): the core reads its fields to name
the servo that failed a block read."""

from __future__ import annotations

from actuator_drivers.common import DriverError


class BusFailure(DriverError):
    """No valid status packet after every retry (timeouts or corrupt packets).

    Attributes: servo_id, operation, result (the SDK's words for its ``COMM_*`` code), attempts.
    A family subclasses it with its own :attr:`ADVICE`.
    """

    #: what the message tells the user to check
    ADVICE = "check power, cable, baud rate and ID"

    def __init__(self, servo_id: int, operation: str, result: str, attempts: int) -> None:
        self.servo_id, self.operation, self.result, self.attempts = servo_id, operation, result, attempts
        super().__init__(f"servo {servo_id}: {operation}: {result} after {attempts} attempt(s); {self.ADVICE}")

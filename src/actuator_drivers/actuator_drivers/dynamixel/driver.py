"""Dynamixel driver (ROS-free): MX-64 / MX-106 (Protocol 1.0 or 2.0 firmware) and XL330 (Protocol 2.0).

:class:`DynamixelDriver` is the serial-bus driver core
(:class:`~actuator_drivers.serial_bus.driver.SerialBusDriver`: limits before sending, watchdog,
torque release read back, Ctrl-C deferral) over a :class:`~.bus.DynamixelBus` and the Dynamixel
control tables. Setup puts the firmware in the plain P position law the servo models assume (D
and I gains 0, no profile, position mode 3 on Protocol 2.0). :meth:`read` decodes one block read
of position, velocity, load/PWM, current (Protocol 2.0), input voltage and temperature.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from actuator_models.bench import WallClock
from actuator_drivers.common import LockstepClock
from actuator_drivers.dynamixel.bus import DynamixelBus
from actuator_drivers.dynamixel.errors import DynamixelError, JointLimitError, ModelMismatchError, ReleaseError
from actuator_drivers.dynamixel.tables import ControlTable, control_table, table_for_model_number
from actuator_drivers.serial_bus.driver import SerialBusDriver
from actuator_drivers.serial_bus.servo import ServoConfig, ServoState

__all__ = ["DynamixelDriver", "ServoConfig", "ServoState"]

_P2_PLAIN_P = ("position_d_gain", "position_i_gain", "feedforward_1st_gain", "feedforward_2nd_gain",
               "profile_velocity", "profile_acceleration")
_P1_PLAIN_P = ("d_gain", "i_gain", "moving_speed")


class DynamixelDriver(SerialBusDriver):
    """Driver of the servos on one Dynamixel bus.

    Args:
        port: serial device or emulator pty.
        servos: the servos (all of one protocol); a single :class:`ServoConfig` is accepted.
        protocol: 1 (MX Protocol 1.0 firmware) or 2.
        baudrate, retries, command_timeout, latency_ms, clock: see
            :class:`~actuator_drivers.serial_bus.driver.SerialBusDriver`.
    """

    faults, limit_error, release_error, mismatch_error = DynamixelError, JointLimitError, ReleaseError, ModelMismatchError

    def __init__(
        self,
        port: str,
        servos: Union[ServoConfig, Sequence[ServoConfig]],
        protocol: int = 2,
        baudrate: int = 57600,
        retries: int = 3,
        command_timeout: Optional[float] = 0.5,
        latency_ms: float = 16.0,
        clock: Union[WallClock, LockstepClock, None] = None,
    ) -> None:
        self.PLAIN_P = _P1_PLAIN_P if protocol == 1 else _P2_PLAIN_P
        super().__init__(port, servos, protocol, baudrate, retries, command_timeout, latency_ms, clock)

    def _table(self, actuator: str, protocol: int) -> ControlTable:
        return control_table(actuator, protocol)

    def _bus(self, port: str, protocol: int, baudrate: int, retries: int, latency_ms: float) -> DynamixelBus:
        return DynamixelBus(port, protocol, baudrate, retries, latency_ms, clock=self.clock)

    def _table_for_model_number(self, model_number: int) -> Optional[ControlTable]:
        return table_for_model_number(model_number, self.protocol)

    def _protocol_note(self) -> str:
        return f", protocol {self.protocol}"

    def _position_mode(self, servo_id: int) -> Optional[Tuple[str, int]]:
        return ("operating_mode", 3) if self.protocol == 2 else None

    def _check_limit_mode(self, servo_id: int, low_raw: int, high_raw: int) -> None:
        if self.protocol == 1 and (low_raw == high_raw == 0 or low_raw == high_raw == 4095):
            raise DynamixelError(f"servo {servo_id}: CW/CCW angle limits {low_raw}/{high_raw} select wheel or "
                                 "multi-turn mode; set joint mode limits (e.g. 0 and 4095)")

    def _decode(self, servo_id: int, data: bytes, now: float) -> ServoState:
        table = self.tables[servo_id]
        p1 = self.protocol == 1

        def si(name: str) -> float:
            return self._field(servo_id, data, name)

        return ServoState(
            position=si("present_position"), velocity=si("present_speed" if p1 else "present_velocity"),
            load=si(table.effort_register), current=None if p1 else si(table.current_register),
            input_voltage=si("present_voltage" if p1 else "present_input_voltage"),
            temperature=si("present_temperature"), torque_enabled=self.torque[servo_id], time=now,
        )

"""Feetech STS driver (ROS-free) over feetech-servo-sdk: the same contract as the Dynamixel driver.

:class:`FeetechDriver` opens the bus, pings every servo and checks its model number (777 for the
STS3215), turns the torque off and puts the firmware in the plain P position law the servo model
assumes (position mode 0, D and I coefficients 0, acceleration 0 and goal speed 0 = no profile:
the firmware's own 3400 counts/s target-speed limit is the model's ``target_speed_limit``).
Each cycle: :meth:`command` sends goals (one SYNC WRITE of Goal Position; torque enable
written when it changes), :meth:`read` reads every servo in one SYNC READ of addresses 56-70
(position, speed, load = PWM duty, voltage, temperature, status, moving, current), in SI units.

Safety (the serial-bus driver core's, :class:`~actuator_drivers.serial_bus.driver.SerialBusDriver`,
whose lifecycle this class runs over a Feetech bus and table): goals checked against the joint
limits (configured limits within the servo's own position limits) before anything is sent;
torque off on :meth:`close` (``with``, interpreter exit), on any Feetech fault (fault bits in a
status packet, a bus that stopped answering) and by the command watchdog, each release read back
(Torque Enable, address 40: :class:`~.errors.ReleaseError` when it still reads 1); Ctrl-C or
SIGTERM inside a transaction waits for its end (the bus's
:class:`~actuator_drivers.safe_stop.InterruptShield`).

The P coefficient (address 21) lives in the EEPROM area: with Lock (55) = 1, the power-up value,
a write takes effect but is not saved across power cycles, which is what a bench wants.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from actuator_models.bench import WallClock

from ..common import LockstepClock
from ..serial_bus.driver import SerialBusDriver
from ..serial_bus.servo import ServoConfig, ServoState
from ..serial_bus.tables import ControlTable
from .bus import FeetechBus
from .errors import FeetechError, JointLimitError, ModelMismatchError, ReleaseError
from .tables import STS_END, control_table, table_for_model_number


class FeetechDriver(SerialBusDriver):
    """Driver of the STS servos on one bus.

    Args:
        port: serial device or emulator pty.
        servos: the servos; a single :class:`~actuator_drivers.serial_bus.servo.ServoConfig` is
            accepted (``actuator`` = ``sts3215``).
        baudrate: bits/s (STS default 1000000).
        retries: extra attempts per transaction after a timeout/corrupt packet.
        command_timeout: watchdog [s]; None disables it.
        latency_ms: USB latency timer used in receive timeouts [ms].
        clock: bench clock (a lockstep emulator's clock for an in-process emulator).
    """

    faults, limit_error, release_error, mismatch_error = FeetechError, JointLimitError, ReleaseError, ModelMismatchError
    #: registers zeroed at setup so that the firmware runs the plain P law
    PLAIN_P = ("d_coefficient", "i_coefficient", "acceleration", "goal_time", "goal_velocity")

    def __init__(
        self,
        port: str,
        servos: Union[ServoConfig, Sequence[ServoConfig]],
        baudrate: int = 1_000_000,
        retries: int = 3,
        command_timeout: Optional[float] = 0.5,
        latency_ms: float = 16.0,
        clock: Union[WallClock, LockstepClock, None] = None,
    ) -> None:
        super().__init__(port, servos, STS_END, baudrate, retries, command_timeout, latency_ms, clock)

    @classmethod
    def on_bus(cls, port: str, servos: Union[ServoConfig, Sequence[ServoConfig]], protocol: int, baudrate: int,
               retries: int = 3, command_timeout: Optional[float] = 0.5, latency_ms: float = 16.0,
               clock: Union[WallClock, LockstepClock, None] = None) -> "FeetechDriver":
        """The (unopened) driver (STS servos have one protocol: ``protocol`` is ignored)."""
        return cls(port, servos, baudrate, retries, command_timeout, latency_ms, clock)

    def _table(self, actuator: str, protocol: int) -> ControlTable:
        return control_table(actuator)

    def _bus(self, port: str, protocol: int, baudrate: int, retries: int, latency_ms: float) -> FeetechBus:
        return FeetechBus(port, baudrate, retries, latency_ms, clock=self.clock)

    def _table_for_model_number(self, model_number: int) -> Optional[ControlTable]:
        return table_for_model_number(model_number)

    def _position_mode(self, servo_id: int) -> Optional[Tuple[str, int]]:
        return "operating_mode", 0  # position mode: the shaft follows Goal Position

    def _decode(self, servo_id: int, data: bytes, now: float) -> ServoState:
        def si(name: str) -> float:
            return self._field(servo_id, data, name)

        return ServoState(
            position=si("present_position"), velocity=si("present_velocity"), load=si("present_load"),
            current=si("present_current"), input_voltage=si("present_voltage"),
            temperature=si("present_temperature"), torque_enabled=self.torque[servo_id], time=now,
        )

"""One servo of a serial bus: its configuration (:class:`ServoConfig`) and one cycle's reading
(:class:`ServoState`, SI units), shared by every serial-bus family's driver."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Optional, Union


#: The largest servo ID on a Dynamixel or Feetech bus (253-254: reserved and broadcast).
MAX_SERVO_ID = 252


@dataclass(frozen=True)
class ServoConfig:
    """One servo on the bus.

    Attributes:
        servo_id: bus ID. actuator: the family's actuator name (``mx64``, ``xl330``, ...).
        min_position, max_position: joint limits [rad]; goals outside are refused.
        name: joint name (default ``joint<ID>``).
    """

    servo_id: int
    actuator: str
    min_position: float = -2.8
    max_position: float = 2.8
    name: str = ""

    def __post_init__(self) -> None:
        if not 0 <= self.servo_id <= MAX_SERVO_ID:
            raise ValueError(f"servo_id {self.servo_id!r}: must be 0..{MAX_SERVO_ID}")
        if not (math.isfinite(self.min_position) and math.isfinite(self.max_position)
                and self.min_position < self.max_position):
            raise ValueError(f"servo {self.servo_id}: joint limits [{self.min_position}, {self.max_position}] rad "
                             "must be finite with min < max")

    @property
    def joint(self) -> str:
        return self.name or f"joint{self.servo_id}"


@dataclass(frozen=True)
class ServoState:
    """One servo's reading of one cycle (SI units).

    Attributes:
        position [rad], velocity [rad/s]; load: signed drive output as a fraction of full scale
        (e.g. Dynamixel Protocol 2.0 Present PWM / 885); current [A] (None where the servo has no
        current sensor); input_voltage [V]; temperature [degC];
        torque_enabled: as last commanded by this driver; time: bench time [s] at which the read
        instruction was sent (when the servo samples).
    """

    position: float
    velocity: float
    load: float
    current: Optional[float]
    input_voltage: float
    temperature: float
    torque_enabled: bool
    time: float

    @property
    def control(self) -> float:
        """Voltage the firmware applies [V]: ``load * input_voltage`` (exact for PWM, estimated on P1)."""
        return self.load * self.input_voltage


Goals = Union[float, Mapping[int, float]]
Flags = Union[bool, Mapping[int, bool]]

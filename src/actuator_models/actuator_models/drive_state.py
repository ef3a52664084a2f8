"""What a driver reads of one joint in one cycle, as the bench contract (:mod:`.bench`) uses it."""

from __future__ import annotations

from typing import Protocol


class DriveState(Protocol):
    """What a driver reads of one joint: ``time`` [s] on the bench clock, ``position`` [rad],
    ``velocity`` [rad/s], ``input_voltage`` [V], ``temperature`` [degC], ``torque_enabled``
    (a serial servo's or an eRob joint's state)."""

    @property
    def time(self) -> float: ...  # noqa: E704

    @property
    def position(self) -> float: ...  # noqa: E704

    @property
    def velocity(self) -> float: ...  # noqa: E704

    @property
    def input_voltage(self) -> float: ...  # noqa: E704

    @property
    def temperature(self) -> float: ...  # noqa: E704

    @property
    def torque_enabled(self) -> bool: ...  # noqa: E704

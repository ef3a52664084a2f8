"""One eRob drive of the line: its configuration (:class:`ErobJoint`) and one cycle's reading
(:class:`ErobState`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from actuator_models.actuators import CurrentPD, actuator as find_actuator

from actuator_drivers.erob.master import EROB_PRODUCT
from actuator_drivers.erob.units import ErobUnits


@dataclass(frozen=True)
class ErobJoint:
    """One drive of the chain (in auto-increment order).

    Attributes:
        name: joint name. actuator: ``erob80_50`` or ``erob80_100`` (PD law damping).
        lower, upper: joint limits [rad]. product: expected product code.
        units: scaling; None reads the rated current 0x6075 from the drive (the eRob80 ratings
        are not published, see :mod:`.units`).
    """

    name: str = "joint1"
    actuator: str = "erob80_100"
    lower: float = -2.8
    upper: float = 2.8
    product: int = EROB_PRODUCT
    units: Optional[ErobUnits] = None

    def __post_init__(self) -> None:
        self.law()
        if not self.lower < self.upper:
            raise ValueError(f"joint {self.name}: limits [{self.lower}, {self.upper}] are empty")

    def law(self) -> CurrentPD:
        """The drive's control law (ValueError for an actuator that is not an eRob)."""
        law = find_actuator(self.actuator)
        if not isinstance(law, CurrentPD):
            raise ValueError(f"joint {self.name}: actuator {self.actuator!r} is not an eRob (current PD law)")
        return law


@dataclass(frozen=True)
class ErobState:
    """One drive's reading of one cycle (SI units).

    Attributes: position [rad], velocity [rad/s], current [A] (torque actual 0x6077 scaled),
    load: current as a fraction of the law's 12 A limit, input_voltage: nominal bus voltage [V]
    (not measured), temperature: NaN (not read), torque_enabled: drive in "operation enabled",
    time: bench time of the cycle [s], statusword, cycle: process-data cycle number.
    """

    position: float
    velocity: float
    load: float
    current: float
    input_voltage: float
    temperature: float
    torque_enabled: bool
    time: float
    statusword: int = 0
    cycle: int = 0

    @property
    def control(self) -> float:
        """What the drive applies [A] (the log's ``control`` column)."""
        return self.current

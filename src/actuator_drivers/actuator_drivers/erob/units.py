"""eRob unit conversions, all in one place: encoder counts <-> rad, per-mille <-> A.

Sources (``shared/docs/HARDWARE_ROS_REFERENCE.md`` section 3.2):

* Position 0x6064 / 0x607A and velocity 0x606C: 2^19 = 524 288 counts per revolution, taken as
  output-side (ZeroErr's own code reads the joint angle directly from it; inferred, not stated).
* Target torque 0x6071 and torque actual 0x6077: per-mille. CiA 402 says per-mille of the motor
  rated torque 0x6076; ZeroErr's demos use it as per-mille of the motor rated *current* 0x6075.
  This project follows ZeroErr (the custom PD law commands a current).
* **The rated current and rated torque of eRob80:50 / eRob80:100 are not published.** The
  default 5.4 A is the value of one ZeroErr demo whose eRob model is not stated; read 0x6075 on
  the real drive (``ErobUnits.from_drive``) or pass ``rated_current`` explicitly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

COUNTS_PER_REV = 1 << 19
#: ZeroErr demo value (model unstated); eRob80 ratings are not published
DEFAULT_RATED_CURRENT = 5.4
INT16 = (-32768, 32767)


@dataclass(frozen=True)
class ErobUnits:
    """Scaling of one drive.

    Attributes:
        counts_per_rev: encoder counts per output revolution [counts/rev].
        rated_current: current [A] that 1000 per-mille of 0x6071 / 0x6077 stand for.
    """

    counts_per_rev: int = COUNTS_PER_REV
    rated_current: float = DEFAULT_RATED_CURRENT

    def __post_init__(self) -> None:
        if not self.counts_per_rev > 0:
            raise ValueError(f"counts_per_rev {self.counts_per_rev!r}: must be positive")
        if not (math.isfinite(self.rated_current) and self.rated_current > 0):
            raise ValueError(f"rated_current {self.rated_current!r} A: must be a positive number")

    @classmethod
    def from_drive(cls, rated_current_ma: int, counts_per_rev: int = COUNTS_PER_REV) -> "ErobUnits":
        """Units from the drive's 0x6075 (motor rated current, mA)."""
        if rated_current_ma <= 0:
            raise ValueError(f"0x6075 motor rated current {rated_current_ma} mA: must be positive")
        return cls(counts_per_rev, rated_current_ma / 1000.0)

    def rad(self, counts: int) -> float:
        """Position [rad] from counts."""
        return counts * 2.0 * math.pi / self.counts_per_rev

    def counts(self, rad: float) -> int:
        """Counts (int32) from a position [rad]."""
        return int(round(rad * self.counts_per_rev / (2.0 * math.pi)))

    def amps(self, permille: int) -> float:
        """Current [A] from a per-mille torque/current value."""
        return permille * self.rated_current / 1000.0

    def permille(self, amps: float) -> int:
        """Per-mille value (int16, saturated) for a current [A]."""
        value = int(round(amps * 1000.0 / self.rated_current))
        return max(INT16[0], min(INT16[1], value))

"""Clocks for control loops: wall time, or wall time sped up for an emulator running faster.

A :class:`Clock` measures seconds of *bench time*. With ``scale = 4`` bench time runs four times
faster than the wall clock, so a 6 s trajectory takes 1.5 s when the emulated servo's physics
run at the same scale.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field


@dataclass
class Clock:
    """Monotonic bench time [s] since construction, ``scale`` times faster than the wall clock."""

    scale: float = 1.0
    _origin: float = field(default_factory=time.monotonic, repr=False)

    def __post_init__(self) -> None:
        if not self.scale > 0:
            raise ValueError(f"clock scale {self.scale!r}: must be a positive number")

    def now(self) -> float:
        """Bench time [s]."""
        return (time.monotonic() - self._origin) * self.scale

    def sleep(self, seconds: float) -> None:
        """Sleep ``seconds`` of bench time (no-op if not positive)."""
        if seconds > 0:
            time.sleep(seconds / self.scale)

    def sleep_until(self, t: float) -> None:
        """Sleep until bench time ``t`` [s]."""
        self.sleep(t - self.now())

    def wall(self, seconds: float) -> float:
        """Wall-clock seconds that ``seconds`` of bench time take."""
        return seconds / self.scale

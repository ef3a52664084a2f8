"""When an emulated drive's control cycles run, and so how far its shaft has moved when a
process-data frame arrives.

A real eRob with distributed clocks runs one control cycle per SYNC0 event on its own clock: the
shaft moves in real time whether or not a frame came, and a cycle without a new frame applies the
last target torque received. An emulator has two honest ways to be that drive:

* :class:`FrameCycles` (lockstep): one cycle per process-data frame. The master's exchange is the
  clock: right for a master whose bench time is cycles x cycle time (``Stepped`` pacing), and a
  recording depends only on the frames exchanged.
* :class:`ClockCycles` (real time): cycles every period on a clock (the host's monotonic clock), as
  SYNC0 fires. A frame that arrives ``n`` periods after the previous one finds ``n`` cycles run,
  the ``n - 1`` it missed on the previous target torque. Right for a master paced on the wall
  clock (``Realtime``), whose bench time is wall time: with :class:`FrameCycles` such a master's
  late cycles (a loaded host skips some, and resynchronises) would be time the shaft never lived,
  and the joint would fall behind the servo model run on bench time (issue 36: 0.16 rad on
  lift_and_drop, ``benchmarks/erob_tracking.py``).
"""

from __future__ import annotations

import time
from typing import Callable, Optional, Protocol


class DriveCycles(Protocol):
    """How many drive cycles have run when a process-data frame arrives."""

    def restart(self) -> None:
        """The line (re)entered OP: cycles start again at the next frame."""

    def due(self, period_ns: int) -> int:
        """Cycles run since the previous frame, this frame's own included (0: the frame came
        before the next cycle: its target torque is applied from that cycle on)."""


class FrameCycles:
    """One drive cycle per process-data frame (lockstep with a master whose exchange is the clock)."""

    def restart(self) -> None:
        pass

    def due(self, period_ns: int) -> int:
        return 1


class ClockCycles:
    """Drive cycles every ``period_ns`` on ``clock_ns`` (monotonic nanoseconds), from the first
    frame after :meth:`restart` (its cycle is the first). A frame counts the cycles whose instant
    is within half a period of its arrival or before (SYNC0 half a cycle after the frames' nominal
    arrival, where a master places it), so frames jittering by less than half a period each find
    one cycle."""

    def __init__(self, clock_ns: Callable[[], int] = time.monotonic_ns) -> None:
        self._clock = clock_ns
        self._start: Optional[int] = None
        self._run = 0

    def restart(self) -> None:
        self._start, self._run = None, 0

    def due(self, period_ns: int) -> int:
        now = self._clock()
        if self._start is None:
            self._start = now
        total = (now - self._start + period_ns // 2) // period_ns + 1
        new = max(0, total - self._run)
        self._run += new
        return new

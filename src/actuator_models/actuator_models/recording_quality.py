"""What happened during a recording: achieved rate, gaps, retries and communication errors.

A recording asked for ``rate`` samples per second gets what the bus and the host allow:
:func:`measure` turns its timestamps (and the driver's counters) into a
:class:`RecordingQuality`, stored in the raw log's ``"recording"`` field and printed by the
recording tools. A *gap* is an interval between consecutive samples longer than twice the
requested period.

:func:`processing_warning` says when a raw log is too sparse for the time step it is processed
at (interpolation would invent the missing motion): its achieved rate is below
:data:`MIN_RATE_FRACTION` of ``1 / dt``, or an interval exceeds :data:`MAX_GAP_STEPS` steps.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Mapping, Optional, Sequence, Union

import numpy as np

#: A raw log whose achieved rate is below this fraction of the processing rate ``1 / dt`` is flagged.
MIN_RATE_FRACTION = 0.75
#: A raw log with an interval longer than this many processing steps is flagged.
MAX_GAP_STEPS = 4.0


@dataclass(frozen=True)
class RecordingQuality:
    """Measured quality of one recording.

    Attributes:
        requested_rate: samples per second asked for [Hz] (0 if unknown).
        achieved_rate: ``(samples - 1) / time span`` [Hz].
        samples: number of samples.
        gaps: intervals longer than twice the requested period (``2 / requested_rate``).
        longest_gap: the longest interval between two samples [s].
        retries: bus transactions repeated after a failed attempt.
        comm_errors: failed attempts (timeouts, corrupt packets, other).
    """

    requested_rate: float
    achieved_rate: float
    samples: int
    gaps: int
    longest_gap: float
    retries: int = 0
    comm_errors: int = 0

    def to_dict(self) -> dict:
        """JSON-ready fields (the raw log's ``"recording"`` object)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> "RecordingQuality":
        """Inverse of :meth:`to_dict`; ValueError naming the field if one is missing or not a number >= 0."""
        def number(name: str) -> Union[int, float]:
            value = data.get(name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise ValueError(f"field 'recording.{name}': expected a number >= 0, got {value!r}")
            return value

        # keyword order is field order: the first bad field (in field order) is the one named
        return cls(requested_rate=float(number("requested_rate")), achieved_rate=float(number("achieved_rate")),
                   samples=int(number("samples")), gaps=int(number("gaps")), longest_gap=float(number("longest_gap")),
                   retries=int(number("retries")), comm_errors=int(number("comm_errors")))

    def summary(self) -> str:
        """One line: ``200 Hz asked, 164 Hz achieved, 28 gaps > 10 ms (longest 90.0 ms), 3 retries, 3 comm errors``."""
        period = 2000.0 / self.requested_rate if self.requested_rate > 0 else math.nan
        return (f"{self.requested_rate:.0f} Hz asked, {self.achieved_rate:.0f} Hz achieved, {self.gaps} gaps > "
                f"{period:.0f} ms (longest {1000 * self.longest_gap:.1f} ms), {self.retries} retries, "
                f"{self.comm_errors} comm errors")


def measure(timestamps: Union[Sequence[float], np.ndarray], requested_rate: float, retries: int = 0,
            comm_errors: int = 0) -> RecordingQuality:
    """Quality of a recording whose samples were taken at ``timestamps`` [s] (increasing), asked
    at ``requested_rate`` [Hz]."""
    if not (requested_rate > 0 and math.isfinite(requested_rate)):
        raise ValueError(f"requested rate {requested_rate!r}: must be a positive number of samples per second")
    t = np.asarray(timestamps, dtype=float)
    intervals = np.diff(t)
    span = float(t[-1] - t[0]) if len(t) > 1 else 0.0
    return RecordingQuality(
        requested_rate=float(requested_rate),
        achieved_rate=(len(t) - 1) / span if span > 0 else 0.0,
        samples=len(t),
        gaps=int(np.count_nonzero(intervals > 2.0 / requested_rate * (1 + 1e-9))),
        longest_gap=float(intervals.max()) if len(intervals) else 0.0,
        retries=int(retries),
        comm_errors=int(comm_errors),
    )


def processing_warning(timestamps: Union[Sequence[float], np.ndarray], dt: float, source: str = "log") -> Optional[str]:
    """A one-line warning (``source: what``) if a raw log sampled at ``timestamps`` [s] is too
    sparse to process at ``dt`` [s]; None if it is fine."""
    t = np.asarray(timestamps, dtype=float)
    if len(t) < 2 or not dt > 0:
        return None
    span = float(t[-1] - t[0])
    rate = (len(t) - 1) / span if span > 0 else 0.0
    longest = float(np.diff(t).max())
    problems = []
    if rate < MIN_RATE_FRACTION / dt:
        problems.append(f"achieved rate {rate:.0f} Hz is far below the processing rate {1 / dt:.0f} Hz")
    if longest > MAX_GAP_STEPS * dt:
        problems.append(f"a gap of {1000 * longest:.0f} ms spans {longest / dt:.0f} steps of {1000 * dt:g} ms")
    if not problems:
        return None
    return f"{source}: " + "; ".join(problems) + " (the processed log interpolates what was not measured)"

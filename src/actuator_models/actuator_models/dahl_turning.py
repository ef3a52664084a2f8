"""Reversals of a sampled displacement for the Dahl identification's stage 2 (hysteresis band).

Sign changes of successive differences turn every bit of measurement noise into a reversal;
here a reversal counts only once the displacement has come back from its running extreme by a
band, and the turning point is refined to the vertex of a parabola through the samples near the
extreme. Units: whatever ``x`` has (rad or m); indices are sample numbers.
"""

from __future__ import annotations

from typing import List, Tuple

import numpy as np

#: A reversal of x counts once x has come back by this fraction of its range (noise is ignored below it).
TURN_BAND = 0.05


def turning_points(x: np.ndarray, band: float = TURN_BAND) -> Tuple[np.ndarray, np.ndarray]:
    """Indices of the local minima and maxima of ``x`` (where its direction reverses).

    A reversal counts once ``x`` has come back from its running extreme by more than ``band``
    times the range of ``x`` (a hysteresis band): measurement noise smaller than that cannot
    make turning points (sign changes of successive differences did, at 1e-6 rad, issue 25).
    The turning point is the vertex of a parabola fitted (over the sample index) to the samples
    around the extreme sample within half the band of it: noise moves the extreme sample along a
    flat reversal, not the vertex (on a plateau of equal samples, a quantised encoder, it is the
    plateau's middle). The first sample never is one.
    """
    x = np.asarray(x, dtype=float)
    threshold = band * float(np.ptp(x)) if x.size else 0.0
    if not threshold > 0.0:
        return np.array([], dtype=int), np.array([], dtype=int)
    minima: List[int] = []
    maxima: List[int] = []
    direction = 0
    hi = hi_last = lo = lo_last = 0
    for i in range(1, x.size):
        v = x[i]
        if v > x[hi]:
            hi = hi_last = i
        elif v == x[hi]:
            hi_last = i
        if v < x[lo]:
            lo = lo_last = i
        elif v == x[lo]:
            lo_last = i
        if direction >= 0 and v < x[hi] - threshold:
            if direction > 0:
                maxima.append(_vertex(x, (hi + hi_last) // 2, 0.5 * threshold))
            direction, lo, lo_last = -1, i, i
        elif direction <= 0 and v > x[lo] + threshold:
            if direction < 0:
                minima.append(_vertex(x, (lo + lo_last) // 2, 0.5 * threshold))
            direction, hi, hi_last = 1, i, i
    return np.array(minima, dtype=int), np.array(maxima, dtype=int)


def _vertex(x: np.ndarray, index: int, width: float) -> int:
    """The sample nearest the vertex of a parabola through the samples around ``index`` that stay
    within ``width`` of ``x[index]`` (``index`` itself when fewer than 5 or no vertex inside)."""
    first, last = index, index
    while first > 0 and abs(x[first - 1] - x[index]) <= width:
        first -= 1
    while last < x.size - 1 and abs(x[last + 1] - x[index]) <= width:
        last += 1
    if last - first < 4:
        return index
    k = np.arange(first, last + 1, dtype=float)
    a, b, _ = np.polyfit(k - index, x[first:last + 1], 2)
    if a == 0.0:
        return index
    vertex = index - 0.5 * b / a
    return int(round(vertex)) if first <= vertex <= last else index

"""Measurement noise on the Dahl identification's stage-2 displacement (issue 35).

A measured wave-periodic ``x`` carries white noise. Its level is estimated from the fourth
differences (a smooth ``x`` sampled densely has fourth differences far below the noise), and
when it exceeds :data:`NOISY` of the range, ``x`` is smoothed by a cubic Savitzky-Golay filter
(scipy) a tenth of the wave's period wide, so that reversals, Xmin and Xmax are read from the
wave and not from the noise. A clean record is returned unchanged. Units: whatever ``x`` has.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Noise (standard deviation) above this fraction of the range of x is smoothed out.
NOISY = 1e-3
#: The smoothing window spans this fraction of the wave's fundamental period.
WINDOW_FRACTION = 0.1


@dataclass(frozen=True)
class Smoothed:
    """``x`` after smoothing; ``noise``: estimated standard deviation of the white noise on the
    raw ``x``; ``residual_noise``: that of the noise left in the smoothed ``x`` (0 when
    unsmoothed); ``window``: samples in the smoothing window (1 when unsmoothed)."""

    x: np.ndarray
    noise: float
    residual_noise: float
    window: int


def noise_level(signal: np.ndarray) -> float:
    """Standard deviation of white noise on a densely sampled smooth ``signal``: the robust
    (median absolute deviation) spread of its fourth differences over sqrt(70) (a smooth signal's
    fourth differences scale as the step to the fourth: 1e-8 for -cos t at 100 Hz)."""
    d4 = np.diff(np.asarray(signal, dtype=float), 4)
    if d4.size < 3:
        return 0.0
    return float(1.4826 * np.median(np.abs(d4 - np.median(d4))) / math.sqrt(70.0))


def fundamental_period(x: np.ndarray) -> float:
    """Samples per period of the strongest Fourier component of ``x`` (mean removed)."""
    spectrum = np.abs(np.fft.rfft(x - np.mean(x)))
    k = int(np.argmax(spectrum[1:])) + 1
    return x.size / k


def smooth_displacement(x: np.ndarray) -> Smoothed:
    """``x`` smoothed when its noise exceeds :data:`NOISY` of its range (see the module doc).

    The residual noise of a cubic Savitzky-Golay filter of ``W`` samples is about
    ``noise sqrt(2.25 / W)`` (its central weight).
    """
    from scipy.signal import savgol_filter  # scipy at call time, as in dahl_identification

    x = np.asarray(x, dtype=float)
    sigma = noise_level(x)
    span = float(np.ptp(x)) if x.size else 0.0
    if not sigma > NOISY * span:
        return Smoothed(x, sigma, 0.0, 1)
    window = int(WINDOW_FRACTION * fundamental_period(x)) // 2 * 2 + 1
    window = min(max(window, 5), (x.size - 1) // 2 * 2 + 1)
    if window <= 3:
        return Smoothed(x, sigma, sigma, 1)
    return Smoothed(savgol_filter(x, window, 3), sigma, sigma * math.sqrt(2.25 / window), window)

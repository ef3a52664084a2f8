"""Processing a raw bench log: resampled at a fixed step, as the published logs are.

Raw logs (:mod:`.logs`) have the timestamps the bench recorded, irregular; processed logs have
samples at ``k dt`` [s] (``k = 0, 1, ...`` up to the last timestamp), every column linearly
interpolated.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from .logs import PROCESSED_DT, Log, LogError


def _interpolate(t: np.ndarray, stamps: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Linear interpolation, extrapolated linearly beyond the ends (as the published tool)."""
    out = np.interp(t, stamps, values)
    if len(stamps) < 2:
        return out
    before, after = t < stamps[0], t > stamps[-1]
    out[before] = values[0] + (t[before] - stamps[0]) * (values[1] - values[0]) / (stamps[1] - stamps[0])
    out[after] = values[-1] + (t[after] - stamps[-1]) * (values[-1] - values[-2]) / (stamps[-1] - stamps[-2])
    return out


def resample(log: Log, dt: float = PROCESSED_DT) -> Log:
    """Resample a raw log at a fixed ``dt`` [s].

    Samples lie at ``k dt`` for ``k = 0 .. floor(t_last / dt)``; every column is linearly
    interpolated (extrapolated at the ends) and torque_enable is thresholded at 0.5.
    """
    if dt <= 0 or not math.isfinite(dt):
        raise LogError(f"{log.source}: dt {dt} is not a positive number")
    if len(log) < 2:
        raise LogError(f"{log.source}: field 'entries': need at least 2 entries to resample")
    t = np.arange(int(math.floor(log.timestamp[-1] / dt + 1e-9)) + 1) * dt
    columns = {
        name: _interpolate(t, log.timestamp, values)
        for name, values in (
            ("position", log.position),
            ("speed", log.speed),
            ("goal_position", log.goal_position),
            *log.extra.items(),
        )
    }
    enable = _interpolate(t, log.timestamp, log.torque_enable.astype(float)) > 0.5
    return replace(
        log,
        dt=dt,
        timestamp=t,
        position=columns.pop("position"),
        speed=columns.pop("speed"),
        goal_position=columns.pop("goal_position"),
        torque_enable=enable,
        extra=columns,
    )

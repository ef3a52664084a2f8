"""Processing a raw bench log: resampled at a fixed step, as the published logs are.

Raw logs (:mod:`.logs`) have the timestamps the bench recorded, irregular; processed logs have
samples at ``k dt`` [s] (``k = 0, 1, ...`` up to the last timestamp), every column linearly
interpolated, as the published tool does (its processed logs are reproduced to 1e-9).

A raw entry of a bench loop is a sample and the command sent right after it: the goal and the
torque enable of entry ``k`` are what the servo held from its time until the next entry's.
Where the loop skipped cycles (a busy host: a log through the controllers had 412 entries for
6 s at 100 Hz, gaps up to 75 ms), linear interpolation ramps the goal across a gap the servo
spent at the old goal; held commands are resampled as held instead (measured on that log: the
published M6 replayed on it, MAE 0.0103 rad interpolated, 0.0058 held, the same as the gapless
direct run of the same trajectory). A log says so itself (:attr:`~.logs.Log.commands_held`: this
project's recorders write it); ``hold_commands`` holds the commands of one that does not.
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


def _held(t: np.ndarray, stamps: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The value of the last entry at or before each time (the first entry's before it)."""
    return values[np.clip(np.searchsorted(stamps, t + 1e-9, side="right") - 1, 0, len(stamps) - 1)]


def resample(log: Log, dt: float = PROCESSED_DT, hold_commands: bool = False) -> Log:
    """Resample a raw log at a fixed ``dt`` [s].

    Samples lie at ``k dt`` for ``k = 0 .. floor(t_last / dt)``; every column is linearly
    interpolated (extrapolated at the ends) and torque_enable is thresholded at 0.5, as the
    published tool does. With ``hold_commands``, or for a log whose ``commands_held`` says so,
    goal_position and torque_enable are instead the last entry's at or before each sample: the
    command in force then (module docstring); the processed log's ``commands_held`` says which.
    """
    if dt <= 0 or not math.isfinite(dt):
        raise LogError(f"{log.source}: dt {dt} is not a positive number")
    if len(log) < 2:
        raise LogError(f"{log.source}: field 'entries': need at least 2 entries to resample")
    t = np.arange(int(math.floor(log.timestamp[-1] / dt + 1e-9)) + 1) * dt
    held = hold_commands or log.commands_held
    command = _held if held else _interpolate
    columns = {
        name: _interpolate(t, log.timestamp, values)
        for name, values in (("position", log.position), ("speed", log.speed), *log.extra.items())
    }
    goal = command(t, log.timestamp, log.goal_position)
    enable = command(t, log.timestamp, log.torque_enable.astype(float)) > 0.5
    return replace(
        log,
        dt=dt,
        timestamp=t,
        position=columns.pop("position"),
        speed=columns.pop("speed"),
        goal_position=goal,
        torque_enable=enable,
        extra=columns,
        commands_held=held,
    )

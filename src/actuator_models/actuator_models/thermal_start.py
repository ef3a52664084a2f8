"""The start temperature of a simulation without a temperature input, fitted (issue 31).

A model carrying ``thermal`` starts both nodes at the ``thermal_initial`` setting [degC] when a
simulation has no temperature reading. By default a fit sets it to the mean of the training
logs' first readings (:meth:`.addition_thermal.Thermal.settings`). ``FitSettings(thermal_start=
"fitted")`` instead chooses, after the search, the single start temperature that minimises the
training logs' position MAE simulated without their readings: a 1-D search over the span of
their first readings, a grid of :data:`POINTS` candidates in one batched call, then a grid of
as many over the two cells around the best (resolution span / 32), every other parameter fixed at
the fit's. The fitted parameters do not change, so the fed simulations do not either.
"""

from __future__ import annotations

from typing import Mapping, Sequence, Tuple, Union

import numpy as np

from .addition_thermal import INITIAL
from .objective import Objective

#: Candidate start temperatures per grid (two grids: the span, then around the best).
POINTS = 9
#: How each ``FitSettings.thermal_start`` sets ``thermal_initial``, in words (the fit's report).
RULES = {"mean": "the mean of the training logs' first temperature readings",
         "fitted": "fitted: the start that minimises the training logs' MAE simulated without their temperature"}


def reading_span(first_readings: Union[Sequence[float], np.ndarray]) -> Tuple[float, float]:
    """``(lowest, highest)`` first reading [degC] of the training logs (NaN: a log without one)."""
    known = np.asarray(first_readings, dtype=float)
    known = known[np.isfinite(known)]
    if not len(known):
        raise ValueError("no training log reads a temperature: thermal_initial cannot be fitted")
    return float(known.min()), float(known.max())


def fitted_initial(objective: Objective, values: Mapping[str, float], points: int = POINTS) -> float:
    """The ``thermal_initial`` [degC] within the span of ``objective``'s logs' first readings that
    minimises their mean position MAE simulated without the readings, the other parameters at
    ``values``; ties go to the lowest candidate."""
    low, high = reading_span(objective.batch.first_temperature())
    if high == low:
        return low
    for _ in range(2):
        grid = np.linspace(low, high, points)
        rows = {name: np.full(points, float(v)) for name, v in values.items()}
        rows[INITIAL.name] = grid
        best = int(np.argmin(objective.blind_per_log(rows).mean(axis=1)))
        low, high = grid[max(best - 1, 0)], grid[min(best + 1, points - 1)]
    return float(grid[best])

"""How well the logs determine each fitted parameter: one-dimensional loss slices.

For each free parameter, the cost is evaluated across its whole search range with the others
held at their fitted values (all slices in one batched rollout). From a slice we report:

- the *interval* around the fitted value where the cost stays within ``tolerance`` (relative)
  of the fitted cost — its half-width is the parameter's uncertainty;
- the *sensitivity*: the largest relative cost increase anywhere in the range. A parameter
  whose sensitivity is below ``tolerance`` is flagged *undetermined*: the data barely reacts
  to it, so its value is arbitrary (often a term the model does not need on these logs).

Slices ignore correlations between parameters, so intervals are optimistic where parameters
trade off against each other (kt and R, say); they are a screening tool, like the profile
plots of MuJoCo's sysid toolbox, not a posterior.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Dict, List, Tuple

import numpy as np

from .objective import Objective, SearchSpace
from .model import Model


@dataclass(frozen=True)
class ParameterSpread:
    """Slice statistics of one parameter (value, interval in the parameter's unit)."""

    name: str
    unit: str
    value: float
    lower: float
    upper: float
    sensitivity: float
    determined: bool

    @property
    def half_width(self) -> float:
        return (self.upper - self.lower) / 2

    def to_dict(self) -> Dict[str, object]:
        return {**asdict(self), "half_width": self.half_width}


def _interval(grid: np.ndarray, costs: np.ndarray, centre: int, limit: float) -> Tuple[float, float]:
    """Extent of the connected region around ``centre`` where ``costs <= limit`` (linear crossings)."""
    def walk(step: int) -> float:
        i = centre
        while 0 <= i + step < len(grid) and costs[i + step] <= limit:
            i += step
        j = i + step
        if not 0 <= j < len(grid):
            return float(grid[i])
        fraction = (limit - costs[i]) / (costs[j] - costs[i])
        return float(grid[i] + fraction * (grid[j] - grid[i]))

    return walk(-1), walk(+1)


def loss_slices(
    model: Model, objective: Objective, space: SearchSpace, points: int = 25, tolerance: float = 0.01
) -> List[ParameterSpread]:
    """Slice the cost of ``objective`` through ``model``'s values along each free parameter.

    Every slice passes through the fitted values; they are simulated once (the first set of the
    batch), not once per slice: each set's cost is its own rollout, whatever else is batched."""
    grids, centres = [], []
    sets: List[Dict[str, float]] = [dict(model.values)]
    for p in space.free:
        grid = np.unique(np.append(np.linspace(p.lower, p.upper, points), model.values[p.name]))
        centre = int(np.searchsorted(grid, model.values[p.name]))
        grids.append(grid)
        centres.append(centre)
        sets.extend({**model.values, p.name: float(x)} for i, x in enumerate(grid) if i != centre)
    names = list(model.values)
    batch = {name: np.array([s[name] for s in sets]) for name in names}
    costs = objective(batch)
    out = []
    start = 1
    for p, grid, centre in zip(space.free, grids, centres):
        others = costs[start : start + len(grid) - 1]
        start += len(grid) - 1
        slice_costs = np.insert(others, centre, costs[0])
        best = slice_costs[centre]
        lower, upper = _interval(grid, slice_costs, centre, best * (1 + tolerance))
        sensitivity = float(slice_costs.max() / best - 1) if best > 0 else float("inf")
        out.append(
            ParameterSpread(p.name, p.unit, float(model.values[p.name]), lower, upper, sensitivity, sensitivity > tolerance)
        )
    return out

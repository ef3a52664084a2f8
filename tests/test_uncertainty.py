"""Loss slices (actuator_models.uncertainty): the batched slices, which simulate the fitted values
once for all parameters, equal each slice evaluated on its own, fitted values included; and the
reported interval and sensitivity follow from those costs."""

from pathlib import Path

import numpy as np
import pytest

from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.objective import Objective, Prior, SearchSpace
from actuator_models.uncertainty import loss_slices

POINTS, TOLERANCE = 9, 0.01


@pytest.mark.parametrize("carry", [(), ("thermal",)])
def test_slices_equal_each_slice_evaluated_alone(xl330_processed: Path, carry: tuple) -> None:
    logs = read_logs(xl330_processed)[:3]
    model = new_model("xl330", "m6", "bam", carry)
    space = SearchSpace.for_model(model)
    # a prior (as the fit's objective has one) makes the cost depend on every parameter of a set
    objective = Objective(model, logs, Prior.toward(space, model.values, 0.1))
    spreads = loss_slices(model, objective, space, points=POINTS, tolerance=TOLERANCE)

    assert [s.name for s in spreads] == [p.name for p in space.free]
    for p, spread in zip(space.free, spreads):
        fitted = model.values[p.name]
        grid = np.unique(np.append(np.linspace(p.lower, p.upper, POINTS), fitted))
        alone = objective({name: np.full(len(grid), value) for name, value in model.values.items()} | {p.name: grid})
        best = alone[int(np.searchsorted(grid, fitted))]
        assert spread.value == fitted
        assert spread.sensitivity == pytest.approx(alone.max() / best - 1, rel=0, abs=0)
        # the interval's ends lie where the cost crosses best * (1 + tolerance), or at the grid's ends
        for end in (spread.lower, spread.upper):
            assert grid[0] <= end <= grid[-1]
            if grid[0] < end < grid[-1]:
                assert np.interp(end, grid, alone) == pytest.approx(best * (1 + TOLERANCE), rel=1e-9)
        assert spread.lower <= fitted <= spread.upper

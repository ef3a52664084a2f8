"""The compiled kernel's threads share out its (parameter sets, log) jobs from one counter: which
thread runs which job changes from call to call, and no number may depend on it, nor on how many
threads there are (servo_kernel.c's servo_batch)."""

import numpy as np
import pytest

from actuator_models import kernel
from actuator_models.logs import read_logs
from actuator_models.model import new_model
from actuator_models.simulation import LogBatch


@pytest.mark.parametrize("positions", [False, True])
def test_no_number_depends_on_the_thread_count(xl330_processed, positions) -> None:
    logs = read_logs(xl330_processed)[:5]
    model = new_model("xl330", "m6", "bam", ("thermal", "latency", "supply"))
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    # 7 sets: three pairs and one set alone on every log (the kernel's two paths)
    values = {k: np.full(7, v) * np.linspace(0.85, 1.15, 7) for k, v in model.values.items()}
    runs = [kernel.run_thermal(model.actuator, model.friction, values, batch, model.integrator, positions, threads)
            for threads in (1, 2, 3, 8, 100)]
    maes, heat, simulated = runs[0]
    assert maes.shape == heat.shape == (7, 5)
    assert len(np.unique(maes)) == maes.size  # every set on every log its own number
    assert np.all(heat > 0)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            np.testing.assert_array_equal(a, b)  # bit for bit
    if positions:
        assert simulated.shape == (7, 5, batch.steps)

"""Recordings made through the real driver against the emulator with a known model (mx64/m6),
then identified with M6: the fit reaches the true model's training MAE (which is not zero: the
recordings carry encoder quantisation and the one-cycle delay of the bus) and predicts the
held-out logs far better than M1.

It does not, in general, validate within 10 % of the true model's MAE (the issue's first
acceptance claim): on these 12 training logs M6's lowest training MAE is not the true model's.
Seeds 0-5 at this budget (lockstep, 2026-11-26, `git log` of this file): training MAE 1.017,
0.761, 0.916, 0.799, 0.914, 1.004 x the true model's, validation 1.107, 2.615, 1.614, 3.998,
1.570, 0.950 x; before the per-generation random streams (214431f) the same seeds gave 1.057,
2.633, 1.576, 3.232, 1.590, 0.946 x (seed 0 within 10 % by luck). More starts (4) or the default
prior do not help (the start kept is the one of lowest training MAE; prior 1.0: 1.15-3.66 x).

The emulator runs in lockstep with the driver (``time_scale=None``), so the recordings, and
every number below, are the same on a quiet or a saturated machine. The same pipeline in real
time is ``benchmarks/emulated_recording.py``."""

from dataclasses import replace

from actuator_bench.demo import process, record_logs, true_validation_mae
from actuator_bench.demo_settings import demo_settings
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.identification import FitSettings
from actuator_models.model import load_model
from actuator_models.objective import Objective
from actuator_models.splits import Dataset
import pytest

pytestmark = pytest.mark.slow  # 10 s or more on 2 busy cores (issue 33's measurements): not in make test-fast


def test_m6_fitted_on_emulated_recordings_matches_the_true_model(tmp_path):
    settings = replace(demo_settings()["mx64"][1], time_scale=None)  # the quick grid (16 recordings), lockstep emulation
    logs = process(record_logs(settings, tmp_path / "raw"), tmp_path / "processed")
    assert len(logs) == 16
    reference = load_model(settings.reference)
    true_mae = true_validation_mae(reference, logs)
    assert 0 < true_mae < 0.01
    true_train = float(Objective(reference, Dataset.split(logs, seed=0).train).of_model(reference).mean())
    # the budget is a hard cap over search, restarts and polish: 12000 in all stopped at 1.14x
    # the true model's training MAE (seed 0), 24000 reaches 0.76-1.02x on seeds 0-5
    m6 = fit(FitSpec(logs, "mx64", ("m6",), FitSettings(trials=24000, seed=0, restarts=1, starts=1, prior=0.0),
                     carry=())).result()
    m1 = fit(FitSpec(logs, "mx64", ("m1",), FitSettings(trials=2000, seed=0, starts=1, prior=0.0), carry=())).result()
    assert m6.train_mae <= 1.05 * true_train, (m6.train_mae, true_train)
    assert m1.validation_mae > 2 * m6.validation_mae, (m1.validation_mae, m6.validation_mae)

"""Issue acceptance: eRob80:100 recordings made through the real driver and pysoem against the
EtherCAT emulator (true model erob80_100/m6), a Table I style grid (2 masses at 0.5 m x 2 gains
x the 4 trajectories), then identified: M6 validates within 10 % of the true model's own
validation MAE, M1 clearly worse.

The true model's MAE is not zero: the emulated drive runs the PD law every 2 ms cycle (500 Hz
here to keep the test near a minute; 1 kHz on the command line), while identification simulates
the processed logs at 5 ms steps, as for the published models. The shaft advances one step per
process-data frame, so the recordings do not depend on the host's scheduling."""

import pytest

from actuator_bench.demo import process, true_validation_mae
from actuator_drivers.erob.master import LineTiming
from actuator_drivers.ethercat_emulator.emulated import EMULATOR_RECEIVE_TIMEOUT, EmulatedJoint, emulated_erob, set_bench
from actuator_drivers.erob.bench import ErobBench
from actuator_bench.record_grid import Grid, record_all
from actuator_bench.recording import RecordSettings
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.identification import FitSettings
from actuator_models.model import load_model

from test_erob_driver import REASON

pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


def test_m6_fitted_on_emulated_erob_recordings_matches_the_true_model(tmp_path):
    grid = Grid((3.1, 14.6), (0.5,), (25, 100))
    with emulated_erob([EmulatedJoint("erob80_100/m6", 3.1, 0.5)], timing=LineTiming(cycle_time=0.002, receive_timeout=EMULATOR_RECEIVE_TIMEOUT)) as (emulator, driver):
        done = record_all(ErobBench.of(driver, "erob80_100"), grid, "erob80_100", tmp_path / "raw",
                          lambda m, l: set_bench(driver, 1, m, l) is None,
                          settings=RecordSettings(rate=200, prepare_time=0.5, settle_time=0.3, return_time=0.5))
    troubled = [(r.path.name if r.path else None, r.complete, r.errors) for r in done if not r.complete or r.errors.errors]
    assert len(done) == 16 and not troubled, troubled
    assert {(r.log.mass, r.log.kp) for r in done} == {(3.1, 25), (3.1, 100), (14.6, 25), (14.6, 100)}
    logs = process([r.path for r in done], tmp_path / "processed")
    true_mae = true_validation_mae(load_model("erob80_100/m6"), logs)
    assert 0 < true_mae < 0.01
    # the engine on a known answer: one start, no prior (it pulls toward the defaults, away from
    # the truth), the linear scale (on the log one this 2500-trial M6 fit lands at 1.7x the true
    # model's MAE: see actuator_models.objective.SearchSpace)
    engine = dict(starts=1, prior=0.0, log_scale=False)
    m1 = fit(FitSpec(logs, "erob80_100", ("m1",), FitSettings(trials=600, seed=0, **engine), carry=())).result()
    # M6 nests M1: its search starts from the fitted M1 (the project's `start` option)
    # (a small population: 6000 trials at 24 are about 250 generations). The processed logs hold
    # each command from its cycle on (demo.process): the true model's MAE is half what it was on
    # goals interpolated 1 ms ahead (0.0018 against 0.0037 rad), so the 10 % is tighter; over
    # seeds 0-7, M6 at 2500 trials validated at 0.98-1.79x it, at 6000 at 0.59-1.04x
    m6 = fit(FitSpec(logs, "erob80_100", ("m6",), FitSettings(trials=6000, seed=0, popsize=24, **engine), carry=(),
                     start=m1.model)).result()
    assert m6.validation_mae <= 1.1 * true_mae, (m6.validation_mae, true_mae)
    # clearly worse: with the identification engine's split M1 validates at 3.6x M6 (1.84x at 2500
    # trials on interpolated goals, 4.9x before that on another validation set); the true model is
    # M6, so M1 cannot close that gap
    assert m1.validation_mae > 1.5 * m6.validation_mae, (m1.validation_mae, m6.validation_mae)

"""The start temperature of a simulation without a temperature input (issue 31, acceptance 2).

- ``thermal_start="fitted"`` recovers a known start temperature: logs whose positions were
  simulated from a chosen start (with their real first readings spread around it) give that start
  back to the 1-D search's resolution (span / 32), and a fit with it changes ``thermal_initial``
  alone (the same parameters, the same fed training MAE as the mean rule);
- the objective's no-temperature rollout (compiled kernel) equals the numpy rollout of the logs
  with their ``temp`` column removed to 1e-12, and ``unfed_share`` mixes the two position MAEs as
  its definition says;
- ``fit --thermal-start fitted`` writes it to the params file and its report and summary say how it
  was chosen;
- bad settings are refused by name.
"""

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from actuator_models.fit_data import FitSettings
from actuator_models.identification import Identification
from actuator_models.logs import read_logs
from actuator_models.model import load_model, new_model
from actuator_models.objective import Objective
from actuator_models.simulation import LogBatch, mean_absolute_errors, rollout_temperatures
from actuator_models.splits import Dataset
from actuator_models.thermal_start import POINTS, fitted_initial, reading_span

#: A thermal network that acts visibly within a short log (4x copper's coefficient).
NETWORK = {"thermal_alpha": 0.016, "thermal_winding_resistance": 10.0, "thermal_winding_capacity": 1.0,
           "thermal_case_resistance": 30.0, "thermal_case_capacity": 15.0, "thermal_ambient": 25.0}


def _short(xl330_processed, n=400):
    logs = read_logs(xl330_processed)[::3]
    return [replace(log, **{f: getattr(log, f)[:n] for f in ("timestamp", "position", "speed", "goal_position",
                                                            "torque_enable")},
                    extra={k: np.asarray(v)[:n] for k, v in log.extra.items()}) for log in logs]


def _bare(logs):
    return [replace(log, extra={k: v for k, v in log.extra.items() if k != "temp"}) for log in logs]


def _model():
    return load_model("xl330/m6").with_values(**NETWORK, thermal_initial=30.0)


def test_the_fitted_start_recovers_the_temperature_the_positions_were_simulated_from(xl330_processed):
    model = _model().with_values(thermal_initial=32.6)
    logs = _short(xl330_processed)
    firsts = [28.0, 31.0, 35.0, 38.0]  # each log's first reading, spread around the true start
    logs = [replace(log, extra={**log.extra, "temp": np.full(len(log), t)}) for log, t in zip(logs, firsts)]
    batch = LogBatch.from_logs(_bare(logs), model.actuator.default_vin)
    simulated, _ = rollout_temperatures(model.actuator, model.friction, model.values, batch)
    synthetic = [replace(log, position=simulated[i, :len(log)]) for i, log in enumerate(logs)]
    start = model.with_values(thermal_initial=float(np.mean(firsts)))  # today's rule: 33.0, off the truth
    got = fitted_initial(Objective(start, synthetic), start.values)
    low, high = reading_span(firsts)
    assert (low, high) == (28.0, 38.0)
    assert abs(got - 32.6) <= (high - low) / (4 * (POINTS - 1)) + 1e-12
    objective = Objective(start, synthetic)
    errors = [objective.blind_per_log({**{k: [v] for k, v in start.values.items()}, "thermal_initial": [t]}).mean()
              for t in (got, 33.0, 30.0)]
    assert errors[0] < errors[1] < errors[2]  # the truth's neighbourhood is best, and the error grows away from it


def test_a_fit_with_the_fitted_start_changes_thermal_initial_alone(xl330_processed):
    logs = read_logs(xl330_processed)
    train = tuple(log for log in logs if log.kp != 200)
    dataset = Dataset(tuple(logs), train, tuple(log for log in logs if log.kp == 200), "test")
    model = new_model("xl330", "m6", additions=("thermal",))
    mean = Identification(model, dataset, FitSettings(seed=1, trials=400, starts=1)).run()
    fitted = Identification(model, dataset, FitSettings(seed=1, trials=400, starts=1, thermal_start="fitted")).run()
    firsts = [float(log.extra["temp"][0]) for log in train]
    assert mean.model.values["thermal_initial"] == pytest.approx(np.mean(firsts), abs=1e-12)
    assert min(firsts) <= fitted.model.values["thermal_initial"] <= max(firsts)
    assert {k: v for k, v in fitted.model.values.items() if k != "thermal_initial"} == \
        {k: v for k, v in mean.model.values.items() if k != "thermal_initial"}
    assert fitted.train_mae == mean.train_mae and fitted.validation_mae == mean.validation_mae
    objective = Objective(fitted.model, train)
    unfed = [objective.blind_per_log({k: [v] for k, v in m.values.items()}).mean() for m in (fitted.model, mean.model)]
    assert unfed[0] <= unfed[1]  # the mean of the first readings is one of the span's candidates at best
    with_fixed = Identification(model, dataset, FitSettings(seed=1, trials=400, starts=1, thermal_start="fitted",
                                                            fixed={"thermal_initial": 30.5})).run()
    assert with_fixed.model.values["thermal_initial"] == 30.5  # a value the user fixed stays


def test_the_unfed_rollout_of_the_kernel_equals_numpy_and_the_share_mixes_as_defined(xl330_processed):
    model = _model().with_values(thermal_initial=31.0)
    logs = _short(xl330_processed, 300)
    rng = np.random.default_rng(0)
    values = {k: np.full(3, v) for k, v in model.values.items()}
    values["thermal_alpha"] = rng.uniform(0.003, 0.03, 3)
    values["thermal_initial"] = rng.uniform(25.0, 40.0, 3)
    objective = Objective(model, logs)
    assert objective.compiled
    positions, _ = rollout_temperatures(model.actuator, model.friction, values,
                                        LogBatch.from_logs(_bare(logs), model.actuator.default_vin))
    blind = objective.blind_per_log(values)
    assert np.max(np.abs(blind - mean_absolute_errors(positions, objective.batch))) < 1e-12
    fed = objective.per_log(values)
    assert np.max(np.abs(blind - fed)) > 1e-4  # the start temperature acts
    mixed, mae = Objective(model, logs, unfed_share=0.25).evaluate(values)
    plain, plain_mae = objective.evaluate(values)
    assert np.max(np.abs(mae - plain_mae)) == 0.0  # the MAE reported stays the fed one
    assert np.max(np.abs(mixed - plain - 0.25 * (blind.mean(axis=1) - fed.mean(axis=1)))) < 1e-12


def test_bad_start_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="thermal_start: 'median'"):
        FitSettings(thermal_start="median")
    with pytest.raises(ValueError, match="unfed_share: 1.5"):
        FitSettings(unfed_share=1.5)
    with pytest.raises(ValueError, match="no training log reads a temperature"):
        reading_span([float("nan")])


def test_fit_writes_the_fitted_start_and_says_how_it_was_chosen(tmp_path, xl330_processed):
    run = subprocess.run(
        [sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(xl330_processed), "--actuator", "xl330",
         "--model", "m6", "--trials", "200", "--seed", "0", "--thermal-start", "fitted", "--out",
         str(tmp_path / "m6.json"), "--quiet"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    report = json.loads((tmp_path / "m6.report" / "report.json").read_text())
    train = [log for log in read_logs(xl330_processed) if Path(str(log.source)).name in report["train_logs"]]
    firsts = [float(log.extra["temp"][0]) for log in train]
    start = json.loads((tmp_path / "m6.json").read_text())["thermal_initial"]
    assert min(firsts) <= start <= max(firsts) and start != pytest.approx(np.mean(firsts))
    assert report["models"]["m6"]["additions"]["thermal_start"].startswith("fitted")
    assert f"thermal starts at {start:.2f} degC: fitted" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(xl330_processed),
                          "--actuator", "xl330", "--thermal-start", "median"], capture_output=True, text=True)
    assert bad.returncode == 2 and "error:" in bad.stderr and "median" in bad.stderr and "Traceback" not in bad.stderr

"""``fit --additions``: an addition is kept only where cross-validation says it predicts held-out
logs better. Synthetic logs of a known model (the numpy rollout, quantised to encoder steps):
with a known latency (and, separately, a known backlash) the addition is kept and its value
recovered; on logs without it, it is not kept. The report says, per model, what it carries and
what each candidate gained per fold."""

import json
import subprocess
import sys

import pytest

from actuator_models.actuators import actuator
from actuator_models.addition_selection import MIN_GAIN
from actuator_models.additions import carried_by_default
from actuator_models.fit_data import FitSettings
from actuator_models.fit_outputs import FitOutputs
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.model import new_model
from actuator_models.splits import Dataset
from actuator_models.synthesis import BenchConfig, synthesize_logs

#: The true model's motor, fixed in the fits so that a small budget settles (the friction and
#: the addition are searched).
MOTOR = dict(kt=0.6, R=3.0, armature=0.002, q_offset=0.0)
TRUE = dict(MOTOR, friction_base=0.04, friction_viscous=0.05)
CONFIGS = [BenchConfig(0.5, 0.1, 200.0), BenchConfig(0.5, 0.1, 800.0)]


def _fit(tmp_path, **truth):
    logs = synthesize_logs(new_model("xl330", "m1", **TRUE, **truth), CONFIGS, ("sin_sin", "up_and_down"), dt=0.01)
    dataset = Dataset.split(logs, validation_fraction=0.0)
    # one start: each fold's fit gets the whole small budget (of two starts, successive halving
    # would stop one early and leave the fit without an addition less settled than with it)
    settings = FitSettings(trials=600, seed=0, fixed=MOTOR, prior=0.0, starts=1)
    report = fit(FitSpec(dataset, "xl330", ("m1",), settings, carry=(), additions=("latency", "backlash"),
                         cv_rules=("gain",), cv_trials=400, outputs=FitOutputs.in_folder(tmp_path, ["m1"])))
    return report.models["m1"], json.loads((tmp_path / "report" / "report.json").read_text())


def test_known_latency_is_kept_and_recovered(tmp_path):
    report, content = _fit(tmp_path, latency=0.03)
    assert report.selection.kept == ("latency",)
    assert report.result.model.values["latency"] == pytest.approx(0.03, abs=0.003)
    assert "backlash" not in report.result.model.values
    latency = content["models"]["m1"]["additions"]["selection"]["candidates"]["latency"]
    assert latency["kept"] and latency["gain"] > 0.5 * latency["mean_without"]
    assert set(latency["folds"]) == {"gain: kp 200", "gain: kp 800"}
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "**M1** carries: latency = 0.0" in markdown and "| gain: kp 200 |" in markdown


def test_known_backlash_is_kept_and_recovered(tmp_path):
    report, _ = _fit(tmp_path, backlash=0.04)
    assert "backlash" in report.selection.kept
    assert report.result.model.values["backlash"] == pytest.approx(0.04, abs=0.006)


def test_no_addition_is_kept_on_logs_without_any(tmp_path):
    report, content = _fit(tmp_path)
    assert report.selection.kept == () and report.result.model.additions == ()
    for candidate in content["models"]["m1"]["additions"]["selection"]["candidates"].values():
        assert candidate["gain"] < MIN_GAIN * candidate["mean_without"]
    assert "**M1** carries: none" in (tmp_path / "report" / "report.md").read_text()


def test_unknown_addition_is_one_error_line(xl330_processed, tmp_path):
    done = subprocess.run([sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(xl330_processed), "--actuator",
                           "xl330", "--model", "m1", "--additions", "latency,deadzone", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "actuator-models: error: --additions: 'deadzone' is not an addition; expected one of latency, backlash, heating, thermal, supply, release"]
    assert not (tmp_path / "out").exists()


def test_known_heating_is_recovered_when_carried(tmp_path):
    """Logs of a servo whose winding heats (R rises 2 %/K) recorded at 28 and 38 degC at both
    gains: their default carry (``--carry auto``) is thermal (issue 31); a fit carrying heating
    (``--carry heating``) recovers it and predicts the logs better than the same fit of the
    paper's model (``--carry none``); the report says what the fit leans on it (heating switched
    off)."""
    configs = [BenchConfig(0.5, 0.1, kp, temperature=t) for kp in (200.0, 800.0) for t in (28.0, 38.0)]
    truth = new_model("xl330", "m1", **TRUE, heating=0.02)
    logs = synthesize_logs(truth, configs, ("sin_sin",), dt=0.01)
    dataset = Dataset.split(logs, validation_fraction=0.0)
    settings = FitSettings(trials=500, seed=0, fixed=dict(MOTOR, R=3.0), prior=0.0, starts=1)
    carry = carried_by_default([log.extra.get("temp") for log in dataset.train], actuator("xl330"))
    assert carry == ("thermal", "supply")
    heated = fit(FitSpec(dataset, "xl330", ("m1",), settings, carry=("heating",),
                         outputs=FitOutputs.in_folder(tmp_path / "heated", ["m1"])))
    assert heated.carry == ("heating",)
    plain = fit(FitSpec(dataset, "xl330", ("m1",), settings, carry=(),
                        outputs=FitOutputs.in_folder(tmp_path / "plain", ["m1"]))).result()
    heated = heated.result()
    assert heated.model.values["heating"] == pytest.approx(0.02, abs=0.002)
    assert "heating" not in plain.model.values
    assert heated.train_mae < 0.5 * plain.train_mae
    off = json.loads((tmp_path / "heated" / "report" / "report.json").read_text())["models"]["m1"]["additions"]
    assert off["carried"]["heating"] == heated.model.values["heating"]
    assert off["switched_off"]["heating"]["train_mae"] > 2 * heated.train_mae

"""The one fit front end (``FitSpec -> fit() -> FitReport``): ``actuator-models fit``, the ROS
fit job and the demo fit through it, so the same logs, budget and seed give the same params
whichever asks; the report files are written from the returned report."""

import json
import platform
import subprocess
import sys
from dataclasses import replace

import numpy
import pytest

from actuator_bench.demo import fit_spec
from actuator_bench.demo_settings import DemoSettings
from actuator_bench.fit_job import FitJob, FitRequest
from actuator_models.fit_data import FitSettings
from actuator_models.fit_outputs import FitOutputs
from actuator_models.fit_spec import ALL_MODELS, FitSpec
from actuator_models.fitting import TooFewTrainingLogs, fit, prepare
from actuator_models.logs import read_logs

TRIALS = 40


def test_the_cli_the_fit_job_and_the_demo_give_the_same_params(tmp_path, xl330_processed):
    cli = subprocess.run(
        [sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(xl330_processed), "--actuator", "xl330",
         "--model", "all", "--trials", str(TRIALS), "--seed", "0", "--out", str(tmp_path / "cli"), "--quiet"],
        capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    job = FitJob(FitRequest(str(xl330_processed), "xl330", trials=TRIALS, output_dir=str(tmp_path / "job")),
                 tmp_path, seed=0).run()
    assert job.success, job.message
    demo = fit(fit_spec(replace(DemoSettings(), actuator="xl330", trials=TRIALS), read_logs(xl330_processed),
                        tmp_path / "demo"))
    assert tuple(demo.models) == ALL_MODELS == job.models
    for name in ALL_MODELS:
        params = [json.loads((tmp_path / who / f"{name}.json").read_text()) for who in ("cli", "job", "demo")]
        assert params[0] == params[1] == params[2], name
    reports = [json.loads((tmp_path / who / "report" / "report.json").read_text()) for who in ("cli", "job", "demo")]
    assert reports[0]["best_model"] == reports[1]["best_model"] == reports[2]["best_model"] == demo.best_model
    # the carry rule is the fit's: the three carry the same additions (thermal, supply and release on these logs)
    carried = [r["models"]["m6"]["additions"]["carried"] for r in reports]
    assert carried[0] == carried[1] == carried[2] and set(carried[0]) == set(demo.carry) == {"thermal", "supply", "release"}


def test_the_report_files_are_written_from_the_fit_report(tmp_path, xl330_processed):
    spec = FitSpec(str(xl330_processed), "xl330", ("m1", "m2"), FitSettings(trials=24, popsize=8),
                   outputs=FitOutputs.in_folder(tmp_path, ("m1", "m2")))
    report = fit(spec)
    content = json.loads((tmp_path / "report" / "report.json").read_text())
    assert content["best_model"] == report.best_model and content["chosen_by"] == report.chosen_by
    assert content["warnings"] == list(report.warnings)
    for name, rep in report.models.items():
        assert content["models"][name]["train_mae"] == rep.result.train_mae
        assert content["defaults"][name]["validation_mae"] == rep.default_validation_mae
    m1, m2 = (report.models[m].result for m in ("m1", "m2"))
    key = [r.validation_mae for r in (m1, m2)]
    assert report.best_model == ("m1", "m2")[key.index(min(key))]  # chosen by validation MAE
    assert report.improvement_over_m1 == pytest.approx(m1.validation_mae / min(key))
    # what the fit ran on: a seed repeats a fit on one machine only (actuator_models.provenance)
    ran_on = content["ran_on"]
    assert ran_on["packages"]["numpy"] == numpy.__version__ and ran_on["python"] == platform.python_version()
    assert ran_on["blas"] and all(b["architecture"] for b in ran_on["blas"])
    page = (tmp_path / "report" / "report.md").read_text()
    assert "## What the fit ran on" in page and all(f"({b['architecture']} kernels" in page for b in ran_on["blas"])
    with pytest.raises(ValueError, match="2 models fitted"):
        report.result()
    assert report.result("m2") is m2


def test_every_model_is_checked_before_anything_is_fitted(tmp_path, xl330_processed):
    """M1 could be fitted on 6 training logs, M6 needs 8 (15 free parameters counted against the
    positions; thermal's 5, carried by default, against the 6 logs recording the register): the
    spec is refused by prepare, before M1's fit, and nothing is written."""
    spec = FitSpec(str(xl330_processed), "xl330", ("m1", "m6"), validation_fraction=0.5,
                   outputs=FitOutputs.in_folder(tmp_path / "out", ("m1", "m6")))
    with pytest.raises(TooFewTrainingLogs) as refused:
        fit(spec)
    assert (refused.value.model, refused.value.train, refused.value.needed) == ("m6", 6, 8)
    assert not (tmp_path / "out").exists()
    assert prepare(replace(spec, settings=FitSettings(force=True))).carry == ("thermal", "supply", "release")

"""Identification: splits, the batched CMA-ES loop, resumable and shared studies, reports."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import optuna
import pytest
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState

from actuator_models.identification import Objective, SearchSpace, fit, make_study
from actuator_models.logs import read_logs
from actuator_models.model import load_model, new_model
from actuator_models.sampler import GenerationCmaEsSampler
from actuator_models.splits import split_logs, stratified_split
from actuator_models.synthesis import grid, synthesize_logs


@pytest.fixture(scope="module")
def xl330_logs(xl330_processed):
    return read_logs(xl330_processed)


def test_stratified_split_represents_every_gain_and_trajectory(xl330_logs):
    train, validation = stratified_split(xl330_logs, 0.25, seed=0)
    # 25 % of 12 is 3, but 4 trajectories must be represented: 4 logs
    assert len(validation) == 4 and len(train) == 8
    assert len({log.kp for log in validation}) == 3  # the three gains
    assert len({log.trajectory for log in validation}) == 4  # the four trajectories
    assert {log.kp for log in train} == {100, 200, 800}
    assert {log.trajectory for log in train} == {"sin_sin", "lift_and_drop", "up_and_down", "sin_time_square"}
    again = stratified_split(xl330_logs, 0.25, seed=0)[1]
    assert [l.source for l in again] == [l.source for l in validation]
    assert stratified_split(xl330_logs, 0.0)[1] == []


def test_split_by_gain(xl330_logs):
    train, validation = split_logs(xl330_logs, validation_kp=800)
    assert {l.kp for l in validation} == {800} and {l.kp for l in train} == {100, 200}
    with pytest.raises(ValueError, match="no log has kp 5"):
        split_logs(xl330_logs, validation_kp=5)


def test_objective_matches_published_figures(xl330_logs, reference_mae_file):
    reference = json.loads(reference_mae_file.read_text())["models"]["m6"]
    model = load_model("xl330/m6")
    objective = Objective(model, xl330_logs)
    values = {k: np.array([v, v]) for k, v in model.values.items()}
    per_log = objective.per_log(values)
    expected = [reference[l.source.split("/")[-1]] for l in xl330_logs]
    np.testing.assert_allclose(per_log[0], expected, atol=1e-9)
    np.testing.assert_array_equal(per_log[0], per_log[1])


def test_search_space_fixed_and_bounds():
    model = new_model("xl330", "m2")
    space = SearchSpace.for_model(model, fixed={"q_offset": 0.0}, bounds={"kt": (0.2, 0.6)})
    names = [p.name for p in space.free]
    assert "q_offset" not in names and len(names) == len(model.parameters) - 1
    assert space.distributions["kt"] == FloatDistribution(0.2, 0.6)
    batch = space.batch([{n: 0.3 for n in names}, {n: 0.4 for n in names}])
    np.testing.assert_array_equal(batch["q_offset"], [0.0, 0.0])
    with pytest.raises(ValueError, match="'load_friction_base' is not one of model xl330/m2"):
        SearchSpace.for_model(model, fixed={"load_friction_base": 0.1})


def test_generation_sampler_optimises_a_quadratic():
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=GenerationCmaEsSampler(seed=1, popsize=10, warn_independent_sampling=False))
    dists = {f"x{i}": FloatDistribution(-1.0, 2.0) for i in range(4)}
    for _ in range(40):
        trials = [study.ask(dists) for _ in range(10)]
        for t in trials:
            study.tell(t, sum((v - 0.3) ** 2 for v in t.params.values()))
    assert study.best_value < 1e-4
    generations = {t.system_attrs.get("cma:generation") for t in study.trials}
    assert len(generations) >= 35  # one CMA-ES generation per batch, as with the stock sampler


def test_fit_recovers_a_known_model():
    """Logs synthesised from mx64/m6 on a Table I style grid, with 4096-count encoder
    quantisation: the fitted M6 validates within 10 % of the true model (whose own MAE is the
    quantisation floor, ~0.0004 rad) and M1 is clearly worse."""
    true = load_model("mx64/m6")
    logs = synthesize_logs(true, grid([0.5, 1.5], [0.15], [8, 32]))
    _, validation = split_logs(logs, 0.25, seed=0)
    true_mae = Objective(true, validation)({k: np.array([v]) for k, v in true.values.items()})[0]
    assert 0.0002 < true_mae < 0.0006
    m6 = fit(logs, "mx64", "m6", trials=12000, seed=0, progress=False)
    m1 = fit(logs, "mx64", "m1", trials=2000, seed=0, progress=False)
    assert m6.validation_mae <= 1.1 * true_mae
    assert m1.validation_mae > 5 * m6.validation_mae


def test_resume_continues_the_study(tmp_path, xl330_logs):
    storage = str(tmp_path / "study.journal")
    first = fit(xl330_logs[:4], "xl330", "m1", trials=96, popsize=32, storage=storage, study_name="s", progress=False, polish=False)
    assert first.trials == 96
    second = fit(xl330_logs[:4], "xl330", "m1", trials=160, popsize=32, storage=storage, study_name="s", progress=False, polish=False)
    study = optuna.load_study(study_name="s", storage=make_study(storage, "s", 0, 32)._storage)
    complete = study.get_trials(states=(TrialState.COMPLETE,))
    assert second.trials == len(complete) == 160
    assert second.train_mae <= first.train_mae


def test_two_workers_share_one_journal(tmp_path, xl330_logs):
    storage = str(tmp_path / "shared.journal")
    result = fit(xl330_logs[:3], "xl330", "m1", trials=192, popsize=32, storage=storage, study_name="w", workers=2, progress=False, polish=False)
    study = optuna.load_study(study_name="w", storage=make_study(storage, "w", 0, 32)._storage)
    complete = study.get_trials(states=(TrialState.COMPLETE,))
    assert len(complete) >= 192 and result.trials == len(complete)
    workers = {t.user_attrs["worker"] for t in study.trials if "worker" in t.user_attrs}
    assert workers == {0, 1}


def test_ctrl_c_keeps_best_and_resume_loses_nothing(tmp_path, xl330_processed):
    storage = str(tmp_path / "run.journal")
    out = tmp_path / "m2.json"
    args = [sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(xl330_processed), "--actuator", "xl330",
            "--model", "m2", "--trials", "100000", "--storage", storage, "--study", "c", "--out", str(out)]
    process = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in process.stderr:
        lines.append(line)
        if "trials/s" in line and int(line.split("]")[1].split("/")[0]) >= 200:
            break
    process.send_signal(signal.SIGINT)
    rest = process.communicate(timeout=60)[1]
    assert process.returncode == 130, rest
    assert "interrupted" in rest and out.exists()
    kept = load_model(out)
    study = optuna.load_study(study_name="c-m2", storage=make_study(storage, "c-m2", 0, 40)._storage)
    done = [t.number for t in study.get_trials(states=(TrialState.COMPLETE,))]
    assert len(done) >= 200
    best = study.best_trial
    assert kept.values["kt"] == pytest.approx(best.params["kt"])
    assert not study.get_trials(states=(TrialState.RUNNING,))
    subprocess.run([*args[:11], str(len(done) + 40), *args[12:], "--quiet"], check=True, capture_output=True)
    after = optuna.load_study(study_name="c-m2", storage=make_study(storage, "c-m2", 0, 40)._storage)
    still = {t.number for t in after.get_trials(states=(TrialState.COMPLETE,))}
    assert set(done) <= still and len(still) >= len(done) + 40


def test_fit_all_writes_params_and_report(tmp_path, xl330_processed):
    result = subprocess.run(
        [sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(xl330_processed), "--actuator", "xl330",
         "--model", "all", "--trials", "64", "--popsize", "32", "--out", str(tmp_path / "fit"), "--quiet"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "fit" / "report" / "report.json").read_text())
    assert set(report["models"]) == {"m1", "m2", "m3", "m4", "m5", "m6"}
    assert len(report["validation_logs"]) == 4
    for name, m in report["models"].items():
        assert load_model(tmp_path / "fit" / f"{name}.json").friction.name == name
        assert m["validation_mae"] > 0 and m["trials"] == 64 + 32  # global run + local polish (half the budget)
        assert set(m["validation_by_gain"]) == {"100", "200", "800"}
        assert all("half_width" in p and "determined" in p for p in m["parameters"])
    assert report["best_model"] in report["models"]
    train = {name: m["train_mae"] - 1e-12 * k for k, (name, m) in enumerate(report["models"].items())}
    # each model starts from the best nested one already fitted: never worse on training logs
    # (to rounding: M5 computes M4's Kl|tm - te| as |Kl tm - Kl te|)
    assert train["m2"] <= train["m1"] and train["m3"] <= train["m1"]
    assert train["m4"] <= min(train["m2"], train["m3"]) and train["m6"] <= train["m5"] <= train["m4"]
    assert (tmp_path / "fit" / "report" / "mae.png").stat().st_size > 10_000
    assert "Chosen by validation MAE" in (tmp_path / "fit" / "report" / "report.md").read_text()


def test_fit_rejects_unknown_fixed_parameter(xl330_processed):
    result = subprocess.run(
        [sys.executable, "-m", "actuator_models.cli", "fit", "--logs", str(xl330_processed), "--actuator", "xl330",
         "--model", "m1", "--set", "alpha=2"], capture_output=True, text=True)
    assert result.returncode == 2 and "'alpha' is not one of model xl330/m1" in result.stderr


def test_convergence_rule():
    from actuator_models.identification import converged

    assert not converged([1.0, 0.5, 0.4], 5)  # too short to tell
    assert converged([1.0, 0.9999, 0.9995], 2)  # 0.05 % in 2 generations
    assert not converged([1.0, 0.99, 0.98], 2)  # 2 % in 2 generations
    assert not converged([2.0, 1.0, 1.5, 0.9], 2)  # a generation beat every earlier one by 10 %
    assert converged([2.0, 1.0, 1.5, 1.2], 2)  # recent generations worse than the best before


def test_nesting_of_friction_models():
    from actuator_models.friction import FRICTION_MODELS, nests

    nested = {a: {b for b in FRICTION_MODELS if nests(FRICTION_MODELS[a], FRICTION_MODELS[b])} for a in FRICTION_MODELS}
    assert nested == {
        "m1": {"m1", "m2", "m3", "m4", "m5", "m6"},
        "m2": {"m2", "m4", "m5", "m6"},
        "m3": {"m3", "m4", "m5", "m6"},
        "m4": {"m4", "m5", "m6"},
        "m5": {"m5", "m6"},
        "m6": {"m6"},
    }

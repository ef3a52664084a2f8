"""Fits a user can trust (issue 21): independent starts recorded per generation, an honest
report (no training MAE where validation belongs, warnings when validation is far off),
validation logs chosen by pattern, a prior toward the actuator's defaults, a log-scale search,
and a made-up servo whose validation log holds an event the training logs lack."""

from dataclasses import replace
import json
import subprocess
import sys

import numpy as np
import pytest

from actuator_models import studies
from actuator_models.cma_run import eliminate, halving_milestones
from actuator_models.fit_spec import FitSpec
from actuator_models.fitting import fit
from actuator_models.identification import FitSettings, Identification
from actuator_models.logs import read_logs, write_log
from actuator_models.model import new_model
from actuator_models.objective import Objective, Prior, SearchSpace
from actuator_models.report import fit_warnings
from actuator_models.splits import Dataset
from actuator_models.synthesis import BenchConfig, synthesize_logs

SERVO = """\
name: madeup_sts
title: a made-up serial-bus servo (not a Dynamixel)
control_law: voltage
constants:
  error_gain: {value: 0.0015, unit: 1/rad}
  max_duty: {value: 0.9, unit: "1"}
  vin: {value: 7.4, unit: V}
parameters:
  kt: {default: 0.5, bounds: [0.1, 2.0], unit: N m/A}
  R: {default: 3.0, bounds: [1.0, 8.0], unit: ohm}
  armature: {default: 0.004, bounds: [0.0005, 0.03], unit: kg m^2}
  q_offset: {default: 0.0, bounds: [-0.1, 0.1], unit: rad}
friction_bounds:
  friction_base: {bounds: [0.0, 0.3], unit: N m}
  friction_viscous: {bounds: [0.0, 1.0], unit: N m s/rad}
"""


@pytest.fixture(scope="module")
def xl330_logs(xl330_processed):
    return read_logs(xl330_processed)


def cli(*args):
    return subprocess.run([sys.executable, "-m", "actuator_models.cli", *map(str, args)], capture_output=True, text=True)


def test_starts_run_side_by_side_one_record_per_generation_and_halve(xl330_logs):
    """Four starts share each generation's kernel call and its one add_trials; by successive
    halving the worse two stop after the first rung, the worse of the other two after the second,
    and the last one standing gets the rest of the budget. The report's starts add up to the
    search and the fit's result is the best start's."""
    dataset = Dataset.split(xl330_logs, validation_logs=3)
    writes = []
    original = studies.record
    studies.record = lambda study, space, generations: (writes.append([len(g.costs) for g in generations]),
                                                         original(study, space, generations))
    try:
        result = Identification(new_model("xl330", "m1"), dataset,
                                FitSettings(trials=400, popsize=10, starts=4, polish=False, patience=None)).run()
    finally:
        studies.record = original
    assert halving_milestones(4, 10, 400) == [3, 9]  # 400/3 trials per rung: 3 generations of 4, 6 of 2
    # one write per generation of the running starts, a trial per start
    assert writes == [[10] * 4] * 3 + [[10] * 2] * 6 + [[10]] * 16
    counts = sorted(s.trials for s in result.starts)
    assert counts == [30, 30, 90, 250] and sum(counts) == result.trials
    assert min(s.train_mae for s in result.starts) == pytest.approx(result.train_mae)
    assert all(s.validation_mae is not None and s.validation_mae > 0 for s in result.starts)


def test_halving_drops_the_starts_worse_at_the_milestone():
    """Successive halving ranks by the best cost up to the milestone generation, not after it."""
    class Run:  # the attributes eliminate() reads of a lockstep run
        def __init__(self, history):
            self.history, self.generation, self.eliminated = history, len(history), False

        def active(self, patience):
            return not self.eliminated

    runs = [Run([5.0, 4.0, 0.5]), Run([3.0, 3.0, 3.0]), Run([4.0, 1.0, 1.0]), Run([6.0, 6.0, 6.0])]
    eliminate(runs, [2], None)  # at generation 2: bests 4, 3, 1, 6 -> runs 0 and 3 stop
    assert [r.eliminated for r in runs] == [True, False, False, True]
    late = [Run([5.0, 4.0]), Run([3.0])]
    eliminate(late, [2], None)  # run 1 has not reached the milestone yet: no decision
    assert not any(r.eliminated for r in late)
    assert halving_milestones(1, 28, 22500) == [] and halving_milestones(4, 28, 22500) == [66, 199]


def test_resumed_starts_continue_their_generations(tmp_path, xl330_logs):
    storage = str(tmp_path / "s.journal")
    spec = FitSpec(xl330_logs[:4], "xl330", ("m1",), FitSettings(trials=100, popsize=8, starts=3, polish=False,
                                                                  patience=None),
                   validation_logs=1, carry=(), storage=storage, study_prefix="s")
    fit(spec)  # a first fit, its last generation cut by the budget
    second = fit(replace(spec, settings=replace(spec.settings, trials=196))).result()
    done = studies.completed(studies.open_study(studies.open_storage(storage), "s-m1"))
    assert second.trials == studies.evaluations(done) == 196
    cut = []
    for run in range(3):  # each start numbers its generations on; the cut generation stays as it was
        generations = studies.run_trials(done, "search", run, 0)
        assert list(generations) == list(range(len(generations)))
        cut.extend(t.user_attrs["evaluations"] for t in generations.values() if t.user_attrs["evaluations"] != 8)
    assert len(cut) <= 1  # at most one generation, the first fit's last, was cut by its budget
    assert len({(t.user_attrs["run"], t.user_attrs["generation"]) for t in done}) == len(done)


def test_log_scale_search_space_round_trips_and_centres_geometrically():
    space = SearchSpace.for_model(new_model("xl330", "m6"))
    logged = {p.name for p, log in zip(space.free, space.log) if log}
    assert logged == {"kt", "armature", "dtheta_stribeck", "alpha"}  # positive, ranges of 10x or more
    centre = space.from_unit(np.full(len(space.free), 0.5))
    assert centre["alpha"] == pytest.approx(np.sqrt(0.5 * 10.0)) and centre["R"] == pytest.approx(3.5)
    unit = np.random.default_rng(0).uniform(size=len(space.free))
    assert space.to_unit(space.from_unit(unit)) == pytest.approx(unit, abs=1e-12)
    linear = SearchSpace.for_model(new_model("xl330", "m6"), log_scale=False)
    assert linear.from_unit(np.full(len(space.free), 0.5))["alpha"] == pytest.approx(5.25)


def test_prior_factor_is_one_at_the_defaults_and_quadratic_away(xl330_logs):
    model = new_model("xl330", "m1")
    space = SearchSpace.for_model(model)
    prior = Prior.toward(space, model.values, weight=0.3)
    at_defaults = space.batch([{p.name: model.values[p.name] for p in space.free}])
    assert prior.factor(at_defaults) == pytest.approx([1.0])
    moved = dict(at_defaults, R=at_defaults["R"] + 2 * 0.25 * (5.0 - 2.0))  # two quarter ranges on one of 6 parameters
    assert prior.factor(moved) == pytest.approx([1 + 0.3 * 4 / 6])
    objective = Objective(model, xl330_logs[:2], prior)
    assert objective(moved) == pytest.approx(objective.per_log(moved).mean(axis=1) * 1.2)


def test_validation_logs_chosen_by_pattern(xl330_logs):
    dataset = Dataset.split(xl330_logs, validation_match="lift_and")
    assert {log.trajectory for log in dataset.validation} == {"lift_and_drop"} and len(dataset.validation) == 3
    assert "lift_and_drop" not in {log.trajectory for log in dataset.train}
    assert len(Dataset.split(xl330_logs, validation_match=r"10h28m(10|17)").validation) == 2  # by file name
    with pytest.raises(ValueError, match="no log's file name or trajectory matches 'circle'"):
        Dataset.split(xl330_logs, validation_match="circle")
    with pytest.raises(ValueError, match="every log matches"):
        Dataset.split(xl330_logs, validation_match="json")
    with pytest.raises(ValueError, match="give at most one of validation_kp, validation_match"):
        Dataset.split(xl330_logs, validation_kp=200, validation_match="sin")


def test_report_without_validation_logs_shows_no_training_mae_as_validation(tmp_path, xl330_processed):
    """Finding 5: with zero validation logs the Markdown showed the training MAE in a validation
    column; now every validation cell is empty, and the choice says it used training MAE."""
    out = tmp_path / "fit"
    done = cli("fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1", "--trials", "48",
               "--popsize", "12", "--starts", "2", "--validation-fraction", "0", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "m1.report" / "report.json").read_text())
    assert report["models"]["m1"]["validation_mae"] is None and report["defaults"]["m1"]["validation_mae"] is None
    assert report["chosen_by"] == "training MAE (no validation logs)" and report["warnings"] == []
    text = (out / "m1.report" / "report.md").read_text()
    header, _, row = [line for line in text.splitlines() if line.startswith("|")][:3]
    cells = dict(zip(header.split("|"), row.split("|")))
    validation_columns = [c for c in cells if "validation" in c]
    assert len(validation_columns) == 2 and all(cells[c].strip() == "—" for c in validation_columns)
    assert f"{report['defaults']['m1']['train_mae']:.4f}" in row  # the defaults' training MAE, in its own column
    assert "Chosen by training MAE (no validation logs)" in text
    assert "best model by training MAE (no validation logs): M1" in done.stdout


def test_warnings_name_model_and_both_errors():
    class Result:
        train_mae, validation_mae = 0.01, 0.05

    lines = fit_warnings("m6", Result(), default_validation=0.03)
    assert len(lines) == 2
    assert "M6: validation MAE 0.0500 rad is 5.0x its training MAE 0.0100 rad" in lines[0]
    assert "above the unfitted defaults' 0.0300 rad" in lines[1]
    Result.validation_mae = 0.015
    assert fit_warnings("m6", Result(), default_validation=0.03) == []
    Result.validation_mae = None
    assert fit_warnings("m6", Result(), default_validation=None) == []


def test_unseen_servo_whose_validation_log_holds_an_event_training_lacks(tmp_path):
    """Finding 4, synthetic: a made-up servo (an actuator file, not a Dynamixel) fitted on three
    logs without a torque release and validated on a lift-and-drop, which releases the torque.
    The release shows a servo that behaves like its defaults (say, a firmware that brakes the
    motor when torque is off), which no training log can show. The fit then predicts the
    release far worse than the unfitted defaults: the command must say so (stderr and report),
    and a prior toward the defaults (--prior) must lower the validation error."""
    servo = tmp_path / "sts.yaml"
    servo.write_text(SERVO)
    config = [BenchConfig(0.5, 0.12, 40.0)]
    trained_on = new_model(servo, "m1", kt=0.8, R=4.5, armature=0.002, friction_base=0.02, friction_viscous=0.02)
    logs = [log for log in synthesize_logs(trained_on, config) if log.trajectory != "lift_and_drop"]
    logs += synthesize_logs(new_model(servo, "m1"), config, trajectories=["lift_and_drop"])
    folder = tmp_path / "logs"
    for i, log in enumerate(logs):
        write_log(log, folder / f"{i:02d}_{log.trajectory}.json")
    runs = {}
    for prior in ("0", "3"):
        out = tmp_path / f"fit-{prior}"
        done = cli("fit", "--logs", folder, "--actuator", servo, "--model", "m1", "--trials", "1500", "--force",
                   "--validation-logs-match", "lift_and_drop", "--prior", prior, "--out", out, "--quiet")
        assert done.returncode == 0, done.stderr
        runs[prior] = (done, json.loads((out / "m1.report" / "report.json").read_text()))
    done, report = runs["0"]
    fitted, defaults = report["models"]["m1"]["validation_mae"], report["defaults"]["m1"]["validation_mae"]
    assert report["validation_logs"] == ["03_lift_and_drop.json"]
    assert fitted > 10 * defaults and fitted > 2 * report["models"]["m1"]["train_mae"]
    assert "above the unfitted defaults'" in done.stderr and "its training MAE" in done.stderr
    assert len(report["warnings"]) == 2 and all(w in (tmp_path / "fit-0" / "m1.report" / "report.md").read_text()
                                                for w in report["warnings"])
    assert runs["3"][1]["models"]["m1"]["validation_mae"] < 0.85 * fitted  # 0.050 against 0.081 rad, seed 0


def test_cross_validation_folds_partition_by_gain_and_trajectory(xl330_logs):
    from actuator_models.cross_validation import folds

    for rule, expected in (("gain", ["kp 100", "kp 200", "kp 800"]),
                           ("trajectory", ["sin_sin", "up_and_down", "lift_and_drop", "sin_time_square"])):
        made = folds(xl330_logs, rule)
        assert [f.name for f in made] == expected
        for fold in made:
            assert len(fold.dataset.train) + len(fold.dataset.validation) == 12
            held = {(log.kp, log.trajectory) for log in fold.dataset.validation}
            assert all((f"kp {kp:g}" if rule == "gain" else trajectory) == fold.name for kp, trajectory in held)
    assert folds([log for log in xl330_logs if log.kp == 200], "gain") == []  # one gain: nothing to leave out


def test_model_chosen_by_cross_validation_and_its_table(tmp_path, xl330_processed):
    """Finding 2: the fit that matches its training logs best is not the one that predicts other
    gains best; `fit --cv` measures each model on gains it was not fitted on and chooses by that."""
    from actuator_models.cross_validation import CrossValidation, markdown

    cv = CrossValidation({"gain": {"m1": {"kp 100": (0.02, 0.05), "kp 800": (0.02, 0.03)},
                                   "m6": {"kp 100": (0.01, 0.07), "kp 800": (0.01, 0.02)}}}, 100)
    assert cv.mean("m1") == pytest.approx(0.04) and cv.mean("m6") == pytest.approx(0.045) and cv.best() == "m1"
    assert cv.warnings() == ["M1: with kp 100 held out (leave-one-gain-out) its MAE is 0.0500 rad, 2.5x its training "
                             "MAE 0.0200 rad", "M6: with kp 100 held out (leave-one-gain-out) its MAE is 0.0700 rad, "
                             "7.0x its training MAE 0.0100 rad"]
    table = "\n".join(markdown(cv.to_dict()))
    assert "| M6 | 0.0700 | 0.0200 | 0.0450 |" in table and "**M1** (0.0400 rad)" in table
    out = tmp_path / "fit"
    done = cli("fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1", "--trials", "48",
               "--popsize", "12", "--starts", "1", "--cv", "gain", "--cv-trials", "24", "--out", out, "--quiet")
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "m1.report" / "report.json").read_text())
    folds_run = report["cross_validation"]["rules"]["gain"]["m1"]
    assert set(folds_run) == {"kp 100", "kp 200", "kp 800"} and report["cross_validation"]["trials_per_fit"] == 24
    assert report["chosen_by"] == "cross-validation (leave one gain out)"
    assert "## Cross-validation" in (out / "m1.report" / "report.md").read_text()
    assert cli("fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1", "--cv", "speed").returncode == 2


def test_a_phase_that_finds_nothing_better_keeps_the_better(xl330_logs):
    """Issue 34.6: "the polish raises the training MAE (0.06551 -> 0.06560)": a phase's figure was
    the best of its own trials, so a phase that found nothing better read as making the fit worse.
    Here M2 starts from a fitted M1 (an optimum of M2's nested case) and its short, wide search
    finds nothing as good: every phase's figure is the best so far, never above the one before,
    and the result costs no more than the best found before the polish (cost = MAE: no prior)."""
    dataset = Dataset.split(xl330_logs, validation_logs=3)
    m1 = Identification(new_model("xl330", "m1"), dataset, FitSettings(trials=2000, popsize=8, starts=1, prior=0.0,
                                                                          polish=False)).run()
    m2 = Identification(new_model("xl330", "m2"), dataset, FitSettings(trials=24, popsize=8, starts=1, prior=0.0),
                        start=m1.model).run()
    assert [p.phase for p in m2.phases] == ["start", "search", "polish"]
    start = m2.phases[0]
    assert start.best == pytest.approx(m1.train_mae, rel=1e-9)  # M2 from M1's point is M1
    costs = [p.cost for p in m2.phases]
    assert costs == sorted(costs, reverse=True) and costs[1] == start.cost  # the search found nothing better
    assert all(p.best == p.cost for p in m2.phases)  # no prior: the cost is the MAE
    assert m2.train_mae <= min(costs[:2]) and m2.train_mae == pytest.approx(costs[-1])

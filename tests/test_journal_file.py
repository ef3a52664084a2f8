"""Issue 34.5: the journal file a fit's ``--storage x.journal`` uses (journal_file.py) is optuna's
own format, read and written either way, never reads half a line, and a fit killed with
SIGKILL resumes from it. (Its speed is a side-by-side ratio: benchmarks/journal_storage.py.)"""

from __future__ import annotations

import json
import os
import signal
import time

import optuna
from optuna.storages.journal import JournalFileBackend, JournalStorage

from actuator_models import studies
from actuator_models.journal_file import BatchedJournalFile

from bench_commands import alive, children
from test_interrupts import interrupt_when, start


def objective(trial: optuna.Trial) -> float:
    x = trial.suggest_float("x", -2.0, 2.0)
    return (x - 0.5) ** 2


def test_the_file_is_optunas_journal_format_both_ways(tmp_path):
    path = tmp_path / "runs.journal"
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    ours = optuna.create_study(study_name="a", storage=JournalStorage(BatchedJournalFile(path)))
    ours.optimize(objective, n_trials=7)
    theirs = optuna.load_study(study_name="a", storage=JournalStorage(JournalFileBackend(str(path))))
    assert [t.params for t in theirs.trials] == [t.params for t in ours.trials]
    assert [t.value for t in theirs.trials] == [t.value for t in ours.trials]
    theirs.optimize(objective, n_trials=3)  # optuna's backend appends, ours reads it back
    again = optuna.load_study(study_name="a", storage=studies.open_storage(str(path)))
    assert len(again.trials) == 10 and [t.value for t in again.trials] == [t.value for t in theirs.trials]
    assert not (tmp_path / "runs.journal.lock").exists()  # no lock file left behind


def test_a_line_being_written_is_not_read_until_complete(tmp_path):
    path = tmp_path / "j.journal"
    backend = BatchedJournalFile(path)
    backend.append_logs([{"op_code": 0, "n": 0}, {"op_code": 0, "n": 1}])
    with open(path, "ab") as file:
        file.write(b'{"op_code": 0, "n"')  # a writer between its bytes (never so, in one write)
    assert [log["n"] for log in backend.read_logs(0)] == [0, 1]
    assert [log["n"] for log in backend.read_logs(1)] == [1]
    with open(path, "ab") as file:
        file.write(b': 2}\n')
    assert [log["n"] for log in backend.read_logs(2)] == [2]
    assert [log["n"] for log in BatchedJournalFile(path).read_logs(0)] == [0, 1, 2]
    assert json.loads(path.read_text().splitlines()[2]) == {"op_code": 0, "n": 2}


def test_a_fit_killed_with_sigkill_continues_and_ends_where_a_fit_run_through_ends(tmp_path, xl330_processed):
    """kill -9 mid-fit, then the same command again: the second run keeps every trial of the
    first, runs only the rest of the budget (each start's generations numbered on), and ends with
    the very parameters of the same fit run through in memory: the CMA-ES state is restored from
    the last recorded generation, not rebuilt, and no completed generation is run twice."""
    budget = 2400  # 2 starts of 8, halved once, and a polish: hundreds of generations, none cut
    argv = ["actuator-models", "fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1",
            "--trials", str(budget), "--popsize", "8", "--starts", "2", "--patience", "0", "--out", "m1.json"]
    (tmp_path / "through").mkdir()
    through = start(argv, tmp_path / "through")
    assert through.wait(timeout=600) == 0, through.stderr.read()
    argv += ["--storage", "runs.journal"]
    err, status = interrupt_when(start(argv, tmp_path), "[xl330/m1 search]", signal.SIGKILL)
    assert status == -signal.SIGKILL, err
    storage = studies.open_storage(str(tmp_path / "runs.journal"))
    name = optuna.get_all_study_summaries(storage)[0].study_name
    before = optuna.load_study(study_name=name, storage=storage).trials
    killed_at = studies.evaluations(before)
    assert 0 < killed_at < budget
    resumed = start(argv, tmp_path)
    out, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    summary = next(line for line in out.splitlines() if line.startswith("M1: train MAE"))
    assert f"{budget} trials in the study, {budget - killed_at} by this process" in summary, summary
    after = optuna.load_study(study_name=name, storage=studies.open_storage(str(tmp_path / "runs.journal"))).trials
    assert studies.evaluations(after) == budget
    assert [(t.params, t.value, t.user_attrs) for t in after[:len(before)]] == [
        (t.params, t.value, t.user_attrs) for t in before]
    for run in (0, 1):
        generations = studies.run_trials(after, "search", run, 0)
        assert list(generations) == list(range(len(generations))) and generations
    ours, theirs = (json.loads((folder / "m1.json").read_text()) for folder in (tmp_path, tmp_path / "through"))
    assert ours == theirs and ours["model"] == "m1"


GUARD = 300.0  # s: only against a hang, never a timing assertion


def wait_for(condition, what):
    deadline = time.monotonic() + GUARD
    while not condition():
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.2)


def test_a_two_worker_fit_killed_with_sigkill_takes_its_helper_along_and_resumes(tmp_path, xl330_processed):
    """``--workers 2`` killed with SIGKILL (no handler runs): its helper process ends with it
    instead of going on beside the helper of the same index the resumed fit starts; the resumed
    fit keeps every generation, numbers each run's generations on (none twice) and ends."""
    argv = ["actuator-models", "fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1",
            "--trials", "100000", "--popsize", "8", "--patience", "0", "--storage", "runs.journal", "--workers", "2",
            "--out", "m1.json"]
    journal = str(tmp_path / "runs.journal")

    def trials():
        storage = studies.open_storage(journal)
        names = [s.study_name for s in optuna.get_all_study_summaries(storage)]
        return optuna.load_study(study_name=names[0], storage=storage).trials if names else []

    fit = start(argv, tmp_path)
    helpers = []
    try:
        wait_for(lambda: any(t.user_attrs["worker"] == 1 for t in trials()), "the helper's first generation")
        helpers = children(fit.pid)
        assert helpers
        fit.send_signal(signal.SIGKILL)
        assert fit.wait(timeout=GUARD) == -signal.SIGKILL
        wait_for(lambda: not any(alive(pid) for pid in helpers), "the helper to end with the fit")
    finally:
        for pid in [fit.pid, *helpers]:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
    before = trials()
    budget = studies.evaluations(before) + 200
    argv[argv.index("100000")] = str(budget)
    resumed = start(argv, tmp_path)
    out, err = resumed.communicate(timeout=600)
    assert resumed.returncode == 0, err
    after = trials()
    assert [(t.params, t.value, t.user_attrs) for t in after[:len(before)]] == [
        (t.params, t.value, t.user_attrs) for t in before]
    runs = {}
    for t in after:
        a = t.user_attrs
        runs.setdefault((a["phase"], a.get("run"), a["worker"]), []).append(a.get("generation"))
    for where, generations in runs.items():
        if where[0] != "start":
            assert generations == list(range(len(generations))), (where, generations)
    # the workers count the study together: at most a generation of 8 per other worker past the budget
    assert budget <= studies.evaluations(after) <= budget + 4 * 8
    # the summary's phases are this process's (worker 0's) evaluations, not its helper's too
    mine = studies.evaluations([t for t in after[len(before):] if t.user_attrs["worker"] == 0])
    summary = next(line for line in out.splitlines() if line.startswith("M1: train MAE"))
    assert f"trials in the study, {mine} by this process (" in summary, summary

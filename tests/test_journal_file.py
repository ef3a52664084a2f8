"""Issue 34.5: the journal file a fit's ``--storage x.journal`` uses (journal_file.py) is optuna's
own format, read and written either way, never reads half a line, and a fit killed with
SIGKILL resumes from it. (Its speed is a side-by-side ratio: benchmarks/journal_storage.py.)"""

from __future__ import annotations

import json
import signal

import optuna
from optuna.storages.journal import JournalFileBackend, JournalStorage

from actuator_models import studies
from actuator_models.journal_file import BatchedJournalFile

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


def test_a_fit_killed_with_sigkill_resumes_from_its_journal(tmp_path, xl330_processed):
    argv = ["actuator-models", "fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1",
            "--trials", "100000", "--popsize", "8", "--patience", "0", "--storage", "runs.journal", "--out", "m1.json"]
    err, status = interrupt_when(start(argv, tmp_path), "[xl330/m1 ", signal.SIGKILL)
    assert status == -signal.SIGKILL, err
    storage = studies.open_storage(str(tmp_path / "runs.journal"))
    name = optuna.get_all_study_summaries(storage)[0].study_name
    before = {t.number: (t.params, t.value) for t in optuna.load_study(study_name=name, storage=storage).trials}
    assert len(before) >= 8
    budget = len(before) + 16
    argv[argv.index("100000")] = str(budget)
    result = start(argv, tmp_path)
    _, err = result.communicate(timeout=300)
    assert result.returncode == 0, err
    after = optuna.load_study(study_name=name, storage=studies.open_storage(str(tmp_path / "runs.journal"))).trials
    assert len(after) == budget  # resumed: only the rest of the budget was run
    assert all((after[n].params, after[n].value) == trial for n, trial in before.items())
    assert json.loads((tmp_path / "m1.json").read_text())["model"] == "m1"

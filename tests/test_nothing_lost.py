"""Issue 34.2 and 34.4: nothing a user made or waited for is lost, and every refusal names its
option. Commands run as a user runs them (subprocesses, real signals); a test waits for a line of
the command's own progress before it signals, never for a time."""

from __future__ import annotations

import json
import signal

import pytest

from test_interrupts import interrupt_when, start
from test_trustworthy_inputs import error_line, run


def test_sigterm_of_fit_keeps_the_best_parameters_like_ctrl_c(tmp_path, xl330_processed):
    """Before: SIGTERM exited 143 with nothing written."""
    argv = ["actuator-models", "fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1",
            "--trials", "100000", "--popsize", "8", "--patience", "0", "--out", "m1.json"]
    err, status = interrupt_when(start(argv, tmp_path), "[xl330/m1 ", signal.SIGTERM)
    assert status == 130, err
    assert "Traceback" not in err and "m1.json" in err
    params = json.loads((tmp_path / "m1.json").read_text())
    assert params["model"] == "m1"


@pytest.mark.parametrize("argv", [
    ["fit", "--logs", "{logs}", "--actuator", "xl330", "--model", "m1", "--out", "/proc/x/m1.json"],
    ["simulate", "--params", "xl330/m1", "--log", "{log}", "--out", "/proc/x/sim.json"],
    ["process", "--logs", "{raw}", "--out", "/proc/x/processed"],
    ["residuals", "--params", "xl330/m1", "--logs", "{logs}", "--out", "/proc/x/residuals"],
])
def test_an_unwritable_output_is_refused_before_the_work_naming_the_option(tmp_path, xl330_processed, xl330_raw, argv):
    """Before: the fit ran to its end, then failed with '[Errno 2] ... /proc/x' (no option) and exit 2."""
    log = next(xl330_processed.glob("*.json"))
    argv = [a.format(logs=xl330_processed, log=log, raw=xl330_raw) for a in argv]
    result = run(*argv, cwd=tmp_path)
    line = error_line(result)
    assert result.returncode == 1, result.stderr  # a disk fault, as the README says
    assert line.startswith("actuator-models: error: --out: cannot write /proc/x/") and "nothing was done" in line
    assert result.stdout == "" and "[xl330/" not in result.stderr  # no fit was started


def test_evaluate_json_is_alone_on_stdout(xl330_processed):
    """Before: the table and the JSON line both went to stdout (json.load of it failed)."""
    result = run("evaluate", "--params", "xl330/m1", "--logs", xl330_processed, "--json")
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout)
    assert set(table) == {"xl330/m1"} and len(table["xl330/m1"]["logs"]) == 12
    assert "mean" in result.stderr.splitlines()[-1]  # the human table, on stderr
    plain = run("evaluate", "--params", "xl330/m1", "--logs", xl330_processed)
    assert plain.stdout.splitlines()[-1].split()[1] == f"{table['xl330/m1']['mean']:.6f}"


def test_pendulum_json_is_alone_on_stdout(xl330_processed):
    log = sorted(xl330_processed.glob("*.json"))[0]
    result = run("pendulum", "--params", "xl330/m6", "--log", log, "--json", tool="actuator_sim.cli")
    assert result.returncode == 0, result.stderr
    assert set(json.loads(result.stdout)) == {"mae_log", "mae_reference"}


def test_a_json_log_given_to_bag2json_is_one_error_line(xl330_processed):
    """Before: rosbags' AnyReaderError traceback."""
    log = sorted(xl330_processed.glob("*.json"))[0]
    result = run("bag2json", log, "--out", "unused", tool="actuator_bench.cli")
    assert result.returncode == 2 and str(log) in error_line(result) and "not a bag" in error_line(result)


def test_a_binary_file_given_to_dahl_identify_is_one_error_line(tmp_path):
    """Before: UnicodeDecodeError traceback."""
    binary = tmp_path / "record.csv"
    binary.write_bytes(bytes(range(256)) * 4)
    result = run("dahl", "identify", "--constant-velocity", binary, "--periodic", binary)
    assert result.returncode == 2 and str(binary) in error_line(result) and "not a text" in error_line(result)


@pytest.mark.parametrize("content", [b"\xff\xfe{", b'{"a": [1,2'])
def test_a_garbled_eval_file_is_named(tmp_path, content):
    """Before: a utf-8 codec or JSON message without the file's name."""
    garbled = tmp_path / "eval.json"
    garbled.write_bytes(content)
    result = run("plot-mae", "--eval", garbled, "--out", tmp_path / "mae.png", tool="actuator_sim.cli")
    assert result.returncode == 2 and f"--eval {garbled}" in error_line(result)
    assert not (tmp_path / "mae.png").exists()


def test_record_all_refuses_a_negative_mass_before_recording(tmp_path):
    """Before: the four mass-1 logs were recorded, then -2 was refused."""
    result = run("record-all", "--emulate", "xl330/m1", "--actuator", "xl330", "--masses", "1,-2",
                 "--out", tmp_path / "rec", tool="actuator_bench.cli")
    assert result.returncode == 2 and "--masses: -2" in error_line(result)
    assert not (tmp_path / "rec").exists()


def test_interrupted_record_all_says_which_logs_it_kept(tmp_path):
    """Before: 'interrupted' alone."""
    argv = ["actuator-bench", "record-all", "--emulate", "xl330/m1", "--actuator", "xl330", "--masses", "0.5",
            "--lengths", "0.1", "--kps", "100,200", "--unattended", "--lockstep", "--out", "rec"]
    err, status = interrupt_when(start(argv, tmp_path), " -> rec/", signal.SIGTERM)
    assert status == 130, err
    logs = sorted(p.name for p in (tmp_path / "rec").glob("*.json"))
    assert 1 <= len(logs) < 8
    line = next(line for line in err.splitlines() if "interrupted; kept" in line)
    assert line.startswith(f"record-all interrupted; kept {len(logs)} log(s) in rec ({logs[0]}"), err


def test_the_progress_figure_never_rises_and_is_the_cost(xl330_processed):
    """Before: the progress line showed the training MAE of the best trial by cost, which a prior
    lets rise (0.04960 -> 0.04966); the cost is what the fit minimises."""
    from actuator_models.fit_data import FitSettings
    from actuator_models.fit_spec import FitSpec
    from actuator_models.fitting import fit

    seen = []
    result = fit(FitSpec(xl330_processed, "xl330", ("m2",), FitSettings(trials=240, popsize=8)),
                 progress=seen.append).result("m2")
    costs = [p.cost for p in seen]
    assert len(costs) >= 10 and all(b <= a for a, b in zip(costs, costs[1:])), costs
    assert all(p.cost >= p.best for p in seen)  # the prior's factor is >= 1
    assert seen[-1].figure() in (f"best cost {seen[-1].cost:.5f} rad (MAE x prior)",
                                 f"best MAE {seen[-1].best:.5f} rad")
    assert result.train_mae == pytest.approx(seen[-1].best, rel=1e-9)


def test_the_summary_trial_counts_add_up(tmp_path, xl330_processed):
    """Before: '37548 trials (search 20380, polish 5089)': the study's total beside one process's phases."""
    argv = ["fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1", "--trials", "48",
            "--popsize", "8", "--storage", "runs.journal", "--out", "m1.json", "--quiet"]
    first = run(*argv, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    line = next(line for line in first.stdout.splitlines() if line.startswith("M1: "))
    counts = line.split("rad, ")[-1]
    total = int(counts.split()[0])
    phases = [int(part.split()[-1]) for part in counts.split("(")[1].split(")")[0].split(", ")]
    assert total >= 48 and sum(phases) == total, line
    again = run(*argv, cwd=tmp_path)  # resumed: the study is complete, this process ran nothing
    line = next(line for line in again.stdout.splitlines() if line.startswith("M1: "))
    assert f"{total} trials in the study, 0 by this process (nothing left to do)" in line, line


def test_force_says_what_it_replaces(tmp_path, xl330_processed):
    """Before: --force replaced a file without a word."""
    log = sorted(xl330_processed.glob("*.json"))[0]
    (tmp_path / "sim.json").write_text("mine")
    result = run("simulate", "--params", "xl330/m1", "--log", log, "--out", "sim.json", "--force", cwd=tmp_path)
    assert result.returncode == 0 and "actuator-models: warning: --force: replacing sim.json" in result.stderr
    fresh = run("simulate", "--params", "xl330/m1", "--log", log, "--out", "new.json", "--force", cwd=tmp_path)
    assert fresh.returncode == 0 and "replacing" not in fresh.stderr

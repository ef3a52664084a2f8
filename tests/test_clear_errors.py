"""Issue 24, findings 2, 5 and 6: every bad input of the issue gets one ``error:`` line and exit
status 2, never a traceback; what the commands print is aligned and says each thing once.

Each test runs the command as a user types it, in-process (the installed scripts' ``main``)."""

from __future__ import annotations

import pytest

from test_trustworthy_inputs import LIBRARY, error_line, run

XL330 = ("--actuator", "xl330", "--model", "m1", "--trials", "16", "--quiet")


def test_evaluate_a_raw_log_folder_says_process_it_first(xl330_raw):
    """Before: ``ValueError ... process it first`` with a traceback and exit 1."""
    result = run("evaluate", "--params", "xl330/m1", "--logs", xl330_raw)
    line = error_line(result)
    assert result.returncode == 2 and "raw log" in line and f"actuator-models process --logs {xl330_raw}" in line


def test_fit_on_raw_logs_is_one_line_without_the_split_warning_before_it(xl330_raw):
    result = run("fit", "--logs", xl330_raw, *XL330)
    assert result.returncode == 2 and "raw log" in error_line(result)


@pytest.mark.parametrize("value", ["-3", "0", "1", "x"])
def test_fit_popsize_must_be_an_integer_of_at_least_two(value, xl330_processed, tmp_path):
    """Before: ``--popsize -3`` was an AssertionError from cmaes, ``--popsize 0`` was accepted."""
    result = run("fit", "--logs", xl330_processed, *XL330, "--popsize", value, cwd=tmp_path)
    line = error_line(result)
    assert result.returncode == 2 and "--popsize" in line and repr(value) in line
    assert not any(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize("option, value", [("--trials", "0"), ("--workers", "0"), ("--worker", "-1"),
                                           ("--restarts", "-2"), ("--patience", "-1"), ("--validation-logs", "-1"),
                                           ("--seed", "-1"), ("--cv-trials", "0")])
def test_fit_counts_are_checked_before_anything_runs(option, value, xl330_processed, tmp_path):
    result = run("fit", "--logs", xl330_processed, *XL330, option, value, cwd=tmp_path)
    assert result.returncode == 2 and option in error_line(result)


def test_set_with_a_typo_suggests_the_parameter(xl330_processed, tmp_path):
    result = run("fit", "--logs", xl330_processed, *XL330, "--set", "q_ofset=0", cwd=tmp_path)
    line = error_line(result)
    assert result.returncode == 2 and "--set" in line and "did you mean 'q_offset'?" in line


@pytest.mark.parametrize("option, given, expected", [
    ("--set", "armature=-1", "'armature' is -1.0: expected > 0"),
    ("--set", "friction_base=nan", "'friction_base' is nan: expected a finite number"),
    ("--set", "release_armature_share=1.5", "'release_armature_share' is 1.5: expected from 0 to 1"),
    ("--bounds", "armature: [-0.001, 0.01]", "'armature' is -0.001: expected > 0"),
    ("--bounds", "release_friction_share: [0.0, 1.2]", "'release_friction_share' is 1.2: expected from 0 to 1"),
])
def test_fit_refuses_a_value_no_model_can_have(option, given, expected, xl330_processed, tmp_path):
    """Before: ``--set armature=-1`` fitted and wrote a params file that every command then refused
    (a negative armature); a share above 1 (a negative armature with the torque off) and NaN were
    fitted too."""
    argument = given
    if option == "--bounds":  # given: the file's text
        argument = tmp_path / "bounds.yaml"
        argument.write_text(given + "\n")
    result = run("fit", "--logs", xl330_processed, *XL330, option, argument, "--out", tmp_path / "out", cwd=tmp_path)
    line = error_line(result)
    assert result.returncode == 2 and option in line and expected in line, line
    assert not (tmp_path / "out").exists()


def test_bounds_file_naming_another_models_parameter_names_the_file(xl330_processed, tmp_path):
    bounds = tmp_path / "my_bounds.yaml"
    bounds.write_text("friction_base: [0.0, 0.5]\nfriction_stribeck: [0.0, 1.0]\n")  # an M2+ parameter, fitting M1
    result = run("fit", "--logs", xl330_processed, *XL330, "--bounds", bounds, cwd=tmp_path)
    line = error_line(result)
    assert result.returncode == 2 and str(bounds) in line and "'friction_stribeck'" in line and "xl330/m1" in line


def test_unknown_actuator_is_one_line_not_the_whole_usage(xl330_processed):
    """Before: the 12-line usage of ``fit`` came first."""
    result = run("fit", "--logs", xl330_processed, "--actuator", "xl331", "--model", "m1")
    line = error_line(result)
    assert result.returncode == 2 and "unknown actuator 'xl331'" in line and "usage:" not in result.stderr
    assert "--help" in line  # where the usage is


@pytest.mark.parametrize("tool, argv", [("actuator_models.cli", ["fitt"]), ("actuator_sim.cli", ["arm", "--arm", "zz"]),
                                        ("hybrid_sim.cli", ["slip", "--bogus"]), ("actuator_bench.cli", ["demo", "--quik"])])
def test_every_usage_error_is_one_line(tool, argv):
    result = run(*argv, tool=tool)
    assert result.returncode == 2 and "usage:" not in error_line(result)


def test_actuator_drivers_help_names_its_own_program(capsys):
    """Before: ``actuator-drivers --help`` said ``usage: actuator-bench``."""
    result = run("--help", tool="actuator_drivers.cli")
    assert result.returncode == 0 and result.stdout.startswith("usage: actuator-drivers ")
    assert "actuator-drivers emulate --actuator mx64" in result.stdout and "actuator-bench" not in result.stdout
    assert run("--help", tool="actuator_bench.cli").stdout.startswith("usage: actuator-bench ")


def test_process_documents_its_positional_form_and_both_forms_agree(tmp_path, xl330_raw):
    text = run("process", "--help").stdout
    assert "RAW_DIR" in text and "the same as --logs" in text and "OUT_DIR" in text
    raw = tmp_path / "raw"
    raw.mkdir()
    source = sorted(xl330_raw.glob("*.json"))[0]
    (raw / source.name).write_bytes(source.read_bytes())
    clash = run("process", raw, tmp_path / "a", "--out", tmp_path / "b")
    assert clash.returncode == 2 and "disagree" in error_line(clash)
    assert run("process", raw, tmp_path / "c").returncode == 0
    assert run("process", "--logs", raw, "--out", tmp_path / "d").returncode == 0
    assert (tmp_path / "c" / source.name).read_bytes() == (tmp_path / "d" / source.name).read_bytes()


def test_arm_compare_table_columns_line_up(tmp_path):
    result = run("arm-compare", "--arm", "mx", "--paths", "circle", "triangle_wave", "--gain", "low",
                 "--candidate", "M1", "m1", "m1", tool="actuator_sim.cli")
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines()[1:] if line.strip()]
    assert rows[0].startswith("path") and rows[-1].startswith("mean")
    assert len({len(row) for row in rows}) == 1, rows  # before: 'triangle_wave, low gain' pushed its numbers right


def test_trajectory_legend_names_a_library_model_once(tmp_path, xl330_processed):
    """Before: ``xl330/m1 (xl330/m1, reference sim.)``; a params file still says which model it holds."""
    log = sorted(xl330_processed.glob("*.json"))[0]
    (tmp_path / "mine.json").write_bytes((LIBRARY / "xl330" / "m6.json").read_bytes())
    result = run("plot-trajectory", "--params", "xl330/m1", tmp_path / "mine.json", "--log", log,
                 "--out", tmp_path / "t.png", tool="actuator_sim.cli")
    assert result.returncode == 0, result.stderr
    lines = {line.split(": MAE")[0]: line for line in result.stdout.splitlines() if ": MAE" in line}
    assert lines["xl330/m1"].endswith("rad (reference simulator)") and lines["xl330/m1"].count("xl330/m1") == 1
    assert lines["mine.json"].endswith("rad (xl330/m6, reference simulator)")


@pytest.mark.parametrize("url, expected", [("postgresql://host/db", "postgresql+psycopg2://"),
                                           ("nosuch://x", "not a journal file nor a usable database URL")])
def test_a_storage_url_no_driver_serves_is_bad_input(url, expected, xl330_processed, tmp_path):
    """Found by tests/test_fuzz_cli.py: the fit help's own example was an ImportError traceback."""
    result = run("fit", "--logs", xl330_processed, *XL330, "--storage", url, cwd=tmp_path)
    line = error_line(result)
    assert result.returncode == 2 and f"--storage {url}" in line and expected in line


def test_a_database_that_cannot_be_reached_is_a_runtime_fault(xl330_processed, tmp_path):
    result = run("fit", "--logs", xl330_processed, *XL330, "--storage", f"sqlite:///{tmp_path}/no/such/dir/f.db",
                 cwd=tmp_path)
    assert result.returncode == 1 and "cannot connect" in error_line(result)

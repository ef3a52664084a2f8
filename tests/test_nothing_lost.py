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

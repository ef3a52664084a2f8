"""Issue 34.1: logs that are well formed but in the wrong units or sizes are refused (or warned
about) by every command that reads logs, naming file, field and the likely mistake.

Each mistake is made on a real XL330 log (data/xl330), the way a person makes it: positions and
speeds in degrees, timestamps and dt in milliseconds, the length in centimetres, a log cut to two
samples, time reversed. Every command that reads logs is run in-process on each: none may answer
exit 0 without a ``warning:`` line (before issue 34 each printed a confident MAE).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import math
import warnings
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import numpy as np
import pytest

from actuator_models.log_checks import OddLogWarning, check_dt, check_log
from actuator_models.logs import LogError, log_from_dict, read_log, read_logs

REPO = Path(__file__).resolve().parents[1]
NAME = "2026-01-15_10h28m10.json"  # sin_sin, kp 100
PROCESSED = REPO / "data" / "xl330" / "processed" / NAME
RAW = REPO / "data" / "xl330" / "raw" / NAME


def degrees(data: dict) -> None:
    for entry in data["entries"]:
        for key in ("position", "speed", "goal_position"):
            entry[key] = math.degrees(entry[key])


def milliseconds(data: dict) -> None:
    if "dt" in data:
        data["dt"] *= 1000
    for entry in data["entries"]:
        entry["timestamp"] *= 1000


def centimetres(data: dict) -> None:
    data["length"] *= 100


def two_samples(data: dict) -> None:
    data["entries"] = data["entries"][:2]


def reversed_time(data: dict) -> None:
    stamps = [entry["timestamp"] for entry in data["entries"]]
    for entry, stamp in zip(data["entries"], reversed(stamps)):
        entry["timestamp"] = stamp


#: mistake -> (edit, the field blamed, words of the likely mistake in the error line)
MISTAKES: Dict[str, Tuple[Callable[[dict], None], str, str]] = {
    "degrees": (degrees, "position", "looks like degrees"),
    "milliseconds": (milliseconds, "dt", "looks like milliseconds"),
    "centimetres": (centimetres, "length", "looks like centimetres"),
    "two samples": (two_samples, "entries", "too few"),
    "reversed time": (reversed_time, "timestamp", "does not increase"),
}


def mistaken(source: Path, mistake: str, folder: Path) -> Path:
    """A copy of ``source`` with ``mistake`` made, alone in ``folder``."""
    data = json.loads(source.read_text())
    MISTAKES[mistake][0](data)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / source.name
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("folder", ["processed", "raw"])
def test_the_real_logs_pass_without_a_finding(folder):
    logs = sorted((REPO / "data" / "xl330" / folder).glob("*.json"))
    assert len(logs) == 12
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for path in logs:
            assert check_log(read_log(path)) == [], path


@pytest.mark.parametrize("mistake", MISTAKES)
@pytest.mark.parametrize("source", [PROCESSED, RAW], ids=["processed", "raw"])
def test_each_mistake_is_an_error_naming_file_field_and_mistake(tmp_path, mistake, source):
    path = mistaken(source, mistake, tmp_path)
    _, field, words = MISTAKES[mistake]
    if source == RAW and mistake == "milliseconds":
        field = "timestamp"  # a raw log has no dt: its timestamps' step is the one in ms
    with pytest.raises(LogError) as error:
        read_log(path)
    message = str(error.value)
    assert str(path) in message and f"'{field}'" in message and words in message, message
    assert "\n" not in message


def test_speed_in_degrees_per_second_alone_is_named():
    data = json.loads(PROCESSED.read_text())
    for entry in data["entries"]:
        entry["speed"] = math.degrees(entry["speed"])
    findings = check_log(log_from_dict(data, "run.json"))
    assert [(f.field, f.fatal) for f in findings] == [("speed", True)]
    assert "the speed looks like degrees" in findings[0].problem
    slope = float(findings[0].problem.split(" x ")[0].split()[-1])
    assert slope == pytest.approx(math.degrees(1) * 0.96, rel=0.05)  # the real log's speed is 0.96x its slope


def test_a_plausible_but_odd_log_is_a_warning_and_allow_odd_proceeds(tmp_path):
    data = json.loads(PROCESSED.read_text())
    data["entries"] = data["entries"][:int(0.7 * len(data["entries"]))]  # stopped at 70 % of its 6 s
    path = tmp_path / "short.json"
    path.write_text(json.dumps(data))
    with pytest.warns(OddLogWarning, match="cover 4.195 s of the 6 s trajectory 'sin_sin'"):
        read_log(path)
    odd = mistaken(PROCESSED, "centimetres", tmp_path / "cm")
    with pytest.warns(OddLogWarning, match="looks like centimetres"):
        assert read_log(odd, allow_odd=True).length == pytest.approx(10.0)
    notes: List[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_logs(tmp_path / "cm", allow_odd=True, notes=notes.append)
    assert len(notes) == 1 and "'length'" in notes[0]


@pytest.mark.parametrize("dt, fatal, words", [
    (0.005, None, ""), (0.0001, None, ""), (0.1, False, "coarse"), (5.0, True, "looks like milliseconds"),
    (0.0, True, "not a positive"), (-1.0, True, "not a positive"), (float("nan"), True, "not a positive"),
    (1e-6, True, "below"),
])
def test_check_dt_ranges(dt, fatal, words):
    finding = check_dt(dt, "--dt")
    assert (finding.fatal if finding else None) == fatal
    assert words in (finding.problem if finding else "")


def call(module: str, argv: List[str]) -> Tuple[int, str, str]:
    """``main(argv)`` of a tool in-process: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = importlib.import_module(module).main(argv)
        except SystemExit as exit:
            status = exit.code
    return int(status or 0), out.getvalue(), err.getvalue()


#: Every command that reads logs: (tool module, argv given a log file and its folder, output folder).
COMMANDS: Dict[str, Callable[[Path, Path, Path], Tuple[str, List[str]]]] = {
    "process": lambda log, folder, out: ("actuator_models.cli", ["process", "--logs", str(folder), "--out", str(out)]),
    "simulate": lambda log, folder, out: ("actuator_models.cli", ["simulate", "--params", "xl330/m1", "--log", str(log)]),
    "evaluate": lambda log, folder, out: ("actuator_models.cli", ["evaluate", "--params", "xl330/m1", "--logs", str(folder)]),
    "fit": lambda log, folder, out: ("actuator_models.cli", ["fit", "--logs", str(folder), "--actuator", "xl330", "--model",
                                                             "m1", "--trials", "20", "--force", "--out", str(out)]),
    "residuals": lambda log, folder, out: ("actuator_models.cli", ["residuals", "--params", "xl330/m1", "--logs",
                                                                   str(folder), "--out", str(out)]),
    "pendulum": lambda log, folder, out: ("actuator_sim.cli", ["pendulum", "--params", "xl330/m1", "--log", str(log)]),
    "consistency": lambda log, folder, out: ("actuator_sim.cli", ["consistency", "--params", "xl330/m1", "--logs", str(folder)]),
    "plot-trajectory": lambda log, folder, out: ("actuator_sim.cli", ["plot-trajectory", "--params", "xl330/m1", "--log",
                                                                      str(log), "--out", str(out / "t.png")]),
    "plot-mae": lambda log, folder, out: ("actuator_sim.cli", ["plot-mae", "--params", "xl330/m1", "--logs", str(folder),
                                                               "--out", str(out / "m.png")]),
    "stick-slip": lambda log, folder, out: ("hybrid_sim.cli", ["stick-slip", "--params", "xl330/m1", "--log", str(log)]),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("mistake", MISTAKES)
def test_no_command_answers_a_mistaken_log_without_a_warning(tmp_path, command, mistake):
    source = RAW if command == "process" else PROCESSED
    log = mistaken(source, mistake, tmp_path / "logs")
    module, argv = COMMANDS[command](log, log.parent, tmp_path / "out")
    status, out, err = call(module, argv)
    assert status == 2 and "error:" in err and str(log) in err, (status, out, err)
    assert MISTAKES[mistake][2] in err, err


@pytest.mark.parametrize("argv, words", [
    (["process", "--dt", "5"], "--dt 5 s is not a bench's sample period (0.0001 to 0.05 s); looks like milliseconds"),
    (["process", "--dt", "0"], "--dt 0 is not a positive time step"),
    (["simulate", "--params", "xl330/m1", "--log", str(PROCESSED), "--dt", "5"], "--dt 5 s"),
])
def test_a_dt_option_in_the_wrong_unit_blames_the_option(tmp_path, argv, words):
    if argv[0] == "process":
        argv = [*argv, "--logs", str(RAW.parent), "--out", str(tmp_path / "out")]
    status, out, err = call("actuator_models.cli", argv)
    assert status == 2 and words in err and out == "", (status, out, err)
    assert not (tmp_path / "out").exists()


def test_allow_odd_logs_proceeds_with_a_warning_line(tmp_path):
    log = mistaken(PROCESSED, "centimetres", tmp_path)
    status, out, err = call("actuator_models.cli", ["simulate", "--params", "xl330/m1", "--log", str(log),
                                                    "--allow-odd-logs"])
    assert status == 0 and "MAE" in out
    assert err.count("actuator-models: warning:") == 1 and "looks like centimetres" in err, err
    # the simulation did use the 10 m pendulum: not the MAE of the 0.1 m one
    _, good, _ = call("actuator_models.cli", ["simulate", "--params", "xl330/m1", "--log", str(PROCESSED)])
    assert good.split("MAE")[1] != out.split("MAE")[1]


def test_the_ros_fit_job_refuses_a_mistaken_log_naming_it(tmp_path):
    from actuator_bench.fit_job import FitJob

    log = mistaken(PROCESSED, "degrees", tmp_path / "logs")
    from actuator_bench.fit_job import FitRequest

    request = FitRequest(logs=str(log.parent), actuator="xl330", models=("m1",), trials=10)
    outcome = FitJob(request, tmp_path / "out").run()
    assert not outcome.success and str(log) in outcome.message and "looks like degrees" in outcome.message
    assert not np.any([p.exists() for p in (tmp_path / "out").glob("*.json")])

"""The actuator-models command line, run as a user would (a subprocess)."""

import json
import subprocess
import sys

import pytest

from test_logs import BAD_LOGS


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "actuator_models.cli", *args], capture_output=True, text=True, cwd=cwd)


def test_help_explains_commands():
    out = run("--help").stdout
    for word in ("process", "simulate", "evaluate", "library", "examples"):
        assert word in out


def test_evaluate_json_matches_published_figures(xl330_processed, reference_mae_file):
    result = run("evaluate", "--params", "xl330/m1", "xl330/m6", "--logs", str(xl330_processed), "--json")
    assert result.returncode == 0, result.stderr
    table = json.loads(result.stdout.strip().splitlines()[-1])
    reference = json.loads(reference_mae_file.read_text())["models"]
    for name in ("m1", "m6"):
        got = table[f"xl330/{name}"]
        assert set(got["logs"]) == set(reference[name])
        for log, mae in got["logs"].items():
            assert abs(mae - reference[name][log]) < 1e-6
        assert got["mean"] == pytest.approx(sum(reference[name].values()) / 12, abs=1e-6)


def test_evaluate_params_file_and_integrator(tmp_path, xl330_processed):
    params = json.loads(run("evaluate", "--params", "xl330/m1", "--logs", str(xl330_processed), "--json").stdout.splitlines()[-1])
    from actuator_models.model import load_model, save_model

    save_model(load_model("xl330/m1").with_values(), tmp_path / "p.json")
    semi = tmp_path / "semi.json"
    data = json.loads((tmp_path / "p.json").read_text())
    data["integrator"] = "semi-implicit"
    semi.write_text(json.dumps(data))
    out = json.loads(run("evaluate", "--params", str(tmp_path / "p.json"), str(semi), "--logs", str(xl330_processed), "--json").stdout.splitlines()[-1])
    assert out[str(tmp_path / "p.json")]["mean"] == pytest.approx(params["xl330/m1"]["mean"], abs=1e-12)
    assert out[str(semi)]["mean"] != pytest.approx(params["xl330/m1"]["mean"], abs=1e-4)


def test_process_and_simulate(tmp_path, xl330_raw, xl330_processed):
    result = run("process", str(xl330_raw), str(tmp_path / "proc"))
    assert result.returncode == 0, result.stderr
    assert len(list((tmp_path / "proc").glob("*.json"))) == 12
    log = sorted((tmp_path / "proc").glob("*.json"))[0]
    result = run("simulate", "--params", "xl330/m1", "--log", str(log), "--out", str(tmp_path / "sim.json"))
    assert result.returncode == 0, result.stderr
    reference = json.loads((xl330_processed.parent / "reference_mae.json").read_text())["models"]["m1"][log.name]
    mae = float(result.stdout.split("MAE ")[1].split()[0])
    assert mae == pytest.approx(reference, abs=1e-6)
    sim = json.loads((tmp_path / "sim.json").read_text())
    assert len(sim["entries"]) == 1201


def test_process_holds_commands_when_asked(tmp_path, xl330_raw):
    """``--hold-commands``: each processed goal is the last raw entry's at or before its time;
    without it the published tool's interpolation (a goal between two entries')."""
    from actuator_models.logs import read_log

    for flag in ((), ("--hold-commands",)):
        result = run("process", str(xl330_raw), str(tmp_path / f"out{len(flag)}"), *flag)
        assert result.returncode == 0, result.stderr
    raw = sorted(xl330_raw.glob("*.json"))[0]
    entries = json.loads(raw.read_text())["entries"]
    stamps = [e["timestamp"] for e in entries]
    interpolated, held = (read_log(tmp_path / f"out{n}" / raw.name) for n in (0, 1))
    for k in range(1, len(held)):
        last = max(i for i, t in enumerate(stamps) if t <= held.timestamp[k] + 1e-9)
        assert held.goal_position[k] == entries[last]["goal_position"], k
    assert (held.goal_position != interpolated.goal_position).mean() > 0.5
    assert result.stdout.splitlines()[0].endswith("commands held")


def test_process_holds_the_commands_of_a_log_that_says_so(tmp_path, xl330_raw):
    """A raw log saying ``commands_held`` (``record``, ``record-all``, ``bag2json --raw`` write it)
    is processed held without ``--hold-commands``, as that option does to the same entries."""
    raw = json.loads(sorted(xl330_raw.glob("*.json"))[0].read_text())
    (tmp_path / "ours").mkdir()
    (tmp_path / "ours" / "ours.json").write_text(json.dumps({**raw, "commands_held": True}))
    result = run("process", str(tmp_path / "ours"), str(tmp_path / "out"))
    assert result.returncode == 0, result.stderr
    assert "commands held" in result.stdout
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "ours.json").write_text(json.dumps(raw))
    assert run("process", str(tmp_path / "theirs"), str(tmp_path / "asked"), "--hold-commands").returncode == 0
    held, asked = (json.loads((tmp_path / folder / "ours.json").read_text()) for folder in ("out", "asked"))
    assert [e["goal_position"] for e in held["entries"]] == [e["goal_position"] for e in asked["entries"]]
    assert held["commands_held"] is asked["commands_held"] is True


@pytest.mark.parametrize("case", sorted(BAD_LOGS))
def test_bad_log_exit_2_one_line_no_traceback(case, tmp_path):
    data, expected = BAD_LOGS[case]
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "bad.json").write_text(json.dumps(data, allow_nan=True))
    for args in (("process", str(folder), str(tmp_path / "out")), ("simulate", "--params", "mx64/m1", "--log", str(folder / "bad.json"))):
        result = run(*args)
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("actuator-models: error: ") and expected in lines[0], result.stderr
        assert "Traceback" not in result.stderr


def test_bad_params_name(xl330_processed):
    result = run("evaluate", "--params", "xl330/m9", "--logs", str(xl330_processed))
    assert result.returncode == 2
    assert "xl330/m9" in result.stderr and len(result.stderr.strip().splitlines()) == 1

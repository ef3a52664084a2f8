"""``actuator-sim`` commands, run in-process."""

import json

import pytest

from actuator_sim.cli import main, mae_groups

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def one_log(xl330_processed):
    return sorted(xl330_processed.glob("*.json"))[0]


def test_pendulum_json_last_line(one_log, capsys):
    assert main(["pendulum", "--params", "xl330/m6", "--log", str(one_log), "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    result = json.loads(lines[-1])
    assert set(result) == {"mae_log", "mae_reference"}
    assert result["mae_reference"] < 0.01
    assert 0.0 < result["mae_log"] < 0.2


def test_consistency_table(capsys):
    assert main(["consistency", "--params", "mx64/m1", "--synthetic", "mx64/m6", "--bench", "1.0,0.15,8",
                 "--json"]) == 0
    table = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert table["mx64/m1"]["max_mae_reference"] < 1e-5


def test_arm_writes_trajectories_and_mae(tmp_path, capsys):
    out = tmp_path / "traj.json"
    assert main(["arm", "--arm", "mx", "--shoulder", "m1", "--elbow", "mx64/m1", "--path", "triangle_wave",
                 "--gain", "low", "--reference-shoulder", "m6", "--reference-elbow", "m6", "--out", str(out),
                 "--json"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    data = json.loads(out.read_text())
    assert data["joints"] == ["shoulder", "elbow"]
    assert len(data["position"]) == len(data["time"]) == len(data["reference"]["position"])
    assert data["mae"] == summary["mae"] > 0.01


def test_plots_from_the_command_line(tmp_path, one_log, capsys):
    assert main(["plot-diagram", "--params", "mx64/m1", "mx64/m6", "--out", str(tmp_path / "d.png")]) == 0
    assert main(["plot-trajectory", "--params", "xl330/m1", "--log", str(one_log), "--engine", "mujoco",
                 "--out", str(tmp_path / "t.png")]) == 0
    evaluation = tmp_path / "eval.json"
    evaluation.write_text("table...\n" + json.dumps({"xl330/m1": {"mean": 0.08, "logs": {}}}) + "\n")
    assert main(["plot-mae", "--eval", str(evaluation), "--out", str(tmp_path / "m.png")]) == 0
    assert main(["plot-mae", "--params", "xl330/m1", "xl330/m6", "--logs", str(one_log.parent),
                 "--out", str(tmp_path / "p.png")]) == 0
    for name in ("d.png", "t.png", "m.png", "p.png"):
        assert (tmp_path / name).read_bytes().startswith(PNG)


def test_mae_groups_formats():
    assert mae_groups({"maes": {"circle, low gain": {"M1": 1}}}) == {"circle, low gain": {"M1": 1.0}}
    assert mae_groups({"a": {"mean": 2, "logs": {}}}) == {"mean over logs": {"a": 2.0}}
    with pytest.raises(ValueError):
        mae_groups([1, 2])


def test_export_models(tmp_path, capsys):
    assert main(["export-models", "--out", str(tmp_path), "--mass", "0.5", "--length", "0.2"]) == 0
    names = {p.name for p in tmp_path.iterdir()}
    assert {"pendulum.xml", "pendulum.urdf", "arm_mx.xml", "arm_mx.urdf", "arm_erob.xml", "arm_erob.urdf"} <= names
    assert 'mass="0.5"' in (tmp_path / "pendulum.xml").read_text()


def test_errors_exit_2(tmp_path, capsys):
    assert main(["pendulum", "--params", "nope/m9", "--log", str(tmp_path / "x.json")]) == 2
    assert capsys.readouterr().err.startswith("actuator-sim: error: ")
    assert main(["arm", "--arm", "mx", "--shoulder", "m1", "--elbow", "m1", "--path", "circle",
                 "--gain", "medium"]) == 2
    assert "gain 'medium'" in capsys.readouterr().err


@pytest.mark.parametrize("gain", ["nan", "-3", "inf"])
def test_a_gain_no_servo_has_is_refused(gain, tmp_path, capsys):
    """Before: each ran the arm and wrote its trajectories (a NaN gain, a negative one...)."""
    out = tmp_path / "traj.json"
    assert main(["arm", "--arm", "mx", "--shoulder", "m1", "--elbow", "m1", "--path", "circle",
                 "--gain", gain, "--out", str(out)]) == 2
    assert f"gain {gain!r}: expected low or high or a firmware gain >= 0" in capsys.readouterr().err
    assert not out.exists()
    assert main(["arm-compare", "--arm", "mx", "--gain", "low", gain, "--out", str(tmp_path / "mae.json")]) == 2
    assert f"gain {gain!r}" in capsys.readouterr().err and not (tmp_path / "mae.json").exists()
    # before any work: arm-compare ran the low gain's paths first, transfer its fits
    assert main(["transfer", "--arm", "mx", "--gain", gain, "--out", str(tmp_path / "transfer")]) == 2
    assert f"gain {gain!r}" in capsys.readouterr().err and not (tmp_path / "transfer").exists()

"""A non-serial family added as one module plus one entry point (``toy_family.py``: servos on an
in-process simulated bus, neither serial nor EtherCAT) is recorded (``record``, ``record-all
--emulate``), played (``play``, the bench node's core) and demoed (``demo``) with no other change
to the code; it offers no stand-alone ``emulate``, and the command says so.

The numbers: a lockstep recording of the toy bus is its servo's model stepped at the loop's
5 ms, so the project's rollout of the logged goals (``simulate_logs``, an independent code path:
the log's first state, its goals, gains and supply) must reproduce every logged position; the
two mass groups of the family's grid must each follow their own pendulum (``set_load``).
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from family_install import family_distribution_fixture  # noqa: F401 (the family_distribution fixture)

from actuator_bench import cli
from actuator_bench.backends import installed_backends
from actuator_bench.bench_core import BenchCore, bench_parameters
from actuator_models.actuators import actuator
from actuator_models.family import family_of, installed_families
from actuator_models.logs import read_log
from actuator_models.resampling import resample
from actuator_models.model import load_model
from actuator_models.simulation import simulate_logs

@pytest.fixture()
def toy_family(family_distribution):
    """The toy family installed (its module, its data files, one entry point); returns the params
    file of its servos' true model."""
    return family_distribution("toy_family", "toy", "toyservo", "Toy servo")


def rollout_error(path: Path, truth: Path) -> float:
    """Largest |logged - simulated| position [rad] of a log against the rollout of ``truth``."""
    log = resample(read_log(path), 0.005)  # lockstep logs are on the 5 ms grid already
    simulated = simulate_logs(load_model(truth), [log])[0][: len(log)]
    return float(np.max(np.abs(simulated - log.position)))


def test_the_toy_family_is_one_module_and_one_entry_point(toy_family):
    assert "toy" in installed_families() and family_of("toyservo").title == "Toy bus"
    assert {"toybus", "toybus_emulator"} <= set(installed_backends())
    assert actuator("toyservo").title == "Toy servo"  # its own description, found through the family
    step = next(p for p in bench_parameters() if p.name == "toy_step")  # its settings are node parameters
    assert step.default == 0.005 and "Toy bus" in step.description


def test_record_all_emulates_the_toy_family_in_lockstep(tmp_path, capsys, toy_family):
    argv = ["record-all", "--emulate", str(toy_family), "--actuator", "toyservo", "--trajectories",
            "sin_sin,lift_and_drop", "--kps", "32", "--unattended", "--lockstep", "--out", str(tmp_path / "logs")]
    assert cli.main(argv) == 0
    paths = sorted((tmp_path / "logs").glob("*.json"))
    logs = [read_log(p) for p in paths]
    assert sorted((log.mass, log.trajectory) for log in logs) == [
        (0.3, "lift_and_drop"), (0.3, "sin_sin"), (0.6, "lift_and_drop"), (0.6, "sin_sin")]  # the family's grid
    assert "emulator load: 0.6 kg at 0.1 m" in capsys.readouterr().err
    for path, log in zip(paths, logs):
        assert log.motor == "toyservo" and np.ptp(log.position) > 0.3
        assert rollout_error(path, toy_family) < 1e-9, path.name  # each on its own pendulum, step for step


def test_record_and_play_the_toy_bus(tmp_path, toy_family):
    """``record`` opens the family's real backend (the wall-clock bus, with its own ``--toy-step``
    option), ``play`` any of its backends by name: the lifted pendulum drops when released."""
    record = ["record", "--actuator", "toyservo", "--trajectory", "lift_and_drop", "--mass", "0.3", "--length", "0.1",
              "--kp", "32", "--time-scale", "5", "--toy-step", "0.0025", "--command-timeout", "5",
              "--out", str(tmp_path / "record")]  # (a busy host's stall must not release the torque)
    play = ["play", "--backend", "toybus", "--actuator", "toyservo", "--model", str(toy_family), "--trajectory",
            "lift_and_drop", "--kp", "32", "--mass", "0.3", "--length", "0.1", "--time-scale", "5", "--command-timeout", "5",
            "--raw",
            "--out", str(tmp_path / "play")]
    for argv, folder in ((record, "record"), (play, "play")):
        assert cli.main(argv) == 0
        (path,) = (tmp_path / folder).glob("*.json")
        log = read_log(path)
        assert log.motor == "toyservo" and log.kp == 32 and log.torque_enable.any() and not log.torque_enable[-1]
        lifted = log.position[log.torque_enable].min()
        assert lifted < -1.0 and log.position[-1] > lifted + 0.5, folder  # lifted toward -pi/2, then dropped


def test_the_bench_node_core_runs_the_toy_bus(toy_family):
    core = BenchCore({"backend": "toybus", "actuators": ["toyservo"], "models": [str(toy_family)], "kp": [32.0],
                      "mass": 0.3, "length": 0.1, "toy_step": 0.001})
    try:
        assert core.loop.bench.step == 0.001  # its setting, from the node's parameters
        core.start("sin_sin", 32.0)
        cycles = [core.tick() for _ in range(3)]
        assert all([p.topic for p in c][:3] == ["joint_states", "actuator_states", "commands"] for c in cycles)
    finally:
        core.close()
    assert core.loop.bench.enable == [False]


def test_emulate_says_the_toy_family_has_no_standalone_emulator(capsys, toy_family):
    argv = ["emulate", "--actuator", "toyservo", "--params", str(toy_family), "--mass", "0.3", "--length", "0.1"]
    assert cli.main(argv) == 2
    assert "the Toy bus family offers no stand-alone emulator" in capsys.readouterr().err


def test_demo_of_the_toy_family(tmp_path, toy_family):
    """The quick demo of the family's declared demo, in a subprocess as a user runs it: 16
    lockstep recordings, M1-M6 fitted, report and figures; the recordings are the truth's exact model
    (its own validation error, the noise floor, is zero) and the fitted M1 predicts the held-out logs
    better than the toy actuator's unfitted defaults."""
    out = tmp_path / "demo"
    result = subprocess.run([sys.executable, "-m", "actuator_bench.cli", "demo", "--quick", "--actuator", "toyservo",
                             "--out", str(out)], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "recorded 16/16" in result.stderr
    report = json.loads((out / "params" / "report" / "report.json").read_text())
    assert sorted(report["models"]) == ["m1", "m2", "m3", "m4", "m5", "m6"]
    floor = next(line for line in result.stdout.splitlines() if line.strip().startswith("true"))
    assert float(floor.split()[1]) < 1e-9, floor
    fitted, unfitted = report["models"]["m1"]["validation_mae"], report["defaults"]["m1"]["validation_mae"]
    assert fitted < unfitted, (fitted, unfitted)  # the fit learnt the toy servo from its own recordings
    for png in ("params/report/mae.png", "plots/trajectory.png", "plots/drive_backdrive.png", "plots/arm_2r.png"):
        assert (out / png).stat().st_size > 10_000, png

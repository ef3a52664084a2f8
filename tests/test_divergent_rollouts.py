"""A params file with nonsense but finite values (``kt = 1e6``) is one ``error:`` line naming the
file, the log and where the rollout diverged, exit status 2, nothing written: never a confident
number (``simulate`` printed MAE 24280134488.52 rad, ``evaluate`` 2.4e58 rad with ``kt = 1e30``,
``actuator-sim pendulum`` a MuJoCo MAE of 63677 rad, all exit 0; ``hybrid-sim stick-slip`` spent
30 s and ended in a traceback; ``fit --set kt=1e6`` wrote its params). The published models
simulate exactly as before. Commands run in-process (:mod:`test_trustworthy_inputs`'s helpers)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from actuator_models.divergence import DIVERGED_DISTANCE, DivergentStep, first_divergence
from actuator_models.logs import read_logs
from actuator_models.model import library_names, load_model, save_model
from actuator_models.objective import Objective
from actuator_models.simulation import MAX_SPEED, LogBatch, log_maes, mean_absolute_errors, rollout
from test_trustworthy_inputs import error_line, run


def kt_file(tmp_path, kt=1e6):
    """xl330/m6 with its torque constant set to ``kt`` [N m/A]."""
    model = load_model("xl330/m6")
    path = tmp_path / "kt.json"
    save_model(replace(model, values={**model.values, "kt": kt}), path)
    return path


def first_log(xl330_processed):
    return sorted(xl330_processed.glob("*.json"))[0]


def refused(result, path):
    line = error_line(result)
    assert result.returncode == 2 and f"{path}: " in line and "diverged at t = " in line and "kt = 1e+06" in line, line
    return line


@pytest.mark.parametrize("integrator", ["bam", "semi-implicit"])
def test_simulate_and_evaluate_refuse_a_rollout_that_diverged(tmp_path, xl330_processed, integrator):
    """bam: the positions run away (2.4e10 rad); semi-implicit: the speed is pinned at the step's
    100 rad/s clip, chattering around the goal (MAE 0.41 rad, which looked like a poor model)."""
    path, log, out = kt_file(tmp_path), first_log(xl330_processed), tmp_path / "sim.json"
    simulate = run("simulate", "--params", path, "--log", log, "--integrator", integrator, "--out", out)
    assert f"its simulation of {log.name} diverged" in refused(simulate, path) and not out.exists()
    evaluate = run("evaluate", "--params", "xl330/m6", path, "--logs", xl330_processed, "--integrator", integrator,
                   "--json")
    assert f"{integrator} step" in refused(evaluate, path) and evaluate.stdout == ""


def test_the_simulators_beside_refuse_a_rollout_that_diverged(tmp_path, xl330_processed):
    path, log = kt_file(tmp_path), first_log(xl330_processed)
    refused(run("pendulum", "--params", path, "--log", log, "--json", tool="actuator_sim.cli"), path)
    refused(run("consistency", "--params", path, "--logs", xl330_processed, tool="actuator_sim.cli"), path)
    plot = tmp_path / "ref.png"
    stick_slip = run("stick-slip", "--params", path, "--log", log, "--plot", plot, tool="hybrid_sim.cli")
    assert "bam step" in refused(stick_slip, path) and not plot.exists()  # before the exact reference's 30 s


def test_mujoco_s_own_replay_that_diverged_is_refused(tmp_path, xl330_processed, monkeypatch):
    """MuJoCo does not clip the speed: its replay of kt = 1e6 ran to an MAE of 63677 rad."""
    monkeypatch.chdir(tmp_path)  # MuJoCo's warning of the unstable run goes to MUJOCO_LOG.TXT in the cwd
    from actuator_models.logs import read_log
    from actuator_sim.replay import mujoco_positions

    with pytest.raises(DivergentStep, match="MuJoCo: its simulation of .* diverged at t = 0.005 s"):
        mujoco_positions(load_model(kt_file(tmp_path)), read_log(first_log(xl330_processed)))


def test_a_fit_forced_to_nonsense_is_refused_and_writes_nothing(tmp_path, xl330_processed):
    out = tmp_path / "fit"
    result = run("fit", "--logs", xl330_processed, "--actuator", "xl330", "--model", "m1", "--trials", "16",
                 "--quiet", "--set", "kt=1e6", "--out", out)
    errors = [line for line in result.stderr.splitlines() if "error: " in line]  # after the budget's warnings
    assert len(errors) == 1 and "Traceback" not in result.stderr, result.stderr
    line = errors[0]
    assert result.returncode == 2 and "xl330/m1, bam step" in line and "diverged" in line and "kt = 1e+06" in line
    assert not out.exists()


def test_the_search_scores_a_diverging_candidate_and_goes_on(xl330_processed):
    """Only what a user reads is refused: a CMA-ES candidate that diverges is a bad cost."""
    model = load_model("xl330/m6")
    cost = Objective(model, read_logs(xl330_processed)[:2])({"kt": np.array([1e6, model.values["kt"]])})
    assert cost[0] > 1.0 > cost[1] > 0.0


def test_the_rule():
    logged, lengths, dt = np.zeros((2, 5)), np.array([5, 3]), np.array([0.005, 0.005])
    assert first_divergence(np.zeros((2, 5)), logged, lengths, dt, MAX_SPEED) is None
    runaway = np.zeros((2, 5))
    runaway[1, 3:] = np.nan  # past the log's 3 records: padding, not looked at
    assert first_divergence(runaway, logged, lengths, dt, MAX_SPEED) is None
    runaway[1, 2] = np.inf
    found = first_divergence(runaway, logged, lengths, dt, MAX_SPEED)
    assert (found.log, found.step) == (1, 2)
    far = np.zeros((2, 5))
    far[0, 1:] = DIVERGED_DISTANCE * 1.01  # far, and fast from the first record
    far[0, 2:] = np.linspace(0.0, 0.01, 3)
    found = first_divergence(far, logged, lengths, dt, MAX_SPEED)
    assert (found.log, found.step, found.speed) == (0, 1, pytest.approx(1010 / 0.005))
    clipped = np.cumsum(np.full((2, 5), MAX_SPEED * 0.005), axis=1)  # at the clip, within rounding
    assert first_divergence(clipped, logged, lengths, dt, MAX_SPEED).step == 1
    assert first_divergence(clipped * 0.9, logged, lengths, dt, MAX_SPEED) is None  # 90 rad/s: not diverged


def test_the_published_models_simulate_exactly_as_before(xl330_processed):
    logs = read_logs(xl330_processed)
    for name in library_names():
        model = load_model(name)
        batch = LogBatch.from_logs(logs, model.actuator.default_vin)
        unchecked = mean_absolute_errors(rollout(model.actuator, model.friction, model.values, batch), batch)
        assert np.array_equal(log_maes(model, logs), unchecked), name
    result = run("simulate", "--params", "xl330/m6", "--log", first_log(xl330_processed))
    assert result.returncode == 0 and "MAE 0.030434 rad" in result.stdout
    assert run("evaluate", "--params", "xl330/m6", "mx64/m6", "--logs", xl330_processed,
               "--allow-mismatch").returncode == 0


# ----------------------------------------------------------------------------- the simulated bench
def test_a_simulated_bench_refuses_values_its_step_cannot_integrate(tmp_path, monkeypatch):
    """``play --backend mujoco`` (the sim node's and the ros2_control twin's bench) on kt = 1e6
    published positions of 1e10 rad and more: the bench's probe refuses it at open, one line
    naming the file, exit 2, nothing written."""
    monkeypatch.chdir(tmp_path)  # MuJoCo's warning of the unstable run goes to MUJOCO_LOG.TXT in the cwd
    path, out = kt_file(tmp_path), tmp_path / "play"
    result = run("play", "--backend", "mujoco", "--model", path, "--trajectory", "sin_sin", "--kp", "400",
                 "--out", out, tool="actuator_bench.cli")
    line = error_line(result)
    assert result.returncode == 2 and f"{path}: joint 'pendulum' (xl330/m6) at kp 400: its MuJoCo simulation diverged" in line
    assert "kt = 1e+06" in line and not out.exists(), line


def test_a_running_simulated_bench_that_diverges_is_released_and_reset(tmp_path, monkeypatch):
    """A simulation that diverges while it runs (built here without the open's probe) raises at
    the advance that finds it, is released and reset, and its clock goes on: the next samples are
    finite, never the diverged state."""
    monkeypatch.chdir(tmp_path)
    from actuator_models.bench import BenchParams, Command
    from actuator_sim.bench import SimBench, mjcf_text
    from actuator_sim.joint_sim import JointSimulation, Servo

    model = load_model(kt_file(tmp_path))
    bench = SimBench(JointSimulation.from_xml(mjcf_text(BenchParams(mass=0.49, length=0.1)),
                                              [Servo("pendulum", model, 400.0)]))
    bench.apply(Command(name=("pendulum",), goal_position=(0.3,), torque_enable=(True,)))
    with pytest.raises(DivergentStep, match=r"joint 'pendulum' \(xl330/m6\) at kp 400: its MuJoCo simulation diverged"):
        bench.advance(0.1)
    sample = bench.advance(0.2)
    assert sample.time >= 0.1 and not any(sample.torque_enable)
    assert np.all(np.isfinite(sample.position)) and abs(sample.position[0]) < 1.0


# ----------------------------------------------------------------------------- the emulated servo
def test_an_emulated_servo_refuses_values_its_step_cannot_integrate(tmp_path):
    """``emulate --params`` kt = 1e6 answered on its bus with positions of 1e3 rad and more; now
    the servo's probe refuses it before the pty exists: one line naming the file, exit 2 (run as a
    subprocess: without the probe the emulator would serve until the timeout)."""
    import subprocess
    import sys

    path = kt_file(tmp_path)
    done = subprocess.run([sys.executable, "-m", "actuator_drivers.cli", "emulate", "--actuator", "xl330", "--params",
                           str(path), "--mass", "0.3", "--length", "0.1"], capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and done.stdout == "", done.stderr
    assert f"{path}: xl330/m6: its simulation diverged holding a 0.2 rad goal step" in lines[0]
    assert "likely kt = 1e+06" in lines[0]
    logs = tmp_path / "logs"  # record-all's in-process emulator, the same
    result = run("record-all", "--emulate", path, "--actuator", "xl330", "--logdir", logs, "--masses", "0.2",
                 "--lengths", "0.1", "--kps", "400", "--trajectories", "sin_sin", "--unattended", "--lockstep",
                 tool="actuator_bench.cli")
    line = error_line(result)
    assert result.returncode == 2 and f"{path}: xl330/m6: its simulation diverged" in line and not logs.exists(), line


def test_every_library_model_passes_the_servo_probe():
    """No published model is refused by the emulated servo's probe, on light and heavy benches at
    the gains the shared logs use and the Feetech/eRob ones."""
    from actuator_models.divergence import probe_servo
    from actuator_models.simulation import Pendulum

    for name in library_names():
        model = load_model(name)
        for kp in (16.0, 32.0, 100.0, 400.0, 800.0):
            for bench in (Pendulum(0.05, 0.05), Pendulum(1.0, 0.15), Pendulum(3.1, 0.5)):
                probe_servo(model, bench, kp, 0.005)

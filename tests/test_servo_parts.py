"""The servo model's declared parts end to end: a toy addition (tests/toy_addition.py) and a
friction model M7 (tests/m7_friction.py), each defined in one module, act in every simulator and
are fitted and reported by the CLI and the ROS service's ROS-free FitJob with no other change.

The toy addition ``trim`` scales kt by ``1 + trim``: every simulator carrying it must equal the
same simulator running the plain model with kt scaled by hand (an independent way to the same
numbers); it has no compiled twin, which the kernel says naming it (decided: an error, never a
silent drop; the fit then runs the numpy step and records why, ``Objective.why_numpy``)."""

import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from actuator_models import kernel
from actuator_models.additions import ADDITIONS, register_addition
from actuator_models.friction import REGISTERED_FRICTION_MODELS, register_friction_model
from actuator_models.logs import read_logs, write_log
from actuator_models.model import load_model
from actuator_models.objective import Objective
from actuator_models.simulation import LogBatch, Pendulum, PendulumSimulator, rollout

sys.path.insert(0, str(Path(__file__).parent))
from m7_friction import M7  # noqa: E402
from toy_addition import TRIM_ADDITION  # noqa: E402

TRIM = 0.2


@pytest.fixture
def toy():
    """The toy addition registered for one test (the registry is process-wide)."""
    register_addition(TRIM_ADDITION)
    yield TRIM_ADDITION
    del ADDITIONS[TRIM_ADDITION.name]


@pytest.fixture
def m7():
    register_friction_model(M7)
    yield M7
    del REGISTERED_FRICTION_MODELS[M7.name]


def _short(xl330_processed, count=3, n=240):
    logs = read_logs(xl330_processed)[::4][:count]
    return [replace(log, **{f: getattr(log, f)[:n] for f in ("timestamp", "position", "speed", "goal_position",
                                                             "torque_enable")},
                    extra={k: np.asarray(v)[:n] for k, v in log.extra.items()}) for log in logs]


def _pair():
    """(model carrying trim, the plain model with kt scaled by hand)."""
    base = load_model("xl330/m6")
    trimmed = base.with_values(trim=TRIM)
    return trimmed, base.with_values(kt=base.values["kt"] * (1.0 + TRIM))


def test_toy_addition_acts_in_the_rollout_pendulum_simulator_and_kernel(toy, xl330_processed):
    trimmed, scaled = _pair()
    assert trimmed.additions == ("trim",) and "trim" in [p.name for p in trimmed.parameters]
    logs = _short(xl330_processed)
    batch = LogBatch.from_logs(logs, trimmed.actuator.default_vin)
    got = rollout(trimmed.actuator, trimmed.friction, trimmed.values, batch)
    expected = rollout(scaled.actuator, scaled.friction, scaled.values, batch)
    plain = rollout(trimmed.actuator, trimmed.friction, load_model("xl330/m6").values, batch)
    assert np.max(np.abs(got - plain)) > 1e-3  # it acts
    assert np.max(np.abs(got - expected)) < 1e-12
    compiled = kernel.run(scaled.actuator, scaled.friction, scaled.values, batch, "bam", positions=True)[1][0]
    assert np.max(np.abs(compiled - got)) < 1e-12
    with pytest.raises(kernel.KernelError, match="'trim'"):
        kernel.run(trimmed.actuator, trimmed.friction, trimmed.values, batch, "bam")
    objective = Objective(trimmed, logs)
    assert objective.engine == "numpy" and "'trim'" in objective.why_numpy
    log = logs[0]
    runs = []
    for model in (trimmed, scaled):
        sim = PendulumSimulator(model, Pendulum(log.mass, log.length, log.arm_mass), vin=log.vin, q=log.position[0],
                                v=log.speed[0])
        q = []
        for goal, enable in zip(log.goal_position, log.torque_enable):
            q.append(sim.q)
            sim.step(goal, bool(enable), log.kp, log.dt)
        runs.append(np.array(q))
    assert np.max(np.abs(runs[0] - runs[1])) < 1e-12 and np.max(np.abs(runs[0] - got[0])) < 1e-12


def test_toy_addition_acts_in_mujoco_and_the_stick_slip_reference(toy):
    from actuator_sim.joint_sim import JointSimulation, Servo
    from actuator_sim.pendulum import PendulumBench, pendulum_mjcf
    from hybrid_sim.pendulum import exact_rollout
    from test_hybrid_pendulum import make_log

    trimmed, scaled = _pair()
    trimmed, scaled = (replace(m, integrator="semi-implicit") for m in (trimmed, scaled))
    positions = []
    for model in (trimmed, scaled, load_model("xl330/m6")):
        sim = JointSimulation.from_xml(pendulum_mjcf(PendulumBench(mass=0.5, length=0.15, timestep=0.002)),
                                       [Servo("pendulum", model, kp=600.0, vin=7.4)])
        q = []
        for k in range(300):
            sim.set_goal(0.8 if k >= 20 else 0.0)
            sim.step()
            q.append(sim.position[0])
        positions.append(np.array(q))
    assert np.max(np.abs(positions[0] - positions[1])) < 1e-12 and np.max(np.abs(positions[0] - positions[2])) > 1e-3
    log = make_log(lambda t: np.where(t >= 0.1, 0.6, 0.0), lambda t: t >= 0, duration=0.6)
    refs = [exact_rollout(m, log, 0.01).state("q") for m in (trimmed, scaled, load_model("xl330/m6"))]
    assert np.max(np.abs(refs[0] - refs[1])) < 1e-9 and np.max(np.abs(refs[0] - refs[2])) > 1e-3


def _log_folder(tmp_path, xl330_processed, count=4):
    folder = tmp_path / "logs"
    folder.mkdir()
    for i, log in enumerate(_short(xl330_processed, count, 300)):
        write_log(log, folder / f"log{i}.json")
    return folder


def test_toy_addition_is_searched_and_reported_by_the_fit_and_the_fit_job(toy, tmp_path, xl330_processed, capsys):
    from actuator_bench.fit_job import FitJob, FitRequest
    from actuator_models.cli import main

    logs = _log_folder(tmp_path, xl330_processed)
    out = tmp_path / "m1.json"
    assert main(["fit", "--logs", str(logs), "--actuator", "xl330", "--model", "m1", "--trials", "40", "--out", str(out),
                 "--force", "--carry", "trim"]) == 0
    # no compiled twin: said once, naming the addition (never a silent fallback to the numpy step)
    assert "m1: addition(s) 'trim' have no compiled twin: it is fitted on the numpy servo step" in capsys.readouterr().err
    fitted = load_model(out)
    assert fitted.additions == ("trim",) and fitted.values["trim"] != 0.0  # searched (it moved off its start)
    reported = json.loads((tmp_path / "m1.report" / "report.json").read_text())["models"]["m1"]["additions"]["carried"]
    assert reported["trim"] == fitted.values["trim"]  # reported
    outcome = FitJob(FitRequest(str(logs), "xl330", ("m1",), 40, 0.25, str(tmp_path / "job"), force=True), tmp_path).run()
    assert outcome.success, outcome.message
    job_model = load_model(outcome.params_files[0])
    assert job_model.additions == ("trim",) and job_model.values["trim"] != 0.0
    carried = json.loads((tmp_path / "job" / "report" / "report.json").read_text())["models"]["m1"]["additions"]["carried"]
    assert carried["trim"] == job_model.values["trim"]  # reported


def test_m7_defined_in_one_module_is_fitted_by_the_cli_and_the_fit_job(m7, tmp_path, xl330_processed):
    from actuator_bench.fit_job import FitJob, FitRequest
    from actuator_models.cli import main

    logs = _log_folder(tmp_path, xl330_processed)
    out = tmp_path / "m7.json"
    assert main(["fit", "--logs", str(logs), "--actuator", "xl330", "--model", "m7", "--trials", "40", "--out", str(out),
                 "--force", "--carry", "none"]) == 0
    fitted = load_model(out)
    assert fitted.friction is M7 and "friction_drag" in fitted.values
    outcome = FitJob(FitRequest(str(logs), "xl330", ("m7",), 40, 0.25, str(tmp_path / "job"), force=True), tmp_path).run()
    assert outcome.success, outcome.message
    assert outcome.models == ("m7",) and np.isfinite(outcome.train_mae[0])
    assert load_model(outcome.params_files[0]).friction is M7


@pytest.mark.parametrize("integrator", ["bam", "semi-implicit"])
@pytest.mark.parametrize("law", ["voltage (xl330)", "current PD (erob80_50)", "current"])
def test_scalar_step_equals_the_batched_step_for_every_law_and_addition_set(xl330_processed, law, integrator):
    """PendulumSimulator (the scalar step) against the batched rollout, every addition alone and
    together (random values within bounds), to 1e-12 rad; a constant logged temperature, the
    simulator's temperature setting."""
    from kernel_oracle import ADDITION_SETS, LAWS, stable_sets

    actuator = LAWS[law]
    log = _short(xl330_processed, 1, 200)[0]
    log = replace(log, extra={"temp": np.full(len(log), 40.0)})
    if law.startswith("current"):
        log = replace(log, mass=5.0, length=0.3, kp=log.kp / 100)
    from actuator_models.friction import FRICTION_MODELS
    from actuator_models.model import Model

    for additions in ((), *ADDITION_SETS):
        model = Model(actuator, FRICTION_MODELS["m6"], {}, integrator, additions)
        batch = LogBatch.from_logs([log], actuator.default_vin)
        values = {k: float(v[0]) for k, v in stable_sets(model, batch, np.random.default_rng(3), 1).items()}
        model = model.with_values(**values)
        expected = rollout(actuator, model.friction, model.values, batch, integrator)[0]
        sim = PendulumSimulator(model, Pendulum(log.mass, log.length, log.arm_mass), vin=log.vin, q=log.position[0],
                                v=log.speed[0], temperature=40.0)
        q = []
        for goal, enable in zip(log.goal_position, log.torque_enable):
            q.append(sim.q)
            sim.step(goal, bool(enable), log.kp, log.dt)
        assert np.max(np.abs(np.array(q) - expected)) < 1e-12, additions

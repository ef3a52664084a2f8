"""Dahl friction inside the pendulum simulators (rollout, PendulumSimulator), against an
independent integration of the coupled ODE (scipy DOP853)."""

import json

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from actuator_models.logs import Log
from actuator_models.model import load_model, new_model, save_model
from actuator_models.simulation import GRAVITY, LogBatch, Pendulum, PendulumSimulator, rollout

MASS, LENGTH, ARMATURE = 0.5, 0.15, 0.005
FC, RHO, KV = 0.1, 40.0, 0.05


def _released_pendulum(dt, integrator="semi-implicit", friction="dahl+viscous", steps=None):
    """Positions of the released pendulum (torque off) from 1 rad, at rest, w = 0."""
    model = new_model("xl330", friction, integrator, friction_base=FC, dahl_rho=RHO, armature=ARMATURE,
                      friction_viscous=KV)
    sim = PendulumSimulator(model, Pendulum(MASS, LENGTH), q=1.0)
    q = []
    for _ in range(steps or int(round(3.0 / dt))):
        q.append(sim.q)
        sim.step(0.0, False, 0.0, dt)
    return np.array(q), sim


@pytest.fixture(scope="module")
def ode():
    """J dv/dt = -m g l sin q - Fc w - Kv v, dw/dt = rho (v - |v| w): the reference."""
    inertia = MASS * LENGTH**2 + ARMATURE

    def rhs(t, y):
        q, v, w = y
        return [v, (-MASS * GRAVITY * LENGTH * np.sin(q) - FC * w - KV * v) / inertia, RHO * (v - abs(v) * w)]

    return solve_ivp(rhs, (0.0, 3.0), [1.0, 0.0, 0.0], method="DOP853", rtol=1e-11, atol=1e-13,
                     max_step=1e-3, dense_output=True).sol


def test_pendulum_with_dahl_converges_to_the_ode(ode):
    """The step is first order: the error halves with dt, and is ~2.6 mrad at dt = 1 ms."""
    errors = {}
    for dt in (0.002, 0.001):
        q, _ = _released_pendulum(dt)
        errors[dt] = np.max(np.abs(q - ode(np.arange(len(q)) * dt)[0]))
    assert errors[0.001] < 4e-3
    assert 1.7 < errors[0.002] / errors[0.001] < 2.3


def test_dahl_state_stays_in_range_and_the_pendulum_settles_off_centre(ode):
    """Dahl holds a residual angle (presliding: |Fc w| balances gravity) where M1-M6 need stiction."""
    q, sim = _released_pendulum(0.001, steps=6000)
    assert abs(sim.friction_state) <= 1.0
    gravity = -MASS * GRAVITY * LENGTH * np.sin(sim.q)
    assert abs(sim.v) < 1e-2
    assert gravity - FC * sim.friction_state == pytest.approx(0.0, abs=2e-3)  # static balance
    assert abs(sim.q) > 1e-3


def _log(goal, dt=0.005):
    n = len(goal)
    return Log(mass=MASS, length=LENGTH, arm_mass=0.0, kp=400.0, vin=7.4, motor="xl330", trajectory="test",
               dt=dt, timestamp=np.arange(n) * dt, position=np.zeros(n), speed=np.zeros(n),
               goal_position=goal, torque_enable=np.ones(n), source=f"log{n}.json")


def test_batched_rollout_carries_one_state_per_parameter_set_and_log():
    """rollout over (P, L) equals PendulumSimulator run set by set, log by log."""
    t = np.arange(400) * 0.005
    logs = [_log(0.8 * np.sin(2 * t)), _log(0.5 * np.sign(np.sin(3 * t[:300])))]
    base = new_model("xl330", "dahl+viscous", "bam", armature=ARMATURE)
    values = {**{k: np.full(3, v) for k, v in base.values.items()},
              "dahl_rho": np.array([20.0, 300.0, 3000.0]), "friction_base": np.array([0.02, 0.05, 0.1])}
    batch = LogBatch.from_logs(logs, base.actuator.default_vin)
    out = rollout(base.actuator, base.friction, values, batch, "bam")
    assert out.shape == (3, 2, 400)
    for i in range(3):
        model = base.with_values(dahl_rho=float(values["dahl_rho"][i]), friction_base=float(values["friction_base"][i]))
        for j, log in enumerate(logs):
            sim = PendulumSimulator(model, Pendulum(MASS, LENGTH), vin=7.4)
            for k in range(len(log)):
                assert out[i, j, k] == pytest.approx(sim.q, abs=1e-12)
                sim.step(log.goal_position[k], True, log.kp, log.dt)
    # the three parameter sets give three different trajectories
    assert np.abs(out[0, 0] - out[2, 0]).max() > 1e-3


def test_params_file_round_trip(tmp_path):
    model = new_model("xl330", "dahl+viscous", friction_base=0.03, dahl_rho=750.0)
    save_model(model, tmp_path / "d.json")
    data = json.loads((tmp_path / "d.json").read_text())
    assert data["model"] == "dahl+viscous" and data["dahl_rho"] == 750.0
    loaded = load_model(tmp_path / "d.json")
    assert loaded.friction.state is not None and loaded.values["dahl_rho"] == 750.0


def test_cma_es_fit_starts_from_the_two_stage_estimate():
    """fit(start=...) with the paper's two-stage estimate from force records (independent ODE)
    of the true Fc, rho: the first trial is that estimate, so the fit reproduces a log simulated
    with the true parameters (MAE ~ 0), where a search from the bounds' centre would not start."""
    from actuator_models.dahl_identification import Record, identify, start_model
    from actuator_models.fit_spec import FitSpec
    from actuator_models.fitting import fit
    from actuator_models.identification import FitSettings
    from actuator_models.simulation import simulate_logs
    from dahl_reference import cosine_record, ramp_record

    fc, rho = 0.04, 600.0
    estimate = identify(Record(*ramp_record(0.2, fc, rho, 1.0, dt=1e-4), source="ramp"),
                        Record(*cosine_record(0.005, 3.0, fc, rho, periods=4.2), source="wave"))
    assert estimate.rho == pytest.approx(rho, rel=1e-3)
    truth = new_model("xl330", "dahl+viscous", "bam", friction_base=fc, dahl_rho=rho, friction_viscous=0.02,
                      armature=ARMATURE)
    t = np.arange(300) * 0.005
    log = _log(0.6 * np.sin(3 * t))
    log.position = simulate_logs(truth, [log])[0]
    fixed = {name: truth.values[name] for name in ("kt", "R", "armature", "q_offset", "friction_viscous")}
    start = start_model(estimate, "xl330", **fixed)
    settings = FitSettings(trials=8, fixed=fixed, polish=False)
    result = fit(FitSpec([log], "xl330", ("dahl+viscous",), settings, validation_fraction=0.0, carry=(),
                         start=start)).result()
    assert result.train_mae < 1e-5
    assert result.model.values["dahl_rho"] == pytest.approx(rho, rel=2e-3)

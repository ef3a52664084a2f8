"""The pendulum simulation: published numbers, released-pendulum physics, integrators."""

import json

import numpy as np
import pytest

from actuator_models.logs import Log, read_logs
from actuator_models.model import load_model, new_model
from actuator_models.simulation import LogBatch, log_maes, rollout

MODELS = ["m1", "m2", "m3", "m4", "m5", "m6"]


@pytest.mark.parametrize("name", MODELS)
def test_reproduces_published_mae(name, xl330_processed, reference_mae_file):
    """The published implementation's MAE of each shipped xl330 model, on every log, to 1e-6 rad."""
    reference = json.loads(reference_mae_file.read_text())["models"][name]
    logs = read_logs(xl330_processed)
    maes = log_maes(load_model(f"xl330/{name}"), logs)
    assert len(logs) == 12
    for log, mae in zip(logs, maes):
        assert abs(mae - reference[log.source.split("/")[-1]]) < 1e-6


def released_log(q0, seconds, dt=0.005, mass=1.0, length=0.15):
    """A log of a released pendulum: torque off, goal 0, starting at rest at q0."""
    n = int(round(seconds / dt)) + 1
    zeros = np.zeros(n)
    position = np.full(n, q0)
    return Log(mass=mass, length=length, kp=32, vin=15.0, dt=dt, timestamp=np.arange(n) * dt,
               position=position, speed=zeros, goal_position=zeros, torque_enable=zeros > 1)


def frictionless(integrator):
    model = new_model("mx64", "m1", integrator, friction_base=0.0, friction_viscous=0.0, armature=0.012)
    return model


def amplitude_kept(integrator):
    log = released_log(0.5, 20.0)
    batch = LogBatch.from_logs([log])
    model = frictionless(integrator)
    q = rollout(model.actuator, model.friction, model.values, batch, integrator)[0]
    last_period = q[-int(1.0 / 0.005):]  # period ~0.83 s at these numbers
    return np.abs(last_period).max() / 0.5


def test_bam_step_is_numerically_dissipative():
    # Published step: a frictionless pendulum keeps only ~36 % of its amplitude after 20 s.
    assert amplitude_kept("bam") == pytest.approx(0.36, abs=0.02)


def test_semi_implicit_step_conserves_amplitude():
    assert amplitude_kept("semi-implicit") == pytest.approx(1.0, abs=1e-3)


@pytest.mark.parametrize("integrator", ["bam", "semi-implicit"])
def test_released_pendulum_rests_within_static_friction(integrator):
    """Released from 1 rad with Coulomb friction Kc, it stops where |gravity| <= Kc and stays."""
    kc = 0.3
    log = released_log(1.0, 6.0)
    model = new_model("mx64", "m1", integrator, friction_base=kc, friction_viscous=0.05, armature=0.012)
    q = rollout(model.actuator, model.friction, model.values, LogBatch.from_logs([log]), integrator)[0]
    final = q[-1]
    gravity = 1.0 * 9.80665 * 0.15 * np.sin(final)
    assert abs(gravity) <= kc + 1e-9
    assert abs(final) > 0.05  # it did not swing down to the bottom: friction holds it
    assert np.ptp(q[-200:]) == 0.0  # at rest for the last second, exactly


def test_rollout_batches_parameter_sets_like_single_runs(xl330_processed):
    logs = read_logs(xl330_processed)[:3]
    model = load_model("xl330/m6")
    batch = LogBatch.from_logs(logs)
    kts = np.array([0.3, model.values["kt"], 0.5])
    values = dict(model.values, kt=kts)
    many = rollout(model.actuator, model.friction, values, batch)
    assert many.shape == (3, 3, batch.steps)
    for i, kt in enumerate(kts):
        one = rollout(model.actuator, model.friction, dict(model.values, kt=kt), batch)
        np.testing.assert_array_equal(many[i], one)

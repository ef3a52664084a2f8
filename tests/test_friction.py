"""Friction models M1-M6 against hand-computed values, and the drive/static/backdrive regions."""

import math

import numpy as np
import pytest

from actuator_models.friction import FRICTION_MODELS, applied_friction, friction_model
from actuator_models.simulation import step

P = {
    "friction_base": 0.1,
    "friction_viscous": 0.2,
    "friction_stribeck": 0.05,
    "dtheta_stribeck": 1.0,
    "alpha": 2.0,
    "load_friction_base": 0.1,
    "load_friction_stribeck": 0.3,
    "load_friction_motor": 0.1,
    "load_friction_external": 0.2,
    "load_friction_motor_stribeck": 0.3,
    "load_friction_external_stribeck": 0.4,
    "load_friction_motor_quad": 0.01,
    "load_friction_external_quad": 0.02,
}
S = math.exp(-1.0)  # Stribeck factor at v = vs, alpha = 2


@pytest.mark.parametrize(
    "name, expected",
    [
        ("m1", 0.2 * 1 + 0.1),
        ("m2", 0.3 + S * 0.05),
        ("m3", 0.3 + 0.1 * 1.5),
        ("m4", 0.45 + S * (0.05 + 0.3 * 1.5)),
        ("m5", 0.3 + abs(0.1 * 1 - 0.2 * -0.5) + S * (0.05 + abs(0.3 * 1 - 0.4 * -0.5))),
        # opposite signs and |tm| > |te|: Q = Keq te^2
        ("m6", 0.3 + 0.2 + S * (0.05 + 0.5 + 0.02 * 0.25)),
    ],
)
def test_budget_hand_computed(name, expected):
    assert friction_model(name).budget(1.0, -0.5, 1.0, P) == pytest.approx(expected, rel=1e-12)


def test_m6_quadratic_branches():
    m6 = friction_model("m6").budget
    m5 = friction_model("m5").budget
    # |tm| < |te|, opposite signs: Q = Kmq tm^2
    assert m6(0.5, -1.0, 1.0, P) - m5(0.5, -1.0, 1.0, P) == pytest.approx(S * 0.01 * 0.25)
    # same signs: no quadratic term
    assert m6(1.0, 0.5, 1.0, P) == pytest.approx(m5(1.0, 0.5, 1.0, P))


def test_budget_is_vectorised_over_states_and_parameter_sets():
    v = np.linspace(-2, 2, 5)
    batch = dict(P, friction_base=np.array([[0.1], [0.2]]))
    for model in FRICTION_MODELS.values():
        out = model.budget(np.ones(5), -0.5 * np.ones(5), v, batch)
        assert out.shape == (2, 5)
        np.testing.assert_allclose(out[1] - out[0], 0.1)
        scalar = model.budget(1.0, -0.5, float(v[1]), P)
        assert out[0, 1] == pytest.approx(scalar)


def test_parameters_have_metadata():
    for model in FRICTION_MODELS.values():
        for p in model.parameters:
            assert p.lower <= p.default <= p.upper, p
            assert p.unit and p.meaning and p.symbol


def test_applied_friction_clips_the_stopping_torque():
    np.testing.assert_allclose(applied_friction(np.array([0.05, -0.05, 0.3, -0.3]), 0.1), [-0.05, 0.05, -0.1, 0.1])


def _acceleration_from_rest(tm, te, model="m3"):
    q, v = step(0.0, 0.0, tm, te, friction_model(model).budget(tm, te, 0.0, P), inertia=0.01, dt=0.005)
    return v


def test_drive_static_backdrive_regions_m3():
    # M3 at rest, tm = 1 N m, Kc = 0.1, Kl = 0.1: static while |tm + te| <= Kc + Kl |tm - te|,
    # i.e. te in [-1.2 / 0.9, -0.8 / 1.1] = [-1.3333, -0.7273] N m.
    low, high = -1.2 / 0.9, -0.8 / 1.1
    assert _acceleration_from_rest(1.0, high + 0.01) > 0  # motor drives the load
    assert _acceleration_from_rest(1.0, high - 0.01) == 0  # static
    assert _acceleration_from_rest(1.0, low + 0.01) == 0  # static
    assert _acceleration_from_rest(1.0, low - 0.01) < 0  # load backdrives the motor
    # M1 ignores load: its static band is |tm + te| <= Kc only
    assert _acceleration_from_rest(1.0, -0.85, "m1") > 0

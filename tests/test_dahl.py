"""The Dahl model (eqs. 9-10) and its exact update (eq. 18), against an independent
integration of the ODE (scipy DOP853, tests/dahl_reference.py) and the paper's closed forms."""

import numpy as np
import pytest

from actuator_models.dahl import (
    dahl_states, dahl_step, dahl_update, euler_update, steady_loading_force, steady_unloading_force,
)
from dahl_reference import dahl_ode_force, ramp_record

PERIOD = 2 * np.pi


@pytest.fixture(scope="module")
def cosine_5ms():
    """x = -cos t sampled at dt = 5 ms over 6 periods; Fc = rho = 1; force from the tight ODE."""
    dt = 0.005
    t = np.arange(0.0, 6 * PERIOD, dt)
    force = dahl_ode_force(t, np.sin, 1.0, 1.0, reversals=[k * np.pi for k in range(1, 12)])
    return t, force, dt


def test_section3_closed_forms_on_the_ode_steady_state():
    """Steady state of x = -cos t, Fc = rho = 1 (section 3): F(Xmin) = -tanh 1 at t = 2 pi k,
    F(Xmax) = tanh 1 at t = pi + 2 pi k, F(0) on the loading branch = 1 - sech 1 at pi/2 + 2 pi k."""
    k = 5
    t = np.array([0.0, k * PERIOD, k * PERIOD + np.pi / 2, k * PERIOD + np.pi])
    force = dahl_ode_force(t, np.sin, 1.0, 1.0, reversals=[j * np.pi for j in range(1, 2 * k + 2)])
    assert force[1] == pytest.approx(-np.tanh(1.0), abs=1e-8)
    assert force[2] == pytest.approx(1.0 - 1.0 / np.cosh(1.0), abs=1e-8)
    assert force[3] == pytest.approx(np.tanh(1.0), abs=1e-8)
    # Theorem 1 (eqs. 35-36) gives the same loop
    assert steady_loading_force(-1.0, 1.0, 1.0, -1.0, 1.0) == pytest.approx(-np.tanh(1.0), abs=1e-15)
    assert steady_loading_force(0.0, 1.0, 1.0, -1.0, 1.0) == pytest.approx(1.0 - 1.0 / np.cosh(1.0), abs=1e-15)
    assert steady_unloading_force(1.0, 1.0, 1.0, -1.0, 1.0) == pytest.approx(np.tanh(1.0), abs=1e-15)


def test_exact_update_at_5ms_matches_the_ode_at_steady_state(cosine_5ms):
    """Acceptance: the discrete update at dt = 5 ms agrees with the tight ODE within 1e-6 over
    the last period (the steps where x reverses are split at the reversal)."""
    t, force, dt = cosine_5ms
    w = dahl_states(-np.cos(t), 1.0, 0.0, v=np.sin(t), dt=dt)
    last = t >= 5 * PERIOD
    assert np.max(np.abs(w[last] - force[last])) < 1e-6
    # and the loop is Theorem 1's: loading branch of eq. 35
    loading = last & (t <= 5 * PERIOD + np.pi)
    assert np.max(np.abs(w[loading] - steady_loading_force(-np.cos(t[loading]), 1.0, 1.0, -1.0, 1.0))) < 1e-6


def test_reversal_inside_a_step_is_what_the_split_corrects(cosine_5ms):
    """Without the split, a step holding a reversal is taken as monotone: an error of order
    rho |w| dt^2 (~5e-6 here) at each reversal, which the split removes."""
    t, force, dt = cosine_5ms
    plain = dahl_states(-np.cos(t), 1.0, 0.0)
    last = t >= 5 * PERIOD
    error = np.max(np.abs(plain[last] - force[last]))
    assert 1e-6 < error < 1e-4


def test_exact_update_follows_eq19_on_a_ramp():
    """Stage-1 input x = v t from w(0) = -0.5: the update, step by step at dt = 10 ms, equals the ODE."""
    t, x, force = ramp_record(0.7, 1.0, 3.0, 5.0, dt=0.01, w0=-0.5)
    assert np.max(np.abs(dahl_states(x, 3.0, -0.5) - force)) < 1e-9


def test_euler_diverges_where_the_exact_update_does_not():
    """rho = 500 1/rad on the stage-1 ramp x = t at dt = 5 ms: rho |dx| = 2.5 > 2 per step.
    Euler's error to the limit is multiplied by 1 - rho |dx| = -1.5 each step; the exact update
    follows the ODE."""
    dt, rho = 0.005, 500.0
    t, x, reference = ramp_record(1.0, 1.0, rho, 1.0, dt=dt)
    exact = dahl_states(x, rho, 0.0)
    euler = np.zeros_like(t)
    with np.errstate(over="ignore", invalid="ignore"):
        for k in range(len(t) - 1):
            euler[k + 1] = euler_update(euler[k], x[k + 1] - x[k], rho)
    assert np.all(np.abs(exact) <= 1.0)
    assert np.max(np.abs(exact - reference)) < 1e-6
    assert abs(euler[40]) > 1e5 or not np.isfinite(euler[40])
    # below the limit (rho |dx| = 1.5) Euler converges to the same limit
    t, x, reference = ramp_record(1.0, 1.0, 300.0, 1.0, dt=dt)
    euler = np.zeros_like(t)
    for k in range(len(t) - 1):
        euler[k + 1] = euler_update(euler[k], x[k + 1] - x[k], 300.0)
    assert euler[-1] == pytest.approx(1.0, abs=1e-9)


def test_update_keeps_w_in_range_for_any_step():
    rng = np.random.default_rng(3)
    w = rng.uniform(-1, 1, 1000)
    dx = rng.normal(0, 10, 1000)
    out = dahl_update(w, dx, rng.uniform(0.1, 1e4, 1000))
    assert np.all(np.abs(out) <= 1.0)
    # no motion: no change (the cube at rest keeps its force, section 1.2)
    assert np.array_equal(dahl_update(w, 0.0, 5.0), w)
    # vectorised step with a reversal equals the two-part update
    assert dahl_step(0.3, 0.0, 2.0, 1.0, -1.0, 0.1) == pytest.approx(
        dahl_update(dahl_update(0.3, 0.025, 2.0), -0.025, 2.0), abs=1e-15)

"""The tire wheel in real MuJoCo (own contact off, the model's wrench applied) against the hybrid engine.

MuJoCo's semi-implicit Euler and the step-resolved transitions are first order: halving the step
must roughly halve the difference to the hybrid run (located events, RK45 at 1e-9).
"""

from __future__ import annotations

import numpy as np
import pytest

from hybrid_sim import RunSettings, simulate
from hybrid_sim.wheel import Wheel, WheelParameters, initial_state
from hybrid_sim.wheel_mujoco import MJCF, run_mujoco

mujoco = pytest.importorskip("mujoco")

FINAL = 0.5  # first touchdown (sliding) at 0.10 s, liftoff 0.13 s, second touchdown 0.29 s


@pytest.fixture(scope="module")
def hybrid():
    params = WheelParameters()
    x0 = initial_state(params=params, spin=10.0)
    result = simulate(Wheel(params), x0, RunSettings(final_time=FINAL, record_period=0.01, tolerance=1e-9,
                                                     max_time_step=1e-3, max_chart_count=1000))
    assert result.success
    return params, x0, result


def test_mujoco_contact_is_off_for_the_wheel():
    model = mujoco.MjModel.from_xml_string(MJCF.format(dt=1e-3, gz=-9.81, mass=5.0, inertia=0.225, radius=0.3))
    assert model.ngeom == 1 and model.geom_contype[0] == 0 and model.geom_conaffinity[0] == 0
    data = mujoco.MjData(model)
    data.qpos[1] = -1.0            # deep below z = 0: no contact from MuJoCo itself
    mujoco.mj_forward(model, data)
    assert data.ncon == 0


def test_mujoco_run_converges_to_the_hybrid_run(hybrid):
    params, x0, result = hybrid
    errors = []
    for dt in (2e-4, 1e-4):
        run = run_mujoco(params, x0, FINAL, timestep=dt, record_period=0.01)
        np.testing.assert_allclose(run.t, result.t, atol=1e-12)
        assert run.transitions == len(result.events)
        errors.append(max(np.max(np.abs(run.state(n) - result.state(n))) for n in ("x", "z")))
    assert errors[1] < 5e-3                       # 3.3 mm in z at 1e-4 s (a bounce phase shift)
    assert 1.5 < errors[0] / errors[1] < 2.7      # first order in the step

"""The MuJoCo pendulum reproduces the core reference simulator (semi-implicit) on the four
identification trajectories: synthetic MX-64 logs and the shipped real XL330 logs."""

import numpy as np
import pytest

from actuator_models import load_model, read_logs
from actuator_models.synthesis import BenchConfig, synthesize_logs
from actuator_models.trajectories import TRAJECTORIES
from actuator_sim.replay import replay, replays

TOLERANCE = 0.01  # rad, MAE between the MuJoCo and the reference rollouts
MODELS = [f"m{i}" for i in range(1, 7)]


@pytest.fixture(scope="module")
def mx64_logs():
    return synthesize_logs(load_model("mx64/m6"), [BenchConfig(mass=1.0, length=0.15, kp=8.0)])


@pytest.fixture(scope="module")
def xl330_logs(xl330_processed):
    return read_logs(xl330_processed)


def test_synthetic_logs_cover_the_four_trajectories(mx64_logs):
    assert [log.trajectory for log in mx64_logs] == list(TRAJECTORIES)
    assert all(log.dt == 0.005 for log in mx64_logs)


@pytest.mark.parametrize("name", MODELS)
def test_mx64_synthetic(mx64_logs, name):
    model = load_model(f"mx64/{name}")
    maes = np.array([r.mae_reference for r in replays(model, mx64_logs)])
    assert maes.max() < TOLERANCE
    if name in ("m1", "m2"):  # no load dependence: the lagged external torque does not matter
        assert maes.max() < 1e-5


@pytest.mark.parametrize("name", MODELS)
def test_xl330_real_logs(xl330_logs, name):
    model = load_model(f"xl330/{name}")
    results = replays(model, xl330_logs)
    assert max(r.mae_reference for r in results) < TOLERANCE
    # the replay follows the real bench about as well as the reference simulator does
    assert np.mean([r.mae_log for r in results]) < 0.1


def test_damping_split_is_also_consistent(mx64_logs):
    model = load_model("mx64/m6")
    assert max(r.mae_reference for r in replays(model, mx64_logs, "damping")) < TOLERANCE


def test_q_offset_is_carried_by_the_joint_ref(mx64_logs):
    model = load_model("mx64/m1").with_values(q_offset=0.08)
    assert replay(model, mx64_logs[2]).mae_reference < 1e-5

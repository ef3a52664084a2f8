"""2R arms: IK, paths, runs, and the virtual experiment (M6 tracks a M6 'real' arm better than M1)."""

import numpy as np
import pytest

from actuator_models import load_model
from actuator_sim.arm import ARMS, arm, joint_mae, run_path
from actuator_sim.experiment import compare_arm
from actuator_sim.kinematics import forward, inverse
from actuator_sim.paths import PATHS, PathTiming, path

SHORT = PathTiming(rest_before=0.2, motion=2.0, rest_after=0.2)


def test_inverse_then_forward_is_the_identity():
    y = np.linspace(0.1, 0.35, 7)
    z = np.linspace(-0.1, 0.1, 7)
    for elbow in (1, -1):
        q1, q2 = inverse(y, z, 0.2, 0.2, elbow)
        assert np.all(np.sign(q2) == elbow)
        assert np.allclose(forward(q1, q2, 0.2, 0.2), (y, z))
    with pytest.raises(ValueError, match="out of reach"):
        inverse(0.5, 0.0, 0.2, 0.2)


@pytest.mark.parametrize("name", list(PATHS))
def test_paths_stay_in_the_unit_square_and_are_continuous(name):
    s = np.linspace(0.0, 1.0, 2001)
    u, w = path(name).at(s)
    assert np.all(np.abs(u) <= 1 + 1e-12) and np.all(np.abs(w) <= 1 + 1e-12)
    steps = np.hypot(np.diff(u), np.diff(w))
    assert steps.max() < 5 * np.median(steps)  # constant speed, no jumps


def test_closed_paths_end_where_they_start():
    for name in ("circle", "square"):
        u, w = path(name).at(np.array([0.0, 1.0]))
        assert u[0] == pytest.approx(u[1]) and w[0] == pytest.approx(w[1])


def test_a_run_tracks_better_at_high_gain():
    a = arm("mx")
    models = (load_model("mx106/m6"), load_model("mx64/m6"))
    low = run_path(a, *models, "circle", "low", SHORT)
    high = run_path(a, *models, "circle", "high", SHORT)
    error = [np.mean(np.abs(r.position - r.goal)) for r in (low, high)]
    assert error[1] < 0.5 * error[0]
    assert low.position.shape == (len(low.time), 2)
    assert np.allclose(low.target, np.stack(forward(low.goal[:, 0], low.goal[:, 1], 0.2, 0.2), axis=1))
    assert joint_mae(low, low).tolist() == [0.0, 0.0]


def test_erob_arm_runs():
    a = ARMS["erob"]
    run = run_path(a, load_model("erob80_100/m6"), load_model("erob80_50/m6"), "square", "high")
    assert np.mean(np.abs(run.position - run.goal)) < 0.1


def test_virtual_experiment_m6_beats_m1_on_every_path_at_low_gain():
    a = arm("mx")
    real = (load_model("mx106/m6"), load_model("mx64/m6"))
    candidates = {
        "M1": (load_model("mx106/m1"), load_model("mx64/m1")),
        "M6": (load_model("mx106/m6"), load_model("mx64/m6")),
    }
    table = compare_arm(a, real, candidates, list(PATHS), ["low"])
    assert list(table) == [f"{name}, low gain" for name in PATHS]
    for row in table.values():
        assert row["M1"] > 0.01
        assert row["M6"] < 0.5 * row["M1"]


def test_arm_actuators_are_names_of_the_actuator_registry():
    from actuator_sim.arm import ARMS, Arm

    assert {(a.shoulder, a.elbow) for a in ARMS.values()} == {("mx106", "mx64"), ("erob80_100", "erob80_50"),
                                                           ("sts3215", "sts3215")}
    with pytest.raises(ValueError, match=r"unknown actuator 'mx65' \(did you mean 'mx64'\?\); expected one of"):
        Arm("mx", "arm_mx.xml", "mx106", "mx65")

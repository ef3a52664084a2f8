"""Shipped MJCF/URDF: in sync with their generators, and the pendulum's dynamics are the bench's."""

import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pytest

from actuator_models.simulation import Pendulum
from actuator_sim.arm import ARMS, link_lengths
from actuator_sim.models import generated_files, models_dir, read_model
from actuator_sim.pendulum import PendulumBench, pendulum_mjcf, pendulum_urdf


def test_shipped_files_are_the_generators_output():
    for name, text in generated_files().items():
        assert (models_dir() / name).read_text() == text, f"{name} is stale: run write_generated_files"


@pytest.mark.parametrize("bench", [PendulumBench(1.0, 0.15), PendulumBench(0.5, 0.2, 0.1, 0.05), PendulumBench(1.5, 0.1, 0.3, -0.03)])
def test_pendulum_mjcf_has_the_bench_dynamics(bench):
    model = mujoco.MjModel.from_xml_string(pendulum_mjcf(bench))
    data = mujoco.MjData(model)
    reference = Pendulum(bench.mass, bench.length, bench.arm_mass)
    for q in (-1.0, 0.0, 0.4, 2.0):
        accelerations = []
        for torque in (0.0, 1.0):  # qacc = (torque + gravity torque) / inertia
            data.qpos[0], data.qvel[0], data.qfrc_applied[0] = q, 0.0, torque
            mujoco.mj_forward(model, data)
            accelerations.append(data.qacc[0])
        assert 1.0 / (accelerations[1] - accelerations[0]) == pytest.approx(float(reference.inertia(0.0)), rel=1e-6)
        assert -data.qfrc_bias[0] == pytest.approx(float(reference.gravity_torque(q + bench.q_offset)), abs=1e-12)


def _urdf(text):
    root = ET.fromstring(text)
    links = {link.get("name"): link for link in root.findall("link")}
    joints = {joint.get("name"): joint for joint in root.findall("joint")}
    return links, joints


def test_pendulum_urdf_matches_the_mjcf():
    bench = PendulumBench(0.5, 0.2, 0.1, 0.05)
    links, joints = _urdf(pendulum_urdf(bench))
    assert float(links["pendulum"].find("inertial/mass").get("value")) == pytest.approx(0.6)
    joint = joints["pendulum"]
    assert joint.find("axis").get("xyz") == "1 0 0"
    assert float(joint.find("origin").get("rpy").split()[0]) == pytest.approx(0.05)  # q_offset
    tip = joints["tip_fixed"].find("origin").get("xyz")
    assert [float(x) for x in tip.split()] == pytest.approx([0, 0, -0.2])


@pytest.mark.parametrize("arm, lengths", [("mx", (0.2, 0.2)), ("erob", (0.5, 0.4))])
def test_arm_models(arm, lengths):
    text = read_model(ARMS[arm].mjcf)
    model = mujoco.MjModel.from_xml_string(text)
    assert link_lengths(model) == pytest.approx(lengths)
    assert [model.joint(i).name for i in range(model.njnt)] == ["shoulder", "elbow"]
    assert [model.actuator(i).name for i in range(model.nu)] == ["shoulder", "elbow"]
    assert int(model.opt.integrator) == int(mujoco.mjtIntegrator.mjINT_EULER)
    links, joints = _urdf((models_dir() / ARMS[arm].mjcf.replace(".xml", ".urdf")).read_text())
    for body in ("upper_arm", "forearm"):
        mass = float(links[body].find("inertial/mass").get("value"))
        assert mass == pytest.approx(model.body(body).mass[0])
    elbow = [float(x) for x in joints["elbow"].find("origin").get("xyz").split()]
    assert np.linalg.norm(elbow[1:]) == pytest.approx(lengths[0])
    assert joints["shoulder"].find("parent").get("link") == "base_link"
    assert joints["end_effector_fixed"].find("parent").get("link") == "forearm"

"""The six-servo SO-100 as the ``mujoco`` backend's bench, without ROS: the bench of
config/so100_arm.yaml (what ``control.launch.py robot:=so100 backend:=mujoco`` opens) simulates
the arm of ``so100.xml`` with its six STS3215, holds goals against gravity and lets go on the
command timeout (torque read back from the simulation)."""

from __future__ import annotations

from pathlib import Path

import mujoco
import numpy as np
import yaml
from actuator_models.bench import BenchParams, Command

from actuator_sim.bench import SimBench, SimSettings
from actuator_sim.so100 import JOINT_NAMES

CONFIG = Path(__file__).resolve().parents[1] / "config" / "so100_arm.yaml"
GOAL = (0.4, -0.8, 0.9, 0.5, 1.0, 0.6)  # [rad], inside every joint's range


def config_bench() -> SimBench:
    p = yaml.safe_load(CONFIG.read_text())["/**/bench"]["ros__parameters"]
    params = BenchParams(joints=tuple(p["joints"]), actuators=tuple(p["actuators"]), models=tuple(p["models"]),
                         ids=tuple(p["ids"]), min_position=tuple(p["min_position"]),
                         max_position=tuple(p["max_position"]), kp=tuple(p["kp"]), vin=tuple(p["vin"]),
                         command_timeout=p["command_timeout"], time_scale=None,
                         settings=SimSettings(mjcf=p["mjcf"]))
    return SimBench.open(params)


def test_the_config_opens_the_six_servo_arm_which_holds_goals_and_lets_go_on_timeout():
    bench = config_bench()
    assert bench.joints == JOINT_NAMES and bench.sim.model.nq == 6
    bench.apply(Command(name=JOINT_NAMES, goal_position=GOAL, torque_enable=(True,) * 6))
    bench.advance(0.45)  # within the command timeout (0.5 s)
    bench.apply(Command(name=JOINT_NAMES, goal_position=GOAL, torque_enable=(True,) * 6))
    held = bench.advance(0.9)
    assert all(held.torque_enable)
    # a P-controlled servo holds with an error that balances gravity: not 0 on the loaded pitch
    # joints, small (STS3215 at P 32); the steady state: motor torque = gravity torque + friction
    error = np.array(held.position) - GOAL
    assert np.abs(error).max() < 0.05, error
    data = mujoco.MjData(bench.sim.model)
    data.qpos[:] = held.position
    mujoco.mj_forward(bench.sim.model, data)
    gravity = data.qfrc_bias  # at rest: the torque gravity asks of each joint [N m]
    lift = JOINT_NAMES.index("shoulder_lift")
    assert abs(gravity[lift]) > 0.05  # loaded: the arm is out of its hanging pose
    # (measured 2026-11-26: motor -0.174, gravity -0.185 N m; the rest is static friction)
    np.testing.assert_allclose(held.motor_torque[lift], gravity[lift], atol=0.03)
    assert all(bench.advance(1.5).torque_enable)  # the watchdog is judged as each advance starts
    released = bench.advance(2.6)  # no command for 1.05 s when it starts: the watchdog let go
    assert not any(released.torque_enable)
    assert released.position[lift] > held.position[lift] + 0.3  # the shoulder fell back towards hanging

"""2R arms (paper section VI-B): run an end-effector path through IK and the servo models.

An arm is a shipped MJCF (joints ``shoulder`` and ``elbow``, site ``end_effector``), the
actuators expected on its joints, and its firmware gains ("low": loose control as used in RL,
"high": precise control). A run turns a path (:mod:`actuator_sim.paths`) into joint goals
with analytic IK (:mod:`actuator_sim.kinematics`), starts at rest at the first goal and sends
one goal per physics step (the MJCF's timestep, 5 ms) to a :class:`JointSimulation`.
Joint angles as in :mod:`actuator_sim.kinematics` [rad].
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Dict, Mapping, Tuple, Union

import mujoco
import numpy as np

from actuator_models.actuators import actuator
from actuator_models.model import Model

from .friction_split import ViscousMode
from .joint_sim import JointSimulation, Servo
from .kinematics import forward, inverse
from .models import ARM_MJCF, read_model
from .paths import PathTiming, path, path_targets

JOINTS = ("shoulder", "elbow")
#: Elbow branch of the IK (sign of q2) used for every path.
ELBOW_BRANCH = 1


@dataclass(frozen=True)
class Arm:
    """A shipped 2R arm.

    Attributes:
        name: ``"mx"``, ``"erob"`` or ``"so100"``. mjcf: model file name. shoulder, elbow: actuator names
        (``actuator_models`` registry). gains: firmware gain by level (``"low"``, ``"high"``).
    """

    name: str
    mjcf: str
    shoulder: str
    elbow: str
    gains: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for joint in JOINTS:  # names of the actuator registry (ValueError listing them otherwise)
            actuator(getattr(self, joint))

    def gain(self, level: Union[str, float]) -> float:
        """Firmware gain for ``"low"``/``"high"`` or a number (finite, >= 0: NaN, a negative or an
        infinite gain are refused, not simulated)."""
        if isinstance(level, str) and level in self.gains:
            return float(self.gains[level])
        try:
            value = float(level)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"gain {level!r}: expected {' or '.join(self.gains)} or a firmware gain >= 0")
        return value


ARMS: Dict[str, Arm] = {
    "mx": Arm("mx", ARM_MJCF["mx"], "mx106", "mx64", {"low": 4.0, "high": 32.0}),
    "erob": Arm("erob", ARM_MJCF["erob"], "erob80_100", "erob80_50", {"low": 10.0, "high": 100.0}),
    # LeRobot's SO-100 uses P Coefficient 16 (factory 32)
    "so100": Arm("so100", ARM_MJCF["so100"], "sts3215", "sts3215", {"low": 8.0, "high": 32.0}),
}
GAIN_LEVELS = ("low", "high")


def arm(name: str) -> Arm:
    """Look a shipped arm up by name."""
    try:
        return ARMS[name]
    except KeyError:
        raise ValueError(f"unknown arm {name!r}; expected one of {', '.join(ARMS)}") from None


def link_lengths(model: mujoco.MjModel) -> Tuple[float, float]:
    """Link lengths [m] in the arm plane: shoulder to elbow axis, elbow axis to end effector."""
    forearm = model.body("forearm").id
    upper = float(np.linalg.norm(model.body_pos[forearm][1:]))
    site = model.site("end_effector").id
    return upper, float(np.linalg.norm(model.site_pos[site][1:]))


def workspace(l1: float, l2: float) -> Tuple[Tuple[float, float], float]:
    """Where paths are drawn: centre ``(y, z)`` [m] in front of the shoulder at its height, and
    half size [m]; both scale with the reach ``l1 + l2``."""
    reach = l1 + l2
    return (0.55 * reach, 0.0), 0.2 * reach


@dataclass(frozen=True)
class ArmRun:
    """A simulated path; arrays are ``(T,)`` or ``(T, 2)`` (columns shoulder, elbow).

    Attributes:
        time [s], goal [rad], position [rad], velocity [rad/s], motor_torque [N m],
        friction_torque [N m], target: the end-effector targets ``(y, z)`` [m],
        lengths: link lengths [m].
    """

    time: np.ndarray
    goal: np.ndarray
    position: np.ndarray
    velocity: np.ndarray
    motor_torque: np.ndarray
    friction_torque: np.ndarray
    target: np.ndarray
    lengths: Tuple[float, float]

    def end_effector(self) -> np.ndarray:
        """Simulated end-effector positions ``(y, z)`` [m], shape ``(T, 2)``."""
        y, z = forward(self.position[:, 0], self.position[:, 1], *self.lengths)
        return np.stack([y, z], axis=1)

    def to_dict(self) -> Dict[str, object]:
        return {
            "joints": list(JOINTS),
            "time": self.time.tolist(),
            "goal": self.goal.tolist(),
            "position": self.position.tolist(),
            "velocity": self.velocity.tolist(),
            "motor_torque": self.motor_torque.tolist(),
            "friction_torque": self.friction_torque.tolist(),
            "end_effector_target": self.target.tolist(),
            "end_effector": self.end_effector().tolist(),
        }


def arm_simulation(a: Arm, shoulder: Model, elbow: Model, kp: float, viscous: ViscousMode = "frictionloss",
                   update_friction: bool = True) -> JointSimulation:
    """A :class:`JointSimulation` of arm ``a`` with the given servo models at gain ``kp``."""
    servos = [Servo("shoulder", shoulder, kp), Servo("elbow", elbow, kp)]
    return JointSimulation.from_xml(read_model(a.mjcf), servos, viscous=viscous, update_friction=update_friction)


def run_path(a: Arm, shoulder: Model, elbow: Model, path_name: str, gain: Union[str, float] = "low",
             timing: PathTiming = PathTiming(), viscous: ViscousMode = "frictionloss") -> ArmRun:
    """Simulate arm ``a`` following ``path_name`` at ``gain`` with the given servo models."""
    sim = arm_simulation(a, shoulder, elbow, a.gain(gain), viscous)
    lengths = link_lengths(sim.model)
    dt = sim.timestep
    t = np.arange(int(round(timing.duration / dt)) + 1) * dt
    y, z = path_targets(path(path_name), t, *workspace(*lengths), timing)
    goal = np.stack(inverse(y, z, *lengths, elbow=ELBOW_BRANCH), axis=1)
    sim.reset(goal[0])
    n = len(t)
    position, velocity, motor, friction = (np.empty((n, 2)) for _ in range(4))
    for k in range(n):
        position[k], velocity[k] = sim.position, sim.velocity
        sim.set_goal(goal[k])
        sim.step()
        state = sim.state
        motor[k], friction[k] = state.motor_torque, state.friction_torque
    return ArmRun(t, goal, position, velocity, motor, friction, np.stack([y, z], axis=1), lengths)


def joint_mae(run: ArmRun, reference: ArmRun) -> np.ndarray:
    """MAE [rad] of each joint between two runs of the same path (shape ``(2,)``)."""
    return np.mean(np.abs(run.position - reference.position), axis=0)

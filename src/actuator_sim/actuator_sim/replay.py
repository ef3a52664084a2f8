"""Replay a pendulum-bench log in MuJoCo and compare with the log and the reference simulator.

The replay follows the reference rollout (``actuator_models.simulation.rollout``): start at the
first entry's position and speed, record q before each step, and each step apply the logged
goal position and torque enable (and temperature, for a model carrying ``heating``) at the
log's gain and supply voltage, one MuJoCo step of the log's ``dt``. The reference is the core simulator with the ``semi-implicit`` integrator, the
one MuJoCo's Euler integrator implements (``v += a dt; q += v dt``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import List, Optional, Sequence

import numpy as np

from actuator_models.logs import Log
from actuator_models.model import Model
from actuator_models.divergence import refuse_divergent
from actuator_models.simulation import MAX_SPEED, simulate_logs

from .friction_split import ViscousMode
from .joint_sim import JointSimulation, Servo
from .pendulum import PendulumBench, pendulum_mjcf

JOINT = "pendulum"


def bench_of(log: Log, model: Model) -> PendulumBench:
    """The MuJoCo bench of a processed log (mass, length, arm mass, dt) and params (q_offset)."""
    if log.dt is None:
        raise ValueError(f"{log.source}: raw log (no 'dt'); process it first")
    return PendulumBench(log.mass, log.length, log.arm_mass, model.values.get("q_offset", 0.0), log.dt)


def first_temperature(log: Log) -> Optional[float]:
    """The log's first temperature reading [degC], None without a ``temp`` column."""
    temperature = log.extra.get("temp")
    return None if temperature is None or not len(temperature) else float(temperature[0])


def pendulum_simulation(model: Model, log: Log, viscous: ViscousMode = "frictionloss") -> JointSimulation:
    """A :class:`JointSimulation` of the log's bench driven by ``model`` at the log's gain; a
    ``thermal`` model's nodes start at the log's first temperature reading, as the default
    backend's do (no ``temp`` column: the model's ``thermal_initial``)."""
    servo = Servo(JOINT, model, log.kp, log.vin, first_temperature(log))
    return JointSimulation.from_xml(pendulum_mjcf(bench_of(log, model)), [servo], viscous=viscous)


def mujoco_positions(model: Model, log: Log, viscous: ViscousMode = "frictionloss") -> np.ndarray:
    """Simulated positions [rad], one per log entry, of the MuJoCo replay; one that diverged
    (the rule of :mod:`actuator_models.divergence`, MuJoCo's explicit step at the log's ``dt``) is
    refused with :class:`~actuator_models.divergence.DivergentStep`."""
    sim = pendulum_simulation(model, log, viscous)
    sim.reset(log.position[0], log.speed[0])
    out = np.empty(len(log))
    temperature = log.extra.get("temp")
    for k in range(len(log)):
        out[k] = sim.position[0]
        if temperature is not None:
            sim.set_temperature(temperature[k])
        sim.set_goal(log.goal_position[k])
        sim.set_torque_enable(bool(log.torque_enable[k]))
        sim.step()
    steps = SimpleNamespace(position=log.position[None], lengths=np.array([len(log)]), dt=np.array([log.dt]))
    refuse_divergent(model, steps, out[None], [log.source], MAX_SPEED, "MuJoCo")
    return out


def reference_positions(model: Model, logs: Sequence[Log]) -> List[np.ndarray]:
    """Positions [rad] of the core reference simulator with the semi-implicit integrator, per log
    (one batched rollout)."""
    batch = simulate_logs(model, logs, "semi-implicit")
    return [batch[i, : len(log)] for i, log in enumerate(logs)]


def mae(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference [rad]."""
    return float(np.mean(np.abs(np.asarray(a) - np.asarray(b))))


def log_maes(model: Model, logs: Sequence[Log]) -> np.ndarray:
    """MAE [rad] of ``model`` on each processed log, replayed in CPU MuJoCo with the servo step in
    the loop (:func:`mujoco_positions`: MuJoCo's semi-implicit integrator), shape ``(L,)``: the
    ``mujoco`` backend of ``actuator-models evaluate``."""
    return np.array([mae(mujoco_positions(model, log), log.position) for log in logs])


@dataclass(frozen=True)
class Replay:
    """MuJoCo and reference positions [rad] of one log, and their MAEs [rad]."""

    log: Log
    mujoco: np.ndarray
    reference: np.ndarray

    @property
    def mae_log(self) -> float:
        """MuJoCo vs the logged positions."""
        return mae(self.mujoco, self.log.position)

    @property
    def mae_reference(self) -> float:
        """MuJoCo vs the reference simulator (semi-implicit)."""
        return mae(self.mujoco, self.reference)


def replays(model: Model, logs: Sequence[Log], viscous: ViscousMode = "frictionloss") -> List[Replay]:
    """Replay each log in MuJoCo and in the reference simulator."""
    references = reference_positions(model, logs)
    return [Replay(log, mujoco_positions(model, log, viscous), ref) for log, ref in zip(logs, references)]


def replay(model: Model, log: Log, viscous: ViscousMode = "frictionloss") -> Replay:
    """Replay one log in MuJoCo and in the reference simulator."""
    return replays(model, [log], viscous)[0]

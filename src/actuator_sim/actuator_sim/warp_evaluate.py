"""Replay pendulum logs in MuJoCo Warp, all logs as one batch of worlds: the ``mjwarp`` backend of
``actuator-models evaluate`` (entry point ``actuator_models.evaluation_backends``).

Every log is one world of the pendulum bench's MJCF (:mod:`actuator_sim.pendulum`), driven by
:class:`~actuator_sim.warp_servo.WarpServos` as :mod:`actuator_sim.replay` drives the CPU one:
start at the first entry's position and speed, record before each step, each step the logged
goal, torque enable and temperature at the log's gain. One MJCF serves all worlds, so the logs
must share the bench (mass, length, arm mass), ``dt`` and supply voltage; logs of different
lengths are padded with their last entry (their MAE counts their own entries only).
The servo joint is integrated as the model was fitted (its params' ``integrator``, as the
default backend does): MuJoCo's semi-implicit update, plus the ``bam`` step's ``a dt^2 / 2``
for a ``bam`` model (:class:`~actuator_sim.warp_servo.WarpServos`).
"""

from __future__ import annotations

from typing import Sequence

import mujoco
import numpy as np

from actuator_models.logs import Log, LogError
from actuator_models.model import Model, ParamsError
from actuator_models.servo import Servo as ServoModel
from actuator_models.simulation import LogBatch, mean_absolute_errors

from .joint_sim import Servo
from .pendulum import pendulum_mjcf
from .replay import JOINT, bench_of


def _check_one_bench(logs: Sequence[Log], model: Model) -> None:
    first = logs[0]
    for log in logs[1:]:
        for field in ("mass", "length", "arm_mass", "dt", "vin"):
            if getattr(log, field) != getattr(first, field):
                raise LogError(
                    f"{log.source}: field {field!r} is {getattr(log, field)!r}, {first.source} has "
                    f"{getattr(first, field)!r}; the mjwarp backend runs logs of one bench (mass, length, "
                    f"arm_mass, dt, vin) as one batch: evaluate such logs separately")


def mjwarp_positions(model: Model, logs: Sequence[Log]) -> np.ndarray:
    """Simulated positions [rad], shape ``(L, T)`` (padded), of MuJoCo Warp replaying ``logs``."""
    import mujoco_warp as mjw  # the optional extra

    from .warp_servo import WarpServos, check_supported, prepare_model

    if not logs:
        raise LogError("no logs to simulate")
    _check_one_bench(logs, model)
    try:
        check_supported(model)
    except ValueError as error:
        raise ParamsError(f"--backend mjwarp: {error}") from None
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    servos = [Servo(JOINT, model, float(batch.kp[0]), float(batch.vin[0]))]
    mjm = mujoco.MjModel.from_xml_string(pendulum_mjcf(bench_of(logs[0], model)))
    prepare_model(mjm, servos)
    sim = WarpServos(mjm, mjw.put_model(mjm), mjw.make_data(mjm, nworld=len(logs)), servos, model.integrator)
    sim.set_kp(batch.kp[:, None])
    temperature = "temperature" in ServoModel.of(model).inputs  # an addition declares that it reads it
    if temperature:  # thermal's nodes start at the first reading (NaN: thermal_initial), as the default backend's
        sim.set_temperature(batch.first_temperature()[:, None])
    sim.reset(batch.position[:, :1], batch.speed[:, :1])
    out = np.empty(batch.position.shape)
    for k in range(batch.steps):
        out[:, k] = sim.position[:, 0]
        sim.set_goal(batch.goal_position[:, k, None])
        sim.set_torque_enable(batch.torque_enable[:, k, None])
        if temperature:
            sim.set_temperature(batch.temperature[:, k, None])
        sim.step()
    return out


def log_maes(model: Model, logs: Sequence[Log]) -> np.ndarray:
    """MAE [rad] of ``model`` on each processed log, replayed in MuJoCo Warp (shape ``(L,)``)."""
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    return mean_absolute_errors(mjwarp_positions(model, logs), batch)

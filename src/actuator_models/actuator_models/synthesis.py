"""Synthetic bench logs: what a pendulum bench would record with a known model.

Used to check identification on a known answer (fit, then compare with the true model) and to
build demo data without hardware.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence

import numpy as np

from .logs import PROCESSED_DT, Log, check_range
from .model import Model
from .simulation import LogBatch, rollout
from .trajectories import TRAJECTORIES, trajectory

#: One encoder step of a 4096-count-per-turn encoder [rad].
ENCODER_STEP = 2 * math.pi / 4096


@dataclass(frozen=True)
class BenchConfig:
    """One bench configuration: pendulum ``mass`` [kg] at ``length`` [m], firmware gain ``kp``;
    ``temperature`` [degC]: the servo's, recorded as the logs' ``temp`` column (None: none)."""

    mass: float
    length: float
    kp: float
    arm_mass: float = 0.0
    temperature: Optional[float] = None

    def __post_init__(self) -> None:
        """Refuse an unphysical bench (mass, length > 0; kp, arm_mass >= 0) as logs do."""
        for name in ("mass", "length", "kp", "arm_mass"):
            check_range(name, getattr(self, name), f"bench configuration: field {name!r}")


def grid(masses: Iterable[float], lengths: Iterable[float], gains: Iterable[float]) -> List[BenchConfig]:
    """Every combination, as in the paper's Table I."""
    return [BenchConfig(m, l, k) for m, l, k in itertools.product(masses, lengths, gains)]


def synthesize_logs(
    model: Model,
    configs: Sequence[BenchConfig],
    trajectories: Sequence[str] = tuple(TRAJECTORIES),
    dt: float = PROCESSED_DT,
    vin: Optional[float] = None,
    encoder_step: float = ENCODER_STEP,
) -> List[Log]:
    """Simulate ``model`` on every configuration and trajectory; positions are quantised to
    ``encoder_step`` [rad] (0 for none). Returns processed logs named ``<traj>_m<mass>_l<length>_kp<kp>.json``."""
    logs = []
    for config, name in itertools.product(configs, trajectories):
        t, goal, enable = trajectory(name).sample(dt)
        zeros = np.zeros_like(t)
        logs.append(
            Log(
                mass=config.mass, length=config.length, kp=config.kp, arm_mass=config.arm_mass,
                vin=model.actuator.default_vin if vin is None else vin, motor=model.actuator.name,
                trajectory=name, dt=dt, timestamp=t, position=zeros, speed=zeros,
                goal_position=goal, torque_enable=enable,
                extra={} if config.temperature is None else {"temp": np.full(len(t), config.temperature)},
                source=f"{name}_m{config.mass:g}_l{config.length:g}_kp{config.kp:g}"
                       f"{'' if config.temperature is None else f'_{config.temperature:g}C'}.json",
            )
        )
    batch = LogBatch.from_logs(logs, model.actuator.default_vin)
    positions = rollout(model.actuator, model.friction, model.values, batch, model.integrator)
    for log, q in zip(logs, positions):
        q = q[: len(log)]
        if encoder_step > 0:
            q = np.round(q / encoder_step) * encoder_step
        log.position = q
        log.speed = np.gradient(q, dt)
        log.speed[0] = 0.0
    return logs

"""The virtual 2R experiment: candidate servo models against a simulated "real" arm.

A "real" arm is the MuJoCo arm driven by one pair of models (for instance the published M6
of each actuator); each candidate pair (M1, a fitted M6, ...) runs the same paths and is
scored by the joint MAE [rad] against the real arm (mean over both joints and time).
"""

from __future__ import annotations

from typing import Dict, Mapping, Sequence, Tuple

import numpy as np

from actuator_models.model import Model

from .arm import Arm, joint_mae, run_path
from .friction_split import ViscousMode

ModelPair = Tuple[Model, Model]
GAIN_LABELS = {"low": "low gain", "high": "high gain"}


def group_name(path_name: str, gain: str) -> str:
    """Table row name, e.g. ``"circle, low gain"`` (``"circle, kp 40"`` for a number)."""
    return f"{path_name}, {GAIN_LABELS.get(gain, f'kp {gain}')}"


def compare_arm(
    arm: Arm,
    real: ModelPair,
    candidates: Mapping[str, ModelPair],
    paths: Sequence[str],
    gains: Sequence[str] = ("low",),
    viscous: ViscousMode = "frictionloss",
) -> Dict[str, Dict[str, float]]:
    """``{"<path>, <low|high> gain": {candidate: joint MAE [rad]}}`` against the real arm (a
    gain the arm cannot have is refused before any run: :meth:`Arm.gain`)."""
    for gain in gains:
        arm.gain(gain)
    table: Dict[str, Dict[str, float]] = {}
    for gain in gains:
        for name in paths:
            reference = run_path(arm, *real, name, gain, viscous=viscous)
            table[group_name(name, gain)] = {
                label: float(np.mean(joint_mae(run_path(arm, *pair, name, gain, viscous=viscous), reference)))
                for label, pair in candidates.items()
            }
    return table

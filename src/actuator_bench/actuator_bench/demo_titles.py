"""The demo's figure titles: one line each, true to what the figure shows (issue 34: the STS
demo's trajectory title ran to six lines with a path split mid-word, and the 2R arm's caption
named M6 where the bars showed M1 and M5)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from actuator_models.logs import Log


def trajectory(actuator_title: str, reference: str, log: Log) -> str:
    """``<servo> (<true model>): validation <trajectory>, kp ..``, one line of a 9 in figure (a
    true model given as a file by its name only); the models and their MAE are the legend's, the
    log's file and bench are in the report."""
    truth = Path(reference).stem if reference.endswith(".json") else reference
    return f"{actuator_title} ({truth}): validation {log.trajectory}, kp {log.kp:g}"


def arm(real: Sequence[str]) -> str:
    """The 2R arm's MAE bars: against which 'real' arm (shoulder + elbow models)."""
    return f"MuJoCo 2R arm, low gain: joint MAE against a 'real' arm of {real[0]} + {real[1]}"


def arm_caveat(best: str, same: bool) -> Optional[str]:
    """What to keep in mind reading the 2R bars: the 'real' arm's other joint is a published M6,
    so a fitted M6 candidate shares its model family (None when that is not the case)."""
    if same or best != "m6":
        return None
    return "2R: the 'real' arm's other joint is a published M6, so M6's advantage there is partly built in"

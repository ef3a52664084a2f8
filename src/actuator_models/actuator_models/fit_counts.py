"""The trial counts of a fit's summary line, which add up (issue 34: "37548 trials (search 20380,
polish 5089)": the total was the study's, of every worker and earlier run, the phases this
process's)."""

from __future__ import annotations

from typing import Sequence

from .fit_data import PhaseFigures


def trial_counts(study_trials: int, phases: Sequence[PhaseFigures]) -> str:
    """``"N trials (search a, polish b)"`` when this process ran them all, else ``"N trials in
    the study, M by this process (search a, polish b)"``: the phases always sum to the number
    they follow."""
    mine = sum(p.trials for p in phases)
    detail = ", ".join(f"{p.phase} {p.trials}" for p in phases) or "nothing left to do"
    if mine == study_trials:
        return f"{study_trials} trials ({detail})"
    return f"{study_trials} trials in the study, {mine} by this process ({detail})"

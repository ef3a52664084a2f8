"""How a caller names the fit's arguments, so that what it is told names its own.

A refusal or a warning raised deep in the fit speaks to whoever called: ``actuator-models fit``
is told ``--force``, a Python caller ``force=True`` (issue 34: the Python API was told to "pass
--force"). :data:`COMMAND_LINE` and :data:`PYTHON` are the two vocabularies; the default
everywhere is :data:`PYTHON` (the command line passes its own).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ArgumentNames:
    """The words for each argument a fit's messages name.

    Attributes:
        out: where the outputs go. overwrite: the switch that allows replacing existing outputs.
        trials: the trial budget. force: the switch that fits on too few training logs.
        validation_logs: how many logs are held out. fixed: parameters held at a value.
    """

    out: str
    overwrite: str
    trials: str
    force: str
    validation_logs: str
    fixed: str

    def given(self, name: str, value: object) -> str:
        """``name`` given ``value`` as this caller writes it: ``--trials 3`` or ``trials=3``."""
        return f"{name} {value}" if name.startswith("-") else f"{name}={value}"

    def switch(self, name: str) -> str:
        """``name`` switched on: ``--force`` or ``force=True``."""
        return name if name.startswith("-") else f"{name}=True"


COMMAND_LINE = ArgumentNames(out="--out", overwrite="--force", trials="--trials", force="--force",
                             validation_logs="--validation-logs", fixed="--set")
PYTHON = ArgumentNames(out="out", overwrite="overwrite", trials="FitSettings.trials", force="FitSettings.force",
                       validation_logs="FitSpec.validation_logs", fixed="FitSettings.fixed")

"""The fit's data rule: enough training logs for the free parameters, each counted against the
measurement that identifies it.

A fit searches two kinds of free parameters:

- the model's own (friction, motor, firmware, and additions fitted on the positions only): every
  training log is a position record, and the rule is one log per two of them
  (:func:`~.splits.minimum_train_logs`);
- those of an addition that is also fitted against a measurement of its own
  (:attr:`~.addition.Addition.measured`: ``thermal``'s nodes against the ``temp`` register, its
  case node being what the register reads): they are counted against the training logs that record
  that measurement, one such log per two of them, and not against the position records;
- those identified by a part of some logs alone (``release``'s shares, by the stretches where a
  log releases the torque): counted, the same way, against the training logs that have one.

A log that records its temperature is then two measured series (positions and the register), each
pinning its own parameters, rather than one series asked to pin both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from .addition_release import TORQUE_RELEASE, releases_torque
from .additions import parts
from .logs import Log
from .model import Model
from .splits import minimum_train_logs

#: A log's column of each measured input (:attr:`~.addition.Addition.measured`).
COLUMNS = {"temperature": "temp"}


@dataclass(frozen=True)
class Shortfall:
    """Too few training logs for some free parameters: ``free`` parameters counted against
    ``evidence`` (``"positions"`` or a measured input, e.g. ``"temperature"``), ``have`` training
    logs record it, ``needed`` are required."""

    evidence: str
    free: int
    have: int
    needed: int


def measured_parameters(model: Model, free: Sequence[str]) -> Dict[str, Tuple[str, ...]]:
    """Per measured input, the ``free`` parameters of ``model``'s additions fitted against it."""
    out: Dict[str, Tuple[str, ...]] = {}
    for part in parts(model.additions):
        for evidence in part.measured:
            names = tuple(n for n in part.parameter_names if n in free)
            out[evidence] = out.get(evidence, ()) + names
    return {k: v for k, v in out.items() if v}


def records(log: Log, evidence: str) -> bool:
    """Whether ``log`` records the measured input ``evidence`` (a non-empty, not all-NaN column),
    or for :data:`~.addition_release.TORQUE_RELEASE` whether it releases the torque."""
    if evidence == TORQUE_RELEASE:
        return releases_torque(log.torque_enable)
    column = log.extra.get(COLUMNS.get(evidence, evidence))
    return column is not None and len(column) > 0 and bool(np.any(np.isfinite(np.asarray(column, dtype=float))))


def evidence_counts(model: Model, free: Sequence[str]) -> Dict[str, int]:
    """Free parameters per evidence: ``"positions"`` first, then each measured input."""
    measured = measured_parameters(model, free)
    taken = {n for names in measured.values() for n in names}
    return {"positions": sum(1 for n in free if n not in taken), **{k: len(v) for k, v in measured.items()}}


def shortfall(model: Model, free: Sequence[str], train: Sequence[Log]) -> Optional[Shortfall]:
    """The first evidence with fewer training logs than its free parameters need (None: enough)."""
    for evidence, count in evidence_counts(model, free).items():
        have = len(train) if evidence == "positions" else sum(records(log, evidence) for log in train)
        needed = minimum_train_logs(count)
        if have < needed:
            return Shortfall(evidence, count, have, needed)
    return None


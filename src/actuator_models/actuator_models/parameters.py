"""Parameter metadata: what a model parameter is called, where it may live, and its unit.

Identification, params files, documentation and plots all iterate over these records, so the
name is the BAM-compatible key used in params JSON files.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Union

import numpy as np

#: A parameter value: a Python float or a numpy array (for batches of parameter sets).
Value = Union[float, np.ndarray]

#: Parameter values by name. Arrays broadcast against the state of a batched rollout.
ParamValues = Mapping[str, Value]


@dataclass(frozen=True)
class Parameter:
    """One identifiable parameter.

    Attributes:
        name: key in params files (BAM-compatible), e.g. ``"friction_base"``.
        default: value used when a params file does not set it.
        lower: lower bound searched by identification.
        upper: upper bound searched by identification.
        unit: SI unit, e.g. ``"N m"``.
        meaning: one line saying what it is.
        symbol: the paper's symbol, e.g. ``"Kc"``.
    """

    name: str
    default: float
    lower: float
    upper: float
    unit: str
    meaning: str
    symbol: str = ""

    def with_bounds(self, lower: float, upper: float) -> "Parameter":
        """Return a copy with other identification bounds."""
        return replace(self, lower=lower, upper=upper)


def clip(x: Value, low: Value, high: Value) -> Value:
    """``min(max(x, low), high)`` elementwise: ``np.clip`` without its per-call overhead,
    which matters in the per-step loop of batched rollouts."""
    return np.minimum(np.maximum(x, low), high)
